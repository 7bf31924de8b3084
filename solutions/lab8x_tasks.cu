// Lab 8x — SKSS beyond the SAT: error diffusion and the 0-1 knapsack
// (Funasaka, Nakano, Ito 2017, sections II, III, IV, V-A and V-C).
//
// A task array is an m x n array of tasks t(i, j); t(i, j) needs t(i, j-1) and some tasks of
// the rows above. Two of the paper's three kinds, each solved twice:
//
//   halftone  error diffusion computed as error collection (Kasagi et al. 2015) over 32 x 32
//             parallelograms: a BACKWARD task array (t(i, j) needs t(i-1, j+1), t(i-1, j+2)).
//             "Parallel-Backward": one kernel launch per partition k = j + 3i of the task
//             graph; "SKSS": one kernel, a warp per 32-row strip taken by ticket.
//   knapsack  the 0-1 knapsack dynamic program V[j][c] over items j and capacities c, in
//             single-column strips of 32 capacities: a FORWARD task array (t(i, j) needs
//             t(i', j-1), i' <= i). "Parallel-Forward": one kernel launch per item;
//             "SKSS": one kernel, a warp per strip of 32 capacities taken by ticket.
// The harness runs them like SAT variants (common/tasks.h: data, CPU references, checks).
#include <algorithm>
#include <vector>

#include "progress_flag.cuh"  // progress_ref: a strip's progress flag
#include "task_arrays.cuh"  // parallelograms, knapsack rows: where the tasks' data lie
#include "tasks.h"

