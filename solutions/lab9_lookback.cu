// lab9_lookback.cu — Lab 9: a single-pass SAT with decoupled look-back, in 2-D.
//
// Beyond the papers: Merrill & Garland's single-pass scan with decoupled look-back (2016), taken
// to two dimensions. One kernel reads each input element once and writes each output element
// once. The matrix is cut into tiles of R = 32 rows x C columns (C = 128 threads x one 16-byte
// vector of the output each: 512 columns for 4-byte outputs, 256 for f64). A tile
//   1. takes a ticket (atomicAdd) that says which tile it is: tiles are handed out row-major, so
//      every tile it will wait for was handed out earlier to a block that is running (no
//      deadlock, whatever order the GPU starts blocks in),
//   2. loads its R x C elements into registers and scans them locally (TODO 1),
//   3. publishes its aggregates: R, the sum of each of its rows, and C, the sum of each of its
//      columns                                                                 -> state partial
//   4. looks back LEFT along its tile row for the sums of its rows left of it (TODO 2),
//      publishes its row prefixes and the sum of everything left of it        -> state row_done
//   5. looks back UP its tile column for the sums of its columns above it and the corner
//      (everything above-left of it) (TODO 3), publishes its column prefixes   -> state done
//   6. adds the carries to its local SAT and writes it out (TODO 4).
// A tile never waits for its neighbours to FINISH, only for them to PUBLISH sums they have right
// after their loads, so the look-back latency overlaps other tiles' memory traffic.
// A batch of images (--batch B) is one launch: the tickets run over the images one after the
// other, so a tile's look-backs, which stop at its image's left edge and top strip, stay in it.
//
// This is the teaching version: one tile per block, every row in registers, and a look-back that
// walks one tile at a time. The library's kernel (lib/src/lookback_kernel.cuh, `make lib`) is
// the same algorithm tuned: taller tiles partly in shared memory, a persistent grid, and windows
// of 32 tiles examined at once by a warp (docs/lab9.md, docs/library.md; its measurements:
// docs/tiles.md).
// The tile-state object (flags with a bounded wait) and the published-sum helpers are shared
// with the library: common/lookback.cuh.
#include <cuda_runtime.h>

#include <cstdint>

#include "device.cuh"
#include "lookback.cuh"
#include "sat.h"

