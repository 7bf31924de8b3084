// Lab 8 — Single Kernel Soft Synchronization (Funasaka, Nakano, Ito 2017, sections IV, V-B).
//
// The SAT as a fair task array: task t(i, j) computes step j of strip i (a band of rows times a
// band of columns: 32 x 32 in SKSS-warp, 128 x 32V in SKSS). It needs t(i, j-1) (the same strip,
// to its left) and t(i-1, j) (the strip above). One kernel does everything:
//
//   * a worker (a CUDA block in "SKSS", a warp in "SKSS-warp") takes the next strip number
//     from a global ticket counter with atomicAdd, so strips are handed out in the order the
//     workers actually start: the strip above is always owned by a worker that is already
//     running, whatever order the hardware dispatches blocks in, and however many there are;
//   * it walks its strip left to right; the carry from the left stays in registers;
//   * before it finishes a step it waits until the strip above has handed over the last row
//     above it (soft synchronization), adds it, hands over its own last row (SKSS first, then
//     stores; SKSS-warp stores, then signals).
//
// SKSS-cluster (past the paper, Hopper): SKSS with pairs of strips in a thread-block cluster;
// inside a pair the hand-over goes through distributed shared memory, which halves the hand-overs
// that cross L2 and so the pipeline fill.
//
// Two hand-overs are shown:
//   SKSS-warp (the paper's): a progress flag per strip; the data is read from `out`. The flag
//     needs a fence and release/acquire ordering: a fence, then two L2 round trips (flag, data).
//   SKSS (block-wise): the last row itself, each value in a 64-bit word together with a
//     non-zero tag: one word is one atomic store, so the tag cannot arrive without its value —
//     no fence, one round trip. The input is loaded and everything that does not need the
//     strip above is computed before the wait, so the wait only covers the hand-over.
// The time is about (strips - 1) * L + steps * t_step (L: the hand-over latency from one strip
// to the next, docs/lab8.md); t_step is the step's own work around its memory accesses, so SKSS
// moves the bytes with 16-byte accesses and keeps the arithmetic between them short.
//
// Tile math (w = 32). With R0 the first row of the strip:
//   V[r][c]  = sum_{R0 <= r' <= r} a[r'][c]                 column scan inside the strip
//   b[r][c]  = b[R0-1][c] + sum_{c' <= c} V[r][c']          row scan with a carry from the left
// so the strip above contributes one row, b[R0-1][.].
#include <cooperative_groups.h>
#include <cuda/atomic>

#include "sat.h"
#include "device.cuh"

