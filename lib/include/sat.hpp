// sat.hpp — the SAT library's C++ face: a summed-area table (2-D inclusive prefix sum) on an
// NVIDIA GPU, in one pass, at close to the speed of a device-to-device copy.
//
//     out(i, j) = sum of in(i', j') over 0 <= i' <= i, 0 <= j' <= j
//
// Two layers over the same kernels (lib/src/lookback_kernel.cuh; thin images: lib/src/sat_thin.cu;
// one line, or one u8 -> i32 image of 2 or 3 rows of whole words or of 2 or 3 contiguous columns
// (rows a multiple of 4), or one f32, f64 or i32 image (the same type in and out) of 2 or 3 rows
// narrower than 2 MiB a row, or of 2 f32 or i32 rows of whole 16-byte groups from 2 MiB (cols and
// pitches multiples of 4, both pointers 16-byte aligned): CUB's 1-D scan, or CUB's scan of the
// rows or columns packed (a scan per row for 2 u8 rows from 20,000,000 wide; element or group
// lanes for f32, f64 and i32)):
//   sat::inclusive_scan_2d  one image (or a batch), cudaError_t, optional caller-owned scratch (ScanOptions);
//   sat::integral, sat::box_sum / box_mean / box_variance
//                           batches, squared sums, the NPP layout and box filters: typed calls
//                           of the C ABI (satlib.h), returning satlib_status.
//
//     #include <sat.hpp>
//     cudaError_t err = sat::inclusive_scan_2d(d_in, in_pitch, d_out, out_pitch, rows, cols, stream);
//
// Matrices are row-major in device memory; a pitch is the distance between the starts of two
// rows, counted in ELEMENTS of that matrix (>= cols), so a sub-rectangle of a larger buffer is
// passed as (pointer to its first element, pitch of the large buffer). Calls are asynchronous on
// `stream`. inclusive_scan_2d returns launch errors (cudaErrorInvalidValue for a bad argument);
// rows or cols of 0 do nothing. `in == out` (in place) is allowed when both have the same type
// and pitch.
//
// Types: f32->f32, f64->f64, i32->i32, u8->i32, u8->f32, u16->f64, f32->f64. Integer sums wrap
// modulo 2^32, so an i32 SAT of u8 data is exact up to 2^31 / 255, about 8.4 million pixels
// (differences of wrapped sums, as box filters take them, stay exact while the box sum fits);
// floating-point sums round as any summation does.
//
// Scratch. The kernels need device scratch (about 7 % of the output's bytes for large 2-D images,
// 13-14 % for one 1920x1080 image in the short tiles, under 1 % for thin images in the 1-D
// look-back and at most 10 % for the wide thin images that take the 2-D tiles; see
// inclusive_scan_2d_scratch). By default each call allocates it stream-ordered and frees it
// again (cudaMallocAsync); to keep it between calls, allocate it once and pass it in ScanOptions.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "satlib.h"

