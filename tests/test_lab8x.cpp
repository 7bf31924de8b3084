// Lab 8x (SKSS beyond the SAT, Funasaka et al. 2017 V-A and V-C): the CPU references by hand and
// against each other, the two problems' checks, every GPU variant through the harness's runner
// (halftones bit for bit, knapsack values exactly), edge cases, grids larger than the GPU holds
// at once, and the ./lab8x program.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <numeric>
#include <random>

#include "data.h"
#include "io.h"
#include "tasks.h"
#include "test_util.h"

using sat::Shape;
using namespace sat::tasks;

namespace {

const char* const halftone_variants[] = {"halftone/Parallel-Backward", "halftone/SKSS"};
const char* const knapsack_variants[] = {"knapsack/Parallel-Forward", "knapsack/SKSS"};

const sat::LabInfo& lab8x() {
    const sat::LabInfo* lab = sat::find_lab(80);
    REQUIRE(lab != nullptr);
    return *lab;
}

// One checked run of a variant on a given input, through the harness's runner (poisoned output,
// canaries, the problem's check). Each call gets its own seed: the runner keeps the last answer
// by (input pointer, shape, seed), and a test's next input may reuse the freed one's address.
sat::Measurement run_on(const std::string& variant, Shape s, const void* input) {
    static std::uint64_t call = 0;
    const sat::Variant& v = sat_test::find_variant(80, variant);
    sat::RunRequest req;
    req.lab = &lab8x();
    req.variant = &v;
    req.type = sat::problem_of(v).types(sat::Options{}).front();
    req.shape = s;
    req.seed = ++call;
    req.input = input;
    return sat::run_variant(req);
}

std::vector<std::uint8_t> constant_image(Shape s, std::uint8_t value) {
    return std::vector<std::uint8_t>(s.n(), value);
}

// A smooth ramp with rings: long runs of similar values make errors travel far.
std::vector<std::uint8_t> ramp_image(Shape s) {
    std::vector<std::uint8_t> px(s.n());
    for (int i = 0; i < s.rows; ++i)
        for (int j = 0; j < s.cols; ++j)
            px[std::size_t(i) * s.cols + j] = std::uint8_t((i * 7 + j * 3 + (i * j) % 17) % 256);
    return px;
}

void check_halftone(const char* variant, Shape s, const std::vector<std::uint8_t>& image,
                    const std::string& what) {
    const sat::Measurement m = run_on(variant, s, image.data());
    INFO(variant << " " << s.rows << "x" << s.cols << " (rows x cols), " << what << ": "
                 << (m.error.empty() ? m.check.message() : "error: " + m.error));
    REQUIRE(m.ok());
}

void check_knapsack(const char* variant, const KnapsackInstance& k, const std::string& what) {
    const std::vector<std::int32_t> input = k.input();
    const sat::Measurement m = run_on(variant, table_shape(k.shape()), input.data());
    INFO(variant << " n=" << k.weights.size() << " W=" << k.capacity << ", " << what << ": "
                 << (m.error.empty() ? m.check.message() : "error: " + m.error));
    REQUIRE(m.ok());
}

KnapsackInstance instance(std::vector<std::int32_t> weights, std::vector<std::int32_t> values, int capacity) {
    KnapsackInstance k;
    k.weights = std::move(weights);
    k.values = std::move(values);
    k.capacity = capacity;
    return k;
}

// Weights uniform in [lo, hi], values in [0, 4095].
KnapsackInstance random_instance(int items, int capacity, int lo, int hi, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> weight(lo, hi), value(0, 4095);
    KnapsackInstance k;
    k.capacity = capacity;
    for (int j = 0; j < items; ++j) {
        k.weights.push_back(weight(rng));
        k.values.push_back(value(rng));
    }
    return k;
}

}  // namespace

// ---- CPU references ----------------------------------------------------------------------------

