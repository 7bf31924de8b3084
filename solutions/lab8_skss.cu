// Lab 8 — Single Kernel Soft Synchronization (Funasaka, Nakano, Ito 2017, sections IV, V-B).
//
// The SAT as a fair task array: task t(i, j), step j of strip i (32 x 32 in SKSS-warp, 128 x 32V
// in SKSS), needs t(i, j-1) and t(i-1, j). One kernel does everything: a worker (a block in SKSS,
// a warp in SKSS-warp) takes the next strip by ticket (atomicAdd), so the strip above always
// belongs to a worker that is already running; it walks its strip left to right with the carry
// in registers, and before it finishes a step it waits for the strip above's last row (soft
// synchronization), adds it and hands over its own. docs/lab8.md explains the three hand-overs:
//   SKSS-warp     a progress flag per strip (fence, release/acquire), the row read from `out`;
//   SKSS          the row itself in tagged 64-bit words: a tag cannot arrive without its value;
//   SKSS-cluster  SKSS with 2-strip thread-block clusters, the inner hand-over in distributed
//                 shared memory (past the paper, Hopper).
// With R0 the strip's first row: V[r][c] = sum_{R0 <= r' <= r} a[r'][c] (column scan in the strip),
// b[r][c] = b[R0-1][c] + sum_{c' <= c} V[r][c'] (row scan, carry from the left).
#include <cuda/atomic>

#define SAT_INCLUDED_BY_LAB          // lab 7's device functions, not its registration
#include "lab7_register_cache.cu"    // lab7::brlt_transpose (this directory's: yours in a student build)
#include "launch.cuh"
#include "progress_flag.cuh"         // progress_ref: a strip's progress flag
#include "register_tile.cuh"
#include "skss.cuh"                  // hand-over words, the cluster ring, block shapes

