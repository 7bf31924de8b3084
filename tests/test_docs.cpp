// The docs' tables of measured numbers are generated from committed CSV (make library-tables,
// tools/library_tables.py): a hand edit of a generated table, or a CSV edited without
// regenerating, fails here.
#include "test_util.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

TEST_CASE("the docs' measured tables are what their CSV generates", "[cpu][docs][repo]") {
    sat_test::require_command("python3 tools/library_tables.py --check");
}

TEST_CASE("a hand-edited number in a generated docs table is caught", "[cpu][docs][repo]") {
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

TEST_CASE("a generated table row with a cell missing or cut off fails the generator", "[cpu][docs]") {
    // check_table_rows: every row of a generated table has its header's cells and starts with one.
    const std::string script =
        "import sys; sys.path.insert(0, 'tools'); import library_tables as t\n"
        "t.check_table_rows('| a | b |\\n|---|---|\\n| 1 | 2 |\\n\\ntext after it')\n"
        "for bad in ('| a | b |\\n|---|---|\\n| 1 |', '| a | b |\\n|---|---|\\n13.1 (6.4) |'):\n"
        "    try:\n"
        "        t.check_table_rows(bad)\n"
        "    except ValueError as e:\n"
        "        print('refused:', e)\n"
        "    else:\n"
        "        sys.exit('accepted: ' + bad)\n";
    const std::string out = sat_test::require_command("python3 -c \"" + script + "\"");
    INFO(out);
    CHECK(out.find("a row of 1 cells under a header of 2") != std::string::npos);
    CHECK(out.find("does not start with a cell: 13.1 (6.4) |") != std::string::npos);
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

// tools/ncu_phases.py (docs/tiles.md's phase table): a made-up source page of Nsight Compute
// with the kernel's markers (9 barriers, the cp.async commit and wait, 2 ticket atomics) and a
// different power of two of samples in each phase, so that any sample counted in the wrong phase
// shows; and pages it must refuse rather than table.
namespace {
struct SassRow {
    std::string text;
    int samples, barrier, executed;
};
std::vector<SassRow> tile_loop_sass() {
    const std::string bar = "BAR.SYNC.DEFER_BLOCKING 0x0";
    return {
        {"LDC R1, c[0x0][0x28]", 0, 0, 1}, {"ATOMG.E.ADD.STRONG.GPU PT, R6, desc[UR8][R4.64], R3", 0, 0, 1},
        {bar, 1, 0, 100},                                                                  // start: 1
        {"UMOV UR5, 0x400", 2, 2, 1}, {"LDGSTS.E.BYPASS.128 [R1], desc[UR8][R2.64]", 0, 0, 1},
        {"LDGDEPBAR", 0, 0, 1}, {"DEPBAR.LE SB0, 0x0", 0, 0, 1},                          // loads, register rows: 2 (2)
        {"SHFL.UP PT, R1, R2, 0x1, RZ", 4, 0, 1}, {bar, 0, 0, 100},                       // shared rows: 4
        {"FADD R4, R4, R5", 8, 0, 1}, {bar, 0, 0, 100},                                   // row sums: 8
        {"STG.E.STRONG.GPU desc[UR8][R2.64], R3", 16, 0, 1}, {bar, 0, 0, 100},            // publish: 16
        {"LDG.E.STRONG.GPU R3, desc[UR8][R2.64]", 32, 0, 1}, {bar, 0, 0, 97},             // look-back: 32
        {"LDS R24, [R83+0x4]", 64, 48, 1}, {bar, 0, 0, 3}, {"LDS R25, [R83+0x8]", 0, 0, 1}, {bar, 0, 0, 10},
        {"ATOMG.E.ADD.STRONG.GPU PT, R7, desc[UR8][R4.64], R3", 0, 0, 1},                // column carries: 64 (48)
        {"MOV R1, R2", 128, 0, 1}, {bar, 0, 0, 100},                                      // next ticket: 128
        {"STG.E.EF.128 desc[UR8][R78.64], R36", 256, 0, 1}, {bar, 0, 0, 100},            // write-out: 256
        {"EXIT", 512, 256, 1},                                                            // loop end: 512 (256)
    };
}
// With long_sb, a stall_long_sb column holds half of each instruction's samples (rounded down), a
// count that differs from every other column in every phase.
void write_source_page(const std::string& path, const std::vector<SassRow>& rows, bool long_sb = false) {
    std::ofstream f(path);
    f << "\"Kernel Name\",\"void satlib::lookback_sat_kernel<float, float>(...)\"\n"
         "\"Address\",\"Source\",\"Warp Stall Sampling (All Samples)\",\"stall_barrier\",\"Instructions Executed\""
      << (long_sb ? ",\"stall_long_sb\"\n" : "\n");
    for (const SassRow& r : rows) {
        f << "\"0x0\",\"" << r.text << "\",\"" << r.samples << "\",\"" << r.barrier << "\",\"" << r.executed << "\"";
        if (long_sb) f << ",\"" << r.samples / 2 << "\"";
        f << "\n";
    }
}
}  // namespace

TEST_CASE("ncu_phases.py sums an ncu source page per phase of the tile loop", "[cpu][docs]") {
    const std::string dir = "build/ncu_phases_test";
    sat_test::require_command("rm -rf " + dir + " && mkdir -p " + dir);
    write_source_page(dir + "/page.csv", tile_loop_sass());
    const std::string printed = sat_test::require_command("python3 tools/ncu_phases.py " + dir +
                                                          "/page.csv --label case --csv " + dir +
                                                          "/phases.csv --run 'GPU,1,13.0,2026-01-01'");
    sat_test::check_output(printed, {"case: 1023 samples", "look-back                         3.1"});
    const std::string csv = sat_test::require_command("cat " + dir + "/phases.csv");
    CHECK(csv == "gpu,driver,cuda,date,case,phase,samples,total_samples,barrier_samples\n"
                 "GPU,1,13.0,2026-01-01,case,start,1,1023,0\n"
                 "GPU,1,13.0,2026-01-01,case,loads and register rows,2,1023,2\n"
                 "GPU,1,13.0,2026-01-01,case,shared rows,4,1023,0\n"
                 "GPU,1,13.0,2026-01-01,case,row sums,8,1023,0\n"
                 "GPU,1,13.0,2026-01-01,case,publish,16,1023,0\n"
                 "GPU,1,13.0,2026-01-01,case,look-back,32,1023,0\n"
                 "GPU,1,13.0,2026-01-01,case,column carries,64,1023,48\n"
                 "GPU,1,13.0,2026-01-01,case,next ticket,128,1023,0\n"
                 "GPU,1,13.0,2026-01-01,case,write-out,256,1023,0\n"
                 "GPU,1,13.0,2026-01-01,case,loop end,512,1023,256\n");

    // The script run on a page that it must refuse: exit 1, `message`, no traceback.
    auto refused = [&](const std::string& page, const char* message, const std::string& options = "") {
        sat_test::check_output(sat_test::require_command("python3 tools/ncu_phases.py " + dir + "/" + page +
                                                         " --label case " + options + " 2>&1", 1),
                               {message}, {"Traceback"});
    };
    // --stall long_sb and --executed: that reason's samples and the instructions executed per
    // phase, columns of the CSV.
    write_source_page(dir + "/long_sb.csv", tile_loop_sass(), true);
    sat_test::check_output(sat_test::require_command("python3 tools/ncu_phases.py " + dir +
                                                     "/long_sb.csv --label case --stall long_sb --stall barrier --executed --csv " + dir +
                                                     "/long_sb_phases.csv --run 'GPU,1,13.0,2026-01-01'"),
                           {"of them long_sb", "column carries                    6.3                     4.7 "
                                               "             3.1              4.7             0.00"});
    CHECK(sat_test::require_command("cat " + dir + "/long_sb_phases.csv") ==
          "gpu,driver,cuda,date,case,phase,samples,total_samples,barrier_samples,stall_long_sb,stall_barrier,"
          "executed\n"
          "GPU,1,13.0,2026-01-01,case,start,1,1023,0,0,0,102\n"
          "GPU,1,13.0,2026-01-01,case,loads and register rows,2,1023,2,1,2,4\n"
          "GPU,1,13.0,2026-01-01,case,shared rows,4,1023,0,2,0,101\n"
          "GPU,1,13.0,2026-01-01,case,row sums,8,1023,0,4,0,101\n"
          "GPU,1,13.0,2026-01-01,case,publish,16,1023,0,8,0,101\n"
          "GPU,1,13.0,2026-01-01,case,look-back,32,1023,0,16,0,98\n"
          "GPU,1,13.0,2026-01-01,case,column carries,64,1023,48,32,48,16\n"
          "GPU,1,13.0,2026-01-01,case,next ticket,128,1023,0,64,0,101\n"
          "GPU,1,13.0,2026-01-01,case,write-out,256,1023,0,128,0,101\n"
          "GPU,1,13.0,2026-01-01,case,loop end,512,1023,256,256,256,1\n");
    // Appended to a CSV of the same columns: the same ten rows again, after the first ten.
    sat_test::require_command("python3 tools/ncu_phases.py " + dir + "/long_sb.csv --label case --stall long_sb "
                              "--stall barrier --executed --csv " + dir + "/long_sb_phases.csv --run 'GPU,1,13.0,2026-01-01'");
    CHECK(sat_test::require_command("sed -n '12p;21p' " + dir + "/long_sb_phases.csv") ==
          "GPU,1,13.0,2026-01-01,case,start,1,1023,0,0,0,102\n"
          "GPU,1,13.0,2026-01-01,case,loop end,512,1023,256,256,256,1\n");
    // A reason the page lacks, and a CSV of other columns to append to: refused, the CSV unchanged.
    refused("page.csv", "no column 'stall_long_sb'; its stall reasons: barrier", "--stall long_sb");
    refused("long_sb.csv", "has other columns than", "--stall long_sb --csv " + dir +
                                                      "/phases.csv --run 'GPU,1,13.0,2026-01-01'");
    CHECK(sat_test::require_command("wc -l < " + dir + "/phases.csv") == "11\n");
    // No cp.async wait: a marker missing.
    std::vector<SassRow> rows = tile_loop_sass();
    rows.erase(rows.begin() + 6);
    write_source_page(dir + "/no_wait.csv", rows);
    refused("no_wait.csv", "ncu_phases: 0 DEPBAR.LE instructions, not 1");
    // The top strip's barrier laid out before the column loop's: the look-back would end at the
    // wrong one.
    rows = tile_loop_sass();
    std::swap(rows[14].executed, rows[16].executed);
    write_source_page(dir + "/layout.csv", rows);
    refused("layout.csv", "the barrier that ends the look-back is not the column loop's");
    // The right number of each marker in the wrong order: the cp.async wait after every barrier,
    // and the next ticket's atomic after the last barrier (the phases after it would be empty).
    rows = tile_loop_sass();
    std::rotate(rows.begin() + 6, rows.begin() + 7, rows.end());
    write_source_page(dir + "/order.csv", rows);
    refused("order.csv", "the markers end 2 of the 9 phases they should");
    rows = tile_loop_sass();
    std::rotate(rows.begin() + 19, rows.begin() + 20, rows.end());
    write_source_page(dir + "/ticket.csv", rows);
    refused("ticket.csv", "the markers end 7 of the 9 phases they should");
    // A cell that is not a count, and a missing file: one line each, no traceback.
    rows = tile_loop_sass();
    rows[0].samples = -1;
    write_source_page(dir + "/cell.csv", rows);
    sat_test::require_command("sed -i 's/\"-1\"/\"1,234\"/' " + dir + "/cell.csv");
    refused("cell.csv", "line 3: column 'Warp Stall Sampling (All Samples)' holds '1,234'");
    refused("none.csv", "ncu_phases: cannot read");
    sat_test::run_command("rm -rf " + dir);
}

// tools/tile_waits.py (docs/tiles.md's tile waits table): made-up stamps of bench_tile_times
// --raw whose every measure has a known value: a small image, a batch whose tiles above are
// found only through the kernel's ticket order (a tile row of every image at a time), and an
// image of 66 x 34 tiles whose look-backs' windows (32 tiles) leave out a late first tile row
// and tile column.
namespace {
// One ticket's stamps in µs, in the file's order (block_start, prefetched, flags_clear -1: not
// of the first round).
using TileStamps = std::vector<double>;
void write_tile_stamps(const std::string& path, const std::vector<TileStamps>& tickets) {
    std::ofstream f(path);
    f << "ticket,ticket_ns,scanned_ns,partial_ns,row_done_ns,carries_ns,done_ns,written_ns,block_start_ns,prefetched_ns,"
         "flags_clear_ns,loads_start_ns\n";
    for (std::size_t k = 0; k < tickets.size(); ++k) {
        f << k;
        for (double us : tickets[k]) f << "," << (us < 0 ? -1 : static_cast<long long>(us * 1000));
        f << "\n";
    }
}
// 66 tile rows x 34 tiles: tile column 0 reaches partial (and row_done) at 100 µs, the others at
// 10 and 150; tile row 0 reaches row_done at 300. Only windows of 32 tiles leave them out: the last
// tile column's row_ready is 140 (not 50), and tile rows 33.. have up_ready 151 or 201 (not 1).
std::vector<TileStamps> windowed_stamps() {
    std::vector<TileStamps> tickets;
    for (int ty = 0; ty < 66; ++ty)
        for (int tx = 0; tx < 34; ++tx) {
            const double partial = tx == 0 ? 100 : 10, row_done = ty == 0 ? 300 : (tx == 0 ? 100 : 150);
            const bool first = tickets.size() < 10;
            tickets.push_back({1, 2, partial, row_done, 301, 302, 303, first ? 0.5 : -1, first ? 0.6 : -1, first ? 0.75 : -1, 1});
        }
    return tickets;
}
}  // namespace

TEST_CASE("tile_waits.py measures the look-backs from a run's tile stamps", "[cpu][docs]") {
    const std::string dir = "build/tile_waits_test";
    sat_test::require_command("rm -rf " + dir + " && mkdir -p " + dir + "/raw");
    const std::string header = "gpu,driver,cuda,date,case,type,tiles,tiles_x\n";
    auto write_summary = [&](const std::string& rows) { std::ofstream(dir + "/summary.csv") << header << rows; };
    write_summary("GPU,1,13.0,2026-01-01,64x1536,f32,6,3\n"
                  "GPU,1,13.0,2026-01-01,2x64x512,f32,4,1\n"
                  "GPU,1,13.0,2026-01-01,2112x17408,f32,2244,34\n");
    // One image of 2 tile rows x 3 tiles: ticket scanned partial row_done carries done written,
    // then start prefetched flags_clear (the first round) and loads_start.
    write_tile_stamps(dir + "/raw/tile_times_64x1536_f32.csv", {{1, 3, 4, 4, 5, 6, 7, 0.5, 0.6, 0.75, 1.5},
                                                                {1, 3.5, 4.5, 8, 8.5, 9, 10, 0.5, 0.7, 0.8, 1},
                                                                {1.5, 4, 6, 9, 9.5, 10, 11, 0.5, 0.9, 1, 2},
                                                                {2, 5, 7, 7, 10, 11, 12, -1, -1, -1, 3},
                                                                {2.5, 6, 7.5, 11, 12, 13, 14, -1, -1, -1, 3},
                                                                {2.5, 6.5, 8, 10, 13, 14, 15, -1, -1, -1, 4}});
    // Two images of 2 tile rows x 1 tile: tickets 0, 1 are the images' top tiles, 2, 3 the ones
    // below: up_ready 4 and 5 (image after image, ticket 1 would be image 0's lower tile: 2 and 8).
    write_tile_stamps(dir + "/raw/tile_times_2x64x512_f32.csv", {{1, 2, 3, 1, 3, 4, 5, 0.5, 0.6, 0.75, 1},
                                                                 {1, 2, 3, 5, 7, 8, 9, 0.5, 0.6, 0.75, 1},
                                                                 {2, 3, 4, 2, 6, 7, 8, -1, -1, -1, 2},
                                                                 {2, 3, 4, 2, 10, 11, 12, -1, -1, -1, 2}});
    write_tile_stamps(dir + "/raw/tile_times_2112x17408_f32.csv", windowed_stamps());
    const std::string run = "python3 tools/tile_waits.py " + dir + "/summary.csv " + dir + "/raw " + dir + "/waits.csv";
    sat_test::require_command(run);
    const std::string csv = sat_test::require_command("cat " + dir + "/waits.csv");
    // Medians by nearest rank. The small image: ticket waits 0.5, 0.5, 1 (prefetch 0.1, 0.2, 0.4;
    // flags 0.15, 0.1, 0.1; atomic 0.25, 0.2, 0.5); first-round tickets at 1 and 1.5; drain 1, 0.5, 1.5; load 1.5, 2.5,
    // 2, 2, 3, 2.5; partial spread 2 and 1; row_ready
    // 3.5, 3 (tile column 2), 3.5, 2 (tile column 2); row_step 3.5, 1, 3.5, -1; up_ready 3, 1, 3;
    // release 1, 0.5, 0.5, 1, 1, 1.
    CHECK(csv == "gpu,driver,cuda,date,case,type,tiles,tiles_x,ticket_wait_us,prefetch_issue_us,flags_wait_us,"
                 "ticket_atomic_us,first_tickets_us,drain_med_us,load_p10_us,load_med_us,"
                 "load_p90_us,partial_spread_med_us,row_ready_med_us,row_ready_p90_us,row_ready_first_med_us,"
                 "row_ready_last_med_us,row_step_med_us,up_ready_med_us,up_ready_p90_us,release_med_us\n"
                 "GPU,1,13.0,2026-01-01,64x1536,f32,6,3,0.50,0.20,0.10,0.25,0.50,1.00,2.00,2.50,3.00,2.00,3.50,3.50,3.50,"
                 "3.00,3.50,3.00,3.00,1.00\n"
                 "GPU,1,13.0,2026-01-01,2x64x512,f32,4,1,0.50,0.10,0.15,0.25,0.00,0.00,1.00,1.00,1.00,0.00,,,,,,5.00,5.00,"
                 "1.00\n"
                 "GPU,1,13.0,2026-01-01,2112x17408,f32,2244,34,0.50,0.10,0.15,0.25,0.00,0.00,1.00,1.00,1.00,90.00,50.00,"
                 "50.00,50.00,140.00,0.00,151.00,151.00,1.00\n");

    // A summary whose tile counts differ from the stamps', stamps that are not whole tile rows,
    // and a ticket without a step's stamp: one line each, exit 1.
    auto refused = [&](const char* message) {
        sat_test::check_output(sat_test::require_command(run + " 2>&1", 1), {message}, {"Traceback"});
    };
    write_summary("GPU,1,13.0,2026-01-01,64x1536,f32,5,3\n");
    refused("tile_waits: 64x1536 f32: the summary says 5 tiles; the stamps have 6");
    write_summary("GPU,1,13.0,2026-01-01,64x1536,f32,6,2\n");
    refused("tile_waits: 6 tickets of 2 per tile row are not whole tile rows of 1 image(s) of 64 rows in tiles of "
            "32 to 40 rows");
    write_summary("GPU,1,13.0,2026-01-01,64x1536,f32,1,1\n");
    write_tile_stamps(dir + "/raw/tile_times_64x1536_f32.csv", {{1, 3, 4, 4, 5, 6, 7, 0.5, 0.6, 0.75, 1}});
    refused("tile_waits: 1 tickets of 1 per tile row are not whole tile rows of 1 image(s) of 64 rows in tiles of "
            "32 to 40 rows");
    write_summary("GPU,1,13.0,2026-01-01,32x1536,f32,2,2\n");
    write_tile_stamps(dir + "/raw/tile_times_32x1536_f32.csv",
                      {{1, 3, 4, 4, 5, 6, 7, 0.5, 0.6, 0.75, 1}, {1, 3, 4, -1, 5, 6, 7, 0.5, 0.6, 0.75, 1}});
    refused("tile_waits: ticket 1 has no stamp for a step");
    write_tile_stamps(dir + "/raw/tile_times_32x1536_f32.csv",
                      {{1, 3, 4, 4, 5, 6, 7, 0.5, 0.6, 0.75, 1}, {1, 3, 4, 4, 5, 6, 7, 0.5, -1, 0.75, 1}});
    refused("tile_waits: ticket 1 has some of a first-round block's stamps, not all");
    sat_test::run_command("rm -rf " + dir);
}

// tools/ncu_summary.py (docs/tiles.md's table of the targets that miss): a made-up ncu text
// report with a flag-clearing kernel and three launches of the 2-D kernel of 1.01 ms, 500 µs and
// 990 µs (ncu picks the unit per value), each with values of its own, so that the row shows which
// launch it took (the median: 990 µs) and which stall reason went to which column.
namespace {
std::string ncu_launch(const std::string& kernel, int grid, int block, const std::string& duration, int tag) {
    std::ostringstream s;
    s << "  void " << kernel << "(const T1 *, T2 *, satlib::Geometry) (" << grid << ", 1, 1)x(" << block
      << ", 1, 1), Context 1, Stream 13, Device 0, CC 9.0\n"
      << "    Section: GPU Speed Of Light Throughput\n"
      << "    ----------------------- ----------- ------------\n"
      << "    Duration                         " << duration << "\n"
      << "    DRAM Throughput                   %        " << 70 + tag << ".3\n"
      << "    Elapsed Cycles                cycle       1,000\n"
      << "    SM Active Cycles              cycle       " << 900 + tag << ".00\n"
      << "    Section: Launch Statistics\n"
      << "    Registers Per Thread             register/thread             " << 120 + tag << "\n"
      << "    Dynamic Shared Memory Per Block      Kbyte/block           98.30\n"
      << "    Static Shared Memory Per Block        byte/block             500\n"
      << "    Waves Per SM                                                   1\n"
      << "    Achieved Active Warps Per SM           warp        15.9" << tag << "\n"
      << "    Warp Cycles Per Issued Instruction             cycle        12.0" << tag << "\n";
    int part = 0;
    for (const char* reason : {"barrier", "long_scoreboard", "wait", "short_scoreboard", "selected"})
        s << "    smsp__average_warps_issue_stalled_" << reason << "_per_issue_active.ratio      " << tag << "." << ++part
          << "\n";
    return s.str();
}
}  // namespace

TEST_CASE("ncu_summary.py makes a CSV row of the median launch of an ncu report", "[cpu][docs]") {
    const std::string dir = "build/ncu_summary_test";
    sat_test::require_command("rm -rf " + dir + " && mkdir -p " + dir);
    const std::string look_back = "satlib::lookback_sat_kernel<float, float, satlib::TileShape<float, float>, 1, 0, 0>";
    std::ofstream(dir + "/report.txt") << "==PROF== Connected to process 1\n"
                                       << ncu_launch("lookback::clear_words<unsigned int>", 1, 256, "us 990", 9)
                                       << ncu_launch(look_back, 264, 256, "ms 1.01", 1)
                                       << ncu_launch(look_back, 264, 256, "us 500", 2)
                                       << ncu_launch(look_back, 264, 256, "us 990", 3);
    std::ofstream(dir + "/none.txt") << ncu_launch("lookback::clear_words<unsigned int>", 1, 256, "us 15", 9);
    std::string cut = ncu_launch(look_back, 264, 256, "us 10", 1);
    cut.erase(cut.find("    Waves Per SM"), cut.find("    Achieved") - cut.find("    Waves Per SM"));
    std::ofstream(dir + "/cut.txt") << cut;
    const std::string run = "python3 tools/ncu_summary.py --gpu GPU --driver 1 --cuda 13.0 --date 2026-01-01 ";
    sat_test::require_command(run + "--case '16384²,f32," + dir + "/report.txt' " + dir + "/out.csv");
    CHECK(sat_test::require_command("cat " + dir + "/out.csv") ==
          "gpu,driver,cuda,date,shipped,shape,type,kernel,grid × block,registers,shared KB per block,µs,"
          "DRAM % of peak,SM active % of elapsed,warps per SM (of 64),waves,cycles per issue,barrier,"
          "long scoreboard,wait,short scoreboard\n"
          "GPU,1,13.0,2026-01-01,n/a,16384²,f32,\"look-back, TileShape, 256 threads\",264 × 256,123,98.8,990.0,"
          "73.3,90,15.9,1.00,12.03,3.10,3.20,3.30,3.40\n");
    // No SAT kernel, or a metric missing: one line, exit 2, no traceback.
    sat_test::check_output(sat_test::require_command(run + "--case 'x,f32," + dir + "/none.txt' " + dir + "/x.csv 2>&1", 2),
                           {"no launch of lookback_sat_kernel or thin_sat_kernel"}, {"Traceback"});
    sat_test::check_output(sat_test::require_command(run + "--case 'x,f32," + dir + "/cut.txt' " + dir + "/x.csv 2>&1", 2),
                           {"no metric 'Waves Per SM'"}, {"Traceback"});
    std::ofstream(dir + "/unit.txt") << ncu_launch(look_back, 264, 256, "cycle 10", 1);
    sat_test::check_output(sat_test::require_command(run + "--case 'x,f32," + dir + "/unit.txt' " + dir + "/x.csv 2>&1", 2),
                           {"Duration in cycle, not one of ns, us, ms, s"}, {"Traceback"});
    sat_test::run_command("rm -rf " + dir);
}
