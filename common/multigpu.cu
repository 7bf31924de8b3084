// multigpu.cu — lab 10's run: strips on G GPUs (or on one), the exchange between them (NCCL
// or a device-local copy), the check against the CPU reference in slices, timing and the
// calibration of the GPU-to-GPU level of the cost model (docs/lab10.md); and lab 10's Problem,
// whose run hooks take ./lab10 through the shared lab_main and run_variant.
#include "multigpu.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>

#include "gpu_timing.h"

#ifndef SAT_HAVE_NCCL
#define SAT_HAVE_NCCL 0  // mk/lab10.mk sets it to 1 when it finds NCCL
#endif
#if SAT_HAVE_NCCL
#include <dlfcn.h>
#include <nccl.h>
#endif

namespace sat::multigpu {

std::vector<StripRange> split_rows(int rows, int strips) {
    if (strips < 1) throw UsageError("the number of strips must be at least 1, got " + std::to_string(strips));
    if (rows < strips)
        throw UsageError(std::to_string(rows) + " rows cannot be cut into " + std::to_string(strips) +
                         " strips of at least one row each (use at most " + std::to_string(rows) + " strips)");
    std::vector<StripRange> parts(strips);
    const int base = rows / strips, extra = rows % strips;
    int row0 = 0;
    for (int g = 0; g < strips; ++g) {
        parts[g].row0 = row0;
        parts[g].rows = base + (g < extra ? 1 : 0);
        row0 += parts[g].rows;
    }
    return parts;
}

// ---- Exchanges ------------------------------------------------------------------------------------

namespace {

// G strips on one device: strip g's row is copied into every other strip's buffer, on the
// receiving strip's stream, once the sending strip's stream has published it.
class LocalExchange : public Exchange {
public:
    explicit LocalExchange(int strips) : sent_(strips) {
        for (auto& e : sent_) SAT_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    }
    std::string name() const override { return "device-local copy"; }
    void all_gather(void* const* gathered, std::size_t bytes, const cudaStream_t* streams) override {
        const int G = int(sent_.size());
        for (int g = 0; g < G; ++g) SAT_CUDA(cudaEventRecord(sent_[g], streams[g]));
        for (int to = 0; to < G; ++to)
            for (int from = 0; from < G; ++from) {
                if (from == to) continue;
                SAT_CUDA(cudaStreamWaitEvent(streams[to], sent_[from], 0));
                SAT_CUDA(cudaMemcpyAsync(static_cast<char*>(gathered[to]) + from * bytes,
                                         static_cast<char*>(gathered[from]) + from * bytes, bytes,
                                         cudaMemcpyDeviceToDevice, streams[to]));
            }
    }

private:
    std::vector<cudaEvent_t> sent_;
};

#if SAT_HAVE_NCCL
// NCCL's entry points, from the library mk/lab10.mk found (SAT_NCCL_LIB), opened on first use;
// where that path is not there (a binary built on another machine), NCCL's soname through the
// loader's search path.
struct NcclApi {
    decltype(&ncclCommInitAll) comm_init_all = nullptr;
    decltype(&ncclGetVersion) get_version = nullptr;
    decltype(&ncclGetErrorString) error_string = nullptr;
    decltype(&ncclGroupStart) group_start = nullptr;
    decltype(&ncclGroupEnd) group_end = nullptr;
    decltype(&ncclAllGather) all_gather = nullptr;
    std::string error;  // empty when every entry point was found
};
const NcclApi& nccl() {
    static const NcclApi api = [] {
        NcclApi a;
        std::string path = SAT_NCCL_LIB;
        void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (!lib) {
            const std::string built_with = std::string("cannot open ") + path + ": " + dlerror();
            path = "libnccl.so.2";
            lib = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
            if (!lib) {
                a.error = built_with + "; nor " + path + ": " + dlerror();
                return a;
            }
        }
        auto take = [&](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
            if (!fn && a.error.empty()) a.error = path + " has no " + name;
        };
        take(a.comm_init_all, "ncclCommInitAll");
        take(a.get_version, "ncclGetVersion");
        take(a.error_string, "ncclGetErrorString");
        take(a.group_start, "ncclGroupStart");
        take(a.group_end, "ncclGroupEnd");
        take(a.all_gather, "ncclAllGather");
        return a;
    }();
    return api;
}

void nccl_check(ncclResult_t r, const char* what) {
    if (r != ncclSuccess) throw Error(std::string("NCCL: ") + what + " failed: " + nccl().error_string(r));
}

class NcclExchange : public Exchange {
public:
    explicit NcclExchange(int devices) : comms_(devices) {
        std::vector<int> list(devices);
        std::iota(list.begin(), list.end(), 0);
        nccl_check(nccl().comm_init_all(comms_.data(), devices, list.data()), "ncclCommInitAll");
    }
    std::string name() const override {
        int v = 0;
        nccl().get_version(&v);
        return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
               std::to_string(v % 100);
    }
    void all_gather(void* const* gathered, std::size_t bytes, const cudaStream_t* streams) override {
        nccl_check(nccl().group_start(), "ncclGroupStart");
        for (std::size_t g = 0; g < comms_.size(); ++g)
            nccl_check(nccl().all_gather(static_cast<char*>(gathered[g]) + g * bytes, gathered[g], bytes, ncclInt8,
                                     comms_[g], streams[g]),
                       "ncclAllGather");
        nccl_check(nccl().group_end(), "ncclGroupEnd");
    }

private:
    std::vector<ncclComm_t> comms_;
};
#endif

}  // namespace

bool have_nccl(std::string* why) {
#if SAT_HAVE_NCCL
    if (why) *why = nccl().error;
    return nccl().error.empty();
#else
    if (why) *why = "lab 10 was built without NCCL (mk/lab10.mk found none)";
    return false;
#endif
}

std::unique_ptr<Exchange> make_exchange(const Placement& where) {
    if (where.devices <= 1) return std::make_unique<LocalExchange>(where.strips);
    std::string why;
    if (!have_nccl(&why)) throw Error(why + ", so it cannot run across GPUs");
#if SAT_HAVE_NCCL
    return std::make_unique<NcclExchange>(where.devices);
#endif
    return nullptr;
}

namespace {

// One exchange per placement for the whole process (NCCL communicators are slow to make); they
// live until the process ends.
Exchange& exchange_for(const Placement& where) {
    static std::map<std::pair<int, int>, Exchange*> made;
    Exchange*& ex = made[{where.strips, where.devices}];
    if (!ex) ex = make_exchange(where).release();
    return *ex;
}

// Every allocation, stream and event of one strip, released on its device.
struct StripMemory {
    int device = 0;
    std::vector<void*> blocks;
    std::vector<cudaStream_t> streams;
    std::vector<cudaEvent_t> events;
    explicit StripMemory(int dev) : device(dev) {}
    StripMemory(const StripMemory&) = delete;
    ~StripMemory() {
        cudaSetDevice(device);
        for (void* p : blocks) cudaFree(p);
        for (cudaStream_t s : streams) cudaStreamDestroy(s);
        for (cudaEvent_t e : events) cudaEventDestroy(e);
    }
    template <class T>
    T* alloc(std::size_t count) {
        void* p = nullptr;
        if (count) SAT_CUDA(cudaMalloc(&p, count * sizeof(T)));
        blocks.push_back(p);
        return static_cast<T*>(p);
    }
    cudaStream_t stream() {
        streams.emplace_back();
        SAT_CUDA(cudaStreamCreateWithFlags(&streams.back(), cudaStreamNonBlocking));
        return streams.back();
    }
    cudaEvent_t event(bool timing = false) {
        events.emplace_back();
        SAT_CUDA(cudaEventCreateWithFlags(&events.back(), timing ? cudaEventDefault : cudaEventDisableTiming));
        return events.back();
    }
};

constexpr std::size_t link_probe_bytes = 4 << 20;  // the large message of the link calibration

// Device bytes of strip `g`: input, output with canary bands, gathered rows, library scratch,
// the status word, the copy target (when timed) and the link probe.
std::size_t strip_bytes(const StripRequest& req, StripRange r, int G) {
    const std::size_t W = std::size_t(req.shape.cols), n = std::size_t(r.rows) * W;
    const std::size_t ib = input_bytes(req.type), ob = output_bytes(req.type);
    const ScratchSizes need = req.schedule->scratch[int(req.type)](r.rows, int(W));
    const ScanScratchSize scan = need.strip, row = need.row;
    return n * (ib + ob) + 2 * canary_band_bytes + G * W * ob + scan.state_bytes + scan.value_bytes +
           row.state_bytes + row.value_bytes + 256 + (req.reps > 0 ? n * (ib + ob) / 2 : 0) +
           (G > 1 && req.reps > 0 ? G * link_probe_bytes : 0);
}

}  // namespace

bool fits(const StripRequest& req, std::string* why) {
    const auto parts = split_rows(req.shape.rows, req.where.strips);
    std::vector<std::size_t> need(req.where.devices, std::size_t(64) << 20);  // + flush buffer, contexts
    for (int g = 0; g < int(parts.size()); ++g)
        need[req.where.device_of(g)] += strip_bytes(req, parts[g], int(parts.size()));
    for (int d = 0; d < req.where.devices; ++d) {
        std::size_t free_bytes = 0, total = 0;
        SAT_CUDA(cudaSetDevice(d));
        SAT_CUDA(cudaMemGetInfo(&free_bytes, &total));
        if (need[d] > free_bytes) {
            if (why)
                *why = std::to_string(req.shape.rows) + "x" + std::to_string(req.shape.cols) + " " +
                       dtype_name(req.type) + " needs " + std::to_string(need[d] >> 20) + " MiB on GPU " +
                       std::to_string(d) + "; " + std::to_string(free_bytes >> 20) +
                       " MiB free (more strips or GPUs, or --reps 0, need less)";
            SAT_CUDA(cudaSetDevice(0));
            return false;
        }
    }
    SAT_CUDA(cudaSetDevice(0));
    return true;
}

// ---- The CPU reference in slices ------------------------------------------------------------------

SlicedReference::SlicedReference(DType type, Shape whole) : type_(type), whole_(whole) {
    carry_exact_.assign(whole.cols, 0);
    carry_.assign(whole.cols, 0.0);
}

namespace {
// v (rows of W) += `carry` in every row, in parallel over rows; then carry = v's last row.
template <class T>
void add_carry_row(std::vector<T>& v, std::vector<T>& carry) {
    const std::size_t W = carry.size();
    parallel_for(v.size() / W, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) {
            T* row = v.data() + i * W;
            for (std::size_t j = 0; j < W; ++j) row[j] += carry[j];
        }
    }, std::max<std::size_t>(1, 4096 / W));
    std::copy(v.end() - W, v.end(), carry.begin());
}
}  // namespace

