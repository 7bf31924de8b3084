// The planted races of `make delay-mutants` (lib/tests/delay_mutants.json) still apply to lib/src:
// each anchor is found once (tools/delay_mutants.py --check). No GPU needed; the mutants
// themselves run on a GPU, against the delays build (mk/lib_delays.mk).
#include <string>

#include "../../tests/test_util.h"

TEST_CASE("the delay mutants' specs apply to lib/src (tools/delay_mutants.py --check)", "[cpu][library]") {
    const std::string out = sat_test::require_command("${PYTHON:-python3} tools/delay_mutants.py --check");
    sat_test::check_output(out, {"delay mutant specs apply"}, {"delay_mutants:"});
}
