// lab10_strips.cu — Lab 10: the SAT across GPUs, the level of the memory hierarchy above one GPU.
//
// The matrix is cut into G row strips, strip g on GPU g (or all G on one GPU, for testing).
// With local(i, j) the SAT of strip g alone and bottom_h(j) the last row of strip h's local SAT
// (the sums of strip h's columns 0..j),
//
//     SAT(i, j) = local(i, j) + carry_g(j),     carry_g(j) = sum over h < g of bottom_h(j),
//
// an exclusive scan across the strips of their bottom rows. Every strip
//   1. scans its rows with the library kernel (sat::inclusive_scan_2d, lab 9),
//   2. publishes its bottom row into its slot of a G x W buffer, which the exchange all-gathers
//      to every GPU (NCCL, or device-local copies for G strips on one GPU: common/multigpu.h),
//   3. adds carry_g to each of its rows (strip 0 has none).
// Two schedules differ in when the bottom row exists:
//   ScanThenAdd      takes it from the finished local SAT: scan, exchange, add in sequence;
//   EarlyColumnSums  computes it from the input on a second stream (column totals, then a
//                    1 x W scan) and exchanges it while the local SAT runs: one more read of
//                    the strip, but the exchange leaves the critical path.
// docs/lab10.md derives their costs with the GPU-to-GPU level of the HMM and compares them.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "device.cuh"
#include "multigpu.h"
#include "sat.h"
#include "sat_scan.h"

namespace lab10 {

using sat::ceil_div;
using sat::multigpu::Strip;
using sat::multigpu::StripSet;

constexpr int totals_cols = 32;  // column totals: a block of 32 columns (one per lane) ...
constexpr int totals_lanes = 32; // ... by 32 row lanes, each summing every 32nd row
constexpr int add_threads = 256; // add_carry: one thread per column, blocks stride over rows
static_assert(totals_cols * totals_lanes <= 1024, "column_totals is one block of at most 1024 threads");

// totals[j] = sum over the strip's rows of in(i, j), in the output's accumulator (integers wrap
// modulo 2^32 as the library's do). Rows are read whole by the warps (coalesced); the row lanes'
// partial sums meet in shared memory.
template <class In, class Out>
__global__ void column_totals(const In* in, int rows, int cols, Out* totals) {
    using A = sat::Acc<Out>;
    __shared__ A part[totals_lanes][totals_cols + 1];
    const int j = blockIdx.x * totals_cols + threadIdx.x;
    A sum = 0;
    // BEGIN SOLUTION hint: lane (x, y) sums column j over rows y, y + 32, ...; row lane 0 adds the 32 partial sums of part[][x] into totals[j]
    if (j < cols) {
#pragma unroll 4
        for (int i = threadIdx.y; i < rows; i += totals_lanes) sum += A(in[std::size_t(i) * cols + j]);
    }
    part[threadIdx.y][threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.y == 0 && j < cols) {
        for (int y = 1; y < totals_lanes; ++y) sum += part[y][threadIdx.x];
        totals[j] = Out(sum);
    }
    // END SOLUTION
}

// out(i, j) += carry(j) for the strip of rank `rank`, with carry(j) the sum of the bottom rows
// of the strips above it, gathered[h * cols + j] for h < rank.
template <class Out>
__global__ void add_carry(Out* out, int rows, int cols, const Out* gathered, int rank) {
    using A = sat::Acc<Out>;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= cols) return;
    // BEGIN SOLUTION hint: carry = sum of gathered[h * cols + j] over h < rank (the exclusive scan across strips); add it to rows blockIdx.y, blockIdx.y + gridDim.y, ...
    A carry = 0;
    for (int h = 0; h < rank; ++h) carry += A(gathered[std::size_t(h) * cols + j]);
    for (int i = blockIdx.y; i < rows; i += gridDim.y) {
        Out& o = out[std::size_t(i) * cols + j];
        o = Out(A(o) + carry);
    }
    // END SOLUTION
}