Reference SlicedReference::next(const void* in, int rows, double extra_chain) {
    if (rows < 1 || done_ + rows > whole_.rows) throw Error("SlicedReference: rows beyond the matrix");
    Reference ref = reference_sat(type_, Shape{rows, whole_.cols}, in);
    // Every element gets the sums of all rows above the slice: the previous slice's last row.
    if (!ref.exact_sums.empty()) {  // integer outputs: sums modulo 2^32
        add_carry_row(ref.exact_sums, carry_exact_);
    } else if (ref.exact) {  // exact float data: stays exact while the whole SAT stays small
        add_carry_row(ref.sums, carry_);
        max_abs_sum_ = std::max(max_abs_sum_, max_abs(ref.sums));
        if (exact_sum_factor * max_abs_sum_ > 1 / ref.unit_roundoff)
            throw Error("SlicedReference: the sums of this data are too large for an exact check");
        ref.max_abs_sum = max_abs_sum_;
    } else {
        // The bound needs sums of |a| once any row so far had a negative value.
        if (!ref.abs_sums.empty() && carry_abs_.empty()) carry_abs_ = carry_;  // rows above: all >= 0
        if (ref.abs_sums.empty() && !carry_abs_.empty()) ref.abs_sums = ref.sums;  // this slice: >= 0
        add_carry_row(ref.sums, carry_);
        if (!carry_abs_.empty()) add_carry_row(ref.abs_sums, carry_abs_);
        ref.chain = double(whole_.rows) + whole_.cols + 64 + extra_chain;
    }
    done_ += rows;
    return ref;
}

