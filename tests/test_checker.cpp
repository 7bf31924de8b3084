// The checker must catch planted faults and report where they are.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "data.h"
#include "test_util.h"

using sat::DType;
using sat::Shape;

namespace {
// A correct output (as the GPU would write it) for a generated input of `t`. The input is dropped
// once the reference is built (large shapes); an element a[i][j] or a sub-rectangle sum is read
// back from the reference by inclusion-exclusion, in the output's arithmetic (int32 wraps).
struct Planted {
    DType type;
    Shape shape;
    std::uint64_t seed;
    sat::Reference ref;
    std::vector<unsigned char> out;
    Planted(DType t, Shape s, sat::DataKind kind = sat::DataKind::exact)
        : type(t), shape(s), seed(sat_test::fresh_seed()) {
        {
            std::vector<unsigned char> in(s.n() * sat::input_bytes(t));
            sat::generate_input(t, s, seed, in.data(), kind);
            ref = sat::reference_sat(t, s, in.data());
        }
        out.resize(s.n() * sat::output_bytes(t));
        sat::dispatch(t, [&](auto, auto out_tag) {
            using Out = decltype(out_tag);
            Out* o = reinterpret_cast<Out*>(out.data());
            sat::parallel_for(s.n(), [&](std::size_t b, std::size_t e) {
                for (std::size_t k = b; k < e; ++k)
                    o[k] = ref.exact_sums.empty() ? Out(ref.sums[k]) : Out(std::int32_t(ref.exact_sums[k]));
            });
        });
    }
    template <class Out>
    Out& at(long i, long j) { return reinterpret_cast<Out*>(out.data())[std::size_t(i) * shape.cols + j]; }
    sat::CheckReport check() const { return sat::compare_output(type, ref, out.data()); }
    // The reference at (i, j), 0 outside the matrix: a uint32 (mod 2^32) or an exact double.
    double sat_float(long i, long j) const {
        return i < 0 || j < 0 ? 0 : ref.sums[std::size_t(i) * shape.cols + j];
    }
    std::uint32_t sat_int(long i, long j) const {
        return i < 0 || j < 0 ? 0 : ref.exact_sums[std::size_t(i) * shape.cols + j];
    }
    // Sum of a over rows [r0, r1) and columns [c0, c1), as the output type would hold it.
    template <class Out>
    Out rect_sum(long r0, long c0, long r1, long c1) const {
        if constexpr (std::is_integral_v<Out>)
            return Out(std::int32_t(sat_int(r1 - 1, c1 - 1) - sat_int(r0 - 1, c1 - 1) - sat_int(r1 - 1, c0 - 1) +
                                    sat_int(r0 - 1, c0 - 1)));
        else
            return Out(sat_float(r1 - 1, c1 - 1) - sat_float(r0 - 1, c1 - 1) - sat_float(r1 - 1, c0 - 1) +
                       sat_float(r0 - 1, c0 - 1));
    }
    // Add `delta` to every output (i, j) with i >= p, j >= q (int32 wraps as on the GPU).
    template <class Out>
    void add_below_right(long p, long q, Out delta) {
        sat::parallel_for(std::size_t(shape.rows - p), [&](std::size_t b, std::size_t e) {
            for (std::size_t i = p + b; i < p + e; ++i)
                for (long j = q; j < shape.cols; ++j) {
                    Out& v = at<Out>(long(i), j);
                    if constexpr (std::is_integral_v<Out>) v = Out(std::uint32_t(v) + std::uint32_t(delta));
                    else v += delta;
                }
        }, 1);
    }
    std::string describe() const {
        return std::string(sat::dtype_name(type)) + " " + sat_test::shape_name(shape) + " seed " + std::to_string(seed);
    }
};

// The planted faults of issue 19, each of which must fail the check of a correct output:
//   one element off by one input's value (the input at that place);
//   a lost carry: a non-zero sub-rectangle sum (the tile above-left of a corner, or the row /
//     column segment before it in a 1-row / 1-column matrix) missing from everything
//     below/right of the corner;
//   an element never written (still the poison).
// The untouched output must pass, bit for bit.
template <class Out>
void require_planted_faults_fail(Planted& p) {
    const Shape s = p.shape;
    INFO(p.describe());
    {
        const auto rep = p.check();
        INFO(rep.message());
        REQUIRE(rep.pass);
        REQUIRE(rep.tolerance == "exact");
    }
    // The first, a middle and the last element; each plant goes in at all of them at once (one
    // pass over the output), and every one must be counted.
    std::vector<std::pair<long, long>> places = {{0, 0}, {s.rows / 2, s.cols / 2}, {s.rows - 1, s.cols - 1}};
    std::sort(places.begin(), places.end());
    places.erase(std::unique(places.begin(), places.end()), places.end());
    std::vector<Out> saved;
    for (auto [i, j] : places) saved.push_back(p.at<Out>(i, j));
    auto restore = [&] {
        for (std::size_t k = 0; k < places.size(); ++k) p.at<Out>(places[k].first, places[k].second) = saved[k];
    };
    {
        INFO("one element off by its input at " << places.size() << " places");
        for (auto [i, j] : places) {
            const Out input = p.rect_sum<Out>(i, j, i + 1, j + 1);
            REQUIRE(input != Out(0));  // exact data never hold a zero
            Out& v = p.at<Out>(i, j);
            if constexpr (std::is_integral_v<Out>) v = Out(std::uint32_t(v) + std::uint32_t(input));
            else v += input;
        }
        const auto rep = p.check();
        CHECK_FALSE(rep.pass);
        CHECK(rep.wrong == places.size());
        CHECK(rep.first_row == places[0].first);
        CHECK(rep.first_col == places[0].second);
        restore();
    }
    {
        INFO("never written at " << places.size() << " places");
        for (auto [i, j] : places) std::memset(&p.at<Out>(i, j), sat::poison_byte, sizeof(Out));
        const auto rep = p.check();
        CHECK_FALSE(rep.pass);
        CHECK(rep.wrong == places.size());
        CHECK(rep.first_unwritten);
        CHECK(rep.message().find("never written") != std::string::npos);
        restore();
    }
    for (auto [p_row, q_col] : {std::pair<long, long>{s.rows / 2, s.cols / 2}, {s.rows - 1, s.cols - 1}}) {
        if (p_row == 0 && q_col == 0) continue;  // 1x1: no carry reaches (0, 0)
        // The block above-left of the corner (the row or column segment before it in a 1-row or
        // 1-column matrix), 32 wide, grown while its sum is zero: a lost zero carry changes
        // nothing, whatever the checker. Random data can sum to zero even over the whole block
        // (a few hundred values in {-K..K}); then the corner moves left (or up) and tries again.
        long r0 = 0, c0 = 0, r1 = 0, c1 = 0;
        Out carry = 0;
        for (int moved = 0; moved < 64 && carry == Out(0); ++moved) {
            if (moved > 0) {
                if (q_col > 1) --q_col;
                else if (p_row > 1) --p_row;
                else break;
            }
            r1 = p_row > 0 ? p_row : 1, c1 = q_col > 0 ? q_col : 1;
            for (long side = 32;; side *= 2) {
                r0 = p_row > 0 ? std::max(0L, r1 - side) : 0;
                c0 = q_col > 0 ? std::max(0L, c1 - side) : 0;
                carry = p.rect_sum<Out>(r0, c0, r1, c1);
                if (carry != Out(0) || (r0 == 0 && c0 == 0)) break;
            }
        }
        INFO("lost carry: rows [" << r0 << ", " << r1 << ") x cols [" << c0 << ", " << c1 << ") = "
                                  << double(carry) << " missing from (" << p_row << ", " << q_col << ") on");
        REQUIRE(carry != Out(0));
        p.add_below_right<Out>(p_row, q_col, Out(0) - carry);
        const auto rep = p.check();
        CHECK_FALSE(rep.pass);
        CHECK(rep.first_row == p_row);
        CHECK(rep.first_col == q_col);
        CHECK(rep.wrong == std::size_t(s.rows - p_row) * std::size_t(s.cols - q_col));
        p.add_below_right<Out>(p_row, q_col, carry);
    }
}

void require_planted_faults_fail(Shape s) {
    for (DType t : sat_test::all_types()) {
        Planted p(t, s);  // one matrix per type and shape, shared by every plant
        sat::dispatch(t, [&](auto, auto out_tag) { require_planted_faults_fail<decltype(out_tag)>(p); });
    }
}
}  // namespace