TEST_CASE("lab8x CPU knapsack on a hand-checked instance", "[cpu][lab8x]") {
    // (weight, value): (4, 2), (2, 2), (3, 3), (1, 4). Best per capacity c = 0..10, by hand:
    // c=1 {4}; c=3 {1-weight, 2-weight}: 6; c=4 {1, 3}: 7; c=6 {1, 2, 3}: 9; c=10 all: 11.
    const KnapsackInstance k = instance({4, 2, 3, 1}, {2, 2, 3, 4}, 10);
    const std::vector<std::int32_t> expected = {0, 4, 4, 6, 7, 7, 9, 9, 9, 9, 11};
    CHECK(cpu_knapsack(k.weights, k.values, k.capacity) == expected);
    CHECK(cpu_knapsack(k.weights, k.values, 5).back() == 7);
    CHECK(cpu_knapsack(k.weights, k.values, 0).back() == 0);
}

TEST_CASE("lab8x CPU knapsack edge cases", "[cpu][lab8x]") {
    CHECK(cpu_knapsack({}, {}, 7) == std::vector<std::int32_t>(8, 0));                 // no items
    CHECK(cpu_knapsack({9, 12, 8}, {5, 6, 7}, 7) == std::vector<std::int32_t>(8, 0));  // none fits
    CHECK(cpu_knapsack({1, 2, 3}, {5, 6, 7}, 6).back() == 18);                          // all fit
    CHECK(cpu_knapsack({1, 2, 3}, {5, 6, 7}, 100).back() == 18);
    // Weight 0: always taken, at every capacity, W = 0 included.
    CHECK(cpu_knapsack({0, 0, 5}, {3, 4, 10}, 0) == std::vector<std::int32_t>{7});
    CHECK(cpu_knapsack({0, 2, 0}, {3, 4, 5}, 3) == std::vector<std::int32_t>({8, 8, 12, 12}));
}

TEST_CASE("lab8x CPU knapsack equals brute force on small random instances", "[cpu][lab8x]") {
    const std::uint64_t seed = sat_test::fresh_seed();
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 200; ++trial) {
        const int n = int(rng() % 11), capacity = int(rng() % 41);
        std::vector<std::int32_t> weights(n), values(n);
        for (int j = 0; j < n; ++j) {
            weights[j] = int(rng() % 16);
            values[j] = int(rng() % 100);
        }
        std::int32_t best = 0;
        for (unsigned subset = 0; subset < (1u << n); ++subset) {
            std::int64_t weight = 0, value = 0;
            for (int j = 0; j < n; ++j)
                if (subset >> j & 1) weight += weights[j], value += values[j];
            if (weight <= capacity) best = std::max<std::int32_t>(best, std::int32_t(value));
        }
        INFO("seed " << seed << ", trial " << trial << ": n=" << n << " W=" << capacity);
        REQUIRE(cpu_knapsack(weights, values, capacity).back() == best);
    }
}

TEST_CASE("lab8x CPU Floyd-Steinberg: constant images, the first row by hand", "[cpu][lab8x]") {
    const Shape s{256, 256};
    CHECK(cpu_error_diffusion(constant_image(s, 0).data(), s) == constant_image(s, 0));
    CHECK(cpu_error_diffusion(constant_image(s, 255).data(), s) == constant_image(s, 255));
    // 128: 128 > 127.5 -> 255, e = -127; 128 - 7/16 127 = 72.4375 -> 0, e = 72.4375;
    // 128 + 7/16 72.4375 = 159.69 -> 255; 128 - 7/16 95.31 = 86.30 -> 0.
    const std::vector<std::uint8_t> half = cpu_error_diffusion(constant_image(s, 128).data(), s);
    CHECK(std::vector<std::uint8_t>(half.begin(), half.begin() + 4) == std::vector<std::uint8_t>({255, 0, 255, 0}));
    // Error diffusion keeps the mean: only what leaves at the borders is lost.
    const double mean = std::accumulate(half.begin(), half.end(), 0.0) / double(s.n());
    CHECK(std::abs(mean - 128.0) < 2.0);
    for (std::uint8_t p : half) REQUIRE((p == 0 || p == 255));
}

