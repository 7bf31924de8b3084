// The generated data and the rounding bound the checker relies on (docs/hmm.md, "Checking results").
#include <cmath>
#include <limits>

#include "data.h"
#include "test_util.h"

using sat::DType;
using sat::Shape;

TEST_CASE("exact data: every element a non-zero integer within +-K (u8: 1..255)", "[cpu][data]") {
    for (Shape s : {Shape{1, 1}, Shape{97, 89}, Shape{1, 100000}, Shape{2048, 2048}})
        for (DType t : sat_test::all_types()) {
            const std::uint64_t seed = sat_test::fresh_seed();
            std::vector<unsigned char> in(s.n() * sat::input_bytes(t));
            sat::generate_input(t, s, seed, in.data());
            const int k = sat::exact_value_range(s.n());
            INFO(sat::dtype_name(t) << " " << sat_test::shape_name(s) << " seed " << seed << " K " << k);
            sat::dispatch(t, [&](auto in_tag, auto) {
                using In = decltype(in_tag);
                const In* a = reinterpret_cast<const In*>(in.data());
                const double lo = std::is_same_v<In, uint8_t> ? 1 : -k, hi = std::is_same_v<In, uint8_t> ? 255 : k;
                std::size_t bad = 0;
                for (std::size_t i = 0; i < s.n(); ++i)
                    bad += !(a[i] != In(0) && double(a[i]) >= lo && double(a[i]) <= hi && std::trunc(double(a[i])) == double(a[i]));
                CHECK(bad == 0);
            });
        }
}

TEST_CASE("exact data: K is the largest value range whose sums stay exact in f32", "[cpu][data]") {
    const auto spread = [](double n, int k) { return 64 * std::sqrt(n * (k + 1.0) * (2.0 * k + 1.0) / 6.0); };
    for (double n : {1.0, 1e6, 16777216.0, 268435456.0, 2147483648.0}) {
        const int k = sat::exact_value_range(std::size_t(n));
        INFO("n " << n << " K " << k);
        CHECK(k >= 3);
        CHECK(k <= 127);
        CHECK(spread(n, k) <= 16777216.0);
        if (k < 127) CHECK(spread(n, k + 1) > 16777216.0);
    }
    CHECK(sat::exact_value_range(std::size_t(1) << 31) == 9);
}

TEST_CASE("exact data make the f32 and f64 checks exact, with room to spare", "[cpu][data]") {
    for (Shape s : {Shape{1, 1}, Shape{1, 16777216}, Shape{4096, 4096}})
        for (DType t : {DType::f32, DType::f64}) {
            std::vector<unsigned char> in(s.n() * sat::input_bytes(t));
            const std::uint64_t seed = sat_test::fresh_seed();
            sat::generate_input(t, s, seed, in.data());
            const sat::Reference ref = sat::reference_sat(t, s, in.data());
            INFO(sat::dtype_name(t) << " " << sat_test::shape_name(s) << " seed " << seed << " max|SAT| " << ref.max_abs_sum);
            CHECK(ref.exact);
            CHECK(ref.abs_sums.empty());  // not needed: no bound
            // K keeps the standard deviation of the corner sum at 2^24 / 64: max|SAT| stays below
            // 8 of them, the 2^24 / 8 the exact check allows.
            CHECK(ref.max_abs_sum * sat::exact_sum_factor <= 16777216.0);
        }
}

TEST_CASE("integer data with large sums fall back to the rounding bound", "[cpu][data]") {
    const Shape s{300, 300};
    std::vector<float> in(s.n(), 255.0f);  // sums up to 2.3e7 > 2^24 / 8
    const sat::Reference ref = sat::reference_sat(DType::f32, s, in.data());
    CHECK_FALSE(ref.exact);
    std::vector<float> out(s.n());
    for (std::size_t k = 0; k < s.n(); ++k) out[k] = float(ref.sums[k]);
    const auto rep = sat::compare_output(DType::f32, ref, out.data());
    CHECK(rep.pass);
    CHECK(rep.tolerance.find("integer data whose sums exceed") != std::string::npos);
}

TEST_CASE("real data: f32 in [0, 1), checked with a bound; NaN and infinity fail", "[cpu][data]") {
    const Shape s{64, 64};
    std::vector<float> in(s.n());
    sat::generate_input(DType::f32, s, sat_test::fresh_seed(), in.data(), sat::DataKind::real);
    for (float v : in) REQUIRE((v >= 0 && v < 1));
    const sat::Reference ref = sat::reference_sat(DType::f32, s, in.data());
    REQUIRE_FALSE(ref.exact);
    std::vector<float> out(s.n());
    for (std::size_t k = 0; k < s.n(); ++k) out[k] = float(ref.sums[k]);
    auto rep = sat::compare_output(DType::f32, ref, out.data());
    CHECK(rep.pass);
    CHECK(rep.tolerance.find("real-valued data") != std::string::npos);
    out[100] = std::numeric_limits<float>::quiet_NaN();
    out[200] = -std::numeric_limits<float>::infinity();
    rep = sat::compare_output(DType::f32, ref, out.data());
    CHECK_FALSE(rep.pass);
    CHECK(rep.wrong == 2);
}