// ---- One run --------------------------------------------------------------------------------------

namespace {

struct LinkFit {
    double latency_s = 0, bytes_per_s = 0;
};

template <class In, class Out>
Measurement run_typed(const StripRequest& req, Measurement m) {
    const Shape S = req.shape;
    const int W = S.cols;
    const std::vector<StripRange> parts = split_rows(S.rows, req.where.strips);
    const int G = int(parts.size()), D = req.where.devices;
    const std::size_t ib = sizeof(In), ob = sizeof(Out), band = canary_band_bytes;
    Exchange& exchange = exchange_for(req.where);

    std::vector<std::unique_ptr<StripMemory>> mem;
    StripSet<In, Out> set;
    set.cols = W;
    set.exchange = &exchange;
    std::vector<unsigned char*> out_base(G);
    std::vector<int*> status(G);
    for (int g = 0; g < G; ++g) {
        const int dev = req.where.device_of(g);
        SAT_CUDA(cudaSetDevice(dev));
        mem.push_back(std::make_unique<StripMemory>(dev));
        StripMemory& sm = *mem.back();
        const std::size_t n = std::size_t(parts[g].rows) * W;
        Strip<In, Out> s;
        s.rank = g;
        s.device = dev;
        s.range = parts[g];
        s.in = sm.alloc<In>(n);
        out_base[g] = sm.alloc<unsigned char>(n * ob + 2 * band);
        s.out = reinterpret_cast<Out*>(out_base[g] + band);
        s.gathered = sm.alloc<Out>(std::size_t(G) * W);
        s.stream = sm.stream();
        s.side = sm.stream();
        s.ready = sm.event();
        s.published = sm.event();
        status[g] = sm.alloc<int>(1);
        const ScratchSizes need = req.schedule->scratch[int(req.type)](parts[g].rows, W);
        const ScanScratchSize scan = need.strip, row = need.row;
        s.scan.state = sm.alloc<unsigned char>(scan.state_bytes);
        s.scan.values = sm.alloc<unsigned char>(scan.value_bytes);
        s.row_scan.state = sm.alloc<unsigned char>(row.state_bytes);
        s.row_scan.values = sm.alloc<unsigned char>(row.value_bytes);
        s.scan.status = s.row_scan.status = status[g];
        // The input, made slice by slice on the host (never the whole matrix at once).
        std::vector<unsigned char> host(std::size_t(std::min(parts[g].rows, req.slice_rows)) * W * ib);
        for (int r = 0; r < parts[g].rows; r += req.slice_rows) {
            const int k = std::min(req.slice_rows, parts[g].rows - r);
            generate_input_rows(req.type, S, req.seed, parts[g].row0 + r, k, host.data(), req.data);
            SAT_CUDA(cudaMemcpy(const_cast<In*>(s.in) + std::size_t(r) * W, host.data(), std::size_t(k) * W * ib,
                                cudaMemcpyHostToDevice));
        }
        SAT_CUDA(cudaMemset(out_base[g], canary_byte, band));
        SAT_CUDA(cudaMemset(out_base[g] + band, poison_byte, n * ob));
        SAT_CUDA(cudaMemset(out_base[g] + band + n * ob, canary_byte, band));
        SAT_CUDA(cudaMemset(s.gathered, poison_byte, std::size_t(G) * W * ob));
        SAT_CUDA(cudaMemset(status[g], 0, sizeof(int)));
        set.strips.push_back(s);
    }
    auto on = [&](int g) { SAT_CUDA(cudaSetDevice(set.strips[g].device)); };
    auto sync_all = [&] {
        for (int g = 0; g < G; ++g) {
            on(g);
            SAT_CUDA(cudaStreamSynchronize(set.strips[g].stream));
            SAT_CUDA(cudaStreamSynchronize(set.strips[g].side));
        }
    };
    auto check_status = [&] {
        for (int g = 0; g < G; ++g) {
            on(g);
            const std::string e = status_error(status[g]);
            if (!e.empty()) throw Error("strip " + std::to_string(g) + ": " + e);
        }
    };
    const Schedule& schedule = *req.schedule;
    const int type_index = int(req.type);
    auto run_once = [&] {
        schedule.fn[type_index](&set);
        SAT_CUDA(cudaGetLastError());
    };
    run_once();
    sync_all();
    check_status();

    // The check, slice by slice in row order, against the CPU reference kept in slices.
    SlicedReference reference(req.type, S);
    CheckReport rep;
    std::vector<unsigned char> got, in_rows, before(band), after(band);
    for (int g = 0; g < G; ++g) {
        on(g);
        for (int r = 0; r < parts[g].rows; r += req.slice_rows) {
            const int k = std::min(req.slice_rows, parts[g].rows - r);
            in_rows.resize(std::size_t(k) * W * ib);
            got.resize(std::size_t(k) * W * ob);
            generate_input_rows(req.type, S, req.seed, parts[g].row0 + r, k, in_rows.data(), req.data);
            const Reference ref = reference.next(in_rows.data(), k, G + 2);
            SAT_CUDA(cudaMemcpy(got.data(), set.strips[g].out + std::size_t(r) * W, got.size(), cudaMemcpyDeviceToHost));
            const CheckReport part = compare_output(req.type, ref, got.data());
            if (part.wrong > 0 && rep.wrong == 0) {
                rep.first_row = part.first_row + parts[g].row0 + r;
                rep.first_col = part.first_col;
                rep.first_expected = part.first_expected;
                rep.first_got = part.first_got;
                rep.first_unwritten = part.first_unwritten;
            }
            rep.wrong += part.wrong;
            rep.checked += part.checked;
            rep.max_error = std::max(rep.max_error, part.max_error);
            rep.tolerance = part.tolerance;
        }
        const std::size_t n_bytes = std::size_t(parts[g].rows) * W * ob;
        SAT_CUDA(cudaMemcpy(before.data(), out_base[g], band, cudaMemcpyDeviceToHost));
        SAT_CUDA(cudaMemcpy(after.data(), out_base[g] + band + n_bytes, band, cudaMemcpyDeviceToHost));
        const std::string canary = check_canaries(before.data(), after.data(), band);
        if (!canary.empty() && rep.canary.empty()) rep.canary = "strip " + std::to_string(g) + ": " + canary;
    }
    rep.pass = rep.wrong == 0 && rep.canary.empty();
    m.check = rep;

    if (req.reps > 0) {
        // Fork-join on strip 0's stream: every strip starts after `start` and `stop` waits for
        // every strip's streams, so one pair of events times the whole set across devices.
        std::vector<std::unique_ptr<L2Flusher>> flushers(D);
        std::vector<cudaEvent_t> flushed(D), joined(G), joined_side(G);
        for (int d = 0; d < D; ++d) {
            SAT_CUDA(cudaSetDevice(d));
            flushers[d] = std::make_unique<L2Flusher>();
            flushed[d] = mem[d]->event();
        }
        for (int g = 0; g < G; ++g) {
            on(g);
            joined[g] = mem[g]->event();
            joined_side[g] = mem[g]->event();
        }
        on(0);
        const cudaEvent_t start = mem[0]->event(true), stop = mem[0]->event(true);
        auto timed = [&](int reps, bool flush, auto body) {
            std::vector<double> ms;
            for (int rep_i = 0; rep_i < reps; ++rep_i) {
                for (int d = 0; d < D && flush; ++d) {
                    SAT_CUDA(cudaSetDevice(d));
                    const cudaStream_t s = set.strips[d].stream;  // strip d is device d's first strip
                    flushers[d]->flush(s);
                    SAT_CUDA(cudaEventRecord(flushed[d], s));
                }
                on(0);
                for (int d = 0; d < D && flush; ++d) SAT_CUDA(cudaStreamWaitEvent(set.strips[0].stream, flushed[d], 0));
                SAT_CUDA(cudaEventRecord(start, set.strips[0].stream));
                for (int g = 0; g < G; ++g) {
                    on(g);
                    SAT_CUDA(cudaStreamWaitEvent(set.strips[g].stream, start, 0));
                    SAT_CUDA(cudaStreamWaitEvent(set.strips[g].side, start, 0));
                }
                body();
                for (int g = 0; g < G; ++g) {
                    on(g);
                    SAT_CUDA(cudaEventRecord(joined[g], set.strips[g].stream));
                    SAT_CUDA(cudaEventRecord(joined_side[g], set.strips[g].side));
                }
                on(0);
                for (int g = 0; g < G; ++g) {
                    SAT_CUDA(cudaStreamWaitEvent(set.strips[0].stream, joined[g], 0));
                    SAT_CUDA(cudaStreamWaitEvent(set.strips[0].stream, joined_side[g], 0));
                }
                SAT_CUDA(cudaEventRecord(stop, set.strips[0].stream));
                SAT_CUDA(cudaEventSynchronize(stop));
                float t = 0;
                SAT_CUDA(cudaEventElapsedTime(&t, start, stop));
                ms.push_back(t);
            }
            return stats_of(ms);
        };
        run_once();  // second warm-up
        sync_all();
        const Stats t = timed(req.reps, true, run_once);
        sync_all();
        check_status();
        // The copy of the same bytes, every strip on its own device at once.
        std::vector<unsigned char*> copy_dst(G);
        std::vector<std::size_t> copy_bytes(G);
        std::vector<std::size_t> device_elems(D, 0);
        for (int g = 0; g < G; ++g) {
            on(g);
            const std::size_t n = std::size_t(parts[g].rows) * W;
            copy_bytes[g] = n * (ib + ob) / 2;
            copy_dst[g] = mem[g]->alloc<unsigned char>(copy_bytes[g]);
            device_elems[set.strips[g].device] += n;
        }
        const Stats c = timed(req.reps, true, [&] {
            for (int g = 0; g < G; ++g) {
                on(g);
                SAT_CUDA(cudaMemcpyAsync(copy_dst[g], set.strips[g].out, copy_bytes[g], cudaMemcpyDeviceToDevice,
                                         set.strips[g].stream));
            }
        });
        m.median_ms = t.median;
        m.min_ms = t.min;
        m.max_ms = t.max;
        m.copy_ms = c.median;
        on(0);
        calibrate_latency(m.calibration);
        const double busiest = double(*std::max_element(device_elems.begin(), device_elems.end()));
        m.calibration.unit_s = c.median * 1e-3 / (2.0 * busiest / 32.0);
        // The GPU-to-GPU level: the exchange of a tiny and of a large row, once per placement.
        static std::map<std::pair<int, int>, LinkFit> fits_made;
        if (G > 1 && !fits_made.count({G, D})) {
            std::vector<void*> probe(G);
            std::vector<cudaStream_t> streams(G);
            for (int g = 0; g < G; ++g) {
                on(g);
                probe[g] = mem[g]->alloc<unsigned char>(std::size_t(G) * link_probe_bytes);
                streams[g] = set.strips[g].stream;
            }
            auto exchange_ms = [&](std::size_t bytes) {
                exchange.all_gather(probe.data(), bytes, streams.data());  // warm-up
                sync_all();
                return timed(20, false, [&] { exchange.all_gather(probe.data(), bytes, streams.data()); }).median;
            };
            const double small_ms = exchange_ms(8), large_ms = exchange_ms(link_probe_bytes);
            LinkFit fit;
            fit.latency_s = small_ms * 1e-3 / (G - 1);
            fit.bytes_per_s = (G - 1) * double(link_probe_bytes - 8) / (std::max(large_ms - small_ms, 1e-6) * 1e-3);
            fits_made[{G, D}] = fit;
        }
        for (int d = 0; d < D; ++d) {  // each flush buffer freed on its own device
            SAT_CUDA(cudaSetDevice(d));
            flushers[d].reset();
        }
        if (G > 1) {
            m.calibration.link_latency_s = fits_made[{G, D}].latency_s;
            m.calibration.link_bytes_per_s = fits_made[{G, D}].bytes_per_s;
        }
        sync_all();
    }
    on(0);
    return m;
}

}  // namespace