TEST_CASE("lab8x CPU error collection equals error diffusion bit for bit", "[cpu][lab8x]") {
    const Shape shapes[] = {{1, 1}, {1, 57}, {57, 1}, {31, 33}, {97, 89}, {256, 300}};
    for (Shape s : shapes) {
        const std::uint64_t seed = sat_test::fresh_seed();
        const std::vector<std::uint8_t> image = random_image(s, seed);
        INFO(s.rows << "x" << s.cols << " seed " << seed);
        REQUIRE(cpu_error_collection(image.data(), s) == cpu_error_diffusion(image.data(), s));
        const std::vector<std::uint8_t> ramp = ramp_image(s);
        REQUIRE(cpu_error_collection(ramp.data(), s) == cpu_error_diffusion(ramp.data(), s));
    }
}

// ---- GPU: halftone ------------------------------------------------------------------------------

TEST_CASE("lab8x halftone: every variant is bit-identical to the CPU on random and odd-sized images",
          "[gpu][lab8x]") {
    SAT_REQUIRE_GPU();
    // rows x cols: single pixels and lines, primes, strips and parallelograms cut anywhere,
    // the paper's 128 x 128 example (4 strips of 6 parallelograms), large.
    const Shape shapes[] = {{1, 1},     {1, 100},   {100, 1},    {31, 33},    {33, 31},     {97, 89},
                            {128, 128}, {64, 96},   {65, 2},     {2, 65},     {1000, 33},   {33, 1000},
                            {1023, 1025}, {1024, 1024}, {777, 3001}, {4096, 4096}};
    for (const char* variant : halftone_variants)
        for (Shape s : shapes) {
            const std::uint64_t seed = sat_test::fresh_seed();
            check_halftone(variant, s, random_image(s, seed), "random, seed " + std::to_string(seed));
        }
}

TEST_CASE("lab8x halftone: constant and smooth images", "[gpu][lab8x]") {
    SAT_REQUIRE_GPU();
    const Shape s{301, 517};
    for (const char* variant : halftone_variants) {
        for (std::uint8_t value : {0, 1, 127, 128, 254, 255})
            check_halftone(variant, s, constant_image(s, value), "constant " + std::to_string(value));
        check_halftone(variant, s, ramp_image(s), "ramp");
    }
}

TEST_CASE("lab8x halftone SKSS: more strips than warps the GPU holds at once, no deadlock",
          "[gpu][lab8x]") {
    SAT_REQUIRE_GPU();
    // A warp per 32-row strip: 2^20 rows are 32768 strips, far above the resident warps, so
    // most warps start only after others have finished; the ticket order keeps it live.
    const Shape s{1 << 20, 3};
    INFO("strips " << s.rows / 32 << ", resident warps at most " << sat_test::resident_warp_bound());
    REQUIRE(s.rows / 32 > 2 * sat_test::resident_warp_bound());
    const std::uint64_t seed = sat_test::fresh_seed();
    check_halftone("halftone/SKSS", s, random_image(s, seed), "random, seed " + std::to_string(seed));
}

// ---- GPU: knapsack ------------------------------------------------------------------------------

TEST_CASE("lab8x knapsack: every variant equals the CPU DP on random instances", "[gpu][lab8x]") {
    SAT_REQUIRE_GPU();
    struct Case {
        int items, capacity;
    };
    // Capacities cut strips anywhere; the paper's n + 1 = 4096, W + 1 = 16K; its weights go up
    // to 4W / (n + 1) (random_knapsack).
    const Case cases[] = {{1, 0}, {1, 1}, {3, 31}, {10, 32}, {50, 33}, {100, 1000}, {257, 4099}, {4095, 16383}};
    for (const char* variant : knapsack_variants)
        for (Case c : cases) {
            const std::uint64_t seed = sat_test::fresh_seed();
            check_knapsack(variant, random_knapsack(c.items, c.capacity, seed), "random, seed " + std::to_string(seed));
        }
}

