// Lab 1 (CPU): every variant against the definition, every type, awkward shapes.
#include "data.h"
#include "test_util.h"

using sat::DType;
using sat::Shape;

namespace {
const std::vector<Shape> cpu_shapes = {{1, 1}, {1, 7}, {7, 1}, {31, 33}, {97, 89}, {1, 5000}, {5000, 1}, {64, 64}, {257, 129}};
const char* const variants[] = {"2R2W(CPU)", "4R1W(CPU)", "threaded"};
}  // namespace

TEST_CASE("lab1 variants match the CPU reference for every type and shape", "[cpu][lab1]") {
    for (const char* variant : variants)
        for (DType t : sat_test::all_types())
            for (Shape s : cpu_shapes) {
                const auto m = sat_test::check_variant(1, variant, t, s);
                REQUIRE(m.ok());
            }
}

TEST_CASE("lab1 threaded SAT gives the same result for 1, 3 and 7 threads", "[cpu][lab1]") {
    const sat::LabInfo* lab = sat::find_lab(1);
    REQUIRE(lab != nullptr);
    for (int threads : {1, 3, 7}) {
        sat::RunRequest req;
        req.lab = lab;
        req.variant = &lab->variants[2];
        req.type = DType::i32;
        req.shape = {101, 67};
        req.seed = sat_test::fresh_seed();
        req.cpu_threads = threads;
        const auto m = sat::run_variant(req);
        INFO("threads " << threads << " seed " << req.seed << ": " << m.check.message());
        REQUIRE(m.ok());
    }
}

TEST_CASE("lab1 timing fills time, bandwidth and copy columns", "[cpu][lab1]") {
    const sat::LabInfo* lab = sat::find_lab(1);
    sat::RunRequest req;
    req.lab = lab;
    req.variant = &lab->variants[0];
    req.shape = {256, 256};
    req.seed = sat_test::fresh_seed();
    req.reps = 3;
    const auto m = sat::run_variant(req);
    REQUIRE(m.ok());
    CHECK(m.median_ms > 0);
    CHECK(m.min_ms <= m.median_ms);
    CHECK(m.median_ms <= m.max_ms);
    CHECK(m.copy_ms > 0);
    CHECK(m.gbps > 0);
}

TEST_CASE("the reference SAT matches the definition sum over the rectangle", "[cpu][reference]") {
    for (Shape s : {Shape{1, 1}, Shape{3, 5}, Shape{13, 2}, Shape{17, 19}}) {
        for (DType t : sat_test::all_types()) {
            const std::uint64_t seed = sat_test::fresh_seed();
            std::vector<unsigned char> in(s.n() * sat::input_bytes(t));
            sat::generate_input(t, s, seed, in.data());
            const sat::Reference ref = sat::reference_sat(t, s, in.data());
            sat::dispatch(t, [&](auto in_tag, auto) {
                using In = decltype(in_tag);
                const In* a = reinterpret_cast<const In*>(in.data());
                for (int i = 0; i < s.rows; ++i)
                    for (int j = 0; j < s.cols; ++j) {
                        double sum = 0;  // the definition: sum of a[u][v] for u <= i, v <= j
                        for (int u = 0; u <= i; ++u)
                            for (int v = 0; v <= j; ++v) sum += double(a[u * s.cols + v]);
                        const std::size_t k = std::size_t(i) * s.cols + j;
                        const double got = ref.exact ? double(std::int32_t(ref.exact_sums[k])) : ref.sums[k];
                        INFO(sat::dtype_name(t) << " " << s.rows << "x" << s.cols << " (" << i << "," << j << ") seed " << seed);
                        REQUIRE(got == Approx(sum).epsilon(1e-12));
                    }
            });
        }
    }
}

TEST_CASE("generated inputs are reproducible from the seed and change with it", "[cpu][data]") {
    for (DType t : sat_test::all_types()) {
        const Shape s{50, 70};
        std::vector<unsigned char> a(s.n() * sat::input_bytes(t)), b(a.size()), c(a.size());
        sat::generate_input(t, s, 42, a.data());
        sat::generate_input(t, s, 42, b.data());
        sat::generate_input(t, s, 43, c.data());
        CHECK(a == b);
        CHECK(a != c);
    }
}

TEST_CASE("i32 inputs are small enough that no partial sum overflows", "[cpu][data]") {
    const Shape s{4000, 4000};
    std::vector<std::int32_t> a(s.n());
    sat::generate_input(DType::i32, s, 7, a.data());
    long long sum_abs = 0;
    for (std::int32_t v : a) sum_abs += v < 0 ? -v : v;
    REQUIRE(sum_abs <= 2147483647LL);
}

TEST_CASE("the transpose reference moves (i, j) to (j, i)", "[cpu][reference]") {
    const Shape s{3, 5};
    std::vector<std::int32_t> a(s.n());
    for (std::size_t k = 0; k < s.n(); ++k) a[k] = std::int32_t(k);
    const sat::Reference ref = sat::reference_transpose(DType::i32, s, a.data());
    REQUIRE(ref.shape.rows == 5);
    REQUIRE(ref.shape.cols == 3);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 5; ++j) CHECK(ref.exact_sums[j * 3 + i] == std::uint32_t(i * 5 + j));
}
