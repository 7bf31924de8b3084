// Lab 10 (the SAT across GPUs in row strips): on the CPU, the strip partition, the CPU reference
// in slices (the carry arithmetic), the input made slice by slice, the cost formulas, its
// Problem's run hooks and the program's argument checks; on one GPU, every schedule with G = 1..4
// strips through the device-local exchange for every type and many shapes, the check in small
// slices, a planted missing carry, timing and the calibration, runs through run_variant and
// ./lab10 (table, CSV, refusals); on several GPUs (when present), G = 2 and 4 through NCCL, and
// (hidden: [big]) a matrix larger than one GPU's memory.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>
#include <vector>

#include "data.h"
#include "multigpu.h"
#include "test_util.h"

using sat::DType;
using sat::Shape;
namespace mg = sat::multigpu;

namespace {

const char* const schedules[] = {"ScanThenAdd", "EarlyColumnSums"};

sat::Measurement run(const char* schedule, DType type, Shape shape, mg::Placement where, int reps = 0,
                     int slice_rows = 0) {
    const mg::Schedule* s = mg::find_schedule(schedule);
    REQUIRE(s != nullptr);
    mg::StripRequest req;
    req.schedule = s;
    req.type = type;
    req.shape = shape;
    req.where = where;
    req.seed = sat_test::fresh_seed();
    req.reps = reps;
    req.slice_rows = slice_rows;
    sat::Measurement m = mg::run_strips(req);
    UNSCOPED_INFO("lab10 " << m.variant << " " << sat::dtype_name(type) << " " << sat_test::shape_name(shape)
                           << " on " << where.devices << " GPU(s), slices of " << slice_rows << " rows, seed "
                           << req.seed << ": " << (m.error.empty() ? m.check.message() : "error: " + m.error));
    return m;
}

mg::Placement on_one_gpu(int strips) { return mg::Placement{strips, 1}; }

// `command` (./lab10-ref and its arguments) is refused: exit 2, one line that names the program
// and says `why`.
void require_refused(const std::string& command, const char* why) {
    std::string out;
    const int rc = sat_test::run_command(command, &out);
    INFO(command << " printed: " << out);
    CHECK(rc == 2);
    CHECK(std::count(out.begin(), out.end(), '\n') == 1);
    CHECK(out.rfind("lab10-ref: ", 0) == 0);
    CHECK(out.find(why) != std::string::npos);
}

// The whole matrix's reference against the sliced one, element for element.
void check_slices(DType type, Shape s, int slice_rows, const void* input) {
    const sat::Reference whole = sat::reference_sat(type, s, input);
    mg::SlicedReference sliced(type, s);
    const std::size_t in_bytes = sat::input_bytes(type), W = s.cols;
    for (int r = 0; r < s.rows; r += slice_rows) {
        const int k = std::min(slice_rows, s.rows - r);
        const sat::Reference part =
            sliced.next(static_cast<const unsigned char*>(input) + std::size_t(r) * W * in_bytes, k);
        INFO(sat::dtype_name(type) << " " << sat_test::shape_name(s) << " slice of " << slice_rows << " at row " << r);
        REQUIRE(part.shape.rows == k);
        for (std::size_t i = 0; i < std::size_t(k) * W; ++i) {
            const std::size_t at = std::size_t(r) * W + i;
            if (!whole.exact_sums.empty()) REQUIRE(part.exact_sums[i] == whole.exact_sums[at]);  // integer outputs
            else REQUIRE(part.sums[i] == whole.sums[at]);  // integer-valued or 24-bit data: exact in double
            // Before the first negative value the slices keep no sums of |a| (they equal the sums).
            if (!part.abs_sums.empty()) REQUIRE(part.abs_sums[i] == whole.abs_sums[at]);
            else if (!whole.abs_sums.empty()) REQUIRE(whole.abs_sums[at] == whole.sums[at]);
        }
    }
    CHECK(sliced.rows_done() == s.rows);
}

}  // namespace

// ---- CPU ------------------------------------------------------------------------------------------

