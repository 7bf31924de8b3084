// tasks.h — lab 8x's two problems for the harness: task arrays that are not SATs (Funasaka et
// al. 2017, section V).
//
//   halftone  error diffusion of an 8-bit gray image (Floyd-Steinberg weights, computed as error
//             collection over 32 x 32 parallelograms): a backward task array;
//   knapsack  the 0-1 knapsack dynamic program in single-column strips: a forward task array.
// Each is a Problem (harness.h): its data, CPU answer, exact check and cost model live here; the
// lab file (solutions/lab8x_tasks.cu) holds the algorithms and registers them as variants, and
// ./lab8x runs them through the same command line, runner, table and CSV as the SAT labs.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "harness.h"
#include "sat.h"

namespace sat::tasks {

// Error diffusion: `image` (device, rows x cols, gray 0..255) -> `halftone` (device, same
// shape, each pixel 0 or 255). Must equal cpu_error_diffusion bit for bit.
using HalftoneFn = void (*)(const std::uint8_t* image, std::uint8_t* halftone, Shape shape,
                            Workspace& ws, cudaStream_t stream);

// 0-1 knapsack: items 1..n with weights[j-1] >= 0 and values[j-1] >= 0 (device arrays), capacity
// W >= 0 -> best (device, W + 1 entries): best[c] = V[n][c], the optimum within capacity c; the
// answer to the problem is best[W]. Must equal cpu_knapsack exactly.
struct KnapsackShape {
    int items = 0;     // n
    int capacity = 0;  // W
};
using KnapsackFn = void (*)(const std::int32_t* weights, const std::int32_t* values,
                            KnapsackShape shape, std::int32_t* best, Workspace& ws,
                            cudaStream_t stream);

// The harness's view of a knapsack instance: the shape of the table V, (n + 1) x (W + 1); the
// input is the n weights followed by the n values (int32), the output best[0..W].
inline KnapsackShape knapsack_shape(Shape table) { return {table.rows - 1, table.cols - 1}; }
inline Shape table_shape(KnapsackShape k) { return {k.items + 1, k.capacity + 1}; }

const Problem& halftone_problem();
const Problem& knapsack_problem();

// The calls the harness makes (ErasedSatFn), for every harness type alike: the problems fix
// their own types (halftone u8 -> u8, knapsack i32 -> i32) and --type does not change them.
template <HalftoneFn fn>
void call_halftone(const void* in, void* out, Shape s, Workspace& ws, cudaStream_t stream) {
    fn(static_cast<const std::uint8_t*>(in), static_cast<std::uint8_t*>(out), s, ws, stream);
}
template <KnapsackFn fn>
void call_knapsack(const void* in, void* out, Shape s, Workspace& ws, cudaStream_t stream) {
    const auto* weights = static_cast<const std::int32_t*>(in);
    const KnapsackShape k = knapsack_shape(s);
    fn(weights, weights + k.items, k, static_cast<std::int32_t*>(out), ws, stream);
}
// A variant named "<problem>/<name>"; multi_launch: a kernel launch per barrier (the baseline
// the SKSS speed-up is quoted against), else one launch.
Variant task_variant(const Problem& problem, const std::string& name, const std::string& summary, ErasedSatFn fn,
                     bool multi_launch);
#define SAT_HALFTONE_VARIANT(name, summary, fn, multi_launch)                                     \
    ::sat::tasks::task_variant(::sat::tasks::halftone_problem(), name, summary,                   \
                               &::sat::tasks::call_halftone<fn>, multi_launch)
#define SAT_KNAPSACK_VARIANT(name, summary, fn, multi_launch)                                     \
    ::sat::tasks::task_variant(::sat::tasks::knapsack_problem(), name, summary,                   \
                               &::sat::tasks::call_knapsack<fn>, multi_launch)

// ---- CPU references (sequential) ------------------------------------------------------------

// Floyd-Steinberg error diffusion in raster order, intensities 0..255 as float, threshold
// 127.5: a pixel whose value is <= 127.5 becomes 0, else 255, and it diffuses its error
// e = value - level as 7/16 right, 3/16 down-left, 5/16 down, 1/16 down-right; what leaves the
// image is lost. Every product and sum is rounded to float once (no FMA contraction).
std::vector<std::uint8_t> cpu_error_diffusion(const std::uint8_t* image, Shape shape);
// The same image by error collection (Kasagi et al. 2015): each pixel gathers the four errors
// in its senders' order. Identical to cpu_error_diffusion bit for bit.
std::vector<std::uint8_t> cpu_error_collection(const std::uint8_t* image, Shape shape);
// The 0-1 knapsack DP over one array, capacities descending: V[n][0..W].
std::vector<std::int32_t> cpu_knapsack(const std::vector<std::int32_t>& weights,
                                       const std::vector<std::int32_t>& values, int capacity);

// ---- Data --------------------------------------------------------------------------------------

std::vector<std::uint8_t> random_image(Shape shape, std::uint64_t seed);
struct KnapsackInstance {
    std::vector<std::int32_t> weights, values;
    int capacity = 0;
    KnapsackShape shape() const { return {int(weights.size()), capacity}; }
    std::vector<std::int32_t> input() const;  // the harness's input: weights, then values
};
// As in the paper: values uniform in [0, 4095], weights uniform in [1, max(1, 4W / (n + 1))]
// (so that the optimum takes about half of the items).
KnapsackInstance random_knapsack(int items, int capacity, std::uint64_t seed);

}  // namespace sat::tasks