Measurement run_strips(const StripRequest& req) {
    Measurement m;
    m.lab = 10;
    m.type = req.type;
    m.shape = req.shape;
    m.seed = req.seed;
    m.reps = req.reps;
    const int G = req.where.strips, D = req.where.devices;
    m.variant = req.schedule->name + (G > 1 ? (D > 1 ? "/G" : "/S") + std::to_string(G) : std::string());
    StripRequest r = req;
    if (r.slice_rows <= 0)  // about 256 MiB of host memory per slice (reference, input, output)
        r.slice_rows = int(std::max<std::size_t>(1, (std::size_t(256) << 20) / (32 * std::size_t(req.shape.cols))));
    try {
        const CostModel cost = strip_cost(req.schedule->cost, req.shape, req.where, req.type);
        m.hmm_formula = cost.symbolic;
        m.hmm_cost = cost.cost;
        m.device = (D > 1 ? std::to_string(D) + " x " : std::string()) + device_name();
        m = dispatch(req.type, [&](auto in, auto out) { return run_typed<decltype(in), decltype(out)>(r, m); });
    } catch (const std::exception& e) {
        m.error = e.what();
        cudaGetLastError();
        cudaSetDevice(0);
    }
    const double bytes = double(req.shape.n()) * double(input_bytes(req.type) + output_bytes(req.type));
    m.predicted_ms = std::nan("");
    if (m.median_ms > 0) {
        m.gbps = bytes / (m.median_ms * 1e-3) / 1e9;
        m.pct_copy = 100.0 * m.copy_ms / m.median_ms;
        m.predicted_ms = 1e3 * hmm::predict_seconds(m.hmm_cost, m.calibration, Barrier::kernel_launch);
    }
    return m;
}

