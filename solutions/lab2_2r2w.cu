// Lab 2 — the 2R2W SAT (Kasagi, Nakano, Ito 2014, section IV, Lemma 2).
//
//   Pass 1  column prefix sums, one thread per column: at every step the threads of a warp read
//           and write w neighbouring elements of one row — coalesced (n/w time units each way).
//   barrier (the kernel boundary)
//   Pass 2  row prefix sums, one thread per row, in place on the output: at every step the w
//           threads of a warp touch w different rows, cols elements apart — stride access, one
//           time unit per element on the HMM (2n + 2n/w + 2l in total).
//
// On a GPU the stride pass is not w times slower, because each access fetches a whole 32-byte
// sector that the same thread uses on its next steps while the line is still cached: the handout
// (docs/lab2.md) compares the two passes' measured times.
//
// Integer sums are accumulated in sat::Acc<Out> (unsigned), so i32 / u8i32 wrap modulo 2^32 like
// the reference, without signed overflow.
#include "sat.h"
#include "device.cuh"

namespace lab2 {

// Small blocks (like the paper's 64 threads) spread the few warps of a square matrix over all SMs.
constexpr int threads_per_block = 64;

// Pass 1: thread j computes the prefix sums of column j, reading `in` and writing `out`.
template <class In, class Out>
__global__ void column_prefix_sums(const In* __restrict__ in, Out* __restrict__ out, int rows,
                                   int cols) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= cols) return;
    // BEGIN SOLUTION hint: walk i = 0 .. rows-1 down column j: sum += in[i*cols + j] (sum in sat::Acc<Out>, size_t index); out[i*cols + j] = Out(sum)
    sat::Acc<Out> sum = 0;
#pragma unroll 16  // unrolled, the loads of 16 rows are issued before the first add
    for (int i = 0; i < rows; ++i) {
        const std::size_t at = std::size_t(i) * cols + j;
        sum += sat::Acc<Out>(in[at]);
        out[at] = Out(sum);
    }
    // END SOLUTION
}

// Pass 2: thread i computes the prefix sums of row i of `out`, in place.
template <class Out>
__global__ void row_prefix_sums(Out* out, int rows, int cols) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows) return;
    // BEGIN SOLUTION hint: walk j = 0 .. cols-1 along row i of out: sum += out[i*cols + j] (in sat::Acc<Out>); out[i*cols + j] = Out(sum)
    Out* row = out + std::size_t(i) * cols;
    sat::Acc<Out> sum = 0;
#pragma unroll 16
    for (int j = 0; j < cols; ++j) {
        sum += sat::Acc<Out>(row[j]);
        row[j] = Out(sum);
    }
    // END SOLUTION
}

template <class In, class Out>
void run_2r2w(const In* in, Out* out, sat::Shape s, sat::Workspace&, cudaStream_t stream) {
    const unsigned column_blocks = unsigned(sat::ceil_div(s.cols, threads_per_block));
    const unsigned row_blocks = unsigned(sat::ceil_div(s.rows, threads_per_block));
    column_prefix_sums<<<column_blocks, threads_per_block, 0, stream>>>(in, out, s.rows, s.cols);
    SAT_CHECK_LAUNCH("lab2 column_prefix_sums");
    row_prefix_sums<<<row_blocks, threads_per_block, 0, stream>>>(out, s.rows, s.cols);
    SAT_CHECK_LAUNCH("lab2 row_prefix_sums");
}

}  // namespace lab2

SAT_REGISTER_LAB(sat::lab_info(
    2, "2R2W: column prefix sums (coalesced), then row prefix sums (stride)", "Kasagi et al. 2014, section IV",
    {SAT_VARIANT("2R2W", "2R2W", "one thread per column (coalesced), barrier, one thread per row (stride)",
                 lab2::run_2r2w)}));