namespace lab9 {

using namespace sat::lookback;  // TileState, TileFlags, publish, add_published, warp sums
using sat::vec_of;              // each thread owns V = vec_of<Out>() adjacent columns

constexpr int threads = 128;  // one block per tile: C = threads * V columns
constexpr int warps = threads / 32;
constexpr int R = 32;         // rows per tile, all in registers; lane k of a warp owns row k

// What tiles publish for each other (scratch). Tile t = its ticket
//   = image * tiles_per_image + tile_row * tiles_x + tile_col   (tile_row within the image).
template <class A>
struct Published {
    unsigned* ticket;  // the next ticket (zero at the start)
    TileFlags flags;   // [tiles] TileState (zero at the start) and the status word
    A* row_sum;        // [tiles][R] R of the paper: the sum of each tile row
    A* row_prefix;     // [tiles][R] each row's sum from column 0 through the tile
    A* col_sum;        // [tiles][C] C of the paper: the sum of each tile column
    A* col_prefix;     // [tiles][C] each column's sum from row 0 through the tile
    A* left_sum;       // [tiles] everything in the tile's rows, left of the tile
    A* corner_prefix;  // [tiles] everything left of the tile, rows 0 through the tile's bottom
};

struct Grid {
    int rows, cols, tiles_x;    // of one image
    unsigned tiles_per_image;
    unsigned tiles;             // of the batch
};

// The thread's V columns [c, c + V) of row i; zeros outside the matrix. vec: 16-byte accesses
// are aligned (checked on the host).
template <class In, class A, int V>
__device__ __forceinline__ void load_row(const In* in, const Grid& g, int i, int c, bool vec, A (&x)[V]) {
#pragma unroll
    for (int v = 0; v < V; ++v) x[v] = A(0);
    if (i >= g.rows || c >= g.cols) return;
    const In* p = in + std::size_t(i) * g.cols + c;
    if (vec && c + V <= g.cols) {
        sat::load_vec(p, x);
    } else {
        for (int v = 0; v < V && c + v < g.cols; ++v) x[v] = A(p[v]);
    }
}
template <class Out, class A, int V>
__device__ __forceinline__ void store_row(Out* out, const Grid& g, int i, int c, bool vec, const A (&y)[V]) {
    if (i >= g.rows || c >= g.cols) return;
    Out* p = out + std::size_t(i) * g.cols + c;
    if (vec && c + V <= g.cols) {
        sat::store_vec(p, y);
    } else {
        for (int v = 0; v < V && c + v < g.cols; ++v) p[v] = Out(y[v]);
    }
}

// TODO 1. The tile's local SAT pieces: col[v] = the sum of the thread's column v over the tile's
// R rows, as loaded (published as col_sum); x[r][v] becomes the prefix of row r from the tile's
// left edge through the thread's column v; s_row_sum[r] = the sum of tile row r (published as
// row_sum). s_warp_total[k][r] holds warp k's total of row r. The kernel calls __syncthreads()
// after this function, before anyone reads s_row_sum.
template <class A, int V>
__device__ __forceinline__ void local_scan(A (&x)[R][V], A (&col)[V], A (*s_warp_total)[R], A* s_row_sum) {
    // BEGIN SOLUTION hint: per row r: col[v] += x[r][v] first (col sums the loaded values), then the prefix over the thread's V values; through = sat::warp_inclusive_scan(x[r][V-1], lane), add warp_exclusive(through, lane) to the V values, lane 31 writes through to s_warp_total[warp][r]; one __syncthreads(); then add s_warp_total[k][r] of the warps k < warp; s_row_sum[r] = the sum over all warps (e.g. thread r < R)
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
        for (int v = 0; v < V; ++v) col[v] += x[r][v];
#pragma unroll
        for (int v = 1; v < V; ++v) x[r][v] += x[r][v - 1];
        const A through_lane = sat::warp_inclusive_scan(x[r][V - 1], lane);
        const A left_lanes = warp_exclusive(through_lane, lane);
#pragma unroll
        for (int v = 0; v < V; ++v) x[r][v] += left_lanes;
        if (lane == 31) s_warp_total[warp][r] = through_lane;
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < R; ++r) {
        A left_warps = 0;
        for (int k = 0; k < warp; ++k) left_warps += s_warp_total[k][r];
#pragma unroll
        for (int v = 0; v < V; ++v) x[r][v] += left_warps;
    }
    if (threadIdx.x < R) {
        A row_total = 0;
        for (int k = 0; k < warps; ++k) row_total += s_warp_total[k][threadIdx.x];
        s_row_sum[threadIdx.x] = row_total;
    }
    // END SOLUTION
}

