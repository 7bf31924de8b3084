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
    const sat::LabInfo* lab = sat::find_lab(1);
    REQUIRE(lab != nullptr);
    const sat::Variant* threaded = nullptr;
    for (const sat::Variant& v : lab->variants)
        if (v.name == "threaded") threaded = &v;
    REQUIRE(threaded != nullptr);
    for (int threads : {16, 64})
        for (Shape s : {Shape{3, 500}, Shape{500, 3}, Shape{1, 1}, Shape{2, 17}})
            for (DType t : {DType::f64, DType::i32}) {
                sat::RunRequest req;
                req.lab = lab;
                req.variant = threaded;
                req.type = t;
                req.shape = s;
                req.seed = sat_test::fresh_seed();
                req.cpu_threads = threads;
                const auto m = sat::run_variant(req);
                INFO("threaded, " << threads << " threads, " << sat::dtype_name(t) << " "
                                  << sat_test::shape_name(s) << " seed " << req.seed << ": "
                                  << (m.error.empty() ? m.check.message() : m.error));
                REQUIRE(m.ok());
            }
}