namespace lab8 {

using sat::ceil_div;
using sat::w;

[[maybe_unused]] constexpr unsigned full_mask = 0xffffffffu;

// Progress of a strip: how many of its tile columns are in `out`; release after, acquire before.
using sat::progress_ref;  // cuda::atomic_ref<unsigned, device scope>; checked in test builds

// ---- SKSS-warp's per-tile work ---------------------------------------------------------------
// Row scan of the tile (lane = column on entry and exit) with a carry from the tiles on the
// left: transpose so that a thread holds a row, scan serially, transpose back (lab 7's way).
template <class Out>
__device__ __forceinline__ void row_scan_with_carry(Out (&data)[w], Out& row_carry,
                                                    Out (*buffer)[w + 1], int lane) {
    // BEGIN SOLUTION hint: lab7::brlt_transpose(data, buffer, lane) (now lane = row, data[j] = column c0 + j); add row_carry to data[0]; lab7::serial_scan(data); row_carry = data[31]; lab7::brlt_transpose back (lane = column again)
    lab7::brlt_transpose(data, buffer, lane);  // lane = row, data[j] = column c0+j
    data[0] += row_carry;
    lab7::serial_scan(data);
    row_carry = data[w - 1];
    lab7::brlt_transpose(data, buffer, lane);  // lane = column again
    // END SOLUTION
}

// ---- Hand-over by flag + fence (SKSS-warp, the paper's) -------------------------------------
// One thread waits until the progress word of the strip above reaches step + 1. Returns false
// if the wait timed out (a flag that never comes) or another worker already gave up.
__device__ __forceinline__ bool wait_for_strip_above(unsigned* progress_above, int step,
                                                     int* status) {
    bool ready = false;
    // BEGIN SOLUTION hint: ready = sat::bounded_spin(a lambda that returns progress_ref(*progress_above).load(cuda::memory_order_acquire) > step, status)
    progress_ref progress(*progress_above);
    ready = sat::bounded_spin(
        [&] { return progress.load(cuda::memory_order_acquire) > unsigned(step); }, status);
    // END SOLUTION
    return ready;
}

// Called by one thread after the stores it announces are fenced.
__device__ __forceinline__ void publish_progress(unsigned* my_progress, int steps_done) {
    // BEGIN SOLUTION hint: progress_ref(*my_progress).store(steps_done, cuda::memory_order_release)
    progress_ref(*my_progress).store(unsigned(steps_done), cuda::memory_order_release);
    // END SOLUTION
}

// One lane hands over its V values of the strip's last row.
template <class A, int V>
__device__ __forceinline__ void publish_values(handover_word* words, const A (&values)[V]) {
    static_assert(sizeof(values) == words_per_lane * 4, "16 bytes of values per lane");
    // BEGIN SOLUTION hint: memcpy the 16 bytes of values into unsigned pieces[4] (unpack_values in common/skss.cuh does the reverse); store_word_pair(words, handover_tag | pieces[0], handover_tag | pieces[1]), then the same at words + 2 with pieces[2], pieces[3]
    unsigned pieces[words_per_lane];
    memcpy(pieces, values, sizeof(pieces));
    store_word_pair(words, handover_tag | pieces[0], handover_tag | pieces[1]);
    store_word_pair(words + 2, handover_tag | pieces[2], handover_tag | pieces[3]);
    // END SOLUTION
}

// One lane of the polling warp waits until its 4 words of the row above carry their tag and
// returns its V values; first_read (the words read at the step's start) often has them already.
// Every lane waits for its own columns only, so a lane that gives up cannot strand the others.
template <class A, int V>
__device__ __forceinline__ bool wait_for_values_above(const handover_word* words,
                                                      const handover_word (&first_read)[words_per_lane],
                                                      A (&values)[V], int* status) {
    handover_word got[words_per_lane] = {};
    bool ready = false;
    // BEGIN SOLUTION hint: if all_tagged(first_read): unpack_values(first_read, values) and return true; otherwise ready = sat::bounded_spin(a lambda that does load_words(words, got) and returns all_tagged(got), status) (the lines below unpack got and return ready)
    if (all_tagged(first_read)) {
        unpack_values(first_read, values);
        return true;
    }
    ready = sat::bounded_spin(
        [&] {
            load_words(words, got);
            return all_tagged(got);
        },
        status);
    // END SOLUTION
    unpack_values(got, values);
    return ready;
}

// ---- SKSS, block-wise ------------------------------------------------------------------------
// NW warps stacked on a strip of NW * RT = 128 rows; a thread owns RT rows x V columns (16 bytes),
// a step is 32V columns. Sums run the short way round: the thread's own corner serially, the lanes
// to the left by shuffles, the warps above through shared memory, the steps to the left by a
// per-row carry; the strip above comes last, polled by the last warp alone (which owns the
// bottom row) and passed to the others through shared memory and a block barrier.

// The part of a step that needs nothing from the strip above: x (the thread's raw RT x V values)
// becomes the sums over the strip's rows down to each row and every column up to each column;
// row_carry[i] brings the columns left of the step in and leaves with those up to its last one.
// column_totals is this step's half of a double buffer: one block barrier per step.
template <class A, int V>
__device__ __forceinline__ void strip_local_sums(A (&x)[RT][V], A (&row_carry)[RT],
                                                 A (*column_totals)[w * V], int warp, int lane) {
    // BEGIN SOLUTION hint: the thread's own RT x V prefix (down the columns, then along the rows); per row i: inclusive = sat::warp_inclusive_scan(x[i][V-1], lane), lanes > 0 add __shfl_up_sync(full_mask, inclusive, 1); x[RT-1][j] to column_totals[warp][lane * V + j]; __syncthreads(); above[j] = sum of column_totals[k][lane * V + j] over the warps k < warp; per row i: x[i][j] += above[j] + row_carry[i], then row_carry[i] = __shfl_sync(full_mask, x[i][V-1], 31)
    // The thread's own RT x V corner: down the columns, then along the rows.
#pragma unroll
    for (int i = 1; i < RT; ++i)
#pragma unroll
        for (int j = 0; j < V; ++j) x[i][j] += x[i - 1][j];
#pragma unroll
    for (int i = 0; i < RT; ++i)
#pragma unroll
        for (int j = 1; j < V; ++j) x[i][j] += x[i][j - 1];

    // The lanes to the left: an exclusive scan across the warp of each row's last value.
#pragma unroll
    for (int i = 0; i < RT; ++i) {
        const A inclusive = sat::warp_inclusive_scan(x[i][V - 1], lane);
        const A left = __shfl_up_sync(full_mask, inclusive, 1);
        if (lane > 0)
#pragma unroll
            for (int j = 0; j < V; ++j) x[i][j] += left;
    }

    // The warps above: each warp's bottom row, summed over the warps above this one.
#pragma unroll
    for (int j = 0; j < V; ++j) column_totals[warp][lane * V + j] = x[RT - 1][j];
    __syncthreads();
    A above[V] = {};
    for (int k = 0; k < warp; ++k)
#pragma unroll
        for (int j = 0; j < V; ++j) above[j] += column_totals[k][lane * V + j];

    // The steps to the left, row by row; lane 31 then holds each row's new carry.
#pragma unroll
    for (int i = 0; i < RT; ++i) {
#pragma unroll
        for (int j = 0; j < V; ++j) x[i][j] += above[j] + row_carry[i];
        row_carry[i] = __shfl_sync(full_mask, x[i][V - 1], w - 1);
    }
    // END SOLUTION
}

// C = 1: SKSS. C > 1: SKSS-cluster, C blocks take C strips at once, hand over inside the cluster
// through distributed shared memory, and the last one through global memory to the next cluster.
template <class In, class Out, bool Vec, int C>
__global__ void __launch_bounds__(NW * w)
skss_block(const In* __restrict__ in, Out* __restrict__ out, sat::Shape s,
           unsigned* ticket_counter, handover_word* handover, int* status,
           unsigned long long* trace) {
    using A = sat::Acc<Out>;
    constexpr int V = sat::vec_of<A>();
    constexpr int step_cols = w * V;
    __shared__ __align__(16) A column_totals[2][NW][step_cols];
    // The strip above's last row at this step (rewritten only after the next step's first barrier).
    [[maybe_unused]] __shared__ __align__(16) A row_above_shared[step_cols];
    [[maybe_unused]] __shared__ unsigned shared_strip;
    // SKSS-cluster only: the ring the block above pushes into, how far the block below has read.
    [[maybe_unused]] __shared__ __align__(16) handover_word ring[C > 1 ? ring_steps : 1][ring_slot_words];
    [[maybe_unused]] __shared__ unsigned ring_read;
    [[maybe_unused]] __shared__ unsigned shared_ticket[2];
    const int lane = threadIdx.x % w;
    const int warp = threadIdx.x / w;
    const bool last_warp = warp == NW - 1;
    const unsigned strips = unsigned(ceil_div(s.rows, strip_rows));
    const int steps = ceil_div(s.cols, step_cols);
    const std::size_t handover_row = std::size_t(steps) * w * words_per_lane;
    [[maybe_unused]] unsigned rank = 0;  // in the cluster: rank 0 hears from above through L2
    if constexpr (C > 1) rank = clear_ring<NW * w>(ring, ring_read);

    for (unsigned round = 0;; ++round) {
        // Take a strip in ticket order (never blockIdx: a block may start before the one
        // that owns the strip above and would then wait for it forever).
        unsigned strip = strips;  // "no work"
        if constexpr (C > 1) {
            const unsigned first_strip = take_cluster_ticket<C>(ticket_counter, shared_ticket, round) * C;
            if (first_strip >= strips) return;  // the whole cluster leaves together
            strip = first_strip + rank;
            if (strip >= strips) continue;      // no strip for this block: on to the next barrier
        } else {
            // BEGIN SOLUTION hint: thread 0 writes atomicAdd(ticket_counter, 1) to shared_strip; __syncthreads(); everyone reads it (no second barrier is needed: see the comment below)
            if (threadIdx.x == 0) shared_strip = atomicAdd(ticket_counter, 1u);
            __syncthreads();
            strip = shared_strip;
            // END SOLUTION
            // Thread 0 writes the next ticket only after the barrier in strip_local_sums (every
            // strip has a step), which every thread reaches after reading this one.
            if (strip >= strips) return;
        }

        const int r0 = int(strip) * strip_rows + warp * RT;  // this thread's rows r0 .. r0+RT-1
        handover_word* my_row = handover + std::size_t(strip) * handover_row;
        [[maybe_unused]] const handover_word* row_above_words = strip > 0 ? my_row - handover_row : nullptr;
        // Where the strip above's row comes from, and where this strip's row goes.
        [[maybe_unused]] const bool above_in_cluster = rank > 0;
        [[maybe_unused]] const bool hands_over = last_warp && strip + 1 < strips && rank == C - 1;
        [[maybe_unused]] const bool hands_over_in_cluster = last_warp && strip + 1 < strips && rank + 1 < C;
        [[maybe_unused]] unsigned read_seen = round * unsigned(steps);  // all of the last round was read
        A row_carry[RT] = {};

        // Software pipeline: the loads of step k+1 are in flight while step k computes and waits.
        A x[RT][V];
        std::conditional_t<Vec, sat::row_bits_t<In>[RT], A[RT][V]> next;
        load_rows(in, s, r0, lane * V, next);
        for (int step = 0; step < steps; ++step) {
            const int c = step * step_cols + lane * V;  // this thread's first column
            [[maybe_unused]] const std::size_t my_words = std::size_t(c / V) * words_per_lane;
            widen_rows(next, x);
            if (step + 1 < steps) load_rows(in, s, r0, c + step_cols, next);

            // The first read of the strip above's words goes out now: its round trip overlaps the sums.
            handover_word first_read[words_per_lane] = {};
            if (strip > 0 && last_warp && !above_in_cluster) load_words(row_above_words + my_words, first_read);
            [[maybe_unused]] const unsigned seq = round * unsigned(steps) + unsigned(step) + 1;  // ring tag
            [[maybe_unused]] const int slot = step % ring_steps;

            strip_local_sums(x, row_carry, column_totals[step % 2], warp, lane);

            // Soft synchronization. On a timeout carry on without the row (leaving would strand the
            // other warps at a barrier): the output is wrong and the status says why.
            A top[V] = {};
            // SKSS-cluster: a block below another of its cluster finds the row above in its ring.
            if constexpr (C > 1)
                if (strip > 0 && last_warp && above_in_cluster)
                    receive_from_ring(ring[slot], &ring_read, rank, lane, seq, top, status);
            // BEGIN SOLUTION hint: if strip > 0: the last warp calls wait_for_values_above(row_above_words + my_words, first_read, top, status) unless above_in_cluster (then top is there already), and copies top into row_above_shared; then EVERY warp (outside any if on the warp) calls __syncthreads(); then the other warps read top from row_above_shared
            if (strip > 0) {
                if (last_warp) {
                    if (!above_in_cluster) wait_for_values_above(row_above_words + my_words, first_read, top, status);
#pragma unroll
                    for (int j = 0; j < V; ++j) row_above_shared[lane * V + j] = top[j];
                }
                __syncthreads();  // the others are waiting here anyway: it costs them nothing
                if (!last_warp)
#pragma unroll
                    for (int j = 0; j < V; ++j) top[j] = row_above_shared[lane * V + j];
            }
            // END SOLUTION
            add_row_above(x, top);
            // Hand over first, store after: the strip below waits for this row.
            if (hands_over) {
                // BEGIN SOLUTION hint: publish_values of x[RT - 1] at my_row + my_words
                publish_values(my_row + my_words, x[RT - 1]);
                // END SOLUTION
            }
            if constexpr (C > 1)
                if (hands_over_in_cluster)
                    push_values_below(cg::this_cluster().map_shared_rank(&ring[slot][lane * words_per_lane], rank + 1),
                                      &ring_read, read_seen, seq, x[RT - 1], status);
            store_rows<Vec>(out, s, r0, c, x);
            if (warp % 4 == 3 && lane % (w / V) == 0 && r0 < s.rows && c < s.cols)
                sat::record_tile(trace, s, r0 / w, c / w);  // the tile's last rows are stored
        }
    }
}

// ---- SKSS-warp: every warp owns a strip of 32 rows and walks it one tile at a time -----------
// The paper's warp-wise SKSS: no block barrier at all; a warp's only partners are the warps
// that own the strips above and below it.
template <class In, class Out, int WPB>
__global__ void __launch_bounds__(WPB * w)
skss_warp(const In* __restrict__ in, Out* __restrict__ out, sat::Shape s,
          unsigned* ticket_counter, unsigned* strip_progress, int* status,
          unsigned long long* trace) {
    using A = sat::Acc<Out>;  // integer sums wrap modulo 2^32 (unsigned: defined)
    __shared__ A transpose_buffer[WPB][w][w + 1];
    const int lane = threadIdx.x % w;
    [[maybe_unused]] const int warp = threadIdx.x / w;
    const unsigned strips = unsigned(ceil_div(s.rows, w));
    const int tiles_x = ceil_div(s.cols, w);

    for (;;) {
        unsigned strip = strips;
        // BEGIN SOLUTION hint: lane 0 takes a ticket with atomicAdd(ticket_counter, 1); strip = __shfl_sync(full_mask, ticket, 0)
        unsigned ticket = 0;
        if (lane == 0) ticket = atomicAdd(ticket_counter, 1u);
        strip = __shfl_sync(full_mask, ticket, 0);
        // END SOLUTION
        if (strip >= strips) return;  // the whole warp leaves together

        const int r0 = int(strip) * w;
        [[maybe_unused]] unsigned* my_progress = strip_progress + strip;
        A row_carry = 0;
        A raw[w], data[w];
        sat::load_register_tile(in, s, r0, 0, lane, raw);
        for (int tile_col = 0; tile_col < tiles_x; ++tile_col) {
            const int c0 = tile_col * w;
#pragma unroll
            for (int j = 0; j < w; ++j) data[j] = raw[j];
            if (tile_col + 1 < tiles_x) sat::load_register_tile(in, s, r0, c0 + w, lane, raw);  // look ahead

            // BEGIN SOLUTION hint: column scan (lane = column, data[j] = row j: data[j] += data[j-1]); row_scan_with_carry(data, row_carry, transpose_buffer[warp], lane); int ready = 1; if strip > 0, lane 0: ready = wait_for_strip_above(my_progress - 1, tile_col, status) (strip 0 has nothing above: it must not wait); ready = __shfl_sync(full_mask, ready, 0); __syncwarp(); if (!ready) return (the whole warp); data[j] += row_above(out, s, r0, c0 + lane) for every j
#pragma unroll
            for (int j = 1; j < w; ++j) data[j] += data[j - 1];
            row_scan_with_carry(data, row_carry, transpose_buffer[warp], lane);

            int ready = 1;
            if (lane == 0 && strip > 0) ready = wait_for_strip_above(my_progress - 1, tile_col, status);
            ready = __shfl_sync(full_mask, ready, 0);
            __syncwarp();
            if (!ready) return;  // timed out: the warp leaves (no block barrier here), output stays wrong

            const A top = A(row_above(out, s, r0, c0 + lane));
#pragma unroll
            for (int j = 0; j < w; ++j) data[j] += top;
            // END SOLUTION

            sat::store_register_tile(out, s, r0, c0, lane, data);
            if (lane == 0) sat::record_tile(trace, s, int(strip), tile_col);

            // BEGIN SOLUTION hint: every lane __threadfence(); __syncwarp(); lane 0: publish_progress(my_progress, tile_col + 1)
            __threadfence();
            __syncwarp();
            if (lane == 0) publish_progress(my_progress, tile_col + 1);
            // END SOLUTION
        }
    }
}

// ---- Host side: one worker per strip, however many the GPU holds at once (the ticket decides
// who goes first). Scratch, zeroed: the ticket counter, then the hand-over words or flags.

template <int C, class In, class Out>
void skss_clustered(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream) {
    constexpr int V = sat::vec_of<sat::Acc<Out>>();
    const int strips = ceil_div(s.rows, strip_rows);
    unsigned* ticket_counter = ws.get_zeroed<unsigned>(1, stream);
    // The last row of every strip but the last, padded to whole steps; zero = not there yet.
    handover_word* handover = ws.get_zeroed<handover_word>(
        std::size_t(strips - 1) * ceil_div(s.cols, w * V) * w * words_per_lane + 1, stream);
    auto kernel = rows_take_vectors<V>(in, out, s) ? skss_block<In, Out, true, C> : skss_block<In, Out, false, C>;
    if constexpr (C == 1) {
        kernel<<<strips, NW * w, 0, stream>>>(in, out, s, ticket_counter, handover, ws.status, ws.trace);
    } else {
        // A cluster launch: the grid is whole clusters; a block without a strip only waits.
        SAT_CUDA(sat::launch_clusters(kernel, unsigned(ceil_div(strips, C) * C), NW * w, C, stream,
                                      in, out, s, ticket_counter, handover, ws.status, ws.trace));
    }
    SAT_CHECK_LAUNCH("skss_block");
}

template <class In, class Out>
void skss(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream) {
    skss_clustered<1>(in, out, s, ws, stream);
}

template <class In, class Out>
void skss_cluster(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream) {
    skss_clustered<skss_cluster_blocks>(in, out, s, ws, stream);
}

template <class In, class Out>
void skss_warp_wise(const In* in, Out* out, sat::Shape s, sat::Workspace& ws,
                    cudaStream_t stream) {
    constexpr int WPB = warp_variant_warps_per_block;
    const int strips = ceil_div(s.rows, w);
    unsigned* counters = ws.get_zeroed<unsigned>(1 + std::size_t(strips), stream);
    skss_warp<In, Out, WPB><<<ceil_div(strips, WPB), WPB * w, 0, stream>>>(
        in, out, s, counters, counters + 1, ws.status, ws.trace);
    SAT_CHECK_LAUNCH("skss_warp");
}

}  // namespace lab8

SAT_REGISTER_LAB(([] {
    // SKSS-warp's task graph is 1R1W's (lab 5), so it shares 1R1W's formula; spin waits are no
    // kernel boundaries (Barrier::none): the prediction uses the bandwidth term only.
    sat::Variant block_wise = SAT_VARIANT(
        "SKSS", "SKSS", "16 warps per 128-row strip (ticket order), 16-byte accesses, tagged-row hand-over",
        lab8::skss);
    sat::Variant warp_wise = SAT_VARIANT(
        "SKSS-warp", "1R1W", "a warp per 32-row strip (ticket order), one 32x32 tile a step",
        lab8::skss_warp_wise);
    sat::Variant cluster = SAT_VARIANT(
        "SKSS-cluster", "SKSS", "SKSS with 2-block clusters: hand-overs inside a cluster through distributed shared memory",
        lab8::skss_cluster);
    block_wise.barrier = warp_wise.barrier = cluster.barrier = sat::Barrier::none;
    return sat::lab_info(8, "SKSS: one kernel, a ticket per strip, soft synchronization",
                         "Funasaka et al. 2017, sections IV and V-B", {block_wise, warp_wise, cluster});
}()));
