// The library's 2-D kernels spill no registers, f64's small tiles aside (lib/tests/kernel_spills.py
// compiles them for sm_90 with -Xptxas -v; docs/tiles.md, Integer register rows held whole).
// No GPU needed.
#include <string>

#include "../../tests/test_util.h"

TEST_CASE("the library's 2-D kernels spill no registers (f64's small tiles aside; -Xptxas -v, sm_90)",
          "[cpu][library]") {
    const std::string out = sat_test::require_command("${PYTHON:-python3} lib/tests/kernel_spills.py");
    sat_test::check_output(out, {"kernel_spills: all checks passed"}, {"FAIL"});
}