// TODO 2. One warp, tile t not on the left edge: the sum of each of the tile's rows left of the
// tile (lane k: row k). Walk left one tile at a time: wait (pub.flags.wait) until it has at least
// published its row sums; add its row prefixes and stop if it has them (row_done), else add its
// row sums and go on. Each lane walks on its own and may stop at another tile than its
// neighbours: each lane's sum is right either way. The walk ends at the latest at the left-edge
// tile, which publishes its row sums as row prefixes. Then publish this tile's row prefixes
// (carry + row sum) and left sum (the sum of the 32 carries), on the top strip also its corner
// prefix (= the left sum: nothing is above), and raise its state (row_done; done on the top
// strip, whose column sums are already its column prefixes). Returns false after a spin timeout,
// publishing nothing.
template <class A>
__device__ bool look_left(const Published<A>& pub, unsigned t, bool top_strip, const A* s_row_sum,
                          A* s_row_carry, A* s_left_sum) {
    // BEGIN SOLUTION hint: for k = t-1, t-2, ...: st = pub.flags.wait(k, partial) (invalid: timed out); carry += __ldcg of row_prefix (st >= row_done: then stop) or row_sum at [k * R + lane]; if !__all_sync(full_mask, ok) return false; write s_row_carry[lane] = carry; __stcg row_prefix[t * R + lane] = carry + s_row_sum[lane]; left = warp_sum(carry): lane 0 writes *s_left_sum, __stcg left_sum[t] (and corner_prefix[t] on the top strip); __syncwarp(), then lane 0 pub.flags.publish(t, row_done) (done on the top strip)
    const int lane = threadIdx.x & 31;
    A carry = 0;
    bool ok = true;
    for (unsigned k = t - 1;; --k) {  // the left edge publishes row_done: the walk ends there
        const unsigned st = pub.flags.wait(k, partial);
        if (st == invalid) {
            ok = false;
            break;
        }
        const bool has_prefix = st >= row_done;
        carry += __ldcg((has_prefix ? pub.row_prefix : pub.row_sum) + std::size_t(k) * R + lane);
        if (has_prefix) break;
    }
    if (!__all_sync(full_mask, ok)) return false;
    s_row_carry[lane] = carry;
    __stcg(pub.row_prefix + std::size_t(t) * R + lane, A(carry + s_row_sum[lane]));
    const A left = warp_sum(carry);
    if (lane == 0) {
        *s_left_sum = left;
        __stcg(pub.left_sum + t, left);
        if (top_strip) __stcg(pub.corner_prefix + t, left);
    }
    __syncwarp();  // the lanes' row prefixes before the release
    if (lane == 0) pub.flags.publish(t, top_strip ? done : row_done);
    return ok;
    // END SOLUTION
    return true;  // (skeleton: nothing to the left)
}

// TODO 3. The whole block, tile t below the top strip: carry[v] = the sum of the thread's column
// v above the tile, corner = the sum of everything above-left of the tile (both arrive zeroed).
// Walk up one tile at a time: one thread waits until the tile has published at least row_done
// and shares the state through *s_state; add its column prefixes and corner prefix and stop if it
// is done, else its column sums and left sum. The walk ends at the latest at the top strip, whose
// tiles publish done. Returns false (in every thread) after a spin timeout.
template <class A, int V>
__device__ bool look_up(const Published<A>& pub, const Grid& g, unsigned t, A (&carry)[V], A& corner,
                        unsigned* s_state) {
    // BEGIN SOLUTION hint: for k = t - tiles_x, t - 2 tiles_x, ...: thread 0 writes pub.flags.wait(k, row_done) to *s_state; __syncthreads(); every thread reads it; __syncthreads() (before thread 0 rewrites it); invalid: return false; done: add_published(col_prefix + k * C + threadIdx.x * V, carry) and corner += __ldcg(corner_prefix + k), then return true; else the same with col_sum and left_sum (C = threads * V)
    constexpr int C = threads * V;
    for (unsigned k = t - unsigned(g.tiles_x);; k -= unsigned(g.tiles_x)) {  // the top strip is done
        if (threadIdx.x == 0) *s_state = pub.flags.wait(k, row_done);
        __syncthreads();
        const unsigned st = *s_state;
        __syncthreads();  // *s_state is rewritten in the next step
        if (st == invalid) return false;
        const bool has_prefix = st == done;
        add_published((has_prefix ? pub.col_prefix : pub.col_sum) + std::size_t(k) * C + threadIdx.x * V, carry);
        corner += __ldcg((has_prefix ? pub.corner_prefix : pub.left_sum) + k);
        if (has_prefix) return true;
    }
    // END SOLUTION
    return true;  // (skeleton: nothing above)
}

