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
// lab4::sat_2r1w(in, in_ld, out, out_ld, shape, ws, stream) is the reusable entry point: the SAT
// of a rows x cols matrix stored with any leading dimensions (a sub-rectangle of a larger
// matrix, or in == out in place). Lab 6 calls it.
//
// Integer sums are accumulated in sat::Acc<Out> (unsigned), so i32 / u8i32 wrap modulo 2^32 like
// the reference, without signed overflow; memory (tiles aside) holds Out.
#include "sat.h"
#include "device.cuh"

#include <cstdint>

namespace lab4 {

using sat::w;

// Diagonal arrangement of a w x w block in shared memory (lab 3, Kasagi Lemma 1).
__device__ __forceinline__ int diag(int i, int j) { return i * w + ((i + j) & (w - 1)); }

// ---- Moving one block between global memory and a warp's shared tile -----------------------------

// Elements a lane moves per global access: 16-byte vectors for 4-byte outputs, single 8-byte
// words for doubles (conflict-free diagonal accesses either way, see docs/lab3.md).
template <class Out>
constexpr int vec_width = sizeof(Out) == 4 ? 4 : 1;

// One warp per block; 4 blocks of 4-byte or 2 of 8-byte values per CUDA block (16 KiB of shared
// memory). Small CUDA blocks retire as soon as their few warps finish (2% faster than 8 on an H200).
template <class Out>
constexpr int warps_per_block = sizeof(Out) == 4 ? 4 : 2;

template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
    T v[V];
};

// True when V-element vectors of a matrix with leading dimension `ld` starting at `p` are aligned.
template <int V, class T>
bool vectors_aligned(const T* p, std::size_t ld) {
    return V == 1 || (ld % V == 0 && reinterpret_cast<std::uintptr_t>(p) % (sizeof(T) * V) == 0);
}

// Lane layout: a block row is w / V lanes wide, so one pass covers V rows; in pass p lane l owns
// row p * V + l / (w / V), columns (l % (w / V)) * V .. + V - 1 of the block.
template <class Out>
struct LaneSlots {
    static constexpr int V = vec_width<Out>;
    static constexpr int lanes_per_row = w / V;
    static constexpr int passes = w / V;
    __device__ static int row(int p, int lane) { return p * V + lane / lanes_per_row; }
    __device__ static int col(int lane) { return (lane % lanes_per_row) * V; }
};

// Load block (I, J) of a rows x cols matrix (leading dimension ld) into `tile` (diagonal), as A,
// with zeros outside the matrix. Every load is issued before the first shared-memory store.
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

// Store `tile` (diagonal) as block (I, J) of a rows x cols matrix, skipping what lies outside.
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

// ---- Step 1: block sums ------------------------------------------------------------------------

template <class In, class Out>
__global__ void __launch_bounds__(warps_per_block<Out> * w)
block_sums_kernel(const In* in, std::size_t ld, int rows, int cols, bool vec, Out* col_sums,
                  Out* row_sums_t, Out* block_sums) {
    using A = sat::Acc<Out>;
    __shared__ A tiles[warps_per_block<Out>][w * w];
    const int warp = threadIdx.x / w, lane = threadIdx.x % w;
    const int ty = (rows + w - 1) / w, tx = (cols + w - 1) / w;
    const std::size_t block = std::size_t(blockIdx.x) * warps_per_block<Out> + warp;
    if (block >= std::size_t(ty) * tx) return;  // the whole warp leaves together
    const int I = int(block / tx), J = int(block % tx);
    A* tile = tiles[warp];
    load_block(in, ld, rows, cols, I, J, vec, tile, lane);
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

// ---- Step 2: column prefix sums of col_sums and row_sums_t -----------------------------------

// In place, on a dense rows x cols matrix. A CUDA block owns a strip of w columns (lane = column,
// coalesced) and walks down it in rounds of scan_warps * rows_per_warp rows: each warp scans its
// rows in registers, the warps' totals meet in shared memory, a running carry links the rounds,
// and each warp's next rows are loading while it finishes the current ones.
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
        warp_totals[buffer][warp][lane] = v[rows_per_warp - 1];
        __syncthreads();
        A offset = carry, round_total = 0;
#pragma unroll
        for (int k = 0; k < scan_warps; ++k) {
            const A t = warp_totals[buffer][k][lane];
            if (k < warp) offset += t;
            round_total += t;
        }
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
    column_prefix_sums<<<unsigned((cols + w - 1) / w), scan_warps * w, 0, stream>>>(m, rows, cols);
    SAT_CHECK_LAUNCH("lab4 column_prefix_sums");
}

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
    const int ty = (rows + w - 1) / w, tx = (cols + w - 1) / w;
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
    load_block(in, in_ld, rows, cols, I, J, vec_in, tile, lane);
    __syncwarp();

    // BEGIN SOLUTION hint: step 3-1: add top (+ corner on lane 0) to row 0 and left to column 0 of the tile; step 3-2: lane c scans column c, then lane r scans row r (load w values into registers, scan, store back; __syncwarp between)
    tile[diag(0, lane)] += top + (lane == 0 ? corner : A(0));
    __syncwarp();
    tile[diag(lane, 0)] += left;
    __syncwarp();
    A v[w];
