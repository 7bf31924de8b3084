// Lab 1 (CPU): every variant against the definition, every type, awkward shapes.
#include "test_util.h"

using sat::DType;
using sat::Shape;

namespace {
const std::vector<Shape> cpu_shapes = {{1, 1}, {1, 7}, {7, 1}, {31, 33}, {97, 89}, {1, 5000}, {5000, 1}, {64, 64}, {257, 129}};
const char* const variants[] = {"2R2W(CPU)", "4R1W(CPU)", "threaded"};
}  // namespace

TEST_CASE("lab1 variants match the CPU reference for every type and shape", "[cpu][lab1]") {
    for (const char* variant : variants)
        for (DType t : sat_test::all_types())
            for (Shape s : cpu_shapes) {
                const auto m = sat_test::check_variant(1, variant, t, s);
                REQUIRE(m.ok());
            }
}

TEST_CASE("lab1 threaded SAT gives the same result for 1, 3 and 7 threads", "[cpu][lab1]") {
    for (int threads : {1, 3, 7}) {
        const auto m = sat_test::check_variant(1, "threaded", DType::i32, {101, 67}, -1, threads);
        REQUIRE(m.ok());
    }
}

TEST_CASE("lab1 timing fills time, bandwidth and copy columns", "[cpu][lab1]") {
    sat::RunRequest req;
    req.lab = sat::find_lab(1);
    req.variant = &sat_test::find_variant(1, "2R2W(CPU)");
    req.shape = {256, 256};
    req.seed = sat_test::fresh_seed();
    req.reps = 3;
    const auto m = sat::run_variant(req);
    REQUIRE(m.ok());
    CHECK(m.median_ms > 0);
    CHECK(m.min_ms <= m.median_ms);
    CHECK(m.median_ms <= m.max_ms);
    CHECK(m.copy_ms > 0);
    CHECK(m.gbps > 0);
}
