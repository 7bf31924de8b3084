// make bench-ab's program (lib/bench/bench_ab.cpp, mk/lib_ab.mk): built against a copy of this
// tree's library it links both versions, and on a GPU finds identical code equal and a planted
// difference different (lib/tests/bench_ab_build.py; [cpu]: the GPU part runs where there is one).
#include <string>

#include "../../tests/test_util.h"

TEST_CASE("make bench-ab builds this tree's library against a renamed copy and runs both", "[cpu][library]") {
    const std::string out = sat_test::require_command("${PYTHON:-python3} lib/tests/bench_ab_build.py");
    sat_test::check_output(out, {"bench_ab: all checks passed"}, {"FAIL"});
}
