// Lab 6 — the (1+r)R1W SAT (Kasagi, Nakano, Ito 2014, section VII, Figure 12).
//
// 1R1W (lab 5) moves the fewest bytes but needs one barrier per anti-diagonal of tiles; 2R1W
// (lab 4) reads the input twice but needs only a handful of barriers. The hybrid splits the
// tiles by anti-diagonal d = I + J (0 <= d < D = tile_rows + tile_cols - 1):
//
//     A  = the top-left triangle      d <  t        2R1W pass
//     band                            t <= d < D-t  1R1W, one launch per anti-diagonal
//     B  = the bottom-right triangle  d >= D - t    2R1W pass, after the band
//
// with t = round(sqrt(r) * min(tile_rows, tile_cols)): for a square matrix the triangles hold
// about r n / 2 elements each, so the input is read (1 + r) n times and the output written n
// times. r = 0 is 1R1W; when the triangles meet (r = 1 for a square matrix) no band is left and
// the whole matrix is simply 2R1W: lab 4's lab4::sat_2r1w.
//
// A 2R1W pass over the anti-diagonals [d0, d1) (kernels below, in the order they run):
//   step 1   block_sums     every tile of A and of B (one launch: it reads only the input):
//                           column sums -> col_sums[I][c], row sums -> row_sums_t[J][r].
//   step 2   scan_carries   down every tile column, the exclusive prefix sums of col_sums over
//                           the pass's tiles = C of each tile (the column sums of everything above
//                           it); across every tile row the same for row_sums_t = R. A pass that
//                           does not start at the top-left corner (B) seeds each scan from the
//                           finished tile next to it by pairwise subtraction, as 1R1W does.
//            scan_corners   S of each tile, b at its top-left outer corner: across each tile row,
//                           the prefix sums of the tile totals of C, seeded from a finished value.
//   step 3   finish_tiles   every tile of the pass: C onto its top row, R onto its left column,
//                           its SAT in shared memory, + S (exactly as 1R1W's tiles).
// Unlike lab 4, S needs no recursion: it comes from the already scanned C in one more scan.
// The tile code (load_tile, tile_sat, finish_tile, wavefront_stage) is lab 5's. Lab 4's
// kernels work on whole rectangles, and a triangle with seeds does not fit them, so this file
// has its own block kernels for the triangles; lab 4 is called when there is no band.
//
// Notation: n elements, w = 32, tile rows I, tile columns J, C / R / S as in the paper.
// Integer sums use sat::Acc<Out> (unsigned), so they wrap modulo 2^32 like the reference.
#include "sat.h"
#include "device.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace lab4 {  // solutions/lab4_2r1w.cu, linked into lab 6's binary (Makefile: LAB_USES_6)
template <class In, class Out>
void sat_2r1w(const In* in, std::size_t in_ld, Out* out, std::size_t out_ld, sat::Shape s,
              sat::Workspace& ws, cudaStream_t stream);
}  // namespace lab4

