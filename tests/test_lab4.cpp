// Lab 4 (2R1W, Kasagi et al. section V): the variant against the CPU reference, including sizes
// where the SAT of the block sums S needs the recursion (k = 1).
#include "test_util.h"

using sat::DType;
using sat::Shape;

TEST_CASE("lab4 2R1W matches the reference for every type and standard shape", "[gpu][lab4]") {
    SAT_REQUIRE_GPU();
    for (DType t : sat_test::all_types())
        for (Shape s : sat_test::standard_shapes()) {
            const auto m = sat_test::check_variant(4, "2R1W", t, s);
            REQUIRE(m.ok());
        }
}

TEST_CASE("lab4 edges: one block, one block row/column, S at and just past one block",
          "[gpu][lab4]") {
    SAT_REQUIRE_GPU();
    // S is (ty-1) x (tx-1) blocks: 1056 = 33 blocks gives S = 32 x 32 (no recursion), 1057 gives
    // 33 x 33 (recursion); 1 x 40000 / 40000 x 1 give S empty with a long C or R; 30 x 64 is
    // aligned for vectors on one side only.
    const Shape shapes[] = {{32, 32}, {33, 31}, {31, 33}, {32, 5000}, {5000, 32}, {1056, 1056},
                            {1057, 1057}, {1057, 40}, {40, 1057}, {30, 64}, {1, 40000}, {40000, 1}};
    for (DType t : sat_test::all_types())
        for (Shape s : shapes) {
            const auto m = sat_test::check_variant(4, "2R1W", t, s);
            REQUIRE(m.ok());
        }
}

TEST_CASE("lab4 large matrices, 16384x16384 and 32768x32768 f32 (recursion depth k = 1)",
          "[gpu][lab4][large]") {
    SAT_REQUIRE_GPU();
    for (Shape s : {Shape{16384, 16384}, Shape{32768, 32768}}) {
        const auto m = sat_test::check_variant(4, "2R1W", DType::f32, s);
        REQUIRE(m.ok());
    }
}
