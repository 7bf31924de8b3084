// Self-tests of the instructor tools (tools/grade.py, tools/release.py, tools/sanitize.py,
// tools/mutants.py, tools/run_tests.py), on the CPU so that they run in CI. Grading happens in a
// small copy of the repository that holds lab 1 only (build/grader_test/repo; objects already
// built are copied with their times, so little is recompiled): the reference scores full marks,
// the skeleton zero, a planted off-by-one loses its correctness points, a crash or a hang costs
// only the tests it hits, no process a test leaves behind outlives it, and the JUnit XML fits a
// strict schema. The student release is written, built and graded (zero, cleanly) and holds no
// solution code. Every mutant spec applies, and a
// CPU mutant is caught by make mutants.
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "test_util.h"

namespace {

const std::string kDir = "build/grader_test";
const std::string kMini = kDir + "/repo";
const std::string kLab1 = "lab1_cpu.cpp";

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    REQUIRE(out.good());
}

// Summarises and validates build/results.json and build/junit.xml of a grade: one line per lab
// and kind ("lab1.correctness 70/70"), then "score X" and "junit N testcases". The JUnit file
// must fit the strict schema Jenkins xunit uses (junit-10.xsd): only these attributes and child
// elements, and no `skipped` on <testsuites>.
const char* const kScoresPy = R"(import json, sys, xml.etree.ElementTree as ET
d = json.load(open(sys.argv[1] + "/results.json"))
suites = ET.parse(sys.argv[1] + "/junit.xml").getroot()
assert suites.tag == "testsuites", suites.tag
assert set(suites.attrib) <= {"name", "time", "tests", "failures", "disabled", "errors"}, suites.attrib
for suite in suites:
    assert suite.tag == "testsuite", suite.tag
    assert {"name", "tests"} <= set(suite.attrib), suite.attrib
    assert set(suite.attrib) <= {"name", "tests", "failures", "errors", "time", "disabled", "skipped",
                                 "timestamp", "hostname", "id", "package"}, suite.attrib
    cases = suite.findall("testcase")
    assert int(suite.get("tests")) == len(cases), suite.attrib
    assert int(suite.get("skipped", 0)) == sum(1 for c in cases if c.find("skipped") is not None)
    for case in suite:
        assert case.tag in ("testcase", "properties", "system-out", "system-err"), case.tag
        assert "name" in case.attrib and set(case.attrib) <= {"name", "assertions", "time", "classname", "status"}
        for child in case:
            assert child.tag in ("skipped", "error", "failure", "system-out", "system-err"), child.tag
            assert set(child.attrib) <= {"message", "type"}, child.attrib
tot = {}
for t in d["tests"]:
    for k in ("name", "score", "max_score", "output", "visibility"):
        assert k in t, (k, t)
    assert t["visibility"] in ("visible", "hidden", "after_due_date", "after_published"), t
    assert 0 <= t["score"] <= t["max_score"] + 1e-9, t
    key = t["tags"][0] + "." + t["tags"][1]
    s, m = tot.get(key, (0.0, 0.0))
    tot[key] = (s + t["score"], m + t["max_score"])
assert abs(sum(t["score"] for t in d["tests"]) - d["score"]) < 1e-6
for key in sorted(tot):
    print("%s %g/%g" % (key, round(tot[key][0], 2), round(tot[key][1], 2)))
print("score %g" % round(d["score"], 2))
print("junit %d testcases" % len(suites.findall(".//testcase")))
)";

// The small repository, made once per test run.
void make_mini() {
    static bool made = false;
    if (made) return;
    std::string out;
    const std::string script =
        "set -e; M=" + kMini + "; rm -rf " + kDir + "; "
        "mkdir -p $M/tests/hidden $M/labs $M/solutions $M/tools $M/build/obj/tests; "
        "cp -p Makefile $M/; cp -rp common $M/; "
        "cp -p tests/main.cpp tests/test_util.h tests/test_lab1.cpp $M/tests/; "
        "cp -p tests/hidden/test_lab1_hidden.cpp $M/tests/hidden/; "
        "cp -p solutions/" + kLab1 + " $M/solutions/; cp -p labs/" + kLab1 + " $M/labs/; "
        "cp -p tools/grade.py tools/sanitize.py tools/deps.sh $M/tools/; "
        "if [ -d .deps ]; then ln -s \"$PWD/.deps\" $M/.deps; fi; "
        "cp -p build/deps.ok $M/build/ 2>/dev/null || true; "
        "cp -rp build/obj/common $M/build/obj/ 2>/dev/null || true; "
        "cp -p build/obj/tests/main.cpp.o $M/build/obj/tests/ 2>/dev/null || true";
    INFO(out);
    REQUIRE(sat_test::run_command(script, &out) == 0);
    write_file(kDir + "/scores.py", kScoresPy);
    made = true;
}

struct Grade {
    int rc = -1;
    std::string out;     // what grade.py printed
    std::string scores;  // kScoresPy's summary
    std::string json;    // results.json
};

Grade grade_in(const std::string& repo, const std::string& flags) {
    Grade g;
    g.rc = sat_test::run_command("(cd " + repo + " && python3 tools/grade.py --gpu no " + flags + ")", &g.out);
    const int valid = sat_test::run_command("python3 " + kDir + "/scores.py " + repo + "/build", &g.scores);
    g.json = read_file(repo + "/build/results.json");
    INFO(g.out << "\n" << g.scores);
    CHECK(g.rc == 0);
    CHECK(valid == 0);  // results.json and junit.xml are well formed
    return g;
}

