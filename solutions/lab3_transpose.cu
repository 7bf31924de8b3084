// Lab 3 — transpose through a w x w shared-memory tile (naive, padded, diagonal arrangement), and
// the 4R4W SAT (Kasagi, Nakano, Ito 2014, sections III and IV).
//
// Transpose (out is cols x rows, out[j * rows + i] = in[i * cols + j]): the matrix is cut into
// w x w tiles. One warp moves one tile: it reads the tile row by row (coalesced) into shared
// memory, then reads it back column by column and writes those columns as rows of the output
// (coalesced again). Only the shared-memory layout of the tile differs between the variants:
//
//   naive     element (i, j) at [i * w + j]              column reads hit one bank (conflicts)
//   padded    element (i, j) at [i * (w + 1) + j]        one spare word per row shifts the banks
//   diagonal  element (i, j) at [i * w + (i + j) mod w]  Kasagi's diagonal arrangement (Lemma 1)
//
// 4R4W SAT: column prefix sums, transpose, column prefix sums, transpose — four passes that each
// read and write every element once, all coalesced (8n/w + 4l on the HMM).
//
// Integer sums are accumulated in sat::Acc<Out> (unsigned): they wrap modulo 2^32 like the reference.
#include "diag_tile.cuh"  // sat::Pack
#include "scan.cuh"       // sat::load_row_vectors, scan_warps, rows_per_warp

