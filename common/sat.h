// sat.h — what a lab file sees of the harness.
//
// A lab file holds its algorithm (kernels and one host function per variant) and a descriptor
// registered with SAT_REGISTER_LAB. Everything else — CLI, data, checking, timing, the HMM cost
// model, reporting — lives in common/ and is shared by every lab, the tests and the grader.
//
// Every variant is a function template instantiated for the four harness types:
//   f32: float -> float   f64: double -> double   i32: int32 -> int32   u8i32: uint8 -> int32
// with the signature of SatFn below. GPU labs receive device pointers, the CPU lab host pointers.
// Matrices are dense and row-major: element (i, j) of a rows x cols matrix is at [i * cols + j].
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace sat {

enum class DType { f32, f64, i32, u8i32 };

// ceil(a / b) for a >= 0, b > 0, without forming a + b - 1 (which overflows for a within b of
// INT_MAX).
__host__ __device__ constexpr int ceil_div(int a, int b) { return a / b + (a % b != 0); }

struct Shape {
    int rows = 0;
    int cols = 0;
    std::size_t n() const { return std::size_t(rows) * std::size_t(cols); }
};

// Raised by SAT_CUDA / SAT_CHECK_LAUNCH and by labs that reject an input; the harness catches it,
// prints its message (which names the lab file, line and call) and marks the run as an error.
struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* what, const char* file, int line);

