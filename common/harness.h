// harness.h — the harness as the lab binaries, the tests and the grader use it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "hmm.h"
#include "sat.h"

namespace sat {

// ---- Checking --------------------------------------------------------------------------------

// Which generated data a run uses (--data): `exact`, small non-zero integers whose every partial
// sum is exact, so every type is checked bit for bit; `real`, f32 uniform in [0, 1) (the f32
// rounding lesson of labs 1 and 5), checked against a rounding bound (docs/hmm.md).
enum class DataKind { exact, real };

// Result of comparing an output with the CPU reference (common/check.cpp).
struct CheckReport {
    bool pass = false;
    std::size_t checked = 0;         // elements compared
    std::size_t wrong = 0;           // elements outside tolerance (NaN is always wrong)
    long first_row = -1, first_col = -1;
    double first_expected = 0, first_got = 0;
    bool first_unwritten = false;    // the first wrong element still holds the poison
    double max_error = 0;            // largest |got - expected|
    std::string canary;              // empty, or where an out-of-bounds write landed
    std::string tolerance;           // "exact" or the f32/f64 bound used
    std::string repetition;          // empty, or which timed repetition differed from the checked run
    // A batch (--batch B): the first wrong element's image (0-based) and the images checked;
    // first_row/first_col are within that image. images == 1: no image is named.
    long first_image = -1;
    int images = 1;
    std::string message() const;     // one line: "PASS" or what is wrong, where
};

// ---- One measured run ------------------------------------------------------------------------

struct RunRequest {
    const LabInfo* lab = nullptr;
    const Variant* variant = nullptr;
    DType type = DType::f32;
    Shape shape;
    std::uint64_t seed = 1;
    DataKind data = DataKind::exact;  // generated data (ignored with `input`)
    int reps = 0;                 // timed repetitions after the check; 0 = check only
    double r = -1;                // Workspace::r
    int cpu_threads = 0;          // Workspace::cpu_threads
    int batch = 1;                // Workspace::batch: images of `shape` back to back (variants that batch)
    std::string trace_png;        // when set, write the tile-completion picture here
    // Optional real data instead of generated data (host, row-major, element type of `type`'s
    // input); and where to copy the output to (host, element type of the output), if wanted.
    const void* input = nullptr;
    void* output = nullptr;
    // Lab 10's row strips as the command line gave them (0: not given): --gpus G, one strip per
    // GPU; --strips G, G strips on one GPU; --slice-rows R, rows per slice of its check.
    int gpus = 0, strips = 0, slice_rows = 0;
};

struct Measurement {
    std::string device;           // GPU name, or the CPU's for lab 1
    int lab = 0;
    std::string variant;
    DType type = DType::f32;
    Shape shape;                  // of one image
    int batch = 1;                // images of `shape` in the run (--batch)
    int reps = 0;
    double median_ms = 0, min_ms = 0, max_ms = 0;
    double copy_ms = 0;           // device-to-device (CPU: memcpy) copy of the same bytes
    double gbps = 0;              // (input bytes + output bytes) / median time
    double pct_copy = 0;          // copy_ms / median_ms * 100
    std::string hmm_formula;      // symbolic
    hmm::Cost hmm_cost;           // evaluated
    double predicted_ms = 0;      // from the calibration; NaN when the model has no formula
    hmm::Calibration calibration;
    double r = -1;
    std::uint64_t seed = 0;
    CheckReport check;
    std::string error;            // an exception, CUDA error or spin timeout; empty if none
    std::string problem;          // Problem::name() of the variant ("SAT", "halftone", ...)
    std::string type_name;        // the type column: Problem::type_name (dtype_name for the SAT)
    double cpu_reference_ms = 0;  // how long the CPU took for the answer this run was checked against
    bool ok() const { return error.empty() && check.pass; }
    std::string verdict() const;  // PASS / FAIL / ERROR
};

// One run of request.variant through its problem's run() (Problem::run). By default: generate (or
// take) the input (Problem::generate), run the variant once into a poisoned output with canaries,
// check it against the CPU answer (Problem::answer, Problem::check), then time `reps` runs,
// comparing each one's output (and canaries) bit for bit with the checked run's outside the timed
// region. Never throws: errors land in Measurement::error.
Measurement run_variant(const RunRequest& request);

// ---- Environment -----------------------------------------------------------------------------

// True when a CUDA device can run kernels; otherwise `why` says what is missing.
bool gpu_available(std::string* why = nullptr);
std::string device_name();
// l of the HMM on the current device (runner.cu), measured once per process.
void calibrate_latency(hmm::Calibration& cal);

// ---- Command line ----------------------------------------------------------------------------

struct Options {
    std::vector<Shape> shapes;          // empty: the lab's defaults
    std::vector<DType> types;           // empty: f32 (lab default)
    std::vector<std::string> variants;  // empty: all
    int reps = -1;                      // -1: default (GPU 20, CPU 5)
    std::uint64_t seed = 0;
    bool seed_given = false;
    DataKind data = DataKind::exact;    // --data exact|real
    std::string csv, input, output, trace;
    int box = -1;                       // --box R: box filter of radius R on --input
    double r = -1;
    bool sweep = false;
    bool model = false;                 // --model: print cost formulas only (no GPU needed)
    bool wide = false;                  // --wide: the HMM cost columns too
    bool list = false;                  // --list: the variants as JSON, for tools
    bool help = false;
    int threads = 0;
    int batch = 1;                      // --batch B: B images of each shape in one run (variants that batch)
    // Lab 8x: which problem (empty: all the lab has), and the knapsack instances.
    std::string problem;
    int items = 4095;                   // --items: n (n + 1 = 4096, as in the paper)
    std::vector<int> capacities;        // --capacity/--capacities: W (empty: 16383, W + 1 = 16K)
    int variant_width = 18;             // the table's variant column: the lab's longest name, at least 18
    // Lab 10: G GPUs, one row strip each (--gpus), or G strips on one GPU (--strips); 0: not
    // given. Rows per slice of its CPU check (--slice-rows; 0: as many as 256 MiB hold).
    int gpus = 0, strips = 0, slice_rows = 0;
};

// ---- Problems --------------------------------------------------------------------------------
// What a variant computes, from the harness's side. The SAT (sat_problem(), common/sat_problem.cpp)
// is one; lab 8x adds the halftone and the knapsack (common/tasks.cpp). A problem makes the input,
// computes its CPU answer, checks an output and gives its cost model; run_variant does the rest for
// every problem alike (poisoned output with canaries, the check, timed repetitions each compared
// with the checked run, L2 flush, page touch, the copy baseline), and lab_main, the table and the
// CSV show them alike.

// The CPU answer for one input: every variant of one instance is checked against it.
struct Answer {
    virtual ~Answer() = default;
    Shape shape;        // of the output, rows x cols, row-major
    double cpu_ms = 0;  // how long the CPU took
};

// The HMM cost of a variant on one instance.
struct CostModel {
    std::string symbolic;  // "2n/w + m l"
    hmm::Cost cost;
    std::string note;      // its source, or the task array it walks
};

// Bytes one run moves, for GB/s and the copy baseline (a device copy of half as many bytes, read
// and written), and the HMM time units of that copy (w words a unit), for the calibration.
struct Traffic {
    double bytes = 0;
    double units = 0;
};

struct Problem {
    virtual ~Problem() = default;
    virtual std::string name() const = 0;  // "SAT", "halftone", "knapsack"
    // The instances and types a command line asks for; an empty type list: the harness's default
    // (f32, or the type of an --input file). instances() throws UsageError for options it cannot
    // run (lab_main prints the line and exits 2 before any GPU work).
    virtual std::vector<Shape> instances(const Options& opt, const LabInfo& lab) const = 0;
    virtual std::vector<DType> types(const Options& opt) const = 0;
    virtual std::string type_name(DType t) const { return dtype_name(t); }
    virtual std::size_t input_bytes(DType t, Shape s) const = 0;
    virtual Shape output_shape(Shape s) const { return s; }  // elements of the output (a transpose: as many)
    virtual std::size_t output_element_bytes(DType t) const = 0;
    virtual double output_value(DType t, const unsigned char* element) const = 0;  // for messages
    virtual void generate(DType t, Shape s, std::uint64_t seed, DataKind data, void* input) const = 0;
    virtual std::shared_ptr<const Answer> answer(DType t, Shape s, const void* input, const Variant& v) const = 0;
    // The output (Answer::shape elements) against the answer, exactly where the problem is exact.
    virtual CheckReport check(DType t, const Answer& answer, const void* output) const = 0;
    virtual Traffic traffic(DType t, Shape s) const = 0;
    // The HMM cost of one t image of shape s (SKSS's steps are 16 bytes of the output per lane).
    virtual CostModel cost(const Variant& v, Shape s, double r, DType t) const = 0;
    // The options that repeat one instance ("--rows 97 --cols 89 --type f32").
    virtual std::string instance_args(const Options& opt, DType t, Shape s) const = 0;
    // Host bytes of the answer (the memory check before any run).
    virtual double answer_bytes(DType t, Shape s, bool from_file) const = 0;
    // --input feeds this problem; --output writes its output (reads_files() problems only).
    virtual bool reads_files() const { return false; }
    virtual void write_output(const Options& opt, bool gpu, DType t, Shape s, const void* output,
                              const void* input) const;
    // A line before the runs (sums that wrap), or empty; file_input is null for generated data.
    virtual std::string warning(DType, Shape, const void* /*file_input*/) const { return ""; }
    // Lines after the table from this problem's measurements (speed-ups, CPU times), or empty.
    virtual std::string summary(const std::vector<Measurement>&) const { return ""; }