// Lab 1 in the small repository as `text`, then graded.
Grade grade_lab1(const std::string& text, const std::string& flags = "") {
    make_mini();
    write_file(kMini + "/labs/" + kLab1, text);
    return grade_in(kMini, "--lab 1 " + flags);
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    INFO("planting a fault: '" << from << "' not found in solutions/" << kLab1);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

// Insert `code` at the start of the body of `function` (its definition is its first mention).
std::string insert_in_body(std::string text, const std::string& function, const std::string& code) {
    auto at = text.find(function + "(");
    INFO("planting a fault: no " << function << "( in solutions/" << kLab1);
    REQUIRE(at != std::string::npos);
    at = text.find('{', at);
    REQUIRE(at != std::string::npos);
    return text.insert(at + 1, "\n" + code + "\n");
}

double points(const std::string& scores, const std::string& key) {
    const auto at = scores.find(key + " ");
    if (at == std::string::npos) return -1;
    return std::stod(scores.substr(at + key.size() + 1));
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST_CASE("grader: the reference solution of lab 1 scores full marks", "[cpu][grader]") {
    // Another lab whose code and tests do not compile (work in progress) is not even built for
    // lab 1: each lab has its own test binary, linked with that lab's code alone.
    make_mini();
    write_file(kMini + "/solutions/lab3_broken.cpp", "this lab does not compile yet\n");
    write_file(kMini + "/labs/lab3_broken.cpp", "this lab does not compile yet\n");
    write_file(kMini + "/tests/test_lab3.cpp", "this test file does not compile yet\n");
    const Grade g = grade_lab1(read_file("solutions/" + kLab1));
    std::remove((kMini + "/solutions/lab3_broken.cpp").c_str());
    std::remove((kMini + "/labs/lab3_broken.cpp").c_str());
    std::remove((kMini + "/tests/test_lab3.cpp").c_str());
    INFO(g.out << "\n" << g.scores);
    CHECK(!has(g.out, "lab3"));
    CHECK(has(g.out, "build/tests-labs/lab1"));
    CHECK(has(g.scores, "lab1.correctness 70/70"));
    CHECK(has(g.scores, "lab1.bonus 10/10"));
    // The reference timed against itself: 30/30 on a quiet machine. A CI machine shared with
    // other jobs can slow one run of the threaded variant down, so allow timing noise here
    // (and only timing: every variant was timed and passed its check).
    CHECK(points(g.scores, "lab1.speed") >= 24);
    CHECK(!has(g.out, "failed its check"));
    CHECK(!has(g.out, "no speed points"));
    CHECK(has(g.json, "\"after_published\""));  // the hidden test is marked hidden
}

TEST_CASE("grader: the untouched lab 1 skeleton scores zero cleanly; GPU labs are not run without a GPU",
          "[cpu][grader]") {
    make_mini();
    write_file(kMini + "/labs/" + kLab1, read_file("labs/" + kLab1));
    // A GPU lab (a .cu file): without a GPU the grader does not build it, and its race tests
    // (racecheck, synccheck) are reported as skipped.
    write_file(kMini + "/labs/lab2_gpu.cu", "this GPU lab is not built without a GPU\n");
    write_file(kMini + "/solutions/lab2_gpu.cu", "this GPU lab is not built without a GPU\n");
    const Grade g = grade_in(kMini, "--lab 1,2");
    std::remove((kMini + "/labs/lab2_gpu.cu").c_str());
    std::remove((kMini + "/solutions/lab2_gpu.cu").c_str());
    const std::string junit = read_file(kMini + "/build/junit.xml");
    CHECK(has(junit, "<skipped message=\"skipped: racecheck needs a GPU"));
    CHECK(has(junit, "<skipped message=\"skipped: synccheck needs a GPU"));
    INFO(g.out << "\n" << g.scores);
    CHECK(has(g.scores, "lab1.correctness 0/70"));
    CHECK(has(g.scores, "lab1.bonus 0/10"));
    CHECK(has(g.scores, "lab1.speed 0/30"));
    CHECK(has(g.scores, "lab2.correctness 0/70"));
    CHECK(has(g.scores, "lab2.speed 0/30"));
    CHECK(has(g.scores, "score 0"));
    CHECK(has(g.out, "not run: GPU lab"));
    CHECK(has(g.out, "GPU labs not run (--gpu no)"));
    CHECK(has(g.out, "never written"));            // the harness's reason reaches the report
    CHECK(has(g.out, "no speed points"));
    CHECK(!has(g.out, "crashed"));
    CHECK(!has(g.out, "timed out"));
    CHECK(!has(g.out, "does not compile"));
    // The students' view hides the hidden test's name and message; the instructor's shows them.
    CHECK(has(g.out, "lab1 hidden: every variant"));
    CHECK(!has(g.json.substr(0, g.json.find("\"tests\"")), "lab1 hidden: every variant"));
}

TEST_CASE("grader: a planted off-by-one loses its correctness points and every speed point",
          "[cpu][grader]") {
    const std::string wrong = replace_once(read_file("solutions/" + kLab1), "if (j > 0) sum +=", "if (j > 1) sum +=");
    const Grade g = grade_lab1(wrong);
    INFO(g.out << "\n" << g.scores);
    const double correctness = points(g.scores, "lab1.correctness");
    CHECK(correctness > 0);       // the tests that do not use 4R1W still pass...
    CHECK(correctness < 70);      // ...the ones that do fail
    CHECK(has(g.scores, "lab1.bonus 10/10"));
    CHECK(has(g.scores, "lab1.speed 0/30"));
    CHECK(has(g.out, "4R1W(CPU)"));
    CHECK(has(g.out, "no speed points: not every required test passed"));
    CHECK(!has(g.out, "crashed"));
}

TEST_CASE("grader: a crash and a hang cost only the tests they hit, and the report says which",
          "[cpu][grader]") {
    std::string bad = replace_once(read_file("solutions/" + kLab1), "#include <thread>",
                                   "#include <thread>\n#include <chrono>");
    // A write through a null pointer that the compiler cannot see is null (rows < 2^40).
    bad = insert_in_body(bad, "sat_4r1w_cpu",
                         "    *reinterpret_cast<volatile int*>(std::size_t(s.rows) >> 40) = 1;  // planted crash");
    bad = insert_in_body(bad, "sat_threaded_cpu",
                         "    for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(50));  // planted hang");
    const Grade g = grade_lab1(bad, "--timeout 4");
    INFO(g.out << "\n" << g.scores);
    CHECK(has(g.out, "crashed: SIGSEGV"));
    CHECK(has(g.out, "timed out after 4 s"));
    CHECK(points(g.scores, "lab1.correctness") > 0);  // the 2R2W timing test still passes
    CHECK(has(g.scores, "lab1.bonus 0/10"));
    CHECK(has(g.scores, "lab1.speed 0/30"));
    const std::string report = read_file(kMini + "/build/grade/report.txt");
    CHECK(has(report, "reproduce: SAT_TEST_SEED="));
}

// A student's process that outlives its test (run with --no-scan: the scan refuses such code): one in a session of its own with every descriptor
// closed (it could rewrite results.json after the grader wrote it), one that keeps the test's
// output pipe open (the grader would wait for it for ever). Each writes its pid first.
const char* kLeaveDaemon = R"(
#include <fcntl.h>
#include <unistd.h>
#include <cstdio>
static void leave_a_process(bool keep_output) {
    static bool left = false;  // one a test process
    if (left) return;
    left = true;
    if (fork() != 0) return;  // the test goes on
    setsid();
    if (fork() != 0) _exit(0);  // the grandchild is orphaned at once
    char line[32];
    const int n = std::snprintf(line, sizeof line, "%d\n", int(getpid()));
    const int fd = open("build/left_pids", O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) { (void)!write(fd, line, n); close(fd); }
    if (!keep_output)
        for (int d = 0; d < 1024; ++d) close(d);
    sleep(120);
    _exit(0);
}
)";

namespace {
// The pids that kLeaveDaemon's processes wrote: each must be gone once the grader is done.
int check_none_left() {
    std::istringstream pids(read_file(kMini + "/build/left_pids"));
    int count = 0;
    for (int pid; pids >> pid; ++count) {
        INFO("pid " << pid << " was left by a test");
        errno = 0;
        CHECK(kill(pid, 0) == -1);
        CHECK(errno == ESRCH);
    }
    return count;
}
}  // namespace

TEST_CASE("grader: no process a test leaves behind outlives it or keeps the grader waiting", "[cpu][grader]") {
    const std::string with_helper = replace_once(read_file("solutions/" + kLab1), "#include <thread>",
                                                 std::string("#include <thread>\n") + kLeaveDaemon);
    make_mini();
    {
        // Every descriptor closed: the tests pass, and the processes are gone with their tests.
        std::remove((kMini + "/build/left_pids").c_str());
        const Grade g = grade_lab1(insert_in_body(with_helper, "sat_2r2w_cpu", "    leave_a_process(false);"),
                                   "--no-speed --no-scan");
        INFO(g.out << "\n" << g.scores);
        CHECK(has(g.scores, "lab1.correctness 70/70"));
        CHECK(!has(g.out, "timed out"));
        CHECK(check_none_left() >= 1);
    }
    {
        // The output pipe held open: those tests time out, and the grader goes on.
        std::remove((kMini + "/build/left_pids").c_str());
        const Grade g = grade_lab1(insert_in_body(with_helper, "sat_threaded_cpu", "    leave_a_process(true);"),
                                   "--timeout 4 --no-speed --no-scan");
        INFO(g.out << "\n" << g.scores);
        CHECK(has(g.out, "timed out after 4 s"));
        CHECK(points(g.scores, "lab1.correctness") > 0);  // the tests that do not run the threaded SAT
        CHECK(check_none_left() >= 1);
    }
}

TEST_CASE("grader: code that could forge its report (processes, files, the environment) is refused unrun",
          "[cpu][grader]") {
    // A correct SAT that would also end its test early, its exit spelled by a macro, and read
    // which program runs it: the scan reads the preprocessed source, so the macro hides nothing.
    std::string forging = replace_once(read_file("solutions/" + kLab1), "#include <thread>",
                                       "#include <thread>\n#include <unistd.h>\n#define LEAVE(a, b) a##b\n"
                                       "static const char* who_runs = \"/proc/self/cmdline\";");
    forging = insert_in_body(forging, "sat_threaded_cpu", "    if (!who_runs) LEAVE(_ex, it)(0);");
    const Grade g = grade_lab1(forging, "--no-speed");
    INFO(g.out << "\n" << g.scores);
    CHECK(has(g.scores, "lab1.correctness 0/70"));
    CHECK(!has(g.scores, "lab1.bonus 10/10"));  // a correct SAT: no test of it ran
    CHECK(has(g.out, "uses /proc, _exit (first at "));
    CHECK(has(g.out, "so the grader does not run it"));
    const std::string scan = read_file(kMini + "/build/grade/lab1/scan.txt");
    CHECK(has(scan, ": _exit\n"));
    CHECK(has(scan, ": /proc\n"));
}

TEST_CASE("grader: names hidden from the text scan are found in the object, and line markers may not move",
          "[cpu][grader]") {
    // Calls spelled so that no forbidden name stands in the source (a builtin, a *64 variant, an
    // asm label), and a #line that would credit the lines after it to a harness header. None runs
    // (the branch is never taken); the grader refuses the file before any test.
    std::string hidden = replace_once(read_file("solutions/" + kLab1), "#include <thread>",
                                      "#include <thread>\n#include <cstdio>\n"
                                      "extern \"C\" std::FILE* open_by_label(const char*, const char*) __asm__(\"fo\" \"pen\");");
    hidden = insert_in_body(hidden, "sat_threaded_cpu",
                            "    if (s.rows < 0) { fopen64(\"x\", \"w\"); open_by_label(\"y\", \"w\"); __builtin__exit(0); }\n"
                            "#line 1 \"common/sat.h\"");
    const Grade g = grade_lab1(hidden, "--no-speed");
    INFO(g.out << "\n" << g.scores);
    CHECK(has(g.scores, "lab1.correctness 0/70"));
    CHECK(has(g.out, "so the grader does not run it"));
    const std::string scan = read_file(kMini + "/build/grade/lab1/scan.txt");
    for (const char* what : {": a #line, line marker or raw string\n", ".o: fopen64\n", ".o: fopen\n", ".o: _exit\n",
                             ": __asm__\n"})
        CHECK(has(scan, what));
}

TEST_CASE("release: the student copy builds, grades zero cleanly and gives no solution away",
          "[cpu][grader][release]") {
    make_mini();
    const std::string rel = kDir + "/release";
    std::string out;
    {
        const int rc = sat_test::run_command("python3 tools/release.py " + rel, &out);
        INFO(out);
        REQUIRE(rc == 0);
    }
    // What is in and what is not.
    CHECK(sat_test::run_command("test -f " + rel + "/Makefile && test -f " + rel + "/labs/" + kLab1 +
                                " && test -f " + rel + "/common/sat.h && test -f " + rel + "/tests/test_lab1.cpp &&"
                                " test -f " + rel + "/tools/grade.py") == 0);
    // Left out: the instructor's files, and (lab 10 being left out) the files that include the
    // library's header, which the release does not have.
    for (const char* absent : {"solutions", "tests/hidden", "tools/BRIEF.md", "tools/release.py",
                               "tests/test_grader.cpp", "docs/instructor.md", "lib", "common/multigpu.cu",
                               "common/sat_scan.h", "tools/peers.cu"})
        CHECK(sat_test::run_command("test ! -e " + rel + "/" + absent) == 0);
    // Its README names the labs it has: lab 10, which needs the library, is left out.
    CHECK(sat_test::run_command("grep -q 'N = 1 … 9, 8x' " + rel + "/README.md") == 0);
    CHECK(sat_test::run_command("grep -qE '\\./lab10 |\\| lab10 \\|| and lab 10$|lab 10 adds' " + rel + "/README.md") == 1);
    CHECK(sat_test::run_command("grep -qE 'peers satlib|build/peers' " + rel + "/README.md") == 1);  // left out too
    // A lab that includes an earlier one is rebuilt when the student changes that one (mk/labs.mk).
    CHECK(sat_test::run_command("(cd " + rel + " && make -np lab6 2>/dev/null) | grep -q "
                                "'^build/obj/labs/lab6_hybrid.cu.o:.*labs/lab5_wavefront.cu'") == 0);
    CHECK(sat_test::run_command("(cd " + rel + " && make -np lab8 2>/dev/null) | grep -q "
                                "'^build/obj/labs/lab8_skss.cu.o:.*labs/lab7_register_cache.cu'") == 0);
    CHECK(sat_test::run_command("grep -rlE '^[[:space:]]*//[[:space:]]*(BEGIN|END) SOLUTION' " + rel, &out) == 1);
    CHECK(sat_test::run_command("grep -rl 'BEGIN SOLUTION' " + rel, &out) == 1);
    // Its Makefile works without solutions/: make test builds against labs/.
    REQUIRE(sat_test::run_command("(cd " + rel + " && make -n test)", &out) == 0);
    CHECK(has(out, "build/obj/labs/" + kLab1 + ".o"));
    CHECK(!has(out, "solutions/"));
    CHECK(has(out, "~[skeleton]~[repo]"));  // the tests that need the repository are left out
    // It builds (objects made here are reused with their times), and the skeleton fails cleanly.
    REQUIRE(sat_test::run_command(
                "set -e; R=" + rel + "; mkdir -p $R/build/obj; "
                "cp -p build/deps.ok $R/build/ 2>/dev/null || true; "
                "for d in common tests labs; do [ -d build/obj/$d ] && cp -rp build/obj/$d $R/build/obj/ || true; done; "
                "cp -p build/obj/main_1.o $R/build/obj/ 2>/dev/null || true; "
                "if [ -d .deps ]; then ln -s \"$PWD/.deps\" $R/.deps; fi",
                &out) == 0);
    // Every common source, which every lab binary compiles, finds its headers in the release
    // itself (the objects copied above would hide one it lacks).
    {
        const int rc = sat_test::run_command("cd " + rel + " && for f in common/*.cu common/*.cpp; do "
                                             "nvcc -std=c++17 -E -Icommon -I.deps/root/usr/include $f -o /dev/null "
                                             "|| exit 1; done",
                                             &out);
        INFO(out);
        CHECK(rc == 0);
    }
    {
        const int rc = sat_test::run_command("(cd " + rel + " && make -s lab1 && ./lab1 --size 40 --reps 0)", &out);
        INFO(out);
        CHECK(rc == 1);
        CHECK(has(out, "FAIL"));
    }
    const Grade g = grade_in(rel, "--lab 1");
    INFO(g.out << "\n" << g.scores);
    CHECK(has(g.scores, "lab1.correctness 0/70"));
    CHECK(has(g.scores, "lab1.speed 0/30"));
    CHECK(has(g.scores, "score 0"));
    CHECK(!has(g.scores, "lab1.bonus"));  // the bonus test is a hidden one: not in the release
    CHECK(!has(g.out, "crashed"));
    CHECK(!has(g.out, "timed out"));
    CHECK(!has(g.out, "does not"));
}

TEST_CASE("grade and sanitize: clear messages for a wrong lab, a missing lab, the CPU lab", "[cpu][grader]") {
    std::string out;
    CHECK(sat_test::run_command("python3 tools/grade.py --lab 42", &out) == 2);
    CHECK(has(out, "no lab 42"));
    CHECK(sat_test::run_command("python3 tools/grade.py --code no_such_folder", &out) == 2);
    CHECK(has(out, "no such folder"));
    CHECK(sat_test::run_command("python3 tools/sanitize.py", &out) == 2);
    CHECK(has(out, "make sanitize LAB=N"));
    CHECK(sat_test::run_command("python3 tools/sanitize.py 1", &out) == 2);
    CHECK(has(out, "runs on the CPU, nothing to sanitize"));
    // make sanitize: one line and exit 2, before anything is built.
    for (const char* lab : {"1", "42", ""}) {
        const int rc = sat_test::run_command(std::string("make --no-print-directory sanitize LAB=") + lab, &out);
        INFO("make sanitize LAB=" << lab << ":\n" << out);
        CHECK(rc == 2);
        CHECK(std::count(out.begin(), out.end(), '\n') == 1);
    }
    CHECK(sat_test::run_command("make --no-print-directory sanitize LAB=1", &out) == 2);
    CHECK(has(out, "lab 1 runs on the CPU, nothing to sanitize"));
}

TEST_CASE("make print-labs lists every lab as JSON, with its files and whether it runs on the GPU",
          "[cpu][grader]") {
    std::string out;
    REQUIRE(sat_test::run_command(
                "make -s --no-print-directory print-labs | python3 -c 'import json, sys; d = json.load(sys.stdin); "
                "l = {x[\"id\"]: x for x in d[\"labs\"]}; "
                "print(l[\"1\"][\"gpu\"], l[\"5\"][\"gpu\"], l[\"1\"][\"student\"], l[\"5\"][\"solution\"])'",
                &out) == 0);
    INFO(out);
    CHECK(has(out, "False True labs/lab1_"));
    CHECK(has(out, "solutions/lab5_"));
}

TEST_CASE("make test's runner: a crash or a hang costs one count, the others still run, one summed line",
          "[cpu][grader]") {
    std::string out;
    const std::string d = kDir + "/runner";
    REQUIRE(sat_test::run_command("set -e; rm -rf " + d + "; mkdir -p " + d + "; cd " + d + "; "
                                  "printf '#!/bin/sh\\necho \"3 passed, 1 failed, 2 skipped\"\\nexit 1\\n' > counts; "
                                  "printf '#!/bin/sh\\nkill -SEGV $$\\n' > crash; "
                                  "printf '#!/bin/sh\\nexec sleep 60\\n' > hang; "
                                  "printf '#!/bin/sh\\necho \"4 passed, 0 failed, 0 skipped\"\\n' > fine; "
                                  "printf '#!/bin/sh\\necho \"labelled: 5 passed, 0 failed, 0 skipped\"\\n' > labelled; "
                                  "chmod +x counts crash hang fine labelled", &out) == 0);
    const int rc = sat_test::run_command("python3 tools/run_tests.py --timeout 3 " + d + "/counts " + d + "/crash " +
                                         d + "/hang " + d + "/fine " + d + "/labelled", &out);
    INFO(out);
    CHECK(rc == 1);
    CHECK(has(out, "crash: crashed (SIGSEGV)"));
    CHECK(has(out, "hang: timed out after 3 s"));
    // Exit 0, but no counts line of its own: its 5 would be lost from the sum, so it fails.
    CHECK(has(out, "labelled: exited with status 0 without its counts line"));
    // Each binary's wall-clock time: the hang ran until its 3 s limit.
    CHECK(has(out, "-- " + d + "/fine took "));
    const std::string hang_took = "-- " + d + "/hang took ";
    REQUIRE(has(out, hang_took));
    CHECK(std::stod(out.substr(out.find(hang_took) + hang_took.size())) >= 3.0);
    // 3 + 4 passed; 1 reported + the crash + the hang + the labelled line failed; 2 skipped.
    CHECK(out.substr(out.rfind("passed") - 2) == "7 passed, 4 failed, 2 skipped\n");
}

TEST_CASE("make test's runner with --jobs: binaries side by side, the hooks in turn beside them, whole blocks",
          "[cpu][grader]") {
    // a and b each wait for the other to start, so they pass only side by side; c waits for hook
    // h1's file (the hooks' lane runs beside the binaries) and h2 fails unless h1 has ended (the
    // hooks run in turn). Each binary prints two lines 0.2 s apart, which must stay together.
    std::string out;
    const std::string d = kDir + "/jobs";
    REQUIRE(sat_test::run_command("rm -rf " + d + " && mkdir -p " + d, &out) == 0);
    const std::string counts = "echo '1 passed, 0 failed, 0 skipped'\n";
    auto binary = [&](const std::string& name, const std::string& waits_for) {
        std::ofstream(d + "/" + name) << "#!/bin/sh\ncd \"$(dirname \"$0\")\"\ntouch " << name << ".started\n"
                                      << "i=0; while [ ! -e " << waits_for << " ]; do sleep 0.05; i=$((i+1)); "
                                      << "[ $i -gt 200 ] && exit 1; done\n"
                                      << "echo " << name << ": one\nsleep 0.2\necho " << name << ": two\n" << counts;
    };
    binary("a", "b.started"), binary("b", "a.started"), binary("c", "h1.done");
    std::ofstream(d + "/crash") << "#!/bin/sh\nkill -SEGV $$\n";
    for (const std::string slow : {"s1", "s2"})  // a step that would take 30 s, then leave its .done
        std::ofstream(d + "/" + slow) << "#!/bin/sh\ncd \"$(dirname \"$0\")\"\ntouch " << slow << ".started\nsleep 30\ntouch "
                                      << slow << ".done\n";
    std::ofstream(d + "/Makefile") << "slow:\n\t@sleep 30; touch slow.done\n"
                                   << "h1:\n\t@sleep 1; touch h1.done; " << counts << "h2:\n\t@test -e h1.done && "
                                   << counts.substr(0, counts.size() - 1) << " || echo '0 passed, 1 failed, 0 skipped'\n";
    REQUIRE(sat_test::run_command("cd " + d + " && chmod +x a b c crash s1 s2", &out) == 0);
    const std::string runner = "root=$(pwd); cd " + d + " && python3 $root/tools/run_tests.py ";
    // a is named twice and runs once (two copies side by side would share their files).
    const int rc = sat_test::run_command(runner + "--timeout 20 --jobs 3 --hook h1 --hook h2 ./a ./b ./c ./crash ./a", &out);
    INFO(out);
    CHECK(rc == 1);
    for (const std::string name : {"a", "b", "c"})
        CHECK(has(out, "== ./" + name + "\n" + name + ": one\n" + name + ": two\n"));
    CHECK(has(out, "-- make h2 took "));
    CHECK(has(out, "crash: crashed (SIGSEGV)"));
    CHECK(out.substr(out.rfind("passed") - 2) == "5 passed, 1 failed, 0 skipped\n");
    // One at a time (the default), a waits for b until its time runs out.
    REQUIRE(sat_test::run_command("rm -f " + d + "/*.started " + d + "/h1.done", &out) == 0);
    CHECK(sat_test::run_command(runner + "--timeout 2 ./a ./b", &out) == 1);
    CHECK(has(out, "./a: timed out after 2 s"));
    // Ctrl-C after 2 s, one at a time and two side by side: the slow steps are killed (no .done a
    // second later), a and the hook after the slow one never start, exit status 130.
    for (const char* jobs : {"1 ./s1 ./a", "2 --hook slow --hook h1 ./s1 ./s2 ./a"}) {
        REQUIRE(sat_test::run_command("rm -f " + d + "/*.started " + d + "/h1.done", &out) == 0);
        CHECK(sat_test::run_command(runner.substr(0, runner.find("python3")) + "timeout -s INT --preserve-status 2 "
                                    "python3 $root/tools/run_tests.py --jobs " + jobs, &out) == 130);
        CHECK(has(out, "test: interrupted"));
        CHECK(sat_test::run_command("cd " + d + " && test -e s1.started && sleep 1 && test ! -e s1.done && "
                                    "test ! -e s2.done && test ! -e slow.done && test ! -e a.started && test ! -e h1.done",
                                    &out) == 0);
    }
}

TEST_CASE("make test's runner with --part: a binary's parts side by side, each with the filter and its term",
          "[cpu][grader][run_tests]") {
    // split's two parts each wait for the other to start, so they pass only side by side. Every
    // binary appends its name, its number of arguments and its first one to args. crashy's [a] part
    // crashes and its other part prints no counts line: one failed test each.
    std::string out;
    const std::string d = kDir + "/parts";
    REQUIRE(sat_test::run_command("rm -rf " + d + " && mkdir -p " + d, &out) == 0);
    std::ofstream(d + "/split") << R"sh(#!/bin/sh
cd "$(dirname "$0")"
printf 'split %s %s\n' "$#" "$1" >> args
case "$1" in "[library]"*) part=library ;; *) part=rest ;; esac
touch $part.started
i=0; while [ ! -e library.started ] || [ ! -e rest.started ]; do sleep 0.05; i=$((i+1)); [ $i -gt 200 ] && exit 1; done
if [ $part = library ]; then echo '2 passed, 0 failed, 1 skipped'; else echo '3 passed, 1 failed, 0 skipped'; exit 1; fi
)sh";
    std::ofstream(d + "/other") << "#!/bin/sh\ncd \"$(dirname \"$0\")\"\nprintf 'other %s %s\\n' \"$#\" \"$1\" >> args\n"
                                   "echo '1 passed, 0 failed, 0 skipped'\n";
    std::ofstream(d + "/crashy") << "#!/bin/sh\ncase \"$1\" in \"[a]\"*) kill -SEGV $$ ;; esac\n";
    REQUIRE(sat_test::run_command("cd " + d + " && chmod +x split other crashy", &out) == 0);
    const std::string runner = "root=$(pwd); cd " + d + " && rm -f args *.started && python3 $root/tools/run_tests.py "
                               "--jobs 2 --part './split=[library]' --part './split=~[library]' ";
    // A filter with a comma (or): the term goes in front of each alternative ("\," is a comma in a name).
    int rc = sat_test::run_command(runner + "--part './crashy=[a]' --part './crashy=~[a]' "
                                            "--filter '[cpu]~[repo],a\\,b' ./split ./other ./crashy", &out);
    std::string args = read_file(d + "/args");
    {
        INFO(out << "\nargs:\n" << args);
        CHECK(rc == 1);
        CHECK(has(args, "split 1 [library][cpu]~[repo],[library]a\\,b\n"));
        CHECK(has(args, "split 1 ~[library][cpu]~[repo],~[library]a\\,b\n"));
        CHECK(has(args, "other 1 [cpu]~[repo],a\\,b\n"));
        CHECK(has(out, "-- ./split [library] took "));
        CHECK(has(out, "-- ./split ~[library] took "));
        CHECK(has(out, "./crashy [a]: crashed (SIGSEGV)"));
        CHECK(has(out, "./crashy ~[a]: exited with status 0 without its counts line"));
        // 2 + 3 + 1 passed; 1 reported + the crash + the missing line failed; 1 skipped.
        CHECK(out.substr(out.rfind("passed") - 2) == "6 passed, 3 failed, 1 skipped\n");
    }
    // No filter: the parts split what Catch2 runs without one, "~[.]" (a spec that only excludes,
    // such as "~[library]", would run the hidden cases too).
    rc = sat_test::run_command(runner + "./split ./other", &out);
    args = read_file(d + "/args");
    {
        INFO(out << "\nargs:\n" << args);
        CHECK(rc == 1);
        CHECK(has(args, "split 1 [library]~[.]\n"));
        CHECK(has(args, "split 1 ~[library]~[.]\n"));
        CHECK(has(args, "other 0 \n"));
        CHECK(out.substr(out.rfind("passed") - 2) == "6 passed, 1 failed, 1 skipped\n");
    }
    CHECK(sat_test::run_command(runner + "--part './nope=[a]' ./split", &out) == 2);
    CHECK(has(out, "--part ./nope=[a]: expected BINARY=TERM"));
    // make test splits the harness only when binaries run side by side.
    REQUIRE(sat_test::run_command("make -n --no-print-directory test TEST_JOBS=2", &out) == 0);
    CHECK(has(out, "--part 'build/tests/harness=[library]' --part 'build/tests/harness=~[library]'"));
    REQUIRE(sat_test::run_command("make -n --no-print-directory test TEST_JOBS=1", &out) == 0);
    CHECK(has(out, "tools/run_tests.py"));
    CHECK(!has(out, "--part"));
}