TEST_CASE("lab8x knapsack: light, heavy and far-reaching weights", "[gpu][lab8x]") {
    SAT_REQUIRE_GPU();
    struct Case {
        int items, capacity, lo, hi;
        const char* what;
    };
    const Case cases[] = {
        {300, 2000, 0, 3, "weights 0..3 (inside the strip: shuffles)"},
        {300, 2000, 20, 45, "weights 20..45 (one or two strips below)"},
        {200, 20000, 900, 1200, "weights around 1000 (beyond the 32-strip cache)"},
        {200, 3000, 0, 6000, "weights 0..2W (many items never fit)"},
    };
    for (const char* variant : knapsack_variants)
        for (const Case& c : cases) {
            const std::uint64_t seed = sat_test::fresh_seed();
            check_knapsack(variant, random_instance(c.items, c.capacity, c.lo, c.hi, seed),
                           std::string(c.what) + ", seed " + std::to_string(seed));
        }
}

TEST_CASE("lab8x knapsack edge cases: no item fits, all fit, weight 0, no items", "[gpu][lab8x]") {
    SAT_REQUIRE_GPU();
    const std::uint64_t seed = sat_test::fresh_seed();
    const KnapsackInstance none_fits = random_instance(100, 500, 501, 5000, seed);
    KnapsackInstance all_fit = random_instance(100, 0, 1, 20, seed + 1);
    all_fit.capacity = std::accumulate(all_fit.weights.begin(), all_fit.weights.end(), 0);
    KnapsackInstance zeros = random_instance(100, 700, 0, 30, seed + 2);
    for (std::size_t j = 0; j < zeros.weights.size(); j += 3) zeros.weights[j] = 0;
    const KnapsackInstance all_zero = random_instance(64, 0, 0, 0, seed + 3);  // W = 0, weights 0
    const KnapsackInstance empty = instance({}, {}, 100);
    for (const char* variant : knapsack_variants) {
        check_knapsack(variant, none_fits, "no item fits, seed " + std::to_string(seed));
        check_knapsack(variant, all_fit, "all items fit exactly, seed " + std::to_string(seed + 1));
        check_knapsack(variant, zeros, "every third weight 0, seed " + std::to_string(seed + 2));
        check_knapsack(variant, all_zero, "W = 0 and every weight 0, seed " + std::to_string(seed + 3));
        check_knapsack(variant, empty, "no items");
        check_knapsack(variant, instance({4, 2, 3, 1}, {2, 2, 3, 4}, 10), "the hand-checked instance");
    }
}

TEST_CASE("lab8x knapsack SKSS: more strips than warps the GPU holds at once, no deadlock",
          "[gpu][lab8x]") {
    SAT_REQUIRE_GPU();
    const int capacity = (1 << 21) - 1;  // 65536 strips of 32 capacities
    INFO("strips " << (capacity + 1) / 32 << ", resident warps at most " << sat_test::resident_warp_bound());
    REQUIRE((capacity + 1) / 32 > 2 * sat_test::resident_warp_bound());
    const std::uint64_t seed = sat_test::fresh_seed();
    check_knapsack("knapsack/SKSS", random_instance(40, capacity, 1, 100000, seed), "seed " + std::to_string(seed));
}

// ---- The problems on the CPU: data, answers, the check's one line ------------------------------

