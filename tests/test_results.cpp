// test_results.cpp — `make results` turns a bench run with a batch CSV (bench.py's <stem>_batch.csv,
// named in the .json) into a batch table with issue 22's targets; a run without one gets a
// "Not measured" line; bench.py --help lists --no-batch (tests/results_batch.py; no GPU).
#include <string>

#include "test_util.h"

TEST_CASE("results.py tables a run's batch CSV and says when a run has none", "[cpu][results]") {
    const std::string out = sat_test::require_command("${PYTHON:-python3} tests/results_batch.py");
    sat_test::check_output(out, {"results_batch: all checks passed"}, {"FAIL"});
}
