// Lab 6 ((1+r)R1W): the default r, the edge cases r = 0 (pure 1R1W) and r = 1 (one 2R1W pass),
// every r of the sweep, shapes where the triangles, the band or both are tiny, a large matrix,
// the sweep's r values and the trace picture (the student skeleton failing cleanly:
// tests/test_skeletons.cpp).
#include <cmath>

#include "test_util.h"

using sat::DType;
using sat::Shape;

namespace {
const char* const hybrid = "(1+r)R1W";

std::vector<double> sweep_for(Shape s) {
    const sat::LabInfo* lab = sat::find_lab(6);
    REQUIRE(lab != nullptr);
    REQUIRE(lab->sweep != nullptr);
    return lab->sweep(s);
}
}  // namespace

TEST_CASE("lab6 sweep: r = (k w)^2 / n from 0 to 1, at most 24 values", "[cpu][lab6]") {
    // 97 x 89: 4 x 3 tiles, so k = 0..3 and r = k^2 / 9.
    const auto small = sweep_for({97, 89});
    REQUIRE(small.size() == 4);
    CHECK(small[0] == 0.0);
    CHECK(small[1] == Approx(1.0 / 9));
    CHECK(small[2] == Approx(4.0 / 9));
    CHECK(small[3] == 1.0);
    // 1024 x 1024: 32 tiles a side, k = 0..32 subsampled, (k w)^2 / n exactly.
    for (Shape s : {Shape{1024, 1024}, Shape{16384, 16384}, Shape{32768, 32768}, Shape{1, 100000}}) {
        const auto rs = sweep_for(s);
        INFO(sat_test::shape_name(s));
        REQUIRE(rs.size() >= 2);
        CHECK(rs.size() <= 24);
        CHECK(rs.front() == 0.0);
        CHECK(rs.back() == 1.0);
        for (std::size_t i = 1; i < rs.size(); ++i) CHECK(rs[i] > rs[i - 1]);
    }
    for (double r : sweep_for({1024, 1024})) {
        const double k = std::sqrt(r) * 1024 / 32;
        CHECK(k == Approx(std::round(k)));
    }
}

TEST_CASE("lab6 default r matches the reference for every type and standard shape", "[gpu][lab6]") {
    SAT_REQUIRE_GPU();
    sat_test::require_all_pass(6, {hybrid}, sat_test::all_types(), sat_test::standard_shapes());
}

TEST_CASE("lab6 r = 0 (all 1R1W) and r = 1 (all 2R1W) for every type and standard shape",
          "[gpu][lab6]") {
    SAT_REQUIRE_GPU();
    for (double r : {0.0, 1.0}) sat_test::require_all_pass(6, {hybrid}, sat_test::all_types(), sat_test::standard_shapes(), r);
}

TEST_CASE("lab6 every r of the sweep, on square, wide, tall and ragged shapes", "[gpu][lab6]") {
    SAT_REQUIRE_GPU();
    // 320 x 320 (10 x 10 tiles): k = 9 leaves a band of one anti-diagonal between the triangles.
    const Shape shapes[] = {{320, 320}, {97, 89}, {1000, 1100}, {200, 3000}, {3000, 200}, {33, 4097}};
    for (Shape s : shapes)
        for (double r : sweep_for(s))
            for (DType t : {DType::f32, DType::i32}) {
                const auto m = sat_test::check_variant(6, hybrid, t, s, r);
                REQUIRE(m.ok());
            }
}

TEST_CASE("lab6 r between the sweep's values and exact types", "[gpu][lab6]") {
    SAT_REQUIRE_GPU();
    for (double r : {0.01, 0.1, 0.3, 0.5, 0.9, 0.99})
        for (DType t : {DType::f64, DType::u8i32}) {
            const auto m = sat_test::check_variant(6, hybrid, t, {1500, 1300}, r);
            REQUIRE(m.ok());
        }
}

TEST_CASE("lab6 large matrix, 16384x16384 f32", "[gpu][lab6][large]") {
    SAT_REQUIRE_GPU();
    for (double r : {-1.0, 0.0, 0.1, 1.0}) {
        const auto m = sat_test::check_variant(6, hybrid, DType::f32, {16384, 16384}, r);
        REQUIRE(m.ok());
    }
}

TEST_CASE("lab6 --trace writes the tile-completion picture", "[gpu][lab6]") {
    SAT_REQUIRE_GPU();
    sat_test::require_trace_pictures(6, {1000, 1000});  // at the default r = 0.25
}
