// Lab 7 (register cache, Chen et al. 2018): every variant against the CPU reference.
#include <cstdint>
#include <vector>

#include "test_util.h"

using sat::DType;
using sat::Shape;

namespace {
// Kogge-Stone and Ladner-Fischer versions of the shuffle scans, and the serial BRLT-ScanRow.
const std::vector<std::string> variants = {"BRLT-ScanRow", "ScanRow-BRLT", "ScanRow-BRLT-LF",
                                          "ScanRowColumn", "ScanRowColumn-LF", "ScanRowColumn-16B"};
}  // namespace

TEST_CASE("lab7 every variant matches the reference for every type and standard shape",
          "[gpu][lab7]") {
    SAT_REQUIRE_GPU();
    sat_test::require_all_pass(7, variants, sat_test::all_types(), sat_test::standard_shapes());
}

TEST_CASE("lab7 edge tiles: partial warps, partial chunks and one-tile-wide strips",
          "[gpu][lab7]") {
    SAT_REQUIRE_GPU();
    // 32 +- 1 around a tile, a chunk of 8 warps (256 columns) +- 1, a ScanRow step (1024) +- 1,
    // thin shapes whose transposes are the awkward ones, and a prime width past 16384 columns,
    // where ScanColumn switches to 4-band blocks (the last one partial; u8i32 takes it).
    // Past 4 * 1024 columns ScanRow puts f64's 4 warps side by side on one row: 4097 and 9000
    // end in a partial step (u8 input keeps one warp per row). The 16-byte ScanColumn needs at
    // least 128 bands of 16 bytes (f64: 8192 columns, u8i32: 16384) and a width that is a
    // multiple of the vector: f64 takes it at 8194 and 16412, u8i32 at 16412 (rows not a
    // multiple of a step); 16411 and 8193 do not.
    sat_test::require_all_pass(7, variants, {DType::f64, DType::u8i32},
                               {{32, 32}, {33, 31}, {255, 257}, {1023, 1025}, {2, 3000}, {3000, 2}, {37, 1}, {1, 37},
                                {33, 16411}, {3, 4097}, {5, 9000}, {130, 8194}, {70, 8193}, {1, 16412}, {133, 16412}});
}

TEST_CASE("lab7 wide rows and the 16-byte ScanColumn for 4-byte types", "[gpu][lab7]") {
    SAT_REQUIRE_GPU();
    // f32 and i32 put 8 warps side by side from 8192 columns (8193: a partial last step) and
    // take the 16-byte ScanColumn from 16384 columns when the width is a multiple of 4.
    sat_test::require_all_pass(7, {"ScanRowColumn", "ScanRowColumn-LF", "ScanRowColumn-16B"}, {DType::f32, DType::i32},
                               {{3, 8193}, {2, 16388}, {133, 16412}, {257, 16384}, {5, 16387}});
}

// The kernels sum in sat::Acc<Out> (unsigned for integer outputs): every variant must give the
// reference's wrap-around modulo 2^32 exactly once the sums pass 2^31.
template <class In>
void require_wrap_around(DType type, Shape s, In value) {
    const std::vector<In> input(s.n(), value);
    for (const std::string& variant : variants) {
        sat::RunRequest run;
        run.lab = sat::find_lab(7);
        run.variant = &sat_test::find_variant(7, variant);
        run.type = type, run.shape = s, run.input = input.data();
        run.seed = sat_test::fresh_seed();
        const auto m = sat::run_variant(run);
        INFO(variant << " " << dtype_name(type) << " " << sat_test::shape_name(s) << ": "
                     << m.check.message() << " " << m.error);
        REQUIRE(m.ok());  // integers are checked exactly
    }
}

TEST_CASE("lab7 integer sums past 2^31 wrap exactly like the reference", "[gpu][lab7]") {
    SAT_REQUIRE_GPU();
    // u8 input, all 255: 3001 x 2999 takes the bottom-right sums past 2^31 (255 * 9.0e6).
    require_wrap_around<std::uint8_t>(DType::u8i32, {3001, 2999}, 255);
    // i32, all 100000: every sum past 21475 elements wraps, some of them several times; 16412
    // columns put ScanRow's warps side by side and take the 16-byte ScanColumn.
    require_wrap_around<std::int32_t>(DType::i32, {129, 16412}, 100000);
}

TEST_CASE("lab7 large matrix, 16384x16384 f32", "[gpu][lab7][large]") {
    SAT_REQUIRE_GPU();
    for (const char* variant : {"BRLT-ScanRow", "ScanRowColumn", "ScanRowColumn-16B"}) {
        const auto m = sat_test::check_variant(7, variant, DType::f32, {16384, 16384});
        REQUIRE(m.ok());
    }
}