CostModel strip_cost(const std::string& key, Shape shape, Placement where, DType type) {
    const hmm::Formula& f = hmm::formula(key);
    hmm::Params p = hmm::params_for(shape);
    p.strips = where.strips;
    p.devices = where.devices;
    p.out_bytes = double(output_bytes(type));
    const hmm::Cost c = f.eval(p);
    char note[160];
    std::snprintf(note, sizeof note, "%d strip%s on %d GPU%s, X: %.4g steps, %.4g bytes; ", where.strips,
                  where.strips == 1 ? "" : "s", where.devices, where.devices == 1 ? "" : "s", c.link_steps, c.link_bytes);
    return {f.symbolic, c, note + f.source};
}

Placement placement_for(int gpus, int strips) {
    constexpr int default_strips = 4;  // neither --gpus nor --strips: 4 strips on one GPU
    Placement where;
    where.devices = gpus > 1 ? gpus : 1;
    where.strips = gpus > 1 ? gpus : (strips > 0 ? strips : (gpus == 1 ? 1 : default_strips));
    return where;
}

// ---- Lab 10 as a Problem: the harness's run hooks --------------------------------------------------

namespace {

std::vector<Schedule>& registry() {
    static std::vector<Schedule> schedules;
    return schedules;
}

template <class In, class Out>
void not_a_single_call(const In*, Out*, Shape, Workspace&, cudaStream_t) {
    throw Error("lab 10's schedules run on strips: run them through run_variant or run_strips (common/multigpu.h)");
}

// The SAT as sat_problem() has it (options, table, data, the whole-matrix answer), with the hooks
// of row strips: the options checked against the strips, the GPUs, NCCL and each device's memory
// checked before the runs, and every run made, checked and timed by run_strips.
struct StripsProblem : Problem {
    const Problem& sat = sat_problem();

