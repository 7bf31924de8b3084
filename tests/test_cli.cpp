// The shared command line: parsing, and one clear line with exit code 2 for every bad input.
#include <algorithm>

#include "io.h"
#include "test_util.h"

using sat::DType;

namespace {
sat::Options parse(std::vector<const char*> args, const sat::LabInfo& lab = *sat::find_lab(1)) {
    args.insert(args.begin(), "lab1");
    return sat::parse_cli(int(args.size()), args.data(), lab);
}
// Exit status and output of a lab binary; the binaries are built by `make test` first.
int run_lab(const std::string& args, std::string* out) { return sat_test::run_command(args, out); }
// "./lab5-ref"; lab 8x is registered as number 80.
std::string ref_binary(const sat::LabInfo& lab) {
    const int n = lab.number;
    return "./lab" + (n == 80 ? std::string("8x") : std::to_string(n)) + "-ref";
}
std::size_t line_count(const std::string& text) {
    return std::count(text.begin(), text.end(), '\n');
}
}  // namespace

TEST_CASE("cli parses sizes, types, variants and options", "[cpu][cli]") {
    const auto o = parse({"--sizes", "64,1080x1920", "--type", "f64,u8i32", "--variant", "threaded",
                          "--reps", "3", "--seed", "99", "--csv", "x.csv"});
    REQUIRE(o.shapes.size() == 2);
    CHECK(o.shapes[0].rows == 64);
    CHECK(o.shapes[1].rows == 1080);
    CHECK(o.shapes[1].cols == 1920);
    REQUIRE(o.types.size() == 2);
    CHECK(o.types[1] == DType::u8i32);
    CHECK(o.variants == std::vector<std::string>{"threaded"});
    CHECK(o.reps == 3);
    CHECK(o.seed == 99);
    CHECK(o.seed_given);
    CHECK(o.csv == "x.csv");
    const auto rc = parse({"--rows", "3", "--cols", "5"});
    REQUIRE(rc.shapes.size() == 1);
    CHECK(rc.shapes[0].rows == 3);
    CHECK(rc.shapes[0].cols == 5);
    // Each occurrence counts, in command-line order; --opt=value is accepted too (CLI11).
    const auto twice = parse({"--size", "64", "--size=3x7"});
    REQUIRE(twice.shapes.size() == 2);
    CHECK(twice.shapes[1].rows == 3);
    CHECK(twice.shapes[1].cols == 7);
    CHECK(parse({"--wide"}).wide);
    CHECK(parse({"--list"}).list);
    CHECK(parse({"-h"}).help);
}

TEST_CASE("cli rejects bad arguments with a message naming the problem", "[cpu][cli]") {
    using Catch::Contains;
    CHECK_THROWS_WITH(parse({"--size", "0"}), Contains("--size needs an integer"));
    CHECK_THROWS_WITH(parse({"--size", "12abc"}), Contains("'12abc'"));
    for (const char* bad : {"3x", "x5", "3x0", "3x5x7", "0x4"})
        CHECK_THROWS_WITH(parse({"--size", bad}), Contains("--size needs an integer in [1, 2147483647] on each side of "
                                                           "the x, got '" + std::string(bad) + "'"));
    CHECK_THROWS_WITH(parse({"--type", "nope"}), Contains("unknown --type 'nope'"));
    CHECK_THROWS_WITH(parse({"--variant", "fast"}), Contains("unknown --variant 'fast'"));
    CHECK_THROWS_WITH(parse({"--frobnicate"}), Contains("unknown option"));
    CHECK_THROWS_WITH(parse({"--size"}), Contains("--size needs a value"));
    CHECK_THROWS_WITH(parse({"--rows", "5"}), Contains("--rows and --cols go together"));
    CHECK_THROWS_WITH(parse({"--box", "3"}), Contains("--box needs --output"));
    CHECK_THROWS_WITH(parse({"--r", "0.5"}), Contains("has no r parameter"));
    CHECK_THROWS_WITH(parse({"--seed", "-4"}), Contains("--seed needs a non-negative integer"));
    CHECK_THROWS_WITH(parse({"--size", "--reps", "3"}), Contains("got '--reps'"));
    CHECK_THROWS_WITH(parse({"stray"}), Contains("unexpected argument 'stray'"));
    CHECK_THROWS_WITH(parse({"--output", "y.jpg"}), Contains("unknown format"));
    CHECK_THROWS_WITH(parse({"--output", ""}), Contains("unknown format"));
    CHECK_THROWS_WITH(parse({"--box", "2", "--output", "y.npy"}), Contains("needs .png or .pgm"));
    CHECK_THROWS_WITH(parse({"--trace", "t.png"}), Contains("lab 1 records no tile trace"));
    CHECK_THROWS_WITH(parse({"--model", "--csv", "x.csv"}), Contains("--model measures nothing"));
    CHECK(sat::output_format("y.PNG") == sat::OutputFormat::png);
    CHECK(sat::output_format("Y.Npy") == sat::OutputFormat::npy);
    CHECK(sat::output_format(".png") == sat::OutputFormat::unknown);
}