// TODO 4. Write the tile: out(i0 + r, c + v) = top[v] + the sum over rows r' <= r of
// (s_row_carry[r'] + x[r'][v]), where top = the SAT row just above the tile.
template <class Out, class A, int V>
__device__ __forceinline__ void write_tile(Out* out, const Grid& g, int i0, int c, bool vec, const A (&top)[V],
                                           const A (&x)[R][V], const A* s_row_carry) {
    // BEGIN SOLUTION hint: acc[v] = top[v]; for each row r: acc[v] += s_row_carry[r] + x[r][v], then store_row<Out, A, V>(out, g, i0 + r, c, vec, acc)
    A acc[V];  // the SAT of row i0 + r at the thread's columns
    for (int v = 0; v < V; ++v) acc[v] = top[v];
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
        for (int v = 0; v < V; ++v) acc[v] += s_row_carry[r] + x[r][v];
        store_row<Out, A, V>(out, g, i0 + r, c, vec, acc);
    }
    // END SOLUTION
}

// The kernel: one block per tile (ConsumeTile).
template <class In, class Out>
__global__ void __launch_bounds__(threads) lookback_kernel(const In* in, Out* out, Grid g, Published<sat::Acc<Out>> pub,
                                                           bool vec, unsigned long long* trace) {
    using A = sat::Acc<Out>;
    constexpr int V = vec_of<Out>(), C = threads * V;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    __shared__ unsigned s_ticket, s_state;
    __shared__ int s_failed;
    __shared__ A s_warp_total[warps][R], s_row_sum[R], s_row_carry[R], s_top_total[warps], s_left_sum;

    if (tid == 0) s_ticket = atomicAdd(pub.ticket, 1u), s_failed = 0;
    __syncthreads();
    const unsigned t = s_ticket, image = t / g.tiles_per_image, in_image = t % g.tiles_per_image;
    const int ty = int(in_image / unsigned(g.tiles_x)), tx = int(in_image % unsigned(g.tiles_x));
    in += std::size_t(image) * g.rows * g.cols;  // the image's own matrices
    out += std::size_t(image) * g.rows * g.cols;
    const int i0 = ty * R, c = tx * C + tid * V;  // this thread: rows i0.., columns c..c+V-1
    const bool top_strip = ty == 0, left_edge = tx == 0;

    A x[R][V], col[V];
#pragma unroll
    for (int r = 0; r < R; ++r) load_row(in, g, i0 + r, c, vec, x[r]);
#pragma unroll
    for (int v = 0; v < V; ++v) col[v] = 0;
    local_scan<A, V>(x, col, s_warp_total, s_row_sum);
    __syncthreads();

    // Publish the aggregates (state partial). The left edge has no row carry: its row sums are
    // its row prefixes; the top strip has no column carry: its column sums are its prefixes.
    publish((top_strip ? pub.col_prefix : pub.col_sum) + std::size_t(t) * C + tid * V, col);
    if (tid < R) {
        __stcg((left_edge ? pub.row_prefix : pub.row_sum) + std::size_t(t) * R + tid, s_row_sum[tid]);
        if (left_edge) s_row_carry[tid] = 0;
    }
    if (tid == 0 && left_edge) {
        s_left_sum = 0;
        __stcg(pub.left_sum + t, A(0));
        if (top_strip) __stcg(pub.corner_prefix + t, A(0));
    }
    __syncthreads();  // the block's writes, then one release
    if (tid == 0) pub.flags.publish(t, left_edge ? (top_strip ? done : row_done) : partial);

    if (warp == 0 && !left_edge) {
        const bool ok = look_left(pub, t, top_strip, s_row_sum, s_row_carry, &s_left_sum);
        if (!ok && lane == 0) s_failed = 1;
    }
    __syncthreads();
    if (s_failed) return;  // a spin timed out: the harness reports the status
    A carry[V], corner = 0;
#pragma unroll
    for (int v = 0; v < V; ++v) carry[v] = 0;
    if (!top_strip && !look_up(pub, g, t, carry, corner, &s_state)) return;

    // top = corner + the prefix (across the tile) of the column carries: the SAT row above.
    A top[V];
    top[0] = carry[0];
#pragma unroll
    for (int v = 1; v < V; ++v) top[v] = top[v - 1] + carry[v];
    const A through_lane = sat::warp_inclusive_scan(top[V - 1], lane);
    A before = warp_exclusive(through_lane, lane) + corner;
    if (lane == 31) s_top_total[warp] = through_lane;
    if (!top_strip) {  // publish the column prefixes and the corner (state done)
        A prefix[V];
#pragma unroll
        for (int v = 0; v < V; ++v) prefix[v] = carry[v] + col[v];
        publish(pub.col_prefix + std::size_t(t) * C + tid * V, prefix);
        if (tid == 0) __stcg(pub.corner_prefix + t, A(corner + s_left_sum));
    }
    __syncthreads();
    if (tid == 0 && !top_strip) pub.flags.publish(t, done);
    for (int k = 0; k < warp; ++k) before += s_top_total[k];
#pragma unroll
    for (int v = 0; v < V; ++v) top[v] += before;

    write_tile<Out, A, V>(out, g, i0, c, vec, top, x, s_row_carry);
    if (trace != nullptr && c < g.cols && c % sat::w == 0)
        sat::record_tile(trace, sat::Shape{g.rows, g.cols}, i0 / sat::w, c / sat::w);
}

