// register_cache.cuh — lab 7's block shapes (tuned on an H200 at 16384^2; docs/lab7.md) and the
// types its kernels keep in shared memory and registers. The kernels are in
// solutions/lab7_register_cache.cu.
#pragma once

#include "device.cuh"

namespace lab7 {

using sat::w;

// Block shapes, in warps (tuned on an H200 at 16384^2; docs/lab7.md).
// The strip pass: NR strips of 32 rows stacked x NC tiles side by side. A warp needs its own
// 32 x 33 transpose buffer (Alg. 5's sMem[S][32][33]), so the buffers are dynamic shared memory.
// Stacked strips make each transposed store run longer (32*NR consecutive words of out_t).
template <class Out>
constexpr int strip_rows_per_block() { return sizeof(Out) <= 4 ? 4 : 1; }
template <class Out>
constexpr int strip_tiles_per_block() { return sizeof(Out) <= 4 ? 2 : 4; }
// ScanRow: NW warps, one row each; rows of at least NW * 1024 elements get all NW warps of a
// block side by side (see scan_rows). ScanColumn: NC bands of 32 columns x NR tiles down; wide
// matrices get 4 bands x 4 tiles (512-byte row segments: 92 % of a copy at 16384^2 instead of
// 88 %); below 128 such blocks (16384 columns) too many SMs sit idle, so narrower ones keep 2
// bands x 4 tiles.
template <class Out>
constexpr int warps_per_block() { return sizeof(Out) <= 4 ? 8 : 4; }
template <class Out>
constexpr int band_cols_per_block() { return sizeof(Out) <= 4 ? 2 : 1; }
constexpr int wide_band_cols = 4, wide_min_cols = 128 * wide_band_cols * 32;  // 4-byte types
// u8 input keeps stacked rows in ScanRow: side by side it was 2 % (16384^2) to 13 % (8192^2) slower.
template <class In, class Out>
constexpr bool side_by_side_rows_ok() { return sizeof(In) == sizeof(Out); }
// ScanRowColumn-16B: TD warps x RT rows a thread. 32 x 4 (16 values a thread) measured 97 % of a
// copy at 16384^2 f32, 16 x 8 and 8 x 16 94 %. 8-byte types have twice the bands: 16 x 4, so two
// blocks fit an SM.
template <class Out>
constexpr int band16_warps() { return sizeof(Out) <= 4 ? 32 : 16; }
constexpr int band16_rows_per_thread = 4;

// The strip pass's shared memory: a 32 x 33 transpose buffer per warp (Alg. 5's sMem[S][32][33])
// and the row totals the NC warps of a strip exchange.
template <class Out, int NR, int NC>
struct StripShared {
    Out transpose_buffer[NR * NC][w][w + 1];
    Out warp_row_totals[NR][NC][w];
};

// ScanRowColumn-16B: the V = 16 / sizeof(Out) adjacent columns a thread owns, added as one value.
template <class Out>
struct alignas(16) ColumnsOf16Bytes {
    Out v[sat::vec_of<Out>()];
    __device__ ColumnsOf16Bytes& operator+=(const ColumnsOf16Bytes& o) {
#pragma unroll
        for (int k = 0; k < sat::vec_of<Out>(); ++k) v[k] += o.v[k];
        return *this;
    }
};

}  // namespace lab7

// A variant `name` with the harness's signature (in, out, s, ws, st) whose body is `call`.
#define LAB7_VARIANT(name, call)                                                               \
    template <class In, class Out>                                                             \
    void name(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t st) {     \
        call;                                                                                  \
    }