TEST_CASE("split_rows cuts rows into G contiguous strips differing by at most one row", "[cpu][lab10][harness]") {
    for (int rows : {1, 2, 3, 7, 97, 1000, 1001}) {
        for (int G = 1; G <= std::min(rows, 9); ++G) {
            const auto parts = mg::split_rows(rows, G);
            INFO(rows << " rows, " << G << " strips");
            REQUIRE(int(parts.size()) == G);
            int next = 0, lo = rows, hi = 0;
            for (const auto& p : parts) {
                CHECK(p.row0 == next);
                CHECK(p.rows >= 1);
                next += p.rows;
                lo = std::min(lo, p.rows);
                hi = std::max(hi, p.rows);
            }
            CHECK(next == rows);
            CHECK(hi - lo <= 1);
        }
    }
    CHECK(mg::split_rows(10, 3)[0].rows == 4);  // the first rows % G strips take the extra rows
    CHECK(mg::split_rows(10, 3)[2].rows == 3);
    CHECK_THROWS_AS(mg::split_rows(3, 4), sat::UsageError);  // more strips than rows
    CHECK_THROWS_AS(mg::split_rows(5, 0), sat::UsageError);
    CHECK_THROWS_WITH(mg::split_rows(1, 2), Catch::Contains("cannot be cut into 2 strips"));
}

TEST_CASE("generate_input_rows makes the same rows as generate_input", "[cpu][lab10][harness]") {
    for (DType t : sat_test::all_types()) {
        const Shape s{37, 29};
        const std::size_t b = sat::input_bytes(t);
        std::vector<unsigned char> whole(s.n() * b), rows(5 * s.cols * b);
        sat::generate_input(t, s, 1234, whole.data());
        sat::generate_input_rows(t, s, 1234, 11, 5, rows.data());
        INFO(sat::dtype_name(t));
        CHECK(std::equal(rows.begin(), rows.end(), whole.begin() + 11 * s.cols * b));
    }
}

TEST_CASE("the CPU reference in slices equals the whole reference (the carry arithmetic)", "[cpu][lab10][harness]") {
    const std::uint64_t seed = sat_test::fresh_seed();
    INFO("seed " << seed);
    for (DType t : sat_test::all_types())
        for (Shape s : {Shape{1, 1}, Shape{31, 33}, Shape{97, 89}, Shape{7, 1000}, Shape{200, 3}}) {
            std::vector<unsigned char> in(s.n() * sat::input_bytes(t));
            sat::generate_input(t, s, seed, in.data());
            for (int slice : {1, 2, 7, s.rows}) check_slices(t, s, slice, in.data());
        }
    // Negative floats: the bound's sums of |a| are carried too, starting mid-matrix.
    const Shape s{9, 5};
    std::vector<float> in(s.n());
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = float(int(i % 7)) - (i >= 20 ? 3.0f : 0.0f);
    for (int slice : {1, 2, 4, 9}) check_slices(DType::f32, s, slice, in.data());
}

TEST_CASE("the CPU reference in slices checks real f32 data against the whole matrix's bound", "[cpu][lab10][harness]") {
    // --data real: f32 in [0, 1), no exact check. A float SAT made in f32 row by row passes every
    // slice; the slices' sums equal the whole reference's up to double rounding.
    const std::uint64_t seed = sat_test::fresh_seed();
    INFO("seed " << seed);
    for (Shape s : {Shape{97, 89}, Shape{300, 7}, Shape{1, 1000}}) {
        std::vector<float> in(s.n()), sat_f32(s.n());
        sat::generate_input(DType::f32, s, seed, in.data(), sat::DataKind::real);
        std::vector<float> column(s.cols, 0.0f);
        for (int i = 0; i < s.rows; ++i) {
            float row = 0;
            for (int j = 0; j < s.cols; ++j) {
                row += in[std::size_t(i) * s.cols + j];
                column[j] += row;
                sat_f32[std::size_t(i) * s.cols + j] = column[j];
            }
        }
        const sat::Reference whole = sat::reference_sat(DType::f32, s, in.data());
        REQUIRE_FALSE(whole.exact);
        mg::SlicedReference sliced(DType::f32, s);
        for (int r = 0, slice = 7; r < s.rows; r += slice) {
            const int k = std::min(slice, s.rows - r);
            const sat::Reference part = sliced.next(in.data() + std::size_t(r) * s.cols, k, 3);
            INFO(sat_test::shape_name(s) << " slice at row " << r);
            CHECK_FALSE(part.exact);
            for (std::size_t i = 0; i < part.sums.size(); ++i)
                REQUIRE(part.sums[i] == Approx(whole.sums[std::size_t(r) * s.cols + i]).epsilon(1e-12));
            CHECK(sat::compare_output(DType::f32, part, sat_f32.data() + std::size_t(r) * s.cols).pass);
            std::vector<float> wrong(sat_f32.begin() + std::size_t(r) * s.cols,
                                     sat_f32.begin() + std::size_t(r + k) * s.cols);
            wrong.back() += 1.0f;  // far outside the bound
            CHECK_FALSE(sat::compare_output(DType::f32, part, wrong.data()).pass);
        }
    }
}