namespace lab8 {

using sat::ceil_div;
using sat::w;

[[maybe_unused]] constexpr unsigned full_mask = 0xffffffffu;

constexpr int warp_variant_warps_per_block = 2;  // 64-thread blocks, as in the paper
// Strips per cluster in SKSS-cluster. An H200 holds 66 clusters of 2 one-block-per-SM blocks at
// once but only 30 of 4 (120 SMs): with 4, a 16384-row matrix's 128 strips do not all fit (0.87 ms).
constexpr int skss_cluster_blocks = 2;


// Progress of a strip: how many of its tile columns are in `out` (0 .. tiles_x). Written with
// release semantics after the data, read with acquire semantics before the data.
using progress_ref = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;

// ---- SKSS-warp's per-tile work ---------------------------------------------------------------

// data[j] = tile[j][lane] becomes data[j] = tile[lane][j] through a 32 x 33 buffer (lab 7).
template <class T>
__device__ __forceinline__ void transpose_in_registers(T (&data)[w], T (*buffer)[w + 1],
                                                       int lane) {
#pragma unroll
    for (int j = 0; j < w; ++j) buffer[j][lane] = data[j];
    __syncwarp();
#pragma unroll
    for (int j = 0; j < w; ++j) data[j] = buffer[lane][j];
    __syncwarp();
}

// Coalesced load, lane = column, zeros outside the matrix (they change no sum inside it).
template <class In, class Out>
__device__ __forceinline__ void load_tile(const In* __restrict__ in, sat::Shape s, int r0,
                                          int c0, int lane, Out (&data)[w]) {
    const int c = c0 + lane;
    const bool column_inside = c < s.cols;
#pragma unroll
    for (int j = 0; j < w; ++j) {
        const int r = r0 + j;
        data[j] = (column_inside && r < s.rows) ? Out(in[std::size_t(r) * s.cols + c]) : Out(0);
    }
}

template <class Out>
__device__ __forceinline__ void store_tile(Out* out, sat::Shape s, int r0, int c0, int lane,
                                           const Out (&data)[w]) {
    const int c = c0 + lane;
    if (c >= s.cols) return;
#pragma unroll
    for (int j = 0; j < w; ++j)
        if (r0 + j < s.rows) out[std::size_t(r0 + j) * s.cols + c] = data[j];
}

// Row scan of the tile (lane = column on entry and exit) with a carry from the tiles on the
// left: transpose so that a thread holds a row, scan serially, transpose back (lab 7's way).
template <class Out>
__device__ __forceinline__ void row_scan_with_carry(Out (&data)[w], Out& row_carry,
                                                    Out (*buffer)[w + 1], int lane) {
    // BEGIN SOLUTION hint: transpose, then data[0] += row_carry and a serial scan, row_carry = data[31], transpose back
    transpose_in_registers(data, buffer, lane);  // lane = row, data[j] = column c0+j
    data[0] += row_carry;
#pragma unroll
    for (int j = 1; j < w; ++j) data[j] += data[j - 1];
    row_carry = data[w - 1];
    transpose_in_registers(data, buffer, lane);  // lane = column again
    // END SOLUTION
}

// ---- Hand-over by flag + fence (SKSS-warp, the paper's) -------------------------------------

// One thread waits until the progress word of the strip above reaches step + 1. Returns false
// if the wait timed out (a flag that never comes) or another worker already gave up.
__device__ __forceinline__ bool wait_for_strip_above(unsigned* progress_above, int step,
                                                     int* status) {
    bool ready = false;
    // BEGIN SOLUTION hint: sat::bounded_spin until an acquire load of *progress_above exceeds step
    progress_ref progress(*progress_above);
    ready = sat::bounded_spin(
        [&] { return progress.load(cuda::memory_order_acquire) > unsigned(step); }, status);
    // END SOLUTION
    return ready;
}

// Called by one thread after the stores it announces are fenced.
__device__ __forceinline__ void publish_progress(unsigned* my_progress, int steps_done) {
    // BEGIN SOLUTION hint: release-store steps_done into *my_progress
    progress_ref(*my_progress).store(unsigned(steps_done), cuda::memory_order_release);
    // END SOLUTION
}

// The last row of the strip above, b[R0-1][c], read from `out` (0 for the first strip).
// __ldcg reads at L2, where the other SM's stores are, never a stale L1 line.
template <class Out>
__device__ __forceinline__ Out row_above(const Out* out, sat::Shape s, int strip_top, int c) {
    if (strip_top == 0 || c >= s.cols) return Out(0);
    return __ldcg(out + std::size_t(strip_top - 1) * s.cols + c);
}

// ---- Hand-over of a whole row in tagged words (SKSS) -----------------------------------------
//
// Strip i publishes b[last row of strip i][c] for every column c as 64-bit words: the value's
// bits (f64: one half of them) in the low 32 bits, tag 1 in the high 32 (the buffer starts
// zeroed). A 64-bit store is single-copy atomic, so a reader that sees the tag sees the value
// that came with it: no fence. A lane's V columns are 16 bytes of values, so 4 words, moved as
// two 16-byte accesses (a vector access is two 64-bit words, each atomic by itself).
using handover_word = unsigned long long;
[[maybe_unused]] constexpr handover_word handover_tag = 1ull << 32;
constexpr int words_per_lane = 4;

__device__ __forceinline__ void load_word_pair(const handover_word* p, handover_word& a,
                                               handover_word& b) {
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}
__device__ __forceinline__ void store_word_pair(handover_word* p, handover_word a, handover_word b) {
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
}

// A lane's 4 words of a hand-over row (two 16-byte reads).
__device__ __forceinline__ void load_words(const handover_word* p, handover_word (&words)[words_per_lane]) {
    load_word_pair(p, words[0], words[1]);
    load_word_pair(p + 2, words[2], words[3]);
}

// One lane hands over its V values of the strip's last row.
template <class A, int V>
__device__ __forceinline__ void publish_values(handover_word* words, const A (&values)[V]) {
    static_assert(sizeof(values) == words_per_lane * 4, "16 bytes of values per lane");
    // BEGIN SOLUTION hint: split the 16 bytes into four 32-bit pieces; store (handover_tag | piece) with store_word_pair, twice
    unsigned pieces[words_per_lane];
    memcpy(pieces, values, sizeof(pieces));
    store_word_pair(words, handover_tag | pieces[0], handover_tag | pieces[1]);
    store_word_pair(words + 2, handover_tag | pieces[2], handover_tag | pieces[3]);
    // END SOLUTION
}

// A lane's 4 words are all there when each carries the tag; their low halves are its V values.
__device__ __forceinline__ bool all_tagged(const handover_word (&words)[words_per_lane]) {
    return (words[0] & words[1] & words[2] & words[3] & handover_tag) != 0;
}
template <class A, int V>
__device__ __forceinline__ void unpack_values(const handover_word (&words)[words_per_lane],
                                              A (&values)[V]) {
    unsigned pieces[words_per_lane];
    for (int k = 0; k < words_per_lane; ++k) pieces[k] = unsigned(words[k]);
    memcpy(values, pieces, sizeof(pieces));
}

// One lane of the polling warp waits until its 4 words of the row above carry their tag and
// returns its V values. first_read holds the words as read at the start of the step: if the strip
// above is ahead, they are all there and the wait costs no round trip. Every lane waits for its
// own columns: no lane waits for another, so a lane that gives up (false: a timeout, the status
// says so) can never leave the others stuck.
template <class A, int V>
__device__ __forceinline__ bool wait_for_values_above(const handover_word* words,
                                                      const handover_word (&first_read)[words_per_lane],
                                                      A (&values)[V], int* status) {
    handover_word got[words_per_lane] = {};
    bool ready = false;
    // BEGIN SOLUTION hint: if all_tagged(first_read), unpack_values from it and return true; otherwise sat::bounded_spin over a lambda that reads the 4 words into got (load_words) and checks all_tagged(got)
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

// ---- Hand-over inside a thread-block cluster (SKSS-cluster, past the paper) -------------------
//
// Hopper groups C blocks into a cluster that runs at once on neighbouring SMs, and a block can
// store into another's shared memory (distributed shared memory): a hand-over then costs a trip
// across the GPC instead of two through L2. The block of strip i pushes its last row into a ring
// of ring_steps slots in the shared memory of strip i+1's block; each word carries the step's
// sequence number as its tag (the ring is reused, so tag 1 would not do). The block below gives
// a slot back by storing the last sequence number it has read into `ring_read` of the block above.
// Relaxed stores are enough there too: the block below stores that number only after every lane
// has checked the tags of what it read, so those reads are over; a release store (a fence that
// waits for the warp's outstanding global loads) made the kernel 7 % slower.
namespace cg = cooperative_groups;
constexpr int ring_steps = 8;
// A poll of the block's own shared memory is a shared-memory read, no L2 round trip: no sleeping
// between polls, and the status word (an L2 round trip) only every 256th.
constexpr unsigned ring_poll_sleep_ns = 0, ring_polls_per_status_check = 256;
constexpr int ring_slot_words = w * words_per_lane;  // one step's hand-over row

__device__ __forceinline__ void store_word_pair_cluster(handover_word* p, handover_word a,
                                                        handover_word b) {
    asm volatile("st.relaxed.cluster.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
}
__device__ __forceinline__ void load_word_pair_cluster(const handover_word* p, handover_word& a,
                                                       handover_word& b) {
    asm volatile("ld.relaxed.cluster.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}
__device__ __forceinline__ void store_relaxed_cluster(unsigned* p, unsigned v) {
    asm volatile("st.relaxed.cluster.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned load_relaxed_cluster(const unsigned* p) {
    unsigned v;
    asm volatile("ld.relaxed.cluster.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

// The tags of a lane's 4 words all equal `seq`.
__device__ __forceinline__ bool all_tagged_with(const handover_word (&words)[words_per_lane],
                                                unsigned seq) {
    bool tagged = true;
    for (int k = 0; k < words_per_lane; ++k) tagged &= unsigned(words[k] >> 32) == seq;
    return tagged;
}

// One lane pushes its V values of step `seq` into the ring slot of the block below (a pointer
// into that block's shared memory), once that block has given the slot back. read_seen: the
// last ring_read this lane saw (it only grows), so most steps need no look at ring_read at all.
template <class A, int V>
__device__ __forceinline__ bool push_values_below(handover_word* slot_below, const unsigned* ring_read,
                                                  unsigned& read_seen, unsigned seq,
                                                  const A (&values)[V], int* status) {
    const auto slot_free = [&] { return (read_seen = load_relaxed_cluster(ring_read)) + ring_steps >= seq; };
    if (read_seen + ring_steps < seq &&
        !sat::bounded_spin<ring_poll_sleep_ns, ring_polls_per_status_check>(slot_free, status))
        return false;
    unsigned pieces[words_per_lane];
    memcpy(pieces, values, sizeof(pieces));
    const handover_word tag = handover_word(seq) << 32;
    store_word_pair_cluster(slot_below, tag | pieces[0], tag | pieces[1]);
    store_word_pair_cluster(slot_below + 2, tag | pieces[2], tag | pieces[3]);
    return true;
}

// One lane of the polling warp waits for its 4 words of step `seq` in its own ring slot.
template <class A, int V>
__device__ __forceinline__ bool wait_for_values_in_ring(const handover_word* slot, unsigned seq,
                                                        A (&values)[V], int* status) {
    handover_word got[words_per_lane];
    const bool ready = sat::bounded_spin<ring_poll_sleep_ns, ring_polls_per_status_check>(
        [&] {
            load_word_pair_cluster(slot, got[0], got[1]);
            load_word_pair_cluster(slot + 2, got[2], got[3]);
            return all_tagged_with(got, seq);
        },
        status);
    unpack_values(got, values);
    return ready;
}

// Rank 0 of the cluster takes one ticket for the cluster and writes it into every block's
// shared memory; the cluster barrier publishes it and also ends the previous round's traffic
// between the blocks (rings, ring_read). Two slots: the next round writes the other one, so no
// block can still be reading the slot being written.
template <int C>
__device__ __forceinline__ unsigned take_cluster_ticket(unsigned* ticket_counter,
                                                        unsigned (&shared_ticket)[2], unsigned round) {
    cg::cluster_group cluster = cg::this_cluster();
    if (cluster.block_rank() == 0 && threadIdx.x == 0) {
        const unsigned ticket = atomicAdd(ticket_counter, 1u);
        for (int r = 0; r < C; ++r) *cluster.map_shared_rank(&shared_ticket[round % 2], r) = ticket;
    }
    cluster.sync();
    return shared_ticket[round % 2];
}

// ---- SKSS, block-wise ------------------------------------------------------------------------
//
// A block is NW warps stacked vertically. A thread owns RT rows x V adjacent columns (V values
// make 16 bytes), so a warp covers RT rows x 32V columns and the block's strip is NW * RT = 128
// rows, walked 32V columns a step (128; 64 for f64) — 4 x 4 (4 x 2) tiles of 32 x 32. Every load
// and store is one 16-byte access per thread and row: a warp moves 512 contiguous bytes.
//
// Inside a step the sums run the short way round: a thread's own RT x V corner serially, the
// lanes to the left with warp shuffles, the warps above through shared memory (a block barrier)
// and the steps to the left with a per-row carry in registers. The strip above
// comes last: the last warp, which owns the strip's bottom row, alone polls the hand-over (every
// warp polling would put 16x the traffic on the words being written) and passes the row to the
// other warps through shared memory and a second block barrier.
constexpr int RT = 8;   // rows per thread
constexpr int NW = 16;  // warps per block: a strip of NW * RT = 128 rows
constexpr int strip_rows = NW * RT;

// RT rows of V values at (r, c), zeros outside the matrix, into the look-ahead buffer. Vec: every
// row starts 16-byte aligned (cols a multiple of V), so V columns are all in or all out, and a
// row is one access whose loaded vector waits in `bits` until the step widens it (widen_rows);
// otherwise element by element into accumulators (odd widths: correct, not fast).
template <class In, class Bits>
__device__ __forceinline__ void load_rows(const In* __restrict__ in, sat::Shape s, int r, int c,
                                          Bits (&bits)[RT]) {
#pragma unroll
    for (int i = 0; i < RT; ++i)
        bits[i] = r + i < s.rows && c < s.cols ? sat::load_bits(in + std::size_t(r + i) * s.cols + c) : Bits{};
}
template <class In, class A, int V>
__device__ __forceinline__ void load_rows(const In* __restrict__ in, sat::Shape s, int r, int c,
                                          A (&x)[RT][V]) {
#pragma unroll
    for (int i = 0; i < RT; ++i) {
        const bool inside = r + i < s.rows && c < s.cols;
        const In* row = in + (inside ? std::size_t(r + i) * s.cols + c : 0);
#pragma unroll
        for (int j = 0; j < V; ++j) x[i][j] = (inside && c + j < s.cols) ? A(row[j]) : A(0);
    }
}
template <class Bits, class A, int V>
__device__ __forceinline__ void widen_rows(const Bits (&bits)[RT], A (&x)[RT][V]) {
#pragma unroll
    for (int i = 0; i < RT; ++i) sat::widen(bits[i], x[i]);
}
template <class A, int V>
__device__ __forceinline__ void widen_rows(const A (&loaded)[RT][V], A (&x)[RT][V]) {
#pragma unroll
    for (int i = 0; i < RT; ++i)
#pragma unroll
        for (int j = 0; j < V; ++j) x[i][j] = loaded[i][j];
}

template <bool Vec, class Out, class A, int V>
__device__ __forceinline__ void store_rows(Out* __restrict__ out, sat::Shape s, int r, int c,
                                           const A (&x)[RT][V]) {
#pragma unroll
    for (int i = 0; i < RT; ++i) {
        if (r + i >= s.rows || c >= s.cols) break;
        Out* row = out + std::size_t(r + i) * s.cols + c;
        if constexpr (Vec) {
            sat::store_vec(row, x[i]);
        } else {
#pragma unroll
            for (int j = 0; j < V; ++j)
                if (c + j < s.cols) row[j] = Out(x[i][j]);
        }
    }
}

// The part of a step that needs nothing from the strip above. On entry x holds the thread's raw
// RT x V values; on exit x[i][j] = the sum over the strip's rows down to this one and over every
// column up to this one. row_carry[i] brings the columns left of the step in and leaves with
// those up to the step's last column. column_totals is this step's half of a double buffer, so
// the next step's writes cannot meet this step's reads: one block barrier.
template <class A, int V>
__device__ __forceinline__ void strip_local_sums(A (&x)[RT][V], A (&row_carry)[RT],
                                                 A (*column_totals)[w * V], int warp, int lane) {
    // BEGIN SOLUTION hint: the thread's own 2-D prefix; add the lanes to the left (exclusive warp scan of each row's last value); bottom row to column_totals, barrier, add the warps above and row_carry; row_carry = lane 31's last column
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

// Every row of the step gets the strip above's last row, column by column.
template <class A, int V>
__device__ __forceinline__ void add_row_above(A (&x)[RT][V], const A (&top)[V]) {
#pragma unroll
    for (int i = 0; i < RT; ++i)
#pragma unroll
        for (int j = 0; j < V; ++j) x[i][j] += top[j];
}

// C = 1: SKSS, every hand-over through global memory. C > 1: SKSS-cluster, a cluster of C blocks
// takes C strips at once; the hand-overs inside it go through distributed shared memory and only
// its last block hands over through global memory to the next cluster's first.
template <class In, class Out, bool Vec, int C>
__global__ void __launch_bounds__(NW * w)
skss_block(const In* __restrict__ in, Out* __restrict__ out, sat::Shape s,
           unsigned* ticket_counter, handover_word* handover, int* status,
           unsigned long long* trace) {
    using A = sat::Acc<Out>;
    constexpr int V = sat::vec_of<A>();
    constexpr int step_cols = w * V;
    __shared__ __align__(16) A column_totals[2][NW][step_cols];
    // The strip above's last row at this step. One buffer is enough: it is rewritten only after
    // the next step's first block barrier, which every reader passes after reading it.
    [[maybe_unused]] __shared__ __align__(16) A row_above_shared[step_cols];
    [[maybe_unused]] __shared__ unsigned shared_strip;
    // SKSS-cluster only (a single slot otherwise): the ring the block above pushes into, how far
    // the block below has read this block's pushes, and the cluster's ticket.
    [[maybe_unused]] __shared__ __align__(16) handover_word ring[C > 1 ? ring_steps : 1][ring_slot_words];
    [[maybe_unused]] __shared__ unsigned ring_read;
    [[maybe_unused]] __shared__ unsigned shared_ticket[2];
    const int lane = threadIdx.x % w;
    const int warp = threadIdx.x / w;
    const bool last_warp = warp == NW - 1;
    const unsigned strips = unsigned(ceil_div(s.rows, strip_rows));
    const int steps = ceil_div(s.cols, step_cols);
    // One hand-over row per strip, padded to whole steps: every lane has its 4 words.
    const std::size_t handover_row = std::size_t(steps) * w * words_per_lane;
    // The block's place in its cluster: rank 0 hears from the strip above through global memory.
    [[maybe_unused]] unsigned rank = 0;
    if constexpr (C > 1) {
        rank = cg::this_cluster().block_rank();
        // Stale tags from an earlier kernel could match this one's: clear the ring first.
        for (int k = threadIdx.x; k < ring_steps * ring_slot_words; k += NW * w) ring[0][k] = 0;
        if (threadIdx.x == 0) ring_read = 0;
        cg::this_cluster().sync();  // ... and before any block of the cluster stores into it
    }

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
            // BEGIN SOLUTION hint: thread 0 writes atomicAdd(ticket_counter, 1) to shared_strip; __syncthreads(); everyone reads it; __syncthreads() (before thread 0 may write the next one)
            if (threadIdx.x == 0) shared_strip = atomicAdd(ticket_counter, 1u);
            __syncthreads();
            strip = shared_strip;
            __syncthreads();  // everyone has read it before thread 0 may take the next ticket
            // END SOLUTION
            if (strip >= strips) return;
        }

        const int r0 = int(strip) * strip_rows + warp * RT;  // this thread's rows r0 .. r0+RT-1
        handover_word* my_row = handover + std::size_t(strip) * handover_row;
        [[maybe_unused]] const handover_word* row_above_words =
            strip > 0 ? my_row - handover_row : nullptr;
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

            // The first read of the strip above's words for this step goes out now, so that its
            // round trip overlaps the step's own sums (last warp only: see above).
            handover_word first_read[words_per_lane] = {};
            if (strip > 0 && last_warp && !above_in_cluster) load_words(row_above_words + my_words, first_read);
            [[maybe_unused]] const unsigned seq = round * unsigned(steps) + unsigned(step) + 1;  // ring tag
            [[maybe_unused]] const int slot = step % ring_steps;

            strip_local_sums(x, row_carry, column_totals[step % 2], warp, lane);

            // Soft synchronization: the first moment the strip above is needed. On a timeout
            // carry on without it: the output is wrong and the status says why (leaving here
            // would strand the other warps at a barrier).
            A top[V] = {};
            // SKSS-cluster: a block below another of its cluster finds the row above in its own
            // ring; it gives the slot back once every lane has read it.
            if constexpr (C > 1)
                if (strip > 0 && last_warp && above_in_cluster) {
                    wait_for_values_in_ring(&ring[slot][lane * words_per_lane], seq, top, status);
                    __syncwarp();
                    if (lane == 0) store_relaxed_cluster(cg::this_cluster().map_shared_rank(&ring_read, rank - 1), seq);
                }
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
    __shared__ Out transpose_buffer[WPB][w][w + 1];
    const int lane = threadIdx.x % w;
    [[maybe_unused]] const int warp = threadIdx.x / w;
    const unsigned strips = unsigned(ceil_div(s.rows, w));
    const int tiles_x = ceil_div(s.cols, w);

    for (;;) {
        unsigned strip = strips;
        // BEGIN SOLUTION hint: lane 0 takes a ticket with atomicAdd, __shfl_sync shares it with the warp
        unsigned ticket = 0;
        if (lane == 0) ticket = atomicAdd(ticket_counter, 1u);
        strip = __shfl_sync(full_mask, ticket, 0);
        // END SOLUTION
        if (strip >= strips) return;  // the whole warp leaves together

        const int r0 = int(strip) * w;
        [[maybe_unused]] unsigned* my_progress = strip_progress + strip;
        Out row_carry = 0;
        Out raw[w], data[w];
        load_tile(in, s, r0, 0, lane, raw);
        for (int tile_col = 0; tile_col < tiles_x; ++tile_col) {
            const int c0 = tile_col * w;
#pragma unroll
            for (int j = 0; j < w; ++j) data[j] = raw[j];
            if (tile_col + 1 < tiles_x) load_tile(in, s, r0, c0 + w, lane, raw);  // look ahead

            // BEGIN SOLUTION hint: column scan, row scan with carry; lane 0 waits for the strip above (wait_for_strip_above); ready = __shfl_sync(full_mask, ready, 0); __syncwarp(); if (!ready) return (the whole warp); add row_above(out, s, r0, c0 + lane) to every row
#pragma unroll
            for (int j = 1; j < w; ++j) data[j] += data[j - 1];
            row_scan_with_carry(data, row_carry, transpose_buffer[warp], lane);

            int ready = 1;
            if (lane == 0 && strip > 0) ready = wait_for_strip_above(my_progress - 1, tile_col, status);
            ready = __shfl_sync(full_mask, ready, 0);
            __syncwarp();
            if (!ready) return;  // timed out: the warp leaves (no block barrier here), output stays wrong

            const Out top = row_above(out, s, r0, c0 + lane);
#pragma unroll
            for (int j = 0; j < w; ++j) data[j] += top;
            // END SOLUTION

            store_tile(out, s, r0, c0, lane, data);
            if (lane == 0) sat::record_tile(trace, s, int(strip), tile_col);

            // BEGIN SOLUTION hint: every lane __threadfence(), __syncwarp(), lane 0 publishes tile_col + 1
            __threadfence();
            __syncwarp();
            if (lane == 0) publish_progress(my_progress, tile_col + 1);
            // END SOLUTION
        }
    }
}

// ---- Host side -------------------------------------------------------------------------------
//
// One worker per strip: the grid does not depend on how many blocks the GPU can hold, which
// is exactly why the ticket matters (most of a large grid is not resident at first).
// Scratch, all zero at the start: the ticket counter; then SKSS's hand-over words, or
// SKSS-warp's progress word per strip.

template <int C, class In, class Out>
void skss_clustered(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream) {
    constexpr int V = sat::vec_of<sat::Acc<Out>>();
    const int strips = ceil_div(s.rows, strip_rows);
    unsigned* ticket_counter = ws.get_zeroed<unsigned>(1, stream);
    // The last row of every strip but the last, padded to whole steps; zero = not there yet.
    handover_word* handover = ws.get_zeroed<handover_word>(
        std::size_t(strips - 1) * ceil_div(s.cols, w * V) * w * words_per_lane + 1, stream);
    // 16-byte accesses need every row to start 16-byte aligned (u8 input: 4-byte).
    const bool vec = s.cols % V == 0 &&
                     reinterpret_cast<std::uintptr_t>(in) % (V * sizeof(In)) == 0 &&
                     reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
    auto kernel = vec ? skss_block<In, Out, true, C> : skss_block<In, Out, false, C>;
    if constexpr (C == 1) {
        kernel<<<strips, NW * w, 0, stream>>>(in, out, s, ticket_counter, handover, ws.status, ws.trace);
    } else {
        // A cluster launch: the grid is whole clusters; a block without a strip only waits.
        cudaLaunchConfig_t config = {};
        config.gridDim = dim3(unsigned(ceil_div(strips, C) * C));
        config.blockDim = dim3(NW * w);
        config.stream = stream;
        cudaLaunchAttribute cluster_shape = {};
        cluster_shape.id = cudaLaunchAttributeClusterDimension;
        cluster_shape.val.clusterDim.x = C;
        cluster_shape.val.clusterDim.y = cluster_shape.val.clusterDim.z = 1;
        config.attrs = &cluster_shape;
        config.numAttrs = 1;
        SAT_CUDA(cudaLaunchKernelEx(&config, kernel, in, out, s, ticket_counter, handover,
                                    ws.status, ws.trace));
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
    sat::LabInfo lab;
    lab.number = 8;
    lab.title = "SKSS: one kernel, a ticket per strip, soft synchronization";
    lab.source = "Funasaka et al. 2017, sections IV and V-B";
    // SKSS-warp's task graph is 1R1W's (lab 5): w x w tiles, a critical path of H/w + W/w
    // tiles, so it shares 1R1W's cost formula; only its l is a flag hand-over, not a launch.
    // Spin waits are no kernel boundaries: the prediction uses the bandwidth term only.
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
    lab.variants = {block_wise, warp_wise, cluster};
    lab.default_shapes = {{1024, 1024}, {4096, 4096}, {16384, 16384}};
    return lab;
}()));