TEST_CASE("lab binaries: bad arguments print one line on stderr and exit 2", "[cpu][cli]") {
    for (const char* args : {"./lab1-ref --size 0", "./lab1-ref --type nope", "./lab1-ref --input build/missing.png",
                             "./lab1-ref --bogus"}) {
        std::string out;
        INFO(args << " printed: " << out);
        CHECK(run_lab(args, &out) == 2);
        CHECK(line_count(out) == 1);
        CHECK(out.rfind("lab1-ref: ", 0) == 0);  // the binary names itself as called
    }
}

TEST_CASE("./lab1 runs its default table and prints PASS rows", "[cpu][cli][repo]") {
    std::string out;
    REQUIRE(run_lab("./lab1-ref --sizes 256,97x89 --reps 2", &out) == 0);
    sat_test::check_output(out, {"2R2W(CPU)", "4R1W(CPU)", "threaded", "PASS",
                                 "reproduce: ./lab1-ref --sizes 256,97x89 --reps 2 --seed "}, {"FAIL"});
}

TEST_CASE("./lab1 --input image --output sat.npy round-trips real data", "[cpu][cli][repo]") {
    std::string out;
    REQUIRE(run_lab("./lab1-ref --box 2 --size 64 --output build/test_tmp_card.png --reps 0 && "
                    "./lab1-ref --input build/test_tmp_card.png --output build/test_tmp_sat.npy --reps 1", &out) == 0);
    INFO(out);
    const sat::HostMatrix m = sat::read_matrix("build/test_tmp_sat.npy");
    CHECK(m.dtype == "i4");
    CHECK(m.shape.rows == 64);
    CHECK(m.shape.cols == 64);
    CHECK(out.find("PASS") != std::string::npos);
}

TEST_CASE("a GPU lab on a machine without a GPU prints one clear line and exits 2", "[cpu][cli]") {
    // CUDA_VISIBLE_DEVICES= hides any GPU, so this runs the same with and without one.
    int tried = 0;
    for (const sat::LabInfo* lab : sat::all_labs()) {
        if (!lab->gpu) continue;
        const std::string binary = ref_binary(*lab);
        std::string out;
        const int rc = run_lab("CUDA_VISIBLE_DEVICES= " + binary + " --size 64", &out);
        INFO(binary << " printed: " << out);
        CHECK(rc == 2);
        CHECK(line_count(out) == 1);
        CHECK(out.find("GPU") != std::string::npos);
        CHECK(out.find("lab 1") != std::string::npos);  // says what still runs
        ++tried;
    }
    CHECK(tried >= 1);
}

