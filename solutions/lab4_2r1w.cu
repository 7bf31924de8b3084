// Lab 4 — the 2R1W SAT (Kasagi, Nakano, Ito 2014, section V; after Nehab et al. 2011).
//
// The matrix is cut into w x w blocks; one warp handles one block, held in shared memory in the
// diagonal arrangement of lab 3 (element (i, j) at [i][(i + j) mod w]) so that a lane can walk a
// row or a column of its block without bank conflicts.
//
//   Step 1  every block: column sums C (w values), row sums R (w values), block total S.
//           C -> col_sums   ((ty-1) x cols): row I holds the column sums of block row I;
//           R -> row_sums_t ((tx-1) x rows): R stored transposed, so that step 2 reads it coalesced;
//           S -> block_sums ((ty-1) x (tx-1)).  The last block row / column is never needed.
//   Step 2  column prefix sums of col_sums and of row_sums_t, and the SAT of block_sums — by
//           2R1W itself when it is larger than one w x w block (recursion depth k).
//   Step 3  every block: add the carries (prefix C of the block above to the top row, prefix R
//           of the block to the left to the left column, SAT S of the block above-left to the
//           corner), compute the block's own SAT in shared memory, write it.
//
// Global traffic: n reads (step 1) + n reads and n writes (step 3) + O(n/w): 3n/w + (2k+3)l.
// ty, tx = block rows, block columns (ceil(rows/w), ceil(cols/w)); I, J = a block's row, column.
//
// lab4::sat_2r1w (common/lab4.h) is the reusable entry point: any leading dimensions, a
// sub-rectangle or in place. Lab 6 includes this file and calls it. Moving a block between global
// memory and a warp's diagonal tile is common/diag_tile.cuh; step 2's scan is common/scan.cuh.
//
// Integer sums are accumulated in sat::Acc<Out> (unsigned), so i32 / u8i32 wrap modulo 2^32 like
// the reference, without signed overflow; memory (tiles aside) holds Out.
#include "diag_tile.cuh"
#include "lab4.h"
#include "scan.cuh"
#include "types.h"

