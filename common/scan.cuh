// scan.cuh — block-wide scans the labs share (warp scans: device.cuh's warp_inclusive_scan).
//
//   column_scan(m, rows, cols, stream)   in place: every column of the dense rows x cols matrix m
//                                        becomes its inclusive prefix sums (labs 4 and 6).
//
// A CUDA block owns a strip of w columns (lane = column, coalesced) and walks down it in rounds of
// scan_warps * rows_per_warp rows: each warp scans its rows in registers, the warps' totals meet
// in shared memory, a running carry links the rounds, and each warp's next rows are loading while
// it finishes the current ones. Sums are kept in sat::Acc<Out> (integers wrap modulo 2^32).
#pragma once

#include "diag_tile.cuh"  // Pack
#include "device.cuh"

namespace sat {

constexpr int scan_warps = 8;
constexpr int rows_per_warp = 16;

template <class Out, class A>
__device__ __forceinline__ void load_rows(const Out* m, int rows, int cols, int first, int j,
                                          A (&v)[rows_per_warp]) {
#pragma unroll
    for (int u = 0; u < rows_per_warp; ++u) {
        const int i = first + u;
        v[u] = (j < cols && i < rows) ? A(m[std::size_t(i) * cols + j]) : A(0);
    }
}

// v[u][c] = element (first + u, j + c) as A, 0 outside the matrix (cols % V == 0 when V > 1).
template <int V, class In, class A>
__device__ __forceinline__ void load_row_vectors(const In* in, int rows, int cols, int first,
                                                 int j, A (&v)[rows_per_warp][V]) {
#pragma unroll
    for (int u = 0; u < rows_per_warp; ++u) {
        const int i = first + u;
        Pack<In, V> p{};
        if (j < cols && i < rows) p = *reinterpret_cast<const Pack<In, V>*>(in + std::size_t(i) * cols + j);
#pragma unroll
        for (int c = 0; c < V; ++c) v[u][c] = A(p.v[c]);
    }
}

// One round's warp totals meet in shared memory (lane = column): each warp writes its own, one
// barrier, then every warp reads them all. Returns carry + the totals of the warps before this
// one, and the round's total. Callers alternate two buffers between rounds, so one barrier a
// round is enough: no warp overwrites totals another warp is still reading.
template <class A>
__device__ __forceinline__ A exchange_warp_totals(A (&totals)[scan_warps][w], A mine, int warp, int lane,
                                                  A carry, A& round_total) {
    totals[warp][lane] = mine;
    __syncthreads();
    A offset = carry;
    round_total = 0;
#pragma unroll
    for (int k = 0; k < scan_warps; ++k) {
        const A t = totals[k][lane];
        if (k < warp) offset += t;
        round_total += t;
    }
    return offset;
}

template <class Out>
__global__ void __launch_bounds__(scan_warps * w) column_prefix_sums(Out* m, int rows, int cols) {
    using A = sat::Acc<Out>;
    __shared__ A warp_totals[2][scan_warps][w];  // double-buffered: one barrier per round
    constexpr int round_rows = scan_warps * rows_per_warp;
    const int warp = threadIdx.x / w, lane = threadIdx.x % w;
    const int j = blockIdx.x * w + lane;
    A carry = 0;
    int buffer = 0;
    A next[rows_per_warp];
    load_rows(m, rows, cols, warp * rows_per_warp, j, next);
    for (int round_row = 0; round_row < rows; round_row += round_rows) {
        const int first = round_row + warp * rows_per_warp;
        A v[rows_per_warp];
#pragma unroll
        for (int u = 0; u < rows_per_warp; ++u) v[u] = next[u];
        if (round_row + round_rows < rows) load_rows(m, rows, cols, first + round_rows, j, next);
#pragma unroll
        for (int u = 1; u < rows_per_warp; ++u) v[u] += v[u - 1];
        A round_total;
        const A offset = exchange_warp_totals(warp_totals[buffer], v[rows_per_warp - 1], warp, lane, carry, round_total);
#pragma unroll
        for (int u = 0; u < rows_per_warp; ++u) {
            const int i = first + u;
            if (j < cols && i < rows) m[std::size_t(i) * cols + j] = Out(v[u] + offset);
        }
        carry += round_total;
        buffer ^= 1;
    }
}

template <class Out>
void column_scan(Out* m, int rows, int cols, cudaStream_t stream) {
    if (rows <= 0 || cols <= 0) return;
    column_prefix_sums<<<unsigned(ceil_div(cols, w)), scan_warps * w, 0, stream>>>(m, rows, cols);
    SAT_CHECK_LAUNCH("column_prefix_sums");
}

[[maybe_unused]] constexpr int scan_rows = 8;  // strip_scan: rows per warp per round (64 a round)

// Exclusive prefix sums down one strip of 32 columns of the matrix m (leading dimension ld):
// lane owns column `col` (if col_ok) and rows [lo, hi] of it; afterwards row k holds
// seed + m[lo] + ... + m[k-1]. The rounds cover rows [loop_lo, loop_hi], the union of the lanes'
// ranges (the same for the whole block). If `row_totals` is given, the 32 results of row k are
// summed and stored at row_totals[k] (used for the tile totals of C).
template <class A, class T>
__device__ void strip_scan(T* m, std::size_t ld, int col, bool col_ok, int lo, int hi, A seed,
                           int loop_lo, int loop_hi, T* row_totals) {
    __shared__ A warp_totals[2][scan_warps][w];  // double-buffered: one barrier per round
    const int warp = threadIdx.x / w, lane = threadIdx.x % w;
    A carry = seed;
    int buffer = 0;
    for (int round = loop_lo; round <= loop_hi; round += scan_warps * scan_rows) {
        const int first = round + warp * scan_rows;
        A v[scan_rows];
#pragma unroll
        for (int u = 0; u < scan_rows; ++u) {
            const int k = first + u;
            v[u] = (col_ok && k >= lo && k <= hi) ? A(m[std::size_t(k) * ld + col]) : A(0);
        }
        A before[scan_rows], run = 0;  // exclusive sums within this warp's rows
#pragma unroll
        for (int u = 0; u < scan_rows; ++u) before[u] = run, run += v[u];
        A round_total;
        const A offset = exchange_warp_totals(warp_totals[buffer], run, warp, lane, carry, round_total);
#pragma unroll
        for (int u = 0; u < scan_rows; ++u) {
            const int k = first + u;
            const bool mine = col_ok && k >= lo && k <= hi;
            const A result = offset + before[u];
            if (mine) m[std::size_t(k) * ld + col] = T(result);
            if (row_totals != nullptr && k >= loop_lo && k <= loop_hi) {
                A total = mine ? result : A(0);
#pragma unroll
                for (int d = w / 2; d > 0; d /= 2) total += __shfl_xor_sync(0xffffffffu, total, d);
                if (lane == 0) row_totals[k] = T(total);
            }
        }
        carry += round_total;
        buffer ^= 1;
    }
}

}  // namespace sat