namespace sat {

// Scratch needed for a rows x cols scan: `state_bytes` of tile flags and the tile ticket, which
// must be zero when the kernel starts, and `value_bytes` of published tile sums (any content).
struct ScanScratchSize {
    std::size_t state_bytes = 0;
    std::size_t value_bytes = 0;
};

// Instantiated for the seven type pairs above. With `batch`: the scratch of a call that scans a
// batch of that many rows x cols images (ScanOptions::batch); it grows with `batch`, so scratch
// sized for the largest batch serves every smaller one.
template <class In, class Out>
ScanScratchSize inclusive_scan_2d_scratch(int rows, int cols);
template <class In, class Out>
ScanScratchSize inclusive_scan_2d_scratch(int rows, int cols, int batch);

// Where the images of a batch start: image b of `in` at in + b * in_stride (elements).
struct Batch {
    int count = 1;
    std::size_t in_stride = 0, out_stride = 0, sq_stride = 0;
};

struct ScanOptions {
    // Caller-owned scratch; null means "allocate and free it inside this call".
    void* state = nullptr;       // >= state_bytes of device memory
    void* values = nullptr;      // >= value_bytes of device memory (256-byte aligned)
    bool state_is_zero = false;  // true: `state` is already zero on `stream` (else it is cleared)
    // Device int set to 1 (spin timeout) if a tile waited more than 2 s for another one, which
    // only a broken kernel or a stalled GPU causes; the output is then incomplete. Null: the
    // library's own word is used, which satlib_last_timeout() reads.
    int* status = nullptr;
    // Number of thread blocks; 0 = as many as are resident at once on the device. Any positive
    // number is correct (tiles are handed out by an atomic ticket), only the speed differs. A thin
    // image that would take the thin kernel then takes the 2-D kernel, with scratch the call
    // allocates, as with `trace`: the caller's is sized for the thin kernel by
    // inclusive_scan_2d_scratch, which sees no options, and the 2-D kernel's is far larger
    // (1,000,000 x 3 f32: about 213 MB against 12 MB of output).
    int grid_blocks = 0;
    // Harness instrumentation (--trace): one %globaltimer stamp per 32x32 tile. Leave null.
    unsigned long long* trace = nullptr;
    // A batch of batch.count images of rows x cols in one call (one launch): image b of in and out
    // at in + b * batch.in_stride and out + b * batch.out_stride (elements; the outputs must not
    // overlap; sq_stride is not used here). Caller-owned scratch: inclusive_scan_2d_scratch(rows,
    // cols, batch.count).
    Batch batch;
};

#define SAT_SCAN_2D_DECL(In, Out)                                                              \
    cudaError_t inclusive_scan_2d(const In* in, std::size_t in_pitch_elems, Out* out,           \
                                  std::size_t out_pitch_elems, int rows, int cols,              \
                                  cudaStream_t stream = 0, const ScanOptions& options = ScanOptions());
SAT_SCAN_2D_DECL(float, float)
SAT_SCAN_2D_DECL(double, double)
SAT_SCAN_2D_DECL(int32_t, int32_t)
SAT_SCAN_2D_DECL(uint8_t, int32_t)
SAT_SCAN_2D_DECL(uint8_t, float)
SAT_SCAN_2D_DECL(uint16_t, double)
SAT_SCAN_2D_DECL(float, double)
#undef SAT_SCAN_2D_DECL

// ---- typed calls of the C ABI ------------------------------------------------------------------

template <class T> constexpr satlib_dtype dtype_of();
template <> constexpr satlib_dtype dtype_of<uint8_t>() { return SATLIB_U8; }
template <> constexpr satlib_dtype dtype_of<uint16_t>() { return SATLIB_U16; }
template <> constexpr satlib_dtype dtype_of<int32_t>() { return SATLIB_I32; }
template <> constexpr satlib_dtype dtype_of<float>() { return SATLIB_F32; }
template <> constexpr satlib_dtype dtype_of<double>() { return SATLIB_F64; }

// Everything beyond one plain table. sq: the squared-sum table (the output's type, same shape
// and layout as out), or null.
template <class Out>
struct IntegralOptions {
    Out* sq = nullptr;
    std::size_t sq_pitch = 0;
    Batch batch;
    satlib_layout layout = SATLIB_LAYOUT_SAME;
    bool check_timeout = false;  // wait for `stream` and report SATLIB_ERR_TIMEOUT
};

template <class In, class Out>
inline int integral(const In* in, std::size_t in_pitch, Out* out, std::size_t out_pitch, int rows,
                    int cols, cudaStream_t stream = 0,
                    const IntegralOptions<Out>& opt = IntegralOptions<Out>()) {
    satlib_integral_args a;
    a.in = in, a.in_type = dtype_of<In>(), a.in_pitch = in_pitch, a.in_batch_stride = opt.batch.in_stride;
    a.out = out, a.out_type = dtype_of<Out>(), a.out_pitch = out_pitch, a.out_batch_stride = opt.batch.out_stride;
    a.sq_out = opt.sq, a.sq_pitch = opt.sq_pitch, a.sq_batch_stride = opt.batch.sq_stride;
    a.batch = opt.batch.count, a.rows = rows, a.cols = cols, a.layout = opt.layout;
    return satlib_integral(&a, stream, opt.check_timeout ? 1 : 0);
}

// Box filters over a (2r+1) x (2r+1) window clipped at the border (satlib_box); Out: f32 or f64.
template <class In, class Out>
inline int box(satlib_box_op op, const In* in, std::size_t in_pitch, Out* out, std::size_t out_pitch,
               int rows, int cols, int radius, cudaStream_t stream = 0, Batch batch = Batch()) {
    return satlib_box(in, dtype_of<In>(), in_pitch, batch.in_stride, out, dtype_of<Out>(), out_pitch,
                      batch.out_stride, batch.count, rows, cols, radius, op, stream);
}
template <class In, class Out>
inline int box_sum(const In* in, std::size_t in_pitch, Out* out, std::size_t out_pitch, int rows,
                   int cols, int radius, cudaStream_t stream = 0, Batch batch = Batch()) {
    return box(SATLIB_BOX_SUM, in, in_pitch, out, out_pitch, rows, cols, radius, stream, batch);
}
template <class In, class Out>
inline int box_mean(const In* in, std::size_t in_pitch, Out* out, std::size_t out_pitch, int rows,
                    int cols, int radius, cudaStream_t stream = 0, Batch batch = Batch()) {
    return box(SATLIB_BOX_MEAN, in, in_pitch, out, out_pitch, rows, cols, radius, stream, batch);
}
template <class In, class Out>
inline int box_variance(const In* in, std::size_t in_pitch, Out* out, std::size_t out_pitch,
                        int rows, int cols, int radius, cudaStream_t stream = 0, Batch batch = Batch()) {
    return box(SATLIB_BOX_VARIANCE, in, in_pitch, out, out_pitch, rows, cols, radius, stream, batch);
}

}  // namespace sat
