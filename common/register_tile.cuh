// register_tile.cuh — a 32 x 32 tile held in the registers of one warp (labs 7 and 8): thread
// `lane` holds data[0 .. 31]; after a coalesced load, data[j] = tile[j][lane] (lane = column).
//
//   load_register_tile(in, s, r0, c0, lane, data)    the tile at (r0, c0) as the type of data,
//                                                    zeros outside the matrix (they change no
//                                                    prefix sum inside it, so edge tiles need no
//                                                    other special case)
//   store_register_tile(out, s, r0, c0, lane, data)  data back to (r0, c0), clipped to the matrix
//   store_register_tile_transposed(out_t, s, r0, c0, lane, data)
//                                                    a BRLT'ed tile (lane = row r0 + lane, data[j]
//                                                    = column c0 + j) into out_t, the s.cols x
//                                                    s.rows transpose: for each j the warp writes
//                                                    32 consecutive elements (coalesced), clipped
//   load_register_row(row, cols, c0, lane, data)     1024 elements of one row: data[j] = element
//                                                    c0 + 32j + lane (coalesced), 0 past cols
//   store_register_row(row, cols, c0, lane, data)    the same 1024 elements back, none past cols
//   copy_registers(from, to)                         to[j] = from[j] (a look-ahead's registers become
//                                                    this step's: register moves, no memory)
//   add_to_each(data, x)                             data[j] += x for every j (a carry)
//
// Turning lane = column into lane = row is lab 7's brlt_transpose.
#pragma once

#include "device.cuh"

namespace sat {

template <class In, class T>
__device__ __forceinline__ void load_register_tile(const In* __restrict__ in, Shape s, int r0,
                                                   int c0, int lane, T (&data)[w]) {
    const int c = c0 + lane;
    const bool column_inside = c < s.cols;
#pragma unroll
    for (int j = 0; j < w; ++j) {
        const int r = r0 + j;
        data[j] = (column_inside && r < s.rows) ? T(in[std::size_t(r) * s.cols + c]) : T(0);
    }
}

template <class Out, class T>
__device__ __forceinline__ void store_register_tile(Out* out, Shape s, int r0, int c0, int lane,
                                                    const T (&data)[w]) {
    const int c = c0 + lane;
    if (c >= s.cols) return;
#pragma unroll
    for (int j = 0; j < w; ++j)
        if (r0 + j < s.rows) out[std::size_t(r0 + j) * s.cols + c] = Out(data[j]);
}

// Lane = row r0 + lane, data[j] = column c0 + j: in the transpose (s.cols x s.rows) that is the
// tile at (c0, r0) with lane = column, which store_register_tile writes.
template <class Out, class T>
__device__ __forceinline__ void store_register_tile_transposed(Out* out_t, Shape s, int r0, int c0,
                                                               int lane, const T (&data)[w]) {
    store_register_tile(out_t, Shape{s.cols, s.rows}, c0, r0, lane, data);
}

// Register j of lane L <- element c0 + 32j + L of a row (coalesced); 0 past the last column.
template <class In, class T>
__device__ __forceinline__ void load_register_row(const In* __restrict__ row, int cols, int c0,
                                              int lane, T (&data)[w]) {
#pragma unroll
    for (int j = 0; j < w; ++j) {
        const int c = c0 + j * w + lane;
        data[j] = c < cols ? T(row[c]) : T(0);
    }
}

template <class Out, class T>
__device__ __forceinline__ void store_register_row(Out* row, int cols, int c0, int lane,
                                                   const T (&data)[w]) {
#pragma unroll
    for (int j = 0; j < w; ++j) {
        const int c = c0 + j * w + lane;
        if (c < cols) row[c] = Out(data[j]);
    }
}

template <class T, int N>
__device__ __forceinline__ void copy_registers(const T (&from)[N], T (&to)[N]) {
#pragma unroll
    for (int j = 0; j < N; ++j) to[j] = from[j];
}

template <class T, int N>
__device__ __forceinline__ void add_to_each(T (&data)[N], T x) {
#pragma unroll
    for (int j = 0; j < N; ++j) data[j] += x;
}

}  // namespace sat