inline bool aligned(const void* p, std::size_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; }

// Scratch from the harness's workspace (the flags zeroed in the timed work), then one launch.
template <class In, class Out>
void run_lookback(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream) {
    using A = sat::Acc<Out>;
    constexpr int V = vec_of<Out>(), C = threads * V;
    Grid g{s.rows, s.cols, sat::ceil_div(s.cols, C), 0, 0};
    g.tiles_per_image = unsigned(g.tiles_x) * unsigned(sat::ceil_div(s.rows, R));
    const std::size_t tiles = std::size_t(g.tiles_per_image) * ws.batch, pad = 64;  // 64: keeps 16-byte alignment
    if (tiles > 0x7fffffffu) throw sat::Error("lab 9: more than 2^31 - 1 tiles in one launch; choose a smaller batch");
    g.tiles = unsigned(tiles);
    Published<A> pub;
    pub.ticket = ws.get_zeroed<unsigned>(pad + tiles, stream);
    pub.flags = TileFlags{pub.ticket + pad, ws.status};
    A* next = ws.get<A>(tiles * (2 * R + 2 * C + 2) + 6 * pad);
    auto take = [&](std::size_t count) {
        A* at = next;
        next += (count + pad - 1) / pad * pad;
        return at;
    };
    pub.row_sum = take(tiles * R), pub.row_prefix = take(tiles * R);
    pub.col_sum = take(tiles * C), pub.col_prefix = take(tiles * C);
    pub.left_sum = take(tiles), pub.corner_prefix = take(tiles);
    const bool vec = s.cols % V == 0 && aligned(in, V * sizeof(In)) && aligned(out, 16);
    lookback_kernel<In, Out><<<g.tiles, threads, 0, stream>>>(in, out, g, pub, vec, ws.trace);
    SAT_CUDA(cudaGetLastError());
}

}  // namespace lab9

SAT_REGISTER_LAB(sat::lab_info(
    9, "single-pass SAT with decoupled look-back",
    "beyond the papers: Merrill & Garland 2016 (decoupled look-back), in 2-D",
    {sat::batched(SAT_VARIANT("LookBack", "LookBack",
                              "one kernel, 32-row tiles (512 columns; f64 256) by atomic ticket, "
                              "row and column carries by decoupled look-back; a batch in one launch",
                              lab9::run_lookback))}));