#pragma unroll
    for (int k = 0; k < w; ++k) v[k] = tile[diag(k, lane)];  // column `lane`
#pragma unroll
    for (int k = 1; k < w; ++k) v[k] += v[k - 1];
#pragma unroll
    for (int k = 0; k < w; ++k) tile[diag(k, lane)] = v[k];
    __syncwarp();
#pragma unroll
    for (int k = 0; k < w; ++k) v[k] = tile[diag(lane, k)];  // row `lane`
#pragma unroll
    for (int k = 1; k < w; ++k) v[k] += v[k - 1];
#pragma unroll
    for (int k = 0; k < w; ++k) tile[diag(lane, k)] = v[k];
    // END SOLUTION
    __syncwarp();
    store_block(out, out_ld, rows, cols, I, J, vec_out, tile, lane);
}

// ---- The algorithm -----------------------------------------------------------------------------

// SAT of the rows x cols matrix at `in` (leading dimension in_ld) into `out` (leading dimension
// out_ld); in == out with equal leading dimensions is allowed. Scratch comes from `ws`
// (about n/w + n/w + n/w^2 elements of Out, plus the recursion's own).
template <class In, class Out>
void sat_2r1w(const In* in, std::size_t in_ld, Out* out, std::size_t out_ld, sat::Shape s,
              sat::Workspace& ws, cudaStream_t stream) {
    constexpr int V = vec_width<Out>;
    constexpr int per_block = warps_per_block<Out>;
    const int ty = (s.rows + w - 1) / w, tx = (s.cols + w - 1) / w;
    const std::size_t blocks = std::size_t(ty) * tx;
    const unsigned grid = unsigned((blocks + per_block - 1) / per_block);
    const bool vec_in = vectors_aligned<V>(in, in_ld);
    const bool vec_out = vectors_aligned<V>(out, out_ld);

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
        column_scan(col_sums, ty - 1, s.cols, stream);
        column_scan(row_sums_t, tx - 1, s.rows, stream);
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

// Explicit instantiations: a lab linked with this file (lab 6) declares
//   namespace lab4 {
//   template <class In, class Out>
//   void sat_2r1w(const In* in, std::size_t in_ld, Out* out, std::size_t out_ld, sat::Shape s,
//                 sat::Workspace& ws, cudaStream_t stream);
//   }
// and calls it for the four harness types.
#define LAB4_INSTANTIATE(In, Out)                                                              \
    template void sat_2r1w<In, Out>(const In*, std::size_t, Out*, std::size_t, sat::Shape,      \
                                    sat::Workspace&, cudaStream_t);
LAB4_INSTANTIATE(float, float)
LAB4_INSTANTIATE(double, double)
LAB4_INSTANTIATE(int32_t, int32_t)
LAB4_INSTANTIATE(uint8_t, int32_t)
#undef LAB4_INSTANTIATE

}  // namespace lab4

SAT_REGISTER_LAB(([] {
    sat::LabInfo lab;
    lab.number = 4;
    lab.title = "2R1W: block sums, carries, block SATs";
    lab.source = "Kasagi et al. 2014, section V";
    lab.variants = {SAT_VARIANT("2R1W", "2R1W",
                                "block sums C, R, S; their prefix sums (recursive SAT of S); block SATs",
                                lab4::run_2r1w)};
    lab.default_shapes = {{1024, 1024}, {4096, 4096}, {16384, 16384}};
    return lab;
}()));
