// Lab 8 — Single Kernel Soft Synchronization (Funasaka, Nakano, Ito 2017, sections IV, V-B).
//
// The SAT as a fair task array: task t(i, j) computes a piece of strip i (a band of rows) at
// tile column j (32 columns). It needs t(i, j-1) (the same strip, to its left) and t(i-1, j)
// (the strip above). One kernel does everything:
//
//   * a worker (a CUDA block in "SKSS", a warp in "SKSS-warp") takes the next strip number
//     from a global ticket counter with atomicAdd, so strips are handed out in the order the
//     workers actually start: the strip above is always owned by a worker that is already
//     running, whatever order the hardware dispatches blocks in, and however many there are;
//   * it walks its strip left to right; the carry from the left stays in registers;
//   * before it finishes a tile it waits until the strip above has handed over the last row
//     above the tile (soft synchronization), adds it, stores, and hands over its own last row.
//
// Two hand-overs are shown:
//   SKSS-warp (the paper's): a progress flag per strip; the data is read from `out`. The flag
//     needs a fence and release/acquire ordering: a fence, then two L2 round trips (flag, data).
//   SKSS (block-wise): the last row itself, each value in a 64-bit word together with a
//     non-zero tag: one word is one atomic store, so the tag cannot arrive without its value —
//     no fence, one round trip. The input tile is loaded and everything that does not need the
//     strip above is computed before the wait, so the wait only covers the hand-over.
//
// Tile math (w = 32). With R0 the first row of the strip:
//   V[r][c]  = sum_{R0 <= r' <= r} a[r'][c]                 column scan inside the strip
//   b[r][c]  = b[R0-1][c] + sum_{c' <= c} V[r][c']          row scan with a carry from the left
// so the strip above contributes one row, b[R0-1][.].
#include <cuda/atomic>

#include "sat.h"
#include "device.cuh"

