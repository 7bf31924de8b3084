// skss.cuh — lab 8's plumbing around its kernels (solutions/lab8_skss.cu): the tagged 64-bit
// words a strip hands its last row over in (SKSS), the ring in distributed shared memory that
// SKSS-cluster hands over through inside a cluster, and SKSS's block shape with the loads and
// stores of a thread's RT x V piece. The hand-over protocol the student writes (publish_values,
// wait_for_values_above) and the kernels stay in the lab file.
#pragma once

#include <cooperative_groups.h>

#include <cstdint>
#include <cstring>

#include "device.cuh"

namespace lab8 {

using sat::w;

constexpr int warp_variant_warps_per_block = 2;  // SKSS-warp: 64-thread blocks, as in the paper
// Strips per cluster in SKSS-cluster. An H200 holds 66 clusters of 2 one-block-per-SM blocks at
// once but only 30 of 4 (120 SMs): with 4, a 16384-row matrix's 128 strips do not all fit (0.87 ms).
constexpr int skss_cluster_blocks = 2;

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

// SKSS-cluster: clear this block's ring and its read count before any block of the cluster
// stores into it (stale tags of an earlier kernel could match); returns the block's rank.
template <int threads, int slots>
__device__ __forceinline__ unsigned clear_ring(handover_word (*ring)[slots], unsigned& ring_read) {
    const unsigned rank = cg::this_cluster().block_rank();
    for (int k = threadIdx.x; k < ring_steps * ring_slot_words; k += threads) ring[0][k] = 0;
    if (threadIdx.x == 0) ring_read = 0;
    cg::this_cluster().sync();
    return rank;
}

// SKSS-cluster: the polling warp of a block below another of its cluster takes the row above
// from its ring slot, then gives the slot back (once every lane has read it).
template <class A, int V>
__device__ __forceinline__ void receive_from_ring(const handover_word* slot, unsigned* ring_read,
                                                  unsigned rank, int lane, unsigned seq,
                                                  A (&top)[V], int* status) {
    wait_for_values_in_ring(slot + lane * words_per_lane, seq, top, status);
    __syncwarp();
    if (lane == 0) store_relaxed_cluster(cg::this_cluster().map_shared_rank(ring_read, rank - 1), seq);
}

// The last row of the strip above, b[R0-1][c], read from `out` (0 for the first strip).
// __ldcg reads at L2, where the other SM's stores are, never a stale L1 line.
template <class Out>
__device__ __forceinline__ Out row_above(const Out* out, sat::Shape s, int strip_top, int c) {
    if (strip_top == 0 || c >= s.cols) return Out(0);
    return __ldcg(out + std::size_t(strip_top - 1) * s.cols + c);
}

// ---- SKSS's block shape and a thread's RT x V piece of the strip ------------------------------
// 16-byte accesses need every row to start 16-byte aligned (u8 input: 4-byte).
template <int V, class In, class Out>
bool rows_take_vectors(const In* in, const Out* out, sat::Shape s) {
    return s.cols % V == 0 && reinterpret_cast<std::uintptr_t>(in) % (V * sizeof(In)) == 0 &&
           reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
}
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

// Every row of the step gets the strip above's last row, column by column.
template <class A, int V>
__device__ __forceinline__ void add_row_above(A (&x)[RT][V], const A (&top)[V]) {
#pragma unroll
    for (int i = 0; i < RT; ++i)
#pragma unroll
        for (int j = 0; j < V; ++j) x[i][j] += top[j];
}

}  // namespace lab8
