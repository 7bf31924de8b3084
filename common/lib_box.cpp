// lib_box.cpp — the --box picture of the GPU labs: the box mean computed by the SAT library
// (satlib_box, lib/) when the binary links it (mk/lib.mk forces it in), else from the lab's own
// SAT on the CPU (box_filter_from_sat), as in a copy of the suite without lib/.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "io.h"
#include "sat.h"

// satlib.h, declared weak here so that the harness builds without the library. The values are
// those of satlib.h's enums (a fixed ABI): SATLIB_U8 0, I32 2, F32 3, F64 4; SATLIB_BOX_MEAN 1.
extern "C" int satlib_box(const void* in, int in_type, size_t in_pitch, size_t in_batch_stride, void* out,
                          int out_type, size_t out_pitch, size_t out_batch_stride, int batch, int rows, int cols,
                          int radius, int op, void* stream) __attribute__((weak));
extern "C" const char* satlib_error_string(int status) __attribute__((weak));
extern "C" int satlib_last_timeout(void) __attribute__((weak));

namespace sat {

std::vector<unsigned char> box_filter_image(DType t, Shape s, const void* input, const void* sat, int radius) {
    if (satlib_box == nullptr || satlib_error_string == nullptr) return box_filter_from_sat(t, s, sat, radius);
    const int in_type = t == DType::f32 ? 3 : t == DType::f64 ? 4 : t == DType::i32 ? 2 : 0;
    const int f64 = 4, box_mean = 1;
    const int out_of_memory = 4, timed_out = 5, cuda_error = 6;  // SATLIB_ERR_*
    const std::size_t in_bytes = s.n() * (t == DType::f64 ? 8 : t == DType::u8i32 ? 1 : 4);
    std::vector<double> mean(s.n());
    void *d_in = nullptr, *d_out = nullptr;
    int status = out_of_memory;
    if (cudaMalloc(&d_in, in_bytes) == cudaSuccess && cudaMalloc(&d_out, s.n() * sizeof(double)) == cudaSuccess) {
        status = cudaMemcpy(d_in, input, in_bytes, cudaMemcpyHostToDevice) == cudaSuccess ? 0 : cuda_error;
        if (status == 0)
            status = satlib_box(d_in, in_type, std::size_t(s.cols), 0, d_out, f64, std::size_t(s.cols), 0, 1, s.rows,
                                s.cols, radius, box_mean, nullptr);
        if (status == 0 && cudaMemcpy(mean.data(), d_out, s.n() * sizeof(double), cudaMemcpyDeviceToHost) != cudaSuccess)
            status = cuda_error;
        // satlib_box does not wait for its kernels: a spin timeout (an incomplete table) shows here.
        if (status == 0 && satlib_last_timeout != nullptr && satlib_last_timeout() != 0) status = timed_out;
    }
    cudaFree(d_in);
    cudaFree(d_out);
    if (status != 0) throw Error(std::string("box filter: ") + satlib_error_string(status));
    std::vector<unsigned char> image(s.n());
    for (std::size_t k = 0; k < s.n(); ++k)
        image[k] = static_cast<unsigned char>(std::clamp(std::lround(mean[k]), 0L, 255L));
    return image;
}

}  // namespace sat