TEST_CASE("a wrong element in a slice fails the check at its row and column", "[cpu][lab10][harness]") {
    const Shape s{23, 17};
    std::vector<std::int32_t> in(s.n());
    sat::generate_input(DType::i32, s, 77, in.data());
    const sat::Reference whole = sat::reference_sat(DType::i32, s, in.data());
    mg::SlicedReference sliced(DType::i32, s);
    const int slice = 5;
    int failures = 0;
    for (int r = 0; r < s.rows; r += slice) {
        const int k = std::min(slice, s.rows - r);
        const sat::Reference part = sliced.next(in.data() + std::size_t(r) * s.cols, k);
        std::vector<std::int32_t> got(std::size_t(k) * s.cols);
        for (std::size_t i = 0; i < got.size(); ++i) got[i] = std::int32_t(whole.exact_sums[std::size_t(r) * s.cols + i]);
        if (r == 15) got[2 * s.cols + 4] += 1;  // row 17, column 4
        const sat::CheckReport rep = sat::compare_output(DType::i32, part, got.data());
        if (r == 15) {
            CHECK_FALSE(rep.pass);
            CHECK(rep.wrong == 1);
            CHECK(rep.first_row + r == 17);
            CHECK(rep.first_col == 4);
            ++failures;
        } else {
            CHECK(rep.pass);
        }
    }
    CHECK(failures == 1);
}

TEST_CASE("the strip cost formulas: G = 1 is lab 9, the link level adds, overlap hides it", "[cpu][lab10][hmm][harness]") {
    sat::hmm::Params p = sat::hmm::params_for(Shape{4096, 4096});
    const auto lookback = sat::hmm::formula("LookBack").eval(p);
    const auto a1 = sat::hmm::formula("Strips-ScanThenAdd").eval(p);
    CHECK(a1.units == Approx(lookback.units));  // one strip: no add pass, no exchange
    CHECK(a1.link_steps == 0);
    p.strips = 4;
    p.devices = 4;
    const auto a = sat::hmm::formula("Strips-ScanThenAdd").eval(p);
    const auto b = sat::hmm::formula("Strips-EarlyColumnSums").eval(p);
    const double m = p.n() / 4;
    CHECK(a.units == Approx(lookback.units / 4 + 2 * m / 32));  // the last GPU adds its whole strip
    CHECK(b.units == Approx(a.units + m / 32));                 // one more read for the column sums
    CHECK(a.link_steps == 3);
    CHECK(a.link_bytes == Approx(3.0 * 4096 * 4));
    CHECK(a.overlap_units == 0);
    CHECK(b.overlap_units == Approx(lookback.units / 4));
    p.devices = 1;  // 4 strips on one GPU: 3 of 4 strips add
    CHECK(sat::hmm::formula("Strips-ScanThenAdd").eval(p).units == Approx(lookback.units + 2 * 0.75 * p.n() / 32));

    sat::hmm::Calibration cal;
    cal.unit_s = 1e-9;
    cal.l_launch_s = 2e-6;
    cal.link_latency_s = 10e-6;
    cal.link_bytes_per_s = 1e9;
    const double x = 3 * 10e-6 + 3.0 * 4096 * 4 / 1e9;
    CHECK(sat::hmm::predict_seconds(a, cal, sat::Barrier::kernel_launch) ==
          Approx(a.units * 1e-9 + 3 * 2e-6 + x));
    const double hidden = std::max(0.0, x - b.overlap_units * 1e-9);
    CHECK(sat::hmm::predict_seconds(b, cal, sat::Barrier::kernel_launch) ==
          Approx(b.units * 1e-9 + 3 * 2e-6 + hidden));
    cal.link_latency_s = 1.0;  // a slow link: the early schedule hides only part of it
    CHECK(sat::hmm::predict_seconds(b, cal, sat::Barrier::kernel_launch) <
          sat::hmm::predict_seconds(a, cal, sat::Barrier::kernel_launch));
}

