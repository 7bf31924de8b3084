// The docs' tables of measured numbers are generated from committed CSV (make library-tables,
// tools/library_tables.py): a hand edit of a generated table, or a CSV edited without
// regenerating, fails here.
#include "test_util.h"

#include <fstream>
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

// tools/ncu_phases.py (docs/library.md's phase table): a made-up source page of Nsight Compute
// with every marker of the tile loop once, its samples summed per phase; and one without the
// cp.async commit, which must be refused rather than tabled.
namespace {
void write_source_page(const std::string& path, bool with_commit) {
    std::ofstream f(path);
    f << "\"Kernel Name\",\"lookback_sat_kernel\"\n"
         "\"Address\",\"Source\",\"Warp Stall Sampling (All Samples)\",\"stall_barrier\"\n";
    // (instruction, samples, of them waiting at a barrier); phases in the comments.
    const struct { const char* text; int samples, barrier; } rows[] = {
        {"LDC R1, c[0x0][0x28]", 2, 0}, {"BAR.SYNC.DEFER_BLOCKING 0x0", 1, 0},         // start: 3
        {"UMOV UR5, 0x400", 5, 5},      {"LDGSTS.E.BYPASS.128 [R1], desc[UR8][R2.64]", 1, 0},
        {"LDGDEPBAR", 0, 0},                                                            // loads: 6 (5)
        {"FADD R1, R2, R3", 3, 0},      {"DEPBAR.LE SB0, 0x0", 0, 0},                   // register rows: 3
        {"SHFL.UP PT, R1, R2, 0x1, RZ", 4, 0}, {"BAR.SYNC.DEFER_BLOCKING 0x0", 0, 0},   // shared rows: 4
        {"FADD R4, R4, R5", 1, 0},      {"BAR.SYNC.DEFER_BLOCKING 0x0", 0, 0},          // row sums: 1
        {"STG.E.STRONG.GPU desc[UR8][R2.64], R3", 1, 0}, {"BAR.SYNC.DEFER_BLOCKING 0x0", 0, 0},  // publish: 1
        {"LDG.E.STRONG.GPU R3, desc[UR8][R2.64]", 2, 0}, {"BAR.SYNC.DEFER_BLOCKING 0x0", 0, 0},  // look-back: 2
        {"LDS R24, [R83+0x4]", 7, 6},   {"ATOMG.E.ADD.STRONG.GPU PT, R6, desc[UR8][R4.64], R3", 0, 0},  // column carries: 7 (6)
        {"BAR.SYNC.DEFER_BLOCKING 0x0", 0, 0},                                          // next ticket: 0
        {"STG.E.EF.128 desc[UR8][R78.64], R36", 3, 0}, {"BAR.SYNC.DEFER_BLOCKING 0x0", 0, 0},  // write-out: 3
        {"EXIT", 1, 0},                                                                 // end: 1
    };
    for (const auto& r : rows) {
        if (!with_commit && std::string(r.text) == "LDGDEPBAR") continue;
        f << "\"0x0\",\"" << r.text << "\",\"" << r.samples << "\",\"" << r.barrier << "\"\n";
    }
}
}  // namespace

TEST_CASE("ncu_phases.py sums an ncu source page per phase of the tile loop", "[cpu][docs]") {
    const std::string dir = "build/ncu_phases_test";
    sat_test::require_command("rm -rf " + dir + " && mkdir -p " + dir);
    write_source_page(dir + "/page.csv", true);
    sat_test::require_command("python3 tools/ncu_phases.py " + dir + "/page.csv --label case --csv " + dir +
                              "/phases.csv --run 'GPU,1,13.0,2026-01-01'");
    const std::string csv = sat_test::require_command("cat " + dir + "/phases.csv");
    sat_test::check_output(csv, {"gpu,driver,cuda,date,case,phase,samples,total_samples,barrier_samples\n",
                                 "GPU,1,13.0,2026-01-01,case,start,3,31,0\n",
                                 "GPU,1,13.0,2026-01-01,case,loads,6,31,5\n",
                                 "GPU,1,13.0,2026-01-01,case,register rows,3,31,0\n",
                                 "GPU,1,13.0,2026-01-01,case,shared rows,4,31,0\n",
                                 "GPU,1,13.0,2026-01-01,case,row sums,1,31,0\n",
                                 "GPU,1,13.0,2026-01-01,case,publish,1,31,0\n",
                                 "GPU,1,13.0,2026-01-01,case,look-back,2,31,0\n",
                                 "GPU,1,13.0,2026-01-01,case,column carries,7,31,6\n",
                                 "GPU,1,13.0,2026-01-01,case,next ticket,0,31,0\n",
                                 "GPU,1,13.0,2026-01-01,case,write-out,3,31,0\n",
                                 "GPU,1,13.0,2026-01-01,case,end,1,31,0\n"});
    write_source_page(dir + "/no_commit.csv", false);
    const std::string out = sat_test::require_command("python3 tools/ncu_phases.py " + dir +
                                                      "/no_commit.csv --label case 2>&1", 1);
    sat_test::check_output(out, {"found the markers of 1 phases of 10"});
    sat_test::run_command("rm -rf " + dir);
}
