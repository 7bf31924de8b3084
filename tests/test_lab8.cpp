// Lab 8 (SKSS, Funasaka et al. 2017): every variant against the CPU reference, a grid far larger
// than the GPU can hold at once (the ticket order must prevent a deadlock), and the trace.
#include <cuda_runtime.h>

#include <cstdio>
#include <fstream>
#include <vector>

#include "test_util.h"

using sat::DType;
using sat::Shape;

const std::vector<std::string> variants = {"SKSS", "SKSS-warp", "SKSS-cluster"};

TEST_CASE("lab8 every variant matches the reference for every type and standard shape",
          "[gpu][lab8]") {
    SAT_REQUIRE_GPU();
    sat_test::require_all_pass(8, variants, sat_test::all_types(), sat_test::standard_shapes());
}

TEST_CASE("lab8 edge strips and tiles", "[gpu][lab8]") {
    SAT_REQUIRE_GPU();
    // A strip of SKSS is 128 rows and a step 128 columns (64 for f64); a warp strip is 32.
    sat_test::require_all_pass(8, variants, {DType::f64, DType::i32},
                               {{32, 32}, {33, 31}, {127, 129}, {129, 127}, {257, 300}, {3000, 2}, {2, 3000}});
}

TEST_CASE("lab8 over-subscribed grid: far more blocks than can be resident, no deadlock",
          "[gpu][lab8]") {
    SAT_REQUIRE_GPU();
    // One worker per strip: SKSS launches rows/128 blocks, SKSS-warp rows/64. Both must be far
    // above what the GPU can hold at once, so most blocks start only after others finished.
    const long bound = sat_test::resident_block_bound();
    const Shape shapes[] = {{1 << 22, 1}, {1 << 21, 40}};
    for (Shape s : shapes) {
        const long skss_blocks = (long(s.rows) + 127) / 128;
        INFO("rows " << s.rows << ": SKSS launches " << skss_blocks << " blocks; at most "
                     << bound << " can be resident");
        REQUIRE(skss_blocks > 2 * bound);
        for (const std::string& variant : variants) {
            const auto m = sat_test::check_variant(8, variant, s.cols == 1 ? DType::f32 : DType::i32, s);
            REQUIRE(m.ok());
        }
    }
}

TEST_CASE("lab8 large matrix, 16384x16384 f32", "[gpu][lab8][large]") {
    SAT_REQUIRE_GPU();
    for (const std::string& variant : variants) {
        const auto m = sat_test::check_variant(8, variant, DType::f32, {16384, 16384});
        REQUIRE(m.ok());
    }
}

TEST_CASE("lab8 --trace writes the tile-completion picture", "[gpu][lab8]") {
    SAT_REQUIRE_GPU();
    sat_test::require_trace_pictures(8, {1000, 700});
}

// SKSS-warp sums in sat::Acc (unsigned): u8 input of all 255 over 3001 x 2999 (9.0 Mpixel) takes
// the bottom-right sums past 2^31, where signed sums would overflow; the output must equal the
// reference's wrap-around modulo 2^32 exactly.
TEST_CASE("lab8 SKSS-warp u8i32 past 2^31 wraps exactly like the reference", "[gpu][lab8]") {
    SAT_REQUIRE_GPU();
    const Shape s{3001, 2999};
    std::vector<std::uint8_t> input(s.n(), std::uint8_t(255));
    sat::RunRequest req;
    req.lab = sat::find_lab(8);
    REQUIRE(req.lab != nullptr);
    req.variant = &sat_test::find_variant(8, "SKSS-warp");
    req.type = DType::u8i32;
    req.shape = s;
    req.seed = sat_test::fresh_seed();
    req.input = input.data();
    const auto m = sat::run_variant(req);
    INFO(m.check.message() << " " << m.error);
    REQUIRE(m.ok());  // integers are checked exactly
}
