// device.cuh — the few device-side helpers the labs share: a clock, tile tracing and a bounded
// spin wait for kernels whose blocks wait on each other (labs 8 and 9).
#pragma once

#include "sat.h"

namespace sat {

constexpr int w = 32;  // the HMM width: warp size, shared-memory banks, tile side

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
// false so the caller can leave. Any thread may call it: each caller polls for itself and may
// set the status by itself.
// A poll of shared memory in the same cluster takes a fraction of an L2 round trip, so it sleeps
// less (max_backoff_ns) and reads the status word in L2 less often (every check_every polls).
template <unsigned max_backoff_ns = 128, unsigned check_every = 16, class Ready>
__device__ bool bounded_spin(Ready ready, int* status) {
    const unsigned long long start = globaltimer();
    // A short, capped back-off: a flag normally arrives within a few microseconds, and a
    // sleep longer than ~128 ns would add its own length to every hand-over. The status word
    // and the clock are checked every check_every-th poll only (16 by default): each is one more
    // round trip to L2 on the hand-over's critical path.
    [[maybe_unused]] unsigned int backoff = max_backoff_ns < 16 ? max_backoff_ns : 16;
    for (unsigned polls = 1; !ready(); ++polls) {
        if (polls % check_every == 0) {
            if (*(volatile int*)status != status_ok) return false;
            if (globaltimer() - start > spin_timeout_ns) {
                atomicExch(status, status_spin_timeout);
                return false;
            }
        }
        if constexpr (max_backoff_ns > 0) {
            __nanosleep(backoff);
            if (backoff < max_backoff_ns) backoff *= 2;
        }
    }
    return true;
}

// Inclusive Kogge-Stone scan of x across the 32 lanes of a full warp (labs 8 and 9; lab 7's
// students write their own).
template <class A>
__device__ __forceinline__ A warp_inclusive_scan(A x, int lane) {
#pragma unroll
    for (int d = 1; d < w; d *= 2) {
        const A y = __shfl_up_sync(0xffffffffu, x, d);
        if (lane >= d) x += y;
    }
    return x;
}

// ---- 16-byte row pieces (labs 8 and 9) ----------------------------------------------------
// A thread that owns 16 bytes of accumulators in a row moves them with one access: 4 values of
// 4 bytes or 2 of 8 (u8 input: 4 bytes read, widened). Loads take the read-only path (__ldg);
// stores stream (.cs: each byte is written once). Streaming loads (__ldcs) measured 3 % slower in
// lab 8, whose hand-over polls share L2 with them, and no faster in lab 9.
template <class T> __host__ __device__ constexpr int vec_of() { return int(16 / sizeof(T)); }
// A load is the piece as loaded, in the input's vector type (load_bits), widened to accumulators
// (widen); load_vec does both. A look-ahead buffer keeps what was loaded and widens it when the
// step uses it (lab 8): for u8 input that holds 4 bytes instead of 4 accumulators, and no
// arithmetic waits for a load in flight.
template <class In> struct row_bits;
template <> struct row_bits<float> { using type = float4; };
template <> struct row_bits<double> { using type = double2; };
template <> struct row_bits<int32_t> { using type = int4; };
template <> struct row_bits<uint8_t> { using type = unsigned; };
template <class In> using row_bits_t = typename row_bits<In>::type;
template <class In>
__device__ __forceinline__ row_bits_t<In> load_bits(const In* p) {
    return __ldg(reinterpret_cast<const row_bits_t<In>*>(p));
}
__device__ __forceinline__ void widen(float4 b, float (&x)[4]) { x[0] = b.x, x[1] = b.y, x[2] = b.z, x[3] = b.w; }
__device__ __forceinline__ void widen(double2 b, double (&x)[2]) { x[0] = b.x, x[1] = b.y; }
__device__ __forceinline__ void widen(int4 b, uint32_t (&x)[4]) {
    x[0] = uint32_t(b.x), x[1] = uint32_t(b.y), x[2] = uint32_t(b.z), x[3] = uint32_t(b.w);
}
__device__ __forceinline__ void widen(unsigned b, uint32_t (&x)[4]) {
    x[0] = b & 0xffu, x[1] = (b >> 8) & 0xffu, x[2] = (b >> 16) & 0xffu, x[3] = b >> 24;
}
template <class In, class A, int V>
__device__ __forceinline__ void load_vec(const In* p, A (&x)[V]) { widen(load_bits(p), x); }
__device__ __forceinline__ void store_vec(float* p, const float (&x)[4]) {
    __stcs(reinterpret_cast<float4*>(p), make_float4(x[0], x[1], x[2], x[3]));
}
__device__ __forceinline__ void store_vec(double* p, const double (&x)[2]) {
    __stcs(reinterpret_cast<double2*>(p), make_double2(x[0], x[1]));
}
__device__ __forceinline__ void store_vec(int32_t* p, const uint32_t (&x)[4]) {
    __stcs(reinterpret_cast<int4*>(p), make_int4(int(x[0]), int(x[1]), int(x[2]), int(x[3])));
}

// cp.async copies global memory straight into shared memory (no registers held while in flight);
// `bytes` < the copy size zero-fills the rest (edges of the matrix). A thread's own copies are
// visible to it after the wait; other threads' need a barrier too.
__device__ __forceinline__ void cp_async(void* smem, const void* gmem, int bytes, int size) {
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    if (size == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(gmem), "r"(bytes) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(s), "l"(gmem), "r"(bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_group 0;" ::: "memory"); }
// Wait until at most `pending` of this thread's newest groups are still in flight.
template <int pending>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(pending) : "memory"); }
// A 16-byte (u8: 4-byte) row piece from shared memory, widened to the accumulator type.
template <class In, class A, int V>
__device__ __forceinline__ void load_smem(const In* p, A (&x)[V]) {
    widen(*reinterpret_cast<const row_bits_t<In>*>(p), x);
}

}  // namespace sat