namespace lab8x {

constexpr unsigned full_mask = 0xffffffffu;
constexpr int warps_per_block = 2;  // 64-thread blocks, as in the paper (warp-wise SKSS)

// A strip's progress word: how many of its tasks are published. Stored after the data they
// announce (fenced), read with acquire semantics before that data is read.
using sat::progress_ref;  // cuda::atomic_ref<unsigned, device scope>; checked in test builds

// Lane 0 of a warp waits until *word >= need. `seen` keeps the last value read (a lower bound
// of the progress), so a warp that is far enough behind does not touch memory at all.
// Returns false on a spin timeout (or when another warp already timed out).
__device__ __forceinline__ bool wait_for_progress(unsigned* word, unsigned need, unsigned& seen,
                                                  int* status) {
    if (seen >= need) return true;
    bool ready = false;
    // BEGIN SOLUTION hint: sat::bounded_spin until an acquire load of *word (kept in seen) reaches need
    progress_ref progress(*word);
    ready = sat::bounded_spin(
        [&] {
            seen = progress.load(cuda::memory_order_acquire);
            return seen >= need;
        },
        status);
    // END SOLUTION
    return ready;
}

// After every lane of the warp stored what `done` announces: make the stores visible to the
// whole GPU, then lane 0 raises the flag.
__device__ __forceinline__ void publish_progress(unsigned* word, unsigned done, int lane) {
    // BEGIN SOLUTION hint: every lane __threadfence(), __syncwarp(), then lane 0 release-stores done into *word (the release after the warp barrier orders the other lanes' stores before the flag)
    __threadfence();
    __syncwarp();
    if (lane == 0) progress_ref(*word).store(done, cuda::memory_order_release);
    // END SOLUTION
}

// The next strip in ticket order, shared by the whole warp (a warp that started early gets an
// early strip, so every strip it waits for belongs to a warp that is already running).
__device__ __forceinline__ unsigned take_ticket(unsigned* ticket_counter, int lane) {
    unsigned ticket = 0;
    if (lane == 0) ticket = atomicAdd(ticket_counter, 1u);
    return __shfl_sync(full_mask, ticket, 0);
}

// ---- Error diffusion as error collection over parallelograms (section V-C) ------------------
// Intensities are 0..255 as float; a pixel whose collected value s is <= 127.5 becomes 0 (else
// 255) and leaves the error e = s - level. Floyd-Steinberg's weights, seen from the receiver:
//     s(i, j) = a(i, j) + 1/16 e(i-1, j-1) + 5/16 e(i-1, j) + 3/16 e(i-1, j+1) + 7/16 e(i, j-1)
// A sequential diffusion adds these four terms to a(i, j) in the order its senders are visited
// (up-left, up, up-right, left); collecting them in that order, each product and each sum
// rounded once (no FMA), gives the CPU's image bit for bit.
//
// Parallelogram p of strip S: row r covers columns 32p - 2r + k, k = 0..31 (Fig. 9). Lane r walks
// its row, step k; the pixels it needs from row r-1 at columns c-1, c, c+1 are lane r-1's steps
// k-3, k-2, k-1: the warp works in lockstep with shuffles. A strip has P = ceil((cols + 62) / 32)
// parallelograms; t(S, p) needs t(S, p-1), t(S-1, p+1) and t(S-1, p+2) (Fig. 11).

// One pixel of error collection (see above): fixed order, every operation rounded once.
__device__ __forceinline__ float collect_errors(float pixel, float e_up_left, float e_up,
                                                float e_up_right, float e_left) {
    float s = pixel;
    // BEGIN SOLUTION hint: s += 1/16 e_up_left, then 5/16 e_up, 3/16 e_up_right, 7/16 e_left, with __fmul_rn/__fadd_rn (no FMA)
    s = __fadd_rn(s, __fmul_rn(0.0625f, e_up_left));
    s = __fadd_rn(s, __fmul_rn(0.3125f, e_up));
    s = __fadd_rn(s, __fmul_rn(0.1875f, e_up_right));
    s = __fadd_rn(s, __fmul_rn(0.4375f, e_left));
    // END SOLUTION
    return s;
}

// The 32 x 32 pixels of one parallelogram, lane r = row r, 32 lockstep steps. e1, e2, e3 are
// the lane's own errors of the last three steps (from the previous parallelogram of the strip
// at first): e1 is its left neighbour, and shifted up one lane they are the row above.
__device__ __forceinline__ void collect_parallelogram(HalftoneTile& t, sat::Shape s, int strip,
                                                      int p, int lane, float& e1, float& e2,
                                                      float& e3) {
    const int row = strip * w + lane;
    const bool row_inside = row < s.rows;
#pragma unroll
    for (int k = 0; k < w; ++k) {
        const int col = p * w - 2 * lane + k;
        float up_left = 0.f, up = 0.f, up_right = 0.f;
        // BEGIN SOLUTION hint: the row above at columns c-1, c, c+1: lane r-1's errors of steps k-3, k-2, k-1 (__shfl_up_sync of e3, e2, e1); lane 0 takes t.above[k], [k+1], [k+2]
        up_left = __shfl_up_sync(full_mask, e3, 1);
        up = __shfl_up_sync(full_mask, e2, 1);
        up_right = __shfl_up_sync(full_mask, e1, 1);
        if (lane == 0) {
            up_left = t.above[k];
            up = t.above[k + 1];
            up_right = t.above[k + 2];
        }
        // END SOLUTION
        const float sum = collect_errors(t.value[lane][k], up_left, up, up_right, e1);
        const float level = sum > 127.5f ? 255.f : 0.f;
        // Outside the image the error is 0: nothing is diffused from there.
        const float e = (row_inside && col >= 0 && col < s.cols) ? __fsub_rn(sum, level) : 0.f;
        t.value[lane][k] = level;
        if (lane == w - 1) t.bottom[k] = e;
        e3 = e2;
        e2 = e1;
        e1 = e;
    }
}

// ---- Parallel-Backward: one launch per partition k of the task graph --------------------------
// Partition k holds the tasks t(S, p) with p + 3S = k (t(S, p) needs t(S-1, p+2), one
// partition earlier). A task's only state between launches: each row's last three errors
// (row_history) and the strip's last row (bottom_errors), both in global memory.
__global__ void __launch_bounds__(warps_per_block * w)
halftone_partition(const std::uint8_t* __restrict__ image, std::uint8_t* __restrict__ halftone,
                   sat::Shape s, float* bottom_errors, float* row_history, int k, int first_strip,
                   int tasks) {
    __shared__ HalftoneTile tiles[warps_per_block];
    const int lane = threadIdx.x % w, warp = threadIdx.x / w;
    const int task = blockIdx.x * warps_per_block + warp;
    if (task >= tasks) return;
    HalftoneTile& t = tiles[warp];
    const TaskArray g = parallelograms(s);
    const int strip = first_strip + task, p = k - 3 * strip;

    float raw[w];
    load_parallelogram(image, s, strip, p, lane, raw);
    stage_parallelogram(t, raw, lane);
    load_row_above(t, bottom_errors, s, strip, p, lane);
    float* history = row_history + std::size_t(strip) * 3 * w;
    float e1 = 0.f, e2 = 0.f, e3 = 0.f;
    if (p > 0) {
        e1 = history[lane];
        e2 = history[w + lane];
        e3 = history[2 * w + lane];
    }
    __syncwarp();
    collect_parallelogram(t, s, strip, p, lane, e1, e2, e3);
    __syncwarp();
    store_parallelogram(t, halftone, bottom_errors, s, g.strips, strip, p, lane);
    history[lane] = e1;
    history[w + lane] = e2;
    history[2 * w + lane] = e3;
}

void halftone_parallel_backward(const std::uint8_t* image, std::uint8_t* halftone, sat::Shape s,
                                sat::Workspace& ws, cudaStream_t stream) {
    const TaskArray g = parallelograms(s);
    float* bottom_errors = ws.get<float>(std::size_t(g.strips) * s.cols);
    float* row_history = ws.get<float>(std::size_t(g.strips) * 3 * w);
    // BEGIN SOLUTION hint: for k = 0 .. P + 3(m-1) - 1, launch halftone_partition over the strips S with 0 <= k - 3S < P (first_strip = max(0, ceil((k-P+1)/3)), last = min(m-1, k/3)), a warp per task
    const int partitions = g.per_strip + 3 * (g.strips - 1);
    for (int k = 0; k < partitions; ++k) {
        const int first_strip = k >= g.per_strip ? ceil_div(k - g.per_strip + 1, 3) : 0;
        const int last_strip = std::min(g.strips - 1, k / 3);
        const int tasks = last_strip - first_strip + 1;
        if (tasks <= 0) continue;  // P < 3 (images 1 or 2 pixels wide): some partitions are empty
        halftone_partition<<<ceil_div(tasks, warps_per_block), warps_per_block * w, 0, stream>>>(
            image, halftone, s, bottom_errors, row_history, k, first_strip, tasks);
        SAT_CHECK_LAUNCH("halftone_partition");
    }
    // END SOLUTION
}

// ---- SKSS: one kernel, a warp per strip -------------------------------------------------------
// The warp keeps the row history in registers from one parallelogram to the next and
// loads the next parallelogram's pixels while it waits and works on the current one.
__global__ void __launch_bounds__(warps_per_block * w)
halftone_skss(const std::uint8_t* __restrict__ image, std::uint8_t* __restrict__ halftone,
              sat::Shape s, float* bottom_errors, unsigned* ticket_counter,
              unsigned* strip_progress, int* status) {
    __shared__ HalftoneTile tiles[warps_per_block];
    const int lane = threadIdx.x % w, warp = threadIdx.x / w;
    HalftoneTile& t = tiles[warp];
    const TaskArray g = parallelograms(s);

    for (;;) {
        const unsigned ticket = take_ticket(ticket_counter, lane);
        if (ticket >= unsigned(g.strips)) return;
        const int strip = int(ticket);
        [[maybe_unused]] unsigned seen_above = 0;  // lane 0: last progress read of the strip above
        float e1 = 0.f, e2 = 0.f, e3 = 0.f;
        float raw[w];
        load_parallelogram(image, s, strip, 0, lane, raw);
        for (int p = 0; p < g.per_strip; ++p) {
            __syncwarp();  // the previous parallelogram's stores have read the tile
            stage_parallelogram(t, raw, lane);
            if (p + 1 < g.per_strip) load_parallelogram(image, s, strip, p + 1, lane, raw);

            int ready = 0;
            // BEGIN SOLUTION hint: ready = 1; lane 0 of a strip > 0 waits (wait_for_progress) until the strip above published min(p + 3, P) parallelograms; share ready with __shfl_sync
            ready = 1;
            if (lane == 0 && strip > 0)
                ready = wait_for_progress(strip_progress + strip - 1,
                                          unsigned(min(p + 3, g.per_strip)), seen_above, status);
            ready = __shfl_sync(full_mask, ready, 0);
            // END SOLUTION
            if (!ready) return;  // timed out: leave; the output stays wrong and status says why
            __syncwarp();        // lane 0's acquire is ordered before the other lanes' reads
            load_row_above(t, bottom_errors, s, strip, p, lane);
            __syncwarp();
            collect_parallelogram(t, s, strip, p, lane, e1, e2, e3);
            __syncwarp();
            store_parallelogram(t, halftone, bottom_errors, s, g.strips, strip, p, lane);
            publish_progress(strip_progress + strip, unsigned(p + 1), lane);
        }
    }
}

void halftone_skss_run(const std::uint8_t* image, std::uint8_t* halftone, sat::Shape s,
                       sat::Workspace& ws, cudaStream_t stream) {
    const TaskArray g = parallelograms(s);
    float* bottom_errors = ws.get<float>(std::size_t(g.strips) * s.cols);
    unsigned* counters = ws.get_zeroed<unsigned>(1 + std::size_t(g.strips), stream);  // ticket, progress
    halftone_skss<<<ceil_div(g.strips, warps_per_block), warps_per_block * w, 0, stream>>>(
        image, halftone, s, bottom_errors, counters, counters + 1, ws.status);
    SAT_CHECK_LAUNCH("halftone_skss");
}

// ---- 0-1 knapsack by dynamic programming (section V-A) --------------------------------------
// V[j][c] = the best value of items 1..j within capacity c:
//     V[0][c] = 0,   V[j][c] = V[j-1][c]  if c < w_j,   max(V[j-1][c], V[j-1][c - w_j] + v_j)  else.
// Stored as the paper's transposed V: row j is contiguous over c = 0..W. Rows 0..n-1 live in
// `table` (scratch, n x (W+1)); row n is the output `best`. A task is a single-column strip:
// item j for 32 consecutive capacities, which need row j-1 at the same 32 capacities shifted
// down by w_j, i.e. in this strip or in at most two strips below it.

// ---- Parallel-Forward: one launch per item ------------------------------------------------------
__global__ void knapsack_item(const std::int32_t* __restrict__ weights,
                              const std::int32_t* __restrict__ values,
                              const std::int32_t* __restrict__ previous,
                              std::int32_t* __restrict__ current, int width, int j) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= width) return;
    [[maybe_unused]] const int weight = weights[j - 1], value = values[j - 1];
    // BEGIN SOLUTION hint: current[c] = previous[c], or previous[c - weight] + value when c >= weight and that is larger
    std::int32_t v = previous[c];
    if (c >= weight) v = max(v, previous[c - weight] + value);
    current[c] = v;
    // END SOLUTION
}