TEST_CASE("mutants: every spec applies to solutions/ and every category is covered", "[cpu][grader][mutants]") {
    std::string out;
    const int rc = sat_test::run_command("python3 tools/mutants.py check", &out);
    INFO(out);
    CHECK(rc == 0);
    const auto at = out.find(" of ");
    REQUIRE(at != std::string::npos);
    CHECK(std::stoi(out.substr(at + 4)) >= 30);
    for (const char* lab : {"1,", "2,", "3,", "4,", "5,", "6,", "7,", "8,", "9,", "8x;"})
        CHECK(has(out, std::string(" ") + lab));
}

TEST_CASE("mutants: a CPU mutant loses correctness points and make mutants says caught", "[cpu][grader][mutants]") {
    std::string out;
    const int rc = sat_test::run_command(
        "python3 tools/mutants.py run --gpu no --only lab1-4r1w-diagonal-row1,lab1-threaded-block-carry", &out);
    INFO(out);
    CHECK(rc == 0);
    CHECK(has(out, "2 of 2 graded mutants caught"));
    CHECK(!has(out, " NO "));
}

// The race tests of a GPU lab, on the CPU, with a stand-in for compute-sanitizer. Mode "race":
// it reports a hazard under racecheck and nothing under synccheck; the hazard costs racecheck's
// share of the correctness points, and the feedback carries the tool's first error line. Modes
// "FAIL" and "ERROR": no finding under either tool, and the program's own check prints that row.
// A kernel that computes nothing is free of races but its check FAILs under the tool, so
// neither tool's share is earned (an untouched skeleton scores zero); an ERROR row (a spin that
// timed out under the tool) does not count against the tool.
const char* const kRacePy = R"PY(import sys, types
from pathlib import Path
sys.path.insert(0, "tools")
import grade, sanitize
fake, mode = Path(sys.argv[1]).resolve(), sys.argv[2]
fake.write_text("""#!/bin/sh
case "%s" in
  race) case "$*" in
    *racecheck*) echo "========= Error: Race reported between Write access at 0x70 in lab2.cu:35:void kernel() and Read access at 0x90 in lab2.cu:36:void kernel() [1 hazards]"
                 echo "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"; exit 86;;
    *) echo "========= ERROR SUMMARY: 0 errors"; exit 0;;
  esac;;
esac
echo "SKSS               f32   97x89         %s      0.010"
case "$*" in
  *racecheck*) echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)";;
  *) echo "========= ERROR SUMMARY: 0 errors";;
esac
""" % (mode, mode))
fake.chmod(0o755)
sanitize.find_sanitizer = lambda: str(fake)
args = types.SimpleNamespace(no_sanitize=False, sanitize_timeout=60, out="build/grader_test/" + mode, gpu="no",
                             seed=1, jobs=2, code="labs", quiet=True)
