// The HMM cost formulas against Kasagi et al. Table I, Lemmas 2-5 and Theorems 6-7.
#include <cmath>

#include "harness.h"
#include "hmm.h"
#include "test_util.h"

using sat::hmm::Cost;
using sat::hmm::formula;
using sat::hmm::Params;

namespace {
Params square(double side, double r = 0) { return sat::hmm::params_for({int(side), int(side)}, r); }
}  // namespace

TEST_CASE("2R2W costs 2n + 2n/w + 2l (Table I, Lemma 2)", "[cpu][hmm]") {
    const double n = 1024.0 * 1024;
    const Cost c = formula("2R2W").eval(square(1024));
    CHECK(c.units == Approx(2 * n + 2 * n / 32));
    CHECK(c.latencies == 2);
}

TEST_CASE("4R4W costs 8n/w + 4l (Table I, Lemma 3)", "[cpu][hmm]") {
    const Cost c = formula("4R4W").eval(square(4096));
    CHECK(c.units == Approx(8 * 4096.0 * 4096 / 32));
    CHECK(c.latencies == 4);
}

TEST_CASE("2R1W costs 3n/w + (2k+3)l with the right recursion depth (Lemma 4)", "[cpu][hmm]") {
    CHECK(sat::hmm::recursion_depth(1024, 1024) == 0);    // S is 32 x 32: one block
    CHECK(sat::hmm::recursion_depth(1025, 1025) == 1);
    CHECK(sat::hmm::recursion_depth(16384, 16384) == 1);  // S 512 x 512 -> 16 x 16
    CHECK(sat::hmm::recursion_depth(32768, 32768) == 1);
    CHECK(sat::hmm::recursion_depth(32769, 1) == 2);
    const Cost c = formula("2R1W").eval(square(16384));
    CHECK(c.units == Approx(3 * 16384.0 * 16384 / 32));
    CHECK(c.latencies == 2 * 1 + 3);
}

TEST_CASE("4R1W costs 5n + 2 sqrt(n) l (Table I, Lemma 5)", "[cpu][hmm]") {
    const Cost c = formula("4R1W").eval(square(2048));
    CHECK(c.units == Approx(5 * 2048.0 * 2048));
    CHECK(c.latencies == 2 * 2048);
}

TEST_CASE("1R1W costs 2n/w + 2 (sqrt(n)/w) l (Table I, Theorem 6)", "[cpu][hmm]") {
    const Cost c = formula("1R1W").eval(square(18432));
    CHECK(c.units == Approx(2 * 18432.0 * 18432 / 32));
    CHECK(c.latencies == 2 * 18432 / 32);
}

TEST_CASE("(1+r)R1W interpolates between 1R1W and 2R1W (Theorem 7)", "[cpu][hmm]") {
    const double side = 16384, n = side * side, w = 32;
    const int k = sat::hmm::recursion_depth(side, side);
    const auto& f = formula("(1+r)R1W");
    // r = 0.25 is Table I's 1.25R1W row: sqrt(n)/w + 4k + 5 latencies.
    const Cost quarter = f.eval(square(side, 0.25));
    CHECK(quarter.latencies == Approx(side / w + 4 * k + 5));
    CHECK(quarter.units == Approx(2.25 * n / w));
    // r = 0: all 1R1W stages plus the fixed terms; r = 1: all 2R1W, no wavefront.
    CHECK(f.eval(square(side, 0)).latencies == Approx(2 * side / w + 4 * k + 5));
    CHECK(f.eval(square(side, 1)).latencies == Approx(4 * k + 5));
    CHECK(f.eval(square(side, 1)).units == Approx(3 * n / w));  // reads 2n, writes n: 2R1W's traffic
    CHECK(f.eval(square(side, 0)).units == Approx(2 * n / w));  // 1R1W's traffic
}

TEST_CASE("SKSS's latency: a strip of 4w rows, a step of w lanes' 16 bytes (4w columns, f64 2w)", "[cpu][hmm]") {
    // 16384 x 8192: 128 strips; steps of 128 columns (4-byte outputs) or 64 (f64).
    Params p = sat::hmm::params_for({16384, 8192});
    CHECK(formula("SKSS").eval(p).latencies == 128 + 64);
    p.out_bytes = 8;
    CHECK(formula("SKSS").eval(p).latencies == 128 + 128);
    CHECK(formula("SKSS").eval(p).units == Approx(2 * 16384.0 * 8192 / 32));
    // The SAT problem passes each run's output type: f64 through the wider count, u8 -> i32 and
    // f32 the 4-byte one; a ragged step or strip counts whole.
    const sat::Variant& skss = sat_test::find_variant(8, "SKSS");
    const sat::Problem& sat_problem = sat::sat_problem();
    CHECK(sat_problem.cost(skss, {16384, 8192}, 0, sat::DType::f64).cost.latencies == 256);
    CHECK(sat_problem.cost(skss, {16384, 8192}, 0, sat::DType::f32).cost.latencies == 192);
    CHECK(sat_problem.cost(skss, {16384, 8192}, 0, sat::DType::u8i32).cost.latencies == 192);
    CHECK(sat_problem.cost(skss, {129, 129}, 0, sat::DType::f64).cost.latencies == 2 + 3);
}

TEST_CASE("the model ranks algorithms as the paper does at 18K", "[cpu][hmm]") {
    // With l of a few hundred time units, 2R1W and 1R1W beat 4R4W, which beats 2R2W and 4R1W.
    const Params p = square(18432);
    auto total = [&](const char* key) { const Cost c = formula(key).eval(p); return c.units + 300 * c.latencies; };
    CHECK(total("2R1W") < total("4R4W"));
    CHECK(total("1R1W") < total("4R4W"));
    CHECK(total("4R4W") < total("2R2W"));
    CHECK(total("2R2W") < total("4R1W"));
}

TEST_CASE("every formula has text and a finite value, except the CPU's", "[cpu][hmm]") {
    for (const auto& f : sat::hmm::formulas()) {
        INFO(f.key);
        CHECK_FALSE(f.symbolic.empty());
        CHECK_FALSE(f.source.empty());
        const Cost c = f.eval(square(4096, 0.5));
        if (f.key == "cpu") CHECK_FALSE(c.defined());
        else {
            CHECK(std::isfinite(c.units));
            CHECK(c.units > 0);
            CHECK(c.latencies >= 0);
        }
    }
    CHECK_THROWS_AS(formula("no-such-algorithm"), sat::Error);
}

TEST_CASE("the prediction is units x time unit + latencies x l of the variant's barrier", "[cpu][hmm]") {
    sat::hmm::Calibration cal;
    cal.unit_s = 2e-9;
    cal.l_launch_s = 3e-6;
    cal.l_graph_s = 1e-6;
    const Cost c{1000, 10};
    CHECK(sat::hmm::predict_seconds(c, cal, sat::Barrier::kernel_launch) == Approx(2e-6 + 3e-5));
    CHECK(sat::hmm::predict_seconds(c, cal, sat::Barrier::graph_launch) == Approx(2e-6 + 1e-5));
    CHECK(sat::hmm::predict_seconds(c, cal, sat::Barrier::none) == Approx(2e-6));
}
