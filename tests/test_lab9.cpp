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

// A batch of images in one launch (--batch B): every image against its own reference. The
// library's batches go through the peers' satlib variant (tools/peers.cu), linked into this
// binary where the library is (mk/lib.mk).
namespace {
const std::vector<std::pair<sat::Shape, int>> batch_shapes = {
    {{1, 1}, 5}, {{97, 89}, 3}, {{1080, 1920}, 2}, {{33, 4000}, 4}, {{1000, 1}, 3}};

void require_batches_pass(int lab, const std::string& variant) {
    for (const auto& [shape, images] : batch_shapes)
        sat_test::require_all_pass(lab, {variant}, sat_test::all_types(), {shape}, -1, images);
}

// The image-boundary bug: the batch scanned as one (B * rows) x cols matrix, so each image's column
// sums carry into the next. Exact data are non-zero, so the carry shows from image 1's first row.
void require_stacked_fails(int lab, const std::string& variant) {
    const sat::Variant stacked = sat_test::stacked_variant(sat_test::find_variant(lab, variant));
    for (sat::DType t : sat_test::all_types())
        for (const auto& [shape, images] : batch_shapes) {
            const auto m = sat_test::check_variant(lab, stacked, t, shape, -1, 0, images);
            REQUIRE(m.error.empty());
            CHECK_FALSE(m.ok());
            CHECK(m.check.first_image >= 1);  // image 0 is right
            if (shape.cols > 1) {  // a column sum of zero (one column: about 1 in 5000) carries nothing
                CHECK(m.check.first_image == 1);
                CHECK(m.check.first_row == 0);
            }
        }
}

bool peers_linked() {
    if (sat::find_lab(0)) return true;
    sat_test::skipped_current = true;
    SUCCEED("skipped: the peers (tools/peers.cu, the library) are not linked into this binary");
    return false;
}
}  // namespace

TEST_CASE("lab9 LookBack: a batch of images in one launch, each against its own reference", "[gpu][lab9]") {
    SAT_REQUIRE_GPU();
    require_batches_pass(9, "LookBack");
}

TEST_CASE("lab9 LookBack: a column carry leaking from image 0 into image 1 is caught", "[gpu][lab9]") {
    SAT_REQUIRE_GPU();
    require_stacked_fails(9, "LookBack");
}

TEST_CASE("peers satlib: a batch of images through the library's batch option", "[gpu][lab9]") {
    SAT_REQUIRE_GPU();
    if (!peers_linked()) return;
    require_batches_pass(0, "satlib");
    require_stacked_fails(0, "satlib");
}