TEST_CASE("planted faults fail on small and prime shapes, every type", "[cpu][checker]") {
    for (Shape s : {Shape{1, 1}, Shape{1, 2}, Shape{2, 1}, Shape{31, 37}, Shape{97, 89}, Shape{1, 4099}, Shape{4099, 1}})
        require_planted_faults_fail(s);
}

TEST_CASE("planted faults fail on 1x16777216 and 16777216x1, every type", "[cpu][checker]") {
    require_planted_faults_fail(Shape{1, 16777216});
    require_planted_faults_fail(Shape{16777216, 1});
}

TEST_CASE("planted faults fail on 16384x16384, every type", "[cpu][checker]") {
    require_planted_faults_fail(Shape{16384, 16384});
}

TEST_CASE("checker passes a correct output of every type", "[cpu][checker]") {
    for (sat::DataKind kind : {sat::DataKind::exact, sat::DataKind::real})
        for (DType t : sat_test::all_types()) {
            Planted p(t, {37, 41}, kind);
            const auto rep = p.check();
            INFO(p.describe() << ": " << rep.message());
            CHECK(rep.pass);
            CHECK(rep.message() == "PASS");
        }
}

TEST_CASE("checker catches an unwritten (poisoned) element and locates it", "[cpu][checker]") {
    Planted p(DType::f32, {37, 41});
    std::memset(&p.at<float>(20, 30), sat::poison_byte, sizeof(float));
    const auto rep = p.check();
    REQUIRE_FALSE(rep.pass);
    CHECK(rep.wrong == 1);
    CHECK(rep.first_row == 20);
    CHECK(rep.first_col == 30);
    CHECK(rep.message().find("(row 20, col 30)") != std::string::npos);
}