TEST_CASE("lab 10 is registered with its schedules as variants of its strips problem", "[cpu][lab10][harness]") {
    const sat::LabInfo* lab = sat::find_lab(10);
    REQUIRE(lab != nullptr);
    REQUIRE(lab->variants.size() == std::size(schedules));
    for (const sat::Variant& v : lab->variants) {
        CHECK(&sat::problem_of(v) == &mg::strips_problem());
        CHECK(mg::find_schedule(v.name) != nullptr);
    }
    CHECK(mg::strips_problem().name() == sat::sat_problem().name());  // the SAT's options and table
    for (const char* name : schedules) {
        CHECK(mg::find_schedule(name) != nullptr);
        CHECK_NOTHROW(sat::hmm::formula(mg::find_schedule(name)->cost));
    }
}

TEST_CASE("lab 10's placement, options and cost as the command line gives them", "[cpu][lab10][harness]") {
    // --gpus G > 1: one strip per GPU; --strips G: on one GPU; --gpus 1: one strip; neither: 4 on one.
    auto placed = [](int gpus, int strips) {
        const mg::Placement p = mg::placement_for(gpus, strips);
        return std::make_pair(p.strips, p.devices);
    };
    CHECK(placed(0, 0) == std::make_pair(4, 1));
    CHECK(placed(1, 0) == std::make_pair(1, 1));
    CHECK(placed(0, 3) == std::make_pair(3, 1));
    CHECK(placed(1, 3) == std::make_pair(3, 1));
    CHECK(placed(2, 0) == std::make_pair(2, 2));
    CHECK(placed(4, 4) == std::make_pair(4, 4));

    const sat::LabInfo& lab = *sat::find_lab(10);
    const sat::Problem& problem = mg::strips_problem();
    auto options = [&](const std::string& args) {
        std::vector<std::string> words = {"lab10"};
        std::istringstream in(args);
        for (std::string w; in >> w;) words.push_back(w);
        std::vector<const char*> argv;
        for (const std::string& w : words) argv.push_back(w.c_str());
        return sat::parse_cli(int(argv.size()), argv.data(), lab);
    };
    CHECK(problem.instances(options("--sizes 64,3x9 --strips 3"), lab).size() == 2);
    CHECK(problem.instances(options(""), lab).size() == lab.default_shapes.size());
    CHECK_THROWS_WITH(problem.instances(options("--rows 3 --cols 9"), lab),  // 4 strips by default
                      Catch::Contains("3 rows cannot be cut into 4 strips"));
    CHECK_THROWS_WITH(problem.instances(options("--size 64 --gpus 2 --strips 3"), lab),
                      Catch::Contains("--gpus 2 runs one strip per GPU"));
    CHECK_THROWS_AS(problem.instances(options("--size 1 --gpus 2"), lab), sat::UsageError);
    const sat::Options opt = options("--size 64 --strips 3 --slice-rows 5");
    CHECK(problem.instance_args(opt, DType::u8i32, Shape{64, 64}) ==
          " --rows 64 --cols 64 --type u8i32 --strips 3 --slice-rows 5");

    // The cost of a run as placed: the link level counts G - 1 rows of b bytes.
    sat::RunRequest req;
    req.lab = &lab;
    req.variant = &lab.variants[0];
    req.shape = Shape{4096, 4096};
    req.type = DType::f64;
    req.gpus = 4;
    const sat::CostModel c = problem.cost_of(req);
    CHECK(c.cost.link_steps == 3);
    CHECK(c.cost.link_bytes == Approx(3.0 * 4096 * 8));
    CHECK(c.note.find("4 strips on 4 GPUs") == 0);
    req.gpus = 0;
    req.strips = 1;
    const sat::CostModel one = problem.cost_of(req);
    CHECK(one.cost.link_steps == 0);
    CHECK(one.cost.units == Approx(sat::hmm::formula("LookBack").eval(sat::hmm::params_for(req.shape)).units));
}