g = grade.Grader(args, Path(".").resolve())
(g.work / "lab2").mkdir(parents=True, exist_ok=True)
r = grade.LabResult("2")
test_passed = mode == "race"
r.items.append(grade.Item("2", "correctness", "lab2 a GPU test", 70.0, 70.0 if test_passed else 0.0,
                          "passed in 1 s" if test_passed else "failed", "passed" if test_passed else "failed"))
ok = g.sanitize("2", r)
print("clean" if ok else "not clean")
for i in r.items:
    print("%s | %s | %.4g/%.4g | %s" % (i.name, i.status, i.score, i.max_score, i.output.splitlines()[0]))
)PY";

// Runs kRacePy in the mini repository in one mode; the script's output (a failed run fails the
// test).
std::string run_race_script(const std::string& mode) {
    make_mini();
    write_file(kDir + "/race.py", kRacePy);
    std::string out;
    const int rc = sat_test::run_command("python3 " + kDir + "/race.py " + kDir + "/fake-sanitizer-" + mode + " " + mode, &out);
    INFO(out);
    REQUIRE(rc == 0);
    return out;
}

TEST_CASE("grader: a race that racecheck reports costs its correctness points, with the tool's first line",
          "[cpu][grader]") {
    const std::string out = run_race_script("race");
    INFO(out);
    CHECK(has(out, "not clean\n"));
    CHECK(has(out, "lab2 a GPU test | passed | 23.33/23.33"));
    CHECK(has(out, "lab2 racecheck: every variant, 97x89 | failed | 0/23.33 | racecheck ERRORS: 1 hazards"));
    CHECK(has(out, "first: Error: Race reported between Write access"));
    CHECK(has(out, "lab2 synccheck: every variant, 97x89 | passed | 23.33/23.33"));
}

