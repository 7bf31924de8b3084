// main.cpp — the test runner: Catch2 plus the closing "N passed, N failed, N skipped" line.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>

#include "data.h"
#include "test_util.h"

namespace sat_test {

bool skipped_current = false;

bool gpu_present() {
    static const bool present = sat::gpu_available();
    return present;
}

std::uint64_t base_seed() {
    static const std::uint64_t seed = [] {
        if (const char* env = std::getenv("SAT_TEST_SEED")) return std::uint64_t(std::strtoull(env, nullptr, 10));
        return (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
    }();
    return seed;
}

std::uint64_t fresh_seed() {
    static std::uint64_t counter = 0;
    return base_seed() + 0x9E3779B97F4A7C15ull * ++counter;
}

const sat::Variant& find_variant(int lab_number, const std::string& name) {
    const sat::LabInfo* lab = sat::find_lab(lab_number);
    if (!lab) FAIL("lab " << lab_number << " is not linked into this test binary");
    for (const sat::Variant& v : lab->variants)
        if (v.name == name) return v;
    FAIL("lab " << lab_number << " has no variant '" << name << "'");
    throw;  // not reached: FAIL throws
}

sat::Measurement check_variant(int lab_number, const std::string& variant, sat::DType type,
                               sat::Shape shape, double r, int cpu_threads, int batch) {
    return check_variant(lab_number, find_variant(lab_number, variant), type, shape, r, cpu_threads, batch);
}

sat::Measurement check_variant(int lab_number, const sat::Variant& variant, sat::DType type, sat::Shape shape,
                               double r, int cpu_threads, int batch) {
    sat::RunRequest req;
    req.lab = sat::find_lab(lab_number);
    if (!req.lab) FAIL("lab " << lab_number << " is not linked into this test binary");
    req.variant = &variant;
    req.type = type;
    req.shape = shape;
    req.seed = fresh_seed();
    req.r = r;
    req.cpu_threads = cpu_threads;
    req.batch = batch;
    sat::Measurement m = sat::run_variant(req);
    UNSCOPED_INFO("lab" << lab_number << " " << variant.name << " " << sat::dtype_name(type) << " "
                        << (batch > 1 ? std::to_string(batch) + " x " : "") << shape_name(shape)
                        << (r >= 0 ? " r=" + std::to_string(r) : "")
                        << (cpu_threads > 0 ? " threads=" + std::to_string(cpu_threads) : "")
                        << " seed " << req.seed << ": "
                        << (m.error.empty() ? m.check.message() : "error: " + m.error));
    return m;
}

void require_all_pass(int lab, const std::vector<std::string>& variants, const std::vector<sat::DType>& types,
                      const std::vector<sat::Shape>& shapes, double r, int batch) {
    for (const std::string& variant : variants)
        for (sat::DType t : types)
            for (sat::Shape s : shapes) {
                const auto m = check_variant(lab, variant, t, s, r, 0, batch);
                REQUIRE(m.ok());
            }
}

namespace {
// The variants of cpu_batch_variant and stacked_variant, one function per type T (sat::DType).
const sat::Variant* stacked_base = nullptr;
template <int T>
void per_image(const void* in, void* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream) {
    const sat::ErasedSatFn fn = find_variant(1, "2R2W(CPU)").fn[T];
    const std::size_t in_step = s.n() * sat::input_bytes(sat::DType(T)), out_step = s.n() * sat::output_bytes(sat::DType(T));
    for (int b = 0; b < ws.batch; ++b)
        fn(static_cast<const unsigned char*>(in) + b * in_step, static_cast<unsigned char*>(out) + b * out_step, s, ws,
           stream);
}
template <int T>
void stacked(const void* in, void* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream) {
    const int images = ws.batch;
    ws.batch = 1;
    stacked_base->fn[T](in, out, {s.rows * images, s.cols}, ws, stream);
    ws.batch = images;
}
}  // namespace

sat::Variant cpu_batch_variant() {
    sat::Variant v = find_variant(1, "2R2W(CPU)");
    v.name = "2R2W(CPU)-per-image";
    v.fn[0] = &per_image<0>, v.fn[1] = &per_image<1>, v.fn[2] = &per_image<2>, v.fn[3] = &per_image<3>;
    return sat::batched(v);
}

sat::Variant stacked_variant(const sat::Variant& base) {
    stacked_base = &base;
    sat::Variant v = base;
    v.name = base.name + "-stacked";
    v.fn[0] = &stacked<0>, v.fn[1] = &stacked<1>, v.fn[2] = &stacked<2>, v.fn[3] = &stacked<3>;
    return sat::batched(v);
}

std::vector<sat::Shape> standard_shapes() {
    return {{1, 1}, {31, 33}, {97, 89}, {1, 100000}, {100000, 1}, {64, 96}, {1024, 1024}, {4096, 4096}};
}
std::vector<sat::DType> all_types() {
    return {sat::DType::f32, sat::DType::f64, sat::DType::i32, sat::DType::u8i32};
}
std::string shape_name(sat::Shape s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }

namespace {
long per_sm_times_sms(cudaDeviceAttr per_sm) {
    int device = 0, sms = 0, count = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&count, per_sm, device);
    return long(sms) * count;
}
}  // namespace

long resident_block_bound() { return per_sm_times_sms(cudaDevAttrMaxBlocksPerMultiprocessor); }
long resident_warp_bound() { return per_sm_times_sms(cudaDevAttrMaxThreadsPerMultiProcessor) / 32; }

void require_trace_pictures(int lab_number, sat::Shape shape) {
    const sat::LabInfo* lab = sat::find_lab(lab_number);
    REQUIRE(lab != nullptr);
    for (const sat::Variant& v : lab->variants) {
        const std::string path = "build/test_lab" + std::to_string(lab_number) + "_trace_" + v.name + ".png";
        std::remove(path.c_str());
        sat::RunRequest req;
        req.lab = lab;
        req.variant = &v;
        req.shape = shape;
        req.seed = fresh_seed();
        req.trace_png = path;
        const auto m = sat::run_variant(req);
        INFO(v.name << " seed " << req.seed << ": " << m.check.message() << " " << m.error);
        REQUIRE(m.ok());
        std::ifstream png(path, std::ios::binary);
        REQUIRE(png.good());
        char magic[8] = {};
        png.read(magic, 8);
        CHECK(std::string(magic + 1, 3) == "PNG");
    }
}

int run_command(const std::string& command, std::string* output) {
    std::string text;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe) return -1;
    std::array<char, 4096> buf;
    std::size_t got;
    while ((got = fread(buf.data(), 1, buf.size(), pipe)) > 0) text.append(buf.data(), got);
    const int status = pclose(pipe);
    if (output) *output = text;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string require_command(const std::string& command, int status) {
    std::string out;
    const int rc = run_command(command, &out);
    INFO(command << " printed:\n" << out);
    REQUIRE(rc == status);
    return out;
}

void check_output(const std::string& output, std::initializer_list<const char*> present,
                  std::initializer_list<const char*> absent) {
    INFO(output);
    for (const char* text : present) CHECK(output.find(text) != std::string::npos);
    for (const char* text : absent) CHECK(output.find(text) == std::string::npos);
}

}  // namespace sat_test

