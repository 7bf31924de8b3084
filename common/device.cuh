// device.cuh — the few device-side helpers the labs share: a clock, tile tracing and a bounded
// spin wait for kernels whose blocks wait on each other (labs 8 and 9).
#pragma once

#include "sat.h"

namespace sat {

constexpr int w = 32;  // the HMM width: warp size, shared-memory banks, tile side

__host__ __device__ constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }  // a, b > 0

__device__ __forceinline__ unsigned long long globaltimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Record when the 32x32 tile (tile_row, tile_col) finished; `trace` may be null (no --trace).
__device__ __forceinline__ void record_tile(unsigned long long* trace, Shape shape, int tile_row,
                                            int tile_col) {
    if (trace == nullptr) return;
    const int tiles_x = ceil_div(shape.cols, w);
    trace[std::size_t(tile_row) * tiles_x + tile_col] = globaltimer();
}

// A spin wait that cannot hang the machine: poll `ready()` until it returns true; if
// spin_timeout_ns pass first, or another block already timed out, set *status and return
// false so the caller can leave. Call from one thread per block (or per warp).
template <class Ready>
__device__ bool bounded_spin(Ready ready, int* status) {
    const unsigned long long start = globaltimer();
    // A short, capped back-off: a flag normally arrives within a few microseconds, and a
    // sleep longer than ~128 ns would add its own length to every hand-over. The status word
    // and the clock are checked every 16th poll only: each is one more round trip to L2 on
    // the hand-over's critical path.
    unsigned int backoff = 16;
    for (unsigned polls = 1; !ready(); ++polls) {
        if (polls % 16 == 0) {
            if (*(volatile int*)status != status_ok) return false;
            if (globaltimer() - start > spin_timeout_ns) {
                atomicExch(status, status_spin_timeout);
                return false;
            }
        }
        __nanosleep(backoff);
        if (backoff < 128) backoff *= 2;
    }
    return true;
}

}  // namespace sat