TEST_CASE("lab8x problems: data, answers and the SAT check's one-line diagnostics", "[cpu][lab8x]") {
    const std::uint64_t seed = sat_test::fresh_seed();
    INFO("seed " << seed);
    const sat::Variant& skss = sat_test::find_variant(80, "halftone/SKSS");
    CHECK(sat_test::find_variant(80, "knapsack/SKSS").problem == &knapsack_problem());

    // Halftone: u8 in, u8 out, the answer is the CPU's error diffusion.
    const sat::Problem& halftone = halftone_problem();
    const Shape s{31, 33};
    std::vector<std::uint8_t> image(halftone.input_bytes(sat::DType::u8i32, s));
    halftone.generate(sat::DType::u8i32, s, seed, sat::DataKind::exact, image.data());
    CHECK(image == random_image(s, seed));
    const auto answer = halftone.answer(sat::DType::u8i32, s, image.data(), skss);
    std::vector<std::uint8_t> out = cpu_error_diffusion(image.data(), s);
    CHECK(halftone.check(sat::DType::u8i32, *answer, out.data()).message() == "PASS");
    out[3 * 33 + 5] ^= 0xFF;  // 0 <-> 255
    const sat::CheckReport wrong = halftone.check(sat::DType::u8i32, *answer, out.data());
    CHECK_FALSE(wrong.pass);
    CHECK(wrong.message().rfind("1 of 1023 elements wrong; first at (row 3, col 5)", 0) == 0);
    std::fill(out.begin(), out.end(), sat::poison_byte);
    CHECK(halftone.check(sat::DType::u8i32, *answer, out.data()).message().find(sat::unwritten_note) !=
          std::string::npos);

    // Knapsack: the table V is (n + 1) x (W + 1); the input the weights, then the values.
    const sat::Problem& knapsack = knapsack_problem();
    const Shape table = table_shape({10, 100});
    CHECK(table.rows == 11);
    CHECK(table.cols == 101);
    std::vector<std::int32_t> input(knapsack.input_bytes(sat::DType::i32, table) / 4);
    knapsack.generate(sat::DType::i32, table, seed, sat::DataKind::exact, input.data());
    const KnapsackInstance k = random_knapsack(10, 100, seed);
    CHECK(input == k.input());
    const auto best = knapsack.answer(sat::DType::i32, table, input.data(), skss);
    CHECK(best->shape.rows == 1);
    CHECK(best->shape.cols == 101);
    std::vector<std::int32_t> got = cpu_knapsack(k.weights, k.values, 100);
    CHECK(knapsack.check(sat::DType::i32, *best, got.data()).pass);
    got[7] += 1;
    CHECK(knapsack.check(sat::DType::i32, *best, got.data()).message().find("first at (row 0, col 7)") !=
          std::string::npos);
    CHECK(knapsack.instance_args(sat::Options{}, sat::DType::i32, table) == " --problem knapsack --items 10 --capacity 100");

    // The cost of a task array: the launches of the multi-launch versions (docs/lab8x.md).
    const sat::CostModel pb = halftone.cost(sat_test::find_variant(80, "halftone/Parallel-Backward"), {1024, 1024}, -1,
                                                sat::DType::u8i32);
    CHECK(pb.symbolic == "2n/w + (P + 3(m-1)) l");
    CHECK(pb.cost.latencies == 34 + 3 * 31);  // P = ceil((1024 + 62) / 32), m = 32
    CHECK(halftone.cost(skss, {1024, 1024}, -1, sat::DType::u8i32).cost.latencies == 32);
    CHECK(knapsack.cost(sat_test::find_variant(80, "knapsack/Parallel-Forward"), table, -1, sat::DType::i32).cost.latencies == 10);
}

// ---- The program ---------------------------------------------------------------------------------

TEST_CASE("lab8x program: bad arguments and no GPU give one line and exit 2", "[cpu][lab8x]") {
    std::string out;
    for (const char* args : {"--problem nope", "--size 0", "--variant nope", "--items -1", "--output x.txt",
                             "--capacity", "--frobnicate", "--problem knapsack --input x.png", "--data real",
                             "--box 2 --output x.png", "--problem halftone --variant Parallel-Forward",
                             "--variant knapsack/SKSS --output build/x.png"}) {
        const int rc = sat_test::run_command(std::string("./lab8x-ref ") + args, &out);
        INFO("./lab8x-ref " << args << " printed: " << out);
        CHECK(rc == 2);
        CHECK(std::count(out.begin(), out.end(), '\n') == 1);
        CHECK(out.rfind("lab8x-ref: ", 0) == 0);
    }
    const int rc = sat_test::run_command("CUDA_VISIBLE_DEVICES= ./lab8x-ref --size 64", &out);
    INFO(out);
    CHECK(rc == 2);
    CHECK(std::count(out.begin(), out.end(), '\n') == 1);
    CHECK(out.find("GPU") != std::string::npos);
    REQUIRE(sat_test::run_command("CUDA_VISIBLE_DEVICES= ./lab8x-ref --model --size 4096", &out) == 0);
    for (const sat::Variant& v : lab8x().variants) CHECK(out.find(v.name) != std::string::npos);
    CHECK(out.find("time units") != std::string::npos);
    CHECK(out.find("parallelograms") != std::string::npos);
}

