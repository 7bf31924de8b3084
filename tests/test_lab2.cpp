// Lab 2 (2R2W, Kasagi et al. section IV): the variant against the CPU reference.
#include "test_util.h"

using sat::DType;

TEST_CASE("lab2 2R2W matches the reference for every type and standard shape", "[gpu][lab2]") {
    SAT_REQUIRE_GPU();
    sat_test::require_all_pass(2, {"2R2W"}, sat_test::all_types(), sat_test::standard_shapes());
}

TEST_CASE("lab2 2R2W edges: partial blocks of threads, thin strips", "[gpu][lab2]") {
    SAT_REQUIRE_GPU();
    // 64 threads per block +- 1, one row / one column, 32-multiples that are not 64-multiples.
    sat_test::require_all_pass(2, {"2R2W"}, {DType::f64, DType::u8i32},
                               {{63, 65}, {65, 63}, {2, 3000}, {3000, 2}, {1, 37}, {37, 1}, {96, 160}});
}

TEST_CASE("lab2 large matrix, 16384x16384 f32", "[gpu][lab2][large]") {
    SAT_REQUIRE_GPU();
    sat_test::require_all_pass(2, {"2R2W"}, {DType::f32}, {{16384, 16384}});
}
