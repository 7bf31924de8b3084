// The thin-matrix SAT (lib/src/sat_thin.cu, sat::thin): every type pair on 1xN, Nx1, 3xN, Nx3,
// 33xN, Nx33, prime and boundary widths (1, 2, 63, 64), against an exact CPU SAT, with poisoned
// outputs, pitches != cols, misaligned pointers, each input load group (16 bytes, one output
// vector, one element), caller-owned and internal scratch; the argument checks of the interface,
// the plan (through scratch_bytes) and the loops' index helpers (FlatCursor, PaddedGroup) on the CPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "data.h"
#include "gpu_timing.h"
#include "sat_thin.cuh"
#include "test_util.h"

namespace {

struct ThinCase {
    int rows = 0, cols = 0;
    std::size_t in_pitch = 0, out_pitch = 0;  // elements; 0 = cols
    int offset = 0;                           // elements before the matrix in both buffers
    bool own_scratch = true;                  // caller-owned, zeroed scratch (else nullptr)
};

std::string describe(const ThinCase& c, std::uint64_t seed, const char* type) {
    return std::string(type) + " " + std::to_string(c.rows) + "x" + std::to_string(c.cols) +
           " in_pitch " + std::to_string(c.in_pitch) + " out_pitch " + std::to_string(c.out_pitch) +
           " offset " + std::to_string(c.offset) + (c.own_scratch ? " caller scratch" : " internal scratch") +
           " seed " + std::to_string(seed);
}

// Runs sat::thin::scan on one case and compares every element with a 64-bit CPU SAT. The data
// are integers small enough that every partial sum is exact in the output type (integer outputs
// compare modulo 2^32); the output buffer is poisoned with 0xff bytes, and the elements between
// rows (pitch > cols) and before the matrix must keep the poison.
template <class In, class Out>
void check_thin(ThinCase c, const char* type) {
    const std::uint64_t seed = sat_test::fresh_seed();
    if (c.in_pitch == 0) c.in_pitch = std::size_t(c.cols);
    if (c.out_pitch == 0) c.out_pitch = std::size_t(c.cols);
    INFO(describe(c, seed, type));
    REQUIRE(sat::thin::applicable<In, Out>(c.rows, c.cols));
    const std::size_t n_in = c.offset + std::size_t(c.rows) * c.in_pitch;
    const std::size_t n_out = c.offset + std::size_t(c.rows) * c.out_pitch;
    const std::size_t n = std::size_t(c.rows) * std::size_t(c.cols);

    std::mt19937_64 rng(seed);
    // Largest value: partial sums stay below 2^24 (f32 outputs) or are exact anyway.
    long long max_value = std::is_same<In, uint16_t>::value ? 65535 : std::is_same<In, uint8_t>::value ? 255 : 1023;
    if (std::is_same<Out, float>::value) max_value = std::max<long long>(1, std::min<long long>(max_value, ((1ll << 24) - 1) / (long long)n));
    std::uniform_int_distribution<long long> dist(std::is_same<In, int32_t>::value ? -1000 : 0, max_value);
    std::vector<In> h_in(n_in, In(7));
    for (int i = 0; i < c.rows; ++i)
        for (int j = 0; j < c.cols; ++j) h_in[c.offset + std::size_t(i) * c.in_pitch + j] = In(dist(rng));

    sat::DeviceBuffer d_in(n_in * sizeof(In)), d_out(n_out * sizeof(Out)), d_status(sizeof(int));
    const std::size_t scratch_bytes = sat::thin::scratch_bytes<In, Out>(c.rows, c.cols);
    REQUIRE(scratch_bytes > 0);
    sat::DeviceBuffer d_scratch(scratch_bytes);
    SAT_CUDA(cudaMemcpy(d_in.ptr, h_in.data(), n_in * sizeof(In), cudaMemcpyHostToDevice));
    SAT_CUDA(cudaMemset(d_out.ptr, 0xff, n_out * sizeof(Out)));
    SAT_CUDA(cudaMemset(d_status.ptr, 0, sizeof(int)));
    SAT_CUDA(cudaMemset(d_scratch.ptr, 0, scratch_bytes));
    const In* in = d_in.as<In>() + c.offset;
    Out* out = d_out.as<Out>() + c.offset;
    REQUIRE(sat::thin::scan<In, Out>(in, c.in_pitch, out, c.out_pitch, c.rows, c.cols, 0,
                                     c.own_scratch ? d_scratch.ptr : nullptr, d_status.as<int>()) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(sat::status_error(d_status.as<int>()).empty());

    std::vector<Out> h_out(n_out);
    SAT_CUDA(cudaMemcpy(h_out.data(), d_out.ptr, n_out * sizeof(Out), cudaMemcpyDeviceToHost));
    std::vector<long long> column_sat(c.cols, 0);  // SAT of the row above, then of this row
    std::size_t bad = 0;
    std::string first_bad;
    for (int i = 0; i < c.rows; ++i) {
        long long row = 0;
        for (int j = 0; j < c.cols; ++j) {
            row += (long long)h_in[c.offset + std::size_t(i) * c.in_pitch + j];
            column_sat[j] += row;
            const Out got = h_out[c.offset + std::size_t(i) * c.out_pitch + j];
            const bool ok = std::is_integral<Out>::value
                                ? uint32_t(int64_t(got)) == uint32_t(uint64_t(column_sat[j]))
                                : double(got) == double(column_sat[j]);
            if (!ok && bad++ == 0)
                first_bad = "(" + std::to_string(i) + ", " + std::to_string(j) + "): got " +
                            std::to_string(double(got)) + ", want " + std::to_string(column_sat[j]);
        }
    }
    INFO("first mismatch " << first_bad);
    REQUIRE(bad == 0);
    // The poison outside the matrix is untouched.
    std::size_t touched = 0;
    auto poisoned = [&](std::size_t k) {
        unsigned char b[sizeof(Out)];
        std::memcpy(b, &h_out[k], sizeof(Out));
        for (unsigned char x : b)
            if (x != 0xff) return false;
        return true;
    };
    for (int k = 0; k < c.offset; ++k) touched += !poisoned(std::size_t(k));
    for (int i = 0; i < c.rows; ++i)
        for (std::size_t j = std::size_t(c.cols); j < c.out_pitch; ++j)
            touched += !poisoned(c.offset + std::size_t(i) * c.out_pitch + j);
    REQUIRE(touched == 0);
}

// Shapes: the thin targets at sizes a CPU reference checks quickly, widths either side of the
// chunk and vector boundaries, and max_width itself.
std::vector<ThinCase> thin_cases() {
    std::vector<ThinCase> cases;
    const int shapes[][2] = {{1, 1},      {1, 2},      {2, 1},      {1, 5},      {1, 100003}, {100003, 1},
                             {3, 200003}, {200003, 3}, {33, 20011}, {20011, 33}, {2, 70001},  {70001, 2},
                             {63, 4099},  {4099, 63},  {64, 4096},  {4096, 64},  {64, 64},    {17, 13},
                             {5, 7937},   {7937, 5},   {16, 16411}, {16411, 16},
                             {6, 30011},  {30011, 6},  {19, 9001},  {9001, 19},
                             {2, 7938},   // u8 -> i32 and u8 -> f32 (M = 31): a last wide chunk of 2 columns
                             {4, 10007},  {10007, 4},  // f32, i32: 4 rows in chunks of which 4 fit an SM
                             {24, 5003},  {5003, 25}};  // f32, i32: the least K loaded by cp.async
    for (const auto& s : shapes) {
        cases.push_back({s[0], s[1], 0, 0, 0, true});
        cases.push_back({s[0], s[1], std::size_t(s[1]) + 3, std::size_t(s[1]) + 5, 1, false});  // odd pitch, misaligned
        cases.push_back({s[0], s[1], std::size_t(s[1]) + 8, std::size_t(s[1]) + 4, 4, true});   // whole-vector pitch
        cases.push_back({s[0], s[1], std::size_t(s[1]) + 16, std::size_t(s[1]) + 16, 16, true});  // 16-byte groups, pitch
        cases.push_back({s[0], s[1], 0, 0, 4, false});  // contiguous; u8 aligned to 4 bytes only
        // Pitches of whole 16-byte groups (every type) past the width: where the width is not a
        // whole number of groups, a wide chunk's last group of a row is cut by it (f32 and i32
        // from K = 24: loaded element by element among groups copied by cp.async, copy_group_async).
        const std::size_t whole = (std::size_t(s[1]) + 15) / 16 * 16;
        cases.push_back({s[0], s[1], whole + 16, whole + 32, 16, true});
    }
    return cases;
}

template <class In, class Out>
void check_all_cases(const char* type) {
    for (const ThinCase& c : thin_cases()) check_thin<In, Out>(c, type);
}

}  // namespace

TEST_CASE("thin SAT matches the CPU for 1xN, Nx1, 3xN, Nx3, 33xN, Nx33 and edge widths", "[gpu][thin]") {
    SAT_REQUIRE_GPU();
    check_all_cases<float, float>("f32");
    check_all_cases<double, double>("f64");
    check_all_cases<int32_t, int32_t>("i32");
    check_all_cases<uint8_t, int32_t>("u8->i32");
    check_all_cases<uint8_t, float>("u8->f32");
    check_all_cases<uint16_t, double>("u16->f64");
    check_all_cases<float, double>("f32->f64");
}

TEST_CASE("thin SAT, many chunks in flight: 4,000,000 x 1 and 1 x 4,000,000", "[gpu][thin]") {
    SAT_REQUIRE_GPU();
    check_thin<uint8_t, int32_t>({4000000, 1, 0, 0, 0, true}, "u8->i32");
    check_thin<int32_t, int32_t>({1, 4000000, 0, 0, 0, false}, "i32");
    check_thin<float, float>({4000000, 3, 0, 0, 0, true}, "f32");
    check_thin<float, float>({3, 4000000, 0, 0, 0, true}, "f32");      // 920 chunks of 4,352 columns
    check_thin<int32_t, int32_t>({5, 1000003, 0, 0, 0, false}, "i32");  // 435 chunks of 2,304 columns
}

TEST_CASE("thin SAT scratch is under 10 % of the output on the thin targets", "[thin]") {
    const int longs[] = {1000, 1000003, 715827882};
    for (int k : {1, 3, 33, 64}) {
        for (int n : longs) {
            const long long m = std::min<long long>(n, (1ll << 31) / k - 1);
            const double out_bytes = double(m) * k * sizeof(float);
            INFO(k << " x " << m);
            REQUIRE(double(sat::thin::scratch_bytes<float, float>(k, int(m))) <= 0.10 * out_bytes + 4096);
            REQUIRE(double(sat::thin::scratch_bytes<float, float>(int(m), k)) <= 0.10 * out_bytes + 4096);
            REQUIRE(double(sat::thin::scratch_bytes<double, double>(int(m), k)) <= 0.10 * 2 * out_bytes + 4096);
        }
    }
}

TEST_CASE("thin SAT plan: M = 2 at K = 33 where input and accumulator are as wide, M = 3 for u8; 4 blocks per SM for single tall f32 and i32 images and wide ones of few rows", "[thin]") {
    // scratch_bytes counts the chunks of 256 * M lines (docs/thin.md, Scratch), so it pins M.
    auto expected = [](long long along, int k, int lines, std::size_t acc_bytes) {
        const std::size_t chunks = std::size_t((along + lines - 1) / lines);
        return (4 * (32 + chunks) + 255) / 256 * 256 + 2 * chunks * std::size_t(k) * acc_bytes;
    };
    using sat::thin::scratch_bytes;
    for (const bool tall : {true, false}) {
        const int rows = tall ? 4000000 : 33, cols = tall ? 33 : 4000000;
        INFO((tall ? "tall" : "wide"));
        CHECK(scratch_bytes<float, float>(rows, cols) == expected(4000000, 33, 256 * 2, 4));
        CHECK(scratch_bytes<int32_t, int32_t>(rows, cols) == expected(4000000, 33, 256 * 2, 4));
        CHECK(scratch_bytes<uint8_t, int32_t>(rows, cols) == expected(4000000, 33, 256 * 3, 4));
    }
    CHECK(scratch_bytes<double, double>(100000, 19) == expected(100000, 19, 256 * 2, 8));
    CHECK(scratch_bytes<uint16_t, double>(100000, 19) == expected(100000, 19, 256 * 3, 8));
    // A single wide f32 or i32 image of at most 5 rows: the largest chunk of which 4 fit an SM, as
    // for a tall one (3 rows: M = 17; 4 rows: M = 13; 5 rows: M = 9, odd). Its batch, and 6 rows,
    // keep their 64 KB chunks.
    CHECK(scratch_bytes<float, float>(3, 40000000) == expected(40000000, 3, 256 * 17, 4));
    CHECK(scratch_bytes<float, float>(4, 30000000) == expected(30000000, 4, 256 * 13, 4));
    CHECK(scratch_bytes<int32_t, int32_t>(5, 4000000) == expected(4000000, 5, 256 * 9, 4));
    CHECK(scratch_bytes<float, float>(3, 5376000, 2) == expected(2 * 5376000ll, 3, 256 * 21, 4));
    CHECK(scratch_bytes<float, float>(6, 4000000) == expected(4000000, 6, 256 * 11, 4));
    CHECK(scratch_bytes<double, double>(3, 40000000) == expected(40000000, 3, 256 * 11, 8));
    // A single tall image of f32 or i32 takes the largest chunk of which 4 fit an SM where it
    // keeps at least 4 lines per thread: N x 3 M = 17, N x 4 M = 12 (segments of 48 padded to
    // 49). Its batch, f64 (M = 11) and u8 keep their 64 KB chunks.
    CHECK(scratch_bytes<float, float>(40000000, 3) == expected(40000000, 3, 256 * 17, 4));
    CHECK(scratch_bytes<int32_t, int32_t>(40000000, 3) == expected(40000000, 3, 256 * 17, 4));
    CHECK(scratch_bytes<float, float>(40000000, 4) == expected(40000000, 4, 256 * 12, 4));
    CHECK(scratch_bytes<float, float>(5376000, 3, 2) == expected(2 * 5376000ll, 3, 256 * 21, 4));  // whole chunks
    CHECK(scratch_bytes<double, double>(40000000, 3) == expected(40000000, 3, 256 * 11, 8));
    CHECK(scratch_bytes<uint8_t, int32_t>(40000000, 3) == expected(40000000, 3, 256 * 21, 4));
    // satlib sizes a batch's scratch for its largest launch; a single tall image's smaller chunks
    // must not need more (a single wide image's of few rows may: satlib sizes for both).
    for (int k = 1; k <= 64; ++k)
        for (const int rows : {100000, 4000000, 40000000}) {
            INFO(rows << " x " << k);
            CHECK(scratch_bytes<float, float>(rows, k, 1) <= scratch_bytes<float, float>(rows, k, 2));
        }
}

TEST_CASE("thin SAT plan: the GPU keeps as many blocks per SM resident as each plan counts on", "[gpu][thin]") {
    // The plans count blocks for an sm_90 SM (sat_thin.cu): the shared memory of their chunks
    // and the registers their kernels' __launch_bounds__ allow (4 for single tall f32 and i32
    // images and single wide ones of at most 5 rows). Every width, tall and wide, one image and a
    // batch, against the occupancy the GPU reports for the kernel the plan launches.
    SAT_REQUIRE_GPU();
    cudaDeviceProp prop{};
    REQUIRE(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
    if (prop.sharedMemPerMultiprocessor != 228 * 1024 || prop.regsPerMultiprocessor != 65536) {
        WARN("skipped: the plans count blocks for an SM of 228 KB and 64 K registers (sm_90); this GPU's has "
             << prop.sharedMemPerMultiprocessor << " bytes and " << prop.regsPerMultiprocessor << " registers");
        return;
    }
    auto check = [](auto in, auto out, int k, bool tall, int images) {
        using In = decltype(in);
        using Out = decltype(out);
        const int along = 4000000, rows = tall ? along : k, cols = tall ? k : along;
        int planned = 0, resident = 0;
        REQUIRE(sat::thin::blocks_per_sm<In, Out>(rows, cols, images, &planned, &resident) == cudaSuccess);
        INFO(sizeof(In) << "-byte input, " << sizeof(Out) << "-byte output, " << images << " x " << rows << "x"
                        << cols << ": planned " << planned << ", resident " << resident);
        CHECK(planned >= 1);
        CHECK(resident >= planned);
        return planned;
    };
    for (int k = 1; k <= 64; ++k)
        for (const bool tall : {true, false})
            for (const int images : {1, 3}) {
                check(float{}, float{}, k, tall, images);
                check(int32_t{}, int32_t{}, k, tall, images);
                check(double{}, double{}, k, tall, images);
                check(uint8_t{}, int32_t{}, k, tall, images);
                check(float{}, double{}, k, tall, images);
            }
    CHECK(check(float{}, float{}, 3, true, 1) == 4);
    CHECK(check(int32_t{}, int32_t{}, 12, true, 1) == 4);
    CHECK(check(float{}, float{}, 33, true, 1) == 3);
    CHECK(check(float{}, float{}, 3, true, 3) == 3);
    CHECK(check(double{}, double{}, 3, true, 1) == 3);
    CHECK(check(float{}, float{}, 15, true, 1) == 4);  // the 64 KB plan's M = 3: 45 KB chunks
    CHECK(check(float{}, float{}, 3, false, 1) == 4);  // one wide image of at most 5 rows
    CHECK(check(int32_t{}, int32_t{}, 5, false, 1) == 4);
    CHECK(check(float{}, float{}, 3, false, 3) == 3);
    CHECK(check(float{}, float{}, 6, false, 1) == 3);
}

TEST_CASE("thin SAT FlatCursor: every step lands where / and % put it", "[thin]") {
    // The chunk loops' cursor (sat_thin.cuh) for the strides they use: T groups or T * G elements
    // a step (T = 256 threads, or 128 under -DSAT_THIN_THREADS=128; the shifted loads' 31 of each
    // warp's 32: 248 or 124); rows of 1 ... 100 (a tall chunk's K, and its segments of M * K
    // elements) and of 256 * M / G groups for the group sizes G = 16, 4 and 2 (wide rows of u8
    // input, of 4- and of 8-byte elements).
    std::vector<int> per_rows;
    for (int k = 1; k <= 100; ++k) per_rows.push_back(k);
    for (int m = 1; m <= 64; ++m)
        for (int g : {16, 4, 2}) per_rows.push_back(256 * m / g);
    const int steps[] = {124, 128, 248, 256, 512, 1024}, firsts[] = {0, 1, 7, 123};
    int checked = 0;
    for (const int per_row : per_rows)
        for (const int step : steps)
            for (const int first : firsts) {
                sat::thin::FlatCursor at(first * (step / 124), per_row, step);
                for (int q = first * (step / 124), i = 0; i < 200; q += step, ++i, at.next()) {
                    if (at.row != q / per_row || at.col != q % per_row) {
                        FAIL_CHECK("per_row " << per_row << ", step " << step << ", q " << q << ": row " << at.row
                                              << " col " << at.col);
                        break;
                    }
                    ++checked;
                }
            }
    CHECK(checked == int(per_rows.size() * std::size(steps) * std::size(firsts)) * 200);
}

TEST_CASE("thin SAT PaddedGroup: every element of a group lands at f + f / len", "[thin]") {
    // A padded tall chunk's shared-memory index (sat_thin.cuh) of elements e + j, j = 0 ... len
    // (a group is at most one segment long), from every start e in the first three segments,
    // segments of 1 ... 100 elements.
    int checked = 0;
    for (int len = 1; len <= 100; ++len)
        for (int e = 0; e < 3 * len; ++e) {
            const sat::thin::PaddedGroup at(e, len);
            for (int j = 0; j <= len; ++j) {
                const int f = e + j;
                if (at.index(j) != f + f / len) {
                    FAIL_CHECK("len " << len << ", e " << e << ", j " << j << ": " << at.index(j));
                    break;
                }
                ++checked;
            }
        }
    int expected = 0;
    for (int len = 1; len <= 100; ++len) expected += 3 * len * (len + 1);
    CHECK(checked == expected);
}

TEST_CASE("thin SAT argument checks", "[thin]") {
    using sat::thin::applicable;
    REQUIRE(applicable<float, float>(1, 1));
    REQUIRE(applicable<float, float>(64, 1 << 30));
    REQUIRE(applicable<float, float>(1 << 30, 64));
    REQUIRE_FALSE(applicable<float, float>(65, 65));
    REQUIRE_FALSE(applicable<float, float>(0, 5));
    REQUIRE_FALSE(applicable<float, float>(5, -1));
    REQUIRE(sat::thin::scratch_bytes<float, float>(65, 65) == 0);
    // Rejected before any device work: no GPU needed.
    float* fake = reinterpret_cast<float*>(std::uintptr_t(256));
    REQUIRE(sat::thin::scan<float, float>(fake, 100, fake, 100, 0, 100, 0, nullptr, nullptr) == cudaSuccess);
    REQUIRE(sat::thin::scan<float, float>(fake, 100, fake, 100, -1, 100, 0, nullptr, nullptr) == cudaErrorInvalidValue);
    REQUIRE(sat::thin::scan<float, float>(fake, 100, fake, 100, 65, 100, 0, nullptr, nullptr) == cudaErrorInvalidValue);
    REQUIRE(sat::thin::scan<float, float>(fake, 99, fake, 100, 3, 100, 0, nullptr, nullptr) == cudaErrorInvalidValue);
    REQUIRE(sat::thin::scan<float, float>(fake, 100, fake, 99, 3, 100, 0, nullptr, nullptr) == cudaErrorInvalidValue);
    REQUIRE(sat::thin::scan<float, float>(nullptr, 100, fake, 100, 3, 100, 0, nullptr, nullptr) == cudaErrorInvalidValue);
}

namespace {
// The packed rows' functors (sat_thin.cuh) run as CUB's scan runs them, on the CPU: item k from
// PackedWordSums, the inclusive prefix through k by AddLanes, written by WritePackedRows; against
// the SAT mod 2^32, one column at a time. Returns the number of wrong sums, and of elements
// written past the width (the output's pitch padding must keep its poison).
// n random bytes from seed (or bytes of 255) as whole words, 4-byte aligned as the library requires.
std::vector<uint32_t> byte_words(std::size_t n, bool all_255, std::uint64_t seed) {
    std::vector<uint32_t> words(n / 4);
    auto* bytes = reinterpret_cast<uint8_t*>(words.data());
    std::mt19937_64 rng(seed);
    for (std::size_t i = 0; i < n; ++i) bytes[i] = all_255 ? 255 : uint8_t(rng());
    return words;
}
// CUB's inclusive scan of `items` items of R lanes, on the CPU: write(k, the prefix through item k).
template <int R, class Lane = uint32_t, class Item, class Write>
void lane_scan_on_cpu(const Item& item, const Write& write, uint32_t items) {
    sat::thin::RowLanes<R, Lane> through = item(0);
    for (uint32_t k = 0; k < items; ++k) {
        if (k > 0) through = sat::thin::AddLanes<R, Lane>{}(through, item(k));
        write(k, through);
    }
}
// CUB's exclusive scan from zero lanes, on the CPU: write(k, the prefix before item k).
template <int R, class Lane, class Item, class Write>
void lane_exclusive_scan_on_cpu(const Item& item, const Write& write, uint32_t items) {
    sat::thin::RowLanes<R, Lane> before{};
    for (uint32_t k = 0; k < items; ++k) {
        write(k, before);
        before = sat::thin::AddLanes<R, Lane>{}(before, item(k));
    }
}
template <int R>
long long packed_rows_mismatches(int cols, std::size_t in_pitch, std::size_t out_pitch, bool all_255,
                                 std::uint64_t seed) {
    const std::vector<uint32_t> words = byte_words(R * in_pitch, all_255, seed);
    const auto* bytes = reinterpret_cast<const uint8_t*>(words.data());
    std::vector<int4> quads(R * out_pitch / 4, make_int4(-1, -1, -1, -1));  // poisoned
    lane_scan_on_cpu<R>(sat::thin::PackedWordSums<R>{words.data(), in_pitch / 4},
                        sat::thin::WritePackedRows<R>{words.data(), in_pitch / 4, quads.data(), out_pitch / 4},
                        uint32_t(cols / 4));
    const auto* out = reinterpret_cast<const int32_t*>(quads.data());
    long long wrong = 0;
    sat::for_each_exact_sum(
        sat::Shape{R, cols}, [&](int r, int c) { return (long long)bytes[r * in_pitch + c]; },
        [&](int r, int c, long long sum) { wrong += !sat::equals_exact_sum(out[r * out_pitch + c], sum); });
    for (int r = 0; r < R; ++r)
        for (std::size_t c = cols; c < out_pitch; ++c) wrong += out[r * out_pitch + c] != -1;
    return wrong;
}

// The packed columns' functors (sat_thin.cuh) as CUB's scan runs them, on the CPU: item k (rows
// 4k..4k+3) from PackedRowQuadSums, the inclusive prefix through k by AddLanes, written by
// WritePackedColumns; against the SAT mod 2^32 of the rows x C image with pitches of C. Returns
// the number of wrong sums, and of poisoned groups after the image that were written.
template <int C>
long long packed_columns_mismatches(int rows, bool all_255, std::uint64_t seed) {
    const std::vector<uint32_t> words = byte_words(std::size_t(rows) * C, all_255, seed);  // 4 rows: C words
    const auto* bytes = reinterpret_cast<const uint8_t*>(words.data());
    const std::size_t groups = std::size_t(rows) * C / 4, guard = 4;  // poisoned groups past the image
    std::vector<int4> quads(groups + guard, make_int4(-1, -1, -1, -1));
    lane_scan_on_cpu<C>(sat::thin::PackedRowQuadSums<C>{words.data()},
                        sat::thin::WritePackedColumns<C>{words.data(), quads.data()}, uint32_t(rows / 4));
    const auto* out = reinterpret_cast<const int32_t*>(quads.data());
    long long wrong = 0;
    sat::for_each_exact_sum(
        sat::Shape{rows, C}, [&](int r, int c) { return (long long)bytes[std::size_t(r) * C + c]; },
        [&](int r, int c, long long sum) { wrong += !sat::equals_exact_sum(out[std::size_t(r) * C + c], sum); });
    for (std::size_t e = 4 * groups; e < 4 * (groups + guard); ++e) wrong += out[e] != -1;
    return wrong;
}

// Lane inputs: f32 and f64 of values 0..3 (exact sums), i32 of any value (sums mod 2^32).
template <class T>
void fill_lane_input(T* in, std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (std::size_t i = 0; i < n; ++i) in[i] = std::is_integral_v<T> ? T(uint32_t(rng())) : T(rng() % 4);
}
// Of an R x cols image and its scanned output (poisoned with T(-1) before): the wrong sums
// against the SAT, and the elements written past the width.
template <int R, class T>
long long rows_sat_mismatches(const T* in, std::size_t in_pitch, const T* out, std::size_t out_pitch, int cols) {
    long long wrong = 0;
    sat::for_each_exact_sum(
        sat::Shape{R, cols}, [&](int r, int c) { return (long long)in[r * in_pitch + c]; },
        [&](int r, int c, long long sum) { wrong += !sat::equals_exact_sum(out[r * out_pitch + c], sum); });
    for (int r = 0; r < R; ++r)
        for (std::size_t c = cols; c < out_pitch; ++c) wrong += out[r * out_pitch + c] != T(-1);
    return wrong;
}
// The element lanes' functors (sat_thin.cuh) as CUB's scan runs them, on the CPU: item k (column k)
// from PackedElements, the inclusive prefix through k by AddLanes, written by WritePackedElements.
template <int R, class T>
long long packed_elements_mismatches(int cols, std::size_t in_pitch, std::size_t out_pitch, std::uint64_t seed) {
    std::vector<T> in(R * in_pitch);
    fill_lane_input(in.data(), in.size(), seed);
    std::vector<T> out(R * out_pitch, T(-1));  // poisoned
    lane_scan_on_cpu<R, sat::thin::lane_of<T>>(sat::thin::PackedElements<R, T>{in.data(), in_pitch},
                                               sat::thin::WritePackedElements<R, T>{out.data(), out_pitch},
                                               uint32_t(cols));
    return rows_sat_mismatches<R>(in.data(), in_pitch, out.data(), out_pitch, cols);
}
// The group lanes' functors (sat_thin.cuh) as CUB's exclusive scan runs them, on the CPU, for R
// rows of whole 16-byte groups (cols and pitches multiples of V = 16 / sizeof(T)).
template <int R, class T>
long long group_lanes_mismatches(int cols, std::size_t in_pitch, std::size_t out_pitch, std::uint64_t seed) {
    constexpr std::size_t V = 16 / sizeof(T);
    std::vector<sat::thin::Group16<T>> in(R * in_pitch / V), out(R * out_pitch / V);
    auto* in_elems = reinterpret_cast<T*>(in.data());
    auto* out_elems = reinterpret_cast<T*>(out.data());
    fill_lane_input(in_elems, R * in_pitch, seed);
    std::fill(out_elems, out_elems + R * out_pitch, T(-1));  // poisoned
    lane_exclusive_scan_on_cpu<R, sat::thin::lane_of<T>>(
        sat::thin::PackedGroupSums<R, T>{in.data(), in_pitch / V},
        sat::thin::WritePackedGroups<R, T>{in.data(), in_pitch / V, out.data(), out_pitch / V}, uint32_t(cols / V));
    return rows_sat_mismatches<R>(in_elems, in_pitch, out_elems, out_pitch, cols);
}
}  // namespace

TEST_CASE("thin SAT group lanes: the functors give the SAT of 2 or 3 rows of whole 16-byte groups", "[thin]") {
    // One group to 262144 columns, pitches past the width; i32 of any value, whose sums wrap.
    const std::uint64_t seed = sat_test::fresh_seed();
    INFO("seed " << seed);
    for (const auto& [cols, in_pitch, out_pitch] : {std::tuple<int, std::size_t, std::size_t>{4, 4, 4},
                                                    {8, 12, 8},
                                                    {1920, 1924, 1928},
                                                    {262144, 262144, 262148}}) {
        INFO(cols << " columns, pitches " << in_pitch << " and " << out_pitch);
        CHECK(group_lanes_mismatches<2, float>(cols, in_pitch, out_pitch, seed) == 0);
        CHECK(group_lanes_mismatches<3, float>(cols, in_pitch, out_pitch, seed) == 0);
        CHECK(group_lanes_mismatches<2, double>(cols, in_pitch, out_pitch, seed) == 0);
        CHECK(group_lanes_mismatches<3, double>(cols, in_pitch, out_pitch, seed) == 0);
        CHECK(group_lanes_mismatches<2, int32_t>(cols, in_pitch, out_pitch, seed) == 0);
        CHECK(group_lanes_mismatches<3, int32_t>(cols, in_pitch, out_pitch, seed) == 0);
    }
}

TEST_CASE("thin SAT element lanes: the functors give the SAT of 2 or 3 rows of f32, f64 and i32", "[thin]") {
    // 1 column to 262147, pitches past the width; i32 of any value, whose sums wrap.
    const std::uint64_t seed = sat_test::fresh_seed();
    INFO("seed " << seed);
    for (const auto& [cols, in_pitch, out_pitch] : {std::tuple<int, std::size_t, std::size_t>{1, 1, 1},
                                                    {7, 7, 9},
                                                    {1921, 1924, 1923},
                                                    {262147, 262147, 262150}}) {
        INFO(cols << " columns, pitches " << in_pitch << " and " << out_pitch);
        CHECK(packed_elements_mismatches<2, float>(cols, in_pitch, out_pitch, seed) == 0);
        CHECK(packed_elements_mismatches<3, float>(cols, in_pitch, out_pitch, seed) == 0);
        CHECK(packed_elements_mismatches<2, double>(cols, in_pitch, out_pitch, seed) == 0);
        CHECK(packed_elements_mismatches<3, double>(cols, in_pitch, out_pitch, seed) == 0);
        CHECK(packed_elements_mismatches<2, int32_t>(cols, in_pitch, out_pitch, seed) == 0);
        CHECK(packed_elements_mismatches<3, int32_t>(cols, in_pitch, out_pitch, seed) == 0);
    }
}

TEST_CASE("thin SAT packed columns: the lanes' functors give the SAT mod 2^32", "[thin]") {
    // 4 rows (one item) to 262144, random bytes (printed seed); and bytes of 255 over 16,843,012
    // rows, where every column's lane passes 2^32 and wraps on its own.
    const std::uint64_t seed = sat_test::fresh_seed();
    INFO("seed " << seed);
    for (const int rows : {4, 8, 1920, 262144}) {
        INFO(rows << " rows");
        CHECK(packed_columns_mismatches<2>(rows, false, seed) == 0);
        CHECK(packed_columns_mismatches<3>(rows, false, seed) == 0);
    }
    const int wraps = 16843012;  // 255 * 16843012 > 2^32
    CHECK(packed_columns_mismatches<2>(wraps, true, seed) == 0);
    CHECK(packed_columns_mismatches<3>(wraps, true, seed) == 0);
}

TEST_CASE("thin SAT packed rows: the lanes' functors give the SAT mod 2^32", "[thin]") {
    // 1 word to 262144 columns, pitches past the width, random bytes (printed seed); and bytes of
    // 255 over 16,843,012 columns, where every row's lane passes 2^32 and wraps on its own.
    const std::uint64_t seed = sat_test::fresh_seed();
    INFO("seed " << seed);
    for (const auto& [cols, in_pitch, out_pitch] : {std::tuple<int, std::size_t, std::size_t>{4, 4, 4},
                                                    {8, 8, 12},
                                                    {1920, 1924, 1928},
                                                    {262144, 262144, 262148}}) {
        INFO(cols << " columns, pitches " << in_pitch << " and " << out_pitch);
        CHECK(packed_rows_mismatches<2>(cols, in_pitch, out_pitch, false, seed) == 0);
        CHECK(packed_rows_mismatches<3>(cols, in_pitch, out_pitch, false, seed) == 0);
    }
    const int wraps = 16843012;  // 255 * 16843012 > 2^32
    CHECK(packed_rows_mismatches<2>(wraps, wraps, wraps, true, seed) == 0);
    CHECK(packed_rows_mismatches<3>(wraps, wraps, wraps, true, seed) == 0);
}
