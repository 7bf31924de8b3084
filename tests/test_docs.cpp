// The docs' tables of measured numbers are generated from committed CSV (make library-tables,
// tools/library_tables.py): a hand edit of a generated table, or a CSV edited without
// regenerating, fails here.
#include "test_util.h"

#include <string>

TEST_CASE("the docs' measured tables are what their CSV generates", "[cpu][docs]") {
    sat_test::require_command("python3 tools/library_tables.py --check");
}

TEST_CASE("a hand-edited number in a generated docs table is caught", "[cpu][docs]") {
    // A copy of docs/ whose thin.md table has one time changed (0.0273 ms -> 0.0274 ms).
    const std::string dir = "build/docs_check_test";
    sat_test::require_command("rm -rf " + dir + " && mkdir -p " + dir + " && cp -r docs/. " + dir +
                              " && sed -i 's/| 1x4000000 | f32 | 0.0273 |/| 1x4000000 | f32 | 0.0274 |/' " + dir +
                              "/thin.md && ! cmp -s docs/thin.md " + dir + "/thin.md");
    const std::string out = sat_test::require_command("python3 tools/library_tables.py --check --docs " + dir, 1);
    INFO(out);
    CHECK(out.find("thin.md differs") != std::string::npos);
    CHECK(out.find("lab9.md differs") == std::string::npos);
    // Regenerating the copy restores the CSV's number, and then the check passes.
    sat_test::require_command("python3 tools/library_tables.py --docs " + dir + " && cmp docs/thin.md " + dir +
                              "/thin.md && python3 tools/library_tables.py --check --docs " + dir);
    sat_test::run_command("rm -rf " + dir);
}

TEST_CASE("a docs table marker with no generator fails the check", "[cpu][docs]") {
    // A copy of docs/ with a BEGIN/END pair that tools/library_tables.py's TABLES does not name:
    // its numbers would be hand-written and never compared, so the check must refuse it.
    const std::string dir = "build/docs_marker_test";
    sat_test::require_command("rm -rf " + dir + " && mkdir -p " + dir + " && cp -r docs/. " + dir +
                              " && printf '<!-- BEGIN STRAY TABLE -->\\n| 1 ms |\\n<!-- END STRAY TABLE -->\\n' >> " +
                              dir + "/lab6.md");
    const std::string out = sat_test::require_command("python3 tools/library_tables.py --check --docs " + dir + " 2>&1", 2);
    INFO(out);
    CHECK(out.find("lab6.md: no generator in TABLES for STRAY TABLE") != std::string::npos);
    sat_test::run_command("rm -rf " + dir);
}
