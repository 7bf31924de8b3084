// bench_tile_times.cu — how long each tile of one library call spends in each step of the tile
// loop, and how long it waits for the tiles it looks back at (`make bench-tile-times`).
//
//     build/lib/bench_tile_times [--cases [Bx]RxC,...] [--csv FILE] [--raw DIR]
//
// Linked against the library compiled with -DSATLIB_TILE_STAMPS: every ticket of the 2-D kernel
// then records %globaltimer when it is taken, when its loads start and when they are scanned,
// when it publishes its aggregates (partial), its row carries (row_done) and its column prefixes
// (done), when thread 0 has its carries, and when thread 0's stores are issued; a first-round
// block also records its start, its L2 prefetch issued and its wait for the flags' clearing
// passed (TileStamp and the stamp_tile calls, lib/src/lookback_kernel.cuh, say which thread
// stamps what). A call runs between two one-thread
// kernels that read %globaltimer; the run of five whose last tile was written earliest is kept
// (L2 flushed before each; a first call before them is not kept). Per case, the median and 90th
// percentile (nearest rank) over the tiles of each step, in µs:
//   start    the block's start (first round of tickets) after the stamp kernel before the call
//   load     loads start (the top of the tile loop) -> scanned: the tile's loads in and its local
//            scan done (a block's later tickets are taken before it writes out the tile before:
//            the end of that tile, its write-out included, lies between the ticket and the loads'
//            start, tools/tile_waits.py's drain)
//   publish  scanned -> partial
//   left     partial -> row_done: the row look-back (0 on the left edge)
//   up       partial -> carries: both look-backs and thread 0's adds of the column sums
//   above    how long after this tile's partial the tile above reached row_done (0 when earlier):
//            the part of `up` spent waiting for the neighbour the column window needs first
//   write    done -> thread 0's stores issued
//   tile     ticket -> thread 0's stores issued
// and the call's end (last tile written, after the stamp before). Input zero: the kernel's work
// does not depend on the values, and nothing is checked here (the tests do). --raw DIR writes each
// case's stamps, in ns after the stamp before the call, one row per ticket
// (DIR/tile_times_<case>_<type>.csv: tools/tile_waits.py's input).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_util.h"
#include "bracket_stamps.cuh"
#include "device.cuh"
#include "gpu_timing.h"
#include "harness.h"
#include "sat.hpp"
#include "satlib_testing.h"  // the tile rows R of the call's launch

namespace {

// The kernel's stamps per ticket, in the order of satlib::TileStamp.
enum { ticket_at, scanned_at, partial_at, row_done_at, carries_at, done_at, written_at,
       block_start_at, prefetched_at, flags_clear_at,  // a first-round block's (0 for later tickets)
       loads_start_at, stamps_per_tile };
bool first_round_only(int s) { return s >= block_start_at && s <= flags_clear_at; }
constexpr int min_tile_rows = 17;   // the shortest tile (R is 17 to 40: the short tiles), for the trace's size
constexpr int min_tile_cols = 512;  // the narrowest tile: 128 threads x 4 columns

struct Case {
    int images, rows, cols;
    std::string name() const { return sat::shape_text(sat::Shape{rows, cols}, images); }  // "Bx1080x1920"
};

double percentile(std::vector<double> v, double f) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(f * double(v.size() - 1) + 0.5))];
}