TEST_CASE("checker catches an off-by-one integer sum exactly", "[cpu][checker]") {
    for (DType t : {DType::i32, DType::u8i32}) {
        Planted p(t, {64, 64});
        p.at<std::int32_t>(63, 0) += 1;
        const auto rep = p.check();
        REQUIRE_FALSE(rep.pass);
        CHECK(rep.first_row == 63);
        CHECK(rep.first_col == 0);
        CHECK(rep.max_error == 1);
        CHECK(rep.first_got == rep.first_expected + 1);
    }
}

TEST_CASE("checker catches a float sum that is off by one element", "[cpu][checker]") {
    Planted p(DType::f32, {16, 16});
    p.at<float>(5, 5) += 0.5f;  // a missing or doubled input element in [0, 1)
    REQUIRE_FALSE(p.check().pass);
    Planted q(DType::f64, {16, 16});
    q.at<double>(0, 0) += 1.0;
    REQUIRE_FALSE(q.check().pass);
}

TEST_CASE("checker catches NaN and infinity", "[cpu][checker]") {
    Planted p(DType::f32, {8, 8});
    p.at<float>(2, 3) = std::numeric_limits<float>::quiet_NaN();
    p.at<float>(7, 7) = std::numeric_limits<float>::infinity();
    const auto rep = p.check();
    REQUIRE_FALSE(rep.pass);
    CHECK(rep.wrong == 2);
    CHECK(rep.first_row == 2);
}

TEST_CASE("checker accepts float rounding within the documented bound", "[cpu][checker]") {
    Planted p(DType::f32, {300, 300}, sat::DataKind::real);
    REQUIRE_FALSE(p.ref.exact);
    float& v = p.at<float>(299, 299);
    v = std::nextafter(std::nextafter(v, 1e30f), 1e30f);  // two ulps: far below (rows+cols) u
    CHECK(p.check().pass);
}

TEST_CASE("checker compares int32 sums modulo 2^32", "[cpu][checker]") {
    // 255 * 10^8 overflows int32; the wrapped value is what int32 arithmetic produces.
    const Shape s{1, 2};
    std::vector<std::int32_t> in = {2147483647, 1};
    const auto ref = sat::reference_sat(DType::i32, s, in.data());
    std::vector<std::int32_t> wrapped = {2147483647, std::int32_t(0x80000000u)};
    CHECK(sat::compare_output(DType::i32, ref, wrapped.data()).pass);
    wrapped[1] = 0;
    CHECK_FALSE(sat::compare_output(DType::i32, ref, wrapped.data()).pass);
}

TEST_CASE("canary check names a write before or after the output", "[cpu][checker]") {
    std::vector<unsigned char> before(64, sat::canary_byte), after(64, sat::canary_byte);
    CHECK(sat::check_canaries(before.data(), after.data(), 64).empty());
    after[3] = 0;
    CHECK(sat::check_canaries(before.data(), after.data(), 64).find("3 bytes past the end") != std::string::npos);
    after[3] = sat::canary_byte;
    before[60] = 1;
    CHECK(sat::check_canaries(before.data(), after.data(), 64).find("4 bytes before") != std::string::npos);
}

