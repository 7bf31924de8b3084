// Lab 3 (tile transpose in three shared-memory layouts, and 4R4W; Kasagi et al. sections III-IV):
// every variant against the CPU reference (the transpose variants against a transposed copy).
#include "test_util.h"

using sat::DType;

namespace {
const std::vector<std::string> variants = {"transpose-naive", "transpose-padded", "transpose-diagonal", "4R4W"};
}  // namespace

TEST_CASE("lab3 every variant matches the reference for every type and standard shape",
          "[gpu][lab3]") {
    SAT_REQUIRE_GPU();
    sat_test::require_all_pass(3, variants, sat_test::all_types(), sat_test::standard_shapes());
}

TEST_CASE("lab3 edges: partial tiles, unaligned rows, partial scan rounds", "[gpu][lab3]") {
    SAT_REQUIRE_GPU();
    // 32 +- 1 around a tile; rows/cols not multiples of the 4-wide vectors (scalar path) on one
    // side only; half a scan round (128 rows: 8 warps x 16) +- 1; thin strips whose transposes are
    // the awkward ones.
    sat_test::require_all_pass(3, variants, sat_test::all_types(),
                               {{32, 32}, {33, 31}, {64, 30}, {30, 64}, {63, 257}, {65, 255},
                                {2, 3000}, {3000, 2}, {37, 1}, {1, 37}});
}

TEST_CASE("lab3 large matrix, 16384x16384 f32", "[gpu][lab3][large]") {
    SAT_REQUIRE_GPU();
    sat_test::require_all_pass(3, {"transpose-diagonal", "4R4W"}, {DType::f32}, {{16384, 16384}});
}