TEST_CASE("./lab10 refuses bad arguments with one line and exit 2, before any GPU work", "[cpu][lab10][cli][harness]") {
    REQUIRE(sat_test::run_command("make -s lab10-ref") == 0);
    // Each is refused before the program looks for a GPU: the line names the argument.
    const std::pair<const char*, const char*> bad[] = {
        {"--rows 3 --cols 5 --strips 4", "3 rows cannot be cut into 4 strips"},  // more strips than rows
        {"--size 1 --strips 2", "1 rows cannot be cut into 2 strips"},           // 1x1 in 2 strips
        {"--rows 3 --cols 64", "3 rows cannot be cut into 4 strips"},            // 4 strips by default
        {"--gpus 0", "--gpus needs an integer"},
        {"--strips 0", "--strips needs an integer"},
        {"--gpus 2 --strips 3", "--gpus 2 runs one strip per GPU"},
        {"--slice-rows -1", "--slice-rows needs an integer"},
        {"--gpus", "--gpus needs a value"},
        {"--input x.npy", "lab 10 makes its own data"},
        {"--output x.npy", "lab 10 makes its own data"},
        {"--trace x.png", "lab 10 records no tile trace"},
        {"--bogus", "unknown option '--bogus'"},
    };
    for (const auto& [args, why] : bad) require_refused(std::string("CUDA_VISIBLE_DEVICES= ./lab10-ref ") + args, why);
    std::string out;
    // Its own options are rows of the shared option table: in --help, and --list is JSON.
    REQUIRE(sat_test::run_command("./lab10-ref --help", &out) == 0);
    for (const char* option : {"  --gpus G ", "  --strips G ", "  --slice-rows R "}) CHECK(out.find(option) != std::string::npos);
    REQUIRE(sat_test::run_command("CUDA_VISIBLE_DEVICES= ./lab10-ref --list", &out) == 0);
    CHECK(out.rfind("{\"lab\": 10, ", 0) == 0);
    CHECK(out.find("\"name\": \"ScanThenAdd\"") != std::string::npos);
    CHECK(sat_test::run_command("CUDA_VISIBLE_DEVICES= ./lab10-ref --model --gpus 4 --size 4096", &out) == 0);
    INFO(out);
    CHECK(out.find("ScanThenAdd") != std::string::npos);
    CHECK(out.find("EarlyColumnSums") != std::string::npos);
    CHECK(out.find("3 steps") != std::string::npos);
    CHECK(out.find("4 strips on 4 GPUs") != std::string::npos);
}

// ---- One GPU: G strips, the device-local exchange -------------------------------------------------

TEST_CASE("lab10 schedules with 1-4 strips on one GPU, every type and shape", "[gpu][lab10]") {
    SAT_REQUIRE_GPU();
    const Shape shapes[] = {{1, 1}, {2, 1}, {4, 1}, {3, 100000}, {31, 33}, {97, 89}, {64, 96}, {100000, 1},
                            {1031, 1021}, {5, 2}};
    for (const char* schedule : schedules)
        for (DType t : sat_test::all_types())
            for (Shape s : shapes)
                for (int G = 1; G <= 4; ++G) {
                    if (G > s.rows) continue;  // refused: see the next test
                    const auto m = run(schedule, t, s, on_one_gpu(G));
                    REQUIRE(m.ok());
                    CHECK(m.check.checked == s.n());
                }
}

TEST_CASE("lab10 refuses more strips than rows", "[gpu][lab10][harness]") {
    SAT_REQUIRE_GPU();
    for (const char* schedule : schedules) {
        const auto m = run(schedule, DType::f32, Shape{3, 50}, on_one_gpu(4));
        CHECK_FALSE(m.ok());
        CHECK(m.error.find("cannot be cut into 4 strips") != std::string::npos);
    }
}

TEST_CASE("lab10 checks in slices smaller than a strip", "[gpu][lab10]") {
    SAT_REQUIRE_GPU();
    for (const char* schedule : schedules)
        for (DType t : sat_test::all_types())
            for (int slice : {1, 3, 64}) {
                const auto m = run(schedule, t, Shape{301, 257}, on_one_gpu(3), 0, slice);
                REQUIRE(m.ok());
                CHECK(m.check.checked == 301u * 257u);
            }
}

namespace {
// A planted bug: every strip scans itself, nobody adds a carry.
template <class In, class Out>
void no_carry(mg::StripSet<In, Out>& set) {
    for (const auto& s : set.strips) {
        SAT_CUDA(cudaSetDevice(s.device));
        SAT_CUDA(sat::inclusive_scan_2d(s.in, set.cols, s.out, set.cols, s.range.rows, set.cols, s.stream, s.scan));
    }
}
}  // namespace