void knapsack_parallel_forward(const std::int32_t* weights, const std::int32_t* values,
                               sat::tasks::KnapsackShape k, std::int32_t* best,
                               sat::Workspace& ws, cudaStream_t stream) {
    const int width = k.capacity + 1;
    if (k.items == 0) {
        SAT_CUDA(cudaMemsetAsync(best, 0, sizeof(std::int32_t) * width, stream));
        return;
    }
    std::int32_t* table = ws.get<std::int32_t>(std::size_t(k.items) * width);
    SAT_CUDA(cudaMemsetAsync(table, 0, sizeof(std::int32_t) * width, stream));  // V[0][c] = 0
    [[maybe_unused]] constexpr int threads = 256;
    // BEGIN SOLUTION hint: for j = 1 .. n launch knapsack_item on rows j-1 -> j (knapsack_row), one thread per capacity
    for (int j = 1; j <= k.items; ++j) {
        knapsack_item<<<ceil_div(width, threads), threads, 0, stream>>>(
            weights, values, knapsack_row(table, best, k.items, width, j - 1),
            knapsack_row(table, best, k.items, width, j), width, j);
        SAT_CHECK_LAUNCH("knapsack_item");
    }
    // END SOLUTION
}

// ---- SKSS: one kernel, a warp per strip of 32 capacities -------------------------------------
//
// Item j of strip i reads row j-1 at capacities 32i + lane - w_j. Lanes with lane >= w_j find
// it in this strip: lane - w_j's register, a shuffle. The others read global memory, in the
// strips that hold capacities max(0, 32i - w_j) .. 32i - 1, after those strips published
// row j-1. Lane l caches a lower bound of the progress of strip i-1-l, so the wait costs one
// parallel refresh now and then instead of a flag read per item.
__device__ __forceinline__ bool wait_for_lower_strips(unsigned* strip_progress, int strip,
                                                      LowerStrips need_strips, unsigned need,
                                                      unsigned& cached, int lane, int* status) {
    if (need_strips.far == 0 || need == 0) return true;
    const bool cacheable = need_strips.far <= w;
    const unsigned want = cacheable ? (1u << (need_strips.near - 1)) | (1u << (need_strips.far - 1)) : 0u;
    auto refresh = [&] {
        if (strip - 1 - lane >= 0)
            cached = progress_ref(strip_progress[strip - 1 - lane]).load(cuda::memory_order_acquire);
    };
    if (cacheable) {
        bool all = (__ballot_sync(full_mask, cached >= need) & want) == want;
        if (!all) refresh(), all = (__ballot_sync(full_mask, cached >= need) & want) == want;
        if (all) __syncwarp();  // the lanes that acquired a flag, ordered before every lane's reads
        if (all) return true;
    }
    int ready = 1;
    if (lane == 0) {
        unsigned seen_near = 0, seen_far = 0;
        ready = wait_for_progress(strip_progress + strip - need_strips.near, need, seen_near, status) &&
                wait_for_progress(strip_progress + strip - need_strips.far, need, seen_far, status);
    }
    ready = __shfl_sync(full_mask, ready, 0);
    __syncwarp();
    if (ready && cacheable) refresh();
    return ready;
}

