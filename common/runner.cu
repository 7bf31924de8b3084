// runner.cu — run one variant of any Problem: data, poisoned output with canaries, check, timing,
// calibration (Problem::run's default; lab 10 brings its own, common/multigpu.cu).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>

#include "data.h"
#include "gpu_timing.h"
#include "harness.h"
#include "io.h"
#include "touch_pages.cuh"

namespace sat {

// ---- Environment -----------------------------------------------------------------------------

bool gpu_available(std::string* why) {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        if (why) {
            if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver || count == 0)
                *why = "no CUDA GPU on this machine (or no NVIDIA driver for one)";
            else
                *why = std::string("no usable CUDA GPU (") + cudaGetErrorString(err) + ")";
        }
        cudaGetLastError();  // clear the error so later calls are not confused by it
        return false;
    }
    return true;
}

static std::string cpu_name() {
    std::ifstream info("/proc/cpuinfo");
    std::string line;
    while (std::getline(info, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "CPU";
}

std::string device_name() {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return "unknown GPU";
    return prop.name;
}

// ---- Device memory, timing -------------------------------------------------------------------

namespace {

struct Stream {
    cudaStream_t s = nullptr;
    Stream() { SAT_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
    ~Stream() { cudaStreamDestroy(s); }
};

// Time `body` reps times; after() runs after each, outside the timed region.
template <class Body, class After>
Stats time_cpu(int reps, Body body, After after) {
    std::vector<double> times;
    for (int i = 0; i < reps; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        body();
        times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        after();
    }
    return stats_of(times);
}
template <class Body>
Stats time_cpu(int reps, Body body) {
    return time_cpu(reps, body, [] {});
}

__global__ void latency_probe(int* sink, int step) {
    if (threadIdx.x == 0) *sink += step;  // each launch depends on the one before it
}

}  // namespace

// l of the HMM measured two ways: a dependent kernel launch on a stream, and a dependent
// kernel node inside an instantiated CUDA graph. Measured once per process.
void calibrate_latency(hmm::Calibration& cal) {
    static bool done = false;
    static double launch_s = 0, graph_s = 0;
    if (!done) {
        constexpr int chain = 256;
        Stream stream;
        Events ev;
        DeviceBuffer sink(sizeof(int));
        auto launch_chain = [&] {
            for (int i = 0; i < chain; ++i) latency_probe<<<1, 32, 0, stream.s>>>(sink.as<int>(), i);
            SAT_CHECK_LAUNCH("latency_probe");
        };
        launch_chain();  // warm-up
        std::vector<double> launch_ms, graph_ms;
        for (int rep = 0; rep < 5; ++rep) {
            SAT_CUDA(cudaEventRecord(ev.start, stream.s));
            launch_chain();
            SAT_CUDA(cudaEventRecord(ev.stop, stream.s));
            SAT_CUDA(cudaEventSynchronize(ev.stop));
            launch_ms.push_back(ev.ms());
        }
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        SAT_CUDA(cudaStreamBeginCapture(stream.s, cudaStreamCaptureModeThreadLocal));
        launch_chain();
        SAT_CUDA(cudaStreamEndCapture(stream.s, &graph));
        SAT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
        SAT_CUDA(cudaGraphLaunch(exec, stream.s));  // warm-up
        for (int rep = 0; rep < 5; ++rep) {
            SAT_CUDA(cudaEventRecord(ev.start, stream.s));
            SAT_CUDA(cudaGraphLaunch(exec, stream.s));
            SAT_CUDA(cudaEventRecord(ev.stop, stream.s));
            SAT_CUDA(cudaEventSynchronize(ev.stop));
            graph_ms.push_back(ev.ms());
        }
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        launch_s = stats_of(launch_ms).median * 1e-3 / chain;
        graph_s = stats_of(graph_ms).median * 1e-3 / chain;
        done = true;
    }
    cal.l_launch_s = launch_s;
    cal.l_graph_s = graph_s;
}

namespace {

// The trace picture: one square per 32x32 tile, coloured by when it finished.
void write_trace(const std::string& path, Shape s, const std::vector<unsigned long long>& stamps) {
    const int tiles_y = ceil_div(s.rows, 32), tiles_x = ceil_div(s.cols, 32);
    unsigned long long first = ~0ull, last = 0;
    for (auto t : stamps)
        if (t) first = std::min(first, t), last = std::max(last, t);
    const int scale = std::max(1, 512 / std::max(tiles_x, tiles_y));
    const int step = std::max(1, ceil_div(std::max(tiles_x, tiles_y), 1024));  // subsample huge grids
    const int width = ceil_div(tiles_x, step) * scale, height = ceil_div(tiles_y, step) * scale;
    std::vector<unsigned char> rgb(std::size_t(width) * height * 3, 128);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const unsigned long long t = stamps[std::size_t(y / scale * step) * tiles_x + x / scale * step];
            unsigned char* px = &rgb[(std::size_t(y) * width + x) * 3];
            if (t == 0) continue;  // never recorded: gray
            ramp_colour(last > first ? double(t - first) / double(last - first) : 0.0, px);
        }
    write_image(path, width, height, 3, rgb.data());
}

// Index of the first 32-bit word where a and b differ, into *first (set to ~0 by the caller):
// each thread stops at its first difference, the smallest of which wins the atomicMin.
__global__ void first_difference(const unsigned* a, const unsigned* b, std::size_t words,
                                 unsigned long long* first) {
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    for (std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; k < words; k += stride)
        if (a[k] != b[k]) {
            atomicMin(first, (unsigned long long)k);
            return;
        }
}

constexpr std::size_t no_difference = ~std::size_t(0);

// Byte offset of the first difference between two host buffers of equal size, or no_difference.
std::size_t first_difference_host(const std::vector<unsigned char>& a, const unsigned char* b) {
    const auto hit = std::mismatch(a.begin(), a.end(), b);
    return hit.first == a.end() ? no_difference : std::size_t(hit.first - a.begin());
}

// One line for a repetition whose output buffer (canary bands included, band bytes each) first
// differs from the checked run's at byte `offset`; checked/got are the two whole buffers' bytes
// at the differing element; s is the shape of one output, `images` of them back to back.
std::string describe_repetition(const std::string& which, const Problem& problem, DType type, Shape s, int images,
                                std::size_t band, std::size_t offset, const unsigned char* checked_elem,
                                const unsigned char* got_elem) {
    const std::size_t elem = problem.output_element_bytes(type), out_bytes = s.n() * elem * std::size_t(images);
    if (offset < band)
        return which + " wrote " + std::to_string(band - offset) + " bytes before the output (the checked run did not)";
    if (offset >= band + out_bytes)
        return which + " wrote " + std::to_string(offset - band - out_bytes) +
               " bytes past the end of the output (the checked run did not)";
    const std::size_t index = (offset - band) / elem % s.n(), image = (offset - band) / elem / s.n();
    const std::string in_image = images > 1 ? " in image " + std::to_string(image) + " (0-based)" : "";
    char buf[320];
    std::snprintf(buf, sizeof buf, " differs from the checked run: first%s at (row %zu, col %zu): checked %.17g, got %.17g%s",
                  in_image.c_str(), index / std::size_t(s.cols), index % std::size_t(s.cols), problem.output_value(type, checked_elem),
                  problem.output_value(type, got_elem), is_poison_bytes(got_elem, elem) ? unwritten_note : " (a race?)");
    return which + buf;
}

// Compares the output buffer (canary bands included) after a repetition with the checked run's,
// bit for bit: on the GPU against a device copy of the checked run when that fits in free memory
// (with 256 MiB to spare), else on the host after a copy back. Keeps the first difference.
class RepetitionCheck {
public:
    RepetitionCheck(const std::vector<unsigned char>& checked, const unsigned char* out_dev, const Problem& problem,
                    DType type, Shape shape, int images, std::size_t band, cudaStream_t stream)
        : checked_(checked), out_dev_(out_dev), problem_(problem), type_(type), shape_(shape), images_(images), band_(band),
          stream_(stream),
          on_device_(fits_on_device(checked.size())),
          checked_dev_(on_device_ ? checked.size() : 0),
          first_word_(on_device_ ? sizeof(unsigned long long) : 0),
          got_host_(on_device_ ? 0 : checked.size()) {
        if (on_device_)
            SAT_CUDA(cudaMemcpyAsync(checked_dev_.ptr, out_dev, checked.size(), cudaMemcpyDeviceToDevice, stream));
    }
    // Compare the output now in the buffer (after the stream's work) with the checked run.
    void compare(const std::string& which) {
        if (!first_.empty()) return;  // one line: the first repetition that differs
        std::size_t offset = on_device_ ? difference_on_device() : difference_on_host();
        if (offset == no_difference) return;
        const std::size_t elem = problem_.output_element_bytes(type_), out_bytes = checked_.size() - 2 * band_;
        if (offset >= band_ && offset < band_ + out_bytes) offset = band_ + (offset - band_) / elem * elem;
        unsigned char got[16] = {};
        if (on_device_)
            SAT_CUDA(cudaMemcpy(got, out_dev_ + offset, std::min(elem, checked_.size() - offset), cudaMemcpyDeviceToHost));
        else
            std::memcpy(got, got_host_.data() + offset, std::min(elem, checked_.size() - offset));
        first_ = describe_repetition(which, problem_, type_, shape_, images_, band_, offset, checked_.data() + offset, got);
    }
    const std::string& first() const { return first_; }

private:
    static bool fits_on_device(std::size_t bytes) {
        std::size_t free_bytes = 0, total_bytes = 0;
        SAT_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
        return bytes + (std::size_t(256) << 20) <= free_bytes;
    }
    std::size_t difference_on_device() {
        // Whole 4-byte words on the GPU; the last size % 4 bytes (an 8-bit output) on the host.
        const std::size_t words = checked_.size() / 4, tail = checked_.size() % 4;
        const unsigned blocks = unsigned(std::min<std::size_t>(words / 256 + 1, 4096));
        SAT_CUDA(cudaMemsetAsync(first_word_.ptr, 0xFF, sizeof(unsigned long long), stream_));
        first_difference<<<blocks, 256, 0, stream_>>>(checked_dev_.as<unsigned>(),
                                                      reinterpret_cast<const unsigned*>(out_dev_), words,
                                                      first_word_.as<unsigned long long>());
        SAT_CHECK_LAUNCH("first_difference");
        unsigned long long word = 0;
        SAT_CUDA(cudaMemcpyAsync(&word, first_word_.ptr, sizeof word, cudaMemcpyDeviceToHost, stream_));
        unsigned char last[4] = {};
        if (tail) SAT_CUDA(cudaMemcpyAsync(last, out_dev_ + words * 4, tail, cudaMemcpyDeviceToHost, stream_));
        SAT_CUDA(cudaStreamSynchronize(stream_));
        if (word != ~0ull) return std::size_t(word) * 4;
        for (std::size_t k = 0; k < tail; ++k)
            if (last[k] != checked_[words * 4 + k]) return words * 4 + k;
        return no_difference;
    }
    std::size_t difference_on_host() {
        SAT_CUDA(cudaStreamSynchronize(stream_));
        SAT_CUDA(cudaMemcpy(got_host_.data(), out_dev_, checked_.size(), cudaMemcpyDeviceToHost));
        return first_difference_host(checked_, got_host_.data());
    }

    const std::vector<unsigned char>& checked_;
    const unsigned char* out_dev_;
    const Problem& problem_;
    DType type_;
    Shape shape_;
    int images_;
    std::size_t band_;
    cudaStream_t stream_;
    bool on_device_;
    DeviceBuffer checked_dev_, first_word_;
    std::vector<unsigned char> got_host_;
    std::string first_;
};

// The last answer is kept: every variant of one problem, size, type and seed is checked against it.
struct AnswerCache {
    const Problem* problem = nullptr;
    DType type;
    Shape shape;
    int batch = 1;
    std::uint64_t seed = 0;
    DataKind data = DataKind::exact;
    const void* input = nullptr;
    Computes computes = Computes::sat;
    std::vector<unsigned char> generated;  // the input, when it was generated from the seed
    std::vector<std::shared_ptr<const Answer>> answers;  // one per image of the batch
};

// The check of a batch: each image's output against its own answer, in one report. The first
// wrong element is the first in the first image that has one (CheckReport::first_image); the
// counts and the largest error are over the whole batch.
CheckReport check_batch(const Problem& problem, DType type, const AnswerCache& cache, const unsigned char* output) {
    const std::size_t image_bytes = cache.answers.front()->shape.n() * problem.output_element_bytes(type);
    CheckReport all;
    std::size_t checked = 0, wrong = 0;
    double max_error = 0;
    for (std::size_t b = 0; b < cache.answers.size(); ++b) {
        const CheckReport one = problem.check(type, *cache.answers[b], output + b * image_bytes);
        checked += one.checked, wrong += one.wrong, max_error = std::max(max_error, one.max_error);
        if (b == 0 || (!one.pass && all.pass)) {  // the first image's report, or the first failing one's
            all = one;
            if (!one.pass) all.first_image = long(b);
        }
    }
    all.checked = checked, all.wrong = wrong, all.max_error = max_error;
    all.images = int(cache.answers.size());
    return all;
}

}  // namespace

// ---- One run ---------------------------------------------------------------------------------

Measurement run_variant(const RunRequest& req) { return problem_of(*req.variant).run(req); }

// A batch in one run: B times the transfers of one image, the barriers once (one launch for all).
CostModel Problem::cost_of(const RunRequest& req) const {
    CostModel c = cost(*req.variant, req.shape, req.lab->r_or_default(req.r), req.type);
    if (req.batch > 1) c.cost.units *= req.batch;
    return c;
}

Measurement Problem::run(const RunRequest& req) const {
    const Problem& problem = *this;
    Measurement m;
    m.lab = req.lab->number;
    m.variant = req.variant->name;
    m.problem = problem.name();
    m.type = req.type;
    m.type_name = problem.type_name(req.type);
    m.shape = req.shape;
    m.batch = req.batch;
    m.seed = req.seed;
    const double r = req.lab->r_or_default(req.r);  // what the variant runs with
    m.r = r;
    m.reps = req.reps;
    const bool on_gpu = req.lab->gpu;
    const Shape s = req.shape;
    const int images = std::max(1, req.batch);  // a batch: `images` inputs and outputs of shape s, back to back
    const std::size_t image_in_bytes = problem.input_bytes(req.type, s), in_bytes = image_in_bytes * images;
    Traffic traffic;
    try {
        if (images > 1 && (!req.variant->batches || req.input || req.output || !req.trace_png.empty()))
            throw Error("--batch " + std::to_string(images) + ": " + req.variant->name +
                        (req.variant->batches ? " runs a batch on generated data only" : " takes one image at a time"));
        const CostModel model = problem.cost_of(req);
        m.hmm_formula = model.symbolic;
        m.hmm_cost = model.cost;
        traffic = problem.traffic(req.type, s);
        traffic.bytes *= images, traffic.units *= images;
        m.device = on_gpu ? device_name() : cpu_name();

        // Input: given, or generated from the seed. The last input and its answer are kept:
        // every variant of one problem, size, type and seed runs on the same data and checks against it.
        // A batch: image b is the input image_seed(seed, b) generates, checked against its own answer.
        static AnswerCache cache;
        if (cache.answers.empty() || cache.problem != &problem || cache.type != req.type || cache.shape.rows != s.rows ||
            cache.shape.cols != s.cols || cache.batch != images || cache.seed != req.seed || cache.data != req.data ||
            cache.input != req.input || cache.computes != req.variant->computes) {
            cache.answers.clear();  // free the old data before building the new
            std::vector<unsigned char>().swap(cache.generated);
            if (!req.input) {
                cache.generated.resize(in_bytes);
                for (int b = 0; b < images; ++b)
                    problem.generate(req.type, s, image_seed(req.seed, b), req.data,
                                     cache.generated.data() + std::size_t(b) * image_in_bytes);
            }
            const unsigned char* in = req.input ? static_cast<const unsigned char*>(req.input) : cache.generated.data();
            for (int b = 0; b < images; ++b)
                cache.answers.push_back(problem.answer(req.type, s, in + std::size_t(b) * image_in_bytes, *req.variant));
            cache.problem = &problem;
            cache.type = req.type;
            cache.shape = s;
            cache.batch = images;
            cache.seed = req.seed;
            cache.data = req.data;
            cache.input = req.input;
            cache.computes = req.variant->computes;
        }
        const void* input = req.input ? req.input : cache.generated.data();
        const Answer& answer = *cache.answers.front();
        for (const auto& a : cache.answers) m.cpu_reference_ms += a->cpu_ms;

        const std::size_t band = canary_band_bytes;
        const std::size_t out_bytes = answer.shape.n() * problem.output_element_bytes(req.type) * images;
        std::vector<unsigned char> result(out_bytes + 2 * band);
        const ErasedSatFn fn = req.variant->fn[int(req.type)];
        std::string repetition;  // the first repetition whose output differs from the checked one
        Workspace ws(on_gpu);
        ws.r = r;
        ws.cpu_threads = req.cpu_threads;
        ws.batch = images;
        // The copy baseline moves traffic.bytes: half read, half written.
        const std::size_t copy_bytes = std::size_t(traffic.bytes / 2);

        if (on_gpu) {
            std::size_t free_bytes = 0, total_bytes = 0;
            SAT_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
            const std::size_t needed = in_bytes + out_bytes + 2 * band;
            if (needed > free_bytes)
                throw Error("needs " + std::to_string(needed >> 20) + " MiB of GPU memory; " +
                            std::to_string(free_bytes >> 20) + " MiB free");
            Stream stream;
            DeviceBuffer in_dev(in_bytes), out_dev(out_bytes + 2 * band), status(sizeof(int));
            const std::size_t tiles = std::size_t(ceil_div(s.rows, 32)) * ceil_div(s.cols, 32);
            DeviceBuffer trace(req.trace_png.empty() ? 0 : tiles * sizeof(unsigned long long));
            unsigned char* out_base = out_dev.as<unsigned char>();
            void* out_ptr = out_base + band;
            ws.status = status.as<int>();
            ws.trace = trace.as<unsigned long long>();
            if (in_bytes) SAT_CUDA(cudaMemcpyAsync(in_dev.ptr, input, in_bytes, cudaMemcpyHostToDevice, stream.s));
            SAT_CUDA(cudaMemsetAsync(out_base, canary_byte, band, stream.s));
            SAT_CUDA(cudaMemsetAsync(out_base + band, poison_byte, out_bytes, stream.s));
            SAT_CUDA(cudaMemsetAsync(out_base + band + out_bytes, canary_byte, band, stream.s));
            if (trace.ptr) SAT_CUDA(cudaMemsetAsync(trace.ptr, 0, tiles * sizeof(unsigned long long), stream.s));

            auto run_once = [&] {
                ws.begin_run();
                SAT_CUDA(cudaMemsetAsync(ws.status, 0, sizeof(int), stream.s));
                fn(in_dev.ptr, out_ptr, s, ws, stream.s);
            };
            // Read after every run (the next run clears it), so a spin timeout in any repetition
            // is reported as the timeout, with the run it happened in.
            auto check_status = [&](const std::string& which) {
                SAT_CUDA(cudaStreamSynchronize(stream.s));
                const std::string error = status_error(ws.status);
                if (!error.empty()) throw Error(which.empty() ? error : which + ": " + error);
            };
            run_once();
            check_status("");
            SAT_CUDA(cudaMemcpy(result.data(), out_base, result.size(), cudaMemcpyDeviceToHost));
            if (trace.ptr) {
                std::vector<unsigned long long> stamps(tiles);
                SAT_CUDA(cudaMemcpy(stamps.data(), trace.ptr, tiles * sizeof(unsigned long long),
                                    cudaMemcpyDeviceToHost));
                write_trace(req.trace_png, s, stamps);
                ws.trace = nullptr;  // timing runs do not record
            }
            if (req.reps > 0) {
                L2Flusher flusher;
                // Every repetition runs into a freshly poisoned output and is compared with the
                // checked run outside the timed region.
                auto poison_output = [&] {
                    SAT_CUDA(cudaMemsetAsync(out_base + band, poison_byte, out_bytes, stream.s));
                };
                // Before a timed repetition: a poisoned output, then every page of the input and
                // output touched. The check reads the checked run's copy and the output (4 GiB at
                // f64 16384^2), which can leave the TLBs without the input's pages; touched, each
                // repetition starts with the translations a back-to-back run finds.
                auto prepare_repetition = [&] {
                    poison_output();
                    if (in_bytes) SAT_CUDA(touch_pages_async(in_dev.ptr, in_bytes, stream.s));
                    SAT_CUDA(touch_pages_async(out_base, out_bytes + 2 * band, stream.s));
                };
                Stats t;
                {  // the device copy of the checked run is freed before the copy below is timed
                    RepetitionCheck repeat(result, out_base, problem, req.type, answer.shape, images, band, stream.s);
                    poison_output();
                    run_once();  // second warm-up: scratch now allocated, graphs instantiated
                    check_status("the warm-up run");
                    repeat.compare("the warm-up run");
                    prepare_repetition();
                    t = time_gpu(req.reps, stream.s, flusher, run_once, [&](int k) {
                        const std::string which = "timed repetition " + std::to_string(k + 1) + " of " + std::to_string(req.reps);
                        check_status(which);
                        repeat.compare(which);
                        prepare_repetition();
                    });
                    repetition = repeat.first();
                }
                // The physical reference: a device copy moving the same bytes (read + write), from
                // the output when it is that large (the SAT), else from a buffer of its own.
                const bool own_source = copy_bytes > out_bytes + band;
                DeviceBuffer copy_dst(copy_bytes), copy_src(own_source ? copy_bytes : 0);
                const void* copy_from = own_source ? copy_src.ptr : static_cast<void*>(out_base + band);
                const Stats c = time_gpu(req.reps, stream.s, flusher, [&] {
                    SAT_CUDA(cudaMemcpyAsync(copy_dst.ptr, copy_from, copy_bytes, cudaMemcpyDeviceToDevice, stream.s));
                });
                m.median_ms = t.median;
                m.min_ms = t.min;
                m.max_ms = t.max;
                m.copy_ms = c.median;
                calibrate_latency(m.calibration);
                m.calibration.unit_s = c.median * 1e-3 / traffic.units;
            }
        } else {
            std::memset(result.data(), canary_byte, result.size());
            std::memset(result.data() + band, poison_byte, out_bytes);
            ws.begin_run();
            fn(input, result.data() + band, s, ws, nullptr);
            if (req.reps > 0) {
                // Each repetition writes into a poisoned buffer with canary bands, compared
                // byte for byte with the checked run after it, outside the timed region.
                std::vector<unsigned char> rep_out(result.size(), canary_byte);
                std::memset(rep_out.data() + band, poison_byte, out_bytes);
                int k = 0;
                const Stats t = time_cpu(req.reps, [&] {
                    ws.begin_run();
                    fn(input, rep_out.data() + band, s, ws, nullptr);
                }, [&] {
                    ++k;
                    std::size_t offset = first_difference_host(result, rep_out.data());
                    if (repetition.empty() && offset != no_difference) {
                        const std::size_t elem = problem.output_element_bytes(req.type);
                        if (offset >= band && offset < band + out_bytes) offset = band + (offset - band) / elem * elem;
                        repetition = describe_repetition("timed repetition " + std::to_string(k) + " of " + std::to_string(req.reps),
                                                         problem, req.type, answer.shape, images, band, offset,
                                                         result.data() + offset, rep_out.data() + offset);
                    }
                    std::memset(rep_out.data() + band, poison_byte, out_bytes);
                });
                std::vector<unsigned char> src(copy_bytes, 1), dst(copy_bytes, 0);
                const Stats c = time_cpu(req.reps, [&] { std::memcpy(dst.data(), src.data(), copy_bytes); });
                m.median_ms = t.median;
                m.min_ms = t.min;
                m.max_ms = t.max;
                m.copy_ms = c.median;
            }
        }
        m.check = check_batch(problem, req.type, cache, result.data() + band);
        m.check.canary = check_canaries(result.data(), result.data() + band + out_bytes, band);
        if (!m.check.canary.empty()) m.check.pass = false;
        m.check.repetition = repetition;
        if (!repetition.empty()) m.check.pass = false;
        if (req.output) std::memcpy(req.output, result.data() + band, out_bytes);
    } catch (const std::exception& e) {
        m.error = e.what();
        if (on_gpu) cudaGetLastError();  // clear a non-sticky error so the next run can go on
    }
    if (m.median_ms > 0) {
        m.gbps = traffic.bytes / (m.median_ms * 1e-3) / 1e9;
        m.pct_copy = 100.0 * m.copy_ms / m.median_ms;
        m.predicted_ms = on_gpu ? 1e3 * hmm::predict_seconds(m.hmm_cost, m.calibration, req.variant->barrier)
                                : std::numeric_limits<double>::quiet_NaN();
    } else {
        m.predicted_ms = std::numeric_limits<double>::quiet_NaN();
    }
    return m;
}

std::string Measurement::verdict() const {
    if (!error.empty()) return "ERROR";
    return check.pass ? "PASS" : "FAIL";
}

}  // namespace sat