namespace lab3 {

using sat::w;

// ---- Shared-memory layouts of one w x w tile ---------------------------------------------------
// index(i, j) is where tile element (row i, column j) lives; size is the words a tile occupies.

struct NaiveLayout {
    static constexpr int size = w * w;
    __device__ static int index(int i, int j) { return i * w + j; }
};

struct PaddedLayout {
    static constexpr int size = w * (w + 1);
    __device__ static int index(int i, int j) {
        int slot = 0;
        // BEGIN SOLUTION hint: rows are w + 1 words apart, so column j of row i is at i * (w + 1) + j
        slot = i * (w + 1) + j;
        // END SOLUTION
        return slot;
    }
};

struct DiagonalLayout {
    static constexpr int size = w * w;
    __device__ static int index(int i, int j) {
        int slot = 0;
        // BEGIN SOLUTION hint: row i is rotated by i: element (i, j) goes to column (i + j) mod w of row i
        slot = i * w + ((i + j) & (w - 1));
        // END SOLUTION
        return slot;
    }
};

// ---- Tile transpose ------------------------------------------------------------------------------

// One warp moves one tile, lane l owning column l: row k of the tile is one coalesced read (lane
// l reads element (k, l)), and row k of the output tile is one coalesced write. A CUDA block
// holds tile_rows_per_block x tile_cols_per_block tiles: 2 x 4 of 4-byte or 2 x 2 of 8-byte
// values (32 KiB of shared memory), so it reads 4 tiles (512 bytes of f32) of each input row and
// writes 2 tiles of each output row; on an H200 that ran 2% faster than 1 x 8 tiles.
template <class Out>
constexpr int warps_per_block = sizeof(Out) == 4 ? 8 : 4;
constexpr int tile_rows_per_block = 2;
template <class Out>
constexpr int tile_cols_per_block = warps_per_block<Out> / tile_rows_per_block;

template <class Layout, class In, class Out>
__global__ void __launch_bounds__(warps_per_block<Out> * w)
transpose_tiles(const In* __restrict__ in, Out* __restrict__ out, int rows, int cols) {
    __shared__ Out tiles[warps_per_block<Out>][Layout::size];
    const int warp = threadIdx.x / w, lane = threadIdx.x % w;
    Out* tile = tiles[warp];
    constexpr int br = tile_rows_per_block, bc = tile_cols_per_block<Out>;
    const int tiles_y = sat::ceil_div(rows, w), tiles_x = sat::ceil_div(cols, w);
    const int blocks_x = sat::ceil_div(tiles_x, bc);
    const int tile_row = int(blockIdx.x / blocks_x) * br + warp / bc;
    const int tile_col = int(blockIdx.x % blocks_x) * bc + warp % bc;
    if (tile_row >= tiles_y || tile_col >= tiles_x) return;  // the whole warp leaves together

    // Row-wise into shared memory: lane l stores element (k, l) for k = 0 .. w-1. The loads are
    // independent, so all w of them are in flight before the first store.
    const int j_in = tile_col * w + lane;
    Out v[w];
#pragma unroll
    for (int k = 0; k < w; ++k) {
        const int i = tile_row * w + k;
        v[k] = (i < rows && j_in < cols) ? Out(in[std::size_t(i) * cols + j_in]) : Out(0);
    }
#pragma unroll
    for (int k = 0; k < w; ++k) tile[Layout::index(k, lane)] = v[k];
    __syncwarp();

    // Column-wise out of shared memory: column k of the tile is row k of the output tile.
    // BEGIN SOLUTION hint: for k = 0 .. w-1, lane l reads tile element (l, k) via Layout::index and writes it to out[(tile_col*w + k) * rows + tile_row*w + l] (out is cols x rows; skip what lies outside, index with size_t)
    const int j = tile_row * w + lane;  // output column
#pragma unroll
    for (int k = 0; k < w; ++k) {
        const int i = tile_col * w + k;  // output row
        if (i < cols && j < rows) out[std::size_t(i) * rows + j] = tile[Layout::index(lane, k)];
    }
    // END SOLUTION
}

template <class Layout, class In, class Out>
void transpose(const In* in, Out* out, sat::Shape s, cudaStream_t stream) {
    constexpr int br = tile_rows_per_block, bc = tile_cols_per_block<Out>;
    const int tiles_y = sat::ceil_div(s.rows, w), tiles_x = sat::ceil_div(s.cols, w);
    const std::size_t blocks = std::size_t(sat::ceil_div(tiles_y, br)) * sat::ceil_div(tiles_x, bc);
    transpose_tiles<Layout><<<unsigned(blocks), warps_per_block<Out> * w, 0, stream>>>(
        in, out, s.rows, s.cols);
    SAT_CHECK_LAUNCH("lab3 transpose_tiles");
}

template <class In, class Out>
void run_transpose_naive(const In* in, Out* out, sat::Shape s, sat::Workspace&, cudaStream_t st) {
    transpose<NaiveLayout>(in, out, s, st);
}
template <class In, class Out>
void run_transpose_padded(const In* in, Out* out, sat::Shape s, sat::Workspace&, cudaStream_t st) {
    transpose<PaddedLayout>(in, out, s, st);
}
template <class In, class Out>
void run_transpose_diagonal(const In* in, Out* out, sat::Shape s, sat::Workspace&, cudaStream_t st) {
    transpose<DiagonalLayout>(in, out, s, st);
}

// ---- Column prefix sums ------------------------------------------------------------------------
// A block owns a strip of w * V columns (lane = V neighbouring columns, coalesced) and walks down
// it in rounds of scan_warps * rows_per_warp rows: each warp scans its rows_per_warp rows in
// registers, the warps' totals meet in shared memory, and a running carry links the rounds. Same
// n reads and n writes as one thread per column, but 8 warps per strip, each with its next rows
// already loading, keep enough bytes in flight to run at memory speed. in == out (in place) is
// allowed: each element is read and then written by one thread.
constexpr int scan_vec = 4;  // columns per lane (16-byte vectors of f32) when rows are aligned
using sat::Pack, sat::rows_per_warp, sat::scan_warps;

template <int V, class In, class Out>
__global__ void __launch_bounds__(scan_warps * w)
column_prefix_sums(const In* in, Out* out, int rows, int cols) {
    using A = sat::Acc<Out>;
    __shared__ A warp_totals[2][scan_warps][w * V];  // double-buffered: one barrier per round
    constexpr int round_rows = scan_warps * rows_per_warp;
    const int warp = threadIdx.x / w, lane = threadIdx.x % w;
    const int j = (blockIdx.x * w + lane) * V;
    A carry[V] = {};  // sums of these columns over all earlier rounds
    int buffer = 0;
    A next[rows_per_warp][V];
    sat::load_row_vectors<V>(in, rows, cols, warp * rows_per_warp, j, next);
    for (int round_row = 0; round_row < rows; round_row += round_rows) {
        const int first = round_row + warp * rows_per_warp;
        A v[rows_per_warp][V];
#pragma unroll
        for (int u = 0; u < rows_per_warp; ++u)
#pragma unroll
            for (int c = 0; c < V; ++c) v[u][c] = next[u][c];
        if (round_row + round_rows < rows) sat::load_row_vectors<V>(in, rows, cols, first + round_rows, j, next);
        // BEGIN SOLUTION hint: for each of the V columns: scan v[][c] in registers, publish the last row in warp_totals[buffer][warp][lane*V + c], __syncthreads, add carry + totals of earlier warps, store the rows that exist, add all warps' totals to carry
#pragma unroll
        for (int u = 1; u < rows_per_warp; ++u)
#pragma unroll
            for (int c = 0; c < V; ++c) v[u][c] += v[u - 1][c];
#pragma unroll
        for (int c = 0; c < V; ++c) warp_totals[buffer][warp][lane * V + c] = v[rows_per_warp - 1][c];
        __syncthreads();
        A offset[V];
#pragma unroll
        for (int c = 0; c < V; ++c) {
            A round_total = 0;
            offset[c] = carry[c];
#pragma unroll
            for (int k = 0; k < scan_warps; ++k) {
                const A t = warp_totals[buffer][k][lane * V + c];
                if (k < warp) offset[c] += t;
                round_total += t;
            }
            carry[c] += round_total;
        }
#pragma unroll
        for (int u = 0; u < rows_per_warp; ++u) {
            const int i = first + u;
            if (j < cols && i < rows) {
                Pack<Out, V> p;
#pragma unroll
                for (int c = 0; c < V; ++c) p.v[c] = Out(v[u][c] + offset[c]);
                *reinterpret_cast<Pack<Out, V>*>(out + std::size_t(i) * cols + j) = p;
            }
        }
        // END SOLUTION
        buffer ^= 1;
    }
}

template <class In, class Out>
void column_scan(const In* in, Out* out, sat::Shape s, cudaStream_t stream) {
    constexpr int V = scan_vec;
    const bool aligned = s.cols % V == 0 && reinterpret_cast<std::uintptr_t>(in) % (sizeof(In) * V) == 0 &&
                         reinterpret_cast<std::uintptr_t>(out) % (sizeof(Out) * V) == 0;
    if (V > 1 && aligned) {
        const unsigned blocks = unsigned(sat::ceil_div(s.cols / V, w));
        column_prefix_sums<V><<<blocks, scan_warps * w, 0, stream>>>(in, out, s.rows, s.cols);
    } else {
        const unsigned blocks = unsigned(sat::ceil_div(s.cols, w));
        column_prefix_sums<1><<<blocks, scan_warps * w, 0, stream>>>(in, out, s.rows, s.cols);
    }
    SAT_CHECK_LAUNCH("lab3 column_prefix_sums");
}

// ---- 4R4W ------------------------------------------------------------------------------------------

// Step 1 column sums (in -> out), step 2 transpose (out -> t, cols x rows), step 3 column sums of
// t in place (= the row sums of the original), step 4 transpose back (t -> out). Each kernel
// boundary is one HMM barrier.
template <class In, class Out>
void run_4r4w(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t st) {
    const sat::Shape st_shape{s.cols, s.rows};  // the transposed matrix
    Out* t = ws.get<Out>(s.n());
    column_scan(in, out, s, st);
    transpose<DiagonalLayout>(out, t, s, st);
    column_scan(t, t, st_shape, st);
    transpose<DiagonalLayout>(t, out, st_shape, st);
}

}  // namespace lab3

SAT_REGISTER_LAB(([] {
    auto transpose_variant = [](sat::Variant v) {
        v.computes = sat::Computes::transpose;
        return v;
    };
    return sat::lab_info(3, "Transpose with the diagonal arrangement; 4R4W", "Kasagi et al. 2014, sections III-IV", {
        transpose_variant(SAT_VARIANT("transpose-naive", "transpose",
                                      "w x w shared tile, element (i,j) at [i][j]: column reads conflict",
                                      lab3::run_transpose_naive)),
        transpose_variant(SAT_VARIANT("transpose-padded", "transpose",
                                      "w x (w+1) shared tile: one pad word per row, conflict-free",
                                      lab3::run_transpose_padded)),
        transpose_variant(SAT_VARIANT("transpose-diagonal", "transpose",
                                      "w x w shared tile in diagonal arrangement [i][(i+j) mod w]",
                                      lab3::run_transpose_diagonal)),
        SAT_VARIANT("4R4W", "4R4W",
                    "column prefix sums, transpose, column prefix sums, transpose (diagonal)",
                    lab3::run_4r4w),
    });
}()));