namespace {
struct Counts {
    int passed = 0, failed = 0, skipped = 0;
} counts;

struct SummaryListener : Catch::TestEventListenerBase {
    using TestEventListenerBase::TestEventListenerBase;
    void testCaseStarting(const Catch::TestCaseInfo&) override { sat_test::skipped_current = false; }
    void testCaseEnded(const Catch::TestCaseStats& stats) override {
        if (stats.totals.assertions.failed > 0 || stats.totals.testCases.failed > 0) ++counts.failed;
        else if (sat_test::skipped_current) ++counts.skipped;
        else ++counts.passed;
    }
};
}  // namespace
CATCH_REGISTER_LISTENER(SummaryListener)

int main(int argc, char** argv) {
    Catch::Session session;
    // A test that asserts nothing is a defect: make Catch2 fail it.
    session.configData().warnings = Catch::WarnAbout::NoAssertions;
    if (const int rc = session.applyCommandLine(argc, argv)) return rc;
    const unsigned long long seed = sat_test::base_seed();
    std::printf("test seed %llu (SAT_TEST_SEED=%llu reproduces this run); GPU: %s\n", seed, seed,
                sat_test::gpu_present() ? sat::device_name().c_str() : "none (GPU tests skip)");
    const int rc = session.run();
    std::printf("%d passed, %d failed, %d skipped\n", counts.passed, counts.failed, counts.skipped);
    return rc != 0 || counts.failed > 0 ? 1 : 0;
}