TEST_CASE("real data: a sequential f32 scan of 1x16777216 and 16777216x1 passes the bound", "[cpu][data]") {
    // The shapes on which the old bound 2 gamma_d was infinite or negative.
    for (Shape s : {Shape{1, 16777216}, Shape{16777216, 1}}) {
        std::vector<float> in(s.n());
        const std::uint64_t seed = sat_test::fresh_seed();
        sat::generate_input(DType::f32, s, seed, in.data(), sat::DataKind::real);
        const sat::Reference ref = sat::reference_sat(DType::f32, s, in.data());
        float sum = 0;  // the running sum a CPU 2R2W forms, rounded at every step
        for (float& v : in) v = sum += v;
        const auto rep = sat::compare_output(DType::f32, ref, in.data());
        INFO(sat_test::shape_name(s) << " seed " << seed << ": " << rep.message() << " max error " << rep.max_error);
        CHECK(rep.pass);
        // ... and an output that is 2 % low everywhere fails.
        for (float& v : in) v *= 0.98f;
        CHECK_FALSE(sat::compare_output(DType::f32, ref, in.data()).pass);
    }
}

TEST_CASE("the rounding bound is finite, positive and non-decreasing for every shape up to 2^31", "[cpu][data]") {
    for (double u : {std::ldexp(1.0, -24), std::ldexp(1.0, -53)}) {
        double previous = 0;
        // d = rows + cols + 64 runs from 66 (1x1) to 2^31 + 64 (1 x INT_MAX); every 1/64 octave.
        for (double sides = 2; sides <= 2147483648.0; sides = std::max(sides + 1, std::floor(sides * 1.011))) {
            const long cols = long(std::min(sides - 1, 2147483647.0));
            const Shape s{int(sides - double(cols)), int(cols)};
            const double tau = sat::rounding_bound(u, s);
            INFO("u " << u << " shape " << s.rows << "x" << s.cols << " tau " << tau);
            REQUIRE(std::isfinite(tau));
            REQUIRE(tau > 0);
            REQUIRE(tau >= previous);
            REQUIRE(tau < 0.07);  // a bound that still fails an output 7 % off
            previous = tau;
        }
        // Transposed and square shapes share d = rows + cols + 64.
        CHECK(sat::rounding_bound(u, {2147483647, 1}) == sat::rounding_bound(u, {1, 2147483647}));
        CHECK(sat::rounding_bound(u, {46340, 46340}) > 0);
    }
    // Below d u = 2^-7 it is Higham's deterministic 2 gamma_d: 16384^2 keeps its documented bound.
    const double u = std::ldexp(1.0, -24), d = 16384 + 16384 + 64;
    CHECK(sat::rounding_bound(u, {16384, 16384}) == 2 * d * u / (1 - d * u));
    CHECK(sat::rounding_bound(u, {16384, 16384}) == Approx(0.0039).epsilon(0.01));
}

TEST_CASE("--data picks the generated data; anything else is a usage error", "[cpu][data][cli]") {
    const auto parse = [](std::vector<const char*> args) {
        args.insert(args.begin(), "lab1");
        return sat::parse_cli(int(args.size()), args.data(), *sat::find_lab(1));
    };
    CHECK(parse({}).data == sat::DataKind::exact);
    CHECK(parse({"--data", "exact"}).data == sat::DataKind::exact);
    CHECK(parse({"--data", "real"}).data == sat::DataKind::real);
    CHECK_THROWS_AS(parse({"--data", "sparse"}), sat::UsageError);
    CHECK_THROWS_AS(parse({"--data"}), sat::UsageError);
}

TEST_CASE("ceil_div does not overflow for sides within one tile of INT_MAX", "[cpu][sat]") {
    constexpr int int_max = 2147483647;
    static_assert(sat::ceil_div(int_max, 32) == 67108864);  // (a + b - 1) / b would wrap negative
    CHECK(sat::ceil_div(int_max - 31, 32) == 67108863);
    CHECK(sat::ceil_div(int_max, 1024) == 2097152);
    CHECK(sat::ceil_div(int_max, int_max) == 1);
    CHECK(sat::ceil_div(0, 32) == 0);
    CHECK(sat::ceil_div(64, 32) == 2);
    CHECK(sat::ceil_div(65, 32) == 3);
}
