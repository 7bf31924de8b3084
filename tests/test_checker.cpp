// The checker must catch planted faults and report where they are.
#include <cmath>
#include <cstring>
#include <limits>

#include "data.h"
#include "test_util.h"

using sat::DType;
using sat::Shape;

namespace {
// A correct output (as the GPU would write it) for a random input of `t`.
struct Planted {
    DType type;
    Shape shape;
    sat::Reference ref;
    std::vector<unsigned char> out;
    Planted(DType t, Shape s) : type(t), shape(s) {
        std::vector<unsigned char> in(s.n() * sat::input_bytes(t));
        sat::generate_input(t, s, sat_test::fresh_seed(), in.data());
        ref = sat::reference_sat(t, s, in.data());
        out.resize(s.n() * sat::output_bytes(t));
        sat::dispatch(t, [&](auto, auto out_tag) {
            using Out = decltype(out_tag);
            Out* o = reinterpret_cast<Out*>(out.data());
            for (std::size_t k = 0; k < s.n(); ++k)
                o[k] = ref.exact ? Out(std::int32_t(ref.exact_sums[k])) : Out(ref.sums[k]);
        });
    }
    template <class Out>
    Out& at(int i, int j) { return reinterpret_cast<Out*>(out.data())[std::size_t(i) * shape.cols + j]; }
    sat::CheckReport check() const { return sat::compare_output(type, ref, out.data()); }
};
}  // namespace

TEST_CASE("checker passes a correct output of every type", "[cpu][checker]") {
    for (DType t : sat_test::all_types()) {
        Planted p(t, {37, 41});
        const auto rep = p.check();
        INFO(sat::dtype_name(t) << ": " << rep.message());
        CHECK(rep.pass);
        CHECK(rep.message() == "PASS");
    }
}

TEST_CASE("checker catches an unwritten (poisoned) element and locates it", "[cpu][checker]") {
    Planted p(DType::f32, {37, 41});
    std::memset(&p.at<float>(20, 30), sat::poison_byte, sizeof(float));
    const auto rep = p.check();
    REQUIRE_FALSE(rep.pass);
    CHECK(rep.wrong == 1);
    CHECK(rep.first_row == 20);
    CHECK(rep.first_col == 30);
    CHECK(rep.message().find("(row 20, col 30)") != std::string::npos);
}

TEST_CASE("checker catches an off-by-one integer sum exactly", "[cpu][checker]") {
    for (DType t : {DType::i32, DType::u8i32}) {
        Planted p(t, {64, 64});
        p.at<std::int32_t>(63, 0) += 1;
        const auto rep = p.check();
        REQUIRE_FALSE(rep.pass);
        CHECK(rep.first_row == 63);
        CHECK(rep.first_col == 0);
        CHECK(rep.max_error == 1);
        CHECK(rep.first_got == rep.first_expected + 1);
    }
}

TEST_CASE("checker catches a float sum that is off by one element", "[cpu][checker]") {
    Planted p(DType::f32, {16, 16});
    p.at<float>(5, 5) += 0.5f;  // a missing or doubled input element in [0, 1)
    REQUIRE_FALSE(p.check().pass);
    Planted q(DType::f64, {16, 16});
    q.at<double>(0, 0) += 1.0;
    REQUIRE_FALSE(q.check().pass);
}

TEST_CASE("checker catches NaN and infinity", "[cpu][checker]") {
    Planted p(DType::f32, {8, 8});
    p.at<float>(2, 3) = std::numeric_limits<float>::quiet_NaN();
    p.at<float>(7, 7) = std::numeric_limits<float>::infinity();
    const auto rep = p.check();
    REQUIRE_FALSE(rep.pass);
    CHECK(rep.wrong == 2);
    CHECK(rep.first_row == 2);
}

TEST_CASE("checker accepts float rounding within the documented bound", "[cpu][checker]") {
    Planted p(DType::f32, {300, 300});
    float& v = p.at<float>(299, 299);
    v = std::nextafter(std::nextafter(v, 1e30f), 1e30f);  // two ulps: far below (rows+cols) u
    CHECK(p.check().pass);
}

TEST_CASE("checker compares int32 sums modulo 2^32", "[cpu][checker]") {
    // 255 * 10^8 overflows int32; the wrapped value is what int32 arithmetic produces.
    const Shape s{1, 2};
    std::vector<std::int32_t> in = {2147483647, 1};
    const auto ref = sat::reference_sat(DType::i32, s, in.data());
    std::vector<std::int32_t> wrapped = {2147483647, std::int32_t(0x80000000u)};
    CHECK(sat::compare_output(DType::i32, ref, wrapped.data()).pass);
    wrapped[1] = 0;
    CHECK_FALSE(sat::compare_output(DType::i32, ref, wrapped.data()).pass);
}