    static StripRequest strip_request(const RunRequest& req) {
        StripRequest r;
        r.schedule = find_schedule(req.variant->name);
        if (!r.schedule) throw Error("lab 10 has no schedule '" + req.variant->name + "'");
        r.type = req.type;
        r.shape = req.shape;
        r.where = placement_for(req.gpus, req.strips);
        r.seed = req.seed;
        r.data = req.data;
        r.reps = req.reps;
        r.slice_rows = req.slice_rows;
        return r;
    }

    std::string name() const override { return sat.name(); }  // the SAT: its options, its table
    std::vector<Shape> instances(const Options& opt, const LabInfo& lab) const override {
        if (opt.gpus > 1 && opt.strips > 0 && opt.strips != opt.gpus)
            throw UsageError("--gpus " + std::to_string(opt.gpus) + " runs one strip per GPU; --strips G is for G strips on one GPU");
        const std::vector<Shape> shapes = sat.instances(opt, lab);
        for (Shape s : shapes) split_rows(s.rows, placement_for(opt.gpus, opt.strips).strips);  // G <= rows
        return shapes;
    }
    std::vector<DType> types(const Options& opt) const override { return sat.types(opt); }
    std::size_t input_bytes(DType t, Shape s) const override { return sat.input_bytes(t, s); }
    std::size_t output_element_bytes(DType t) const override { return sat.output_element_bytes(t); }
    double output_value(DType t, const unsigned char* e) const override { return sat.output_value(t, e); }
    void generate(DType t, Shape s, std::uint64_t seed, DataKind data, void* input) const override {
        sat.generate(t, s, seed, data, input);
    }
    std::shared_ptr<const Answer> answer(DType t, Shape s, const void* input, const Variant& v) const override {
        return sat.answer(t, s, input, v);
    }
    CheckReport check(DType t, const Answer& a, const void* output) const override { return sat.check(t, a, output); }
    Traffic traffic(DType t, Shape s) const override { return sat.traffic(t, s); }
    double answer_bytes(DType t, Shape s, bool from_file) const override { return sat.answer_bytes(t, s, from_file); }
    std::string warning(DType t, Shape s, const void* in) const override { return sat.warning(t, s, in); }
    // One strip on one GPU: lab 9's kernel and a one-row copy.
    CostModel cost(const Variant& v, Shape s, double, DType t) const override { return strip_cost(v.cost, s, Placement{}, t); }
    CostModel cost_of(const RunRequest& req) const override {
        return strip_cost(req.variant->cost, req.shape, placement_for(req.gpus, req.strips), req.type);
    }
    std::string instance_args(const Options& opt, DType t, Shape s) const override {
        std::string args = sat.instance_args(opt, t, s);
        if (opt.gpus) args += " --gpus " + std::to_string(opt.gpus);
        if (opt.strips) args += " --strips " + std::to_string(opt.strips);
        if (opt.slice_rows) args += " --slice-rows " + std::to_string(opt.slice_rows);
        return args;
    }