// Check every CUDA runtime call: SAT_CUDA(cudaMemcpyAsync(...));
#define SAT_CUDA(call)                                                                   \
    do {                                                                                 \
        cudaError_t sat_err_ = (call);                                                   \
        if (sat_err_ != cudaSuccess) ::sat::throw_cuda_error(sat_err_, #call, __FILE__, __LINE__); \
    } while (0)

// Check a kernel launch right after the <<<...>>>: SAT_CHECK_LAUNCH("column_scan");
#define SAT_CHECK_LAUNCH(kernel_name)                                                        \
    do {                                                                                     \
        cudaError_t sat_err_ = cudaGetLastError();                                           \
        if (sat_err_ != cudaSuccess)                                                         \
            ::sat::throw_cuda_error(sat_err_, "launch of " kernel_name, __FILE__, __LINE__); \
    } while (0)

// Status word values a spinning kernel may leave in Workspace::status (0 = fine).
enum Status : int { status_ok = 0, status_spin_timeout = 1, status_bad_input = 2 };

// What the caller of a look-back launch says of its ticket and flags (common/lookback.cuh,
// clear_flags).
enum class Flags {
    zero,          // already zero on the stream
    clear,         // not yet: the launch clears them first (clear_flags) and overlaps that
    just_cleared,  // cleared by clear_flags, the last work on the stream: the launch overlaps it
};

// Spin-wait bound for inter-block kernels: a wait longer than this many nanoseconds of
// %globaltimer means a flag will never arrive; the kernel sets status_spin_timeout and gives up.
constexpr unsigned long long spin_timeout_ns = 2'000'000'000ull;  // 2 s

// Per-run context handed to a variant: scratch memory, options and optional instrumentation.
// The harness keeps one Workspace per run sequence, so scratch is allocated once (during the
// warm-up) and then reused: do not assume it is zeroed; use get_zeroed when it must be.
class Workspace {
public:
    explicit Workspace(bool on_device) : on_device_(on_device) {}
    ~Workspace();
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;

    // `count` elements of scratch, valid until the end of this run (device memory for GPU labs).
    template <class T>
    T* get(std::size_t count) { return static_cast<T*>(bytes(count * sizeof(T))); }
    // Same, cleared to zero on `stream` (a cudaMemsetAsync, counted in the lab's time).
    template <class T>
    T* get_zeroed(std::size_t count, cudaStream_t stream) {
        return static_cast<T*>(zeroed_bytes(count * sizeof(T), stream));
    }

    // Options a variant may read (set by the harness from the command line).
    double r = -1.0;        // lab 6: (1+r)R1W split (--r, else LabInfo::default_r)
    int cpu_threads = 0;    // lab 1: threads for the multi-threaded CPU SAT (0 = all cores)
    // --batch B (variants marked batches only): `in` and `out` hold B images of `shape` back to
    // back, image b at b * shape.n() elements; 1 for everything else.
    int batch = 1;

    // Device status word, zeroed before each run and read after it (see Status).
    int* status = nullptr;
    // When --trace is given: one %globaltimer stamp per 32x32 tile, row-major over
    // ceil(rows/32) x ceil(cols/32) tiles; record with sat::record_tile (common/device.cuh).
    unsigned long long* trace = nullptr;

    // Harness side.
    void begin_run() { used_ = 0; }
    bool on_device() const { return on_device_; }

private:
    void* bytes(std::size_t n);
    void* zeroed_bytes(std::size_t n, cudaStream_t stream);
    bool on_device_;
    std::vector<void*> blocks_;       // every allocation, freed in the destructor
    std::vector<std::size_t> sizes_;
    std::size_t used_ = 0;            // blocks handed out in this run
};

template <class In, class Out>
using SatFn = void (*)(const In* in, Out* out, Shape shape, Workspace& ws, cudaStream_t stream);

// The same call with the element types erased, so the harness can hold one pointer per type.
using ErasedSatFn = void (*)(const void* in, void* out, Shape shape, Workspace& ws,
                             cudaStream_t stream);
template <class In, class Out, SatFn<In, Out> fn>
void call_typed(const void* in, void* out, Shape shape, Workspace& ws, cudaStream_t stream) {
    fn(static_cast<const In*>(in), static_cast<Out*>(out), shape, ws, stream);
}

// What a variant computes, i.e. which reference the checker compares it with.
enum class Computes { sat, transpose };
// Which measured latency the HMM prediction uses for this variant's barriers.
enum class Barrier { kernel_launch, graph_launch, none };

struct Problem;  // harness.h: what a variant computes, if not the SAT

struct Variant {
    std::string name;     // shown in tables and chosen with --variant
    std::string cost;     // key of its formula in the HMM cost table (common/hmm.cpp)
    std::string summary;  // one line for --help and the handout
    ErasedSatFn fn[4];    // indexed by DType: f32, f64, i32, u8i32
    Computes computes = Computes::sat;
    Barrier barrier = Barrier::kernel_launch;
    // Optional: the most Workspace scratch one run asks for, for the harness's memory check
    // before a run; null means "about the output's size" (lab_main's default estimate).
    std::size_t (*scratch_bytes)(DType type, Shape shape) = nullptr;
    // The problem it solves: null for the SAT; lab 8x's halftone and knapsack (common/tasks.h).
    const Problem* problem = nullptr;
    // Takes a batch of images in one run (Workspace::batch, --batch B); set with sat::batched.
    bool batches = false;
};

// The variant v, marked as taking batches: sat::batched(SAT_VARIANT(...)).
inline Variant batched(Variant v) {
    v.batches = true;
    return v;
}

// Instantiate a variant template for every harness type.
#define SAT_VARIANT(name, cost, summary, fn)                                                   \
    ::sat::Variant {                                                                           \
        name, cost, summary,                                                                   \
        {&::sat::call_typed<float, float, &fn<float, float>>,                                  \
         &::sat::call_typed<double, double, &fn<double, double>>,                              \
         &::sat::call_typed<int32_t, int32_t, &fn<int32_t, int32_t>>,                          \
         &::sat::call_typed<uint8_t, int32_t, &fn<uint8_t, int32_t>>}                          \
    }

struct LabInfo {
    int number = 0;
    std::string title;       // "1R1W and 4R1W"
    std::string source;      // "Kasagi et al. 2014, section VI"
    bool gpu = true;         // false: variants get host pointers (lab 1)
    std::vector<Variant> variants;
    std::vector<Shape> default_shapes;  // what `./labN` with no size runs
    // Optional: the r values `--sweep` tries for a shape, and r when --r is not given (lab 6).
    std::vector<double> (*sweep)(Shape shape) = nullptr;
    double default_r = -1;
    double r_or_default(double r) const { return r >= 0 ? r : default_r; }  // r < 0: not given
    // Lab 10: the SAT in row strips across GPUs; takes --gpus, --strips and --slice-rows.
    bool row_strips = false;
    // Whether any of its variants takes a batch of images (--batch B).
    bool batches() const {
        for (const Variant& v : variants)
            if (v.batches) return true;
        return false;
    }
};

// The usual LabInfo: number, title, source, variants, and the default shapes 1K, 4K and 16K;
// a lab sets any other field on the result.
inline LabInfo lab_info(int number, std::string title, std::string source, std::vector<Variant> variants,
                        std::vector<Shape> default_shapes = {{1024, 1024}, {4096, 4096}, {16384, 16384}}) {
    LabInfo lab;
    lab.number = number;
    lab.title = std::move(title);
    lab.source = std::move(source);
    lab.variants = std::move(variants);
    lab.default_shapes = std::move(default_shapes);
    return lab;
}

// Registry: each lab file registers one LabInfo; binaries and tests look labs up by number.
bool register_lab(const LabInfo& info);
const LabInfo* find_lab(int number);
std::vector<const LabInfo*> all_labs();

#define SAT_CONCAT_(a, b) a##b
#define SAT_CONCAT(a, b) SAT_CONCAT_(a, b)
#define SAT_REGISTER_LAB(make_info) \
    static const bool SAT_CONCAT(sat_lab_registered_, __LINE__) = ::sat::register_lab(make_info)

const char* dtype_name(DType t);

// Accumulator for an output type: integer sums are kept in the unsigned type of the same width,
// whose wrap-around modulo 2^32 is defined (signed overflow is not) and matches the checker.
template <class Out, bool integral = std::is_integral_v<Out>>
struct AccOf { using type = Out; };
template <class Out>
struct AccOf<Out, true> { using type = std::make_unsigned_t<Out>; };
template <class Out>
using Acc = typename AccOf<Out>::type;

}  // namespace sat