TEST_CASE("canary check names a write before or after the output", "[cpu][checker]") {
    std::vector<unsigned char> before(64, sat::canary_byte), after(64, sat::canary_byte);
    CHECK(sat::check_canaries(before.data(), after.data(), 64).empty());
    after[3] = 0;
    CHECK(sat::check_canaries(before.data(), after.data(), 64).find("3 bytes past the end") != std::string::npos);
    after[3] = sat::canary_byte;
    before[60] = 1;
    CHECK(sat::check_canaries(before.data(), after.data(), 64).find("4 bytes before") != std::string::npos);
}

TEST_CASE("run_variant reports a canary write as a failure", "[cpu][checker]") {
    // A planted wrong solution that writes one element past the end of its output.
    static auto overrun = [](const float* in, float* out, sat::Shape s, sat::Workspace& ws, cudaStream_t st) {
        sat::find_lab(1)->variants[0].fn[0](in, out, s, ws, st);
        out[s.n()] = 0;
    };
    sat::LabInfo lab = *sat::find_lab(1);
    sat::Variant bad = lab.variants[0];
    bad.fn[0] = [](const void* in, void* out, sat::Shape s, sat::Workspace& ws, cudaStream_t st) {
        overrun(static_cast<const float*>(in), static_cast<float*>(out), s, ws, st);
    };
    sat::RunRequest req;
    req.lab = &lab;
    req.variant = &bad;
    req.shape = {10, 10};
    req.seed = sat_test::fresh_seed();
    const auto m = sat::run_variant(req);
    REQUIRE_FALSE(m.ok());
    CHECK(m.check.canary.find("past the end") != std::string::npos);
}

// ---- The references and the input generator the checker relies on ---------------------------------

TEST_CASE("the reference SAT matches the definition sum over the rectangle", "[cpu][reference]") {
    for (Shape s : {Shape{1, 1}, Shape{3, 5}, Shape{13, 2}, Shape{17, 19}}) {
        for (DType t : sat_test::all_types()) {
            const std::uint64_t seed = sat_test::fresh_seed();
            std::vector<unsigned char> in(s.n() * sat::input_bytes(t));
            sat::generate_input(t, s, seed, in.data());
            const sat::Reference ref = sat::reference_sat(t, s, in.data());
            sat::dispatch(t, [&](auto in_tag, auto) {
                using In = decltype(in_tag);
                const In* a = reinterpret_cast<const In*>(in.data());
                for (int i = 0; i < s.rows; ++i)
                    for (int j = 0; j < s.cols; ++j) {
                        double sum = 0;  // the definition: sum of a[u][v] for u <= i, v <= j
                        for (int u = 0; u <= i; ++u)
                            for (int v = 0; v <= j; ++v) sum += double(a[u * s.cols + v]);
                        const std::size_t k = std::size_t(i) * s.cols + j;
                        const double got = ref.exact ? double(std::int32_t(ref.exact_sums[k])) : ref.sums[k];
                        INFO(sat::dtype_name(t) << " " << s.rows << "x" << s.cols << " (" << i << "," << j << ") seed " << seed);
                        REQUIRE(got == Approx(sum).epsilon(1e-12));
                    }
            });
        }
    }
}

TEST_CASE("generated inputs are reproducible from the seed and change with it", "[cpu][data]") {
    for (DType t : sat_test::all_types()) {
        const Shape s{50, 70};
        std::vector<unsigned char> a(s.n() * sat::input_bytes(t)), b(a.size()), c(a.size());
        sat::generate_input(t, s, 42, a.data());
        sat::generate_input(t, s, 42, b.data());
        sat::generate_input(t, s, 43, c.data());
        CHECK(a == b);
        CHECK(a != c);
    }
}

TEST_CASE("i32 inputs are small enough that no partial sum overflows", "[cpu][data]") {
    const Shape s{4000, 4000};
    std::vector<std::int32_t> a(s.n());
    sat::generate_input(DType::i32, s, 7, a.data());
    long long sum_abs = 0;
    for (std::int32_t v : a) sum_abs += v < 0 ? -v : v;
    REQUIRE(sum_abs <= 2147483647LL);
}

TEST_CASE("the transpose reference moves (i, j) to (j, i)", "[cpu][reference]") {
    const Shape s{3, 5};
    std::vector<std::int32_t> a(s.n());
    for (std::size_t k = 0; k < s.n(); ++k) a[k] = std::int32_t(k);
    const sat::Reference ref = sat::reference_transpose(DType::i32, s, a.data());
    REQUIRE(ref.shape.rows == 5);
    REQUIRE(ref.shape.cols == 3);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 5; ++j) CHECK(ref.exact_sums[j * 3 + i] == std::uint32_t(i * 5 + j));
}
