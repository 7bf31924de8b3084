// Lab 9 (single-pass SAT with decoupled look-back, the teaching kernel): the variant against the
// CPU reference for every type and shape, tile edges and large matrices. The library's kernel
// and entry points are tested in test_library.cpp.
#include "test_util.h"

using sat::DType;

TEST_CASE("lab9 LookBack matches the reference for every type and standard shape", "[gpu][lab9]") {
    SAT_REQUIRE_GPU();
    sat_test::require_all_pass(9, {"LookBack"}, sat_test::all_types(), sat_test::standard_shapes());
}

TEST_CASE("lab9 tile edges: one tile, one more row, one more column, narrow and wide", "[gpu][lab9]") {
    SAT_REQUIRE_GPU();
    // Tiles are 32 rows x 512 columns (f64: 256).
    sat_test::require_all_pass(9, {"LookBack"}, sat_test::all_types(),
                               {{32, 512}, {32, 256}, {64, 512}, {33, 513}, {63, 511}, {31, 511}, {65, 257},
                                {95, 1537}, {257, 20000}, {20000, 257}, {2, 3000}, {3000, 2}});
}

TEST_CASE("lab9 large matrix, 16384x16384 f32", "[gpu][lab9][large]") {
    SAT_REQUIRE_GPU();
    sat_test::require_all_pass(9, {"LookBack"}, {DType::f32}, {{16384, 16384}});
}

TEST_CASE("lab9 large matrix, 8192x8192 f64 and i32", "[gpu][lab9][large]") {
    SAT_REQUIRE_GPU();
    sat_test::require_all_pass(9, {"LookBack"}, {DType::f64, DType::i32}, {{8192, 8192}});
}