TEST_CASE("lab8x program: --help and --list come from the shared command line", "[cpu][lab8x]") {
    std::string out;
    REQUIRE(sat_test::run_command("./lab8x-ref --help", &out) == 0);
    for (const char* option : {"--problem", "--items", "--capacity", "--capacities", "--size", "--csv", "--reps"})
        CHECK(out.find(option) != std::string::npos);
    for (const sat::Variant& v : lab8x().variants) CHECK(out.find("  " + v.name + " ") != std::string::npos);
    REQUIRE(sat_test::run_command("./lab8x-ref --list", &out) == 0);
    CHECK(out.find("\"name\": \"halftone/SKSS\", \"computes\": \"halftone\"") != std::string::npos);
    CHECK(out.find("\"name\": \"knapsack/SKSS\", \"computes\": \"knapsack\"") != std::string::npos);
    // A SAT lab has none of lab 8x's options.
    CHECK(sat_test::run_command("./lab1-ref --items 3", &out) == 2);
    CHECK(out.find("unknown option '--items'") != std::string::npos);
}

// Tagged [program], not [lab8x]: it runs the reference binary, so the grader must not score it.
TEST_CASE("lab8x program: runs, checks, writes the CSV and a halftone PNG", "[gpu][program]") {
    SAT_REQUIRE_GPU();
    std::string out;
    std::remove("build/test_tmp_lab8x.csv");
    const int rc = sat_test::run_command(
        "./lab8x-ref --size 100x70 --items 60 --capacity 999 --reps 2 --csv build/test_tmp_lab8x.csv", &out);
    INFO(out);
    CHECK(rc == 0);
    CHECK(out.find("FAIL") == std::string::npos);
    CHECK(out.find("halftone: SKSS vs Parallel-Backward") != std::string::npos);
    CHECK(out.find("knapsack: SKSS vs Parallel-Forward") != std::string::npos);
    std::ifstream csv("build/test_tmp_lab8x.csv");
    std::string text((std::istreambuf_iterator<char>(csv)), std::istreambuf_iterator<char>());
    for (const sat::Variant& v : lab8x().variants) CHECK(text.find("\"" + v.name + "\"") != std::string::npos);
    CHECK(std::count(text.begin(), text.end(), '\n') == 1 + int(lab8x().variants.size()));
    CHECK(text.rfind(sat::csv_header() + "\n", 0) == 0);  // the SAT labs' columns
    CHECK(text.find(",u8,100,70,2,") != std::string::npos);     // type, rows, cols, reps
    CHECK(text.find(",i32,61,1000,2,") != std::string::npos);   // the table V: (n + 1) x (W + 1)

    // A picture in, its halftone out: bit-identical to the CPU's.
    const Shape s{90, 130};
    const std::vector<std::uint8_t> ramp = ramp_image(s);
    sat::write_image("build/test_tmp_lab8x_in.png", s.cols, s.rows, 1, ramp.data());
    REQUIRE(sat_test::run_command("./lab8x-ref --input build/test_tmp_lab8x_in.png --output "
                                  "build/test_tmp_lab8x_out.png --variant SKSS --reps 0",
                                  &out) == 0);
    CHECK(out.find("knapsack/") == std::string::npos);  // an image in, the halftone only
    const sat::HostMatrix m = sat::read_matrix("build/test_tmp_lab8x_out.png");
    REQUIRE(m.shape.rows == s.rows);
    REQUIRE(m.shape.cols == s.cols);
    CHECK(m.bytes == cpu_error_diffusion(ramp.data(), s));
}
