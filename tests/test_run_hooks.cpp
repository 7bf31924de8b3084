// The Problem's run hooks (harness.h): a stand-in problem that overrides them goes through the
// shared ./labN program (lab_main) and run_variant, its table and its CSV, on the CPU. Lab 10
// (common/multigpu.cu) is the problem that needs them; its own tests are in test_lab10.cpp.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "test_util.h"

using sat::DType;
using sat::Shape;

namespace {

constexpr int stand_in_lab = 97;

// What the hooks saw: one entry per call of run().
struct Seen {
    std::string variant;
    Shape shape;
    int strips = 0, reps = 0;
    std::uint64_t seed = 0;
};
std::vector<Seen> runs_seen;

// Host-only, one value per instance: the output of run() is made up by the hook itself, and the
// run "fails" for 11 columns, so that the failure path (reproduce line, exit 1) shows too.
struct HookProblem : sat::Problem {
    std::string name() const override { return "hooked"; }
    std::vector<Shape> instances(const sat::Options& opt, const sat::LabInfo& lab) const override {
        const std::vector<Shape> shapes = opt.shapes.empty() ? lab.default_shapes : opt.shapes;
        for (Shape s : shapes)
            if (opt.strips > s.rows) throw sat::UsageError("stand-in: more strips than rows");
        return shapes;
    }
    std::vector<DType> types(const sat::Options& opt) const override { return opt.types; }
    std::size_t input_bytes(DType, Shape) const override { return 0; }
    std::size_t output_element_bytes(DType) const override { return 4; }
    double output_value(DType, const unsigned char*) const override { return 0; }
    void generate(DType, Shape, std::uint64_t, sat::DataKind, void*) const override {}
    std::shared_ptr<const sat::Answer> answer(DType, Shape, const void*, const sat::Variant&) const override {
        return std::make_shared<sat::Answer>();
    }
    sat::CheckReport check(DType, const sat::Answer&, const void*) const override { return {}; }
    sat::Traffic traffic(DType, Shape s) const override { return {double(s.n()), double(s.n()) / 32}; }
    sat::CostModel cost(const sat::Variant&, Shape s, double, DType) const override { return {"n", {double(s.n()), 0}, "one strip"}; }
    sat::CostModel cost_of(const sat::RunRequest& req) const override {
        return {"n/G", {double(req.shape.n()) / std::max(1, req.strips), 1}, std::to_string(req.strips) + " strips"};
    }
    std::string instance_args(const sat::Options& opt, DType, Shape s) const override {
        return " --rows " + std::to_string(s.rows) + " --cols " + std::to_string(s.cols) + " --strips " +
               std::to_string(opt.strips);
    }
    double answer_bytes(DType, Shape, bool) const override { return 0; }

