// sat_scan.h — the suite's library face: a summed-area table (2-D inclusive prefix sum) on an
// NVIDIA GPU, in one pass, at close to the speed of a device-to-device copy.
//
//     out(i, j) = sum of in(i', j') over 0 <= i' <= i, 0 <= j' <= j
//
// Implemented by lab 9 (solutions/lab9_lookback.cu): one kernel, every input element read once
// and every output element written once; tiles (64 x 512 for f32, 32 x 512 for i32 and
// u8 -> i32, 32 x 256 for f64) resolve their carries by decoupled look-back (docs/lab9.md).
// Include this header, link the lab 9 object, and call:
//
//     #include "sat_scan.h"
//     cudaError_t err = sat::inclusive_scan_2d(d_in, in_pitch, d_out, out_pitch, rows, cols, stream);
//
// Matrices are row-major in device memory; a pitch is the distance between the starts of two
// rows, counted in ELEMENTS of that matrix (>= cols), so a sub-rectangle of a larger buffer is
// passed as (pointer to its first element, pitch of the large buffer). The call is asynchronous
// on `stream` and returns launch errors (cudaErrorInvalidValue for a bad argument); rows or cols
// of 0 do nothing. `in == out` (in place) is allowed when both have the same type and pitch.
//
// Types: float->float, double->double, int32->int32 and uint8->int32 (an 8-bit image to its
// integral image). Integer sums wrap modulo 2^32, so an int32 SAT of uint8 data is exact up to
// 2^31 / 255, about 8.4 million pixels; floating-point sums round as any summation does.
//
// Scratch. The kernel needs device scratch (about 7 % of the output's bytes, see
// inclusive_scan_2d_scratch). By default each call allocates it stream-ordered and frees it
// again (cudaMallocAsync); to keep it between calls, allocate it once and pass it in ScanOptions.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace sat {

// Scratch needed for a rows x cols scan: `state_bytes` of tile flags and the tile ticket, which
// must be zero when the kernel starts, and `value_bytes` of published tile sums (any content).
struct ScanScratchSize {
    std::size_t state_bytes = 0;
    std::size_t value_bytes = 0;
};

// Instantiated for <float, float>, <double, double>, <int32_t, int32_t>, <uint8_t, int32_t>.
template <class In, class Out>
ScanScratchSize inclusive_scan_2d_scratch(int rows, int cols);

struct ScanOptions {
    // Caller-owned scratch; null means "allocate and free it inside this call".
    void* state = nullptr;       // >= state_bytes of device memory
    void* values = nullptr;      // >= value_bytes of device memory (256-byte aligned)
    bool state_is_zero = false;  // true: `state` is already zero on `stream` (else it is cleared)
    // Device int set to 1 (sat::status_spin_timeout) if a tile waited more than 2 s for another
    // one, which only a broken kernel or a stalled GPU causes; the output is then incomplete.
    // Null: an internal word is used and a timeout goes unreported.
    int* status = nullptr;
    // Number of thread blocks; 0 = as many as are resident at once on the device. Any positive
    // number is correct (tiles are handed out by an atomic ticket), only the speed differs.
    int grid_blocks = 0;
    // Harness instrumentation (--trace): one %globaltimer stamp per 32x32 tile. Leave null.
    unsigned long long* trace = nullptr;
};

cudaError_t inclusive_scan_2d(const float* in, std::size_t in_pitch_elems, float* out,
                              std::size_t out_pitch_elems, int rows, int cols,
                              cudaStream_t stream = 0, const ScanOptions& options = ScanOptions());
cudaError_t inclusive_scan_2d(const double* in, std::size_t in_pitch_elems, double* out,
                              std::size_t out_pitch_elems, int rows, int cols,
                              cudaStream_t stream = 0, const ScanOptions& options = ScanOptions());
cudaError_t inclusive_scan_2d(const int32_t* in, std::size_t in_pitch_elems, int32_t* out,
                              std::size_t out_pitch_elems, int rows, int cols,
                              cudaStream_t stream = 0, const ScanOptions& options = ScanOptions());
cudaError_t inclusive_scan_2d(const uint8_t* in, std::size_t in_pitch_elems, int32_t* out,
                              std::size_t out_pitch_elems, int rows, int cols,
                              cudaStream_t stream = 0, const ScanOptions& options = ScanOptions());

}  // namespace sat
