// tasks.h — lab 8x's driver: task arrays that are not SATs (Funasaka et al. 2017, section V).
//
// Lab 8x solves two problems twice each, a multi-launch version and an SKSS version:
//   halftone  error diffusion of an 8-bit gray image (Floyd-Steinberg weights, computed as error
//             collection over 32 x 32 parallelograms): a backward task array;
//   knapsack  the 0-1 knapsack dynamic program in single-column strips: a forward task array.
// Its lab file (solutions/lab8x_tasks.cu) holds the algorithms and registers them here; this
// driver brings the rest — data, the CPU references, checking, timing, the table and the CSV —
// and is the lab's LabInfo::custom_main, so `./lab8x` runs it instead of the SAT harness.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "harness.h"
#include "sat.h"

namespace sat::tasks {

enum class Problem { halftone, knapsack };
const char* problem_name(Problem p);

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

struct TaskVariant {
    Problem problem = Problem::halftone;
    std::string name;      // "SKSS"; the full name in tables and the CSV is "halftone/SKSS"
    std::string summary;   // one line for --help and the handout
    HalftoneFn halftone = nullptr;
    KnapsackFn knapsack = nullptr;
    bool multi_launch = false;  // the baseline the SKSS speed-up is quoted against
    std::string full_name() const { return std::string(problem_name(problem)) + "/" + name; }
};

// Registers the lab file's variants with the driver and returns a LabInfo (number, title and
// source left to the lab file) whose custom_main is tasks_main. Its `variants` are
// placeholders named like the task variants, for the tools that list names; calling one as a
// SAT throws.
LabInfo make_lab_info(const std::vector<TaskVariant>& variants);
const std::vector<TaskVariant>& task_variants();
// nullptr when there is no such variant. `name` is "SKSS" or "knapsack/SKSS".
const TaskVariant* find_task_variant(Problem problem, const std::string& name);

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
};
// As in the paper: values uniform in [0, 4095], weights uniform in [1, max(1, 4W / (n + 1))]
// (so that the optimum takes about half of the items).
KnapsackInstance random_knapsack(int items, int capacity, std::uint64_t seed);

// ---- Running one variant -----------------------------------------------------------------------

struct TaskMeasurement {
    std::string variant;       // full name
    Problem problem = Problem::halftone;
    Shape shape;               // halftone: the image; knapsack: rows n + 1, cols W + 1 (table V)
    int reps = 0;
    double median_ms = 0, min_ms = 0, max_ms = 0;
    bool pass = false;
    std::string message;       // "PASS" or what is wrong, where
    std::string error;         // a CUDA error or a spin timeout; empty if none
    bool ok() const { return error.empty() && pass; }
};

// Run the variant once into a poisoned output, compare with `expected` (the CPU reference of the
// same input), then time `reps` runs with CUDA events. Never throws. `output`, if given,
// receives the GPU's result of the checked run.
TaskMeasurement run_halftone(const TaskVariant& v, const std::vector<std::uint8_t>& image,
                             Shape shape, const std::vector<std::uint8_t>& expected, int reps,
                             std::vector<std::uint8_t>* output = nullptr);
TaskMeasurement run_knapsack(const TaskVariant& v, const KnapsackInstance& instance,
                             const std::vector<std::int32_t>& expected, int reps);

// Bytes of GPU memory a knapsack variant needs (the table V of n x (W + 1) int32 and the rest).
std::size_t knapsack_device_bytes(KnapsackShape k);

// The whole `./lab8x` program (LabInfo::custom_main).
int tasks_main(const LabInfo& lab, int argc, const char* const* argv);

}  // namespace sat::tasks