namespace lab8 {

using sat::ceil_div;
using sat::w;

[[maybe_unused]] constexpr unsigned full_mask = 0xffffffffu;

// The block of "SKSS" is NR x NC warps: a strip of 32*NR rows, walked 32*NC columns a step.
// The time is about (strips - 1) * L + (steps - 1) * t_step (L: the hand-over latency from one
// strip to the next, docs/lab8.md), so both NR and NC want to be large; registers (two tiles a
// thread, for the look-ahead) bound the block to 512 threads (256 for 8-byte types).
template <class Out>
constexpr int block_rows() { return 4; }
template <class Out>
constexpr int block_cols() { return sizeof(Out) <= 4 ? 4 : 2; }
constexpr int warp_variant_warps_per_block = 2;  // 64-thread blocks, as in the paper


// Progress of a strip: how many of its tile columns are in `out` (0 .. tiles_x). Written with
// release semantics after the data, read with acquire semantics before the data.
using progress_ref = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;

// ---- The per-tile work, shared by both variants ----------------------------------------------

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
// left: transpose so that a thread holds a row, scan serially, transpose back (SKSS-warp; the
// block-wise kernel does the same inside strip_local_sums, with the warps' totals in between).
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
// Strip i publishes b[last row of strip i][c] for every column c as words_per<Out> 64-bit words
// (value bits in the low half, tag 1 in the high half; the buffer starts zeroed). A 64-bit
// store is single-copy atomic, so a reader that sees the tag sees the value that came with it.
using handover_word = unsigned long long;
using handover_ref = cuda::atomic_ref<handover_word, cuda::thread_scope_device>;
template <class Out>
constexpr int words_per() { return int(sizeof(Out) / 4); }  // 1 (f32, i32) or 2 (f64)
[[maybe_unused]] constexpr handover_word handover_tag = 1ull << 32;

template <class Out>
__device__ __forceinline__ void publish_value(handover_word* words, Out v) {
    // BEGIN SOLUTION hint: split v into 32-bit halves; relaxed-store each as (handover_tag | half)
    unsigned halves[words_per<Out>()];
    memcpy(halves, &v, sizeof(Out));
#pragma unroll
    for (int k = 0; k < words_per<Out>(); ++k)
        handover_ref(words[k]).store(handover_tag | halves[k], cuda::memory_order_relaxed);
    // END SOLUTION
}

// One lane waits until its column's words of the row above carry their tag and returns the
// value in `value`; false on a timeout. Every lane of a warp waits for its own column: no lane
// waits for another, so a lane that gives up can never leave the others stuck.
template <class Out>
__device__ __forceinline__ bool wait_for_value_above(const handover_word* words, Out& value,
                                                     int* status) {
    handover_word got[words_per<Out>()] = {};
    bool ready = false;
    // BEGIN SOLUTION hint: sat::bounded_spin over a lambda that relaxed-loads the words into got[] and checks every tag
    ready = sat::bounded_spin(
        [&] {
            bool all_tagged = true;
#pragma unroll
            for (int k = 0; k < words_per<Out>(); ++k) {
                got[k] = handover_ref(const_cast<handover_word&>(words[k]))
                             .load(cuda::memory_order_relaxed);
                all_tagged &= (got[k] & handover_tag) != 0;
            }
            return all_tagged;
        },
        status);
    // END SOLUTION
    unsigned halves[words_per<Out>()];
#pragma unroll
    for (int k = 0; k < words_per<Out>(); ++k) halves[k] = unsigned(got[k]);
    memcpy(&value, halves, sizeof(Out));
    return ready;
}

// ---- SKSS, block-wise ------------------------------------------------------------------------
//
// A block is a grid of NR x NC warps, one 32 x 32 tile each: its strip is 32*NR rows high and
// one step covers 32*NC columns. Tall strips make the chain of strips (the pipeline fill)
// short; wide steps make the walk along a strip short. Inside a step the warps combine
// through shared memory: column totals downwards (colT), row totals to the right (rowT).
//
// Shared memory per block (dynamic): NR*NC transpose buffers of 32 x 33, colT and rowT.
template <class Out, int NR, int NC>
struct BlockShared {
    Out transpose[NR * NC][w][w + 1];
    Out column_totals[NR][NC][w];
    Out row_totals[NR][NC][w];
};

// The part of a tile that needs nothing from the strip above: sums over the strip's own rows
// and over everything to the left (row_carry). On entry data is the raw tile (lane = column),
// on exit data[j] = sum_{R0 <= r' <= r0+j} sum_{c' <= c0+lane} a[r'][c']. Two block barriers.
template <class Out, int NR, int NC>
__device__ __forceinline__ void strip_local_sums(Out (&data)[w], Out& row_carry,
                                                 BlockShared<Out, NR, NC>& sh, int tile_r,
                                                 int tile_c, int lane) {
    // BEGIN SOLUTION hint: serial column scan + column totals of the warps above; transpose, serial row scan + row totals of the warps to the left + row_carry; transpose back
#pragma unroll
    for (int j = 1; j < w; ++j) data[j] += data[j - 1];
    sh.column_totals[tile_r][tile_c][lane] = data[w - 1];
    __syncthreads();
    Out above = 0;
    for (int k = 0; k < tile_r; ++k) above += sh.column_totals[k][tile_c][lane];
#pragma unroll
    for (int j = 0; j < w; ++j) data[j] += above;

    Out (*buffer)[w + 1] = sh.transpose[tile_r * NC + tile_c];
    transpose_in_registers(data, buffer, lane);  // lane = row r0+lane, data[j] = column c0+j
#pragma unroll
    for (int j = 1; j < w; ++j) data[j] += data[j - 1];
    sh.row_totals[tile_r][tile_c][lane] = data[w - 1];
    __syncthreads();
    Out left = row_carry;
    Out step_total = 0;
#pragma unroll
    for (int k = 0; k < NC; ++k) {
        const Out t = sh.row_totals[tile_r][k][lane];
        if (k < tile_c) left += t;
        step_total += t;
    }
    row_carry += step_total;  // every warp of the tile row keeps the same carry
#pragma unroll
    for (int j = 0; j < w; ++j) data[j] += left;
    transpose_in_registers(data, buffer, lane);  // lane = column again
    // END SOLUTION
}

template <class In, class Out, int NR, int NC>
__global__ void __launch_bounds__(NR * NC * w)
skss_block(const In* __restrict__ in, Out* __restrict__ out, sat::Shape s,
           unsigned* ticket_counter, handover_word* handover, int* status,
           unsigned long long* trace) {
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    auto& sh = *reinterpret_cast<BlockShared<Out, NR, NC>*>(shared_bytes);
    [[maybe_unused]] __shared__ unsigned shared_strip;
    const int lane = threadIdx.x % w;
    const int warp = threadIdx.x / w;
    const int tile_r = warp / NC, tile_c = warp % NC;  // this warp's place in the block
    const unsigned strips = unsigned(ceil_div(s.rows, NR * w));
    const int steps = ceil_div(s.cols, NC * w);

    for (;;) {
        // Take a strip in ticket order (never blockIdx: a block may start before the one
        // that owns the strip above and would then wait for it forever).
        unsigned strip = strips;  // "no work"
        // BEGIN SOLUTION hint: thread 0 takes a ticket with atomicAdd(ticket_counter, 1) and shares it through shared memory
        if (threadIdx.x == 0) shared_strip = atomicAdd(ticket_counter, 1u);
        __syncthreads();
        strip = shared_strip;
        __syncthreads();  // everyone has read it before thread 0 may take the next ticket
        // END SOLUTION
        if (strip >= strips) return;

        const int strip_top = int(strip) * NR * w;
        const int r0 = strip_top + tile_r * w;  // this warp's tile rows r0 .. r0+31
        constexpr int WPV = words_per<Out>();
        // The last row of this strip (none for the last strip) and of the strip above.
        handover_word* my_row = handover + std::size_t(strip) * s.cols * WPV;
        [[maybe_unused]] const handover_word* row_above_words = my_row - std::size_t(s.cols) * WPV;
        const bool hands_over = tile_r == NR - 1 && strip + 1 < strips;
        Out row_carry = 0;

        // Software pipeline: the loads of step k+1 are in flight while step k waits.
        Out raw[w], data[w];
        load_tile(in, s, r0, tile_c * w, lane, raw);
#pragma unroll
        for (int j = 0; j < w; ++j) data[j] = raw[j];
        strip_local_sums(data, row_carry, sh, tile_r, tile_c, lane);

        for (int step = 0; step < steps; ++step) {
            const int c0 = step * NC * w + tile_c * w;
            const bool has_next = step + 1 < steps;  // the same for the whole block
            if (has_next) load_tile(in, s, r0, c0 + NC * w, lane, raw);

            // BEGIN SOLUTION hint: each lane of a valid column waits for its value of the row above (wait_for_value_above), the warp agrees with __all_sync, then adds it
            // Soft synchronization: the first moment the strip above is needed.
            const bool column_inside = c0 + lane < s.cols;
            Out top = 0;
            bool lane_ready = true;
            if (strip > 0 && column_inside)
                lane_ready = wait_for_value_above(row_above_words + std::size_t(c0 + lane) * WPV,
                                                  top, status);
            // On a timeout carry on without it: the output is wrong and the status says why
            // (returning here would leave the other warps waiting at a block barrier).
            if (__all_sync(full_mask, lane_ready)) {
#pragma unroll
                for (int j = 0; j < w; ++j) data[j] += top;
            }
            // END SOLUTION

            // Hand over first, store after: the strip below waits for this row, and a hand-over
            // queued behind the tile's 32 stores per lane reaches L2 that much later.
            if (hands_over && c0 + lane < s.cols) {
                // BEGIN SOLUTION hint: publish data[w - 1] into my_row at column c0 + lane (no fence needed: the tag travels with the value)
                publish_value(my_row + std::size_t(c0 + lane) * WPV, data[w - 1]);
                // END SOLUTION
            }
            store_tile(out, s, r0, c0, lane, data);
            if (lane == 0 && r0 < s.rows && c0 < s.cols)
                sat::record_tile(trace, s, r0 / w, c0 / w);
            if (has_next) {
#pragma unroll
                for (int j = 0; j < w; ++j) data[j] = raw[j];
                strip_local_sums(data, row_carry, sh, tile_r, tile_c, lane);
            }
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

            // BEGIN SOLUTION hint: column scan, row scan with carry, lane 0 waits for the strip above, add its last row
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

template <class In, class Out>
void skss(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream) {
    constexpr int NR = block_rows<Out>(), NC = block_cols<Out>();
    const int strips = ceil_div(s.rows, NR * w);
    unsigned* ticket_counter = ws.get_zeroed<unsigned>(1, stream);
    // The last row of every strip but the last, in tagged words; zero = not there yet.
    handover_word* handover = ws.get_zeroed<handover_word>(
        std::size_t(strips - 1) * s.cols * words_per<Out>() + 1, stream);
    auto kernel = skss_block<In, Out, NR, NC>;
    constexpr int shared_bytes = int(sizeof(BlockShared<Out, NR, NC>));
    SAT_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
    kernel<<<strips, NR * NC * w, shared_bytes, stream>>>(in, out, s, ticket_counter, handover,
                                                         ws.status, ws.trace);
    SAT_CHECK_LAUNCH("skss_block");
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
        "SKSS", "SKSS", "block of 4x4 warps per 128-row strip (ticket order), tagged-row hand-over",
        lab8::skss);
    sat::Variant warp_wise = SAT_VARIANT(
        "SKSS-warp", "1R1W", "a warp per 32-row strip (ticket order), one 32x32 tile a step",
        lab8::skss_warp_wise);
    block_wise.barrier = warp_wise.barrier = sat::Barrier::none;
    lab.variants = {block_wise, warp_wise};
    lab.default_shapes = {{1024, 1024}, {4096, 4096}, {16384, 16384}};
    return lab;
}()));
