// Hidden tests for lab 1 (instructor only: make release leaves tests/hidden/ out, make grade and
// make test run them). See tests/hidden/README.md for how to add more.
#include "../test_util.h"

using sat::DType;
using sat::Shape;

namespace {
const char* const lab1_variants[] = {"2R2W(CPU)", "4R1W(CPU)", "threaded"};
}  // namespace

// Shapes the public tests do not try: one row or column more or less than a cache line of
// floats, long thin strips, primes on both sides.
TEST_CASE("lab1 hidden: every variant on strips and prime shapes", "[cpu][lab1][hidden]") {
    const Shape shapes[] = {{2, 1}, {1, 2}, {3, 1000}, {1000, 3}, {15, 17}, {127, 131}, {509, 7}, {33, 2049}};
    for (const char* variant : lab1_variants)
        for (DType t : sat_test::all_types())
            for (Shape s : shapes) {
                const auto m = sat_test::check_variant(1, variant, t, s);
                REQUIRE(m.ok());
            }
}

// A bonus test: the grader gives its points on top of the lab's maximum. More threads than rows
// or than 64-byte column blocks leaves some threads without work; they must not touch memory.
TEST_CASE("lab1 bonus: threaded SAT with more threads than rows or column blocks",
          "[cpu][lab1][hidden][bonus]") {
    for (int threads : {16, 64})
        for (Shape s : {Shape{3, 500}, Shape{500, 3}, Shape{1, 1}, Shape{2, 17}})
            for (DType t : {DType::f64, DType::i32}) {
                const auto m = sat_test::check_variant(1, "threaded", t, s, -1, threads);
                REQUIRE(m.ok());
            }
}

// A bug that shows only past some row or column (an index that overflows, a slip at i == 4000)
// escapes the small shapes above: every variant on tall and wide matrices of 4.2 M elements.
TEST_CASE("lab1 hidden: every variant on tall and wide matrices", "[cpu][lab1][hidden]") {
    for (const char* variant : lab1_variants)
        for (DType t : sat_test::all_types())
            for (Shape s : {Shape{4099, 1031}, Shape{1031, 4099}}) {
                const auto m = sat_test::check_variant(1, variant, t, s);
                REQUIRE(m.ok());
            }
}