TEST_CASE("run_variant reports a canary write as a failure", "[cpu][checker]") {
    // A planted wrong solution that writes one element past the end of its output.
    static auto overrun = [](const float* in, float* out, sat::Shape s, sat::Workspace& ws, cudaStream_t st) {
        sat::find_lab(1)->variants[0].fn[0](in, out, s, ws, st);
        out[s.n()] = 0;
    };
    sat::LabInfo lab = *sat::find_lab(1);
    sat::Variant bad = lab.variants[0];
    bad.fn[0] = [](const void* in, void* out, sat::Shape s, sat::Workspace& ws, cudaStream_t st) {
        overrun(static_cast<const float*>(in), static_cast<float*>(out), s, ws, st);
    };
    sat::RunRequest req;
    req.lab = &lab;
    req.variant = &bad;
    req.shape = {10, 10};
    req.seed = sat_test::fresh_seed();
    const auto m = sat::run_variant(req);
    REQUIRE_FALSE(m.ok());
    CHECK(m.check.canary.find("past the end") != std::string::npos);
}

namespace {
// A variant that is right on every call but one: on call `wrong_call` (1 = the checked run) it
// leaves f32 element `wrong_index` unwritten, as a race that shows once in a while would.
struct Flaky {
    static inline sat::ErasedSatFn real = nullptr;
    static inline int calls = 0, wrong_call = 0;
    static inline std::size_t wrong_index = 0;
    static void fn(const void* in, void* out, Shape s, sat::Workspace& ws, cudaStream_t stream) {
        real(in, out, s, ws, stream);
        if (++calls != wrong_call) return;
        unsigned char* element = static_cast<unsigned char*>(out) + wrong_index * sizeof(float);
        if (ws.on_device()) SAT_CUDA(cudaMemsetAsync(element, sat::poison_byte, sizeof(float), stream));
        else std::memset(element, sat::poison_byte, sizeof(float));
    }
};

// `base` with a flaw on call `wrong_call` at f32 element `wrong_index` of its output buffer (a
// batch: of all its images, 63 elements each), on 7 x 9 matrices.
sat::Measurement run_flaky(int lab_number, const sat::Variant& base, int wrong_call, int reps, int batch = 1,
                           std::size_t wrong_index = 5) {
    static sat::LabInfo lab;
    static sat::Variant flaky;
    lab = *sat::find_lab(lab_number);
    flaky = base;
    Flaky::real = flaky.fn[int(DType::f32)];
    Flaky::calls = 0;
    Flaky::wrong_call = wrong_call;
    Flaky::wrong_index = wrong_index;  // 5: (row 0, col 5) of a 7 x 9 matrix
    flaky.fn[int(DType::f32)] = &Flaky::fn;
    sat::RunRequest req;
    req.lab = &lab;
    req.variant = &flaky;
    req.shape = {7, 9};
    req.seed = sat_test::fresh_seed();
    req.reps = reps;
    req.batch = batch;
    const sat::Measurement m = sat::run_variant(req);
    UNSCOPED_INFO("lab" << lab_number << " " << base.name << " batch " << batch << " wrong on call " << wrong_call
                        << " seed " << req.seed << ": " << (m.error.empty() ? m.check.message() : "error: " + m.error));
    return m;
}
sat::Measurement run_flaky(int lab_number, const std::string& variant, int wrong_call, int reps) {
    return run_flaky(lab_number, sat_test::find_variant(lab_number, variant), wrong_call, reps);
}
}  // namespace

TEST_CASE("every timed repetition of a CPU variant is compared with the checked run", "[cpu][checker][repo]") {
    CHECK(run_flaky(1, "2R2W(CPU)", 0, 4).ok());  // never wrong: PASS
    const auto m = run_flaky(1, "2R2W(CPU)", 3, 4);  // call 1 is checked, call 3 is repetition 2
    REQUIRE(m.error.empty());
    CHECK_FALSE(m.ok());
    CHECK(m.check.wrong == 0);  // the checked run itself was right
    CHECK(m.check.repetition.find("timed repetition 2 of 4 differs from the checked run: first at (row 0, col 5)") !=
          std::string::npos);
    CHECK(m.check.message().find("never written") != std::string::npos);
}

