// multigpu.h — lab 10's plumbing: a matrix cut into G row strips, one per GPU (or G strips on
// one GPU), the exchange between the strips, and the run that makes the data strip by strip,
// checks the output against the CPU reference in slices and times the schedules. ./lab10 goes
// through the shared lab_main and run_variant: its Problem (strips_problem) overrides the run hooks.
//
// The exchange is an all-gather of one row of W elements per strip. Across GPUs it is NCCL
// (ncclAllGather, one process driving every GPU through ncclCommInitAll); for G strips on one GPU
// it is a device-local copy behind the same interface, so the lab's code path is the same.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "data.h"
#include "harness.h"
#include "sat_scan.h"

namespace sat::multigpu {

// ---- The partition (host, no GPU needed) ------------------------------------------------------

// Rows [row0, row0 + rows) of the matrix.
struct StripRange {
    int row0 = 0, rows = 0;
};
// G strips of nearly equal height: the first rows % G strips get one row more. Throws UsageError
// when G < 1 or G > rows (a strip would be empty).
std::vector<StripRange> split_rows(int rows, int strips);

// ---- The exchange -------------------------------------------------------------------------------

class Exchange {
public:
    virtual ~Exchange() = default;
    virtual std::string name() const = 0;  // "NCCL 2.x" or "device-local copy"
    // gathered[g] (on strip g's device) holds G rows of `bytes`; strip g's own row is already at
    // gathered[g] + g * bytes. Afterwards every gathered[g] holds every strip's row. Enqueued on
    // streams[g], ordered after what is already on them; returns without waiting.
    virtual void all_gather(void* const* gathered, std::size_t bytes, const cudaStream_t* streams) = 0;
};

// Where the G strips live: all on device 0 (devices = 1, the local exchange) or one per device
// (devices = G, NCCL).
struct Placement {
    int strips = 1;
    int devices = 1;
    int device_of(int strip) const { return devices == 1 ? 0 : strip; }
};
// The placement of the command line (0: option not given): --gpus G > 1, one strip per GPU; else
// --strips G on one GPU; --gpus 1 alone, one strip; neither, 4 strips on one GPU.
Placement placement_for(int gpus, int strips);
// The exchange for a placement; throws sat::Error when NCCL is needed but missing or fails.
std::unique_ptr<Exchange> make_exchange(const Placement& where);
// NCCL can be used: built with it (mk/lab10.mk found it) and its library opens; else `why`.
bool have_nccl(std::string* why = nullptr);

// ---- What a schedule sees ------------------------------------------------------------------------

// One strip: its rows of the input and output (pitch = cols), its streams and library scratch.
template <class In, class Out>
struct Strip {
    int rank = 0, device = 0;
    StripRange range;
    const In* in = nullptr;
    Out* out = nullptr;
    Out* gathered = nullptr;        // G x cols: every strip's bottom row after the exchange
    cudaStream_t stream = nullptr;  // the strip's main stream; the run ends when it is idle
    cudaStream_t side = nullptr;    // a second stream for work that overlaps the main one
    cudaEvent_t ready = nullptr;    // free events for a schedule's ordering
    cudaEvent_t published = nullptr;
    ScanOptions scan;      // library scratch for the strip's SAT (rows x cols)
    ScanOptions row_scan;  // library scratch for a 1 x cols scan on `side`
};

template <class In, class Out>
struct StripSet {
    int cols = 0;
    std::vector<Strip<In, Out>> strips;
    Exchange* exchange = nullptr;
    // Every strip's bottom row, all-gathered into every strip's `gathered`, on `side` streams
    // (on_side) or main streams.
    void all_gather_rows(bool on_side) {
        std::vector<void*> rows;
        std::vector<cudaStream_t> streams;
        for (auto& s : strips) {
            rows.push_back(s.gathered);
            streams.push_back(on_side ? s.side : s.stream);
        }
        exchange->all_gather(rows.data(), std::size_t(cols) * sizeof(Out), streams.data());
    }
};

// Library scratch for a strip's SAT (In -> Out) and for a 1 x W scan of Out. Instantiated in the
// lab's object, which links the library: common/ itself does not depend on it.
struct ScratchSizes {
    ScanScratchSize strip, row;
};
template <class In, class Out>
ScratchSizes scratch_sizes(int rows, int cols) {
    return {inclusive_scan_2d_scratch<In, Out>(rows, cols), inclusive_scan_2d_scratch<Out, Out>(1, cols)};
}

// A schedule, instantiated for the four harness types and called through a type-erased pointer.
struct Schedule {
    std::string name;     // --variant
    std::string cost;     // its HMM formula (common/hmm.cpp)
    std::string summary;  // one line for --help
    void (*fn[4])(void* strip_set);
    ScratchSizes (*scratch[4])(int rows, int cols);
};
template <class In, class Out, void (*fn)(StripSet<In, Out>&)>
void call_schedule(void* set) { fn(*static_cast<StripSet<In, Out>*>(set)); }
#define SAT_SCHEDULE(name, cost, summary, fn)                                                 \
    ::sat::multigpu::Schedule {                                                               \
        name, cost, summary,                                                                  \
        {&::sat::multigpu::call_schedule<float, float, &fn<float, float>>,                    \
         &::sat::multigpu::call_schedule<double, double, &fn<double, double>>,                \
         &::sat::multigpu::call_schedule<int32_t, int32_t, &fn<int32_t, int32_t>>,            \
         &::sat::multigpu::call_schedule<uint8_t, int32_t, &fn<uint8_t, int32_t>>},           \
        {&::sat::multigpu::scratch_sizes<float, float>, &::sat::multigpu::scratch_sizes<double, double>, \
         &::sat::multigpu::scratch_sizes<int32_t, int32_t>, &::sat::multigpu::scratch_sizes<uint8_t, int32_t>} \
    }

// Lab 10's LabInfo (number 10) for these schedules: variants of strips_problem().
LabInfo make_lab_info(const std::vector<Schedule>& schedules);
const Schedule* find_schedule(const std::string& name);
// The SAT in row strips as the harness sees it: sat_problem()'s options, table and data, with the
// run hooks (harness.h) of strips: the options checked against the strips (instances), the GPUs,
// NCCL and each device's memory checked before the runs (refusal), the placement in the title, and
// every run through run_strips with the command line's --gpus, --strips and --slice-rows.
const Problem& strips_problem();
// The HMM cost of a schedule (its formula key) at a placement, b bytes per output element for the
// exchange; the note names the placement and X.
CostModel strip_cost(const std::string& key, Shape shape, Placement where, DType type);

// ---- One run -------------------------------------------------------------------------------------

struct StripRequest {
    const Schedule* schedule = nullptr;
    DType type = DType::f32;
    Shape shape;
    Placement where;
    std::uint64_t seed = 1;
    DataKind data = DataKind::exact;
    int reps = 0;            // timed repetitions after the check; 0 = check only
    int slice_rows = 0;      // rows per slice of the check; 0 = as many as 256 MiB of host hold
};
// Make the input strip by strip, run once into poisoned outputs with canaries, check in slices,
// then time `reps` runs and the copy of the same bytes. Never throws: errors land in
// Measurement::error. The calibration includes the exchange's latency and bandwidth.
Measurement run_strips(const StripRequest& request);
// Device memory one strip set needs on its busiest device, and whether it fits; `why` says not.
bool fits(const StripRequest& request, std::string* why);

// The CPU reference in slices: feed the input rows in order, get each slice's exact SAT, keeping
// only the last row (the carry) between slices, so the host never holds the whole matrix.
class SlicedReference {
public:
    SlicedReference(DType type, Shape whole);
    // The reference of the next `rows` rows, whose input is `in` (rows x cols, input type).
    // The float bound uses the whole matrix's chain length plus `extra_chain` additions.
    Reference next(const void* in, int rows, double extra_chain = 0);
    int rows_done() const { return done_; }

private:
    DType type_;
    Shape whole_;
    int done_ = 0;
    std::vector<std::uint32_t> carry_exact_;
    std::vector<double> carry_, carry_abs_;
    double max_abs_sum_ = 0;  // exact float data: max |SAT| so far
};

}  // namespace sat::multigpu