TEST_CASE("grader: a race-free kernel whose table is wrong under the tool earns no race points", "[cpu][grader]") {
    std::string out = run_race_script("FAIL");
    INFO(out);
    CHECK(has(out, "lab2 racecheck: every variant, 97x89 | failed | 0/23.33 | racecheck clean (0 hazards (0 errors, 0 warnings)), but the lab's check finds a wrong table"));
    CHECK(has(out, "lab2 synccheck: every variant, 97x89 | failed | 0/23.33 | synccheck clean (0 errors), but the lab's check finds a wrong table"));
    out = run_race_script("ERROR");
    CHECK(has(out, "lab2 racecheck: every variant, 97x89 | passed | 23.33/23.33"));
    CHECK(has(out, "lab2 synccheck: every variant, 97x89 | passed | 23.33/23.33"));
}

// A lab that hangs, on the CPU: a stand-in test binary lists four GPU tests of lab 2, of which
// "spin" ones sleep forever, and a stand-in compute-sanitizer sleeps forever too. The first hang
// costs its time limit (3 s); everything after it shares the hang budget (2 s): the quick test
// still runs and passes, the second spin is cut to what is left, the third and both race tools
// are skipped at once, each at zero with the reason (six required tests: 11.67 points each). Without the hang budget this lab would take
// 3 x 3 s of tests and 2 x 60 s of tools.
const char* const kHangPy = R"PY(import sys, time, types
from pathlib import Path
sys.path.insert(0, "tools")
import grade, sanitize
here = Path(sys.argv[1]).resolve()
binary, fake = here / "fake-lab2", here / "fake-sanitizer-hang"
binary.write_text("""#!/bin/sh
case "$*" in
  *--list-test-names-only*)
    case "$1" in *~\\[bonus\\]*)
      for t in "spin one" "quick" "spin two" "spin three"; do printf '%s\\t@tests/test_fake.cpp:1\\n' "$t"; done;;
    esac; exit 0;;
  quick*) printf '<Catch><Group><TestCase><OverallResult success="true"/></TestCase></Group></Catch>' > "$5"
          echo "1 passed, 0 failed, 0 skipped"; exit 0;;
  *) exec sleep 1000;;
esac
""")
fake.write_text("#!/bin/sh\nexec sleep 1000\n")
for f in (binary, fake):
    f.chmod(0o755)