TEST_CASE("a batch is checked image by image: a fault in image 2 of 4 is named, counted over the batch", "[cpu][checker][repo]") {
    const sat::Variant per_image = sat_test::cpu_batch_variant();
    CHECK(run_flaky(1, per_image, 0, 2, 4).ok());  // never wrong: PASS
    const std::size_t n = 7 * 9, in_image_2 = 2 * n + 3 * 9 + 4;  // (row 3, col 4) of image 2
    {
        const auto m = run_flaky(1, per_image, 1, 0, 4, in_image_2);  // the checked run
        REQUIRE(m.error.empty());
        CHECK_FALSE(m.ok());
        CHECK(m.batch == 4);
        CHECK(m.check.checked == 4 * n);
        CHECK(m.check.wrong == 1);
        CHECK(m.check.images == 4);
        CHECK(m.check.first_image == 2);
        CHECK(m.check.first_row == 3);
        CHECK(m.check.first_col == 4);
        CHECK(m.check.message().find("1 of 252 elements wrong over 4 images; first in image 2 (0-based) at (row 3, col 4)") !=
              std::string::npos);
    }
    {  // call 3 is timed repetition 2
        const auto m = run_flaky(1, per_image, 3, 4, 4, in_image_2);
        REQUIRE(m.error.empty());
        CHECK(m.check.wrong == 0);
        CHECK(m.check.repetition.find(
                  "timed repetition 2 of 4 differs from the checked run: first in image 2 (0-based) at (row 3, col 4)") !=
              std::string::npos);
    }
}

TEST_CASE("a batch: every image against its own reference, every type and batch shape", "[cpu][checker][repo]") {
    const sat::Variant per_image = sat_test::cpu_batch_variant();
    for (DType t : sat_test::all_types())
        for (auto [s, images] : {std::pair<Shape, int>{{1, 1}, 5}, {{97, 89}, 3}, {{33, 4000}, 4}, {{1000, 1}, 3}}) {
            const auto m = sat_test::check_variant(1, per_image, t, s, -1, 0, images);
            REQUIRE(m.ok());
            CHECK(m.check.checked == s.n() * images);
        }
}

TEST_CASE("a batch: a column carry leaking from one image into the next fails in image 1", "[cpu][checker][repo]") {
    // Lab 1's SAT of the batch as one (3 * 97) x 89 matrix: right for image 0, wrong from image 1 on.
    const sat::Variant stacked = sat_test::stacked_variant(sat_test::find_variant(1, "2R2W(CPU)"));
    for (DType t : sat_test::all_types()) {
        const auto m = sat_test::check_variant(1, stacked, t, {97, 89}, -1, 0, 3);
        REQUIRE(m.error.empty());
        CHECK_FALSE(m.ok());
        CHECK(m.check.first_image == 1);
        CHECK(m.check.first_row == 0);
        CHECK(m.check.message().find("over 3 images; first in image 1 (0-based) at (row 0, ") != std::string::npos);
    }
}

TEST_CASE("every timed repetition of a GPU variant is compared with the checked run on the GPU", "[gpu][lab2][checker]") {
    SAT_REQUIRE_GPU();
    CHECK(run_flaky(2, "2R2W", 0, 4).ok());  // never wrong: PASS
    // Calls: 1 checked, 2 warm-up, 3 and 4 timed repetitions 1 and 2.
    const auto m = run_flaky(2, "2R2W", 4, 4);
    REQUIRE(m.error.empty());
    CHECK_FALSE(m.ok());
    CHECK(m.check.wrong == 0);
    CHECK(m.check.repetition.find("timed repetition 2 of 4 differs from the checked run: first at (row 0, col 5)") !=
          std::string::npos);
    const auto warm = run_flaky(2, "2R2W", 2, 4);
    CHECK(warm.check.repetition.find("the warm-up run differs") != std::string::npos);
}

// ---- The references and the input generator the checker relies on ---------------------------------

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
                        const double got = ref.exact_sums.empty() ? ref.sums[k] : double(std::int32_t(ref.exact_sums[k]));
                        INFO(sat::dtype_name(t) << " " << s.rows << "x" << s.cols << " (" << i << "," << j << ") seed " << seed);
                        REQUIRE(got == Approx(sum).epsilon(1e-12));
                    }
            });
        }
    }
}

TEST_CASE("generated inputs are reproducible from the seed and change with it", "[cpu][data]") {
    for (sat::DataKind kind : {sat::DataKind::exact, sat::DataKind::real})
        for (DType t : sat_test::all_types()) {
            const Shape s{50, 70};
            std::vector<unsigned char> a(s.n() * sat::input_bytes(t)), b(a.size()), c(a.size());
            sat::generate_input(t, s, 42, a.data(), kind);
            sat::generate_input(t, s, 42, b.data(), kind);
            sat::generate_input(t, s, 43, c.data(), kind);
            CHECK(a == b);
            CHECK(a != c);
        }
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
