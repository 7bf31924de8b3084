// consumer.cpp — a program outside the suite that uses the installed SAT library: the integral
// image and the squared one of a 8-bit image in one call, checked against a CPU sum.
// Exit status: 0 checked, 1 wrong, 2 an error, 77 no GPU here (built and linked only).
#include <sat.hpp>

#include <cstdio>
#include <cstdint>
#include <vector>

int main() {
    const int rows = 300, cols = 1037;  // not multiples of a tile
    std::vector<uint8_t> image(std::size_t(rows) * cols);
    for (std::size_t k = 0; k < image.size(); ++k) image[k] = uint8_t((k * 37 + k / cols) % 251);

    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("consumer: satlib %s linked; no GPU here, nothing run\n", satlib_version());
        return 77;
    }
    uint8_t* d_in = nullptr;
    int32_t *d_sum = nullptr, *d_sq = nullptr;
    const std::size_t n = image.size();
    if (cudaMalloc(&d_in, n) != cudaSuccess || cudaMalloc(&d_sum, n * 4) != cudaSuccess ||
        cudaMalloc(&d_sq, n * 4) != cudaSuccess) {
        std::printf("consumer: cudaMalloc failed\n");
        return 2;
    }
    cudaMemcpy(d_in, image.data(), n, cudaMemcpyHostToDevice);
    sat::IntegralOptions<int32_t> opt;
    opt.sq = d_sq;
    opt.sq_pitch = cols;
    opt.check_timeout = true;
    const int status = sat::integral(d_in, cols, d_sum, cols, rows, cols, 0, opt);
    if (status != SATLIB_OK) {
        std::printf("consumer: %s\n", satlib_error_string(status));
        return 2;
    }
    std::vector<int32_t> sum(n), sq(n);
    cudaMemcpy(sum.data(), d_sum, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(sq.data(), d_sq, n * 4, cudaMemcpyDeviceToHost);
    // CPU reference: row prefix, then add the row above (uint32 wraps as the library's sums do).
    std::vector<uint32_t> ref(n), ref_sq(n);
    long wrong = 0;
    for (int i = 0; i < rows; ++i) {
        uint32_t row = 0, row_sq = 0;
        for (int j = 0; j < cols; ++j) {
            const std::size_t k = std::size_t(i) * cols + j;
            row += image[k];
            row_sq += uint32_t(image[k]) * image[k];
            ref[k] = row + (i > 0 ? ref[k - cols] : 0u);
            ref_sq[k] = row_sq + (i > 0 ? ref_sq[k - cols] : 0u);
            wrong += uint32_t(sum[k]) != ref[k] || uint32_t(sq[k]) != ref_sq[k];
        }
    }
    cudaFree(d_in);
    cudaFree(d_sum);
    cudaFree(d_sq);
    std::printf("consumer: satlib %s, %dx%d u8 -> i32 sums and squares: %s (%ld wrong)\n", satlib_version(),
                rows, cols, wrong == 0 ? "PASS" : "FAIL", wrong);
    return wrong == 0 ? 0 : 1;
}