template <class In, class Out>
void tile_times(const Case& c, const char* type, FILE* csv, const std::string& run, const std::string& raw_dir) {
    const std::size_t n = std::size_t(c.rows) * c.cols, all = n * c.images;
    const std::size_t max_tickets =
        std::size_t(sat::ceil_div(c.rows, min_tile_rows)) * sat::ceil_div(c.cols, min_tile_cols) * c.images;
    sat::DeviceBuffer in(all * sizeof(In)), out(all * sizeof(Out));
    sat::DeviceBuffer trace(max_tickets * stamps_per_tile * sizeof(unsigned long long));
    SAT_CUDA(cudaMemset(in.ptr, 0, all * sizeof(In)));
    const sat::ScanScratchSize need = sat::inclusive_scan_2d_scratch<In, Out>(c.rows, c.cols, c.images);
    sat::DeviceBuffer state(need.state_bytes), values(need.value_bytes);
    cudaStream_t stream = nullptr;
    SAT_CUDA(cudaStreamCreate(&stream));
    sat::L2Flusher flusher;
    bench::BracketStamps edges;
    sat::ScanOptions opt;  // the caller's scratch, its flags cleared by the call (as `make bench` calls it)
    opt.state = state.ptr;
    opt.values = values.ptr;
    opt.trace = trace.as<unsigned long long>();
    opt.batch.count = c.images;
    opt.batch.in_stride = opt.batch.out_stride = n;

    std::vector<unsigned long long> best;
    unsigned long long best_end = ~0ull, best_before = 0, best_after = 0;
    for (int rep = 0; rep < 6; ++rep) {  // the first: caches and the scratch's first touch, not kept
        SAT_CUDA(cudaMemset(trace.ptr, 0, max_tickets * stamps_per_tile * sizeof(unsigned long long)));
        SAT_CUDA(cudaDeviceSynchronize());
        flusher.flush(stream);
        edges.around(stream, [&] {
            SAT_CUDA(sat::inclusive_scan_2d(in.as<In>(), c.cols, out.as<Out>(), c.cols, c.rows, c.cols, stream, opt));
        });
        SAT_CUDA(cudaStreamSynchronize(stream));
        std::vector<unsigned long long> t(max_tickets * stamps_per_tile);
        SAT_CUDA(cudaMemcpy(t.data(), trace.ptr, t.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        const auto edge = edges.read();
        unsigned long long last = 0;
        for (std::size_t k = 0; k < max_tickets; ++k) last = std::max(last, t[k * stamps_per_tile + written_at]);
        if (rep > 0 && last - edge[0] < best_end) best = t, best_end = last - edge[0], best_before = edge[0], best_after = edge[1];
    }
    SAT_CUDA(cudaStreamDestroy(stream));
    const int tile_rows = satlib::testing::launch_log().last_tile_rows;
    if (tile_rows <= 0) throw sat::Error("bench_tile_times: " + c.name() + " took no 2-D launch");
    const int tiles_y = sat::ceil_div(c.rows, tile_rows);

    // Tickets: the stamped ones, from 0; tiles_x follows from their count.
    std::size_t tickets = 0;
    while (tickets < max_tickets && best[tickets * stamps_per_tile + ticket_at] != 0) ++tickets;
    const std::size_t per_image_row = tickets / (std::size_t(tiles_y) * c.images);
    if (per_image_row == 0 || per_image_row * tiles_y * c.images != tickets)
        throw sat::Error("bench_tile_times: " + std::to_string(tickets) + " tickets stamped, not whole tile rows of " +
                         c.name() + " (a batch in several launches is not traced)");
    const int tiles_x = int(per_image_row);
    for (std::size_t k = 0; k < tickets; ++k)
        for (int s = 0; s < stamps_per_tile; ++s)
            if (!first_round_only(s) && best[k * stamps_per_tile + s] == 0)
                throw sat::Error("bench_tile_times: ticket " + std::to_string(k) + " is missing stamp " + std::to_string(s));
    auto at = [&](std::size_t k, int s) { return double(best[k * stamps_per_tile + s] - best_before) * 1e-3; };
    // The ticket of the tile above ticket k (the kernel's place_of: a tile row of every image at a
    // time), or -1 in an image's top tile row.
    auto above = [&](std::size_t k) -> long long {
        const std::size_t band = k / tiles_x, tx = k % tiles_x;
        const std::size_t image = band % c.images, ty = band / c.images;
        if (ty == 0) return -1;
        return (long long)(((ty - 1) * c.images + image) * tiles_x + tx);
    };

    std::vector<double> start, load, publish, left, up, waited_above, write, tile;
    for (std::size_t k = 0; k < tickets; ++k) {
        if (best[k * stamps_per_tile + block_start_at] != 0) start.push_back(at(k, block_start_at));
        load.push_back(at(k, scanned_at) - at(k, loads_start_at));
        publish.push_back(at(k, partial_at) - at(k, scanned_at));
        left.push_back(at(k, row_done_at) - at(k, partial_at));
        up.push_back(at(k, carries_at) - at(k, partial_at));
        const long long a = above(k);
        if (a >= 0) waited_above.push_back(std::max(0.0, at(std::size_t(a), row_done_at) - at(k, partial_at)));
        write.push_back(at(k, written_at) - at(k, done_at));
        tile.push_back(at(k, written_at) - at(k, ticket_at));
    }
    const double end_us = double(best_end) * 1e-3, after_us = double(best_after - best_before) * 1e-3;
    std::printf("%-14s %-6s %5zu %3d |", c.name().c_str(), type, tickets, tiles_x);
    std::string row = run + "," + c.name() + "," + type + "," + std::to_string(tickets) + "," + std::to_string(tiles_x);
    for (const auto* v : {&start, &load, &publish, &left, &up, &waited_above, &write, &tile}) {
        const double med = percentile(*v, 0.5), p90 = percentile(*v, 0.9);
        std::printf(" %5.1f %5.1f |", med, p90);
        char cell[64];
        std::snprintf(cell, sizeof cell, ",%.2f,%.2f", med, p90);
        row += cell;
    }
    std::printf(" %6.1f %6.1f\n", end_us, after_us);
    std::fflush(stdout);
    if (csv) {
        char cell[64];
        std::snprintf(cell, sizeof cell, ",%.1f,%.1f", end_us, after_us);
        std::fprintf(csv, "%s%s\n", row.c_str(), cell);
    }
    if (!raw_dir.empty()) {
        const std::string path = raw_dir + "/tile_times_" + c.name() + "_" + type + ".csv";
        FILE* f = std::fopen(path.c_str(), "w");
        if (f == nullptr) throw sat::Error("bench_tile_times: cannot write " + path);
        std::fprintf(f, "ticket,ticket_ns,scanned_ns,partial_ns,row_done_ns,carries_ns,done_ns,written_ns,block_start_ns,"
                        "prefetched_ns,flags_clear_ns,loads_start_ns\n");
        for (std::size_t k = 0; k < tickets; ++k) {
            std::fprintf(f, "%zu", k);
            for (int s = 0; s < stamps_per_tile; ++s) {
                const unsigned long long v = best[k * stamps_per_tile + s];
                std::fprintf(f, ",%lld", v == 0 ? -1ll : (long long)(v - best_before));
            }
            std::fprintf(f, "\n");
        }
        if (std::fclose(f) != 0) throw sat::Error("bench_tile_times: cannot write " + path);
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::string csv_path, raw_dir;
    std::vector<Case> cases = {{1, 1080, 1920}, {1, 4096, 4096}, {1, 16384, 16384}, {64, 1080, 1920}, {16, 2160, 3840}};
    for (int k = 1; k < argc; ++k) {
        const std::string a = argv[k];
        if (a == "--csv" && k + 1 < argc) {
            csv_path = argv[++k];
        } else if (a == "--raw" && k + 1 < argc) {
            raw_dir = argv[++k];
        } else if (a == "--cases" && k + 1 < argc) {  // [B x]RxC,...
            cases.clear();
            try {
                for (std::string s : sat::split_list(argv[++k], ',')) {
                    int images = 1;
                    const std::size_t x = s.find('x');
                    if (x != std::string::npos && s.find('x', x + 1) != std::string::npos) {  // Bx in front
                        images = int(sat::parse_integer("--cases", s.substr(0, x), 1, 65535));
                        s = s.substr(x + 1);
                    }
                    const sat::Shape shape = sat::parse_shape("--cases", s);
                    cases.push_back({images, shape.rows, shape.cols});
                }
            } catch (const sat::UsageError& e) {
                std::fprintf(stderr, "bench_tile_times: %s\n", e.what());
                return 2;
            }
        } else {
            std::fprintf(stderr, "usage: bench_tile_times [--cases [Bx]RxC,...] [--csv FILE] [--raw DIR]\n");
            return 2;
        }
    }
    if (!have_device("bench_tile_times")) return 2;
    FILE* csv = nullptr;
    if (!open_bench_csv(csv_path, "bench_tile_times", &csv)) return 2;
    if (csv) {
        std::fprintf(csv, "gpu,driver,cuda,date,case,type,tiles,tiles_x");
        for (const char* step : {"start", "load", "publish", "left", "up", "above", "write", "tile"})
            std::fprintf(csv, ",%s_med_us,%s_p90_us", step, step);
        std::fprintf(csv, ",last_written_us,end_us\n");
    }
    try {
        cudaDeviceProp prop{};
        SAT_CUDA(cudaGetDeviceProperties(&prop, 0));
        const std::string run = run_columns(prop);
        std::printf("bench_tile_times on %s: µs per tile, median and 90th percentile over the tiles\n", prop.name);
        std::printf("%-14s %-6s %5s %3s | %11s | %11s | %11s | %11s | %11s | %11s | %11s | %11s | %6s %6s\n", "case",
                    "type", "tiles", "tx", "start", "load", "publish", "left", "up", "above", "write", "tile", "last",
                    "end");
        for (const Case& c : cases) {
            tile_times<float, float>(c, "f32", csv, run, raw_dir);
            tile_times<uint8_t, int32_t>(c, "u8i32", csv, run, raw_dir);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_tile_times: %s\n", e.what());
        return 1;
    }
    if (!close_bench_csv(csv, csv_path, "bench_tile_times")) return 2;
    return 0;
}