    std::string refusal(const RunRequest& req, const Options&, double) const override {
        const Placement where = placement_for(req.gpus, req.strips);
        const std::string D = std::to_string(where.devices);
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
        if (where.devices > count)
            return "--gpus " + D + " needs " + D + " GPUs; this machine has " + std::to_string(count) + " (--strips " + D +
                   " runs " + D + " strips on one GPU)";
        std::string why;
        if (where.devices > 1 && !have_nccl(&why))
            return why + ", so --gpus " + D + " cannot run; --strips " + D + " runs " + D + " strips on one GPU";
        try {
            if (!fits(strip_request(req), &why)) return why;
            exchange_for(where);  // NCCL's communicators are made here, once: a failure is one line
        } catch (const std::exception& e) {
            cudaGetLastError();
            cudaSetDevice(0);
            return e.what();
        }
        return "";
    }
    std::string placement(const Options& opt) const override {
        const Placement where = placement_for(opt.gpus, opt.strips);
        return std::to_string(where.strips) + (where.strips == 1 ? " strip on " : " strips on ") +
               (where.devices > 1 ? std::to_string(where.devices) + " GPUs" : std::string("one GPU")) +
               ", exchange: " + exchange_for(where).name();  // made by refusal()
    }
    Measurement run(const RunRequest& req) const override {
        Measurement m;
        try {
            m = run_strips(strip_request(req));
        } catch (const std::exception& e) {  // no such schedule
            m.lab = 10, m.variant = req.variant->name, m.type = req.type, m.shape = req.shape, m.seed = req.seed;
            m.error = e.what();
        }
        m.problem = name();
        m.type_name = type_name(req.type);
        return m;
    }
};

}  // namespace

const Problem& strips_problem() {
    static const StripsProblem problem;
    return problem;
}

LabInfo make_lab_info(const std::vector<Schedule>& schedules) {
    LabInfo lab;
    lab.number = 10;
    lab.title = "the SAT across GPUs: row strips, their carries exchanged";
    lab.source = "beyond the papers: NCCL all-gather of the strips' bottom rows";
    for (const Schedule& s : schedules) {
        registry().push_back(s);
        lab.variants.push_back(SAT_VARIANT(s.name, s.cost, s.summary, not_a_single_call));
        lab.variants.back().problem = &strips_problem();
    }
    lab.default_shapes = {{1024, 1024}, {4096, 4096}, {16384, 16384}};
    lab.row_strips = true;
    return lab;
}

const Schedule* find_schedule(const std::string& name) {
    for (const Schedule& s : registry())
        if (s.name == name) return &s;
    return nullptr;
}

}  // namespace sat::multigpu