TEST_CASE("lab10's sliced check catches a missing carry at the first row of strip 1", "[gpu][lab10][harness]") {
    SAT_REQUIRE_GPU();
    static const mg::Schedule bad = SAT_SCHEDULE("NoCarry", "Strips-ScanThenAdd", "planted bug", no_carry);
    for (DType t : {DType::i32, DType::f32}) {
        mg::StripRequest req;
        req.schedule = &bad;
        req.type = t;
        req.shape = Shape{90, 70};
        req.where = on_one_gpu(3);
        req.seed = sat_test::fresh_seed();
        req.slice_rows = 7;
        const auto m = mg::run_strips(req);
        INFO(sat::dtype_name(t) << " seed " << req.seed << ": " << m.check.message() << " " << m.error);
        CHECK(m.error.empty());
        CHECK_FALSE(m.check.pass);
        CHECK(m.check.first_row == 30);  // strip 1 starts at row 30
        CHECK(m.check.wrong > 0);
    }
}

TEST_CASE("lab10 times a run, the copy and the exchange, and predicts a time", "[gpu][lab10]") {
    SAT_REQUIRE_GPU();
    for (const char* schedule : schedules) {
        const auto m = run(schedule, DType::f32, Shape{1024, 1000}, on_one_gpu(3), 3);
        REQUIRE(m.ok());
        CHECK(m.median_ms > 0);
        CHECK(m.copy_ms > 0);
        CHECK(m.calibration.unit_s > 0);
        CHECK(m.calibration.link_latency_s > 0);
        CHECK(m.calibration.link_bytes_per_s > 0);
        CHECK(m.predicted_ms > 0);
        CHECK(std::isfinite(m.predicted_ms));
        CHECK(m.variant == std::string(schedule) + "/S3");
    }
}

TEST_CASE("./lab10 runs strips on one GPU and prints the verdict and the calibration", "[gpu][lab10][harness]") {
    SAT_REQUIRE_GPU();
    REQUIRE(sat_test::run_command("make -s lab10-ref") == 0);
    std::string out;
    const int rc = sat_test::run_command("./lab10-ref --rows 97 --cols 89 --strips 3 --type f32,u8i32 --reps 2", &out);
    INFO(out);
    CHECK(rc == 0);
    sat_test::check_output(out, {"ScanThenAdd/S3", "EarlyColumnSums/S3", "lambda", "reproduce: ./lab10"}, {"FAIL"});
}

TEST_CASE("lab10 runs through run_variant: its problem's run hook with the request's strips and data", "[gpu][lab10]") {
    SAT_REQUIRE_GPU();
    const sat::LabInfo& lab = *sat::find_lab(10);
    const std::pair<DType, sat::DataKind> cases[] = {{DType::i32, sat::DataKind::exact},
                                                     {DType::f32, sat::DataKind::real},
                                                     {DType::f64, sat::DataKind::real},
                                                     {DType::u8i32, sat::DataKind::real}};
    for (const sat::Variant& v : lab.variants)
        for (const auto& [type, data] : cases) {
            sat::RunRequest req;
            req.lab = &lab;
            req.variant = &v;
            req.type = type;
            req.shape = Shape{301, 257};
            req.seed = sat_test::fresh_seed();
            req.data = data;
            req.reps = 2;
            req.strips = 3;
            req.slice_rows = 64;
            const sat::Measurement m = sat::run_variant(req);
            INFO(v.name << " " << sat::dtype_name(type) << (data == sat::DataKind::real ? " real" : " exact") << " seed "
                        << req.seed << ": " << (m.error.empty() ? m.check.message() : "error: " + m.error));
            REQUIRE(m.ok());
            CHECK(m.variant == v.name + "/S3");
            CHECK(m.problem == "SAT");
            CHECK(m.check.checked == 301u * 257u);
            CHECK(m.median_ms > 0);
            CHECK(m.calibration.link_bytes_per_s > 0);
        }
}

