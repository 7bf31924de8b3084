// Lab 5 — the wavefront SATs: 4R1W and 1R1W (Kasagi, Nakano, Ito 2014, section VI).
//
// Both sweep the matrix from the top-left to the bottom-right corner along anti-diagonals, and
// one kernel launch is the barrier between two anti-diagonals (a "stage").
//
//   4R1W        element wavefront. Stage k computes every b[i][j] with i + j = k by formula (1),
//               b[i][j] = a[i][j] + b[i][j-1] + b[i-1][j] - b[i-1][j-1]:
//               4 reads and 1 write per element, all stride; rows + cols - 1 launches.
//   1R1W        the same wavefront over w x w tiles (w = 32). Tile (I, J) runs in stage I + J.
//               It reads its own input tile once, derives C, R and S from the neighbours that
//               are already finished (Figure 11), adds C and R to its top row and left column
//               (step 3-1 of 2R1W), computes its own SAT in shared memory (step 3-2), adds S and
//               writes it once: n reads and n writes, ceil(rows/w) + ceil(cols/w) - 1 launches.
//   1R1W-graph  the same stages captured once into a CUDA graph and replayed: smaller l.
//
// Notation: n elements, w = 32, tile rows I, tile columns J; C = column sums of everything above
// a tile, R = row sums of everything left of it, S = the sum of everything above-left of it.
// Integer sums use sat::Acc<Out> (unsigned), so they wrap modulo 2^32 like the reference.
#include <algorithm>

#include "graph_cache.h"
#include "tile.cuh"

namespace lab5 {

using sat::threads_per_tile, sat::warps_per_tile, sat::strip, sat::TileRows, sat::w;

// ---- 4R1W: one thread per element of the anti-diagonal, one launch per anti-diagonal ----------

[[maybe_unused]] constexpr int threads_4r1w = 64;  // the paper's block size for the element-wise algorithms

// Stage k: thread t computes b[i][k - i] for i = i_first + t.
template <class In, class Out>
__global__ void antidiagonal_stage(const In* in, Out* out, sat::Shape s, int k, int i_first,
                                   int count, unsigned long long* trace) {
    using A = sat::Acc<Out>;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count) return;
    const int i = i_first + t, j = k - i;
    const std::size_t at = std::size_t(i) * s.cols + j;
    // BEGIN SOLUTION hint: formula (1) with 0 for neighbours outside the matrix (left = at - 1, up = at - cols, diagonal = at - cols - 1), summed in the order out[at] = ((left - diagonal) + a) + up (docs/lab5.md: why the order matters)
    const A left = j > 0 ? A(out[at - 1]) : A(0);
    const A up = i > 0 ? A(out[at - s.cols]) : A(0);
    const A diagonal = (i > 0 && j > 0) ? A(out[at - s.cols - 1]) : A(0);
    // left - diagonal first: for floats the two are close, so that difference is exact
    // (Sterbenz) and only one rounding of the size of b remains per element.
    out[at] = Out(((left - diagonal) + A(in[at])) + up);
    // END SOLUTION
    // A tile's bottom-right element is its last one in wavefront order: stamp the tile then.
    if ((i % w == w - 1 || i == s.rows - 1) && (j % w == w - 1 || j == s.cols - 1))
        sat::record_tile(trace, s, i / w, j / w);
}

template <class In, class Out>
void run_4r1w(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream) {
    const int stages = s.rows + s.cols - 1;  // 2 sqrt(n) - 1 for a square matrix
    for (int k = 0; k < stages; ++k) {
        // BEGIN SOLUTION hint: the elements (i, k - i) of stage k inside the matrix have i in [max(0, k - cols + 1), min(k, rows - 1)]; launch antidiagonal_stage with one thread each (threads_4r1w per block)
        const int i_first = std::max(0, k - (s.cols - 1));
        const int i_last = std::min(k, s.rows - 1);
        const int count = i_last - i_first + 1;
        const int blocks = sat::ceil_div(count, threads_4r1w);
        antidiagonal_stage<<<blocks, threads_4r1w, 0, stream>>>(in, out, s, k, i_first, count, ws.trace);
        SAT_CHECK_LAUNCH("antidiagonal_stage");
        // END SOLUTION
    }
}

// ---- 1R1W: one CUDA block of 128 threads per 32 x 32 tile, one launch per anti-diagonal of tiles
// The tile lives in padded shared memory, tile[w][w + 1] (common/tile.cuh).

