// Lab 9 (single-pass SAT with decoupled look-back): the variant against the CPU reference for
// every type and shape, tile edges, a large matrix, grids far larger and far smaller than the
// GPU holds at once, and the library entry point sat::inclusive_scan_2d on pitched
// sub-rectangles, in place, with caller-owned scratch.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "data.h"
#include "gpu_timing.h"
#include "sat_scan.h"
#include "test_util.h"

using sat::DType;
using sat::Shape;

namespace {

// Device memory of n elements of T (sat::DeviceBuffer counts bytes).
template <class T>
struct DeviceArray : sat::DeviceBuffer {
    T* const p;
    explicit DeviceArray(std::size_t n) : sat::DeviceBuffer(n * sizeof(T)), p(as<T>()) {}
};

struct LibraryCase {
    int rows = 0, cols = 0;
    std::size_t in_pitch = 0, out_pitch = 0;  // elements
    int row_offset = 1, col_offset = 0;       // where the sub-rectangle starts in the buffers
    int grid = 0;                             // ScanOptions::grid_blocks
    bool in_place = false;
    bool own_scratch = false;                 // pass caller-owned scratch (used twice)
};

// Runs sat::inclusive_scan_2d on a sub-rectangle of larger buffers and compares it with a CPU
// SAT (64-bit accumulation; integer-valued data small enough that f32 is exact). Elements of
// the output buffer outside the sub-rectangle must keep their poison.
template <class In, class Out>
void check_library(const LibraryCase& c) {
    const std::uint64_t seed = sat_test::fresh_seed();
    INFO("inclusive_scan_2d " << sizeof(In) << "->" << sizeof(Out) << " bytes, " << c.rows << "x"
         << c.cols << " pitches " << c.in_pitch << "/" << c.out_pitch << " at (" << c.row_offset
         << "," << c.col_offset << ") grid " << c.grid << (c.in_place ? " in place" : "")
         << (c.own_scratch ? " own scratch" : "") << ", seed " << seed);
    const std::size_t buffer_rows = std::size_t(c.rows) + 2 * c.row_offset;
    const std::size_t in_elems = buffer_rows * c.in_pitch, out_elems = buffer_rows * c.out_pitch;
    std::mt19937_64 rng(seed);
    const int max_value = std::is_same<In, uint8_t>::value ? 255 : 3;
    std::uniform_int_distribution<int> dist(0, max_value);
    std::vector<In> host_in(in_elems);
    for (In& v : host_in) v = In(dist(rng));

    DeviceArray<In> in(in_elems);
    DeviceArray<Out> out(c.in_place ? 1 : out_elems);
    REQUIRE(cudaMemcpy(in.p, host_in.data(), in_elems * sizeof(In), cudaMemcpyHostToDevice) == cudaSuccess);
    if (!c.in_place) REQUIRE(cudaMemset(out.p, sat::poison_byte, out_elems * sizeof(Out)) == cudaSuccess);
    const std::size_t first_in = std::size_t(c.row_offset) * c.in_pitch + c.col_offset;
    const std::size_t out_pitch = c.in_place ? c.in_pitch : c.out_pitch;
    const std::size_t first_out = std::size_t(c.row_offset) * out_pitch + c.col_offset;
    Out* out_base = c.in_place ? reinterpret_cast<Out*>(in.p) : out.p;

    DeviceArray<int> status(1);
    REQUIRE(cudaMemset(status.p, 0, sizeof(int)) == cudaSuccess);
    sat::ScanOptions opt;
    opt.status = status.p;
    opt.grid_blocks = c.grid;
    const sat::ScanScratchSize need = sat::inclusive_scan_2d_scratch<In, Out>(c.rows, c.cols);
    DeviceArray<unsigned char> state(c.own_scratch ? need.state_bytes : 1);
    DeviceArray<unsigned char> values(c.own_scratch ? need.value_bytes : 1);
    if (c.own_scratch) {
        opt.state = state.p;
        opt.values = values.p;
        REQUIRE(cudaMemset(values.p, 0xff, need.value_bytes) == cudaSuccess);  // garbage is fine
        // A first call leaves the flags set; the second must clear them itself.
        REQUIRE(sat::inclusive_scan_2d(in.p + first_in, c.in_pitch, out_base + first_out, out_pitch,
                                       c.rows, c.cols, 0, opt) == cudaSuccess);
        if (c.in_place)  // restore the input the first call overwrote
            REQUIRE(cudaMemcpy(in.p, host_in.data(), in_elems * sizeof(In), cudaMemcpyHostToDevice) == cudaSuccess);
    }
    REQUIRE(sat::inclusive_scan_2d(in.p + first_in, c.in_pitch, out_base + first_out, out_pitch,
                                   c.rows, c.cols, 0, opt) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    int status_word = -1;
    REQUIRE(cudaMemcpy(&status_word, status.p, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    REQUIRE(status_word == sat::status_ok);

    const std::size_t result_elems = c.in_place ? in_elems : out_elems;
    std::vector<Out> result(result_elems);
    REQUIRE(cudaMemcpy(result.data(), out_base, result_elems * sizeof(Out), cudaMemcpyDeviceToHost) == cudaSuccess);

    std::vector<long long> column(c.cols, 0);
    std::size_t wrong = 0;
    long first_row = -1, first_col = -1;
    long long first_expected = 0;
    double first_got = 0;
    for (int i = 0; i < c.rows; ++i) {
        long long row = 0;
        for (int j = 0; j < c.cols; ++j) {
            row += (long long)host_in[first_in + std::size_t(i) * c.in_pitch + j];
            column[j] += row;
            const Out got = result[first_out + std::size_t(i) * out_pitch + j];
            const bool ok = std::is_integral<Out>::value
                                ? uint32_t(got) == uint32_t(column[j])  // sums wrap mod 2^32
                                : double(got) == double(column[j]);
            if (!ok && wrong++ == 0) {
                first_row = i, first_col = j, first_expected = column[j], first_got = double(got);
            }
        }
    }
    INFO("first wrong (" << first_row << "," << first_col << "): expected " << first_expected
                         << ", got " << first_got);
    REQUIRE(wrong == 0);

    if (!c.in_place) {
        Out poison;
        std::memset(&poison, sat::poison_byte, sizeof poison);
        std::size_t touched = 0;
        for (std::size_t k = 0; k < out_elems; ++k) {
            const std::size_t i = k / c.out_pitch, j = k % c.out_pitch;
            const bool inside = i >= std::size_t(c.row_offset) && i < std::size_t(c.row_offset + c.rows) &&
                                j >= std::size_t(c.col_offset) && j < std::size_t(c.col_offset + c.cols);
            if (!inside && std::memcmp(&result[k], &poison, sizeof poison) != 0) ++touched;
        }
        REQUIRE(touched == 0);
    }
}

template <class In, class Out>
void check_library_all_cases() {
    // Aligned pitches (16-byte vector path), odd pitches and offsets (element path), tile
    // edges (64 or 32 rows x 512 columns; 256 for f64), one row and one column.
    const LibraryCase cases[] = {
        {1000, 3000, 4096, 4104, 1, 64},
        {999, 2999, 3011, 3007, 2, 5},
        {33, 513, 520, 1000, 1, 3},
        {1, 5000, 5003, 5001, 1, 1},
        {3000, 1, 7, 3, 1, 2},
        {64, 1024, 1024, 1024, 0, 0},
    };
    for (const LibraryCase& c : cases) check_library<In, Out>(c);
}

}  // namespace

TEST_CASE("lab9 LookBack matches the reference for every type and standard shape", "[gpu][lab9]") {
    SAT_REQUIRE_GPU();
    for (DType t : sat_test::all_types())
        for (Shape s : sat_test::standard_shapes()) {
            const auto m = sat_test::check_variant(9, "LookBack", t, s);
            REQUIRE(m.ok());
        }
}

TEST_CASE("lab9 tile edges: one tile, one more row, one more column, narrow and wide", "[gpu][lab9]") {
    SAT_REQUIRE_GPU();
    // Tiles are 64 rows x 512 columns (f32), 32 x 256 (f64) or 32 x 512 (i32, u8i32).
    const Shape shapes[] = {{32, 512}, {32, 256}, {64, 512}, {33, 513}, {63, 511}, {31, 511}, {65, 257},
                            {95, 1537}, {257, 20000}, {20000, 257}, {2, 3000}, {3000, 2}};
    for (DType t : sat_test::all_types())
        for (Shape s : shapes) {
            const auto m = sat_test::check_variant(9, "LookBack", t, s);
            REQUIRE(m.ok());
        }
}

TEST_CASE("lab9 large matrix, 16384x16384 f32", "[gpu][lab9][large]") {
    SAT_REQUIRE_GPU();
    const auto m = sat_test::check_variant(9, "LookBack", DType::f32, {16384, 16384});
    REQUIRE(m.ok());
}

TEST_CASE("lab9 large matrix, 8192x8192 f64 and i32", "[gpu][lab9][large]") {
    SAT_REQUIRE_GPU();
    for (DType t : {DType::f64, DType::i32}) {
        const auto m = sat_test::check_variant(9, "LookBack", t, {8192, 8192});
        REQUIRE(m.ok());
    }
}

TEST_CASE("lab9 over-subscribed and under-subscribed grids: no deadlock, same result",
          "[gpu][lab9]") {
    SAT_REQUIRE_GPU();
    // 8192 x 2048 i32: 256 x 4 = 1024 tiles. A grid of one block per tile, or 64 times what the
    // GPU holds, starts most blocks only after others finished, in an order unrelated to the
    // tiles' dependencies; the ticket must keep it deadlock-free. One block does every tile.
    const long bound = sat_test::resident_block_bound();
    const int grids[] = {1, 3, 1024, int(std::min(64 * bound, 2000000L))};
    for (int grid : grids) {
        LibraryCase c{8192, 2048, 2048, 2048, 0, 0, grid};
        check_library<int32_t, int32_t>(c);
    }
    LibraryCase c{1 << 20, 1, 1, 1, 0, 0, int(std::min(64 * bound, 2000000L))};  // 32768 tiles
    check_library<float, float>(c);
}

TEST_CASE("lab9 library entry point: pitched sub-rectangles, all four type pairs", "[gpu][lab9]") {
    SAT_REQUIRE_GPU();
    check_library_all_cases<float, float>();
    check_library_all_cases<double, double>();
    check_library_all_cases<int32_t, int32_t>();
    check_library_all_cases<uint8_t, int32_t>();
}

TEST_CASE("lab9 library entry point: in place and with caller-owned scratch", "[gpu][lab9]") {
    SAT_REQUIRE_GPU();
    LibraryCase c{1000, 3000, 3008, 3008, 1, 4};
    c.in_place = true;
    check_library<float, float>(c);
    check_library<int32_t, int32_t>(c);
    c.own_scratch = true;
    check_library<double, double>(c);
    c.in_place = false;
    c.out_pitch = 3100;
    check_library<uint8_t, int32_t>(c);
}

TEST_CASE("lab9 library entry point: argument checks and scratch sizes", "[lab9]") {
    // No GPU needed: bad arguments are refused before anything is launched.
    const float* in = reinterpret_cast<const float*>(std::uintptr_t(256));
    float* out = reinterpret_cast<float*>(std::uintptr_t(512));
    CHECK(sat::inclusive_scan_2d(in, 10, out, 9, 4, 10) == cudaErrorInvalidValue);  // pitch < cols
    CHECK(sat::inclusive_scan_2d(in, 9, out, 10, 4, 10) == cudaErrorInvalidValue);
    CHECK(sat::inclusive_scan_2d(in, 10, out, 10, -1, 10) == cudaErrorInvalidValue);
    CHECK(sat::inclusive_scan_2d(static_cast<const float*>(nullptr), 10, out, 10, 4, 10) ==
          cudaErrorInvalidValue);
    CHECK(sat::inclusive_scan_2d(in, 10, out, 10, 0, 10) == cudaSuccess);  // nothing to do
    CHECK(sat::inclusive_scan_2d(in, 10, out, 10, 4, 0) == cudaSuccess);
    sat::ScanOptions misaligned;
    misaligned.values = reinterpret_cast<void*>(std::uintptr_t(8));
    CHECK(sat::inclusive_scan_2d(in, 10, out, 10, 4, 10, 0, misaligned) == cudaErrorInvalidValue);

    // Scratch: flags are a few bytes per tile; the published sums about 2/32 of the matrix.
    const auto f32 = sat::inclusive_scan_2d_scratch<float, float>(16384, 16384);
    const auto f64 = sat::inclusive_scan_2d_scratch<double, double>(16384, 16384);
    const auto u8 = sat::inclusive_scan_2d_scratch<uint8_t, int32_t>(16384, 16384);
    const auto i32 = sat::inclusive_scan_2d_scratch<int32_t, int32_t>(16384, 16384);
    CHECK(f32.state_bytes < 100000);
    CHECK(f32.value_bytes > 16384ull * 16384 * 4 / 40);
    CHECK(f32.value_bytes < 16384ull * 16384 * 4 / 12);
    CHECK(f64.value_bytes > 16384ull * 16384 * 8 / 40);
    CHECK(u8.value_bytes > 16384ull * 16384 * 4 / 40);  // the i32 output's bytes
    CHECK(u8.value_bytes < 16384ull * 16384 * 4 / 12);
    CHECK(u8.value_bytes == i32.value_bytes);  // same accumulator, same 32 x 512 tiles
    CHECK(u8.state_bytes == i32.state_bytes);
    CHECK(sat::inclusive_scan_2d_scratch<float, float>(0, 5).value_bytes == 0);
}
