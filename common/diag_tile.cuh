// diag_tile.cuh — a w x w block held by ONE warp in shared memory in the diagonal arrangement
// (Kasagi Lemma 1: element (i, j) at [i][(i + j) mod w]), so that a lane walks a row or a column
// of the block without bank conflicts (lab 3 teaches it, lab 4 uses it).
//
//   diag(i, j)                         the slot of element (i, j)
//   load_block(in, ld, rows, cols, I, J, vec, tile, lane)    block (I, J) -> tile, zero outside
//   store_block(out, ld, rows, cols, I, J, vec, tile, lane)  tile -> block (I, J), clipped
//   vectors_fit<V>(p, ld, cols)        may the matrix at p (leading dimension ld, cols columns)
//                                      move in V-vectors?
//
// rows x cols is the (sub-)matrix, ld its leading dimension (ld >= cols); nothing outside it is
// read into the tile or written. With `vec` a lane moves V = vec_width<T> elements per access
// (16 bytes of 4-byte types; 8-byte types one word: conflict-free either way, docs/lab3.md).
// `vec` must come from vectors_fit: then no piece straddles the last column.
#pragma once

#include "device.cuh"

#include <cstdint>

namespace sat {

__device__ __forceinline__ int diag(int i, int j) { return i * w + ((i + j) & (w - 1)); }

template <class T>
constexpr int vec_width = sizeof(T) == 4 ? 4 : 1;

template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
    T v[V];
};

// True when a matrix at `p` with leading dimension `ld` and `cols` columns can move in V-element
// vectors: they are aligned, and none straddles the last column (cols % V == 0, so a piece that
// starts inside the columns ends inside them; a sub-rectangle of other width goes element by
// element). Decided once on the host, so that `vec` is a kernel parameter that nvcc hoists out of
// the unrolled loops; a column test inside them leaves a branch per pass, which waits for each
// pass's u8 load before the next (lab 4 u8i32 1.43x slower on an H100).
template <int V, class T>
bool vectors_fit(const T* p, std::size_t ld, int cols) {
    return V == 1 || (ld % V == 0 && cols % V == 0 &&
                      reinterpret_cast<std::uintptr_t>(p) % (sizeof(T) * V) == 0);
}

// Lane layout: a block row is w / V lanes wide, so one pass covers V rows; in pass p lane l owns
// row p * V + l / (w / V), columns (l % (w / V)) * V .. + V - 1 of the block.
template <class T>
struct LaneSlots {
    static constexpr int V = vec_width<T>;
    static constexpr int lanes_per_row = w / V;
    static constexpr int passes = w / V;
    __device__ static int row(int p, int lane) { return p * V + lane / lanes_per_row; }
    __device__ static int col(int lane) { return (lane % lanes_per_row) * V; }
};

// Load block (I, J) into `tile` (diagonal) as A, with zeros outside the matrix. Every load is
// issued before the first shared-memory store.
template <class In, class A>
__device__ __forceinline__ void load_block(const In* in, std::size_t ld, int rows, int cols, int I,
                                           int J, bool vec, A* tile, int lane) {
    using L = LaneSlots<A>;
    constexpr int V = L::V;
    A v[L::passes][V];
    const int j0 = J * w + L::col(lane);
#pragma unroll
    for (int p = 0; p < L::passes; ++p) {
        const int i = I * w + L::row(p, lane);
        const std::size_t at = std::size_t(i) * ld + j0;
        if (vec) {
            Pack<In, V> pk{};
            if (i < rows && j0 < cols) pk = *reinterpret_cast<const Pack<In, V>*>(in + at);
#pragma unroll
            for (int q = 0; q < V; ++q) v[p][q] = A(pk.v[q]);
        } else {
#pragma unroll
            for (int q = 0; q < V; ++q) v[p][q] = (i < rows && j0 + q < cols) ? A(in[at + q]) : A(0);
        }
    }
#pragma unroll
    for (int p = 0; p < L::passes; ++p)
#pragma unroll
        for (int q = 0; q < V; ++q) tile[diag(L::row(p, lane), L::col(lane) + q)] = v[p][q];
}

// Store `tile` (diagonal) as block (I, J), skipping what lies outside the matrix.
template <class Out, class A>
__device__ __forceinline__ void store_block(Out* out, std::size_t ld, int rows, int cols, int I,
                                            int J, bool vec, const A* tile, int lane) {
    using L = LaneSlots<Out>;
    constexpr int V = L::V;
    const int j0 = J * w + L::col(lane);
#pragma unroll
    for (int p = 0; p < L::passes; ++p) {
        const int i = I * w + L::row(p, lane);
        const std::size_t at = std::size_t(i) * ld + j0;
        Pack<Out, V> pk;
#pragma unroll
        for (int q = 0; q < V; ++q) pk.v[q] = Out(tile[diag(L::row(p, lane), L::col(lane) + q)]);
        if (vec) {
            if (i < rows && j0 < cols) *reinterpret_cast<Pack<Out, V>*>(out + at) = pk;
        } else {
#pragma unroll
            for (int q = 0; q < V; ++q)
                if (i < rows && j0 + q < cols) out[at + q] = pk.v[q];
        }
    }
}

}  // namespace sat