// Step 3-2: the SAT of the tile, in place, with all 4 warps. Column prefix sums first: warp q
// scans rows [8q, 8q + 8) of column `lane` (a row-wise access per step), then adds the totals of
// the strips above. Then row prefix sums the same way with the roles of rows and columns swapped
// (a column-wise access per step: conflict-free thanks to the padding).
template <class A>
__device__ __forceinline__ void tile_sat(TileRows<A> tile, A (*strip_total)[w]) {
    const int lane = threadIdx.x % w, warp = threadIdx.x / w;
    const int first = warp * strip;
    // BEGIN SOLUTION hint: column pass (lane = column: scan this warp's 8 rows, write the strip total, __syncthreads(), add the totals of the warps above), __syncthreads() (the row pass reads other warps' rows and rewrites strip_total), then the row pass the same way (lane = row, this warp's 8 columns, __syncthreads() between writing and reading strip_total)
    A run = 0;
#pragma unroll
    for (int k = 0; k < strip; ++k) tile[first + k][lane] = run += tile[first + k][lane];
    strip_total[warp][lane] = run;
    __syncthreads();
    A above = 0;
    for (int q = 0; q < warp; ++q) above += strip_total[q][lane];
#pragma unroll
    for (int k = 0; k < strip; ++k) tile[first + k][lane] += above;
    __syncthreads();

    run = 0;
#pragma unroll
    for (int k = 0; k < strip; ++k) tile[lane][first + k] = run += tile[lane][first + k];
    strip_total[warp][lane] = run;  // safe: every warp read the old totals before the barrier
    __syncthreads();
    A before = 0;
    for (int q = 0; q < warp; ++q) before += strip_total[q][lane];
#pragma unroll
    for (int k = 0; k < strip; ++k) tile[lane][first + k] += before;
    // END SOLUTION
    __syncthreads();
}

// Stage `stage` of 1R1W: block b handles tile (I, J) = (first_tile_row + b, stage - I). Every
// tile of stages < `stage` is finished, in particular the neighbours above, left and above-left.
template <class In, class Out>
__global__ void __launch_bounds__(threads_per_tile)
wavefront_stage(const In* in, Out* out, sat::Shape s, int stage, int first_tile_row,
                unsigned long long* trace) {
    using A = sat::Acc<Out>;
    __shared__ A tile[w][w + 1];
    __shared__ A strip_total[warps_per_tile][w];
    __shared__ A C[w], R[w], S;
    const int lane = threadIdx.x % w, warp = threadIdx.x / w;
    const int I = first_tile_row + blockIdx.x, J = stage - I;
    const int r0 = I * w, c0 = J * w;
    // Figure 11: C, R and S from the finished neighbours by pairwise subtraction. The bottom row
    // of the tile above holds b[r0-1][c], the SAT up to that row; the difference of two adjacent
    // values is the sum of column c over all rows above the tile. Likewise down the right column
    // of the tile on the left; S is the corner b[r0-1][c0-1] itself. They are fetched before the
    // input tile so that the two latencies overlap, and subtracted after it.
    // warp 0, lane j: here = b[r0-1][c0+j], before = b[r0-1][c0+j-1]  -> C[j] = here - before
    // warp 1, lane i: here = b[r0+i][c0-1], before = b[r0+i-1][c0-1]  -> R[i] = here - before
    // thread 2w:      here = b[r0-1][c0-1]                             -> S = here
    const Out* b = out;
    A here = 0, before = 0;
    // BEGIN SOLUTION hint: set here and before as in the table above; leave them 0 where the neighbour tile does not exist (I == 0, J == 0) and for lanes past the matrix's last column (c >= cols) or row (r >= rows)
    if (warp == 0) {
        const int c = c0 + lane;
        if (I > 0 && c < s.cols) {
            const std::size_t above = std::size_t(r0 - 1) * s.cols;
            here = A(b[above + c]);
            if (c > 0) before = A(b[above + c - 1]);
        }
    } else if (warp == 1) {
        const int r = r0 + lane;
        if (J > 0 && r < s.rows) {
            const std::size_t left = std::size_t(c0 - 1);
            here = A(b[std::size_t(r) * s.cols + left]);
            if (r > 0) before = A(b[std::size_t(r - 1) * s.cols + left]);
        }
    } else if (threadIdx.x == 2 * w && I > 0 && J > 0) {
        here = A(b[std::size_t(r0 - 1) * s.cols + (c0 - 1)]);
    }
    // END SOLUTION
    sat::load_tile(in, s, r0, c0, tile);
    if (warp == 0) C[lane] = here - before;
    else if (warp == 1) R[lane] = here - before;
    else if (threadIdx.x == 2 * w) S = here;
    __syncthreads();

    // Step 3-1 of 2R1W: C onto the top row, R onto the left column. S, which the paper adds to
    // the corner, is added as the tile is stored: for floats one rounding at S's size per element
    // instead of losing the small terms in every running sum (docs/lab5.md, "S last").
    if (warp == 0) tile[0][lane] += C[lane] + (lane == 0 ? R[0] : A(0));
    else if (warp == 1 && lane > 0) tile[lane][0] += R[lane];
    __syncthreads();

    tile_sat(tile, strip_total);  // step 3-2; ends with a barrier
    sat::store_tile(out, s, r0, c0, tile, S);
    if (threadIdx.x == 0) sat::record_tile(trace, s, I, J);
}