TEST_CASE("--model prints the cost formulas without a GPU", "[cpu][cli]") {
    for (const sat::LabInfo* lab : sat::all_labs()) {
        if (!lab->gpu) continue;
        std::string out;
        const std::string binary = ref_binary(*lab);
        REQUIRE(run_lab("CUDA_VISIBLE_DEVICES= " + binary + " --model --size 4096", &out) == 0);
        INFO(out);
        for (const sat::Variant& v : lab->variants) CHECK(out.find(v.name) != std::string::npos);
        CHECK(out.find("time units") != std::string::npos);
    }
}

TEST_CASE("--batch B: 1..65535, for labs and variants that take batches, on generated data", "[cpu][cli]") {
    using Catch::Contains;
    const sat::LabInfo& lab9 = *sat::find_lab(9);
    CHECK(parse({"--batch", "4", "--size", "1080x1920"}, lab9).batch == 4);
    CHECK(parse({}, lab9).batch == 1);
    CHECK(parse({"--batch", "1"}).batch == 1);  // one image: any lab
    for (const char* bad : {"0", "-1", "70000", "junk", "2x"})
        CHECK_THROWS_WITH(parse({"--batch", bad}, lab9), Contains("--batch needs an integer in [1, 65535], got '" + std::string(bad) + "'"));
    CHECK_THROWS_WITH(parse({"--batch", "2"}), Contains("--batch: lab 1 has no variant that takes a batch of images"));
    CHECK_THROWS_WITH(parse({"--batch", "2", "--input", "x.png"}, lab9), Contains("--batch runs generated images"));
    CHECK_THROWS_WITH(parse({"--batch", "2", "--box", "2", "--output", "y.png"}, lab9), Contains("--batch runs generated images"));
    CHECK_THROWS_WITH(parse({"--batch", "2", "--trace", "t.png"}, lab9), Contains("--trace pictures one image"));
    // A variant named with --variant that takes one image at a time is refused by name.
    sat::LabInfo mixed = lab9;
    sat::Variant single = mixed.variants[0];
    single.name = "OneImage", single.batches = false;
    mixed.variants.push_back(single);
    CHECK(parse({"--batch", "3", "--variant", "LookBack"}, mixed).batch == 3);
    CHECK_THROWS_WITH(parse({"--batch", "3", "--variant", "OneImage"}, mixed),
                      Contains("--batch: variant 'OneImage' takes one image at a time (batches: LookBack)"));
}

TEST_CASE("lab binaries: a bad --batch is one line and exit 2, before the GPU check", "[cpu][cli]") {
    for (const char* args : {"./lab9-ref --batch 0", "./lab9-ref --batch 70000", "./lab9-ref --batch x",
                             "./lab5-ref --batch 2", "./lab9-ref --batch 2 --input photo.png", "./lab8x-ref --batch 2"}) {
        std::string out;
        const int rc = run_lab(std::string("CUDA_VISIBLE_DEVICES= ") + args, &out);
        INFO(args << " printed: " << out);
        CHECK(rc == 2);
        CHECK(line_count(out) == 1);
        CHECK(out.find("--batch") != std::string::npos);
        CHECK(out.find("GPU") == std::string::npos);
    }
    // --model: the cost of the whole batch in one launch (the units times B, the latencies once):
    // 2n/w + 3n/w^2 = 129600 + 6075 units for n = 1080 x 1920.
    std::string one, three;
    REQUIRE(run_lab("CUDA_VISIBLE_DEVICES= ./lab9-ref --model --size 1080x1920", &one) == 0);
    REQUIRE(run_lab("CUDA_VISIBLE_DEVICES= ./lab9-ref --model --size 1080x1920 --batch 3", &three) == 0);
    INFO(one << three);
    CHECK(one.find("1.357e+05 time units + 2 l") != std::string::npos);
    CHECK(three.find("3 x  1080x1920") != std::string::npos);
    CHECK(three.find("4.07e+05 time units + 2 l") != std::string::npos);
}
