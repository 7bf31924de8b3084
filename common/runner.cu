// runner.cu — run one variant: data, poisoned output with canaries, check, timing, calibration.
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

template <class Body>
Stats time_cpu(int reps, Body body) {
    std::vector<double> times;
    for (int i = 0; i < reps; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        body();
        times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return stats_of(times);
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
    const int tiles_y = (s.rows + 31) / 32, tiles_x = (s.cols + 31) / 32;
    unsigned long long first = ~0ull, last = 0;
    for (auto t : stamps)
        if (t) first = std::min(first, t), last = std::max(last, t);
    const int scale = std::max(1, 512 / std::max(tiles_x, tiles_y));
    const int step = std::max(1, (std::max(tiles_x, tiles_y) + 1023) / 1024);  // subsample huge grids
    const int width = (tiles_x + step - 1) / step * scale, height = (tiles_y + step - 1) / step * scale;
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

// The last reference is kept: every variant of one size, type and seed is checked against it.
struct ReferenceCache {
    DType type;
    Shape shape;
    std::uint64_t seed = 0;
    const void* input = nullptr;
    Computes computes = Computes::sat;
    std::vector<unsigned char> generated;  // the input, when it was generated from the seed
    std::shared_ptr<Reference> ref;
};

}  // namespace

// ---- One run ---------------------------------------------------------------------------------

Measurement run_variant(const RunRequest& req) {
    Measurement m;
    m.lab = req.lab->number;
    m.variant = req.variant->name;
    m.type = req.type;
    m.shape = req.shape;
    m.seed = req.seed;
    const double r = req.lab->r_or_default(req.r);  // what the variant runs with
    m.r = r;
    m.reps = req.reps;
    const bool on_gpu = req.lab->gpu;
    const Shape s = req.shape;
    const std::size_t in_bytes = s.n() * input_bytes(req.type);
    const std::size_t out_bytes = s.n() * output_bytes(req.type);
    const hmm::Formula* formula = nullptr;
    try {
        formula = &hmm::formula(req.variant->cost);
        m.hmm_formula = formula->symbolic;
        m.hmm_cost = formula->eval(hmm::params_for(s, r));
        m.device = on_gpu ? device_name() : cpu_name();

        // Input: given, or generated from the seed. The last input and its reference are kept:
        // every variant of one size, type and seed runs on the same data and checks against it.
        static ReferenceCache cache;
        if (!cache.ref || cache.type != req.type || cache.shape.rows != s.rows ||
            cache.shape.cols != s.cols || cache.seed != req.seed || cache.input != req.input ||
            cache.computes != req.variant->computes) {
            cache.ref.reset();  // free the old data before building the new
            std::vector<unsigned char>().swap(cache.generated);
            if (!req.input) {
                cache.generated.resize(in_bytes);
                generate_input(req.type, s, req.seed, cache.generated.data());
            }
            const void* data = req.input ? req.input : cache.generated.data();
            cache.ref = std::make_shared<Reference>(req.variant->computes == Computes::transpose
                                                        ? reference_transpose(req.type, s, data)
                                                        : reference_sat(req.type, s, data));
            cache.type = req.type;
            cache.shape = s;
            cache.seed = req.seed;
            cache.input = req.input;
            cache.computes = req.variant->computes;
        }
        const void* input = req.input ? req.input : cache.generated.data();
        const Reference& ref = *cache.ref;

        const std::size_t band = canary_band_bytes;
        std::vector<unsigned char> result(out_bytes + 2 * band);
        const ErasedSatFn fn = req.variant->fn[int(req.type)];
        Workspace ws(on_gpu);
        ws.r = r;
        ws.cpu_threads = req.cpu_threads;

        if (on_gpu) {
            std::size_t free_bytes = 0, total_bytes = 0;
            SAT_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
            const std::size_t needed = in_bytes + out_bytes + 2 * band;
            if (needed > free_bytes)
                throw Error("needs " + std::to_string(needed >> 20) + " MiB of GPU memory; " +
                            std::to_string(free_bytes >> 20) + " MiB free");
            Stream stream;
            DeviceBuffer in_dev(in_bytes), out_dev(out_bytes + 2 * band), status(sizeof(int));
            const std::size_t tiles = std::size_t((s.rows + 31) / 32) * ((s.cols + 31) / 32);
            DeviceBuffer trace(req.trace_png.empty() ? 0 : tiles * sizeof(unsigned long long));
            unsigned char* out_base = out_dev.as<unsigned char>();
            void* out_ptr = out_base + band;
            ws.status = status.as<int>();
            ws.trace = trace.as<unsigned long long>();
            SAT_CUDA(cudaMemcpyAsync(in_dev.ptr, input, in_bytes, cudaMemcpyHostToDevice, stream.s));
            SAT_CUDA(cudaMemsetAsync(out_base, canary_byte, band, stream.s));
            SAT_CUDA(cudaMemsetAsync(out_base + band, poison_byte, out_bytes, stream.s));
            SAT_CUDA(cudaMemsetAsync(out_base + band + out_bytes, canary_byte, band, stream.s));
            if (trace.ptr) SAT_CUDA(cudaMemsetAsync(trace.ptr, 0, tiles * sizeof(unsigned long long), stream.s));

            auto run_once = [&] {
                ws.begin_run();
                SAT_CUDA(cudaMemsetAsync(ws.status, 0, sizeof(int), stream.s));
                fn(in_dev.ptr, out_ptr, s, ws, stream.s);
            };
            auto check_status = [&] {
                const std::string error = status_error(ws.status);
                if (!error.empty()) throw Error(error);
            };
            run_once();
            SAT_CUDA(cudaStreamSynchronize(stream.s));
            check_status();
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
                run_once();  // second warm-up: scratch now allocated, graphs instantiated
                const Stats t = time_gpu(req.reps, stream.s, flusher, run_once);
                check_status();
                // The physical reference: a device copy moving the same bytes (read + write).
                const std::size_t copy_bytes = (in_bytes + out_bytes) / 2;
                DeviceBuffer copy_dst(copy_bytes);
                const Stats c = time_gpu(req.reps, stream.s, flusher, [&] {
                    SAT_CUDA(cudaMemcpyAsync(copy_dst.ptr, out_base + band, copy_bytes,
                                             cudaMemcpyDeviceToDevice, stream.s));
                });
                m.median_ms = t.median;
                m.min_ms = t.min;
                m.max_ms = t.max;
                m.copy_ms = c.median;
                calibrate_latency(m.calibration);
                m.calibration.unit_s = c.median * 1e-3 / (2.0 * double(s.n()) / 32.0);
            }
        } else {
            std::memset(result.data(), canary_byte, result.size());
            std::memset(result.data() + band, poison_byte, out_bytes);
            ws.begin_run();
            fn(input, result.data() + band, s, ws, nullptr);
            if (req.reps > 0) {
                std::vector<unsigned char> scratch_out(out_bytes);
                const Stats t = time_cpu(req.reps, [&] {
                    ws.begin_run();
                    fn(input, scratch_out.data(), s, ws, nullptr);
                });
                const std::size_t copy_bytes = (in_bytes + out_bytes) / 2;
                std::vector<unsigned char> src(copy_bytes, 1), dst(copy_bytes, 0);
                const Stats c = time_cpu(req.reps, [&] { std::memcpy(dst.data(), src.data(), copy_bytes); });
                m.median_ms = t.median;
                m.min_ms = t.min;
                m.max_ms = t.max;
                m.copy_ms = c.median;
            }
        }
        m.check = compare_output(req.type, ref, result.data() + band);
        m.check.canary = check_canaries(result.data(), result.data() + band + out_bytes, band);
        if (!m.check.canary.empty()) m.check.pass = false;
        if (req.output) std::memcpy(req.output, result.data() + band, out_bytes);
    } catch (const std::exception& e) {
        m.error = e.what();
        if (on_gpu) cudaGetLastError();  // clear a non-sticky error so the next run can go on
    }
    if (m.median_ms > 0) {
        m.gbps = double(in_bytes + out_bytes) / (m.median_ms * 1e-3) / 1e9;
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