    // ---- The run hooks. The defaults are the path of every problem whose run fits one device and
    // one host buffer each for its input, answer and output. Lab 10 (row strips across GPUs,
    // common/multigpu.cu) overrides them: its data are made strip by strip, its check goes in
    // slices, and its strips are placed across devices.
    // The cost of one run as `req` places it (--model and the run); default: cost(variant, shape,
    // r, type), times the batch's images in the transfer term.
    virtual CostModel cost_of(const RunRequest& req) const;
    // Before the runs, once a GPU is found: empty when this machine can run `req`, else the one
    // line lab_main prints before it exits with 2. The default (lab_main.cpp): the host's and the
    // GPU's free memory against one run's input, answer, output, copy baseline and scratch, with
    // file_bytes for an --input file.
    virtual std::string refusal(const RunRequest& req, const Options& opt, double file_bytes) const;
    // Where the runs go, for the title line (lab 10: "4 strips on one GPU, exchange: ..."), or
    // empty: one device. Called once refusal() has passed.
    virtual std::string placement(const Options&) const { return ""; }
    // One run of req.variant, as run_variant says (run_variant calls it). The default (runner.cu):
    // one device, the output poisoned and fenced by canaries, checked against answer().
    virtual Measurement run(const RunRequest& req) const;
};
const Problem& sat_problem();
const Problem& problem_of(const Variant& v);  // v.problem, or the SAT
// A lab's problems, in the order of its variants.
std::vector<const Problem*> lab_problems(const LabInfo& lab);
// --variant NAME picks v: its name, or for a variant of another problem than the SAT the part
// after "problem/" ("SKSS" picks halftone/SKSS and knapsack/SKSS).
bool variant_matches(const Variant& v, const std::string& name);
// "5", "8x" (lab 8x is registered as number 80).
std::string lab_id(const LabInfo& lab);

// Thrown for a bad command line; lab_main prints "labN: <message>" and exits 2.
struct UsageError : Error {
    using Error::Error;
};
Options parse_cli(int argc, const char* const* argv, const LabInfo& lab);
std::string usage(const LabInfo& lab);
std::string variants_json(const LabInfo& lab);  // --list: {"lab": N, "variants": [{"name": ...}]}
bool lab_has_trace(const LabInfo& lab);          // labs whose kernels record tile completion
// The format of an --output file, by its suffix in any case.
enum class OutputFormat { npy, png, pgm, unknown };
OutputFormat output_format(const std::string& path);
DType parse_dtype(const std::string& text);  // throws UsageError
// Pieces of the parser (common/cli.cpp), for the option table and tests; each throws UsageError.
std::vector<std::string> split_list(const std::string& text, char sep);
long parse_integer(const std::string& option, const std::string& text, long lo, long hi);
std::uint64_t parse_seed(const std::string& text);  // --seed: a non-negative 64-bit integer
std::uint64_t fresh_seed();                         // without --seed: random, to be printed
// Quoted for a POSIX shell when needed; "./prog args --seed S", the command that repeats a run
// (prog as called: "./" is added only when it names no folder).
std::string shell_word(const std::string& arg);
std::string reproduce_line(const std::string& prog, int argc, const char* const* argv, std::uint64_t seed);
// The command that repeats one failed run: the same input file (or shape), type, variant, seed.
std::string reproduce_run(const std::string& command, const Options& opt, Shape s, DType t,
                          const std::string& variant, std::uint64_t seed,
                          const Problem& problem = sat_problem());
// "4096" (square) or "1080x1920" (rows x cols, like the table and --rows/--cols).
Shape parse_shape(const std::string& option, const std::string& text, long max_side = 2147483647L);
// Open a CSV file for appending, writing (and flushing) csv_header() first when it is new. Null
// when the file cannot be written or holds another header; `why` then says which, in one line.
FILE* open_csv(const std::string& path, std::string* why = nullptr);
// Write (and flush) one line to a CSV opened by open_csv; throws Error when the write fails.
void write_csv_line(FILE* csv, const std::string& path, const std::string& line);
// Close it, checking the last flush; throws Error on failure.
void close_csv(FILE* csv, const std::string& path);

// The whole `./labN` program: parse, run, print the table, write the CSV. Returns the exit code
// (0 all PASS, 1 a check failed or a run errored, 2 bad usage / no GPU / unreadable input).
int lab_main(int argc, const char* const* argv, const char* lab_id);

// Terminal table and CSV (common/report.cpp).
// "1080x1920" (rows x cols), and for a batch of B images "Bx1080x1920".
std::string shape_text(Shape s, int batch = 1);
// The table fits 120 columns; --wide adds the HMM cost. A row that did not pass shows no speed.
std::string table_header(const Options& opt);
std::string table_row(const Measurement& m, const Options& opt);
void print_header(const LabInfo& lab, const Options& opt);
void print_row(const Measurement& m, const Options& opt);
// One line for a variant whose output was never written (an untouched skeleton): `todo` says what to do.
void print_todo_row(const Measurement& m, const Options& opt, const std::string& todo);
// The CSV columns; `batch` (images per run, --batch) is the last, after the columns of CSV files
// written before it existed (csv_header_without_batch), so readers of those still work.
std::string csv_header();
std::string csv_header_without_batch();
std::string csv_row(const Measurement& m);

}  // namespace sat
