// test_util.h — what every test file shares: GPU skipping, fresh seeds, running one variant.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "harness.h"

namespace sat_test {

// Set by SAT_REQUIRE_GPU when a test skips; the summary line counts it as skipped.
extern bool skipped_current;
bool gpu_present();

// The run's base seed: $SAT_TEST_SEED if set, else fresh; printed once at start-up. Each call
// returns the next seed derived from it, so a failing run reproduces with the printed seed.
std::uint64_t fresh_seed();
std::uint64_t base_seed();

// The variant called `name` of a registered lab; the test FAILs when there is none.
const sat::Variant& find_variant(int lab, const std::string& name);

// Run a variant of a registered lab once (no timing), check it, and attach a description with
// the seed to the next assertion: use as  auto m = check_variant(...); REQUIRE(m.ok());
// r: lab 6's split (-1: the lab's default); cpu_threads: lab 1's threads (0: all cores); batch:
// images of `shape` in the run (--batch; variants that take batches), each checked on its own.
sat::Measurement check_variant(int lab, const std::string& variant, sat::DType type,
                               sat::Shape shape, double r = -1, int cpu_threads = 0, int batch = 1);
// The same for a variant that is not registered (a wrapper a test makes) of a registered lab.
sat::Measurement check_variant(int lab, const sat::Variant& variant, sat::DType type, sat::Shape shape,
                               double r = -1, int cpu_threads = 0, int batch = 1);

// A lab's sweep: check_variant for every variant x type x shape, each REQUIREd to pass (the first
// failure stops the test and names lab, variant, type, shape and seed); r and batch as for
// check_variant.
void require_all_pass(int lab, const std::vector<std::string>& variants, const std::vector<sat::DType>& types,
                      const std::vector<sat::Shape>& shapes, double r = -1, int batch = 1);

// A CPU variant that takes batches (sat::batched): lab 1's 2R2W(CPU) image by image over
// Workspace::batch images, for tests of the harness's batches without a GPU.
sat::Variant cpu_batch_variant();
// A planted image-boundary bug: `base` run on a batch's images stacked as one (B * rows) x cols
// matrix, so each image's column sums carry into the next one. Marked as taking batches; named
// base.name + "-stacked". One base at a time (the last one asked for).
sat::Variant stacked_variant(const sat::Variant& base);


// 1x1, 31x33, 97x89 (primes), 1x100000, 100000x1, 64x96, 1024x1024, 4096x4096.
std::vector<sat::Shape> standard_shapes();
std::vector<sat::DType> all_types();
std::string shape_name(sat::Shape s);

// Upper bound on the blocks the GPU can hold at once, whatever their size: a grid larger than
// this is over-subscribed (inter-block kernels must still finish).
long resident_block_bound();
// The same for warps (threads per SM / 32 on every SM): a bound for warp-wise workers.
long resident_warp_bound();

// Run every variant of `lab` once on a `shape` f32 matrix with --trace, and check that each
// wrote a PNG (the tile-completion picture of labs 5, 6 and 8).
void require_trace_pictures(int lab, sat::Shape shape);

// Run a shell command from the repository root; returns its exit status (-1 if it died on a
// signal) and its stdout+stderr.
int run_command(const std::string& command, std::string* output = nullptr);
// run_command, REQUIRE its exit status to be `status` (its output shown when not); returns the output.
std::string require_command(const std::string& command, int status = 0);
// CHECK that a program's output contains each of `present` and none of `absent`.
void check_output(const std::string& output, std::initializer_list<const char*> present,
                  std::initializer_list<const char*> absent = {});

}  // namespace sat_test

#define SAT_REQUIRE_GPU()                                      \
    do {                                                       \
        if (!::sat_test::gpu_present()) {                      \
            ::sat_test::skipped_current = true;                \
            SUCCEED("skipped: no CUDA GPU on this machine");   \
            return;                                            \
        }                                                      \
    } while (0)
