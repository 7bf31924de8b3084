// sat_scan.h — the suite's library face for harness code: the SAT library's C++ header
// (lib/include/sat.hpp; the tuned kernel is lib/src/lookback_kernel.cuh, built by `make lib`).
#pragma once

#include "../lib/include/sat.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sat.h"

namespace sat {

// The --box picture of the lab binaries: the box mean of radius `radius` of a host matrix of
// harness type t (u8i32: 8-bit input), computed on the GPU by the library (satlib_box), rounded
// to 0..255. Throws sat::Error with the library's message.
inline std::vector<unsigned char> box_filter_image(DType t, Shape s, const void* input, int radius) {
    const satlib_dtype in_type = t == DType::f32 ? SATLIB_F32 : t == DType::f64 ? SATLIB_F64
                               : t == DType::i32 ? SATLIB_I32 : SATLIB_U8;
    const std::size_t in_bytes = s.n() * (t == DType::f64 ? 8 : t == DType::u8i32 ? 1 : 4);
    std::vector<double> mean(s.n());
    void *d_in = nullptr, *d_out = nullptr;
    int status = SATLIB_ERR_OUT_OF_MEMORY;
    if (cudaMalloc(&d_in, in_bytes) == cudaSuccess && cudaMalloc(&d_out, s.n() * sizeof(double)) == cudaSuccess &&
        cudaMemcpy(d_in, input, in_bytes, cudaMemcpyHostToDevice) == cudaSuccess) {
        status = satlib_box(d_in, in_type, std::size_t(s.cols), 0, d_out, SATLIB_F64, std::size_t(s.cols), 0, 1,
                            s.rows, s.cols, radius, SATLIB_BOX_MEAN, nullptr);
        if (status == SATLIB_OK &&
            cudaMemcpy(mean.data(), d_out, s.n() * sizeof(double), cudaMemcpyDeviceToHost) != cudaSuccess)
            status = SATLIB_ERR_CUDA;
    }
    cudaFree(d_in);
    cudaFree(d_out);
    if (status != SATLIB_OK) throw Error(std::string("box filter: ") + satlib_error_string(status));
    std::vector<unsigned char> image(s.n());
    for (std::size_t k = 0; k < s.n(); ++k)
        image[k] = static_cast<unsigned char>(std::clamp(std::lround(mean[k]), 0L, 255L));
    return image;
}

}  // namespace sat
