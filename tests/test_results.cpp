// test_results.cpp — `make results` turns a bench run with a batch CSV (bench.py's <stem>_batch.csv,
// named in the .json) into a batch table with issue 22's targets; a run without one gets a
// "Not measured" line; bench.py --help lists --no-batch (tests/results_batch.py; no GPU); and
// make bench runs the library before the labs (tests/bench_order.py); docs/results.md is the page of
// the committed runs (make check-results), and the check fails on a page with one number changed.
#include <string>

#include "test_util.h"

TEST_CASE("docs/results.md is the page of the committed bench runs, and the check can fail", "[cpu][results]") {
    std::string out = sat_test::require_command("make --no-print-directory check-results");
    sat_test::check_output(out, {"docs/results.md is the page of its"}, {"is not"});
    // A copy with the first "| 1." of a table changed to "| 9." is not the page.
    sat_test::require_command(
        "mkdir -p build/test_results && sed '0,/| 1\\./s//| 9./' docs/results.md > build/test_results/results.md && "
        "! cmp -s docs/results.md build/test_results/results.md");
    out = sat_test::require_command(
        "make --no-print-directory check-results RESULTS_MD=build/test_results/results.md", 2);
    sat_test::check_output(out, {"build/test_results/results.md is not the page of its", "make results"});
}

TEST_CASE("results.py tables a run's batch CSV and says when a run has none", "[cpu][results]") {
    const std::string out = sat_test::require_command("${PYTHON:-python3} tests/results_batch.py");
    sat_test::check_output(out, {"results_batch: all checks passed"}, {"FAIL"});
}

TEST_CASE("make bench runs the library and its peers before the labs", "[cpu][results]") {
    // tests/bench_order.py: tools/bench.py's plan with its runs stubbed; fails on the order that
    // ran the labs first (a short budget then lost the library's rows).
    const std::string out = sat_test::require_command("${PYTHON:-python3} tests/bench_order.py");
    sat_test::check_output(out, {"bench_order: all checks passed"}, {"FAIL"});
}
