// The SAT library (lib/): the C++ entry points (sat.hpp) and the C ABI (satlib.h) against exact
// CPU references: every type pair on pitched sub-rectangles with canaries, in place, caller-owned
// scratch, grids of any size, batches with a batch stride, squared sums, the NPP layout, thin
// shapes, the box filters and a spin timeout ([gpu][library]); argument checks and the no-GPU
// behaviour of the C ABI ([cpu][library]). Kept with the library (mk/lib.mk links it into
// build/sat_tests), so that a copy of the suite without lib/ has no test of it.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <unistd.h>

#include "data.h"
#include "gpu_timing.h"
#include "sat_scan.h"
#include "satlib.h"
#include "../src/sat_thin.cuh"
#include "../src/satlib_testing.h"
#include "../../tests/test_util.h"

namespace {

// The rows of the small images' tiles of f32, i32 and u8 (lookback_kernel.cuh, SmallTileShape;
// 512 columns); f64's are 32 x 256. The short tiles of every pair (ShortTileShape, satlib.cu
// short_tiles) are 17 x 512, the f64 accumulator's 17 x 256; the tall small tiles of f32 and i32
// (TallSmallTileShape, satlib.cu tall_small_tiles) 38 x 512.
constexpr int small_tile_rows = 34, f64_small_tile_rows = 32, short_tile_rows = 17, tall_small_tile_rows = 38;
constexpr int wide_thin_tile_rows = 34;  // WideThinTileShape: f64 accumulator; f32, i32, u8 -> i32 lane by lane

// Device memory of n elements of T (sat::DeviceBuffer counts bytes).
template <class T>
struct DeviceArray : sat::DeviceBuffer {
    T* const p;
    explicit DeviceArray(std::size_t n) : sat::DeviceBuffer(n * sizeof(T)), p(as<T>()) {}
};

// An attribute of the current device (REQUIREs the queries to succeed).
int current_device_attribute(cudaDeviceAttr attribute) {
    int device = 0, value = 0;
    REQUIRE(cudaGetDevice(&device) == cudaSuccess);
    REQUIRE(cudaDeviceGetAttribute(&value, attribute, device) == cudaSuccess);
    return value;
}

struct LibraryCase {
    int rows = 0, cols = 0;
    std::size_t in_pitch = 0, out_pitch = 0;  // elements
    int row_offset = 1, col_offset = 0;       // where the sub-rectangle starts in the buffers
    int grid = 0;                             // ScanOptions::grid_blocks
    bool in_place = false;
    bool own_scratch = false;                 // pass caller-owned scratch (used twice)
};

// `n` random integer inputs from `seed`: u8 -> i32 the whole byte range (sums compared modulo
// 2^32), else small enough that f32 sums are exact.
template <class In, class Out>
std::vector<In> exact_input(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const int max_value = std::is_same<In, uint8_t>::value && std::is_integral<Out>::value ? 255 : 3;
    std::uniform_int_distribution<int> dist(0, max_value);
    std::vector<In> values(n);
    for (In& v : values) v = In(dist(rng));
    return values;
}

// The status word a scan was given: no tile timed out waiting for another.
void require_status_ok(const int* status) {
    int status_word = -1;
    REQUIRE(cudaMemcpy(&status_word, status, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    REQUIRE(status_word == sat::status_ok);
}

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
    // A case's output rows must fit its pitch, or they overlap and the poison check misreads them.
    REQUIRE(std::size_t(c.col_offset) + c.cols <= (c.in_place ? c.in_pitch : c.out_pitch));
    const std::size_t buffer_rows = std::size_t(c.rows) + 2 * c.row_offset;
    const std::size_t in_elems = buffer_rows * c.in_pitch, out_elems = buffer_rows * c.out_pitch;
    const std::vector<In> host_in = exact_input<In, Out>(in_elems, seed);

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
        // Flags of garbage (every tile "done"), then those a first call leaves set: each call must
        // clear them itself, and its tiles must not read them before they are clear.
        REQUIRE(cudaMemset(state.p, 0xff, need.state_bytes) == cudaSuccess);
        REQUIRE(sat::inclusive_scan_2d(in.p + first_in, c.in_pitch, out_base + first_out, out_pitch,
                                       c.rows, c.cols, 0, opt) == cudaSuccess);
        if (c.in_place)  // restore the input the first call overwrote
            REQUIRE(cudaMemcpy(in.p, host_in.data(), in_elems * sizeof(In), cudaMemcpyHostToDevice) == cudaSuccess);
    }
    REQUIRE(sat::inclusive_scan_2d(in.p + first_in, c.in_pitch, out_base + first_out, out_pitch,
                                   c.rows, c.cols, 0, opt) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    require_status_ok(status.p);

    const std::size_t result_elems = c.in_place ? in_elems : out_elems;
    std::vector<Out> result(result_elems);
    REQUIRE(cudaMemcpy(result.data(), out_base, result_elems * sizeof(Out), cudaMemcpyDeviceToHost) == cudaSuccess);

    std::size_t wrong = 0;
    long first_row = -1, first_col = -1;
    long long first_expected = 0, largest_sum = 0;
    double first_got = 0;
    sat::for_each_exact_sum(
        sat::Shape{c.rows, c.cols},
        [&](int i, int j) { return (long long)host_in[first_in + std::size_t(i) * c.in_pitch + j]; },
        [&](int i, int j, long long sum) {
            largest_sum = std::max(largest_sum, sum);
            const Out got = result[first_out + std::size_t(i) * out_pitch + j];
            if (!sat::equals_exact_sum(got, sum) && wrong++ == 0)
                first_row = i, first_col = j, first_expected = sum, first_got = double(got);
        });
    // The case itself: f32 holds every integer only up to 2^24, so larger sums need a smaller shape.
    if (std::is_same<Out, float>::value) {
        INFO("the case's largest sum " << largest_sum << " passes 2^24: f32 cannot be compared exactly");
        REQUIRE(largest_sum <= (1LL << 24));
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

// check_library, and the thin path the call took (satlib_testing.h).
template <class In, class Out>
void check_library_on(const LibraryCase& c, satlib::testing::ThinPath path) {
    check_library<In, Out>(c);
    CHECK(satlib::testing::launch_log().last_thin_path == path);
}

// One image through the 256-thread tiles, with (`vector`) or without vector accesses.
template <class In, class Out>
void check_large_tiles(const LibraryCase& c, bool vector) {
    check_library<In, Out>(c);
    CHECK(satlib::testing::launch_log().last_threads == 256);
    CHECK(satlib::testing::launch_log().last_vector == vector);
}

template <class In, class Out>
void check_library_all_cases() {
    // Aligned pitches (16-byte vector path), odd pitches and offsets (no vectors: lanes in the
    // 256-thread tiles and the short ones, elements in the small ones), tile edges (with vectors
    // 40 rows x 1024 columns for f32 and i32 and 36 x 1024 for u8, lane by lane 32 x 1024; f64
    // 32 x 512; the small images of f32, i32 and u8 34 x 512, f64's batches, squares and images
    // too tall for the short tiles 32 x 256; one image of at most 128 short tile rows 17 x 512, f64's
    // 17 x 256, so 1200 x 1500 takes the short tiles, 71 tile rows in groups of 8, and 2200 x 1500,
    // 130 of them, the small ones, element by element at its odd pitches), one row and one column.
    const LibraryCase cases[] = {
        {1000, 3000, 4096, 4104, 1, 64},
        {999, 2999, 3011, 3007, 2, 5},
        {1200, 1500, 1503, 1509, 2, 5},
        {2200, 1500, 1503, 1509, 2, 5},
        {33, 513, 520, 1000, 1, 3},
        {35, 513, 520, 1000, 1, 3},
        {1, 5000, 5003, 5001, 1, 1},
        {3000, 1, 7, 3, 1, 2},
        {64, 1024, 1024, 1024, 0, 0},
    };
    for (const LibraryCase& c : cases) check_library<In, Out>(c);
    // 2221 x 4133 takes the 256-thread tiles of every pair but u8's (f32 and i32: 5 x 70 lane by lane
    // at offset 5, 5 x 56 with vectors at offset 8; 9 x 66 = 594 small and 9 x 59 = 531 tall small
    // tiles would be more than a round), which look back; u8's one round of 9 x 66 small tiles.
    for (const int col_offset : {5, 8}) {
        check_library<In, Out>({2221, 4133, 4136, 4144, 1, col_offset});
        CHECK(satlib::testing::launch_log().last_threads == (sizeof(In) == 1 ? 128 : 256));
    }
}

}  // namespace

TEST_CASE("library: over-subscribed and under-subscribed grids: no deadlock, same result",
          "[gpu][library]") {
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

TEST_CASE("library inclusive_scan_2d: pitched sub-rectangles, all seven type pairs", "[gpu][library]") {
    SAT_REQUIRE_GPU();
    check_library_all_cases<float, float>();
    check_library_all_cases<double, double>();
    check_library_all_cases<int32_t, int32_t>();
    check_library_all_cases<uint8_t, int32_t>();
    check_library_all_cases<uint8_t, float>();
    check_library_all_cases<uint16_t, double>();
    check_library_all_cases<float, double>();
}

TEST_CASE("library inclusive_scan_2d: in place and with caller-owned scratch", "[gpu][library]") {
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
    check_library<uint16_t, double>(c);
    check_library<float, double>(c);
}

TEST_CASE("library inclusive_scan_2d: one line (CUB's 1-D scan), in place, own scratch, every pair", "[gpu][library][thin]") {
    SAT_REQUIRE_GPU();
    // 1 x N and N x 1 with pitches of 1 are lines; N x 1 with a pitch of 2 is not (the chunks).
    // 4,000,037 elements: many of CUB's tiles; values <= 3 keep f32 sums exact.
    const LibraryCase lines[] = {{1, 4000037, 4000040, 4000039, 1, 1}, {4000037, 1, 1, 1, 0, 0},
                                 {1, 1, 1, 1, 0, 0}, {2, 1, 1, 1, 0, 0}, {1, 7, 7, 7, 0, 0}, {4001, 1, 2, 1, 0, 0}};
    for (LibraryCase c : lines) {
        check_library<float, float>(c);
        check_library<double, double>(c);
        check_library<int32_t, int32_t>(c);
        check_library<uint8_t, int32_t>(c);
        check_library<uint8_t, float>(c);
        check_library<uint16_t, double>(c);
        check_library<float, double>(c);
        c.own_scratch = true;  // the scratch inclusive_scan_2d_scratch sizes, used twice
        check_library<uint8_t, int32_t>(c);
        check_library<float, float>(c);
        if (c.in_pitch == c.out_pitch) {
            c.in_place = true;
            check_library<float, float>(c);
            check_library<int32_t, int32_t>(c);
        }
    }
}

TEST_CASE("library inclusive_scan_2d: a u8 -> i32 line in words of four, and where it cannot be", "[gpu][library][thin]") {
    SAT_REQUIRE_GPU();
    // CUB scans words of four u8 where the length is a multiple of 4, the input 4-byte and the
    // output 16-byte aligned (sat::thin::line_in_words); every other line element by element.
    const LibraryCase words[] = {
        {1, 4000036, 4000040, 4000040, 1, 0},  // many of CUB's tiles, both aligned at row 1
        {4000036, 1, 1, 1, 0, 0},              // the same as a column
        {1, 4, 4, 4, 0, 0},                    // one word
        {1, 8, 8, 8, 0, 0},
        {1, 36000000, 36000000, 36000000, 0, 0},  // sums past 2^32 (random bytes, mean 127.5): they wrap
        {1, 4000036, 4000040, 4000040, 1, 1},  // input 1 byte, output 4 bytes past alignment
        {1, 4000036, 4000041, 4000040, 1, 0},  // input 1 byte past, output aligned
        {1, 4000036, 4000040, 4000042, 1, 0},  // input aligned, output 8 bytes past
        {1, 4000038, 4000040, 4000040, 1, 0},  // a length not a multiple of 4
    };
    for (LibraryCase c : words) {
        check_library<uint8_t, int32_t>(c);
        c.own_scratch = true;  // the scratch inclusive_scan_2d_scratch sizes, used twice
        check_library<uint8_t, int32_t>(c);
    }
}

TEST_CASE("library inclusive_scan_2d: u8 -> i32 images of 2 or 3 rows in words, and where they cannot be", "[gpu][library][thin]") {
    SAT_REQUIRE_GPU();
    // 2 or 3 rows of whole words (cols and pitches multiples of 4, the input 4-byte and the output
    // 16-byte aligned) take CUB's scan of packed rows (3 rows, and 2 rows narrower than
    // 20,000,000: sat::thin::rows_packed), a CUB word scan per row for wider 2-row images; else
    // the chunks. Random bytes (mean 127.5): the sums over rows pass 2^32 from about 11,200,000
    // columns (3 rows) or 16,800,000 (2 rows) and wrap; each row's own lane from about 33,700,000.
    using satlib::testing::ThinPath;
    const struct {
        LibraryCase c;
        ThinPath path;  // the path the call must take
    } rows_cases[] = {
        {{2, 4, 4, 4, 0, 0}, ThinPath::packed_rows},  // one word a row
        {{3, 4, 4, 4, 0, 0}, ThinPath::packed_rows},
        {{2, 8, 8, 12, 1, 0}, ThinPath::packed_rows},
        {{3, 262144, 262144, 262144, 1, 0}, ThinPath::packed_rows},             // many of CUB's tiles
        {{3, 4000000, 4000004, 4000008, 1, 0}, ThinPath::packed_rows},          // pitches past the width
        {{3, 7999996, 7999996, 8000000, 1, 0}, ThinPath::packed_rows},          // the widest on 512 x 4 tiles
        {{3, 8000000, 8000000, 8000000, 0, 0}, ThinPath::packed_rows},          // the narrowest on 256 x 8
        {{3, 20000000, 20000000, 20000000, 0, 0}, ThinPath::packed_rows},       // row 2's sums wrap
        {{3, 40000000, 40000000, 40000000, 0, 0}, ThinPath::packed_rows},       // and each row's lane (from ~33.7M)
        {{2, 19999996, 20000000, 20000004, 1, 0}, ThinPath::packed_rows},       // the widest packed 2 rows; row 1 wraps
        {{2, 20000000, 20000000, 20000000, 0, 0}, ThinPath::rows},              // the narrowest a scan per row
        {{3, 4000000, 4000002, 4000000, 0, 0}, ThinPath::chunks},  // an input pitch not a multiple of 4
        {{3, 4000000, 4000004, 4000004, 1, 1}, ThinPath::chunks},  // input and output 1 element past alignment
        {{3, 4000002, 4000004, 4000004, 1, 0}, ThinPath::chunks},  // a width not a multiple of 4
        {{4, 4000000, 4000000, 4000000, 1, 0}, ThinPath::chunks},  // 4 rows
    };
    for (const auto& rows_case : rows_cases) {
        LibraryCase c = rows_case.c;
        for (const bool own_scratch : {false, true}) {  // own: the scratch inclusive_scan_2d_scratch sizes, used twice
            c.own_scratch = own_scratch;
            check_library_on<uint8_t, int32_t>(c, rows_case.path);
        }
    }
}

TEST_CASE("library inclusive_scan_2d: f32 f64 and i32 images of 2 or 3 rows as element lanes and other pairs", "[gpu][library][thin]") {
    SAT_REQUIRE_GPU();
    // 2 or 3 rows of f32, f64 or i32 narrower than 2 MiB a row, at any pitches, take CUB's scan of
    // element lanes, a column of the rows to an item (sat::thin::rows_in_lanes); 2 f32 or i32 rows
    // of 2 MiB or more of whole 16-byte groups, 16-byte aligned, CUB's scan of group lanes
    // (rows_in_groups); other wide rows and the other pairs take the chunks. Values 0..3, mean
    // 1.5: the sums stay below 2^24 (about 12,000,000 at 2 x 4,000,000), so f32 is exact.
    using satlib::testing::ThinPath;
    auto check_rows = [](LibraryCase c, ThinPath f32_path, ThinPath f64_path) {
        for (const bool own_scratch : {false, true}) {  // own: the scratch inclusive_scan_2d_scratch sizes, used twice
            c.own_scratch = own_scratch;
            check_library_on<float, float>(c, f32_path);
            check_library_on<int32_t, int32_t>(c, f32_path);
            check_library_on<double, double>(c, f64_path);
        }
    };
    check_rows({2, 1, 2, 3, 1, 0}, ThinPath::packed_rows, ThinPath::packed_rows);  // one column (pitches past it: not a line)
    check_rows({3, 1, 2, 2, 1, 0}, ThinPath::packed_rows, ThinPath::packed_rows);
    check_rows({3, 7, 7, 7, 0, 0}, ThinPath::packed_rows, ThinPath::packed_rows);
    check_rows({2, 1921, 1924, 1925, 1, 1}, ThinPath::packed_rows, ThinPath::packed_rows);     // both an element past alignment
    check_rows({3, 262143, 262143, 262146, 1, 0}, ThinPath::packed_rows, ThinPath::packed_rows);  // many of CUB's tiles; f64's widest
    check_rows({3, 262144, 262144, 262144, 1, 0}, ThinPath::packed_rows, ThinPath::chunks);       // f64 rows of 2 MiB
    check_rows({2, 524287, 524290, 524288, 1, 0}, ThinPath::packed_rows, ThinPath::chunks);       // f32's and i32's widest
    check_rows({3, 524288, 524288, 524288, 0, 0}, ThinPath::chunks, ThinPath::chunks);            // 3 rows of 2 MiB
    check_rows({2, 524288, 524288, 524288, 0, 0}, ThinPath::group_rows, ThinPath::chunks);        // 2 rows of 2 MiB: groups
    check_rows({2, 4000000, 4000004, 4000008, 1, 0}, ThinPath::group_rows, ThinPath::chunks);     // pitches past the width
    check_rows({2, 4000002, 4000004, 4000004, 0, 0}, ThinPath::chunks, ThinPath::chunks);  // a width not whole f32 groups
    check_rows({2, 4000000, 4000002, 4000000, 0, 0}, ThinPath::chunks, ThinPath::chunks);  // an input pitch of half a group
    check_rows({2, 4000000, 4000004, 4000004, 1, 1}, ThinPath::chunks, ThinPath::chunks);  // both an element past alignment
    for (const LibraryCase in_place_case : {LibraryCase{3, 100003, 100004, 100004, 1, 0},       // element lanes
                                            LibraryCase{2, 1048576, 1048580, 1048580, 1, 0}}) {  // f32, i32: group lanes
        const bool groups = in_place_case.cols * sizeof(float) >= (2u << 20);
        for (const bool own_scratch : {false, true}) {
            LibraryCase in_place = in_place_case;
            in_place.in_place = true;
            in_place.own_scratch = own_scratch;
            check_library_on<float, float>(in_place, groups ? ThinPath::group_rows : ThinPath::packed_rows);
            check_library_on<int32_t, int32_t>(in_place, groups ? ThinPath::group_rows : ThinPath::packed_rows);
            check_library_on<double, double>(in_place, groups ? ThinPath::chunks : ThinPath::packed_rows);
        }
    }
    // The library's scratch size for group lanes is CUB's for them, not 0 (the own-scratch cases
    // above hand CUB its own size, so a short size would not fail them).
    CHECK(sat::thin::rows_scratch_bytes<float, float>(2, 524288) > 0);
    CHECK(sat::thin::rows_scratch_bytes<int32_t, int32_t>(2, 40000000) > 0);
    const LibraryCase other_pairs{3, 1921, 1921, 1921, 0, 0};
    check_library_on<uint8_t, float>(other_pairs, ThinPath::chunks);
    check_library_on<float, double>(other_pairs, ThinPath::chunks);
    check_library_on<uint16_t, double>(other_pairs, ThinPath::chunks);
}

TEST_CASE("library inclusive_scan_2d: u8 -> i32 images of 2 or 3 contiguous columns, and where they cannot be", "[gpu][library][thin]") {
    SAT_REQUIRE_GPU();
    // 2 or 3 columns with pitches of the width, rows a multiple of 4, the input 4-byte and the
    // output 16-byte aligned, take CUB's scan of packed columns; else the chunks. Random bytes: the
    // sums over columns pass 2^32 from about 11,200,000 rows (3 columns), each column's own lane
    // from about 33,700,000.
    using satlib::testing::ThinPath;
    const struct {
        LibraryCase c;
        ThinPath path;
    } columns_cases[] = {
        {{4, 2, 2, 2, 0, 0}, ThinPath::packed_columns},  // one item
        {{4, 2, 2, 2, 4, 0}, ThinPath::packed_columns},  // 4 poisoned rows either side (input 8, output 32 bytes in)
        {{4, 3, 3, 3, 0, 0}, ThinPath::packed_columns},
        {{1920, 3, 3, 3, 0, 0}, ThinPath::packed_columns},
        {{262144, 2, 2, 2, 0, 0}, ThinPath::packed_columns},      // many of CUB's tiles
        {{4000000, 3, 3, 3, 4, 0}, ThinPath::packed_columns},     // input 12 bytes in: 4- not 16-byte aligned
        {{20000000, 3, 3, 3, 0, 0}, ThinPath::packed_columns},    // column 2's sums wrap
        {{40000000, 3, 3, 3, 0, 0}, ThinPath::packed_columns},    // and each column's lane
        {{40000000, 2, 2, 2, 0, 0}, ThinPath::packed_columns},
        {{4000002, 3, 3, 3, 0, 0}, ThinPath::chunks},  // rows not a multiple of 4
        {{4000000, 3, 4, 3, 0, 0}, ThinPath::chunks},  // an input pitch past the width
        {{4000000, 3, 3, 4, 0, 0}, ThinPath::chunks},  // an output pitch past the width
        {{4000000, 3, 3, 3, 1, 0}, ThinPath::chunks},  // input 3 and output 12 bytes past alignment
        {{4000000, 4, 4, 4, 0, 0}, ThinPath::chunks},  // 4 columns
    };
    for (const auto& columns_case : columns_cases) {
        LibraryCase c = columns_case.c;
        for (const bool own_scratch : {false, true}) {
            c.own_scratch = own_scratch;
            check_library_on<uint8_t, int32_t>(c, columns_case.path);
        }
    }
}

namespace {

// Scratch sized by inclusive_scan_2d_scratch for a batch serves each smaller one: it never
// shrinks as the batch grows to max_batch images.
template <class In, class Out>
void check_scratch_grows(int rows, int cols, int max_batch) {
    sat::ScanScratchSize before{};
    for (int batch = 1; batch <= max_batch; ++batch) {
        const sat::ScanScratchSize now = sat::inclusive_scan_2d_scratch<In, Out>(rows, cols, batch);
        INFO(sizeof(In) << " -> " << sizeof(Out) << " bytes, " << rows << " x " << cols << ", " << batch << " images");
        CHECK(now.state_bytes >= before.state_bytes);
        CHECK(now.value_bytes >= before.value_bytes);
        before = now;
    }
}

}  // namespace

TEST_CASE("library inclusive_scan_2d: argument checks and scratch sizes", "[cpu][library]") {
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
    CHECK(i32.value_bytes > 16384ull * 16384 * 4 / 40);
    CHECK(i32.value_bytes < 16384ull * 16384 * 4 / 12);
    CHECK(sat::inclusive_scan_2d_scratch<float, float>(0, 5).value_bytes == 0);
    // It grows with the batch, across the count where a call's tile shape changes (f32 1080p: 128-
    // thread tiles up to 3 images, 256-thread ones from 4; f64: 256-thread tiles for one image;
    // f32 2160x3840: tall small tiles for one image), so scratch sized for a caller's largest batch
    // serves every smaller one.
    for (const auto& [rows, cols] : {std::pair{1080, 1920}, std::pair{2160, 1920}, std::pair{3840, 2160}}) {
        check_scratch_grows<float, float>(rows, cols, 12);
        check_scratch_grows<double, double>(rows, cols, 12);
    }
    // One wide f32 or i32 image of at most 5 rows in the thin kernel takes chunks of which 4 fit an
    // SM, more chunks than a batch's launch of 64 KB chunks (sat_thin.cu, plan_for).
    check_scratch_grows<float, float>(3, 40000000, 3);
    check_scratch_grows<int32_t, int32_t>(5, 4000000, 3);
}

// A line (one image, contiguous) goes to CUB's scan (sat_thin.cu), whose scratch is the caller's
// state: inclusive_scan_2d_scratch must cover what CUB asks for (0 where it cannot say: no device),
// and sizing must leave no error behind for the caller's next call to find.
// (Without a driver the runtime reports its init error on every cudaGetLastError: `idle`.)
template <class In, class Out>
void check_line_scratch(int n, cudaError_t idle) {
    INFO("n = " << n);
    const std::size_t cub = sat::thin::line_scratch_bytes<In, Out>(n);
    CHECK(sat::inclusive_scan_2d_scratch<In, Out>(1, n).state_bytes >= cub);
    CHECK(sat::inclusive_scan_2d_scratch<In, Out>(n, 1).state_bytes >= cub);
    // Scratch sized for a batch serves every smaller one (sat.hpp), one image and its CUB scan too.
    CHECK(sat::inclusive_scan_2d_scratch<In, Out>(1, n, 8).state_bytes >= cub);
    CHECK(sat::inclusive_scan_2d_scratch<In, Out>(n, 1, 8).state_bytes >= cub);
    CHECK(cudaGetLastError() == idle);
}

TEST_CASE("library: which shapes are lines, their scratch covers CUB's, bad lines are refused", "[cpu][library][thin]") {
    // One row, whatever its pitches; one column only with pitches of 1 (else the chunks).
    CHECK(sat::thin::is_line(1, 1, 1, 1));
    CHECK(sat::thin::is_line(1, 7, 9, 11));
    CHECK(sat::thin::is_line(4000037, 1, 1, 1));
    CHECK_FALSE(sat::thin::is_line(7, 1, 2, 1));
    CHECK_FALSE(sat::thin::is_line(7, 1, 1, 2));  // the NPP layout's column: out pitch >= 2
    CHECK_FALSE(sat::thin::is_line(2, 2, 2, 2));

    cudaGetLastError();  // whatever an earlier test left
    const cudaError_t idle = cudaGetLastError();  // cudaSuccess with a device
    CHECK(sat::thin::line_scratch_bytes<float, float>(0) == 0);
    CHECK(sat::thin::line_scratch_bytes<float, float>(-1) == 0);
    for (int n : {1, 4, 7, 4001, 4000036, 4000037}) {
        check_line_scratch<float, float>(n, idle);
        check_line_scratch<int32_t, int32_t>(n, idle);
        check_line_scratch<uint8_t, int32_t>(n, idle);
        check_line_scratch<uint16_t, double>(n, idle);
    }
    // u8 -> i32 lines in words of four: whole words, the input 4-byte, the output 16-byte aligned.
    const auto* u8 = reinterpret_cast<const uint8_t*>(std::uintptr_t(4096));
    auto* i32 = reinterpret_cast<int32_t*>(std::uintptr_t(8192));
    CHECK(sat::thin::line_in_words(u8, i32, 4000036));
    CHECK(sat::thin::line_in_words(u8 + 4, i32 + 4, 4));
    CHECK_FALSE(sat::thin::line_in_words(u8, i32, 4000038));
    CHECK_FALSE(sat::thin::line_in_words(u8, i32, 0));
    CHECK_FALSE(sat::thin::line_in_words(u8 + 1, i32, 8));
    CHECK_FALSE(sat::thin::line_in_words(u8, i32 + 2, 8));
    CHECK_FALSE(sat::thin::line_in_words(reinterpret_cast<const float*>(u8), reinterpret_cast<float*>(i32), 8));
    CHECK_FALSE(sat::thin::line_in_words(u8, reinterpret_cast<float*>(i32), 8));  // u8 -> f32

    // u8 -> i32 images of 2 or 3 rows in words: whole words, pitches of whole words, aligned. Each
    // CHECK_FALSE fails one condition of a shape that passes.
    const int wide = 4000000;
    CHECK(sat::thin::rows_in_words(u8, wide, i32, wide, 3, wide));
    CHECK(sat::thin::rows_in_words(u8, 8, i32, 12, 2, 8));
    CHECK(sat::thin::rows_in_words(u8, 4, i32, 4, 2, 4));
    CHECK(sat::thin::rows_in_words(u8, 8, i32, 8, 3, 8));
    // One packed scan for 3 rows, and for 2 rows below 20,000,000 columns; a scan per row from there.
    CHECK(sat::thin::rows_packed(2, 19999996));
    CHECK_FALSE(sat::thin::rows_packed(2, 20000000));
    CHECK(sat::thin::rows_packed(3, 4));
    CHECK(sat::thin::rows_packed(3, 715827880));  // 3 rows of 2^31 elements at most
    CHECK_FALSE(sat::thin::rows_packed(4, 8));
    CHECK_FALSE(sat::thin::rows_in_words(u8, 8, i32, 8, 1, 8));  // a line: line_scan
    CHECK_FALSE(sat::thin::rows_in_words(u8, wide, i32, wide, 4, wide));
    CHECK_FALSE(sat::thin::rows_in_words(u8, 10, i32, 8, 2, 8));
    CHECK_FALSE(sat::thin::rows_in_words(u8, 8, i32, 10, 2, 8));
    CHECK_FALSE(sat::thin::rows_in_words(u8, 8, i32, 8, 2, 6));
    CHECK_FALSE(sat::thin::rows_in_words(u8, 8, i32, 8, 2, 0));
    CHECK_FALSE(sat::thin::rows_in_words(u8, wide + 4, i32, wide + 4, 3, wide + 2));
    CHECK_FALSE(sat::thin::rows_in_words(u8 + 2, 8, i32, 8, 2, 8));
    CHECK_FALSE(sat::thin::rows_in_words(u8, 8, i32 + 1, 8, 2, 8));
    CHECK_FALSE(sat::thin::rows_in_words(reinterpret_cast<const float*>(u8), 8, reinterpret_cast<float*>(i32), 8, 2, 8));
    CHECK(sat::thin::rows_scratch_bytes<uint8_t, int32_t>(4, 8) == 0);  // the chunks: no CUB scratch
    // u8 -> i32 images of 2 or 3 contiguous columns: rows a multiple of 4, pitches of the width,
    // aligned. Each CHECK_FALSE fails one condition of a shape that passes.
    CHECK(sat::thin::columns_in_words(u8, 3, i32, 3, 4, 3));
    CHECK(sat::thin::columns_in_words(u8, 2, i32, 2, wide, 2));
    CHECK_FALSE(sat::thin::columns_in_words(u8, 4, i32, 4, 4, 4));  // 4 columns: the chunks
    CHECK_FALSE(sat::thin::columns_in_words(u8, 1, i32, 1, 4, 1));  // a line: line_scan
    CHECK_FALSE(sat::thin::columns_in_words(u8, 3, i32, 3, 6, 3));
    CHECK_FALSE(sat::thin::columns_in_words(u8, 3, i32, 3, 0, 3));
    CHECK_FALSE(sat::thin::columns_in_words(u8, 4, i32, 3, 4, 3));
    CHECK_FALSE(sat::thin::columns_in_words(u8, 3, i32, 4, 4, 3));
    CHECK_FALSE(sat::thin::columns_in_words(u8 + 2, 3, i32, 3, 4, 3));
    CHECK_FALSE(sat::thin::columns_in_words(u8, 3, i32 + 1, 3, 4, 3));
    CHECK_FALSE(sat::thin::columns_in_words(reinterpret_cast<const float*>(u8), 3, reinterpret_cast<float*>(i32), 3, 4, 3));
    CHECK(sat::thin::columns_scratch_bytes<uint8_t, int32_t>(8, 4) == 0);  // other shapes and types: none
    CHECK(sat::thin::columns_scratch_bytes<uint8_t, int32_t>(6, 3) == 0);
    CHECK(sat::thin::columns_scratch_bytes<float, float>(8, 3) == 0);
    CHECK(sat::thin::columns_scan<uint8_t, int32_t>(nullptr, 3, i32, 3, 4, 3, nullptr, nullptr) == cudaErrorInvalidValue);
    CHECK(sat::thin::columns_scan<uint8_t, int32_t>(u8, 3, nullptr, 3, 4, 3, nullptr, nullptr) == cudaErrorInvalidValue);
    CHECK(sat::thin::columns_scan<uint8_t, int32_t>(u8, 3, i32, 3, 6, 3, nullptr, nullptr) == cudaErrorInvalidValue);
    // rows_scan refuses, before any CUDA call, what rows_in_words would not take and bad arguments.
    CHECK(sat::thin::rows_scan<uint8_t, int32_t>(nullptr, 8, i32, 8, 2, 8, nullptr, nullptr) == cudaErrorInvalidValue);
    CHECK(sat::thin::rows_scan<uint8_t, int32_t>(u8, 8, nullptr, 8, 2, 8, nullptr, nullptr) == cudaErrorInvalidValue);
    CHECK(sat::thin::rows_scan<uint8_t, int32_t>(u8, 4, i32, 8, 2, 8, nullptr, nullptr) == cudaErrorInvalidValue);
    CHECK(sat::thin::rows_scan<uint8_t, int32_t>(u8, 8, i32, 4, 2, 8, nullptr, nullptr) == cudaErrorInvalidValue);
    CHECK(sat::thin::rows_scan<uint8_t, int32_t>(u8, 8, i32, 8, 4, 8, nullptr, nullptr) == cudaErrorInvalidValue);
    float* p_f32 = reinterpret_cast<float*>(std::uintptr_t(256));
    bool packed = true;  // a refused call reports no packed scan
    CHECK(sat::thin::rows_scan<uint8_t, int32_t>(nullptr, 8, i32, 8, 3, 8, nullptr, nullptr, &packed) ==
          cudaErrorInvalidValue);
    CHECK_FALSE(packed);
    for (int rows : {2, 3})
        for (int cols : {4, 4000000, 40000000}) {  // packed, and 2 x 40,000,000 a scan per row
            INFO(rows << " x " << cols);
            const std::size_t cub = sat::thin::rows_scratch_bytes<uint8_t, int32_t>(rows, cols);
            CHECK(sat::inclusive_scan_2d_scratch<uint8_t, int32_t>(rows, cols).state_bytes >= cub);
            CHECK(sat::inclusive_scan_2d_scratch<uint8_t, int32_t>(rows, cols, 8).state_bytes >= cub);
            CHECK(cudaGetLastError() == idle);
            // The same image transposed: 2 or 3 contiguous columns.
            const std::size_t cub_columns = sat::thin::columns_scratch_bytes<uint8_t, int32_t>(cols, rows);
            CHECK(sat::inclusive_scan_2d_scratch<uint8_t, int32_t>(cols, rows).state_bytes >= cub_columns);
            CHECK(sat::inclusive_scan_2d_scratch<uint8_t, int32_t>(cols, rows, 8).state_bytes >= cub_columns);
            CHECK(cudaGetLastError() == idle);
        }
    // f32, i32 and f64 images of 2 or 3 rows in element lanes, up to the widest, and in group
    // lanes: the library's scratch covers CUB's (the GPU tests' own-scratch cases would not see it
    // short: CUB is handed its own size).
    for (int rows : {2, 3})
        for (int cols : {1, 4, 262143, 524287, 524288, 40000000}) {
            INFO(rows << " x " << cols);
            const std::size_t cub_f32 = sat::thin::rows_scratch_bytes<float, float>(rows, cols);
            const std::size_t cub_i32 = sat::thin::rows_scratch_bytes<int32_t, int32_t>(rows, cols);
            const std::size_t cub_f64 = sat::thin::rows_scratch_bytes<double, double>(rows, cols);
            CHECK(sat::inclusive_scan_2d_scratch<float, float>(rows, cols).state_bytes >= cub_f32);
            CHECK(sat::inclusive_scan_2d_scratch<int32_t, int32_t>(rows, cols).state_bytes >= cub_i32);
            CHECK(sat::inclusive_scan_2d_scratch<double, double>(rows, cols).state_bytes >= cub_f64);
            CHECK(sat::inclusive_scan_2d_scratch<double, double>(rows, cols, 8).state_bytes >= cub_f64);
            CHECK(cudaGetLastError() == idle);
        }
    // f32, f64 and i32 images of 2 or 3 rows: element lanes at any width and pitch; not other pairs
    // or heights, and no scratch of theirs for other shapes.
    CHECK(sat::thin::rows_in_lanes<float, float>(2, 1));
    CHECK(sat::thin::rows_in_lanes<double, double>(3, 7));
    CHECK(sat::thin::rows_in_lanes<int32_t, int32_t>(3, 524287));  // rows narrower than 2 MiB
    CHECK_FALSE(sat::thin::rows_in_lanes<int32_t, int32_t>(3, 524288));
    CHECK(sat::thin::rows_in_lanes<double, double>(2, 262143));
    CHECK_FALSE(sat::thin::rows_in_lanes<double, double>(2, 262144));
    CHECK_FALSE(sat::thin::rows_in_lanes<float, float>(2, 524288));
    CHECK_FALSE(sat::thin::rows_in_lanes<float, float>(1, 7));
    CHECK_FALSE(sat::thin::rows_in_lanes<float, float>(4, 7));
    CHECK_FALSE(sat::thin::rows_in_lanes<float, float>(3, 0));
    CHECK_FALSE(sat::thin::rows_in_lanes<uint8_t, int32_t>(3, 8));  // its own words, or the chunks
    CHECK_FALSE(sat::thin::rows_in_lanes<uint8_t, float>(3, 8));
    CHECK_FALSE(sat::thin::rows_in_lanes<float, double>(3, 8));
    CHECK(sat::thin::rows_scratch_bytes<float, float>(4, 8) == 0);
    CHECK(sat::thin::rows_scratch_bytes<float, double>(3, 8) == 0);
    // Group lanes: 2 rows of f32 or i32 of 2 MiB or more, whole 16-byte groups (cols and
    // pitches), both pointers 16-byte aligned.
    const auto* in_f32 = reinterpret_cast<const float*>(std::uintptr_t(4096));
    const auto* in_f64 = reinterpret_cast<const double*>(std::uintptr_t(4096));
    auto* out_f64 = reinterpret_cast<double*>(std::uintptr_t(8192));
    auto* out_i32 = reinterpret_cast<int32_t*>(std::uintptr_t(8192));
    const auto* in_i32 = reinterpret_cast<const int32_t*>(std::uintptr_t(4096));
    CHECK(sat::thin::rows_in_groups(in_f32, 524288, p_f32, 524288, 2, 524288));  // 2 MiB a row
    CHECK_FALSE(sat::thin::rows_in_groups(in_f32, 4000004, p_f32, 4000004, 2, 4000002));  // a width not whole groups
    CHECK_FALSE(sat::thin::rows_in_groups(in_f32, 4000000, out_f64, 4000000, 2, 4000000));  // f32 -> f64: the chunks
    CHECK(sat::thin::rows_in_groups(in_f32, 4000004, p_f32, 4000008, 2, 4000000));
    CHECK(sat::thin::rows_in_groups(in_i32, 524288, out_i32, 524288, 2, 524288));
    CHECK_FALSE(sat::thin::rows_in_groups(in_f32, 524284, p_f32, 524284, 2, 524284));  // under 2 MiB: element lanes
    CHECK_FALSE(sat::thin::rows_in_groups(in_f32, 4000000, p_f32, 4000000, 3, 4000000));  // 3 rows: the chunks
    CHECK_FALSE(sat::thin::rows_in_groups(in_f64, 4000000, out_f64, 4000000, 2, 4000000));  // f64: the chunks
    CHECK_FALSE(sat::thin::rows_in_groups(in_f32, 4000002, p_f32, 4000002, 2, 4000002));  // not whole groups
    CHECK_FALSE(sat::thin::rows_in_groups(in_f32, 4000002, p_f32, 4000000, 2, 4000000));  // an input pitch
    CHECK_FALSE(sat::thin::rows_in_groups(in_f32, 4000000, p_f32, 4000002, 2, 4000000));  // an output pitch
    CHECK_FALSE(sat::thin::rows_in_groups(in_f32 + 1, 4000000, p_f32, 4000000, 2, 4000000));  // unaligned
    CHECK_FALSE(sat::thin::rows_in_groups(in_f32, 4000000, p_f32 + 2, 4000000, 2, 4000000));
    CHECK_FALSE(sat::thin::rows_in_groups(in_f32, 4000000, p_f32, 4000000, 1, 4000000));  // a line
    CHECK_FALSE(sat::thin::rows_in_groups(u8, 4000000, i32, 4000000, 2, 4000000));  // u8 -> i32: its words
    CHECK(sat::thin::rows_scratch_bytes<float, double>(2, 4000000) == 0);
    // rows_scan refuses bad element-lane arguments before any CUDA call too.
    CHECK(sat::thin::rows_scan<float, float>(nullptr, 8, p_f32, 8, 2, 8, nullptr, nullptr) == cudaErrorInvalidValue);
    CHECK(sat::thin::rows_scan<float, float>(p_f32, 7, p_f32, 8, 2, 8, nullptr, nullptr) == cudaErrorInvalidValue);
    CHECK(sat::thin::rows_scan<float, float>(p_f32, 8, p_f32, 7, 2, 8, nullptr, nullptr) == cudaErrorInvalidValue);
    CHECK(sat::thin::rows_scan<float, float>(p_f32, 8, p_f32, 8, 4, 8, nullptr, nullptr, &packed) == cudaErrorInvalidValue);
    CHECK_FALSE(packed);

    // Refused before any CUDA call: a negative length, a null pointer; nothing to do for 0.
    float* p = reinterpret_cast<float*>(std::uintptr_t(256));
    CHECK(sat::thin::line_scan<float, float>(p, p, -1, 0, nullptr) == cudaErrorInvalidValue);
    CHECK(sat::thin::line_scan<float, float>(nullptr, p, 5, 0, nullptr) == cudaErrorInvalidValue);
    CHECK(sat::thin::line_scan<float, float>(p, nullptr, 5, 0, nullptr) == cudaErrorInvalidValue);
    CHECK(sat::thin::line_scan<float, float>(p, p, 0, 0, nullptr) == cudaSuccess);
}

// ---- the C ABI: batches, squares, the NPP layout, thin shapes ---------------------------------

namespace {

// Whether every byte of n bytes at p is still sat::poison_byte (never written).
bool all_poison(const void* p, std::size_t n) {
    const unsigned char* b = static_cast<const unsigned char*>(p);
    return std::all_of(b, b + n, [](unsigned char x) { return x == sat::poison_byte; });
}

std::size_t dtype_bytes(satlib_dtype t) {
    return t == SATLIB_U8 ? 1 : t == SATLIB_U16 ? 2 : t == SATLIB_F64 ? 8 : 4;
}

// One satlib_integral call and its check.
struct AbiCase {
    satlib_dtype in_type, out_type;
    int batch, rows, cols;
    std::size_t in_pad = 0, out_pad = 0;      // pitch = width + pad (elements)
    std::size_t in_gap = 0, out_gap = 0;      // batch stride = image span + gap
    bool squares = false;
    satlib_layout layout = SATLIB_LAYOUT_SAME;
};

// Host value k of the input as an exact integer, stored in the input's type.
void store_value(satlib_dtype t, unsigned char* p, std::size_t k, long long v) {
    switch (t) {
    case SATLIB_U8: p[k] = static_cast<unsigned char>(v); break;
    case SATLIB_U16: reinterpret_cast<uint16_t*>(p)[k] = static_cast<uint16_t>(v); break;
    case SATLIB_I32: reinterpret_cast<int32_t*>(p)[k] = static_cast<int32_t>(v); break;
    case SATLIB_F32: reinterpret_cast<float*>(p)[k] = static_cast<float>(v); break;
    case SATLIB_F64: reinterpret_cast<double*>(p)[k] = static_cast<double>(v); break;
    }
}
// Output element k as an exact integer (i32: its bits as uint32, since sums wrap mod 2^32).
long long load_sum(satlib_dtype t, const unsigned char* p, std::size_t k) {
    switch (t) {
    case SATLIB_I32: return (long long)uint32_t(reinterpret_cast<const int32_t*>(p)[k]);
    case SATLIB_F32: return (long long)reinterpret_cast<const float*>(p)[k];
    default: return (long long)reinterpret_cast<const double*>(p)[k];
    }
}
bool is_exact_value(satlib_dtype t, const unsigned char* p, std::size_t k) {
    if (t == SATLIB_F32) return std::isfinite(reinterpret_cast<const float*>(p)[k]);
    if (t == SATLIB_F64) return std::isfinite(reinterpret_cast<const double*>(p)[k]);
    return true;
}

// Input values that keep every sum (and sum of squares) of a rows x cols image exact in the
// output type; i32 outputs are compared modulo 2^32, so u8 -> i32 and i32 use wide ranges.
std::uniform_int_distribution<long long> exact_values(satlib_dtype in_type, satlib_dtype out_type, int rows, int cols) {
    long long lo = 0, hi = 3;
    if (out_type == SATLIB_I32) lo = in_type == SATLIB_I32 ? -1000 : 0, hi = in_type == SATLIB_I32 ? 1000 : 255;
    if (out_type == SATLIB_F64) lo = in_type == SATLIB_U16 ? 0 : -8, hi = in_type == SATLIB_U16 ? 4095 : 8;
    // f32 squares of a large image (1080 x 1920): values 0 and 1 keep them below 2^24.
    if (out_type == SATLIB_F32 && double(rows) * cols * double(hi * hi) >= 16777216.0) hi = 1;
    return std::uniform_int_distribution<long long>(lo, hi);
}

// Runs satlib_integral on case c (poisoned outputs, canaries between rows and images) and
// compares every element with a 64-bit CPU SAT; elements outside the images keep their poison.
void check_abi(const AbiCase& c) {
    const std::uint64_t seed = sat_test::fresh_seed();
    const bool npp = c.layout == SATLIB_LAYOUT_NPP;
    const int out_rows = c.rows + (npp ? 1 : 0), out_cols = c.cols + (npp ? 1 : 0);
    const std::size_t in_pitch = std::size_t(c.cols) + c.in_pad, out_pitch = std::size_t(out_cols) + c.out_pad;
    const std::size_t in_stride = (std::size_t(c.rows) - 1) * in_pitch + c.cols + c.in_gap;
    const std::size_t out_stride = (std::size_t(out_rows) - 1) * out_pitch + out_cols + c.out_gap;
    const std::size_t in_elems = std::size_t(c.batch) * in_stride, out_elems = std::size_t(c.batch) * out_stride;
    const std::size_t ib = dtype_bytes(c.in_type), ob = dtype_bytes(c.out_type);
    INFO("satlib_integral in " << c.in_type << " out " << c.out_type << ", " << c.batch << " x " << c.rows << "x"
         << c.cols << ", pitches " << in_pitch << "/" << out_pitch << ", strides " << in_stride << "/" << out_stride
         << (c.squares ? ", squares" : "") << (npp ? ", NPP layout" : "") << ", seed " << seed);

    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<long long> dist = exact_values(c.in_type, c.out_type, c.rows, c.cols);
    std::vector<long long> values(in_elems, 0);
    std::vector<unsigned char> host_in(in_elems * ib, 0);
    for (std::size_t k = 0; k < in_elems; ++k) store_value(c.in_type, host_in.data(), k, values[k] = dist(rng));

    DeviceArray<unsigned char> in(in_elems * ib), out(out_elems * ob), sq(c.squares ? out_elems * ob : 1);
    REQUIRE(cudaMemcpy(in.p, host_in.data(), host_in.size(), cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemset(out.p, sat::poison_byte, out_elems * ob) == cudaSuccess);
    if (c.squares) REQUIRE(cudaMemset(sq.p, sat::poison_byte, out_elems * ob) == cudaSuccess);
    // The poison is written on the legacy default stream, which a non-blocking stream does not wait
    // for: a memset still queued (a busy GPU) would overwrite the call's tables.
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);

    satlib_integral_args a{};
    a.in = in.p, a.in_type = c.in_type, a.in_pitch = in_pitch, a.in_batch_stride = in_stride;
    a.out = out.p, a.out_type = c.out_type, a.out_pitch = out_pitch, a.out_batch_stride = out_stride;
    a.sq_out = c.squares ? sq.p : nullptr, a.sq_pitch = out_pitch, a.sq_batch_stride = out_stride;
    a.batch = c.batch, a.rows = c.rows, a.cols = c.cols, a.layout = c.layout;
    cudaStream_t stream = nullptr;
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    const int status = satlib_integral(&a, stream, 1);
    INFO("status: " << satlib_error_string(status));
    REQUIRE(status == SATLIB_OK);
    REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);

    for (int table = 0; table < (c.squares ? 2 : 1); ++table) {
        std::vector<unsigned char> got(out_elems * ob);
        REQUIRE(cudaMemcpy(got.data(), (table == 0 ? out.p : sq.p), got.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
        std::vector<bool> inside(out_elems, false);
        std::size_t wrong = 0, first = 0;
        long long first_expected = 0, first_got = 0;
        auto expect = [&](std::size_t k, long long expected) {  // output element k
            inside[k] = true;
            if (c.out_type == SATLIB_I32) expected = (long long)uint32_t(expected);
            const long long g = load_sum(c.out_type, got.data(), k);
            if ((!is_exact_value(c.out_type, got.data(), k) || g != expected) && wrong++ == 0)
                first = k, first_expected = expected, first_got = g;
        };
        const int skip = npp ? 1 : 0;  // the NPP layout's first row and column: zeros
        for (int b = 0; b < c.batch; ++b) {
            const std::size_t image = std::size_t(b) * out_stride;
            for (int j = 0; j < out_cols * skip; ++j) expect(image + j, 0);
            for (int i = skip; i < out_rows * skip; ++i) expect(image + std::size_t(i) * out_pitch, 0);
            sat::for_each_exact_sum(
                sat::Shape{c.rows, c.cols},
                [&](int i, int j) {
                    const long long v = values[std::size_t(b) * in_stride + std::size_t(i) * in_pitch + j];
                    return table == 0 ? v : v * v;
                },
                [&](int i, int j, long long sum) {
                    expect(image + std::size_t(i + skip) * out_pitch + std::size_t(j + skip), sum);
                });
        }
        std::size_t touched = 0;
        for (std::size_t k = 0; k < out_elems; ++k)
            if (!inside[k] && !all_poison(got.data() + k * ob, ob)) ++touched;
        INFO((table == 0 ? "sums" : "squares") << ": first wrong element " << first << " expected " << first_expected
                                                << " got " << first_got);
        CHECK(wrong == 0);
        CHECK(touched == 0);
    }
}

const satlib_dtype pairs[][2] = {{SATLIB_F32, SATLIB_F32}, {SATLIB_F64, SATLIB_F64}, {SATLIB_I32, SATLIB_I32},
                                 {SATLIB_U8, SATLIB_I32},  {SATLIB_U8, SATLIB_F32},  {SATLIB_U16, SATLIB_F64},
                                 {SATLIB_F32, SATLIB_F64}};

}  // namespace

TEST_CASE("library C ABI: every type pair, pitched, with and without squares", "[gpu][library]") {
    SAT_REQUIRE_GPU();
    for (const auto& p : pairs)
        for (bool squares : {false, true}) {
            check_abi({p[0], p[1], 1, 97, 89, 0, 0, 0, 0, squares});     // primes, packed
            check_abi({p[0], p[1], 1, 300, 1037, 5, 3, 0, 0, squares});  // odd pitches: no vectors
            check_abi({p[0], p[1], 1, 130, 1100, 4, 8, 0, 0, squares});  // vector path, three tile columns
        }
}

TEST_CASE("library C ABI: f64's 256-thread tiles take one image's sums, its batches and squares 128-thread ones",
          "[gpu][library]") {
    // 2111 x 4133 has enough tiles of 512 f64 columns for the 256-thread shape; the library
    // compiles that shape's kernels for one image's sums only (scan_images in lib/src/satlib.cu).
    SAT_REQUIRE_GPU();
    for (const satlib_dtype in : {SATLIB_F64, SATLIB_U16, SATLIB_F32}) {
        check_abi({in, SATLIB_F64, 1, 2111, 4133, 0, 0, 0, 0, false});
        CHECK(satlib::testing::launch_log().last_threads == 256);
        check_abi({in, SATLIB_F64, 1, 2111, 4133, 0, 0, 0, 0, true});  // sums and squares in one launch
        CHECK(satlib::testing::launch_log().last_threads == 128);
        check_abi({in, SATLIB_F64, 2, 2111, 4133, 0, 0, 0, 0, false});
        CHECK(satlib::testing::launch_log().last_threads == 128);
    }
}

TEST_CASE("library C ABI: batches with a batch stride, squares and the NPP layout", "[gpu][library]") {
    SAT_REQUIRE_GPU();
    for (const auto& p : pairs) {
        check_abi({p[0], p[1], 3, 65, 513, 0, 0, 0, 0, false});                             // packed batch
        check_abi({p[0], p[1], 4, 33, 700, 3, 5, 17, 29, true});                            // strided, gaps
        check_abi({p[0], p[1], 2, 70, 600, 0, 0, 0, 0, true, SATLIB_LAYOUT_NPP});           // NPP, packed
        check_abi({p[0], p[1], 3, 31, 257, 2, 6, 11, 13, false, SATLIB_LAYOUT_NPP});        // NPP, strided
    }
}

namespace {

// check_abi of a batch that must take one launch for the sums, or for the sums and squares
// together (thin images: the squares take a launch of their own), and, for `oversubscribed`,
// more tiles than blocks (blocks take several tickets, across images).
void check_abi_batch(const AbiCase& c, bool oversubscribed = false) {
    const bool thin = sat::thin::applicable<float, float>(c.rows, c.cols);  // the same for every pair
    const satlib::testing::LaunchLog before = satlib::testing::launch_log();
    check_abi(c);
    const satlib::testing::LaunchLog after = satlib::testing::launch_log();
    INFO(c.batch << " x " << c.rows << "x" << c.cols << (c.squares ? " with squares" : "") << ": "
         << after.scans - before.scans << " launches, the last " << after.last_tiles << " tiles on "
         << after.last_grid << " blocks");
    CHECK(after.scans - before.scans == (c.squares && thin ? 2u : 1u));
    if (oversubscribed) CHECK(after.last_tiles > after.last_grid);
}

}  // namespace

TEST_CASE("library C ABI: a batch is one launch per table: odd shapes, gaps between images, every pair",
          "[gpu][library][batch]") {
    SAT_REQUIRE_GPU();
    for (const auto& p : pairs)
        for (bool squares : {false, true}) {
            // Batch strides beyond the image (gaps), odd pitches (no vectors) and packed ones.
            check_abi_batch({p[0], p[1], 3, 37, 1001, 0, 0, 101, 57, squares});
            check_abi_batch({p[0], p[1], 3, 37, 1001, 3, 7, 0, 0, squares, SATLIB_LAYOUT_NPP});
            check_abi_batch({p[0], p[1], 4, 130, 1100, 4, 8, 8, 16, squares});  // vector path, gaps
            check_abi_batch({p[0], p[1], 2, 1080, 1920, 0, 0, 1920 * 3, 4096, squares, squares ? SATLIB_LAYOUT_NPP : SATLIB_LAYOUT_SAME});
            // Thin images (1-D look-back for the sums): 1x1, a row, a column, 3 x N, N x 3.
            check_abi_batch({p[0], p[1], 5, 1, 1, 0, 0, 2, 3, squares});
            check_abi_batch({p[0], p[1], 5, 1, 1, 0, 0, 0, 0, squares, SATLIB_LAYOUT_NPP});
            check_abi_batch({p[0], p[1], 3, 1, 20011, 0, 0, 5, 0, squares});
            check_abi_batch({p[0], p[1], 3, 20011, 1, 0, 0, 0, 7, squares});
            check_abi_batch({p[0], p[1], 2, 20012, 1, 0, 0, 0, 0, squares});  // packed: vector path
            check_abi_batch({p[0], p[1], 4, 3, 20012, 0, 0, 0, 0, squares});  // whole-vector pitch
            check_abi_batch({p[0], p[1], 2, 20012, 3, 0, 0, 0, 0, squares});  // u8: packed columns take one image only
            check_abi_batch({p[0], p[1], 4, 20011, 3, 0, 2, 13, 0, squares, SATLIB_LAYOUT_NPP});
            check_abi_batch({p[0], p[1], 3, 33, 9001, 1, 0, 0, 0, squares});
        }
}

TEST_CASE("library C ABI: rows that do not start on a whole piece, in 256-thread tiles: batches and squares",
          "[gpu][library][batch]") {
    // Two images of 6337 x 1025, odd pitches and gaps, sums and squares in one launch: 1592
    // tickets, more than a round of 256-thread blocks, so the pairs that batches do not send to
    // the small tiles (f64 and its pairs do) take their 256-thread tiles without vectors (lanes).
    SAT_REQUIRE_GPU();
    for (const auto& p : pairs) {
        if (p[1] == SATLIB_F64) continue;
        check_abi_batch({p[0], p[1], 2, 6337, 1025, 6, 8, 3, 5, true});
        CHECK(satlib::testing::launch_log().last_threads == 256);
        CHECK(satlib::testing::launch_log().last_vector == false);
    }
}

TEST_CASE("library C ABI: a batch with more tiles than resident blocks, in one launch", "[gpu][library][batch]") {
    SAT_REQUIRE_GPU();
    // 65 x 65 images take the 2-D look-back with 2 (f32) or 3 tiles each: a batch of as many
    // images as blocks could ever be resident has at least twice as many tiles as blocks, so
    // blocks take tickets of several images and wait on tiles handed out long before.
    const int batch = int(std::min(sat_test::resident_block_bound(), 20000L));
    for (const auto& p : pairs) check_abi_batch({p[0], p[1], batch, 65, 65, 0, 0, 3, 0, true}, true);
    check_abi_batch({SATLIB_F32, SATLIB_F32, batch, 65, 65, 1, 0, 0, 0, false}, true);
    check_abi_batch({SATLIB_U8, SATLIB_I32, batch, 65, 65, 0, 0, 0, 0, false}, true);
    // Sums and squares in one launch, several tile columns an image (1100 columns: 2 or 3,
    // whichever tiles the pair takes): the ticket pairs run a tile row of every image at a time.
    const int wide_batch = int(std::min(sat_test::resident_block_bound(), 600L));
    check_abi_batch({SATLIB_F32, SATLIB_F32, wide_batch, 65, 1100, 0, 0, 0, 0, true}, true);
    check_abi_batch({SATLIB_U8, SATLIB_I32, wide_batch, 65, 1100, 0, 0, 0, 0, true}, true);
}

TEST_CASE("library C ABI: a batch in place (in == out, same pitch and stride), with squares", "[gpu][library][batch]") {
    SAT_REQUIRE_GPU();
    const std::uint64_t seed = sat_test::fresh_seed();
    const int batch = 3, rows = 130, cols = 1100;
    const std::size_t pitch = 1104, stride = pitch * rows + 8, n = stride * batch;
    INFO(batch << " x " << rows << "x" << cols << " f32 in place, pitch " << pitch << ", stride " << stride
               << ", seed " << seed);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> dist(0, 3);
    std::vector<float> host(n);
    for (float& v : host) v = float(dist(rng));
    DeviceArray<float> m(n);
    REQUIRE(cudaMemcpy(m.p, host.data(), n * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    satlib_integral_args a{};
    a.in = m.p, a.in_type = SATLIB_F32, a.in_pitch = pitch, a.in_batch_stride = stride;
    a.out = m.p, a.out_type = SATLIB_F32, a.out_pitch = pitch, a.out_batch_stride = stride;
    a.batch = batch, a.rows = rows, a.cols = cols;
    // The squares (packed, in a buffer of their own) are read from the input before the sums
    // overwrite it: a launch of their own, first.
    const std::size_t image = std::size_t(rows) * cols;
    DeviceArray<float> sq(image * batch);
    a.sq_out = sq.p, a.sq_pitch = cols, a.sq_batch_stride = image;
    const satlib::testing::LaunchLog before = satlib::testing::launch_log();
    REQUIRE(satlib_integral(&a, nullptr, 1) == SATLIB_OK);
    CHECK(satlib::testing::launch_log().scans - before.scans == 2u);
    std::vector<float> got(n), got_sq(image * batch);
    REQUIRE(cudaMemcpy(got.data(), m.p, n * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    REQUIRE(cudaMemcpy(got_sq.data(), sq.p, image * batch * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    std::size_t wrong = 0, wrong_sq = 0, changed_gaps = 0;
    for (int b = 0; b < batch; ++b) {
        const std::size_t first = b * stride;
        const auto value = [&](int i, int j) { return (long long)host[first + std::size_t(i) * pitch + j]; };
        sat::for_each_exact_sum(sat::Shape{rows, cols}, value, [&](int i, int j, long long sum) {
            wrong += got[first + std::size_t(i) * pitch + j] != float(sum);
        });
        sat::for_each_exact_sum(
            sat::Shape{rows, cols}, [&](int i, int j) { return value(i, j) * value(i, j); },
            [&](int i, int j, long long sum) { wrong_sq += got_sq[b * image + std::size_t(i) * cols + j] != float(sum); });
        for (int i = 0; i < rows; ++i) {
            const std::size_t at = first + std::size_t(i) * pitch;
            for (std::size_t j = cols; j < pitch && at + j < n; ++j) changed_gaps += got[at + j] != host[at + j];
        }
    }
    CHECK(wrong == 0);
    CHECK(wrong_sq == 0);
    CHECK(changed_gaps == 0);
    // In place with a different output stride, or in the NPP layout, is refused.
    a.out_batch_stride = stride + 4;
    CHECK(satlib_integral(&a, nullptr, 1) == SATLIB_ERR_ARGUMENT);
}

TEST_CASE("library C ABI: a small batch for compute-sanitizer", "[gpu][library][batch][sanitize]") {
    // Small enough for racecheck: 2-D batches with squares (vector and element paths, NPP) and
    // thin batches, every one checked.
    SAT_REQUIRE_GPU();
    // The single images check the thin path they took too.
    using satlib::testing::ThinPath;
    auto check_abi_on = [](const AbiCase& c, ThinPath path) {
        check_abi(c);
        CHECK(satlib::testing::launch_log().last_thin_path == path);
    };
    check_abi_batch({SATLIB_F32, SATLIB_F32, 3, 130, 1100, 0, 0, 0, 8, true});
    check_abi_batch({SATLIB_U8, SATLIB_I32, 3, 37, 1001, 1, 3, 5, 7, true, SATLIB_LAYOUT_NPP});
    check_abi_batch({SATLIB_F64, SATLIB_F64, 2, 70, 300, 0, 0, 0, 0, false});
    check_abi_batch({SATLIB_F32, SATLIB_F32, 3, 3, 5000, 0, 0, 0, 0, false});
    // Thin u8 batches whose input the chunks load 16 bytes at a time (wide: pitch 5008; tall:
    // contiguous rows, images 16-byte aligned) and 4 bytes at a time (pitch 5004).
    check_abi_batch({SATLIB_U8, SATLIB_I32, 2, 33, 5008, 0, 0, 0, 0, false});
    check_abi_batch({SATLIB_U8, SATLIB_I32, 2, 5008, 3, 0, 0, 0, 0, false});
    check_abi_batch({SATLIB_U8, SATLIB_I32, 2, 33, 5000, 4, 0, 0, 0, false});
    // Tall thin batches of 33 and 64 columns (the lanes of a warp walk its last lines in step 2).
    check_abi_batch({SATLIB_U8, SATLIB_I32, 2, 5008, 33, 0, 0, 0, 0, false});
    check_abi_batch({SATLIB_F32, SATLIB_F32, 2, 1100, 33, 0, 0, 0, 0, false});
    check_abi_batch({SATLIB_F64, SATLIB_F64, 2, 600, 64, 0, 0, 0, 0, false});
    // f32 and i32 batches of K >= 24 that load by cp.async, each image's last group cut by the
    // width (wide, pitch 5004) or by the image's end (tall, 1101 x 33); strides of whole groups.
    check_abi_batch({SATLIB_F32, SATLIB_F32, 2, 33, 5003, 1, 1, 1, 1, false});
    check_abi_batch({SATLIB_I32, SATLIB_I32, 2, 1101, 33, 0, 0, 3, 3, false});
    // Single images whose input ends inside a cut group: the copies must read none of it past the
    // matrix (memcheck sees a read past the allocation).
    check_abi_on({SATLIB_F32, SATLIB_F32, 1, 1101, 33, 0, 0, 0, 0, false}, ThinPath::chunks);
    check_abi_on({SATLIB_I32, SATLIB_I32, 1, 33, 5003, 1, 1, 0, 0, false}, ThinPath::chunks);
    // Single tall images of 13 and 19 columns: the walk with idle lanes, in the kernel for one image.
    check_abi_on({SATLIB_F32, SATLIB_F32, 1, 3000, 13, 0, 0, 0, 0, false}, ThinPath::chunks);
    check_abi_on({SATLIB_U8, SATLIB_I32, 1, 5008, 19, 0, 0, 0, 0, false}, ThinPath::chunks);
    // 8 columns: the narrowest chunk that walks, in padded segments (every even K is padded).
    check_abi_on({SATLIB_F32, SATLIB_F32, 1, 3000, 8, 0, 0, 0, 0, false}, ThinPath::chunks);
    // Padded segments of 16-element u8 groups (4 columns: segments of 64 elements, whole groups;
    // 6 columns: 66, so groups cross a pad) and of 8-byte sums (f32 -> f64).
    check_abi_on({SATLIB_U8, SATLIB_I32, 1, 5008, 4, 0, 0, 0, 0, false}, ThinPath::chunks);
    check_abi_on({SATLIB_U8, SATLIB_I32, 1, 5008, 6, 0, 0, 0, 0, false}, ThinPath::chunks);
    check_abi_on({SATLIB_F32, SATLIB_F64, 1, 3000, 6, 0, 0, 0, 0, false}, ThinPath::chunks);
    // Single tall f32 and i32 images of 3 columns in chunks of which 4 fit an SM: 3 chunks each
    // (M = 17; the 8 columns above: M = 6).
    check_abi_on({SATLIB_F32, SATLIB_F32, 1, 9000, 3, 0, 0, 0, 0, false}, ThinPath::chunks);
    check_abi_on({SATLIB_I32, SATLIB_I32, 1, 9000, 3, 0, 0, 0, 0, false}, ThinPath::chunks);
    // Wide rows that are not whole 16-byte groups: loads shifted out of the aligned groups around
    // them (u8 16, u16 8, f32 4 and f64 2 elements a group; two loads per group for u8 and u16 ->
    // f64, one and a shuffle for f32 and f64) and aligned output groups, clipped at both ends of a
    // row. Each last row starts inside a 16-byte group, so memcheck sees an over-read at the
    // buffer's end; the batch has odd pitches and strides.
    check_abi_on({SATLIB_U8, SATLIB_I32, 1, 19, 5001, 0, 0, 0, 0, false}, ThinPath::chunks);
    check_abi_batch({SATLIB_U8, SATLIB_I32, 2, 16, 3001, 2, 1, 7, 5, false});
    check_abi_on({SATLIB_U16, SATLIB_F64, 1, 11, 2001, 0, 0, 0, 0, false}, ThinPath::chunks);
    check_abi_on({SATLIB_F32, SATLIB_F32, 1, 7, 3001, 0, 0, 0, 0, false}, ThinPath::chunks);
    check_abi_on({SATLIB_F64, SATLIB_F64, 1, 9, 2001, 0, 0, 0, 0, false}, ThinPath::chunks);
    // Single wide f32 and i32 images of at most 5 rows take chunks of which 4 fit an SM: 5 rows of
    // 3001 (2 chunks of 2,304 columns) and 3 rows of whole groups too wide for the element lanes
    // (121 chunks of 4,352 columns).
    check_abi_on({SATLIB_F32, SATLIB_F32, 1, 5, 3001, 0, 0, 0, 0, false}, ThinPath::chunks);
    check_abi_on({SATLIB_I32, SATLIB_I32, 1, 3, 524292, 0, 0, 0, 0, false}, ThinPath::chunks);
    // More tickets than blocks (900 tiles of sums and 900 of squares, 256-thread tiles on 2 x 132
    // blocks), so blocks take further tickets and prefetch their next tile; lines (CUB's scan),
    // element by element and in words of four; u8 images of 2 and 3 rows in words (one packed
    // scan: 17500 words are 9 of its tiles of 2048), and of 2 and 3 columns.
    check_abi_batch({SATLIB_F32, SATLIB_F32, 300, 65, 65, 0, 0, 3, 0, true}, true);
    check_abi_on({SATLIB_U8, SATLIB_I32, 1, 1, 70001, 0, 0, 0, 0, false}, ThinPath::line);
    check_abi_on({SATLIB_U8, SATLIB_I32, 1, 1, 70000, 0, 0, 0, 0, false}, ThinPath::line);
    check_abi_on({SATLIB_U8, SATLIB_I32, 1, 2, 70000, 0, 0, 0, 0, false}, ThinPath::packed_rows);
    check_abi_on({SATLIB_U8, SATLIB_I32, 1, 2, 70000, 4, 4, 0, 0, false}, ThinPath::packed_rows);
    check_abi_on({SATLIB_U8, SATLIB_I32, 1, 3, 70000, 0, 0, 0, 0, false}, ThinPath::packed_rows);
    check_abi_on({SATLIB_U8, SATLIB_I32, 1, 70000, 2, 0, 0, 0, 0, false}, ThinPath::packed_columns);
    check_abi_on({SATLIB_U8, SATLIB_I32, 1, 70000, 3, 0, 0, 0, 0, false}, ThinPath::packed_columns);
    // f32, i32 and f64 images of 2 and 3 rows in element lanes (20001 columns: 10 tiles of 2048;
    // f64 9001: 9 of 1024).
    check_abi_on({SATLIB_F32, SATLIB_F32, 1, 3, 20001, 0, 0, 0, 0, false}, ThinPath::packed_rows);
    check_abi_on({SATLIB_I32, SATLIB_I32, 1, 2, 20001, 0, 0, 0, 0, false}, ThinPath::packed_rows);
    check_abi_on({SATLIB_F64, SATLIB_F64, 1, 3, 9001, 0, 0, 0, 0, false}, ThinPath::packed_rows);
    // f32 and i32 images of 2 rows in group lanes: rows of 2 MiB (64 tiles of 2048 groups).
    check_abi_on({SATLIB_F32, SATLIB_F32, 1, 2, 524288, 0, 0, 0, 0, false}, ThinPath::group_rows);
    check_abi_on({SATLIB_I32, SATLIB_I32, 1, 2, 524288, 0, 0, 0, 0, false}, ThinPath::group_rows);
}

TEST_CASE("library inclusive_scan_2d: a few blocks take every tile, for compute-sanitizer", "[gpu][library][sanitize]") {
    // One image of 18 short tile rows (f32, f64, u8 -> i32, u16 -> f64 and i32 take their short
    // tiles) and one i32 and one f64 image of 65 and 69 small tile rows (2200 rows: 130 short ones,
    // more than they take), grids of 1 and 5 blocks: each block takes many tickets and reuses its
    // shared memory and prefetches its next tile; aligned pitches (vector path) and odd ones (lane
    // by lane in the short tiles, element by element in the small ones), ragged last tile row and
    // column; one f32 and one i32 image of 115 tall small tile rows (4353 rows: 129 small ones,
    // more than they add up), on the same grids, aligned and at odd pitches (lane by lane). Then
    // one f32 and one f64 image of 113 short tile rows and the tall f32 and i32 images by the
    // default grid: one round that adds up the aggregates, in groups of 8 tile rows.
    SAT_REQUIRE_GPU();
    // One case of the pair (In, Out), and the rows of the tiles it took.
    auto check_tiles = [](auto in, auto out, const LibraryCase& c, int tile_rows) {
        check_library<decltype(in), decltype(out)>(c);
        CHECK(satlib::testing::launch_log().last_tile_rows == tile_rows);
    };
    for (int grid : {1, 5}) {
        const LibraryCase short_vector{300, 1100, 1104, 1112, 1, 4, grid};
        const LibraryCase short_odd{300, 1100, 1103, 1109, 1, 2, grid};
        const LibraryCase small_vector{2200, 1100, 1104, 1112, 1, 4, grid};
        const LibraryCase small_odd{2200, 1100, 1103, 1109, 1, 2, grid};
        check_tiles(float{}, float{}, short_vector, short_tile_rows);
        check_tiles(float{}, float{}, short_odd, short_tile_rows);
        check_tiles(double{}, double{}, short_vector, short_tile_rows);
        check_tiles(double{}, double{}, short_odd, short_tile_rows);
        check_tiles(uint8_t{}, int32_t{}, short_vector, short_tile_rows);
        check_tiles(uint16_t{}, double{}, short_vector, short_tile_rows);
        check_tiles(int32_t{}, int32_t{}, short_vector, short_tile_rows);
        check_tiles(int32_t{}, int32_t{}, small_vector, small_tile_rows);
        check_tiles(int32_t{}, int32_t{}, small_odd, small_tile_rows);
        check_tiles(double{}, double{}, small_vector, f64_small_tile_rows);
        check_tiles(double{}, double{}, small_odd, f64_small_tile_rows);
        const LibraryCase tall_vector{128 * small_tile_rows + 1, 100, 104, 112, 1, 4, grid};
        const LibraryCase tall_odd{128 * small_tile_rows + 1, 100, 103, 109, 1, 2, grid};
        for (const LibraryCase& tall : {tall_vector, tall_odd}) {
            check_tiles(float{}, float{}, tall, tall_small_tile_rows);
            check_tiles(int32_t{}, int32_t{}, tall, tall_small_tile_rows);
        }
    }
    // Groups of 8 tile rows where the launch is one round (132 SMs: 339, 565 and 115 blocks).
    auto check_groups = [] {
        const satlib::testing::LaunchLog log = satlib::testing::launch_log();
        CHECK(log.last_aggregate_group_rows == (log.last_grid >= log.last_tiles ? 8 : 0));
    };
    const LibraryCase portrait{1920, 1080, 1084, 1092, 1, 4, 0};  // 3 x 113 short tiles (f64: 5 x 113)
    check_tiles(float{}, float{}, portrait, short_tile_rows);
    check_groups();
    check_tiles(double{}, double{}, portrait, short_tile_rows);
    check_groups();
    const LibraryCase tall{128 * small_tile_rows + 1, 100, 103, 109, 1, 2, 0};  // 1 x 115 tall small tiles
    check_tiles(float{}, float{}, tall, tall_small_tile_rows);
    check_groups();
    check_tiles(int32_t{}, int32_t{}, tall, tall_small_tile_rows);
    check_groups();
    // One image of 264 tile rows (one round of 132 x 2 blocks; 311 and 249 small tile rows, past
    // 128), so f32, f64 and i32 take their 256-thread tiles, and one of 396 (132 x 3) for u8's; by the default grid and by 5 blocks
    // that each take 53 to 80 tickets; aligned pitches (vectors: tiles of 40 rows for f32 and
    // i32, 36 for u8) and odd ones (lane by lane: 32 rows), f64's tiles 32 rows in both.
    for (int grid : {0, 5}) {
        for (const bool vector : {true, false}) {
            const std::size_t in_pitch = vector ? 104 : 103, out_pitch = vector ? 112 : 109;
            const int col_offset = vector ? 4 : 2;
            const int rows = vector ? 264 * 40 : 264 * 32, u8_rows = vector ? 396 * 36 : 396 * 32;
            check_large_tiles<float, float>({rows, 100, in_pitch, out_pitch, 1, col_offset, grid}, vector);
            check_large_tiles<double, double>({264 * 32, 100, in_pitch, out_pitch, 1, col_offset, grid}, vector);
            check_large_tiles<int32_t, int32_t>({rows, 100, in_pitch, out_pitch, 1, col_offset, grid}, vector);
            check_large_tiles<uint8_t, int32_t>({u8_rows, 100, in_pitch, out_pitch, 1, col_offset, grid}, vector);
        }
    }
}

TEST_CASE("library: the 40- and 36-row tiles of vector accesses: ragged last tile rows, batches, squares",
          "[gpu][library]") {
    // Rows on whole 16-byte pieces take tiles of 16 + 24 rows (f32, i32) and 4 + 32 (u8 -> i32,
    // u8 -> f32), more than a round of them here, the last tile row cut (10579 = 264 x 40 + 19,
    // 14273 = 396 x 36 + 17; 4019 = 100 x 40 + 19 = 111 x 36 + 23), by the default grid and by 5
    // blocks; then batches of 2 with squares in one launch.
    SAT_REQUIRE_GPU();
    auto check_tiles = [](int tile_rows, unsigned long long tiles) {
        CHECK(satlib::testing::launch_log().last_tile_rows == tile_rows);
        CHECK(satlib::testing::launch_log().last_tiles == tiles);
    };
    for (int grid : {0, 5}) {
        check_large_tiles<float, float>({10579, 100, 104, 112, 1, 4, grid}, true);
        check_tiles(40, 265);
        check_large_tiles<int32_t, int32_t>({10579, 100, 104, 112, 1, 4, grid}, true);
        check_tiles(40, 265);
        check_large_tiles<uint8_t, int32_t>({14273, 100, 104, 112, 1, 4, grid}, true);
        check_tiles(36, 397);
        check_large_tiles<uint8_t, float>({14273, 100, 104, 112, 1, 4, grid}, true);
        check_tiles(36, 397);
    }
    for (const auto& p : pairs) {
        if (p[1] == SATLIB_F64) continue;  // f64's batches and squares take the 128-thread tiles
        check_abi_batch({p[0], p[1], 2, 4019, 1100, 0, 0, 0, 0, true});
        CHECK(satlib::testing::launch_log().last_threads == 256);
        CHECK(satlib::testing::launch_log().last_vector == true);
        if (p[0] == SATLIB_U8) check_tiles(36, 2 * 112 * 2);  // 2 images of 112 x 2 tiles
        else check_tiles(40, 2 * 101 * 2);
    }
}

namespace {

// A wide thin image (satlib.cu, wide_in_tiles): through the 2-D tiles of `tile_rows` rows and
// `threads` threads a block, with vector accesses or not, or (tile_rows 0) through the thin
// kernel's chunks.
template <class In, class Out>
void check_wide(const LibraryCase& c, int tile_rows, int threads = 256, bool vector = true) {
    INFO(c.rows << " x " << c.cols << " pitches " << c.in_pitch << "/" << c.out_pitch);
    if (tile_rows == 0) return check_library_on<In, Out>(c, satlib::testing::ThinPath::chunks);
    check_library_on<In, Out>(c, satlib::testing::ThinPath::none);
    CHECK(satlib::testing::launch_log().last_tile_rows == tile_rows);
    CHECK(satlib::testing::launch_log().last_threads == threads);
    CHECK(satlib::testing::launch_log().last_vector == vector);
}

// Whether a call of this shape may take the 2-D tiles: the thin kernel's scratch is state alone,
// so value bytes are the tiles' records (scratch_for).
template <class In, class Out>
bool may_take_tiles(int rows, int cols) {
    return sat::inclusive_scan_2d_scratch<In, Out>(rows, cols).value_bytes > 0;
}

}  // namespace

TEST_CASE("library: wide thin images of 24 to 64 rows whose tile rows are 60 % full take the 2-D tiles",
          "[cpu][library][thin]") {
    // f32 and i32 tiles of 40 rows (32 at odd pitches), u8 -> i32 36 (32), f64 32; the 2-D records
    // with the thin kernel's scratch within 10 % of the output.
    for (const int rows : {24, 33, 40, 48, 64}) {
        INFO(rows << " rows");
        CHECK(may_take_tiles<float, float>(rows, 4000000));
        CHECK(may_take_tiles<int32_t, int32_t>(rows, 4000000));
        CHECK_FALSE(may_take_tiles<float, float>(4000000, rows));  // tall: the chunks
    }
    CHECK_FALSE(may_take_tiles<float, float>(23, 4000000));  // fewer than 24 rows
    CHECK_FALSE(may_take_tiles<float, float>(42, 4000000));  // 42 of 80 rows; at odd pitches 42 of
                                                             // 64 with 10.2 % of scratch
    CHECK_FALSE(may_take_tiles<float, float>(33, 513));      // two small tiles of 34 x 512: 16 % of scratch
    CHECK(may_take_tiles<uint8_t, int32_t>(24, 4000000));
    CHECK(may_take_tiles<uint8_t, int32_t>(36, 4000000));
    CHECK_FALSE(may_take_tiles<uint8_t, int32_t>(40, 4000000));  // 40 of 72 rows, of 64 10.6 %
    CHECK(may_take_tiles<uint8_t, int32_t>(64, 4000000));
    CHECK(may_take_tiles<double, double>(32, 2000000));
    CHECK_FALSE(may_take_tiles<double, double>(43, 2000000));  // 43 of 64: 9.9 % + 0.8 % of scratch
    CHECK(may_take_tiles<double, double>(56, 2000000));
    // The f64 accumulator's 33 and 34 rows: one tile row of 34 (WideThinTileShape) where that is a
    // round of 256-thread blocks (264 tiles of 512 columns); 33 of 64 rows in its 32-row tiles.
    for (const int rows : {33, 34}) {
        INFO(rows << " rows");
        CHECK(may_take_tiles<double, double>(rows, 2000000));
        CHECK(may_take_tiles<uint16_t, double>(rows, 2000000));
        CHECK(may_take_tiles<float, double>(rows, 2000000));
        CHECK(may_take_tiles<double, double>(rows, 264 * 512));
        CHECK_FALSE(may_take_tiles<double, double>(rows, 263 * 512));  // under a round: the chunks
        CHECK_FALSE(may_take_tiles<double, double>(2000000, rows));    // tall: the chunks
    }
    CHECK_FALSE(may_take_tiles<double, double>(35, 2000000));  // 35 of 64 rows, or of 68 in tiles of 34
    check_scratch_grows<double, double>(33, 2000000, 4);  // one image's tiles of 34 rows at every batch size

    // Scratch sized for a batch serves each smaller one: f32 33 x 100000 takes the small tiles
    // alone, the 256-thread ones from 3 images (at 100001 columns, rows not on whole pieces: two
    // tile rows of 32 from 2 images, which take the chunks); f64 32 x 200000 the 256-thread tiles
    // alone, the small ones in batches. Each has the tiles' records from one image on (value bytes
    // that do not shrink with the batch).
    for (const int cols : {100000, 100001}) {
        CHECK(may_take_tiles<float, float>(33, cols));
        CHECK(may_take_tiles<double, double>(32, 2 * cols));
        check_scratch_grows<float, float>(33, cols, 6);
        check_scratch_grows<double, double>(32, 2 * cols, 6);
    }

    // The scratch a caller sizes (every path the shape may take) within 10 % of the output on the
    // thin targets, for every pair.
    auto check_bound = [](auto in, auto out) {
        using In = decltype(in);
        using Out = decltype(out);
        for (const int k : {1, 3, 24, 33, 40, 48, 64})
            for (const long long n : {1000003LL, 4000000LL, (1LL << 31) / k - 1}) {
                const double out_bytes = double(n) * k * sizeof(Out);
                for (const bool wide : {true, false}) {
                    const int rows = wide ? k : int(n), cols = wide ? int(n) : k;
                    const sat::ScanScratchSize size = sat::inclusive_scan_2d_scratch<In, Out>(rows, cols);
                    INFO(sizeof(In) << " -> " << sizeof(Out) << " bytes, " << rows << " x " << cols);
                    CHECK(double(size.state_bytes + size.value_bytes) <= 0.10 * out_bytes + 4096);
                }
            }
    };
    check_bound(float{}, float{});
    check_bound(double{}, double{});
    check_bound(int32_t{}, int32_t{});
    check_bound(uint8_t{}, int32_t{});
    check_bound(uint8_t{}, float{});
    check_bound(uint16_t{}, double{});
    check_bound(float{}, double{});
}

TEST_CASE("library: wide thin images in the 2-D tiles: one and two tile rows, odd pitches, small tiles, batches",
          "[gpu][library][thin]") {
    SAT_REQUIRE_GPU();
    // f32: 33 and 24 rows in one tile row of 40 (293 and 391 tiles, more than a round of 264);
    // 48 rows in two (the second looks up its tile column); 28 rows at odd pitches in one of 32,
    // lane by lane; 33 x 100000 in 196 small tiles of 34 rows. 33 and 34 rows at odd pitches in
    // one tile row of 34 (WideThinTileShape), lane by lane, from a round of them (264 tiles of 1024
    // columns), in place and in the caller's scratch. The chunks: 22 rows, 42 (of 80), 33 at odd
    // pitches under a round of tiles of 34, 35 at odd pitches (of 64, or of 68 in tiles of 34).
    check_wide<float, float>({33, 300000, 300000, 300000, 0, 0, 0, false, true}, 40);
    check_wide<float, float>({24, 400000, 400000, 400000, 0, 0}, 40);
    check_wide<float, float>({48, 200000, 200004, 200004, 1, 4}, 40);
    check_wide<float, float>({28, 300001, 300003, 300005, 1, 2, 0, false, true}, 32, 256, false);
    check_wide<float, float>({33, 100000, 100000, 100000, 0, 0}, small_tile_rows, 128);
    check_wide<float, float>({22, 400000, 400000, 400000, 0, 0}, 0);
    check_wide<float, float>({42, 200000, 200000, 200000, 0, 0}, 0);
    check_wide<float, float>({33, 300001, 300001, 300001, 0, 0}, wide_thin_tile_rows, 256, false);
    check_wide<float, float>({34, 264 * 1024, 264 * 1024 + 3, 264 * 1024 + 5, 1, 2, 0, false, true},
                             wide_thin_tile_rows, 256, false);
    check_wide<float, float>({33, 270001, 270001, 270001, 0, 0, 0, true}, wide_thin_tile_rows, 256, false);
    check_wide<float, float>({33, 263 * 1024 - 1, 263 * 1024 - 1, 263 * 1024 - 1, 0, 0}, 0);
    check_wide<float, float>({35, 300001, 300001, 300001, 0, 0}, 0);
    // i32: 64 rows in two tile rows of 40, in place; 42 rows the chunks; 33 and 34 rows at odd
    // pitches in one tile row of 34.
    check_wide<int32_t, int32_t>({64, 300000, 300000, 300000, 0, 0, 0, true}, 40);
    check_wide<int32_t, int32_t>({42, 300000, 300000, 300000, 0, 0}, 0);
    check_wide<int32_t, int32_t>({33, 300001, 300003, 300005, 1, 1}, wide_thin_tile_rows, 256, false);
    check_wide<int32_t, int32_t>({34, 300001, 300001, 300001, 0, 0, 0, true}, wide_thin_tile_rows, 256, false);
    // u8 -> i32: 33 and 64 rows in tiles of 36 (489 and 978 tiles, more than a round of 396); 40
    // rows (of 72) the chunks; 33 and 34 rows at odd pitches in one tile row of 34 from a round of
    // 396 of them, the chunks under it.
    check_wide<uint8_t, int32_t>({33, 500000, 500000, 500000, 0, 0, 0, false, true}, 36);
    check_wide<uint8_t, int32_t>({64, 500000, 500000, 500000, 0, 0}, 36);
    check_wide<uint8_t, int32_t>({40, 500000, 500000, 500000, 0, 0}, 0);
    check_wide<uint8_t, int32_t>({33, 500001, 500003, 500005, 1, 3, 0, false, true}, wide_thin_tile_rows, 256, false);
    check_wide<uint8_t, int32_t>({34, 396 * 1024 - 3, 396 * 1024 - 3, 396 * 1024 - 3, 0, 0}, wide_thin_tile_rows, 256,
                                 false);
    check_wide<uint8_t, int32_t>({33, 395 * 1024 - 1, 395 * 1024 - 1, 395 * 1024 - 1, 0, 0}, 0);
    // f64: 32 rows in one tile row of 32 (586 tiles of 512 columns), and at odd pitches; 33 and 34
    // rows in one tile row of 34 (WideThinTileShape), aligned and at odd pitches, in place; under a
    // round of those tiles (263 x 512 columns) and 35 rows (of 64, or of 68) the chunks. The pairs
    // that follow f64 and u8 -> i32: u16 -> f64 and f32 -> f64 28 rows in tiles of 32 and 33 or 34 in
    // tiles of 34, u8 -> f32 24 rows (411 tiles; the f32 sums stay below 2^24).
    check_wide<double, double>({32, 300000, 300000, 300000, 0, 0, 0, false, true}, 32);
    check_wide<double, double>({32, 300001, 300003, 300005, 1, 1}, 32, 256, false);
    check_wide<double, double>({33, 300000, 300000, 300000, 0, 0, 0, false, true}, wide_thin_tile_rows);
    check_wide<double, double>({33, 300001, 300003, 300005, 1, 1}, wide_thin_tile_rows, 256, false);
    check_wide<double, double>({34, 264 * 512, 264 * 512, 264 * 512, 0, 0, 0, true}, wide_thin_tile_rows);
    check_wide<double, double>({33, 263 * 512, 263 * 512, 263 * 512, 0, 0}, 0);
    check_wide<double, double>({35, 300000, 300000, 300000, 0, 0}, 0);
    check_wide<uint16_t, double>({28, 300000, 300000, 300000, 0, 0}, 32);
    check_wide<float, double>({28, 300000, 300000, 300000, 0, 0}, 32);
    check_wide<uint16_t, double>({33, 300000, 300000, 300000, 0, 0}, wide_thin_tile_rows);
    check_wide<float, double>({34, 300001, 300001, 300001, 0, 0}, wide_thin_tile_rows, 256, false);
    // Through the C ABI: one f64 image of 33 rows with squares (the squares in the small tiles, then
    // the sums in tiles of 34, one scratch for both) and one of 34 rows in the NPP layout.
    check_abi({SATLIB_F64, SATLIB_F64, 1, 33, 300000, 0, 0, 0, 0, true});
    CHECK(satlib::testing::launch_log().last_tile_rows == wide_thin_tile_rows);
    check_abi({SATLIB_F64, SATLIB_F64, 1, 34, 300001, 1, 1, 0, 0, false, SATLIB_LAYOUT_NPP});
    CHECK(satlib::testing::launch_log().last_tile_rows == wide_thin_tile_rows);
    check_wide<uint8_t, float>({24, 420000, 420000, 420000, 0, 0}, 36);
    // Batches through the C ABI, one launch each, with squares (their own launch, then the sums):
    // f32 4 x 98 tiles of 40 rows, u8 -> i32 4 x 123 of 36, f64 3 x 391 small tiles of 32 x 256
    // (the f64 accumulator's batches take the small tiles, 128 threads).
    for (const bool squares : {false, true}) {
        // A batch of f64 33-row images: the small tiles are 32 rows, so the chunks (the wide thin
        // tiles take one image).
        check_abi_batch({SATLIB_F64, SATLIB_F64, 2, 33, 300000, 0, 0, 0, 0, squares});
        CHECK(satlib::testing::launch_log().last_thin_path == satlib::testing::ThinPath::chunks);
        check_abi_batch({SATLIB_F64, SATLIB_F64, 3, 32, 100000, 0, 0, 0, 0, squares});
        CHECK(satlib::testing::launch_log().last_thin_path == satlib::testing::ThinPath::none);
        CHECK(satlib::testing::launch_log().last_tile_rows == f64_small_tile_rows);
        CHECK(satlib::testing::launch_log().last_threads == 128);
        check_abi_batch({SATLIB_F32, SATLIB_F32, 4, 33, 100000, 0, 0, 0, 0, squares});
        CHECK(satlib::testing::launch_log().last_thin_path == satlib::testing::ThinPath::none);
        CHECK(satlib::testing::launch_log().last_tile_rows == 40);
        check_abi_batch({SATLIB_U8, SATLIB_I32, 4, 33, 125000, 0, 0, 0, 0, squares});
        CHECK(satlib::testing::launch_log().last_thin_path == satlib::testing::ThinPath::none);
        CHECK(satlib::testing::launch_log().last_tile_rows == 36);
    }
    // A thin shape on 5 blocks (grid_blocks) with the caller's scratch, sized for the thin kernel:
    // its 25,000 tiles' flags (100 KB) take scratch of the call's own (the sanitize case below has
    // the same at 100,000 x 3).
    check_library<float, float>({1000000, 3, 4, 4, 0, 0, 5, false, true});
    CHECK(satlib::testing::launch_log().last_thin_path == satlib::testing::ThinPath::none);
    CHECK(satlib::testing::launch_log().last_tiles == 25000);
}

TEST_CASE("library: wide thin images in the 2-D tiles, for compute-sanitizer", "[gpu][library][thin][sanitize]") {
    SAT_REQUIRE_GPU();
    // u8 -> i32 33 x 20000 in 40 small tiles; f32 28 x 270001 at odd pitches in 264 tiles of 32
    // rows, lane by lane.
    check_wide<uint8_t, int32_t>({33, 20000, 20000, 20000, 0, 0}, small_tile_rows, 128);
    check_wide<float, float>({28, 270001, 270003, 270005, 1, 2}, 32, 256, false);
    // f64 33 x 135168 in a round of 264 tiles of 34 rows (WideThinTileShape), in the caller's scratch;
    // f32 33 x 270001 at odd pitches in a round of 264 of f32's tiles of 34 rows, lane by lane.
    check_wide<double, double>({33, 264 * 512, 264 * 512, 264 * 512, 0, 0, 0, false, true}, wide_thin_tile_rows);
    check_wide<float, float>({33, 270001, 270003, 270005, 1, 2, 0, false, true}, wide_thin_tile_rows, 256, false);
    // A thin shape on a grid the caller sets takes the 2-D tiles, whose flags (2,500 tiles of 40
    // rows: 10 KB) outgrow the thin kernel's scratch that inclusive_scan_2d_scratch sizes (under
    // 1 KB): the call allocates its own instead of writing past the caller's.
    check_library<float, float>({100000, 3, 4, 4, 0, 0, 5, false, true});
    CHECK(satlib::testing::launch_log().last_thin_path == satlib::testing::ThinPath::none);
    CHECK(satlib::testing::launch_log().last_tiles == 2500);
    // The caller's scratch keeps every byte it had: the flags went to the call's own.
    const sat::ScanScratchSize need = sat::inclusive_scan_2d_scratch<float, float>(100000, 3);
    REQUIRE(need.value_bytes == 0);  // the thin kernel's: state alone
    DeviceArray<float> in(100000 * 4), out(100000 * 4);
    DeviceArray<unsigned char> state(need.state_bytes);
    REQUIRE(cudaMemset(in.p, 0, 100000 * 4 * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMemset(state.p, 0xff, need.state_bytes) == cudaSuccess);
    sat::ScanOptions opt;
    opt.state = state.p;
    opt.grid_blocks = 5;
    REQUIRE(sat::inclusive_scan_2d(in.p, 4, out.p, 4, 100000, 3, 0, opt) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<unsigned char> after(need.state_bytes);
    REQUIRE(cudaMemcpy(after.data(), state.p, after.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(std::size_t(std::count(after.begin(), after.end(), 0xff)) == after.size());
}

TEST_CASE("library: a round of small tiles adds up the aggregates left and above: the bounds, every pair, batches",
          "[gpu][library]") {
    // A launch of a block per ticket in the small tiles whose images are at most 32 tiles wide and
    // 128 tall adds up the aggregates of every tile left of and above each tile
    // (Geometry::aggregates_only); a wider or taller image, or a grid of fewer blocks than tickets,
    // looks back. i32's small tiles are 34 x 512 (f32's and u8's too), in images that do not take
    // its short ones (more than 128 short tile rows, or more than a round of 528 of them): shapes at
    // and one past each bound and past 32 tile rows (where sum_aggregates adds the tiles above in
    // groups of 8 tile rows), grids set; the short tiles of every pair at and past their bounds,
    // grids set (which also put a 1 x 1 image and a row into the 2-D kernel); the tall small tiles
    // of f32 and i32 at and past theirs; ragged primes with and without vector accesses for every
    // pair; batches of 2 with squares (both tables in one round), with and without groups.
    SAT_REQUIRE_GPU();
    // A launch within the bounds adds up aggregates where it is one round: the default grid of the
    // larger cases is (512 tickets on 132 SMs x 4 blocks, f64's x 5), not on a GPU of fewer SMs.
    // Images of more than 32 tile rows (of `rows` rows) add the tiles above in groups of 8 tile
    // rows, the others in one group of aggregates_tiles_y = 128 (satlib.cu, aggregate_group_rows).
    auto check_path = [](bool within_bounds, int rows, unsigned tables = 1) {
        const satlib::testing::LaunchLog log = satlib::testing::launch_log();
        const int tiles_y = log.last_tile_rows > 0 ? sat::ceil_div(rows, log.last_tile_rows) : 0;
        INFO(log.last_tiles << " tiles x " << tables << " tables on " << log.last_grid << " blocks, " << tiles_y
                            << " tile rows an image");
        CHECK(log.last_aggregates_only == (within_bounds && log.last_grid >= log.last_tiles * tables));
        CHECK(log.last_aggregate_group_rows == (!log.last_aggregates_only ? 0 : tiles_y > 32 ? 8 : 128));
    };
    struct Bound {
        LibraryCase c;
        bool aggregates;
        int tile_rows = small_tile_rows;
    };
    // One bound's case in the pair (In, Out): its result, its path and its tiles' rows.
    auto check_bound = [&](auto in, auto out, const Bound& b, int tile_rows) {
        check_library<decltype(in), decltype(out)>(b.c);
        check_path(b.aggregates, b.c.rows);
        CHECK(satlib::testing::launch_log().last_tile_rows == tile_rows);
    };
    const Bound bounds[] = {
        {{64 * small_tile_rows, 4096, 4096, 4096, 1, 0}, true},       // 8 x 64 tiles
        {{64 * small_tile_rows + 1, 1000, 1000, 1000, 1, 0}, true},   // 2 x 65
        {{128 * small_tile_rows, 1000, 1000, 1000, 1, 0}, true},      // 2 x 128
        // 2 x 129: 2 x 115 tall small tiles, one round
        {{128 * small_tile_rows + 1, 1000, 1000, 1000, 1, 0}, true, tall_small_tile_rows},
        // 2 x 144: 2 x 129 tall small tiles are past their bound too
        {{128 * tall_small_tile_rows + 1, 1000, 1000, 1000, 1, 0}, false},
        {{32 * small_tile_rows, 5000, 5000, 5000, 1, 0}, true},      // 10 x 32: no groups (640 short tiles)
        {{32 * small_tile_rows + 1, 4500, 4500, 4500, 1, 0}, true},  // 9 x 33: 4 groups of 8, then 1 row
        {{40 * small_tile_rows, 4500, 4500, 4500, 1, 0}, true},      // 9 x 40: the last row ends a group
        {{300, 16384, 16384, 16384, 1, 0}, true},        // 32 x 9 (576 short tiles)
        {{300, 16385, 16387, 16389, 1, 1}, false},       // 33 x 9, no vectors
        {{1100, 5000, 5000, 5000, 1, 0, 600}, true},     // 10 x 33 on 600 blocks (650 short tiles)
        {{1100, 5000, 5000, 5000, 1, 0, 5}, false},      // on 5
    };
    for (const Bound& b : bounds) check_bound(int32_t{}, int32_t{}, b, b.tile_rows);
    // 17 x 33 on 561 blocks: a group's last tile waits for 8 x 17 - 1 tiles, two a thread for some.
    // It runs on u8 -> i32: i32's 561 small tiles are more than a round, so i32 takes 17 x 30 tall
    // ones there.
    check_bound(uint8_t{}, int32_t{},
                {{33 * small_tile_rows, 16 * 512 + 1, 16 * 512 + 16, 16 * 512 + 4, 1, 0, 17 * 33}, true},
                small_tile_rows);
    // One f32 or i32 image of sums that is one round adding up aggregates in the small tiles, or else
    // in the tall small ones (38 x 512), takes them, whether its 256-thread tiles are fewer than a
    // round or not: 2560 columns (5 tiles; 3 of the 256-thread tiles) of 3480 rows (5 x 103 = 515
    // small tiles; 3 x 87 = 261 of 40 rows), 3570 (5 x 105 = 525 small; 3 x 90 = 270 of 40 rows),
    // 3571 (5 x 106 = 530 small, 5 x 94 tall), 3990 (5 x 105 = 525 tall) and 3991 (5 x 106 = 530
    // tall: 3 x 100 = 300 256-thread tiles, two rounds that look back); 2160x3840 (5 x 102, in
    // groups of 8) aligned and at odd pitches (lane by lane), and on 100 blocks (the tall small
    // tiles look back); 3840x2160 at odd pitches (8 x 64 small tiles, element by element; 4 x 68
    // of the 256-thread tiles of 32 rows).
    const Bound tall_bounds[] = {
        {{3480, 2560, 2560, 2560, 1, 0}, true, small_tile_rows},
        {{3570, 2560, 2560, 2560, 1, 0}, true, small_tile_rows},
        {{3571, 2560, 2560, 2560, 1, 0}, true, tall_small_tile_rows},
        {{3990, 2560, 2560, 2560, 1, 0}, true, tall_small_tile_rows},
        {{3991, 2560, 2560, 2560, 1, 0}, false, 40},
        {{3840, 2160, 2160, 2160, 1, 0}, true, tall_small_tile_rows},
        {{3840, 2160, 2163, 2165, 1, 1}, true, tall_small_tile_rows},
        {{3840, 2160, 2160, 2160, 1, 0, 100}, false, tall_small_tile_rows},
        {{2160, 3840, 3843, 3845, 1, 1}, true, small_tile_rows},
    };
    for (const Bound& b : tall_bounds) {
        check_bound(float{}, float{}, b, b.tile_rows);
        check_bound(int32_t{}, int32_t{}, b, b.tile_rows);
    }
    // u8 -> i32 takes its small tiles there, one round of 5 x 113 of 132 x 6.
    check_bound(uint8_t{}, int32_t{}, {{3840, 2160, 2160, 2160, 1, 0}, true}, small_tile_rows);
    // u8 -> i32 takes its 256-thread tiles at a round of them even where its small tiles would be
    // one round (satlib.cu, small_tiles_past_a_round; not measured): 3529 x 3073 is 4 x 99 = 396
    // tiles of 36 rows and 7 x 104 = 728 small ones. The f64 accumulator takes its small tiles
    // there: 2081 x 1537 is 4 x 66 = 264 tiles of 32 x 512 and 7 x 66 = 462 small ones of 32 x 256,
    // and 2048 x 2560 5 x 64 = 320 and 10 x 64 = 640.
    check_bound(uint8_t{}, int32_t{}, {{3529, 3073, 3088, 3076, 1, 0}, false}, 36);
    CHECK(satlib::testing::launch_log().last_threads == 256);
    for (const LibraryCase& c : {LibraryCase{2081, 1537, 1540, 1540, 1, 0}, LibraryCase{2048, 2560, 2563, 2565, 1, 1}}) {
        check_bound(double{}, double{}, {c, true}, f64_small_tile_rows);
        CHECK(satlib::testing::launch_log().last_threads == 128);
        check_bound(uint16_t{}, double{}, {c, true}, f64_small_tile_rows);
        CHECK(satlib::testing::launch_log().last_threads == 128);
        check_bound(float{}, double{}, {c, true}, f64_small_tile_rows);
        CHECK(satlib::testing::launch_log().last_threads == 128);
    }
    // The short tiles for one image of sums of at most 128 of them tall in one round: 64 and 65
    // tile rows (in groups of 8 either way), at and one past the bound of tile rows (2176 rows:
    // 4 x 128 short tiles; 2177: 4 x 65 small ones), 1920x1080 (4 x 64) and 1080x1920 (3 x
    // 113), a row of 32 x 6 and one past the bound of tile columns (small tiles, which look back),
    // a grid of fewer blocks than tickets (the short tiles look back), a 1 x 1 image and a row on
    // grids that hold all its tiles or not.
    const Bound short_bounds[] = {
        {{64 * short_tile_rows, 1999, 2000, 2000, 1, 0}, true, short_tile_rows},
        {{64 * short_tile_rows + 1, 1999, 2000, 2000, 1, 0}, true, short_tile_rows},
        {{128 * short_tile_rows, 1999, 2000, 2000, 1, 0}, true, short_tile_rows},
        {{128 * short_tile_rows + 1, 1999, 2000, 2000, 1, 0}, true, small_tile_rows},
        {{1080, 1920, 1920, 1920, 1, 0}, true, short_tile_rows},
        {{1920, 1080, 1080, 1080, 1, 0}, true, short_tile_rows},
        {{100, 16384, 16384, 16384, 1, 0}, true, short_tile_rows},
        {{100, 16385, 16387, 16389, 1, 1}, false, small_tile_rows},
        {{1000, 3000, 3000, 3000, 1, 0, 5}, false, short_tile_rows},  // 6 x 59 on 5 blocks
        {{1, 1, 1, 1, 0, 0, 1}, true, short_tile_rows},
        {{1, 5000, 5000, 5000, 0, 0, 16}, true, short_tile_rows},  // 10 x 1 on 16 blocks
        {{1, 5000, 5000, 5000, 0, 0, 3}, false, short_tile_rows},
    };
    for (const Bound& b : short_bounds) {
        check_bound(float{}, float{}, b, b.tile_rows);
        check_bound(int32_t{}, int32_t{}, b, b.tile_rows);
        check_bound(uint8_t{}, int32_t{}, b, b.tile_rows);
        check_bound(uint8_t{}, float{}, b, b.tile_rows);
    }
    // The f64 accumulator's short tiles, 17 x 256, one round of 132 x 5 (660): 1122 x 2560 (10 x 66
    // tiles, 660) and one row past it (670 short tiles: 10 x 36 of the 32 x 256 small tiles),
    // 1088 x 2561 (11 x 64, 704: small tiles), 2176 x 1280 (5 x 128) and one row past it (129 short
    // tile rows: 5 x 69 small ones), 1920x1080 (8 x 64) and 1080x1920 (5 x 113), 32 x 6
    // tiles and one tile column past them (small tiles, which look back), 8 x 59 on 5 blocks, a
    // 1 x 1 image and a row of 10 tiles on 16 and 3.
    const Bound f64_short_bounds[] = {
        {{66 * short_tile_rows, 2560, 2560, 2560, 1, 0}, true, short_tile_rows},
        {{66 * short_tile_rows + 1, 2560, 2560, 2560, 1, 0}, true, f64_small_tile_rows},
        {{64 * short_tile_rows, 2561, 2562, 2562, 1, 0}, true, f64_small_tile_rows},
        {{128 * short_tile_rows, 1280, 1280, 1280, 1, 0}, true, short_tile_rows},
        {{128 * short_tile_rows + 1, 1280, 1280, 1280, 1, 0}, true, f64_small_tile_rows},
        {{1080, 1920, 1920, 1920, 1, 0}, true, short_tile_rows},
        {{1920, 1080, 1080, 1080, 1, 0}, true, short_tile_rows},
        {{100, 8192, 8192, 8192, 1, 0}, true, short_tile_rows},
        {{100, 8193, 8195, 8197, 1, 1}, false, f64_small_tile_rows},
        {{1000, 2000, 2000, 2000, 1, 0, 5}, false, short_tile_rows},
        {{1, 1, 1, 1, 0, 0, 1}, true, short_tile_rows},
        {{1, 2500, 2500, 2500, 0, 0, 16}, true, short_tile_rows},
        {{1, 2500, 2500, 2500, 0, 0, 3}, false, short_tile_rows},
    };
    for (const Bound& b : f64_short_bounds) {
        check_bound(double{}, double{}, b, b.tile_rows);
        check_bound(uint16_t{}, double{}, b, b.tile_rows);
        check_bound(float{}, double{}, b, b.tile_rows);
    }
    // Squares (one launch of both tables) keep f32's small tiles.
    check_abi({SATLIB_F32, SATLIB_F32, 1, 1000, 1000, 0, 0, 0, 0, true});
    check_path(true, 1000, 2);
    CHECK(satlib::testing::launch_log().last_tile_rows == small_tile_rows);
    // 1031 x 1999: 61 tile rows of 4 short ones (17 x 512) or of 8 (17 x 256, the f64
    // accumulator's), in groups.
    for (const LibraryCase& c : {LibraryCase{1031, 1999, 2000, 2000, 1, 0}, LibraryCase{1031, 1999, 2003, 2005, 2, 3}}) {
        auto check = [&](auto in, auto out) {
            check_library<decltype(in), decltype(out)>(c);
            check_path(true, c.rows);
            CHECK(satlib::testing::launch_log().last_tile_rows == short_tile_rows);
        };
        check(float{}, float{}), check(double{}, double{}), check(int32_t{}, int32_t{});
        check(uint8_t{}, int32_t{}), check(uint8_t{}, float{}), check(uint16_t{}, double{}), check(float{}, double{});
    }
    // 1000 rows: 30 tile rows (f64's 32); 1123 rows: 34 tile rows (f64's 36), in groups of 8.
    for (const auto& p : pairs)
        for (const int rows : {1000, 33 * small_tile_rows + 1}) {
            check_abi_batch({p[0], p[1], 2, rows, 1000, 0, 0, 0, 0, true});
            check_path(true, rows, 2);
            CHECK(satlib::testing::launch_log().last_threads == 128);
            CHECK(satlib::testing::launch_log().last_tile_rows != short_tile_rows);  // batches: the small tiles
        }
}

TEST_CASE("library: the --trace stamps cover every 32 x 32 piece, in 40-row tiles and in 32-row ones",
          "[gpu][library]") {
    // 10579 x 100 f32, packed (pitch 100: rows on whole pieces, tiles of 40 rows) and of pitch 101
    // (lane by lane, 32 rows): where R is not 32, a piece that two tiles share is stamped once its
    // lower tile writes it. The values do not matter here (zeros).
    SAT_REQUIRE_GPU();
    const int rows = 10579, cols = 100;
    const std::size_t pieces = std::size_t(sat::ceil_div(rows, 32)) * sat::ceil_div(cols, 32);
    for (const std::size_t pitch : {std::size_t(100), std::size_t(101)}) {
        INFO("pitch " << pitch);
        DeviceArray<float> in(rows * pitch), out(rows * pitch);
        DeviceArray<unsigned long long> trace(pieces);
        REQUIRE(cudaMemset(in.p, 0, rows * pitch * sizeof(float)) == cudaSuccess);
        REQUIRE(cudaMemset(trace.p, 0, pieces * sizeof(unsigned long long)) == cudaSuccess);
        sat::ScanOptions opt;
        opt.trace = trace.p;
        REQUIRE(sat::inclusive_scan_2d(in.p, pitch, out.p, pitch, rows, cols, nullptr, opt) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        CHECK(satlib::testing::launch_log().last_tile_rows == (pitch == 100 ? 40 : 32));
        std::vector<unsigned long long> stamps(pieces);
        REQUIRE(cudaMemcpy(stamps.data(), trace.p, pieces * sizeof(unsigned long long), cudaMemcpyDeviceToHost) ==
                cudaSuccess);
        CHECK(std::count(stamps.begin(), stamps.end(), 0ull) == 0);
    }
}

TEST_CASE("library inclusive_scan_2d: rows that do not start on a whole piece, in 256-thread tiles, every pair",
          "[gpu][library]") {
    // Odd pitches and column offsets, so no vector accesses. 6337 x 1025 is 199 tile rows of 2
    // tile columns (3 for the f64 shapes), more tiles than one round of 256-thread blocks of any
    // pair (u8's round is 396 tiles: 398 clears it by 2), so every pair takes its LanesTileShape, whose
    // shared-memory rows and stores go lane by lane through the warps' stages. The first tile
    // column is full (every warp holds columns), the last one ragged; a grid of 5 blocks reuses
    // each stage for many tiles; in place. Values 0-3: the sums come to about 9.7 million, below
    // 2^24, so f32 is exact.
    SAT_REQUIRE_GPU();
    for (int grid : {0, 5}) {
        const LibraryCase c{6337, 1025, 1031, 1033, 3, 5, grid};
        check_large_tiles<float, float>(c, false);
        check_large_tiles<double, double>(c, false);
        check_large_tiles<int32_t, int32_t>(c, false);
        check_large_tiles<uint8_t, int32_t>(c, false);
        check_large_tiles<uint8_t, float>(c, false);
        check_large_tiles<uint16_t, double>(c, false);
        check_large_tiles<float, double>(c, false);
    }
    LibraryCase in_place{6337, 1025, 1031, 1031, 3, 5};
    in_place.in_place = true;
    check_large_tiles<float, float>(in_place, false);
    check_large_tiles<int32_t, int32_t>(in_place, false);
}

TEST_CASE("library inclusive_scan_2d: packed rows of an odd width in 256-thread tiles, for compute-sanitizer",
          "[gpu][library][sanitize]") {
    // Rows of 257 columns, packed (so no vectors, lane by lane), one tile row past a round of
    // 256-thread tiles (265 tile rows for f32 and u16 -> f64 against 264 blocks, 397 for u8
    // against 396: two tiles per block), and the input ends at the matrix's last element, inside a
    // 4-byte word for u8 and u16. No access may pass it: the warps wholly inside the matrix skip
    // the bounds test per element, the warp at the edge keeps it.
    SAT_REQUIRE_GPU();
    check_large_tiles<float, float>({8449, 257, 257, 257, 0, 0}, false);
    check_large_tiles<uint8_t, int32_t>({12674, 257, 257, 257, 0, 0}, false);
    check_large_tiles<uint16_t, double>({8449, 257, 257, 257, 0, 0}, false);
}

namespace {

// 85 x 1001 images of every type pair, with and without squares, and batches of 2, whose rows lie
// `pad` elements apart beyond the width and whose images `gap` elements apart; each launch must
// take the 2-D kernel with (`vector`) or without vector accesses.
void check_abi_85x1001(std::size_t pad, std::size_t gap, bool vector) {
    using satlib::testing::ThinPath;
    for (const auto& p : pairs) {
        for (bool squares : {false, true}) {
            check_abi({p[0], p[1], 1, 85, 1001, pad, pad, 0, 0, squares});
            CHECK(satlib::testing::launch_log().last_vector == vector);
            CHECK(satlib::testing::launch_log().last_thin_path == ThinPath::none);
        }
        check_abi({p[0], p[1], 2, 85, 1001, pad, pad, gap, gap, false});
        CHECK(satlib::testing::launch_log().last_vector == vector);
    }
}

}  // namespace

TEST_CASE("library C ABI: inputs that end inside a row's last vector, for compute-sanitizer",
          "[gpu][library][batch][sanitize]") {
    // Pitches 1004 (whole vectors of 2 or 4 elements, so the vector path): the last row (84: row
    // 16 of its tile in the 34-row small tiles of squares and batches and in the 17-row short
    // tiles, row 20 in f64's 32-row ones, a shared-memory row in each) ends one
    // element into its last vector, and so does the input. The copies must read none of that
    // vector past the matrix (memcheck sees a read past the allocation). Batches: strides of whole
    // vectors, so their allocation ends at a whole vector and only the values are checked there.
    SAT_REQUIRE_GPU();
    check_abi_85x1001(3, 3, true);
}

TEST_CASE("library C ABI: odd pitches (the kernels without vector accesses), for compute-sanitizer",
          "[gpu][library][batch][sanitize]") {
    // Pitch 1001: every element is copied alone (load_tile's element loop; the short tiles lane
    // by lane), and the input ends at the matrix's last element; batches without gaps.
    SAT_REQUIRE_GPU();
    check_abi_85x1001(0, 0, false);
}

namespace {

// A batch of images back to back, scanned by `grid` blocks (0: as many as are resident) in one
// launch; every image is compared with the CPU SAT, exactly. With few blocks, each takes
// tickets of every image in the order they are handed out (tile row ty of every image, then
// ty + 1), and must find every tile it waits for already handed out.
template <class In, class Out>
void check_batch_on_grid(int batch, int rows, int cols, int grid) {
    const std::uint64_t seed = sat_test::fresh_seed();
    INFO("batch of " << batch << " x " << rows << "x" << cols << ", " << sizeof(In) << "->" << sizeof(Out)
                     << " bytes, grid " << grid << ", seed " << seed);
    const std::size_t image = std::size_t(rows) * cols, elems = image * std::size_t(batch);
    const std::vector<In> host_in = exact_input<In, Out>(elems, seed);
    DeviceArray<In> in(elems);
    DeviceArray<Out> out(elems);
    DeviceArray<int> status(1);
    REQUIRE(cudaMemcpy(in.p, host_in.data(), elems * sizeof(In), cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemset(out.p, sat::poison_byte, elems * sizeof(Out)) == cudaSuccess);
    REQUIRE(cudaMemset(status.p, 0, sizeof(int)) == cudaSuccess);
    sat::ScanOptions opt;
    opt.status = status.p;
    opt.grid_blocks = grid;
    opt.batch.count = batch, opt.batch.in_stride = image, opt.batch.out_stride = image;
    REQUIRE(sat::inclusive_scan_2d(in.p, cols, out.p, cols, rows, cols, 0, opt) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    require_status_ok(status.p);
    const satlib::testing::LaunchLog log = satlib::testing::launch_log();
    if (grid > 0) {  // guards of the setup: the grid asked for, and several tickets a block
        CHECK(log.last_grid == unsigned(grid));
        CHECK(log.last_tiles > log.last_grid);
    }
    std::vector<Out> result(elems);
    REQUIRE(cudaMemcpy(result.data(), out.p, elems * sizeof(Out), cudaMemcpyDeviceToHost) == cudaSuccess);
    std::size_t wrong = 0;
    for (int b = 0; b < batch; ++b)
        sat::for_each_exact_sum(
            sat::Shape{rows, cols},
            [&](int i, int j) { return (long long)host_in[b * image + std::size_t(i) * cols + j]; },
            [&](int i, int j, long long sum) {
                if (!sat::equals_exact_sum(result[b * image + std::size_t(i) * cols + j], sum)) ++wrong;
            });
    REQUIRE(wrong == 0);
}

}  // namespace

TEST_CASE("library inclusive_scan_2d: a batch on a few blocks: deadlock-free and exact",
          "[gpu][library][batch][sanitize]") {
    SAT_REQUIRE_GPU();
    // Small tiles (f32 512 columns, f64 256, u8 -> i32 512): 5, 6 and 4 tile columns and 5, 4
    // and 4 tile rows an image, ragged edges.
    for (int grid : {1, 4, 0}) {
        check_batch_on_grid<float, float>(3, 130, 2100, grid);
        check_batch_on_grid<double, double>(2, 100, 1300, grid);
        check_batch_on_grid<uint8_t, int32_t>(5, 100, 1700, grid);
    }
}

TEST_CASE("library C ABI: shapes 1x1, primes and thin (1xN, Nx1, 3xN, Nx3, 33xN)", "[gpu][library]") {
    SAT_REQUIRE_GPU();
    const int shapes[][2] = {{1, 1}, {1, 2}, {2, 1}, {97, 89}, {1, 70001}, {70001, 1}, {3, 50003}, {50003, 3}, {33, 40009}};
    for (const auto& p : pairs)
        for (const auto& s : shapes) {
            check_abi({p[0], p[1], 1, s[0], s[1], 0, 0, 0, 0, false});
            check_abi({p[0], p[1], 2, s[0], s[1], 1, 0, 3, 0, true, SATLIB_LAYOUT_NPP});
        }
}

TEST_CASE("library C ABI: squares into the input's own buffer are refused, sums in place work", "[gpu][library]") {
    SAT_REQUIRE_GPU();
    const int rows = 100, cols = 1000;
    DeviceArray<float> a(std::size_t(rows) * cols), b(std::size_t(rows) * cols);
    std::vector<float> ones(std::size_t(rows) * cols, 1.0f);
    REQUIRE(cudaMemcpy(a.p, ones.data(), ones.size() * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    satlib_integral_args args{};
    args.in = a.p, args.in_type = SATLIB_F32, args.in_pitch = cols;
    args.out = a.p, args.out_type = SATLIB_F32, args.out_pitch = cols;  // in place
    args.sq_out = a.p, args.sq_pitch = cols;
    args.batch = 1, args.rows = rows, args.cols = cols;
    CHECK(satlib_integral(&args, nullptr, 1) == SATLIB_ERR_ARGUMENT);
    args.sq_out = b.p;
    REQUIRE(satlib_integral(&args, nullptr, 1) == SATLIB_OK);
    std::vector<float> sums(ones.size()), squares(ones.size());
    REQUIRE(cudaMemcpy(sums.data(), a.p, sums.size() * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    REQUIRE(cudaMemcpy(squares.data(), b.p, squares.size() * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    std::size_t wrong = 0;
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j != cols; ++j) {
            const float expected = float((i + 1) * (j + 1));
            wrong += sums[std::size_t(i) * cols + j] != expected || squares[std::size_t(i) * cols + j] != expected;
        }
    CHECK(wrong == 0);
    CHECK(satlib_last_timeout() == 0);
}

TEST_CASE("library C ABI: the scratch pool keeps its memory across synchronizations", "[gpu][library]") {
    // A release threshold of 0 on the device's current pool (the CUDA default) becomes 256 MiB;
    // one the program set itself is kept. Results stay right over calls with a sync in between.
    SAT_REQUIRE_GPU();
    int device = 0;
    REQUIRE(cudaGetDevice(&device) == cudaSuccess);
    if (current_device_attribute(cudaDevAttrMemoryPoolsSupported) == 0) {
        WARN("no stream-ordered memory pools on this device: nothing to check");
        return;
    }
    cudaMemPool_t pool = nullptr;
    REQUIRE(cudaDeviceGetMemPool(&pool, device) == cudaSuccess);
    std::uint64_t before = 0, threshold = 0;
    REQUIRE(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &before) == cudaSuccess);

    const int rows = 70, cols = 600;
    DeviceArray<float> in(std::size_t(rows) * cols), out(std::size_t(rows) * cols);
    const std::vector<float> ones(std::size_t(rows) * cols, 1.0f);
    REQUIRE(cudaMemcpy(in.p, ones.data(), ones.size() * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    satlib_integral_args args{};
    args.in = in.p, args.in_type = SATLIB_F32, args.in_pitch = cols;
    args.out = out.p, args.out_type = SATLIB_F32, args.out_pitch = cols;
    args.batch = 1, args.rows = rows, args.cols = cols;
    const std::uint64_t program_set = 12345;
    for (const std::uint64_t set : {std::uint64_t(0), program_set}) {
        INFO("release threshold set to " << set << " before the calls");
        std::uint64_t value = set;
        REQUIRE(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &value) == cudaSuccess);
        for (int call = 0; call < 3; ++call) {
            REQUIRE(cudaMemset(out.p, sat::poison_byte, ones.size() * 4) == cudaSuccess);
            REQUIRE(satlib_integral(&args, nullptr, call % 2) == SATLIB_OK);
            REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
            std::vector<float> sums(ones.size());
            REQUIRE(cudaMemcpy(sums.data(), out.p, sums.size() * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
            std::size_t wrong = 0;
            for (int i = 0; i < rows; ++i)
                for (int j = 0; j < cols; ++j) wrong += sums[std::size_t(i) * cols + j] != float((i + 1) * (j + 1));
            CHECK(wrong == 0);
        }
        REQUIRE(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) == cudaSuccess);
        CHECK(threshold == (set == 0 ? std::uint64_t(256) << 20 : program_set));
    }
    CHECK(satlib_last_timeout() == 0);
    REQUIRE(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &before) == cudaSuccess);
}

// ---- box filters -------------------------------------------------------------------------------

namespace {

// satlib_box of every op against a CPU box filter of the same integer data (clipped windows).
// Sums and means are exact (integer sums, one IEEE division, one rounding to Out); variances
// within a relative tolerance. one_group: the batch's tables fit in one group, so each op is
// one SAT launch (sums and squares together; thin images: one per table) and one box launch;
// else the variance takes several groups.
template <class In, class Out>
void check_box(int batch, int rows, int cols, int radius, long long lo, long long hi, bool one_group = true) {
    const std::uint64_t seed = sat_test::fresh_seed();
    INFO("satlib_box " << sizeof(In) << "->" << sizeof(Out) << " bytes, " << batch << " x " << rows << "x" << cols
                       << " r " << radius << ", seed " << seed);
    const std::size_t in_pitch = std::size_t(cols) + 3, out_pitch = std::size_t(cols) + 1;
    const std::size_t in_stride = in_pitch * rows + 5, out_stride = out_pitch * rows + 7;
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<long long> dist(lo, hi);
    std::vector<In> host_in(in_stride * batch, In(0));
    for (In& v : host_in) v = In(dist(rng));
    DeviceArray<In> in(host_in.size());
    DeviceArray<Out> out(out_stride * batch);
    REQUIRE(cudaMemcpy(in.p, host_in.data(), host_in.size() * sizeof(In), cudaMemcpyHostToDevice) == cudaSuccess);
    const satlib_box_op ops[] = {SATLIB_BOX_SUM, SATLIB_BOX_MEAN, SATLIB_BOX_VARIANCE};
    const double tolerance = std::is_same<Out, float>::value ? 1e-5 : 1e-10;  // variance: relative, of q / n
    for (satlib_box_op op : ops) {
        INFO("op " << op);
        REQUIRE(cudaMemset(out.p, sat::poison_byte, out_stride * batch * sizeof(Out)) == cudaSuccess);
        const unsigned long long scans = satlib::testing::launch_log().scans;
        const unsigned long long boxes = satlib::testing::box_launches();
        const int status = sat::box(op, in.p, in_pitch, out.p, out_pitch, rows, cols, radius, 0,
                                    sat::Batch{batch, in_stride, out_stride, 0});
        INFO("status: " << satlib_error_string(status));
        REQUIRE(status == SATLIB_OK);
        const unsigned long long scan_launches = satlib::testing::launch_log().scans - scans;
        const unsigned long long box_launches = satlib::testing::box_launches() - boxes;
        INFO(scan_launches << " SAT launches, " << box_launches << " box launches");
        if (one_group) {
            const bool thin = sat::thin::applicable<float, float>(rows, cols);  // the same for every pair
            CHECK(scan_launches == (op == SATLIB_BOX_VARIANCE && thin ? 2u : 1u));
            CHECK(box_launches == 1u);
        } else if (op == SATLIB_BOX_VARIANCE) {
            CHECK(box_launches >= 2u);
        }
        std::vector<Out> got(out_stride * batch);
        REQUIRE(cudaMemcpy(got.data(), out.p, got.size() * sizeof(Out), cudaMemcpyDeviceToHost) == cudaSuccess);
        std::size_t wrong = 0;
        double worst = 0;
        for (int b = 0; b < batch; ++b)
            for (int i = 0; i < rows; ++i)
                for (int j = 0; j != cols; ++j) {
                    double s = 0, q = 0, n = 0;
                    for (int y = std::max(0, i - radius); y <= std::min(rows - 1, i + radius); ++y)
                        for (int x = std::max(0, j - radius); x <= std::min(cols - 1, j + radius); ++x) {
                            const double v = double(host_in[b * in_stride + y * in_pitch + x]);
                            s += v, q += v * v, n += 1;
                        }
                    const double mean = s / n;
                    const Out value = got[b * out_stride + i * out_pitch + j];
                    if (op != SATLIB_BOX_VARIANCE) {
                        wrong += !(value == Out(op == SATLIB_BOX_SUM ? s : mean));
                        continue;
                    }
                    const double err = std::fabs(double(value) - (q / n - mean * mean)) / std::max(1.0, q / n);
                    worst = std::max(worst, err);
                    if (!(err <= tolerance)) ++wrong;
                }
        INFO("worst relative error " << worst);
        CHECK(wrong == 0);
        // The gaps between rows and images keep their poison.
        std::size_t touched = 0;
        for (int b = 0; b < batch; ++b)
            for (int i = 0; i < rows; ++i)
                touched += !all_poison(&got[b * out_stride + i * out_pitch + cols], sizeof(Out));
        CHECK(touched == 0);
    }
}

}  // namespace

TEST_CASE("library box sum, mean and variance against a CPU box filter", "[gpu][library]") {
    SAT_REQUIRE_GPU();
    for (int radius : {0, 1, 7, 200}) {
        check_box<uint8_t, double>(2, 61, 97, radius, 0, 255);
        check_box<uint8_t, float>(1, 61, 97, radius, 0, 255);
        check_box<uint16_t, double>(2, 40, 1030, radius, 0, 65535);
        check_box<int32_t, double>(1, 53, 77, radius, -100, 100);
        check_box<float, float>(2, 33, 601, radius, -8, 8);
        check_box<double, double>(1, 100, 3, radius, -1000, 1000);
    }
}

TEST_CASE("library box filters of a batch: one SAT launch per table and one box launch", "[gpu][library][box]") {
    SAT_REQUIRE_GPU();
    // Odd shapes, a radius larger than the image, gaps between rows and images (check_box).
    for (int radius : {0, 1, 150}) {
        check_box<uint8_t, float>(5, 37, 101, radius, 0, 255);
        check_box<uint8_t, double>(3, 101, 37, radius, 0, 255);
        check_box<float, float>(5, 37, 101, radius, -8, 8);
        check_box<uint16_t, double>(4, 67, 131, radius, 0, 65535);
        check_box<int32_t, double>(7, 1, 1, radius, -100, 100);
        check_box<double, double>(6, 2, 97, radius, -1000, 1000);
    }
}

TEST_CASE("library box filters of a batch whose tables take several groups", "[gpu][library][box]") {
    SAT_REQUIRE_GPU();
    // u16 -> f64 tables: 72 MB a table, 144 MB an image with squares, so the variance of three
    // images goes beyond one group of tables (256 MiB); the sums and means still fit in one.
    // 12-bit values keep the squared table exact in f64 (its last element below 2^53; full
    // 16-bit values would reach 3.9e16 there, and the variance of a 3 x 3 box would carry the
    // rounding of the table's large entries).
    check_box<uint16_t, double>(3, 3000, 3001, 1, 0, 4095, false);
}

// ---- repeated calls: the per-device caches of satlib.cu (device_cache.h) ----------------------

namespace {

// Packed images of one pair, with or without the squared table.
struct RepeatCase {
    satlib_dtype in_type, out_type;
    int batch, rows, cols;
    bool squares;
};

// What a worker thread found, for the main thread to assert (Catch2's assertions are not
// thread-safe).
struct RepeatResult {
    int device = -1;
    std::uint64_t seed = 0;
    std::string error;      // the first failed call, empty if none
    std::size_t calls = 0;  // satlib_integral calls that returned SATLIB_OK
    std::size_t wrong = 0;  // output elements (sums or squares, every call) unlike the CPU SAT
};

// On `device`: every case `repeats` times, the calls alternating between two streams and
// between check_timeout 1 and 0, each into outputs of its own and all in flight before one
// synchronization; then every output against a 64-bit CPU SAT of its case.
RepeatResult run_repeated(int device, const std::vector<RepeatCase>& cases, int repeats, std::uint64_t seed) {
    RepeatResult r;
    r.device = device, r.seed = seed;
    cudaStream_t streams[2] = {nullptr, nullptr};
    try {
        SAT_CUDA(cudaSetDevice(device));
        for (cudaStream_t& s : streams) SAT_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        struct Live {
            std::vector<long long> values;
            std::unique_ptr<DeviceArray<unsigned char>> in;
            std::vector<std::unique_ptr<DeviceArray<unsigned char>>> out, sq;  // one per call
        };
        std::vector<Live> live(cases.size());
        std::mt19937_64 rng(seed);
        for (std::size_t k = 0; k < cases.size(); ++k) {
            const RepeatCase& c = cases[k];
            const std::size_t image = std::size_t(c.rows) * c.cols, n = image * c.batch;
            const std::size_t ib = dtype_bytes(c.in_type), ob = dtype_bytes(c.out_type);
            Live& l = live[k];
            std::uniform_int_distribution<long long> dist = exact_values(c.in_type, c.out_type, c.rows, c.cols);
            std::vector<unsigned char> host_in(n * ib);
            l.values.resize(n);
            for (std::size_t e = 0; e < n; ++e) store_value(c.in_type, host_in.data(), e, l.values[e] = dist(rng));
            l.in = std::make_unique<DeviceArray<unsigned char>>(n * ib);
            SAT_CUDA(cudaMemcpy(l.in->p, host_in.data(), n * ib, cudaMemcpyHostToDevice));
            for (int call = 0; call < repeats; ++call) {
                l.out.push_back(std::make_unique<DeviceArray<unsigned char>>(n * ob));
                l.sq.push_back(std::make_unique<DeviceArray<unsigned char>>(c.squares ? n * ob : 1));
                SAT_CUDA(cudaMemset(l.out.back()->p, sat::poison_byte, n * ob));
                if (c.squares) SAT_CUDA(cudaMemset(l.sq.back()->p, sat::poison_byte, n * ob));
            }
        }
        SAT_CUDA(cudaDeviceSynchronize());  // the poison (legacy stream) before the calls (non-blocking streams)
        for (int call = 0; call < repeats; ++call)
            for (std::size_t k = 0; k < cases.size(); ++k) {
                const RepeatCase& c = cases[k];
                const std::size_t image = std::size_t(c.rows) * c.cols;
                satlib_integral_args a{};
                a.in = live[k].in->p, a.in_type = c.in_type, a.in_pitch = c.cols, a.in_batch_stride = image;
                a.out = live[k].out[call]->p, a.out_type = c.out_type, a.out_pitch = c.cols, a.out_batch_stride = image;
                a.sq_out = c.squares ? live[k].sq[call]->p : nullptr, a.sq_pitch = c.cols, a.sq_batch_stride = image;
                a.batch = c.batch, a.rows = c.rows, a.cols = c.cols;
                const int status = satlib_integral(&a, streams[(call + k) % 2], (call + k) % 2 == 0 ? 1 : 0);
                if (status != SATLIB_OK) {
                    if (r.error.empty())
                        r.error = "case " + std::to_string(k) + " call " + std::to_string(call) + ": " +
                                  satlib_error_string(status);
                    continue;
                }
                ++r.calls;
            }
        SAT_CUDA(cudaDeviceSynchronize());
        for (std::size_t k = 0; k < cases.size(); ++k) {
            const RepeatCase& c = cases[k];
            const std::size_t image = std::size_t(c.rows) * c.cols, n = image * c.batch, ob = dtype_bytes(c.out_type);
            std::vector<unsigned char> got(n * ob);
            for (int call = 0; call < repeats; ++call)
                for (int table = 0; table < (c.squares ? 2 : 1); ++table) {
                    SAT_CUDA(cudaMemcpy(got.data(), (table == 0 ? live[k].out : live[k].sq)[call]->p, n * ob,
                                        cudaMemcpyDeviceToHost));
                    for (int b = 0; b < c.batch; ++b)
                        sat::for_each_exact_sum(
                            sat::Shape{c.rows, c.cols},
                            [&](int i, int j) {
                                const long long v = live[k].values[b * image + std::size_t(i) * c.cols + j];
                                return table == 0 ? v : v * v;
                            },
                            [&](int i, int j, long long sum) {
                                const std::size_t e = b * image + std::size_t(i) * c.cols + j;
                                if (c.out_type == SATLIB_I32) sum = (long long)uint32_t(sum);
                                r.wrong += !is_exact_value(c.out_type, got.data(), e) || load_sum(c.out_type, got.data(), e) != sum;
                            });
                }
        }
    } catch (const std::exception& e) {
        if (r.error.empty()) r.error = e.what();
    }
    for (cudaStream_t s : streams)
        if (s != nullptr) cudaStreamDestroy(s);
    return r;
}

// 2-D images in small tiles (one f32 1080p), in default tiles (a batch of 12), both tables in
// one launch, other pairs, thin images (the 1-D look-back) and 1x1.
const std::vector<RepeatCase> repeat_cases = {
    {SATLIB_F32, SATLIB_F32, 1, 1080, 1920, false}, {SATLIB_F32, SATLIB_F32, 1, 1080, 1920, true},
    {SATLIB_F32, SATLIB_F32, 12, 1080, 1920, false}, {SATLIB_U8, SATLIB_I32, 2, 1080, 1920, true},
    {SATLIB_F64, SATLIB_F64, 3, 97, 89, true},       {SATLIB_F32, SATLIB_F32, 3, 3, 50003, false},
    {SATLIB_U16, SATLIB_F64, 1, 70001, 1, false},    {SATLIB_I32, SATLIB_I32, 1, 1, 1, true},
};

void check_repeated(const RepeatResult& r, std::size_t expected_calls) {
    INFO("device " << r.device << ", seed " << r.seed << (r.error.empty() ? "" : ", error: " + r.error));
    CHECK(r.error.empty());
    CHECK(r.calls == expected_calls);
    CHECK(r.wrong == 0);
}

}  // namespace

TEST_CASE("library C ABI: repeated calls on two streams, every result exact", "[gpu][library]") {
    SAT_REQUIRE_GPU();
    int device = 0;
    REQUIRE(cudaGetDevice(&device) == cudaSuccess);
    const int repeats = 4;
    check_repeated(run_repeated(device, repeat_cases, repeats, sat_test::fresh_seed()), repeat_cases.size() * repeats);
    CHECK(satlib_last_timeout() == 0);
}

TEST_CASE("library C ABI: two host threads at once, on two devices where there are two", "[gpu][library]") {
    // Each thread keeps its own current device; the library's caches are per device and shared
    // between threads. With one GPU both threads call on it at once.
    SAT_REQUIRE_GPU();
    int count = 0, device = 0;
    REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
    REQUIRE(cudaGetDevice(&device) == cudaSuccess);
    if (count < 2) WARN("one CUDA device: both threads run on device " << device << "; the second-device part needs two");
    const int devices[2] = {device, count < 2 ? device : (device + 1) % count};
    const std::uint64_t seeds[2] = {sat_test::fresh_seed(), sat_test::fresh_seed()};
    const int repeats = 2;
    RepeatResult results[2];
    std::thread threads[2];
    for (int t = 0; t < 2; ++t)
        threads[t] = std::thread([&, t] { results[t] = run_repeated(devices[t], repeat_cases, repeats, seeds[t]); });
    for (std::thread& t : threads) t.join();
    for (const RepeatResult& r : results) check_repeated(r, repeat_cases.size() * repeats);
    REQUIRE(cudaSetDevice(device) == cudaSuccess);
    CHECK(satlib_last_timeout() == 0);
}

TEST_CASE("library: each kernel sizes its grid from its own resident blocks", "[gpu][library]") {
    // f32 1080p takes the small tiles (32 KB of shared memory, at least 4 blocks per SM by its
    // launch bounds); a batch of 12 takes the default ones (256 threads, 96 KB: 2 blocks per SM).
    // Both kernels share a signature; a cache keyed by it would give both the first one's count.
    SAT_REQUIRE_GPU();
    const int sms = current_device_attribute(cudaDevAttrMultiProcessorCount);
    const int batch = 12, rows = 1080, cols = 1920;
    const std::size_t image = std::size_t(rows) * cols;
    DeviceArray<float> in(image * batch), out(image * batch);
    REQUIRE(cudaMemset(in.p, 0, image * batch * 4) == cudaSuccess);
    auto resident_of = [&](int images) {
        satlib_integral_args a{};
        a.in = in.p, a.in_type = SATLIB_F32, a.in_pitch = cols, a.in_batch_stride = image;
        a.out = out.p, a.out_type = SATLIB_F32, a.out_pitch = cols, a.out_batch_stride = image;
        a.batch = images, a.rows = rows, a.cols = cols;
        REQUIRE(satlib_integral(&a, nullptr, 1) == SATLIB_OK);
        return satlib::testing::launch_log().last_resident;
    };
    const int small = resident_of(1), large = resident_of(batch);
    INFO(sms << " SMs: " << small << " blocks of the small tiles, " << large << " of the default ones");
    CHECK(small % sms == 0);
    CHECK(large % sms == 0);
    CHECK(small >= 4 * sms);
    CHECK(large <= 3 * sms);
    CHECK(resident_of(1) == small);  // in either order
    CHECK(resident_of(batch) == large);
}

TEST_CASE("library: two rounds of tiles are evened out where the second is at least half full, u8 never",
          "[gpu][library]") {
    // The default grid is every resident block, or half the tickets where they make two rounds of
    // which the second is at least half full and the input is wider than a byte (satlib.cu). On 132
    // SMs, in the 256-thread tiles of vector accesses: i32 4096^2 is 412 tiles of 40 x 1024 on
    // 2 x 132 blocks (a second round of 148 tiles): 206 blocks; 3960 x 4096 396 tiles (132, exactly
    // half a round): 198; 3920 x 4096 392 (128): 264; 3040 x 4096 304 (40): 264; u8 -> i32 4096^2
    // 456 tiles of 36 x 1024 on 3 x 132 (60): 396, and 6444 x 4096 716 (320): 396 too (u8 inputs
    // are never evened out). Every result is checked against the CPU (i32, not f32, whose sums of
    // these sizes would pass 2^24 and round).
    SAT_REQUIRE_GPU();
    const int sms = current_device_attribute(cudaDevAttrMultiProcessorCount);
    auto check_grid = [&](int tile_rows, unsigned expected_on_132_sms, bool evens_out_two_rounds = true) {
        const satlib::testing::LaunchLog log = satlib::testing::launch_log();
        const unsigned long long tickets = log.last_tiles, resident = unsigned(log.last_resident);
        INFO(tickets << " tiles, " << resident << " resident blocks, a grid of " << log.last_grid << " on " << sms
                     << " SMs");
        CHECK(log.last_threads == 256);
        CHECK(log.last_vector == true);
        CHECK(log.last_tile_rows == tile_rows);
        REQUIRE(resident > 0);
        const bool even_out = evens_out_two_rounds && tickets > resident && tickets <= 2 * resident &&
                              2 * (tickets - resident) >= resident;
        CHECK(log.last_grid == (even_out ? (tickets + 1) / 2 : std::min(tickets, resident)));
        if (sms == 132) CHECK(log.last_grid == expected_on_132_sms);
    };
    const std::pair<int, unsigned> i32_cases[] = {{4096, 206}, {3960, 198}, {3920, 264}, {3040, 264}};
    for (const auto& [rows, grid] : i32_cases) {
        check_library<int32_t, int32_t>(LibraryCase{rows, 4096, 4096, 4096, 0, 0});
        check_grid(40, grid);
    }
    check_library<uint8_t, int32_t>(LibraryCase{4096, 4096, 4096, 4096, 0, 0});
    check_grid(36, 396, false);  // u8 inputs are never evened out
    check_library<uint8_t, int32_t>(LibraryCase{6444, 4096, 4096, 4096, 0, 0});
    check_grid(36, 396, false);
}

TEST_CASE("library: a launch overlaps the clearing of its flags on sm_90 and later", "[gpu][library]") {
    // Code built for sm_90 or later (the Makefile's ARCH; by default the GPU present): a 2-D
    // launch starts while clear_flags runs, and waits for it before its first ticket
    // (common/lookback.cuh). Code built for an older architecture does not wait, so it must not
    // overlap, even on a Hopper GPU (ARCH=sm_80 run there from its PTX).
    SAT_REQUIRE_GPU();
    const int rows = 1080, cols = 1920;
    const std::size_t n = std::size_t(rows) * cols;
    DeviceArray<float> in(n), out(n);
    REQUIRE(cudaMemset(in.p, 0, n * 4) == cudaSuccess);
    const int device_cc = 10 * current_device_attribute(cudaDevAttrComputeCapabilityMajor) +
                          current_device_attribute(cudaDevAttrComputeCapabilityMinor);
    // The last launch overlapped iff a clear_flags ran just before it and its code waits for it
    // (its PTX version, asked by every launch that clears its flags).
    auto check_overlap = [&](bool cleared_before) {
        const satlib::testing::LaunchLog log = satlib::testing::launch_log();
        INFO("the kernel's PTX version " << log.last_ptx_version << ", the device's compute capability " << device_cc);
        if (!cleared_before) {
            CHECK_FALSE(log.last_overlapped);
            return;
        }
        CHECK(log.last_ptx_version > 0);
        CHECK(log.last_ptx_version <= device_cc);
        CHECK(log.last_overlapped == (log.last_ptx_version >= 90));
    };
    sat::ScanOptions opt;  // the library's own scratch: cleared in the call
    REQUIRE(sat::inclusive_scan_2d(in.p, cols, out.p, cols, rows, cols, 0, opt) == cudaSuccess);
    check_overlap(true);
    const sat::ScanScratchSize need = sat::inclusive_scan_2d_scratch<float, float>(rows, cols);
    DeviceArray<unsigned char> state(need.state_bytes), values(need.value_bytes);
    opt.state = state.p, opt.values = values.p;  // the caller's, not zero: cleared in the call
    REQUIRE(sat::inclusive_scan_2d(in.p, cols, out.p, cols, rows, cols, 0, opt) == cudaSuccess);
    check_overlap(true);
    REQUIRE(cudaMemset(state.p, 0, need.state_bytes) == cudaSuccess);
    opt.state_is_zero = true;  // the caller's, zero: nothing to clear, an ordinary launch
    REQUIRE(sat::inclusive_scan_2d(in.p, cols, out.p, cols, rows, cols, 0, opt) == cudaSuccess);
    check_overlap(false);
    for (satlib_layout layout : {SATLIB_LAYOUT_SAME, SATLIB_LAYOUT_NPP}) {  // the C ABI clears its own
        DeviceArray<float> table(std::size_t(rows + 1) * (cols + 1));
        satlib_integral_args a{};
        a.in = in.p, a.in_type = SATLIB_F32, a.in_pitch = cols;
        a.out = table.p, a.out_type = SATLIB_F32, a.out_pitch = cols + 1;
        a.batch = 1, a.rows = rows, a.cols = cols, a.layout = layout;
        REQUIRE(satlib_integral(&a, nullptr, 1) == SATLIB_OK);
        check_overlap(true);
    }
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
}

namespace {

// A non-blocking stream of the test's own, destroyed with it.
struct TestStream {
    cudaStream_t s = nullptr;
    TestStream() { REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess); }
    ~TestStream() {
        if (s != nullptr) cudaStreamDestroy(s);
    }
    TestStream(const TestStream&) = delete;
    TestStream& operator=(const TestStream&) = delete;
};

// A capture of `stream` into a CUDA graph in global mode (torch.cuda.graph's default). It is
// ended when it goes, also when a REQUIRE fails, so that no later test runs captured; the graph
// and its executable go with it.
struct Capture {
    cudaStream_t stream;
    bool open = false;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    explicit Capture(cudaStream_t s) : stream(s) {
        REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
        open = true;
    }
    // Ends the capture and instantiates its graph: "" or what failed (its error taken out of the
    // last error, so that later tests do not see it).
    std::string end() {
        open = false;
        cudaError_t err = cudaStreamEndCapture(stream, &graph);
        const char* step = "cudaStreamEndCapture: ";
        if (err == cudaSuccess) err = cudaGraphInstantiate(&exec, graph, 0), step = "cudaGraphInstantiate: ";
        if (err == cudaSuccess) return "";
        cudaGetLastError();
        return step + std::string(cudaGetErrorName(err));
    }
    ~Capture() {
        if (open) {  // a REQUIRE failed inside the capture: end it, and drop its error
            cudaStreamEndCapture(stream, &graph);
            cudaGetLastError();
        }
        if (exec != nullptr) cudaGraphExecDestroy(exec);
        if (graph != nullptr) cudaGraphDestroy(graph);
    }
    Capture(const Capture&) = delete;
    Capture& operator=(const Capture&) = delete;
};

// The count elements at a device pointer, on the host.
std::vector<float> to_host(const float* p, std::size_t count) {
    std::vector<float> h(count);
    REQUIRE(cudaMemcpy(h.data(), p, count * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    return h;
}

// Elements of `got` (a table of rows x cols at `first`, rows `pitch` apart) that differ from the
// exact SAT of value(i, j).
template <class Value>
std::size_t wrong_sums(const std::vector<float>& got, std::size_t first, std::size_t pitch, int rows, int cols,
                       Value value) {
    std::size_t wrong = 0;
    sat::for_each_exact_sum(sat::Shape{rows, cols}, value, [&](int i, int j, long long sum) {
        wrong += !sat::equals_exact_sum(got[first + std::size_t(i) * pitch + j], sum);
    });
    return wrong;
}

// Elements of `got` (rows x cols, dense) that differ from the box sums of radius r (windows
// clipped at the border) of value(i, j), from its exact SAT.
template <class Value>
std::size_t wrong_box_sums(const std::vector<float>& got, int rows, int cols, int radius, Value value) {
    std::vector<long long> sums(std::size_t(rows) * cols);
    sat::for_each_exact_sum(sat::Shape{rows, cols}, value,
                            [&](int i, int j, long long sum) { sums[std::size_t(i) * cols + j] = sum; });
    auto S = [&](int i, int j) { return i < 0 || j < 0 ? 0LL : sums[std::size_t(i) * cols + j]; };
    std::size_t wrong = 0;
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            const int top = std::max(-1, i - radius - 1), bottom = std::min(rows - 1, i + radius);
            const int left = std::max(-1, j - radius - 1), right = std::min(cols - 1, j + radius);
            const long long box = S(bottom, right) - S(top, right) - S(bottom, left) + S(top, left);
            wrong += got[std::size_t(i) * cols + j] != float(box);
        }
    return wrong;
}

}  // namespace

TEST_CASE("library: calls captured in a CUDA graph clear their flags again at every replay", "[gpu][library]") {
    // A captured call holds clear_flags and the look-back launch that overlaps it (a programmatic
    // edge), and its scratch's allocation and free. Every replay must clear the flags the one
    // before left set and read that replay's input. One call before the capture: the first call
    // on a device sets up its caches and memory pool, which a capture does not allow.
    SAT_REQUIRE_GPU();
    const std::uint64_t seed = sat_test::fresh_seed();
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    // several tiles; thin: 5 rows, the chunks (3 would take the element lanes, which tests/python's
    // test_cuda_graph captures)
    const int rows = 1000, cols = 1917, images = 3, thin_rows = 5, radius = 2;
    const std::size_t image = std::size_t(rows) * cols, n = images * image;
    const std::size_t npp_pitch = std::size_t(cols) + 1, npp_size = npp_pitch * (rows + 1);
    DeviceArray<float> in(n), own_out(image), caller_out(image), thin_out(std::size_t(thin_rows) * cols),
        line_out(cols), batch_out(n), npp_out(npp_size), npp_sq(npp_size), box_out(image);
    const sat::ScanScratchSize need = sat::inclusive_scan_2d_scratch<float, float>(rows, cols);
    DeviceArray<unsigned char> state(need.state_bytes), values(need.value_bytes);
    sat::ScanOptions own, caller;
    caller.state = state.p, caller.values = values.p;
    satlib_integral_args batch{};  // the C ABI: a batch of 3 images
    batch.in = in.p, batch.in_type = SATLIB_F32, batch.in_pitch = cols, batch.in_batch_stride = image;
    batch.out = batch_out.p, batch.out_type = SATLIB_F32, batch.out_pitch = cols, batch.out_batch_stride = image;
    batch.batch = images, batch.rows = rows, batch.cols = cols;
    satlib_integral_args npp{};  // the C ABI: image 0, sums and squares in the NPP layout
    npp.in = in.p, npp.in_type = SATLIB_F32, npp.in_pitch = cols;
    npp.out = npp_out.p, npp.out_type = SATLIB_F32, npp.out_pitch = npp_pitch;
    npp.sq_out = npp_sq.p, npp.sq_pitch = npp_pitch;
    npp.batch = 1, npp.rows = rows, npp.cols = cols, npp.layout = SATLIB_LAYOUT_NPP;
    TestStream stream;
    auto calls = [&] {  // 2-D (own and caller scratch), thin, one line (CUB), the C ABI, a box filter
        REQUIRE(sat::inclusive_scan_2d(in.p, cols, own_out.p, cols, rows, cols, stream.s, own) == cudaSuccess);
        REQUIRE(sat::inclusive_scan_2d(in.p, cols, caller_out.p, cols, rows, cols, stream.s, caller) == cudaSuccess);
        REQUIRE(sat::inclusive_scan_2d(in.p, cols, thin_out.p, cols, thin_rows, cols, stream.s, own) == cudaSuccess);
        REQUIRE(sat::inclusive_scan_2d(in.p, cols, line_out.p, cols, 1, cols, stream.s, own) == cudaSuccess);
        REQUIRE(satlib_integral(&batch, stream.s, 0) == SATLIB_OK);  // 0: no wait, as a capture needs
        REQUIRE(satlib_integral(&npp, stream.s, 0) == SATLIB_OK);
        REQUIRE(satlib_box(in.p, SATLIB_F32, cols, 0, box_out.p, SATLIB_F32, cols, 0, 1, rows, cols, radius,
                           SATLIB_BOX_SUM, stream.s) == SATLIB_OK);
    };
    calls();
    REQUIRE(cudaStreamSynchronize(stream.s) == cudaSuccess);
    Capture capture(stream.s);
    // A capture cannot wait: the C ABI's timeout check is refused before any work, and the
    // capture goes on.
    REQUIRE(satlib_integral(&batch, stream.s, 1) == SATLIB_ERR_CUDA);
    CHECK(std::string(satlib_error_string(SATLIB_ERR_CUDA)).find("cudaErrorStreamCaptureUnsupported") != std::string::npos);
    calls();
    REQUIRE(capture.end() == "");

    std::uniform_int_distribution<int> dist(0, 3);  // f32 sums (and sums of squares) stay exact
    std::vector<float> host_in(n);
    for (int replay = 0; replay < 2; ++replay) {
        INFO("replay " << replay);
        for (float& v : host_in) v = float(dist(rng));
        REQUIRE(cudaMemcpy(in.p, host_in.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
        for (auto [out, count] : {std::pair<float*, std::size_t>{own_out.p, image}, {caller_out.p, image},
                                  {thin_out.p, std::size_t(thin_rows) * cols}, {line_out.p, std::size_t(cols)},
                                  {batch_out.p, n}, {npp_out.p, npp_size}, {npp_sq.p, npp_size}, {box_out.p, image}})
            REQUIRE(cudaMemset(out, sat::poison_byte, count * sizeof(float)) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);  // the poison (legacy stream) before the graph
        REQUIRE(cudaGraphLaunch(capture.exec, stream.s) == cudaSuccess);
        REQUIRE(cudaStreamSynchronize(stream.s) == cudaSuccess);
        auto value = [&](int b) {
            return [&, b](int i, int j) { return (long long)host_in[b * image + std::size_t(i) * cols + j]; };
        };
        auto square = [&](int i, int j) { return value(0)(i, j) * value(0)(i, j); };
        CHECK(wrong_sums(to_host(own_out.p, image), 0, cols, rows, cols, value(0)) == 0);  // the library's scratch
        CHECK(wrong_sums(to_host(caller_out.p, image), 0, cols, rows, cols, value(0)) == 0);  // the caller's
        CHECK(wrong_sums(to_host(thin_out.p, std::size_t(thin_rows) * cols), 0, cols, thin_rows, cols, value(0)) == 0);
        CHECK(wrong_sums(to_host(line_out.p, cols), 0, cols, 1, cols, value(0)) == 0);
        const std::vector<float> got_batch = to_host(batch_out.p, n);
        for (int b = 0; b < images; ++b) CHECK(wrong_sums(got_batch, b * image, cols, rows, cols, value(b)) == 0);
        for (const float* table : {npp_out.p, npp_sq.p}) {  // a zero first row and column, then the table
            const std::vector<float> got = to_host(table, npp_size);
            std::size_t border = 0;
            for (std::size_t k = 0; k <= std::size_t(cols); ++k) border += got[k] != 0.0f;
            for (int i = 1; i <= rows; ++i) border += got[i * npp_pitch] != 0.0f;
            CHECK(border == 0);
            const std::size_t wrong = table == npp_out.p ? wrong_sums(got, npp_pitch + 1, npp_pitch, rows, cols, value(0))
                                                         : wrong_sums(got, npp_pitch + 1, npp_pitch, rows, cols, square);
            CHECK(wrong == 0);
        }
        CHECK(wrong_box_sums(to_host(box_out.p, image), rows, cols, radius, value(0)) == 0);
    }
    CHECK(satlib_last_timeout() == 0);
}

TEST_CASE("library: calls on a stream that is not captured leave another stream's capture intact", "[gpu][library]") {
    // A capture in global mode (torch.cuda.graph's default) forbids every thread some calls the
    // library makes outside a capture: stream-ordered allocations and frees, the memory pool's
    // attribute calls, the wait of the C ABI's timeout check. On another stream the library's
    // calls must run, and leave the capture and this thread's capture mode as they were. The
    // pool's release threshold is 0 during the capture, so that the calls raise it there.
    SAT_REQUIRE_GPU();
    const std::uint64_t seed = sat_test::fresh_seed();
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> dist(0, 3);
    const int rows = 1000, cols = 1917, thin_rows = 5, radius = 2;  // thin: 5 rows, the chunks
    const std::size_t image = std::size_t(rows) * cols;
    std::vector<float> host_in(image);
    for (float& v : host_in) v = float(dist(rng));
    DeviceArray<float> in(image), out(image), abi_out(image), thin_out(std::size_t(thin_rows) * cols), line_out(cols),
        box_out(image);
    DeviceArray<unsigned> marker(1);
    REQUIRE(cudaMemcpy(in.p, host_in.data(), image * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    satlib_integral_args a{};
    a.in = in.p, a.in_type = SATLIB_F32, a.in_pitch = cols;
    a.out = abi_out.p, a.out_type = SATLIB_F32, a.out_pitch = cols;
    a.batch = 1, a.rows = rows, a.cols = cols;
    TestStream captured, other;
    auto thin_call = [&] {
        return sat::inclusive_scan_2d(in.p, cols, thin_out.p, cols, thin_rows, cols, other.s, sat::ScanOptions{});
    };
    auto calls = [&] {  // on `other`: 2-D, thin, one line (CUB), the C ABI with its wait, a box filter
        const sat::ScanOptions own;
        REQUIRE(sat::inclusive_scan_2d(in.p, cols, out.p, cols, rows, cols, other.s, own) == cudaSuccess);
        REQUIRE(thin_call() == cudaSuccess);
        REQUIRE(sat::inclusive_scan_2d(in.p, cols, line_out.p, cols, 1, cols, other.s, own) == cudaSuccess);
        const int status = satlib_integral(&a, other.s, 1);  // waits on `other`
        INFO("status: " << satlib_error_string(status));
        REQUIRE(status == SATLIB_OK);
        REQUIRE(satlib_box(in.p, SATLIB_F32, cols, 0, box_out.p, SATLIB_F32, cols, 0, 1, rows, cols, radius,
                           SATLIB_BOX_SUM, other.s) == SATLIB_OK);
        REQUIRE(satlib_wait(other.s) == SATLIB_OK);  // waits on `other` (Python's wait=True for a box)
    };
    calls();  // first calls, outside any capture
    REQUIRE(cudaStreamSynchronize(other.s) == cudaSuccess);
    for (auto [p, count] : {std::pair<float*, std::size_t>{out.p, image}, {abi_out.p, image},
                            {thin_out.p, std::size_t(thin_rows) * cols}, {line_out.p, std::size_t(cols)},
                            {box_out.p, image}})
        REQUIRE(cudaMemset(p, sat::poison_byte, count * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMemset(marker.p, 0, sizeof(unsigned)) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);  // the poison (legacy stream) before the calls on `other`
    // The pool's release threshold set to 0 here (the calls in the capture raise it), and put back
    // as it was when the test ends.
    struct ZeroThreshold {
        cudaMemPool_t pool = nullptr;
        std::uint64_t kept = 0;
        ~ZeroThreshold() {
            if (pool != nullptr) cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &kept);
        }
    } zero_threshold;
    const bool pools = current_device_attribute(cudaDevAttrMemoryPoolsSupported) != 0;
    if (pools) {
        int device = 0;
        std::uint64_t zero = 0;
        cudaMemPool_t pool = nullptr;
        REQUIRE(cudaGetDevice(&device) == cudaSuccess);
        REQUIRE(cudaDeviceGetMemPool(&pool, device) == cudaSuccess);
        REQUIRE(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &zero_threshold.kept) == cudaSuccess);
        zero_threshold.pool = pool;
        // A thin call alone raises it too (its own scratch comes from scratch_alloc); then 0 again,
        // and its output poisoned again.
        REQUIRE(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &zero) == cudaSuccess);
        REQUIRE(thin_call() == cudaSuccess);
        std::uint64_t raised = 0;
        REQUIRE(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &raised) == cudaSuccess);
        CHECK(raised == (std::uint64_t(256) << 20));
        REQUIRE(cudaStreamSynchronize(other.s) == cudaSuccess);
        REQUIRE(cudaMemset(thin_out.p, sat::poison_byte, std::size_t(thin_rows) * cols * sizeof(float)) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        REQUIRE(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &zero) == cudaSuccess);
    }
    {
        Capture capture(captured.s);
        REQUIRE(cudaMemsetAsync(marker.p, 0x5a, sizeof(unsigned), captured.s) == cudaSuccess);  // the captured work
        calls();
        // On the captured stream itself the wait is refused, the capture intact.
        CHECK(satlib_wait(captured.s) == SATLIB_ERR_CUDA);
        CHECK(std::string(satlib_error_string(SATLIB_ERR_CUDA)).find("cudaErrorStreamCaptureUnsupported") !=
              std::string::npos);
        cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;  // the thread's mode: still the default
        REQUIRE(cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess);
        CHECK(mode == cudaStreamCaptureModeGlobal);
        REQUIRE(capture.end() == "");
        REQUIRE(cudaGraphLaunch(capture.exec, captured.s) == cudaSuccess);
        REQUIRE(cudaStreamSynchronize(captured.s) == cudaSuccess);
    }
    if (pools) {  // raised by the calls during the capture
        std::uint64_t raised = 0;
        REQUIRE(cudaMemPoolGetAttribute(zero_threshold.pool, cudaMemPoolAttrReleaseThreshold, &raised) == cudaSuccess);
        CHECK(raised == (std::uint64_t(256) << 20));
    }
    REQUIRE(cudaStreamSynchronize(other.s) == cudaSuccess);
    unsigned mark = 0;
    REQUIRE(cudaMemcpy(&mark, marker.p, sizeof mark, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(mark == 0x5a5a5a5au);
    auto value = [&](int i, int j) { return (long long)host_in[std::size_t(i) * cols + j]; };
    CHECK(wrong_sums(to_host(out.p, image), 0, cols, rows, cols, value) == 0);
    CHECK(wrong_sums(to_host(abi_out.p, image), 0, cols, rows, cols, value) == 0);
    CHECK(wrong_sums(to_host(thin_out.p, std::size_t(thin_rows) * cols), 0, cols, thin_rows, cols, value) == 0);
    CHECK(wrong_sums(to_host(line_out.p, cols), 0, cols, 1, cols, value) == 0);
    CHECK(wrong_box_sums(to_host(box_out.p, image), rows, cols, radius, value) == 0);
    CHECK(satlib_last_timeout() == 0);
}

// Run by the test below in a process of its own: a cudaDeviceReset ends the context every other
// test in this process works in.
TEST_CASE("library child process: calls before and after a cudaDeviceReset", "[.][library-child]") {
    SAT_REQUIRE_GPU();
    for (int round = 0; round < 2; ++round) {
        INFO((round == 0 ? "before the reset" : "after the reset"));
        // The dynamic shared memory limits the library set went with the context: kernels that
        // need more than 48 KB (f32 tiles of 256 threads: 96 KB; thin f32 chunks: 64 KB) must still run.
        check_abi({SATLIB_F32, SATLIB_F32, 12, 1080, 1920, 0, 0, 0, 0, false});
        check_abi({SATLIB_F32, SATLIB_F32, 2, 1, 70001, 0, 0, 0, 0, false});
        check_abi({SATLIB_F32, SATLIB_F32, 12, 1080, 1920, 0, 0, 0, 0, true});
        check_abi({SATLIB_U8, SATLIB_I32, 1, 97, 89, 0, 0, 0, 0, true});
        if (round == 0) REQUIRE(cudaDeviceReset() == cudaSuccess);
    }
    // The new context's pool had its release threshold raised again.
    int device = 0;
    REQUIRE(cudaGetDevice(&device) == cudaSuccess);
    if (current_device_attribute(cudaDevAttrMemoryPoolsSupported) != 0) {
        cudaMemPool_t pool = nullptr;
        std::uint64_t threshold = 0;
        REQUIRE(cudaDeviceGetMemPool(&pool, device) == cudaSuccess);
        REQUIRE(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) == cudaSuccess);
        CHECK(threshold == (std::uint64_t(256) << 20));
    }
    CHECK(satlib_last_timeout() == 0);
}

TEST_CASE("library C ABI: calls before and after a cudaDeviceReset, in a child process", "[gpu][library]") {
    SAT_REQUIRE_GPU();
    char self[4096];
    const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    REQUIRE(length > 0);
    self[length] = '\0';
    const std::string output = sat_test::require_command(
        "SAT_TEST_SEED=" + std::to_string(sat_test::base_seed()) + " '" + std::string(self) +
        "' 'library child process: calls before and after a cudaDeviceReset'");
    INFO(output);
    CHECK(output.find("1 passed, 0 failed, 0 skipped") != std::string::npos);
}

// ---- a spin timeout --------------------------------------------------------------------------

TEST_CASE("library spin timeout: a tile whose predecessor never runs sets the status", "[gpu][library]") {
    SAT_REQUIRE_GPU();
    // Scratch whose ticket starts at 1: tile 0 is never handed out, so tile 1 (to its right)
    // waits for it until the 2 s bound and gives up; every other tile leaves or gives up too.
    // f32, 1024 columns: 64 rows take the thin kernel's chunks; 96 rows the short tiles of
    // 17 x 512, 2 x 6 of them, which add up the aggregates of the tiles left and above; 4902 rows,
    // 129 tall tile rows (38 x 512), past their bound: 2 x 145 small tiles, which look back.
    for (const int rows : {64, 96, 129 * tall_small_tile_rows}) {
        INFO(rows << " rows");
        const int cols = 1024;
        const sat::ScanScratchSize need = sat::inclusive_scan_2d_scratch<float, float>(rows, cols);
        DeviceArray<unsigned char> state(need.state_bytes), values(need.value_bytes);
        DeviceArray<float> in(std::size_t(rows) * cols), out(std::size_t(rows) * cols);
        DeviceArray<int> status(1);
        REQUIRE(cudaMemset(state.p, 0, need.state_bytes) == cudaSuccess);
        const unsigned first_ticket = 1;
        REQUIRE(cudaMemcpy(state.p, &first_ticket, sizeof first_ticket, cudaMemcpyHostToDevice) == cudaSuccess);
        REQUIRE(cudaMemset(in.p, 0, std::size_t(rows) * cols * 4) == cudaSuccess);
        REQUIRE(cudaMemset(status.p, 0, sizeof(int)) == cudaSuccess);
        sat::ScanOptions opt;
        opt.state = state.p;
        opt.state_is_zero = true;
        opt.values = values.p;
        opt.status = status.p;
        REQUIRE(sat::inclusive_scan_2d(in.p, cols, out.p, cols, rows, cols, 0, opt) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        CHECK((satlib::testing::launch_log().last_thin_path == satlib::testing::ThinPath::chunks) == (rows == 64));
        CHECK(satlib::testing::launch_log().last_aggregates_only == (rows == 96));
        int word = 0;
        REQUIRE(cudaMemcpy(&word, status.p, sizeof word, cudaMemcpyDeviceToHost) == cudaSuccess);
        CHECK(word == sat::status_spin_timeout);
        // The library's own word saw nothing: the timeout went to the caller's status.
        CHECK(satlib_last_timeout() == 0);
        // Again with no status of the caller's, on a stream: the library's word takes the timeout, and
        // satlib_wait of that stream reports it once.
        TestStream stream;
        REQUIRE(cudaMemset(state.p, 0, need.state_bytes) == cudaSuccess);
        REQUIRE(cudaMemcpy(state.p, &first_ticket, sizeof first_ticket, cudaMemcpyHostToDevice) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);  // the legacy stream's work before `stream`'s call
        opt.status = nullptr;
        REQUIRE(sat::inclusive_scan_2d(in.p, cols, out.p, cols, rows, cols, stream.s, opt) == cudaSuccess);
        CHECK(satlib_wait(stream.s) == SATLIB_ERR_TIMEOUT);
        CHECK(satlib_wait(stream.s) == SATLIB_OK);
        CHECK(satlib_last_timeout() == 0);
    }
}

// ---- the C ABI without a GPU: argument checks and the no-device status ---------------------------

TEST_CASE("library C ABI: bad arguments are refused before any CUDA call", "[cpu][library]") {
    // Fake, aligned device addresses: nothing is dereferenced when an argument is refused.
    void* in = reinterpret_cast<void*>(std::uintptr_t(1) << 20);
    void* out = reinterpret_cast<void*>(std::uintptr_t(1) << 24);
    void* sq = reinterpret_cast<void*>(std::uintptr_t(1) << 28);
    satlib_integral_args good{};
    good.in = in, good.in_type = SATLIB_F32, good.in_pitch = 100, good.in_batch_stride = 100 * 50;
    good.out = out, good.out_type = SATLIB_F32, good.out_pitch = 100, good.out_batch_stride = 100 * 50;
    good.batch = 2, good.rows = 50, good.cols = 100;
    auto call = [](satlib_integral_args a) { return satlib_integral(&a, nullptr, 1); };

    CHECK(satlib_integral(nullptr, nullptr, 1) == SATLIB_ERR_ARGUMENT);
    satlib_integral_args a = good;
    a.in = nullptr;
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);
    a = good, a.out = nullptr;
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);
    // Type pairs outside the seven.
    const satlib_dtype bad_pairs[][2] = {{SATLIB_F64, SATLIB_F32}, {SATLIB_U8, SATLIB_U8},  {SATLIB_U16, SATLIB_I32},
                                         {SATLIB_I32, SATLIB_F64}, {SATLIB_U8, SATLIB_F64}, {SATLIB_F32, SATLIB_I32}};
    for (const auto& p : bad_pairs) {
        a = good, a.in_type = p[0], a.out_type = p[1];
        CHECK(call(a) == SATLIB_ERR_TYPE);
    }
    a = good, a.in_type = static_cast<satlib_dtype>(9);
    CHECK(call(a) == SATLIB_ERR_TYPE);
    // Shapes, pitches, strides, layout, alignment, overlaps.
    a = good, a.rows = 0;
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);
    a = good, a.cols = -1;
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);
    a = good, a.batch = 0;
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);
    a = good, a.in_pitch = 99;
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);
    a = good, a.out_pitch = 99;
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);
    a = good, a.layout = SATLIB_LAYOUT_NPP;  // the output needs 101 columns now
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);
    a = good, a.layout = static_cast<satlib_layout>(7);
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);
    a = good, a.out_batch_stride = 100 * 49;  // images of the batch overlap in the output
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);
    a = good, a.sq_out = sq, a.sq_pitch = 99;
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);
    a = good, a.sq_out = sq, a.sq_pitch = 100, a.sq_batch_stride = 10;
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);
    a = good, a.sq_out = static_cast<char*>(in) + 400, a.sq_pitch = 100, a.sq_batch_stride = 100 * 50;
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);  // squares over the input
    a = good, a.out = static_cast<char*>(out) + 2;
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);  // misaligned f32
    a = good, a.rows = 2147483647, a.layout = SATLIB_LAYOUT_NPP, a.out_pitch = 101;
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);  // rows + 1 overflows
    // Sums over the input: only exactly in place (same element size, pitch, batch stride, layout).
    a = good, a.out = static_cast<char*>(in) + 400;
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);
    a = good, a.out = in, a.out_batch_stride = 100 * 51;
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);
    a = good, a.out = in, a.out_pitch = 101, a.out_batch_stride = 101 * 50;
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);
    a = good, a.out = in, a.out_type = SATLIB_F64, a.in_type = SATLIB_F32;
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);
    a = good, a.out = in, a.out_pitch = 101, a.out_batch_stride = 101 * 51, a.layout = SATLIB_LAYOUT_NPP;
    CHECK(call(a) == SATLIB_ERR_ARGUMENT);

    // Box filters.
    auto box = [&](const void* i, satlib_dtype it, void* o, satlib_dtype ot, int batch, int rows, int cols, int r,
                   int op, std::size_t in_pitch = 100, std::size_t out_pitch = 100) {
        return satlib_box(i, it, in_pitch, 100 * 50, o, ot, out_pitch, 100 * 50, batch, rows, cols, r,
                          static_cast<satlib_box_op>(op), nullptr);
    };
    CHECK(box(nullptr, SATLIB_U8, out, SATLIB_F32, 1, 50, 100, 1, 0) == SATLIB_ERR_ARGUMENT);
    CHECK(box(in, SATLIB_U8, nullptr, SATLIB_F32, 1, 50, 100, 1, 0) == SATLIB_ERR_ARGUMENT);
    CHECK(box(in, SATLIB_U8, out, SATLIB_I32, 1, 50, 100, 1, 0) == SATLIB_ERR_TYPE);
    CHECK(box(in, static_cast<satlib_dtype>(5), out, SATLIB_F32, 1, 50, 100, 1, 0) == SATLIB_ERR_TYPE);
    CHECK(box(in, SATLIB_U8, out, SATLIB_F32, 1, 50, 100, -1, 0) == SATLIB_ERR_ARGUMENT);
    CHECK(box(in, SATLIB_U8, out, SATLIB_F32, 1, 50, 100, 1, 3) == SATLIB_ERR_ARGUMENT);
    CHECK(box(in, SATLIB_U8, out, SATLIB_F32, 0, 50, 100, 1, 0) == SATLIB_ERR_ARGUMENT);
    CHECK(box(in, SATLIB_U8, out, SATLIB_F32, 1, 0, 100, 1, 0) == SATLIB_ERR_ARGUMENT);
    CHECK(box(in, SATLIB_U8, out, SATLIB_F32, 1, 50, 100, 1, 0, 99) == SATLIB_ERR_ARGUMENT);
    CHECK(box(in, SATLIB_U8, out, SATLIB_F32, 1, 50, 100, 1, 0, 100, 99) == SATLIB_ERR_ARGUMENT);
    CHECK(box(in, SATLIB_U8, in, SATLIB_F32, 1, 50, 100, 1, 0) == SATLIB_ERR_ARGUMENT);  // in place
    CHECK(box(in, SATLIB_U8, static_cast<char*>(out) + 4, SATLIB_F64, 1, 50, 100, 1, 0) == SATLIB_ERR_ARGUMENT);

    // Every status has a line; the version is set.
    for (int s = SATLIB_OK; s <= SATLIB_ERR_CUDA + 1; ++s) CHECK(std::strlen(satlib_error_string(s)) > 10);
    CHECK(std::strlen(satlib_version()) > 0);
}

// One version: mk/lib.mk's LIB_VERSION (passed to the build, written into satlib.pc and the CMake
// package), the fallback in satlib.cu for builds outside make, and what this build reports.
TEST_CASE("library: satlib_version() is mk/lib.mk's version, and so is satlib.cu's fallback", "[cpu][library]") {
    const std::string make_version = sat_test::require_command("sed -n 's/^LIB_VERSION *:= *//p' mk/lib.mk");
    const std::string fallback =
        sat_test::require_command("sed -n 's/^#define SATLIB_VERSION \"\\(.*\\)\"$/\\1/p' lib/src/satlib.cu");
    REQUIRE(make_version.size() > 1);
    CHECK(make_version == std::string(satlib_version()) + "\n");
    CHECK(fallback == make_version);
}

TEST_CASE("library C ABI without a GPU: valid calls say there is no device", "[cpu][library]") {
    if (sat_test::gpu_present()) {
        // With a GPU the same valid calls run for real (the [gpu][library] tests).
        satlib_integral_args a{};
        DeviceArray<float> in(64), out(64);
        REQUIRE(cudaMemset(in.p, 0, 64 * 4) == cudaSuccess);
        a.in = in.p, a.in_type = SATLIB_F32, a.in_pitch = 8;
        a.out = out.p, a.out_type = SATLIB_F32, a.out_pitch = 8;
        a.batch = 1, a.rows = 8, a.cols = 8;
        CHECK(satlib_integral(&a, nullptr, 1) == SATLIB_OK);
        return;
    }
    void* in = reinterpret_cast<void*>(std::uintptr_t(1) << 20);
    void* out = reinterpret_cast<void*>(std::uintptr_t(1) << 24);
    satlib_integral_args a{};
    a.in = in, a.in_type = SATLIB_U8, a.in_pitch = 100;
    a.out = out, a.out_type = SATLIB_I32, a.out_pitch = 100;
    a.batch = 1, a.rows = 50, a.cols = 100;
    CHECK(satlib_integral(&a, nullptr, 1) == SATLIB_ERR_NO_DEVICE);
    CHECK(satlib_integral(&a, nullptr, 0) == SATLIB_ERR_NO_DEVICE);
    CHECK(satlib_box(in, SATLIB_U8, 100, 0, out, SATLIB_F32, 100, 0, 1, 50, 100, 2, SATLIB_BOX_MEAN, nullptr) ==
          SATLIB_ERR_NO_DEVICE);
    CHECK(satlib_wait(nullptr) == SATLIB_ERR_NO_DEVICE);
    CHECK(satlib_last_timeout() == 0);
    CHECK(std::string(satlib_error_string(SATLIB_ERR_NO_DEVICE)).find("no CUDA device") != std::string::npos);
}