// Step 3 on the strip's main stream; strip 0 has nothing to add.
template <class In, class Out>
void add_carry_to_strip(const Strip<In, Out>& s, int cols) {
    if (s.rank == 0) return;
    SAT_CUDA(cudaSetDevice(s.device));
    const dim3 grid(ceil_div(cols, add_threads), std::min(s.range.rows, 1024));
    add_carry<<<grid, add_threads, 0, s.stream>>>(s.out, s.range.rows, cols, s.gathered, s.rank);
    SAT_CHECK_LAUNCH("add_carry");
}

// Step 1: the library's SAT of the strip alone, on its main stream.
template <class In, class Out>
void scan_strip(const Strip<In, Out>& s, int cols) {
    SAT_CUDA(cudaSetDevice(s.device));
    SAT_CUDA(sat::inclusive_scan_2d(s.in, std::size_t(cols), s.out, std::size_t(cols), s.range.rows, cols,
                                    s.stream, s.scan));
}

// Scan, then exchange the bottom rows, then add: the exchange waits for every local SAT.
template <class In, class Out>
void scan_then_add(StripSet<In, Out>& set) {
    const int W = set.cols;
    for (const auto& s : set.strips) {
        scan_strip(s, W);
        Out* mine = s.gathered + std::size_t(s.rank) * W;  // this strip's slot of the G x W rows
        (void)mine;                                         // (unused in the skeleton)
        // BEGIN SOLUTION hint: publish the strip's bottom row (its last output row) into its own slot `mine`: a device-to-device copy on s.stream
        SAT_CUDA(cudaMemcpyAsync(mine, s.out + std::size_t(s.range.rows - 1) * W, W * sizeof(Out),
                                 cudaMemcpyDeviceToDevice, s.stream));
        // END SOLUTION
    }
    set.all_gather_rows(false);  // on the main streams, after each strip's copy
    for (const auto& s : set.strips) add_carry_to_strip(s, W);
}

// The bottom row from the input on a second stream, exchanged while the local SATs run.
template <class In, class Out>
void early_column_sums(StripSet<In, Out>& set) {
    const int W = set.cols;
    for (const auto& s : set.strips) {
        SAT_CUDA(cudaSetDevice(s.device));
        Out* mine = s.gathered + std::size_t(s.rank) * W;
        (void)mine;
        // BEGIN SOLUTION hint: order s.side after s.stream (record s.ready, wait); on s.side: column_totals into `mine`, then the library's 1 x W scan of `mine` in place with s.row_scan: the bottom row, before the SAT exists
        SAT_CUDA(cudaEventRecord(s.ready, s.stream));
        SAT_CUDA(cudaStreamWaitEvent(s.side, s.ready, 0));
        column_totals<<<ceil_div(W, totals_cols), dim3(totals_cols, totals_lanes), 0, s.side>>>(s.in, s.range.rows,
                                                                                               W, mine);
        SAT_CHECK_LAUNCH("column_totals");
        SAT_CUDA(sat::inclusive_scan_2d(mine, std::size_t(W), mine, std::size_t(W), 1, W, s.side, s.row_scan));
        // END SOLUTION
        scan_strip(s, W);
    }
    set.all_gather_rows(true);  // on the side streams, while the main streams scan
    for (const auto& s : set.strips) {
        SAT_CUDA(cudaSetDevice(s.device));
        // BEGIN SOLUTION hint: the main stream waits for the exchange on the side stream (record s.published on s.side) before the carry is added
        SAT_CUDA(cudaEventRecord(s.published, s.side));
        SAT_CUDA(cudaStreamWaitEvent(s.stream, s.published, 0));
        // END SOLUTION
        add_carry_to_strip(s, W);
    }
}

}  // namespace lab10

SAT_REGISTER_LAB((sat::multigpu::make_lab_info({
    SAT_SCHEDULE("ScanThenAdd", "Strips-ScanThenAdd",
                 "library SAT per strip, then the bottom rows all-gathered, then the carry added", lab10::scan_then_add),
    SAT_SCHEDULE("EarlyColumnSums", "Strips-EarlyColumnSums",
                 "column sums publish on a second stream and are exchanged while the strip's SAT runs",
                 lab10::early_column_sums),
})));