// Enqueue the ceil(rows/w) + ceil(cols/w) - 1 stages on `stream` (shared by both 1R1W variants).
template <class In, class Out>
void enqueue_wavefront(const In* in, Out* out, sat::Shape s, unsigned long long* trace,
                       cudaStream_t stream) {
    const int tile_rows = sat::ceil_div(s.rows, w), tile_cols = sat::ceil_div(s.cols, w);
    for (int stage = 0; stage < tile_rows + tile_cols - 1; ++stage) {
        // BEGIN SOLUTION hint: tiles (I, stage - I) of this stage have I in [max(0, stage - tile_cols + 1), min(stage, tile_rows - 1)]; launch wavefront_stage with one block of threads_per_tile threads per tile
        const int first = std::max(0, stage - (tile_cols - 1));
        const int last = std::min(stage, tile_rows - 1);
        wavefront_stage<<<last - first + 1, threads_per_tile, 0, stream>>>(in, out, s, stage, first, trace);
        SAT_CHECK_LAUNCH("wavefront_stage");
        // END SOLUTION
    }
}

template <class In, class Out>
void run_1r1w(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream) {
    enqueue_wavefront(in, out, s, ws.trace, stream);
}

// ---- 1R1W-graph: the stages recorded once into a CUDA graph, replayed by one cudaGraphLaunch --

// Record enqueue_wavefront() on a private stream (the caller's may be one that cannot be
// captured, e.g. the legacy default stream) and instantiate the graph.
template <class In, class Out>
cudaGraphExec_t capture_wavefront(const In* in, Out* out, sat::Shape s, unsigned long long* trace) {
    cudaGraphExec_t exec = nullptr;
    // BEGIN SOLUTION hint: create a non-blocking stream; cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal); enqueue_wavefront on it; cudaStreamEndCapture into a cudaGraph_t (also when a launch throws: end the capture before destroying the stream); cudaGraphInstantiate(&exec, graph, 0) (CUDA 12+: three arguments); destroy the graph and the stream
    cudaStream_t capture = nullptr;
    SAT_CUDA(cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking));
    cudaGraph_t graph = nullptr;
    try {
        SAT_CUDA(cudaStreamBeginCapture(capture, cudaStreamCaptureModeThreadLocal));
        try {
            enqueue_wavefront(in, out, s, trace, capture);
        } catch (...) {
            cudaStreamEndCapture(capture, &graph);  // leave capture mode before giving up
            throw;
        }
        SAT_CUDA(cudaStreamEndCapture(capture, &graph));
        SAT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    } catch (...) {
        if (graph) cudaGraphDestroy(graph);
        cudaStreamDestroy(capture);
        throw;
    }
    cudaGraphDestroy(graph);  // the executable graph keeps what it needs
    cudaStreamDestroy(capture);
    // END SOLUTION
    return exec;
}

// The executable graph is built once per (types, input, output, shape, trace) and replayed
// (common/graph_cache.h keeps it).
template <class In, class Out>
void run_1r1w_graph(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream) {
    const sat::GraphKey key{&typeid(In), in, out, s.rows, s.cols, ws.trace};
    cudaGraphExec_t exec = sat::cached_graph(key, [&] { return capture_wavefront(in, out, s, ws.trace); });
    if (exec) SAT_CUDA(cudaGraphLaunch(exec, stream));  // null: nothing captured (TODO unwritten)
}

}  // namespace lab5

#ifndef SAT_INCLUDED_BY_LAB  // registered once, by lab 5's own file
SAT_REGISTER_LAB(([] {
    sat::Variant graph = SAT_VARIANT(
        "1R1W-graph", "1R1W", "1R1W with its stages captured once into a CUDA graph and replayed",
        lab5::run_1r1w_graph);
    graph.barrier = sat::Barrier::graph_launch;
    // 4R1W in f32 is only accurate up to about 4096^2 (docs/lab5.md): larger sizes by --size.
    return sat::lab_info(
        5, "4R1W and 1R1W: the wavefront SAT", "Kasagi et al. 2014, section VI",
        {SAT_VARIANT("4R1W", "4R1W", "element wavefront of formula (1): one launch per anti-diagonal",
                     lab5::run_4r1w),
         SAT_VARIANT("1R1W", "1R1W", "tile wavefront: C, R, S from finished neighbours, tile SAT in shared memory",
                     lab5::run_1r1w),
         graph},
        {{1024, 1024}, {4096, 4096}});
}()));
#endif