TEST_CASE("./lab10 names its placement, writes the shared CSV and reads --data", "[gpu][lab10][harness]") {
    SAT_REQUIRE_GPU();
    REQUIRE(sat_test::run_command("make -s lab10-ref") == 0);
    const std::string csv = "build/test_tmp_lab10.csv";
    std::remove(csv.c_str());
    std::string out;
    const int rc = sat_test::run_command(
        "./lab10-ref --rows 301 --cols 257 --strips 3 --type f32,i32 --data real --reps 1 --seed 7 --csv " + csv, &out);
    INFO(out);
    CHECK(rc == 0);
    CHECK(out.find("; 3 strips on one GPU, exchange: device-local copy; seed 7") != std::string::npos);
    std::ifstream in(csv);
    std::stringstream text;
    text << in.rdbuf();
    const std::vector<std::string> rows = sat::split_list(text.str(), '\n');
    REQUIRE(rows.size() == 5);
    CHECK(rows[0] == sat::csv_header());
    const char* const expected[] = {",10,\"ScanThenAdd/S3\",f32,301,257,1,", ",10,\"EarlyColumnSums/S3\",f32,301,257,1,",
                                    ",10,\"ScanThenAdd/S3\",i32,301,257,1,", ",10,\"EarlyColumnSums/S3\",i32,301,257,1,"};
    for (int k = 0; k < 4; ++k) {
        CHECK(rows[k + 1].find(expected[k]) != std::string::npos);
        CHECK(rows[k + 1].find(",PASS,7,") != std::string::npos);
    }
}

TEST_CASE("./lab10 refuses what this machine cannot run with one line and exit 2", "[gpu][lab10][harness]") {
    SAT_REQUIRE_GPU();
    REQUIRE(sat_test::run_command("make -s lab10-ref") == 0);
    require_refused("./lab10-ref --gpus 64 --size 64", "--gpus 64 needs 64 GPUs; this machine has ");
    require_refused("./lab10-ref --size 150000 --reps 0", " MiB on GPU 0; ");  // 180 GB of f32 in and out on one GPU
}

// ---- Several GPUs: NCCL ---------------------------------------------------------------------------

namespace {
int gpu_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
    return n;
}
}  // namespace

TEST_CASE("lab10 across 2 and 4 GPUs through NCCL", "[gpu][lab10][multigpu]") {
    SAT_REQUIRE_GPU();
    std::string why;
    if (gpu_count() < 2 || !mg::have_nccl(&why)) {
        sat_test::skipped_current = true;
        SUCCEED("skipped: needs 2 GPUs and NCCL (" << gpu_count() << " GPU(s); " << why << ")");
        return;
    }
    for (int G : {2, 4}) {
        if (G > gpu_count()) continue;
        for (const char* schedule : schedules)
            for (DType t : sat_test::all_types())
                for (Shape s : {Shape{97, 89}, Shape{1031, 1021}, Shape{4, 100000}, Shape{G, 1}}) {
                    const auto m = run(schedule, t, s, mg::Placement{G, G}, 0, 101);
                    REQUIRE(m.ok());
                }
        const auto m = run("EarlyColumnSums", DType::f32, Shape{2048, 2048}, mg::Placement{G, G}, 3);
        REQUIRE(m.ok());
        CHECK(m.calibration.link_bytes_per_s > 0);
        CHECK(m.variant == "EarlyColumnSums/G" + std::to_string(G));
    }
}

// Hidden and tagged only [.][big], so that "[lab10]" and "[gpu]" leave it out: build/tests/lab10
// "[big]". In + out larger than GPU 0's memory, on every GPU present, checked against the CPU
// reference in slices (the host holds one slice at a time).
TEST_CASE("lab10 a matrix larger than the memory of one GPU across every GPU", "[.][big]") {
    SAT_REQUIRE_GPU();
    const int G = gpu_count();
    std::size_t free_bytes = 0, total = 0;
    REQUIRE(cudaMemGetInfo(&free_bytes, &total) == cudaSuccess);
    // f32: 8 bytes per element in + out; 1.2 x one GPU's memory, square.
    const double n = 1.2 * double(total) / 8;
    const int side = int(std::sqrt(n)) / 64 * 64 + 37;
    mg::StripRequest req;
    req.schedule = mg::find_schedule("EarlyColumnSums");
    req.type = DType::f32;
    req.shape = Shape{side, side};
    req.where = mg::Placement{G, G};
    req.seed = sat_test::fresh_seed();
    std::string why;
    if (G < 2 || !mg::have_nccl() || !mg::fits(req, &why)) {
        sat_test::skipped_current = true;
        SUCCEED("skipped: " << G << " GPU(s); " << why);
        return;
    }
    const auto m = mg::run_strips(req);
    INFO(side << "x" << side << " f32 on " << G << " GPUs, seed " << req.seed << ": " << m.check.message() << " "
              << m.error);
    REQUIRE(m.ok());
    CHECK(m.check.checked == req.shape.n());
}
