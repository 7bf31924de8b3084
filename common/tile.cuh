// tile.cuh — a w x w tile held by one CUDA block of 128 threads (4 warps) in padded shared
// memory (labs 5 and 6; the SAT of such a tile is lab 5's tile_sat).
//
//   TileRows<A>                      A (*)[w + 1]: element (i, j) in bank (i + j) mod 32, so a
//                                    warp reading a row or a column hits 32 different banks
//   load_tile(in, s, r0, c0, tile)   tile = the input at (r0, c0) as A, zero outside the matrix
//   store_tile(out, s, r0, c0, tile, S)  out at (r0, c0) = tile + S, clipped to the matrix
//
// Warp q moves rows q, q + 4, q + 8, ... of the tile, each one coalesced row of 32 elements; a
// thread issues all 8 of its loads before it uses any.
#pragma once

#include "device.cuh"

namespace sat {

constexpr int threads_per_tile = 128;                       // as in the paper: 4 warps per tile
constexpr int warps_per_tile = threads_per_tile / w;        // 4
[[maybe_unused]] constexpr int strip = w / warps_per_tile;  // 8 rows (or columns) per warp

template <class A>
using TileRows = A (*)[w + 1];

// Shared memory of a tile kernel that receives C, R, S (lab 6): the tile, lab 5's tile_sat
// scratch, and the carries.
template <class A>
struct TileSpace {
    A tile[w][w + 1];
    A strip_total[warps_per_tile][w];
    A C[w], R[w], S;
};

template <class In, class A>
__device__ __forceinline__ void load_tile(const In* in, Shape s, int r0, int c0, TileRows<A> tile) {
    const int lane = threadIdx.x % w, warp = threadIdx.x / w;
    const int c = c0 + lane;
    A v[strip];
#pragma unroll
    for (int k = 0; k < strip; ++k) {
        const int r = r0 + warp + k * warps_per_tile;
        v[k] = (r < s.rows && c < s.cols) ? A(in[std::size_t(r) * s.cols + c]) : A(0);
    }
#pragma unroll
    for (int k = 0; k < strip; ++k) tile[warp + k * warps_per_tile][lane] = v[k];
}

template <class Out, class A>
__device__ __forceinline__ void store_tile(Out* out, Shape s, int r0, int c0, TileRows<A> tile, A S) {
    const int lane = threadIdx.x % w, warp = threadIdx.x / w;
    const int c = c0 + lane;
    if (c >= s.cols) return;
#pragma unroll
    for (int k = 0; k < strip; ++k) {
        const int i = warp + k * warps_per_tile, r = r0 + i;
        if (r < s.rows) out[std::size_t(r) * s.cols + c] = Out(tile[i][lane] + S);
    }
}

}  // namespace sat