namespace lab6 {

using sat::w;

constexpr double default_r = 0.25;  // the paper's 1.25R1W

// ================================================================================================
// Tiles, as in lab 5: one CUDA block of 128 threads per 32 x 32 tile, padded shared memory.
// ================================================================================================

constexpr int threads_per_tile = 128;
constexpr int warps_per_tile = threads_per_tile / w;  // 4
[[maybe_unused]] constexpr int strip = w / warps_per_tile;  // 8 rows (or columns) per warp

template <class A>
using TileRows = A (*)[w + 1];

template <class In, class A>
__device__ __forceinline__ void load_tile(const In* in, sat::Shape s, int r0, int c0, TileRows<A> tile) {
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
__device__ __forceinline__ void store_tile(Out* out, sat::Shape s, int r0, int c0, TileRows<A> tile, A S) {
    const int lane = threadIdx.x % w, warp = threadIdx.x / w;
    const int c = c0 + lane;
    if (c >= s.cols) return;
#pragma unroll
    for (int k = 0; k < strip; ++k) {
        const int i = warp + k * warps_per_tile, r = r0 + i;
        if (r < s.rows) out[std::size_t(r) * s.cols + c] = Out(tile[i][lane] + S);
    }
}

// The SAT of the tile in place: column prefix sums by 8-row strips, then row prefix sums.
template <class A>
__device__ __forceinline__ void tile_sat(TileRows<A> tile, A (*strip_total)[w]) {
    const int lane = threadIdx.x % w, warp = threadIdx.x / w;
    const int first = warp * strip;
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
    strip_total[warp][lane] = run;
    __syncthreads();
    A before = 0;
    for (int q = 0; q < warp; ++q) before += strip_total[q][lane];
#pragma unroll
    for (int k = 0; k < strip; ++k) tile[lane][first + k] += before;
    __syncthreads();
}

// Shared memory of a tile kernel.
template <class A>
struct TileSpace {
    A tile[w][w + 1];
    A strip_total[warps_per_tile][w];
    A C[w], R[w], S;
};

// Steps 3-1 and 3-2 once C, R, S of tile (I, J) are in shared memory (and a barrier passed):
// C onto the top row, R onto the left column, the tile's SAT, then + S as it is written (S last:
// for floats one rounding at S's size instead of many, see lab 5's wavefront_stage).
template <class Out, class A>
__device__ __forceinline__ void finish_tile(TileSpace<A>& sm, Out* out, sat::Shape s, int I, int J,
                                            unsigned long long* trace) {
    const int lane = threadIdx.x % w, warp = threadIdx.x / w;
    if (warp == 0) sm.tile[0][lane] += sm.C[lane] + (lane == 0 ? sm.R[0] : A(0));
    else if (warp == 1 && lane > 0) sm.tile[lane][0] += sm.R[lane];
    __syncthreads();
    tile_sat(sm.tile, sm.strip_total);
    store_tile(out, s, I * w, J * w, sm.tile, sm.S);
    if (threadIdx.x == 0) sat::record_tile(trace, s, I, J);
}

// ================================================================================================
// The middle band: 1R1W stages (lab 5's kernel).
// ================================================================================================

template <class In, class Out>
__global__ void __launch_bounds__(threads_per_tile)
wavefront_stage(const In* in, Out* out, sat::Shape s, int stage, int first_tile_row,
                unsigned long long* trace) {
    using A = sat::Acc<Out>;
    __shared__ TileSpace<A> sm;
    const int lane = threadIdx.x % w, warp = threadIdx.x / w;
    const int I = first_tile_row + blockIdx.x, J = stage - I;
    const int r0 = I * w, c0 = J * w;
    // C, R, S by pairwise subtraction of the finished neighbours (Figure 11, see lab 5): the
    // neighbour values are fetched first, so that their latency overlaps the input tile's.
    const Out* b = out;
    A here = 0, before = 0;
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
    load_tile(in, s, r0, c0, sm.tile);
    if (warp == 0) sm.C[lane] = here - before;
    else if (warp == 1) sm.R[lane] = here - before;
    else if (threadIdx.x == 2 * w) sm.S = here;
    __syncthreads();
    finish_tile(sm, out, s, I, J, trace);
}

// ================================================================================================
// The triangles: a 2R1W pass over the tiles with anti-diagonal in [first, end).
// ================================================================================================

struct Grid {
    int tile_rows, tile_cols;
    int diagonals() const { return tile_rows + tile_cols - 1; }
};

struct Pass {
    int first, end;  // anti-diagonals [first, end)
    // The tiles of the pass in tile column J are rows [rows_from(J), rows_to(J)] (may be empty),
    // and in tile row I columns [cols_from(I), cols_to(I)].
    __host__ __device__ int rows_from(int J) const { return max(0, first - J); }
    __host__ __device__ int rows_to(int J, Grid g) const { return min(g.tile_rows - 1, end - 1 - J); }
    __host__ __device__ int cols_from(int I) const { return max(0, first - I); }
    __host__ __device__ int cols_to(int I, Grid g) const { return min(g.tile_cols - 1, end - 1 - I); }
    __host__ __device__ bool holds(int I, int J) const { return I + J >= first && I + J < end; }
    // Bounding box of the pass in tiles: top-left tile and extent.
    __host__ __device__ int box_row(Grid g) const { return max(0, first - (g.tile_cols - 1)); }
    __host__ __device__ int box_col(Grid g) const { return max(0, first - (g.tile_rows - 1)); }
    __host__ __device__ int box_rows(Grid g) const { return min(g.tile_rows, end) - box_row(g); }
    __host__ __device__ int box_cols(Grid g) const { return min(g.tile_cols, end) - box_col(g); }
};

// Up to two passes handled by one launch (blockIdx.z picks the pass).
struct Passes {
    Pass p[2];
};

// Scratch of the 2R1W passes; each tile owns its own entries, so A and B share the arrays.
template <class Out>
struct Carries {
    Out* col_sums;     // tile_rows x cols:  [I][c] column sums of tile (I, c / w), then its C
    Out* row_sums_t;   // tile_cols x rows:  [J][r] row sums of tile (r / w, J), then its R
    Out* tile_sums_t;  // tile_cols x tile_rows: [J][I] the sum of tile (I, J)'s C, then its S
};

// ---- Step 1 ------------------------------------------------------------------------------------

template <class In, class Out>
__global__ void __launch_bounds__(threads_per_tile)
block_sums(const In* in, sat::Shape s, Grid g, Passes passes, Carries<Out> carry) {
    using A = sat::Acc<Out>;
    __shared__ A tile[w][w + 1];
    const Pass pass = passes.p[blockIdx.z];
    const int I = pass.box_row(g) + blockIdx.y, J = pass.box_col(g) + blockIdx.x;
    if (I >= g.tile_rows || J >= g.tile_cols || !pass.holds(I, J)) return;  // whole block leaves
    const int lane = threadIdx.x % w, warp = threadIdx.x / w;
    load_tile(in, s, I * w, J * w, tile);
    __syncthreads();
    if (warp == 0) {  // lane = column: a row-wise access per step
        A column_sum = 0;
#pragma unroll
        for (int k = 0; k < w; ++k) column_sum += tile[k][lane];
        const int c = J * w + lane;
        if (c < s.cols) carry.col_sums[std::size_t(I) * s.cols + c] = Out(column_sum);
    } else if (warp == 1) {  // lane = row: a column-wise access per step, conflict-free (padding)
        A row_sum = 0;
#pragma unroll
        for (int k = 0; k < w; ++k) row_sum += tile[lane][k];
        const int r = I * w + lane;
        if (r < s.rows) carry.row_sums_t[std::size_t(J) * s.rows + r] = Out(row_sum);
    }
}

// ---- Step 2 ------------------------------------------------------------------------------------

constexpr int scan_warps = 8;    // a scan block: 8 warps side by side on one strip of 32 columns
[[maybe_unused]] constexpr int scan_rows = 8;  // rows per warp per round: a round covers 64

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
        warp_totals[buffer][warp][lane] = run;
        __syncthreads();
        A offset = carry, round_total = 0;
#pragma unroll
        for (int q = 0; q < scan_warps; ++q) {
            const A t = warp_totals[buffer][q][lane];
            if (q < warp) offset += t;
            round_total += t;
        }
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

// blockIdx.y = 0: tile column J = blockIdx.x, C down its tiles; = 1: tile row I, R across.
template <class Out>
__global__ void __launch_bounds__(scan_warps * w)
scan_carries(const Out* b, sat::Shape s, Grid g, Pass pass, Carries<Out> carry) {
    using A = sat::Acc<Out>;
    const int lane = threadIdx.x % w;
    if (blockIdx.y == 0) {
        const int J = blockIdx.x;
        if (J >= g.tile_cols) return;
        const int lo = pass.rows_from(J), hi = pass.rows_to(J, g);
        if (lo > hi) return;
        const int c = J * w + lane;
        const bool col_ok = c < s.cols;
        A seed = 0;
        // BEGIN SOLUTION hint: a pass that starts below row 0 (lo > 0) seeds column c with the sum of everything above tile row lo: b[lo*w-1][c] - b[lo*w-1][c-1] (b = the finished output; 0 left of column 0)
        if (lo > 0 && col_ok) {
            const std::size_t above = std::size_t(lo * w - 1) * s.cols;
            seed = A(b[above + c]) - (c > 0 ? A(b[above + c - 1]) : A(0));
        }
        // END SOLUTION
        strip_scan<A>(carry.col_sums, std::size_t(s.cols), c, col_ok, lo, hi, seed, lo, hi,
                      carry.tile_sums_t + std::size_t(J) * g.tile_rows);
    } else {
        const int I = blockIdx.x;
        if (I >= g.tile_rows) return;
        const int lo = pass.cols_from(I), hi = pass.cols_to(I, g);
        if (lo > hi) return;
        const int r = I * w + lane;
        const bool row_ok = r < s.rows;
        A seed = 0;
        // BEGIN SOLUTION hint: likewise for row r left of tile column lo: b[r][lo*w-1] - b[r-1][lo*w-1]
        if (lo > 0 && row_ok) {
            const std::size_t left = std::size_t(lo * w - 1);
            seed = A(b[std::size_t(r) * s.cols + left]) - (r > 0 ? A(b[std::size_t(r - 1) * s.cols + left]) : A(0));
        }
        // END SOLUTION
        strip_scan<A>(carry.row_sums_t, std::size_t(s.rows), r, row_ok, lo, hi, seed, lo, hi,
                      static_cast<Out*>(nullptr));
    }
}

// S of tile (I, J) = b[I*w - 1][J*w - 1] = S of the first tile of row I in the pass plus the
// totals of C of the tiles of row I before J. A block takes 32 tile rows (lane = I) and walks J.
template <class Out>
__global__ void __launch_bounds__(scan_warps * w)
scan_corners(const Out* b, sat::Shape s, Grid g, Pass pass, Carries<Out> carry) {
    using A = sat::Acc<Out>;
    const int lane = threadIdx.x % w;
    const int I_first = blockIdx.x * w, I_last = min(g.tile_rows - 1, I_first + w - 1);
    const int loop_lo = pass.cols_from(I_last), loop_hi = pass.cols_to(I_first, g);
    if (loop_lo > loop_hi) return;
    const int I = I_first + lane;
    const bool row_ok = I < g.tile_rows;
    const int lo = pass.cols_from(I), hi = row_ok ? pass.cols_to(I, g) : -1;
    A seed = 0;
    // BEGIN SOLUTION hint: the first tile (I, lo) of the row starts at b[I*w-1][lo*w-1] when I > 0 and lo > 0 (finished), else 0
    if (row_ok && I > 0 && lo > 0) seed = A(b[std::size_t(I * w - 1) * s.cols + (lo * w - 1)]);
    // END SOLUTION
    strip_scan<A>(carry.tile_sums_t, std::size_t(g.tile_rows), I, row_ok, lo, hi, seed, loop_lo,
                  loop_hi, static_cast<Out*>(nullptr));
}

// ---- Step 3 ------------------------------------------------------------------------------------

template <class In, class Out>
__global__ void __launch_bounds__(threads_per_tile)
finish_tiles(const In* in, Out* out, sat::Shape s, Grid g, Pass pass, Carries<Out> carry,
             unsigned long long* trace) {
    using A = sat::Acc<Out>;
    __shared__ TileSpace<A> sm;
    const int I = pass.box_row(g) + blockIdx.y, J = pass.box_col(g) + blockIdx.x;
    if (I >= g.tile_rows || J >= g.tile_cols || !pass.holds(I, J)) return;
    const int lane = threadIdx.x % w, warp = threadIdx.x / w;
    const int r0 = I * w, c0 = J * w;
    load_tile(in, s, r0, c0, sm.tile);
    if (warp == 0) {
        const int c = c0 + lane;
        sm.C[lane] = c < s.cols ? A(carry.col_sums[std::size_t(I) * s.cols + c]) : A(0);
    } else if (warp == 1) {
        const int r = r0 + lane;
        sm.R[lane] = r < s.rows ? A(carry.row_sums_t[std::size_t(J) * s.rows + r]) : A(0);
    } else if (threadIdx.x == 2 * w) {
        sm.S = A(carry.tile_sums_t[std::size_t(J) * g.tile_rows + I]);
    }
    __syncthreads();
    finish_tile(sm, out, s, I, J, trace);
}

// ================================================================================================
// Host side
// ================================================================================================

// Steps 2 and 3 of a pass (step 1 is launched for both triangles at once).
template <class In, class Out>
void finish_pass(const In* in, Out* out, sat::Shape s, Grid g, Pass pass, Carries<Out> carry,
                 unsigned long long* trace, cudaStream_t stream) {
    const dim3 scans(unsigned(std::max(g.tile_rows, g.tile_cols)), 2);
    scan_carries<<<scans, scan_warps * w, 0, stream>>>(out, s, g, pass, carry);
    SAT_CHECK_LAUNCH("scan_carries");
    scan_corners<<<unsigned((g.tile_rows + w - 1) / w), scan_warps * w, 0, stream>>>(out, s, g, pass, carry);
    SAT_CHECK_LAUNCH("scan_corners");
    const dim3 tiles(unsigned(pass.box_cols(g)), unsigned(pass.box_rows(g)));
    finish_tiles<<<tiles, threads_per_tile, 0, stream>>>(in, out, s, g, pass, carry, trace);
    SAT_CHECK_LAUNCH("finish_tiles");
}

// Step 1 of both triangles in one launch: blockIdx.z = 0 covers A's bounding box, 1 covers B's.
template <class In, class Out>
void launch_block_sums(const In* in, sat::Shape s, Grid g, Passes passes, Carries<Out> carry,
                       cudaStream_t stream) {
    unsigned box_cols = 0, box_rows = 0;
    for (const Pass& pass : passes.p) {
        box_cols = std::max(box_cols, unsigned(pass.box_cols(g)));
        box_rows = std::max(box_rows, unsigned(pass.box_rows(g)));
    }
    block_sums<<<dim3(box_cols, box_rows, 2), threads_per_tile, 0, stream>>>(in, s, g, passes, carry);
    SAT_CHECK_LAUNCH("block_sums");
}

// Anti-diagonals in each triangle for a given r (see the top of the file).
int triangle_diagonals(Grid g, double r) {
    const double side = std::min(g.tile_rows, g.tile_cols);
    return int(std::lround(std::sqrt(std::clamp(r, 0.0, 1.0)) * side));
}

template <class In, class Out>
void run_hybrid(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream) {
    const Grid g{(s.rows + w - 1) / w, (s.cols + w - 1) / w};
    const int D = g.diagonals();
    const double r = ws.r;  // the harness puts --r or LabInfo::default_r here
    const int t = triangle_diagonals(g, r);
    if (2 * t >= D) {  // the triangles meet: no band is left, and all of it is lab 4's 2R1W
        lab4::sat_2r1w(in, std::size_t(s.cols), out, std::size_t(s.cols), s, ws, stream);
        return;
    }
    // BEGIN SOLUTION hint: if t > 0: scratch Carries from ws.get (tile_rows x cols, tile_cols x rows, tile_cols x tile_rows), step 1 of A = [0, t) and B = [D - t, D) in one launch_block_sums, then finish_pass(A); one wavefront_stage launch per band anti-diagonal t .. D - t - 1; then finish_pass(B)
    Carries<Out> carry{nullptr, nullptr, nullptr};
    const Pass A{0, t}, B{D - t, D};
    if (t > 0) {
        carry.col_sums = ws.get<Out>(std::size_t(g.tile_rows) * s.cols);
        carry.row_sums_t = ws.get<Out>(std::size_t(g.tile_cols) * s.rows);
        carry.tile_sums_t = ws.get<Out>(std::size_t(g.tile_cols) * g.tile_rows);
        launch_block_sums(in, s, g, Passes{{A, B}}, carry, stream);
        finish_pass(in, out, s, g, A, carry, ws.trace, stream);
    }
    for (int stage = t; stage < D - t; ++stage) {
        const int first = std::max(0, stage - (g.tile_cols - 1));
        const int last = std::min(stage, g.tile_rows - 1);
        wavefront_stage<<<last - first + 1, threads_per_tile, 0, stream>>>(in, out, s, stage, first, ws.trace);
        SAT_CHECK_LAUNCH("wavefront_stage");
    }
    if (t > 0) finish_pass(in, out, s, g, B, carry, ws.trace, stream);
    // END SOLUTION
}

// The r values of --sweep: r = (k w)^2 / n for k = 0 .. side / w, as in the paper, i.e.
// (k / m)^2 with m = min(tile_rows, tile_cols), so that each gives a different t (= k). Large
// sizes keep 24 values of k spread evenly, always with k = 0 (1R1W) and k = m (2R1W).
std::vector<double> sweep_r(sat::Shape s) {
    const int m = std::min((s.rows + w - 1) / w, (s.cols + w - 1) / w);
    constexpr int most = 24;
    std::vector<int> ks;
    if (m + 1 <= most) {
        for (int k = 0; k <= m; ++k) ks.push_back(k);
    } else {
        for (int i = 0; i < most; ++i) {
            const int k = int(std::lround(double(i) * m / (most - 1)));
            if (ks.empty() || k != ks.back()) ks.push_back(k);
        }
    }
    std::vector<double> rs;
    for (int k : ks) rs.push_back(double(k) * k / (double(m) * m));
    return rs;
}

}  // namespace lab6

SAT_REGISTER_LAB(([] {
    sat::LabInfo lab;
    lab.number = 6;
    lab.title = "(1+r)R1W: 2R1W triangles around a 1R1W band";
    lab.source = "Kasagi et al. 2014, section VII";
    lab.variants = {SAT_VARIANT("(1+r)R1W", "(1+r)R1W",
                                "2R1W on the top-left and bottom-right triangles, 1R1W between (--r, --sweep)",
                                lab6::run_hybrid)};
    lab.default_shapes = {{1024, 1024}, {4096, 4096}, {16384, 16384}};
    lab.default_r = lab6::default_r;
    lab.sweep = lab6::sweep_r;
    return lab;
}()));