__global__ void __launch_bounds__(warps_per_block * w)
knapsack_skss(const std::int32_t* __restrict__ weights, const std::int32_t* __restrict__ values,
              int items, int width, std::int32_t* table, std::int32_t* best,
              unsigned* ticket_counter, unsigned* strip_progress, int* status) {
    const int lane = threadIdx.x % w;
    const int strips = ceil_div(width, w);

    for (;;) {
        const unsigned ticket = take_ticket(ticket_counter, lane);
        if (ticket >= unsigned(strips)) return;
        const int strip = int(ticket);
        const int c = strip * w + lane;
        [[maybe_unused]] unsigned cached = strip - 1 - lane >= 0 ? 0u : ~0u;  // progress of strip - 1 - lane
        std::int32_t v_previous = 0;                         // V[j-1][c], in a register

        for (int j0 = 0; j0 < items; j0 += w) {
            // The next 32 items, one per lane, handed out by shuffles.
            const int weight_l = j0 + lane < items ? weights[j0 + lane] : 0;
            const int value_l = j0 + lane < items ? values[j0 + lane] : 0;
            const int chunk = min(w, items - j0);
            for (int q = 0; q < chunk; ++q) {
                const int j = j0 + q + 1;  // computes row j from row j-1
                const int weight = __shfl_sync(full_mask, weight_l, q);
                const int value = __shfl_sync(full_mask, value_l, q);
                const std::int32_t* previous = knapsack_row(table, best, items, width, j - 1);
                std::int32_t v = v_previous;
                bool ready = false;
                // BEGIN SOLUTION hint: wait_for_lower_strips(strips_needed(strip, weight), row j-1); take = lane - weight's v_previous (shuffle) if lane >= weight, else __ldcg(previous + c - weight) if c >= weight; v = max(v, take + value)
                ready = wait_for_lower_strips(strip_progress, strip, strips_needed(strip, weight),
                                              unsigned(j - 1), cached, lane, status);
                const std::int32_t shifted = __shfl_sync(full_mask, v_previous, (lane - weight) & (w - 1));
                if (ready && c >= weight && c < width) {
                    const std::int32_t take = lane >= weight ? shifted : __ldcg(previous + (c - weight));
                    v = max(v, take + value);
                }
                // END SOLUTION
                if (!ready) return;  // timed out: leave; the output stays wrong, status says why
                if (c < width) knapsack_row(table, best, items, width, j)[c] = v;
                v_previous = v;
                publish_progress(strip_progress + strip, unsigned(j), lane);
            }
        }
    }
}

