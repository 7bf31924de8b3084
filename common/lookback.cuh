// lookback.cuh — the decoupled look-back primitives that lab 9 (the teaching kernel) and the
// library (lib/src/lookback_kernel.cuh, the tuned kernel) share, after CUB's tile-state object:
// tile states published with release and read with acquire, the published sums read and written
// through L2 only, and the warp reductions that combine a window of 32 predecessors.
#pragma once

#include <cstdint>

#include "device.cuh"
#include "launch.cuh"

namespace sat::lookback {

constexpr unsigned full_mask = 0xffffffffu;

// Tile states, published with release and read with acquire; a state only ever rises.
enum TileState : unsigned {
    invalid = 0,   // nothing published yet
    partial = 1,   // row_sum and col_sum (the tile's own aggregates)
    row_done = 2,  // + row_prefix and left_sum (after the look-back along the tile row)
    done = 3,      // + col_prefix and corner_prefix (after the look-back up the tile column; the
                   // library's launches that add up aggregates: a group's sums, from its last tile)
};

__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
// Release: every write this thread has made or observed (the block's, after a barrier) becomes
// visible to a thread that reads this flag with load_acquire. A max, not a store: two threads of
// a tile raise its state (partial, then row_done), and a late `partial` must not lower it.
__device__ __forceinline__ void publish_state(unsigned* p, unsigned v) {
    asm volatile("red.release.gpu.global.max.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// The flags of a grid of tiles, with a bounded wait: the tile-state object.
struct TileFlags {
    unsigned* state;  // [tiles] TileState, zero when the kernel starts
    int* status;      // set to sat::status_spin_timeout by a wait that gave up

    // Wait until tile t has reached at least `least`; returns the state seen, or `invalid`
    // after a spin timeout (the caller leaves; the host reports the status).
    __device__ __forceinline__ unsigned wait(std::size_t t, unsigned least) const {
        unsigned st = invalid;
        const bool ok = bounded_spin([&] { return (st = load_acquire(state + t)) >= least; }, status);
        return ok ? st : unsigned(invalid);
    }
    __device__ __forceinline__ void publish(std::size_t t, unsigned st) const { publish_state(state + t, st); }
};

// Clearing the flags without a gap. A look-back launch needs its ticket and tile states zero.
// clear_flags zeroes them in a kernel that lets the look-back launch after it on the stream start
// at once (programmatic dependent launch: launch_kernel(true, ...)), so that its blocks are
// resident and may warm L2 with their first input while the flags are cleared. Those blocks call
// wait_for_cleared_flags() before they take a ticket; launched without the attribute, it returns
// at once.
template <class Word>
__global__ void clear_words(Word* words, std::size_t count) {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;");
#endif
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        words[i] = Word(0);
}
__device__ __forceinline__ void wait_for_cleared_flags() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
// Zeroes `bytes` at `p`: 4-byte words where the pointer and size allow (the ticket and flags
// always do), else bytes (a line's CUB scratch shares the region in the C ABI).
inline cudaError_t clear_flags(void* p, std::size_t bytes, cudaStream_t stream) {
    const bool words = reinterpret_cast<std::uintptr_t>(p) % sizeof(unsigned) == 0 && bytes % sizeof(unsigned) == 0;
    const std::size_t count = words ? bytes / sizeof(unsigned) : bytes;
    // About 4 words per thread of 256, at most 64 blocks; at least one block, so that a launch
    // after it always follows a kernel that lets it start.
    const unsigned blocks = unsigned(count < 64 * 1024 ? (count + 1023) / 1024 : 64) + (count == 0);
    return words ? launch_kernel(clear_words<unsigned>, dim3(blocks), dim3(256), 0, stream, static_cast<unsigned*>(p), count)
                 : launch_kernel(clear_words<unsigned char>, dim3(blocks), dim3(256), 0, stream,
                                 static_cast<unsigned char*>(p), count);
}

// Published sums (scratch): cached in L2 only (.cg), never in the non-coherent L1.
__device__ __forceinline__ void add_published(const float* p, float (&x)[4]) {
    const float4 t = __ldcg(reinterpret_cast<const float4*>(p));
    x[0] += t.x, x[1] += t.y, x[2] += t.z, x[3] += t.w;
}
__device__ __forceinline__ void add_published(const double* p, double (&x)[2]) {
    const double2 t = __ldcg(reinterpret_cast<const double2*>(p));
    x[0] += t.x, x[1] += t.y;
}
__device__ __forceinline__ void add_published(const uint32_t* p, uint32_t (&x)[4]) {
    const uint4 t = __ldcg(reinterpret_cast<const uint4*>(p));
    x[0] += t.x, x[1] += t.y, x[2] += t.z, x[3] += t.w;
}
__device__ __forceinline__ void publish(float* p, const float (&x)[4]) {
    __stcg(reinterpret_cast<float4*>(p), make_float4(x[0], x[1], x[2], x[3]));
}
__device__ __forceinline__ void publish(double* p, const double (&x)[2]) {
    __stcg(reinterpret_cast<double2*>(p), make_double2(x[0], x[1]));
}
__device__ __forceinline__ void publish(uint32_t* p, const uint32_t (&x)[4]) {
    __stcg(reinterpret_cast<uint4*>(p), make_uint4(x[0], x[1], x[2], x[3]));
}

// Exclusive scan from an inclusive one, and a full-warp sum.
template <class A>
__device__ __forceinline__ A warp_exclusive(A inclusive, int lane) {
    const A y = __shfl_up_sync(full_mask, inclusive, 1);
    return lane == 0 ? A(0) : y;
}
template <class A>
__device__ __forceinline__ A warp_sum(A x) {
#pragma unroll
    for (int d = 16; d > 0; d /= 2) x += __shfl_xor_sync(full_mask, x, d);
    return x;
}

}  // namespace sat::lookback