sanitize.find_sanitizer = lambda: str(fake)
args = types.SimpleNamespace(no_sanitize=False, sanitize_timeout=60, out=str(here / "hang"), gpu="no",
                             seed=1, jobs=2, code="labs", quiet=True, timeout=3, lab_budget=900,
                             hang_budget=2)
g = grade.Grader(args, Path(".").resolve())
g.repo.program = lambda lab: "/bin/true"      # (its build is not what this test is about)
g.repo.make = lambda targets, timeout=0: types.SimpleNamespace(rc=0, output="")
(g.work / "lab2").mkdir(parents=True, exist_ok=True)
r = grade.LabResult("2")
start = time.monotonic()
passed = g.run_tests("2", r, binary, True)
clean = g.sanitize("2", r)
print("seconds %.1f" % (time.monotonic() - start))
print("all passed" if passed and clean else "not all passed")
for i in r.items:
    print("%s | %s | %.4g/%.4g | %s" % (i.name, i.status, i.score, i.max_score, i.output.replace("\n", " / ")))
print("correctness %.4g/%.4g" % r.points("correctness")[:2])
)PY";

TEST_CASE("grader: a lab that hangs costs one time limit and the hang budget, and says why at zero",
          "[cpu][grader]") {
    make_mini();
    write_file(kDir + "/hang.py", kHangPy);
    std::string out;
    const int rc = sat_test::run_command("python3 " + kDir + "/hang.py " + kDir, &out);
    INFO(out);
    REQUIRE(rc == 0);
    const auto at = out.find("seconds ");
    REQUIRE(at != std::string::npos);
    const double seconds = std::stod(out.substr(at + 8));
    CHECK(seconds >= 4.5);   // the first spin's 3 s and the 2 s budget (less the quick test) ...
    CHECK(seconds < 9.0);    // ... and not 3 x 3 s of tests, nor a minute of a race tool
    CHECK(has(out, "not all passed"));
    CHECK(has(out, "lab2 spin one | error | 0/11.67 | timed out after 3 s"));
    CHECK(has(out, "lab2 quick | passed | 11.67/11.67 | passed in"));
    CHECK(has(out, "lab2 spin two | error | 0/11.67 | timed out after"));
    CHECK(has(out, "its time limit was cut to"));
    CHECK(has(out, "lab2 spin three | notrun | 0/11.67 | skipped: an earlier test of this lab hung (lab2 spin one)"));
    CHECK(has(out, "lab2 racecheck: every variant, 97x89 | notrun | 0/11.67 | racecheck skipped: an earlier test"));
    CHECK(has(out, "lab2 synccheck: every variant, 97x89 | notrun | 0/11.67 | synccheck skipped: an earlier test"));
    CHECK(has(out, "correctness 11.67/70"));
}