void knapsack_skss_run(const std::int32_t* weights, const std::int32_t* values,
                       sat::tasks::KnapsackShape k, std::int32_t* best, sat::Workspace& ws,
                       cudaStream_t stream) {
    const int width = k.capacity + 1;
    if (k.items == 0) {
        SAT_CUDA(cudaMemsetAsync(best, 0, sizeof(std::int32_t) * width, stream));
        return;
    }
    const int strips = ceil_div(width, w);
    std::int32_t* table = ws.get<std::int32_t>(std::size_t(k.items) * width);
    SAT_CUDA(cudaMemsetAsync(table, 0, sizeof(std::int32_t) * width, stream));  // V[0][c] = 0
    unsigned* counters = ws.get_zeroed<unsigned>(1 + std::size_t(strips), stream);
    knapsack_skss<<<ceil_div(strips, warps_per_block), warps_per_block * w, 0, stream>>>(
        weights, values, k.items, width, table, best, counters, counters + 1, ws.status);
    SAT_CHECK_LAUNCH("knapsack_skss");
}

}  // namespace lab8x

SAT_REGISTER_LAB(([] {
    sat::LabInfo lab;
    lab.number = 80;  // "8x"
    lab.title = "SKSS beyond the SAT: error diffusion and the 0-1 knapsack";
    lab.source = "Funasaka et al. 2017, sections II, IV, V-A and V-C";
    lab.variants = {
        SAT_HALFTONE_VARIANT("Parallel-Backward", "a kernel launch per partition p + 3S of the parallelogram task array",
                             lab8x::halftone_parallel_backward, true),
        SAT_HALFTONE_VARIANT("SKSS", "one kernel, a warp per 32-row strip (ticket order), waits for the strip above",
                             lab8x::halftone_skss_run, false),
        SAT_KNAPSACK_VARIANT("Parallel-Forward", "a kernel launch per item, a thread per capacity",
                             lab8x::knapsack_parallel_forward, true),
        SAT_KNAPSACK_VARIANT("SKSS", "one kernel, a warp per 32 capacities (ticket order), waits for lower strips",
                             lab8x::knapsack_skss_run, false),
    };
    lab.default_shapes = {{1024, 1024}, {4096, 4096}};  // the halftone's; the knapsack's: --items, --capacity
    return lab;
}()));