namespace lab4 {

using sat::diag;
using sat::w;

// One warp per block; 4 blocks of 4-byte or 2 of 8-byte values per CUDA block (16 KiB of shared
// memory). Small CUDA blocks retire as soon as their few warps finish (2% faster than 8 on an H200).
template <class Out>
constexpr int warps_per_block = sizeof(Out) == 4 ? 4 : 2;

// ---- Step 1: block sums ------------------------------------------------------------------------

template <class In, class Out>
__global__ void __launch_bounds__(warps_per_block<Out> * w)
block_sums_kernel(const In* in, std::size_t ld, int rows, int cols, bool vec, Out* col_sums,
                  Out* row_sums_t, Out* block_sums) {
    using A = sat::Acc<Out>;
    __shared__ A tiles[warps_per_block<Out>][w * w];
    const int warp = threadIdx.x / w, lane = threadIdx.x % w;
    const int ty = sat::ceil_div(rows, w), tx = sat::ceil_div(cols, w);
    const std::size_t block = std::size_t(blockIdx.x) * warps_per_block<Out> + warp;
    if (block >= std::size_t(ty) * tx) return;  // the whole warp leaves together
    const int I = int(block / tx), J = int(block % tx);
    A* tile = tiles[warp];
    sat::load_block(in, ld, rows, cols, I, J, vec, tile, lane);
    __syncwarp();

    // BEGIN SOLUTION hint: lane c sums column c (C), lane r sums row r (R), S = warp sum of the C's; write C to col_sums[I][J*w+lane] if I < ty-1, R to row_sums_t[J][I*w+lane] if J < tx-1, S (lane 0) to block_sums[I][J] if both
    A column_sum = 0, row_sum = 0;
#pragma unroll
    for (int k = 0; k < w; ++k) {
        column_sum += tile[diag(k, lane)];  // column `lane`: banks (k + lane) mod w, all distinct
        row_sum += tile[diag(lane, k)];     // row `lane`
    }
    A total = column_sum;
#pragma unroll
    for (int d = w / 2; d > 0; d /= 2) total += __shfl_xor_sync(0xffffffffu, total, d);

    const int j = J * w + lane, i = I * w + lane;
    if (I < ty - 1 && j < cols) col_sums[std::size_t(I) * cols + j] = Out(column_sum);
    if (J < tx - 1 && i < rows) row_sums_t[std::size_t(J) * rows + i] = Out(row_sum);
    if (lane == 0 && I < ty - 1 && J < tx - 1) block_sums[std::size_t(I) * (tx - 1) + J] = Out(total);
    // END SOLUTION
}

// ---- Step 2: column prefix sums of col_sums and row_sums_t: sat::column_scan (common/scan.cuh)

// ---- Step 3: carries and the SAT of each block ---------------------------------------------------

// in == out is allowed: a warp reads its whole block before it writes it, and no other warp
// touches that block.
template <class In, class Out>
__global__ void __launch_bounds__(warps_per_block<Out> * w)
block_sat_kernel(const In* in, std::size_t in_ld, Out* out, std::size_t out_ld, int rows, int cols,
                 bool vec_in, bool vec_out, const Out* col_sums, const Out* row_sums_t,
                 const Out* block_sums) {
    using A = sat::Acc<Out>;
    __shared__ A tiles[warps_per_block<Out>][w * w];
    const int warp = threadIdx.x / w, lane = threadIdx.x % w;
    const int ty = sat::ceil_div(rows, w), tx = sat::ceil_div(cols, w);
    const std::size_t block = std::size_t(blockIdx.x) * warps_per_block<Out> + warp;
    if (block >= std::size_t(ty) * tx) return;
    const int I = int(block / tx), J = int(block % tx);
    A* tile = tiles[warp];

    // The carries (step 2's prefix sums of the blocks above / to the left), loaded with the block.
    const int j = J * w + lane, i = I * w + lane;
    A top = 0, left = 0, corner = 0;
    if (I > 0 && j < cols) top = A(col_sums[std::size_t(I - 1) * cols + j]);
    if (J > 0 && i < rows) left = A(row_sums_t[std::size_t(J - 1) * rows + i]);
    if (I > 0 && J > 0) corner = A(block_sums[std::size_t(I - 1) * (tx - 1) + (J - 1)]);
    sat::load_block(in, in_ld, rows, cols, I, J, vec_in, tile, lane);
    __syncwarp();

    // BEGIN SOLUTION hint: step 3-1: add top (+ corner on lane 0) to row 0 and left to column 0 of the tile; step 3-2: lane c scans column c, then lane r scans row r (load w values into registers, scan, store back; __syncwarp between)
    tile[diag(0, lane)] += top + (lane == 0 ? corner : A(0));
    __syncwarp();
    tile[diag(lane, 0)] += left;
    __syncwarp();
#pragma unroll
    for (int by_row = 0; by_row < 2; ++by_row) {  // lane scans column `lane`, then row `lane`
        if (by_row) __syncwarp();  // every column is scanned before a row is read
        A v[w];
#pragma unroll
        for (int k = 0; k < w; ++k) v[k] = tile[by_row ? diag(lane, k) : diag(k, lane)];
#pragma unroll
        for (int k = 1; k < w; ++k) v[k] += v[k - 1];
#pragma unroll
        for (int k = 0; k < w; ++k) tile[by_row ? diag(lane, k) : diag(k, lane)] = v[k];
    }
    // END SOLUTION
    __syncwarp();
    sat::store_block(out, out_ld, rows, cols, I, J, vec_out, tile, lane);
}

// ---- The algorithm -----------------------------------------------------------------------------

// SAT of the rows x cols matrix at `in` (leading dimension in_ld) into `out` (leading dimension
// out_ld); in == out with equal leading dimensions is allowed. Scratch comes from `ws`
// (about n/w + n/w + n/w^2 elements of Out, plus the recursion's own).
template <class In, class Out>
void sat_2r1w(const In* in, std::size_t in_ld, Out* out, std::size_t out_ld, sat::Shape s,
              sat::Workspace& ws, cudaStream_t stream) {
    constexpr int V = sat::vec_width<Out>;
    constexpr int per_block = warps_per_block<Out>;
    const int ty = sat::ceil_div(s.rows, w), tx = sat::ceil_div(s.cols, w);
    const std::size_t blocks = std::size_t(ty) * tx;
    const unsigned grid = unsigned((blocks + per_block - 1) / per_block);
    const bool vec_in = sat::vectors_fit<V>(in, in_ld, s.cols);
    const bool vec_out = sat::vectors_fit<V>(out, out_ld, s.cols);

    Out* col_sums = nullptr;    // (ty-1) x cols
    Out* row_sums_t = nullptr;  // (tx-1) x rows
    Out* block_sums = nullptr;  // (ty-1) x (tx-1)
    if (blocks > 1) {
        col_sums = ws.get<Out>(std::size_t(ty - 1) * s.cols);
        row_sums_t = ws.get<Out>(std::size_t(tx - 1) * s.rows);
        block_sums = ws.get<Out>(std::size_t(ty - 1) * (tx - 1));
        // BEGIN SOLUTION hint: step 1 (block_sums_kernel, grid blocks), then step 2: column_scan of col_sums and row_sums_t, and the SAT of block_sums in place by calling sat_2r1w recursively when it is not empty
        block_sums_kernel<<<grid, per_block * w, 0, stream>>>(in, in_ld, s.rows, s.cols, vec_in,
                                                              col_sums, row_sums_t, block_sums);
        SAT_CHECK_LAUNCH("lab4 block_sums_kernel");
        sat::column_scan(col_sums, ty - 1, s.cols, stream);
        sat::column_scan(row_sums_t, tx - 1, s.rows, stream);
        if (ty > 1 && tx > 1)
            sat_2r1w(block_sums, std::size_t(tx - 1), block_sums, std::size_t(tx - 1),
                     sat::Shape{ty - 1, tx - 1}, ws, stream);
        // END SOLUTION
    }
    block_sat_kernel<<<grid, per_block * w, 0, stream>>>(in, in_ld, out, out_ld, s.rows, s.cols,
                                                         vec_in, vec_out, col_sums, row_sums_t,
                                                         block_sums);
    SAT_CHECK_LAUNCH("lab4 block_sat_kernel");
}

template <class In, class Out>
void run_2r1w(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream) {
    sat_2r1w(in, std::size_t(s.cols), out, std::size_t(s.cols), s, ws, stream);
}

#define LAB4_INSTANTIATE(In, Out)                                                              \
    template void sat_2r1w<In, Out>(const In*, std::size_t, Out*, std::size_t, sat::Shape,      \
                                    sat::Workspace&, cudaStream_t);
SAT_FOR_EACH_TYPE_PAIR(LAB4_INSTANTIATE)
#undef LAB4_INSTANTIATE

}  // namespace lab4

#ifndef SAT_INCLUDED_BY_LAB  // registered once, by lab 4's own file
SAT_REGISTER_LAB(sat::lab_info(
    4, "2R1W: block sums, carries, block SATs", "Kasagi et al. 2014, section V",
    {SAT_VARIANT("2R1W", "2R1W", "block sums C, R, S; their prefix sums (recursive SAT of S); block SATs",
                 lab4::run_2r1w)}));
#endif