    std::string refusal(const sat::RunRequest& req, const sat::Options&, double) const override {
        return req.shape.rows == 13 ? "stand-in: 13 rows do not fit" : "";
    }
    std::string placement(const sat::Options& opt) const override {
        return std::to_string(opt.strips) + " strips on one CPU";
    }
    sat::Measurement run(const sat::RunRequest& req) const override {
        runs_seen.push_back({req.variant->name, req.shape, req.strips, req.reps, req.seed});
        sat::Measurement m;
        m.lab = req.lab->number;
        m.variant = req.variant->name + "/S" + std::to_string(req.strips);
        m.problem = name();
        m.type = req.type;
        m.shape = req.shape;
        m.seed = req.seed;
        m.reps = req.reps;
        m.device = "stand-in";
        m.check.checked = req.shape.n();
        m.check.pass = req.shape.cols != 11;
        m.check.wrong = m.check.pass ? 0 : 1;
        m.check.first_row = 0, m.check.first_col = 10;
        m.check.tolerance = "exact";
        m.median_ms = m.min_ms = m.max_ms = 2;
        m.copy_ms = 1;
        return m;
    }
};
const HookProblem hook_problem;

// Never called: the problem's run() takes the variant's place.
void not_called(const void*, void*, Shape, sat::Workspace&, cudaStream_t) {
    throw sat::Error("the stand-in's variant function was called");
}

// A CPU lab (the GPU tests of every GPU lab leave it out) with two variants of the stand-in.
void register_stand_in() {
    sat::LabInfo lab = sat::lab_info(stand_in_lab, "stand-in for the run hooks", "tests/test_run_hooks.cpp", {},
                                     {{8, 8}});
    lab.gpu = false;
    lab.row_strips = true;  // --strips
    for (const char* name : {"First", "Second"}) {
        sat::Variant v{name, "", "stand-in", {&not_called, &not_called, &not_called, &not_called}};
        v.problem = &hook_problem;
        lab.variants.push_back(v);
    }
    sat::register_lab(lab);
}

std::string file_text(const std::string& path) {
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

// sat::lab_main on `args` (the program named lab<id>, lab97 by default), its stdout and stderr together.
int lab_main_output(const std::string& args, std::string* out, const std::string& id = "97") {
    std::vector<std::string> words = {"lab" + id};
    std::istringstream in(args);
    for (std::string w; in >> w;) words.push_back(w);
    std::vector<const char*> argv;
    for (const std::string& w : words) argv.push_back(w.c_str());
    const std::string path = "build/test_tmp_run_hooks.txt";
    std::fflush(stdout);
    std::fflush(stderr);
    const int saved_out = dup(1), saved_err = dup(2);
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
    const int rc = sat::lab_main(int(argv.size()), argv.data(), id.c_str());
    std::fflush(stdout);
    std::fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    *out = file_text(path);
    return rc;
}

}  // namespace

TEST_CASE("a problem's run hooks take its runs through lab_main, the table and the CSV", "[cpu][harness]") {
    register_stand_in();
    const std::string csv = "build/test_tmp_run_hooks.csv";
    std::remove(csv.c_str());
    std::string out;

    runs_seen.clear();
    const int rc = lab_main_output("--sizes 64,9x5 --strips 2 --reps 3 --seed 41 --csv " + csv, &out);
    INFO(out);
    CHECK(rc == 0);
    // The placement in the title, each run through the hook with the command line's request.
    CHECK(out.find("; 2 strips on one CPU; seed 41") != std::string::npos);
    REQUIRE(runs_seen.size() == 4);
    for (const Seen& s : runs_seen) {
        CHECK(s.strips == 2);
        CHECK(s.reps == 3);
        CHECK(s.seed == 41);
    }
    CHECK(runs_seen[0].variant == "First");
    CHECK(runs_seen[1].variant == "Second");
    CHECK(runs_seen[2].shape.rows == 9);
    CHECK(runs_seen[2].shape.cols == 5);
    CHECK(out.find("First/S2") != std::string::npos);
    CHECK(out.find("PASS") != std::string::npos);
    CHECK(out.find("FAIL") == std::string::npos);
    // The CSV: the shared header and one row per run, with what the hook measured.
    const std::vector<std::string> rows = sat::split_list(file_text(csv), '\n');
    REQUIRE(rows.size() == 5);
    CHECK(rows[0] == sat::csv_header());
    CHECK(rows[1].find("\"stand-in\",97,\"First/S2\",f32,64,64,3,2,2,2,1,") == 0);
    CHECK(rows[4].find(",\"Second/S2\",f32,9,5,3,") != std::string::npos);
    for (std::size_t k = 1; k < rows.size(); ++k) CHECK(rows[k].find(",PASS,41,") != std::string::npos);

    // --model asks the hook's cost of the run as placed.
    REQUIRE(lab_main_output("--model --size 64 --strips 4", &out) == 0);
    for (const char* text : {" n/G ", "= 1024 time units + 1 l", "(4 strips)"}) CHECK(out.find(text) != std::string::npos);
}

TEST_CASE("a problem's hooks refuse options and machines with one line and exit 2, before any run", "[cpu][harness]") {
    register_stand_in();
    runs_seen.clear();
    const std::pair<const char*, const char*> refused[] = {
        {"--size 3 --strips 4", "stand-in: more strips than rows"},    // instances()
        {"--sizes 64,13x7 --strips 1", "stand-in: 13 rows do not fit"},  // refusal(), before the first run
        {"--input x.npy", "--input, --output and --box: lab 97 makes its own data and writes no file"},
    };
    for (const auto& [args, line] : refused) {
        std::string out;
        CHECK(lab_main_output(args, &out) == 2);
        CHECK(out == "lab97: " + std::string(line) + "\n");
    }
    CHECK(runs_seen.empty());
}

TEST_CASE("a failed run through the hooks exits 1 with a reproduce line from the problem", "[cpu][harness]") {
    register_stand_in();
    std::string out;
    CHECK(lab_main_output("--rows 4 --cols 11 --strips 3 --variant Second --reps 0 --seed 5", &out) == 1);
    INFO(out);
    for (const char* text : {"Second/S3", "FAIL", "    reproduce: ./lab97 --rows 4 --cols 11 --strips 3 --variant Second --seed 5"})
        CHECK(out.find(text) != std::string::npos);
}

TEST_CASE("run_variant calls the problem's run()", "[cpu][harness]") {
    register_stand_in();
    runs_seen.clear();
    sat::RunRequest req;
    req.lab = sat::find_lab(stand_in_lab);
    req.variant = &req.lab->variants[1];
    req.shape = {6, 7};
    req.strips = 5;
    const sat::Measurement m = sat::run_variant(req);
    REQUIRE(runs_seen.size() == 1);
    CHECK(runs_seen[0].strips == 5);
    CHECK(m.variant == "Second/S5");
    CHECK(m.ok());
}

namespace {
// A CPU lab of the SAT whose variants take batches (lab 1's SAT image by image, and the same with
// the images' column carries leaking into each other) but one.
constexpr int batch_lab = 96;
void register_batch_lab() {
    sat::LabInfo lab = sat::lab_info(batch_lab, "stand-in for batches", "tests/test_run_hooks.cpp",
                                     {sat_test::cpu_batch_variant(),
                                      sat_test::stacked_variant(sat_test::find_variant(1, "2R2W(CPU)"))},
                                     {{8, 8}});
    lab.gpu = false;
    sat::Variant single = sat_test::find_variant(1, "2R2W(CPU)");
    single.name = "OneImage";
    lab.variants.push_back(single);
    sat::register_lab(lab);
}
}  // namespace

TEST_CASE("--batch through lab_main: the batching variants, BxRxC in the table, the batch in the CSV", "[cpu][harness][repo]") {
    register_batch_lab();
    const std::string csv = "build/test_tmp_batch.csv";
    std::remove(csv.c_str());
    std::string out;
    CHECK(lab_main_output("--batch 3 --size 97x89 --type i32 --reps 1 --seed 9 --csv " + csv, &out, "96") == 1);
    INFO(out);
    sat_test::check_output(out, {"note: --batch 3: 3 images of each size in one run, image b generated from seed + b; "
                                 "left out (one image at a time): OneImage",
                                 "B x rows x cols", "3x97x89", "PASS", "FAIL",
                                 "first in image 1 (0-based) at (row 0, ",
                                 "    reproduce: ./lab96 --rows 97 --cols 89 --type i32 --batch 3 --variant '2R2W(CPU)-stacked' --seed 9",
                                 "reproduce: ./lab96 --batch 3 --size 97x89 --type i32 --reps 1 --csv build/test_tmp_batch.csv --seed 9"},
                           {"OneImage "});
    for (const std::string& line : sat::split_list(out, '\n'))  // the table within 120 columns
        if (line.find("3x97x89") != std::string::npos || line.find("B x rows x cols") != std::string::npos)
            CHECK(line.size() <= 120);
    const std::vector<std::string> rows = sat::split_list(file_text(csv), '\n');
    REQUIRE(rows.size() == 3);
    CHECK(rows[0] == sat::csv_header());
    CHECK(rows[0].substr(rows[0].size() - 6) == ",batch");
    for (std::size_t k = 1; k < rows.size(); ++k) CHECK(rows[k].substr(rows[k].size() - 2) == ",3");
    // A CSV of an older harness (no batch column) is not appended to: rows of two widths mislead.
    {
        std::ofstream old(csv);
        old << sat::csv_header_without_batch() << "\n";
    }
    CHECK(lab_main_output("--size 8 --reps 0 --csv " + csv, &out, "96") == 2);
    CHECK(out == "lab96: " + csv + ": holds the CSV header of an older harness (no batch column); name a new file\n");
}
