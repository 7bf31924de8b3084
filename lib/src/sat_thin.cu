// sat_thin.cu — single-pass SAT of thin matrices: decoupled look-back over chunks of the long side.
//
// Notation: K = the short side (cols of a tall matrix, rows of a wide one), M = lines per thread.
// A block of T = 256 threads (SAT_THIN_THREADS) takes
// one chunk by atomic ticket and stages it in shared memory as accumulators. Thread t owns a
// segment of M x K elements: M consecutive rows x all K columns (tall) or all K rows x M
// consecutive columns (wide). In segment coordinates (a < M, b < K) the
// two cases are the same algorithm with different strides:
//   1. aggregate pass: for each b, the sum over a of the segment, prefix-summed over b, replaces
//      the segment's last line a = M-1: the thread's local SAT there (its bottom row / right
//      column),
//   2. an inclusive scan of those K-vectors over the T threads turns each last line into the
//      chunk-local SAT there; thread T-1's is the chunk aggregate, published at once (flag 1),
//   3. the block looks back over the chunks before (flag 1: add its aggregate, flag 2: add its
//      inclusive prefix and stop) and publishes this chunk's inclusive prefix (flag 2),
//   4. every thread turns lines a < M-1 into the chunk-local SAT, line by line, from the line
//      before (or the previous thread's last line),
//   5. the chunk is written out with the carry (the SAT row above / column left) added.
// M is odd or a tall segment is padded to an odd length, so the 32 segments of a warp's threads
// (steps 1 and 4) start in 32 banks; M = 2 with two-way conflicts is the exception (plan_for).
// Global accesses are 16 bytes: loads of 16 bytes of input (u8: 16 elements) and stores of 16
// bytes of output (4 or 2 elements), when the rows are contiguous (tall: pitch == cols) or the
// pitch is a whole number of groups (wide), and the pointers are aligned; an input aligned to one
// output group only (u8: 4 bytes) is loaded in such groups; f32 and i32 chunks of K >=
// straight_min_width whose segments are not padded copy their groups into shared memory by
// cp.async. Wide chunks of any other pitch, alignment or batch stride move the 16-byte aligned
// groups that hold their rows and shift each row into place (shift_window); tall chunks of any
// other pitch go element by element.
#include "sat_thin.cuh"

#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/tabulate_output_iterator.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

#include "device.cuh"
#include "device_cache.h"
#include "launch.cuh"
#include "lookback.cuh"
#include "sat.h"

namespace sat {
namespace thin {
namespace {

#ifndef SAT_THIN_THREADS  // threads per block (tuning: -DSAT_THIN_THREADS=..)
#define SAT_THIN_THREADS 256
#endif
constexpr int block_threads = SAT_THIN_THREADS;
static_assert(block_threads % 32 == 0, "whole warps: the warp scans and shuffles use every lane");
constexpr int state_header_words = 32;          // ticket, internal status; flags start at 128 B
#ifndef SAT_THIN_CHUNK_BYTES  // accumulators staged per chunk (tuning: -DSAT_THIN_CHUNK_BYTES=..)
#define SAT_THIN_CHUNK_BYTES 65536
#endif
constexpr std::size_t chunk_target_bytes = SAT_THIN_CHUNK_BYTES;
#ifndef SAT_THIN_LOADS_IN_FLIGHT  // 16-byte loads per thread in flight while a chunk loads (tuning)
#define SAT_THIN_LOADS_IN_FLIGHT 8
#endif
constexpr int loads_in_flight = SAT_THIN_LOADS_IN_FLIGHT;
#ifndef SAT_THIN_MIN_BLOCKS  // blocks per SM the registers must allow (tuning)
#define SAT_THIN_MIN_BLOCKS 3  // as the shared memory of a 64 KB chunk allows; no spills (sm_90)
#endif
#ifndef SAT_THIN_MIN_LINES_4  // fewest lines per thread of a chunk sized for 4 blocks per SM (tuning)
#define SAT_THIN_MIN_LINES_4 4
#endif
// One wide f32 or i32 image of at most this many rows (K) takes chunks of which 4 fit an SM, as one
// tall image does, in a kernel compiled for 4 blocks (H200, against blocks of 128 threads, 7 an
// SM: odd widths of 3 to 5 rows 0.88-0.97 of the time, 4 rows of whole 16-byte groups 0.97-0.98,
// 3 x 1,000,000 0.93, 3 and 5 rows of whole groups 0.999-1.010; those blocks took 0.94-0.95 of the
// time of 64 KB chunks, 3 an SM, at 3 and 5 rows, and lost from 7 rows on; docs/thin.md, *Four
// blocks per SM for single wide images of few rows*).
#ifndef SAT_THIN_FOUR_BLOCKS_MAX_ROWS
#define SAT_THIN_FOUR_BLOCKS_MAX_ROWS 5
#endif

// The SM the plans are made for: sm_90 (H100, H200), 228 KB of shared memory, of which the
// system reserves 1 KB per block, allocated in steps of 128 bytes. Fixed, not the current
// device's, so that scratch_bytes needs no device; [thin] checks the plans on the GPU it runs on.
constexpr std::size_t sm_smem_bytes = 228 * 1024, smem_reserved_per_block = 1024, smem_step = 128;

// Chunk flags, published with release and read with acquire.
enum ChunkState : unsigned { invalid = 0, aggregate = 1, inclusive = 2 };

struct Plan {
    bool tall;          // chunks of whole rows (K = cols); else of whole columns (K = rows)
    int K;              // the short side: components of a chunk's aggregate
    int M;              // lines per thread (odd, except M = 2 and tall chunks of even K)
    int seg;            // distance between two threads' segments in shared memory (elements)
    int sa, sb;         // strides of segment coordinates a (line) and b (component)
    bool four_blocks;   // one image that takes the kernel compiled for 4 blocks per SM (plan_for)
    long long lines;    // chunk length along the long side: threads * M rows or columns
    unsigned chunks;
    std::size_t smem_elems;
    int blocks_per_sm;  // resident at once, as the kernel's registers and the chunk allow
};

// Inputs as wide as their 4-byte sums (f32, i32), at the default 256 threads: the pairs whose one
// tall image, and one wide image of at most SAT_THIN_FOUR_BLOCKS_MAX_ROWS rows, take chunks for
// 4 blocks per SM (plan_for).
template <class In, class Out>
constexpr bool has_four_blocks = sizeof(In) == 4 && sizeof(Acc<Out>) == 4 && block_threads == 256;

// Blocks per SM the registers of a kernel allow (its __launch_bounds__): 4 for the kernels of one
// such image (64 registers a thread under the bound of 3; under this one 63, and 64 with 8 bytes
// spilled for the wide one, sm_90), else SAT_THIN_MIN_BLOCKS (64 to 80 registers).
constexpr int blocks_by_registers(bool four_blocks) {
    return four_blocks ? std::max(4, SAT_THIN_MIN_BLOCKS) : SAT_THIN_MIN_BLOCKS;
}

// The kernel's static shared memory (thin_sat_kernel: s_warp, s_agg, s_carry, s_part and four
// words), for sums of type A.
template <class A>
constexpr std::size_t static_smem_bytes() {
    return sizeof(A) * (block_threads / 32 * max_width + 2 * max_width + block_threads) + 16;
}

// The largest chunk (bytes of shared memory) of which `blocks` fit an SM with their static
// arrays; and the blocks that fit with a chunk of chunk_bytes.
template <class A>
constexpr std::size_t chunk_budget(int blocks) {
    return sm_smem_bytes / blocks / smem_step * smem_step - smem_reserved_per_block - static_smem_bytes<A>();
}
static_assert(static_smem_bytes<double>() + smem_reserved_per_block < sm_smem_bytes / 4,
              "4 blocks' static arrays fit");
template <class A>
int blocks_by_smem(std::size_t chunk_bytes) {
    const std::size_t block = chunk_bytes + static_smem_bytes<A>() + smem_reserved_per_block;
    return int(sm_smem_bytes / ((block + smem_step - 1) / smem_step * smem_step));
}

// How M is chosen from a chunk size: the nearest to a target, or the largest that fits a budget.
enum class Lines { nearest, to_fit };

template <class In, class Out>
Plan plan_sized(int rows, int cols, std::size_t chunk_bytes, Lines lines) {
    using A = Acc<Out>;
    const bool to_fit = lines == Lines::to_fit;
    Plan p{};
    p.tall = cols <= rows;
    p.K = p.tall ? cols : rows;
    // Lines per thread for about chunk_bytes a chunk. A warp's 32 segments start M (wide) or
    // M * K (tall) elements apart: an odd distance puts them in 32 banks, so M is made odd
    // (wide, or tall with odd K) or a tall segment is padded to an odd length. One exception,
    // for inputs as wide as the accumulator: M = 2 stays 2 (distance 2 or 2K for odd K: two-way
    // conflicts). At K = 33 that makes chunks of 66 KB, three blocks per SM, not two of 99 KB;
    // inputs narrower than the accumulator keep M = 3 (u8 -> i32 measured faster so; H100 A/B:
    // docs/thin.md).
    const double ideal = double(chunk_bytes / sizeof(A)) / (block_threads * double(p.K));
    int M = std::max(1, int(to_fit ? ideal : ideal + 0.5));
    const bool odd_needed = !p.tall || p.K % 2 == 1;  // else an odd M * K comes from padding
    const bool padded = !odd_needed;                   // tall, even K: every M * K is even
    const bool two_way = M == 2 && odd_needed && sizeof(In) == sizeof(A);
    // An even M made odd: one line less, except 2 -> 3 where no budget forbids it.
    if (odd_needed && M % 2 == 0 && !two_way) M = M == 2 && !to_fit ? 3 : M - 1;
    // To fit, a padded segment (even K) counts its pad: one line less where the pad overflows.
    if (to_fit && padded && M > 1 && std::size_t(block_threads) * (M * p.K + 1) * sizeof(A) > chunk_bytes) --M;
    // A padded segment holds a whole group of input or output (PaddedGroup: a group passes at
    // most one pad). Changes no plan of the default chunk sizes (the shortest padded segment is 22
    // elements); it keeps smaller tuning chunks (-DSAT_THIN_CHUNK_BYTES) correct.
    constexpr int widest_group = std::max(16 / int(sizeof(In)), 16 / int(sizeof(Out)));
    if (padded) M = std::max(M, (widest_group + p.K - 1) / p.K);
    p.M = M;
    p.lines = (long long)block_threads * M;
    const long long along = p.tall ? rows : cols;
    p.chunks = unsigned((along + p.lines - 1) / p.lines);
    if (p.tall) {
        const int len = M * p.K;
        p.seg = padded ? len + 1 : len;
        p.sa = p.K, p.sb = 1;
        p.smem_elems = std::size_t(block_threads) * p.seg;
    } else {
        p.seg = M;
        p.sa = 1, p.sb = int(p.lines);
        p.smem_elems = std::size_t(p.K) * std::size_t(p.lines);
    }
    return p;
}

// Chunks of about chunk_target_bytes (64 KB, 3 blocks per SM). Where the kernel's registers
// allow 4 blocks (one tall f32 or i32 image, or one wide one of at most
// SAT_THIN_FOUR_BLOCKS_MAX_ROWS rows), the largest chunk of which 4 fit an SM instead, if it keeps
// at least SAT_THIN_MIN_LINES_4 lines per thread (N x 3 and 3 x N f32: M = 17, not 21); with
// fewer, the extra chunks' look-backs cost more than the fourth block gains (K = 33:
// docs/thin.md).
template <class In, class Out>
Plan plan_for(int rows, int cols, int images) {
    using A = Acc<Out>;
    const bool tall = cols <= rows;
    const bool four_blocks =
        has_four_blocks<In, Out> && images == 1 && (tall || rows <= SAT_THIN_FOUR_BLOCKS_MAX_ROWS);
    const int by_registers = blocks_by_registers(four_blocks);
    Plan p = plan_sized<In, Out>(rows, cols, chunk_target_bytes, Lines::nearest);
    if (by_registers >= 4) {
        const Plan four =
            plan_sized<In, Out>(rows, cols, std::min(chunk_target_bytes, chunk_budget<A>(4)), Lines::to_fit);
        if (four.M >= SAT_THIN_MIN_LINES_4) p = four;
    }
    p.four_blocks = four_blocks;
    p.blocks_per_sm = std::min(by_registers, blocks_by_smem<A>(p.smem_elems * sizeof(A)));
    return p;
}

struct Scratch {
    std::size_t state_bytes, value_bytes;
};
template <class In, class Out>
Scratch scratch_for(const Plan& p, int images) {
    const std::size_t chunks = std::size_t(p.chunks) * std::size_t(images);
    Scratch s;
    s.state_bytes = (std::size_t(state_header_words) + chunks) * sizeof(unsigned);
    s.state_bytes = (s.state_bytes + 255) / 256 * 256;
    s.value_bytes = 2 * chunks * p.K * sizeof(Acc<Out>);
    return s;
}

// ---- memory helpers ----------------------------------------------------------------------------

// load_acquire, publish_state (a release max) and the clearing of the flags: common/lookback.cuh,
// shared with lab 9 and the 2-D look-back.
using sat::lookback::clear_flags;
using sat::lookback::load_acquire;
using sat::lookback::publish_state;
using sat::lookback::wait_for_cleared_flags;

// A plain-data type of `Bytes` bytes, for one access of a group of G elements.
template <int Bytes> struct Raw;
template <> struct Raw<2> { using type = unsigned short; };
template <> struct Raw<4> { using type = unsigned; };
template <> struct Raw<8> { using type = uint2; };
template <> struct Raw<16> { using type = uint4; };

// Input loads: a group of GI adjacent input elements in one load of GI * sizeof(In) bytes, kept
// raw in registers until it is widened into shared memory, so narrow inputs have as many bytes in
// flight as wide ones. Two group sizes (Args::in_group): 16 bytes of input, or, where the input
// is aligned only that far, as many elements as one 16-byte output access (u8: 4 bytes).
template <class In>
constexpr int wide_input_group = 16 / int(sizeof(In));  // input elements in 16 bytes
template <class In, int GI>
using RawGroup = typename Raw<GI * int(sizeof(In))>::type;
// Elements [e, e + GI) of the run at `run` whose first n elements exist: the whole group in one
// load, the group the run's end cuts element by element (past it: 0).
template <class In, int GI>
__device__ __forceinline__ RawGroup<In, GI> load_raw_clipped(const In* run, int e, int n) {
    if (e + GI <= n) return __ldg(reinterpret_cast<const RawGroup<In, GI>*>(run + e));
    In v[GI];
#pragma unroll
    for (int k = 0; k < GI; ++k) v[k] = e + k < n ? run[e + k] : In(0);
    RawGroup<In, GI> r;
    memcpy(&r, v, sizeof(r));
    return r;
}
// The 16-byte aligned group of GI elements that holds a run's first element, `lead` elements in:
// the run's first elements (its first n at most) one at a time; before the run and past n, 0.
template <class In, int GI>
__device__ __forceinline__ RawGroup<In, GI> load_raw_head(const In* run, int lead, int n) {
    In v[GI];
#pragma unroll
    for (int k = 0; k < GI; ++k) v[k] = k >= lead && k - lead < n ? run[k - lead] : In(0);
    RawGroup<In, GI> r;
    memcpy(&r, v, sizeof(r));
    return r;
}
// Bytes [shift, shift + 16) of the 32 bytes lo then hi (shift < 16; the GPU is little-endian):
// 16 bytes that start `shift` bytes past a 16-byte boundary, from the two aligned ones around them.
__device__ __forceinline__ uint4 shift_window(const uint4& lo, const uint4& hi, int shift) {
    const unsigned w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    const int words = shift >> 2, bits = (shift & 3) * 8;
    unsigned t[5];  // w[words .. words + 4], chosen without indexing registers at run time
#pragma unroll
    for (int k = 0; k < 5; ++k) t[k] = words == 0 ? w[k] : words == 1 ? w[k + 1] : words == 2 ? w[k + 2] : w[k + 3];
    return make_uint4(__funnelshift_r(t[0], t[1], bits), __funnelshift_r(t[1], t[2], bits),
                      __funnelshift_r(t[2], t[3], bits), __funnelshift_r(t[3], t[4], bits));
}
// Elements of a pointer's 16-byte group that lie before it.
template <class T>
__device__ __forceinline__ int lead_elements(const T* p) {
    return int(reinterpret_cast<std::uintptr_t>(p) % 16) / int(sizeof(T));
}
// One 16-byte piece of a raw group (per_store inputs) widened to accumulators and stored at p.
template <class In, class A, class Piece>
__device__ __forceinline__ void store_widened(A* p, const Piece& piece) {
    constexpr int n = int(sizeof(Piece) / sizeof(In));
    In v[n];
    memcpy(v, &piece, sizeof(v));
    A x[n];
#pragma unroll
    for (int k = 0; k < n; ++k) x[k] = A(v[k]);
    uint4 w;
    memcpy(&w, x, sizeof(w));
    *reinterpret_cast<uint4*>(p) = w;
}
// Chunks at least this wide (K) store groups of four pieces rotated (smem_store_raw). The bound is
// measured, not derived (the banks hit do not depend on K): on an H100 (docs/thin.md) rotation
// saved u8 -> i32 2-8 % on wide chunks of K = 8 to 24 and 7-9 % at K = 33, and cost wide chunks
// of K = 3 to 5 2-5 %, for a reason not profiled.
constexpr int rotate_min_width = 8;
// A raw group widened to accumulators and stored at p in shared memory (16-byte aligned) in
// 16-byte stores; a padded tall segment stores element by element instead (load_tall_run).
template <class In, class A, int GI>
__device__ __forceinline__ void smem_store_raw(A* p, const RawGroup<In, GI>& r, bool rotate) {
    constexpr int per_store = 16 / int(sizeof(A)), pieces = GI / per_store;
    using Piece = typename Raw<int(sizeof(r)) / pieces>::type;  // the inputs of one store
    Piece raw[pieces];
    memcpy(raw, &r, sizeof(r));
    if constexpr (pieces == 4) {
        if (rotate) {
            // A thread's four stores lie 64 bytes from its neighbour's, so the 8 threads of a
            // store's phase (128 bytes) would hit 8 of the 32 banks. Store s writes piece
            // (s + h) mod 4 instead, h = (lane / 2) mod 4 (two neighbours already lie in the two
            // halves of 128 bytes), and they hit all 32: the pieces are rotated by h first.
            const int h = (threadIdx.x >> 1) & 3;  // the block is 1-D: bits 1-2 of the lane
            Piece half[4];
#pragma unroll
            for (int s = 0; s < 4; ++s) half[s] = (h & 1) ? raw[(s + 1) & 3] : raw[s];
#pragma unroll
            for (int s = 0; s < 4; ++s) raw[s] = (h & 2) ? half[(s + 2) & 3] : half[s];  // raw[(s + h) & 3]
#pragma unroll
            for (int s = 0; s < 4; ++s) store_widened<In, A>(p + ((s + h) & 3) * per_store, raw[s]);
            return;
        }
    }
#pragma unroll
    for (int s = 0; s < pieces; ++s) store_widened<In, A>(p + s * per_store, raw[s]);
}
template <class Out, class A, int G>
__device__ __forceinline__ void store_group(Out* p, const A (&x)[G]) {
    Out v[G];
#pragma unroll
    for (int g = 0; g < G; ++g) v[g] = Out(x[g]);
    uint4 r;
    memcpy(&r, v, sizeof(r));
    __stcs(reinterpret_cast<uint4*>(p), r);
}
// Output elements [e, e + G) of the run at `run` whose first n elements exist: a whole group in
// one access, the group that the run's end cuts element by element (stores past it are left out).
template <class Out, class A, int G>
__device__ __forceinline__ void store_group_clipped(Out* run, int e, int n, const A (&x)[G]) {
    if (e + G <= n) {
        store_group<Out, A, G>(run + e, x);
    } else {
#pragma unroll
        for (int v = 0; v < G; ++v)
            if (e + v < n) run[e + v] = Out(x[v]);
    }
}
template <class A, int G>
__device__ __forceinline__ void smem_store_group(A* p, const A (&x)[G]) {
    uint4 r;
    memcpy(&r, x, sizeof(r));
    *reinterpret_cast<uint4*>(p) = r;
}
template <class A, int G>
__device__ __forceinline__ void smem_load_group(const A* p, A (&x)[G]) {
    const uint4 r = *reinterpret_cast<const uint4*>(p);
    memcpy(x, &r, sizeof(r));
}

// Elements [c, c + G) of a shared-memory row (16-byte aligned, c >= 0, c + G <= the row's length,
// a whole number of groups): one 16-byte load where c is a whole number of groups, else the two
// around them (shift_window), which then end inside the row too.
template <class A, int G>
__device__ __forceinline__ void smem_load_shifted(const A* row, int c, A (&x)[G]) {
    static_assert(G * sizeof(A) == 16, "a group is one 16-byte access");
    const int lead = c % G;
    if (lead == 0) {
        smem_load_group<A, G>(row + c, x);
        return;
    }
    const uint4* around = reinterpret_cast<const uint4*>(row + (c - lead));
    const uint4 r = shift_window(around[0], around[1], lead * int(sizeof(A)));
    memcpy(x, &r, sizeof(r));
}

struct Args {
    std::size_t in_pitch, out_pitch;
    std::size_t in_stride, out_stride;  // elements between the images of a batch
    int rows, cols;                     // of one image
    int in_group;          // input elements per load (load_tall, load_wide; 0: one at a time)
    bool vec_out;          // 16-byte output groups are allowed (contiguity, alignment)
    unsigned* ticket;
    unsigned* flags;
    int* status;
};

// f32 and i32 chunks at least this wide (K) in 16-byte groups load by cp.async (copies_straight),
// wide chunks of whole-group rows and tall chunks of odd K (even K: padded segments, which keep
// the loads through registers). Measured, not derived (H200, docs/thin.md): at K = 33 cp.async
// took 0.94-0.97 of the time of loads through registers, at K = 24 0.97-0.98 (within the spread
// of unchanged rows), at K = 3 to 17 1.00-1.18; f64 1.00-1.04 at every K. K = 18-23 not measured.
#ifndef SAT_THIN_STRAIGHT_MIN_WIDTH
#define SAT_THIN_STRAIGHT_MIN_WIDTH 24
#endif
constexpr int straight_min_width = SAT_THIN_STRAIGHT_MIN_WIDTH;
// Inputs as wide as their 4-byte sums (f32, i32) in 16-byte groups need no widening: cp.async
// copies each group straight into shared memory, so a thread has every group of its chunk in
// flight at once (not U at a time) and holds no registers for them. Where K < straight_min_width
// they keep the loads through registers.
template <class In, class A, int GI>
__host__ __device__ constexpr bool copies_straight() {
    return sizeof(In) == sizeof(A) && sizeof(A) == 4 && GI * sizeof(In) == 16;
}
// Elements [e, e + GI) of the run at `run` whose first n elements exist, into shared memory at p:
// a whole group by cp.async, the group that n cuts element by element and zeros past n through a
// register (load_raw_clipped). cp.async with a source size under 16 would zero-fill the rest too,
// but compute-sanitizer's memcheck counts it as a 16-byte read, past the input where it ends
// inside the group.
template <class In, class A, int GI>
__device__ __forceinline__ void copy_group_async(A* p, const In* run, int e, int n) {
    if (e + GI <= n)
        sat::cp_async(p, run + e, 16, 16);
    else
        smem_store_raw<In, A, GI>(p, load_raw_clipped<In, GI>(run, e, n), false);
}

// A tall chunk's element e (flat, row-major) lies at e in shared memory, or, where its segments
// of M*K elements are padded to seg = M*K + 1 (plan_sized), at e + e / (M*K). The loops below find
// the segment of a group of elements with one division (PaddedGroup) or none (FlatCursor), not
// one per element.

// ---- load and write-out, tall chunks (rows [row0, row0 + nr) x all K columns) -------------------

// A tall chunk with contiguous rows is one flat run of elements: groups of GI, U groups in
// flight per thread; same-width 16-byte groups of unpadded segments by cp.async, all at once.
template <class In, class A, int GI>
__device__ __forceinline__ void load_tall_run(const In* in, const Plan& p, long long row0, int nr, A* S) {
    const int K = p.K, full = int(p.lines) * K, n = nr * K;
    const bool padded = p.M * K != p.seg, rotate = K >= rotate_min_width;
    if constexpr (copies_straight<In, A, GI>()) {
        if (!padded && K >= straight_min_width) {
            for (int e = threadIdx.x * GI; e < full; e += block_threads * GI)
                copy_group_async<In, A, GI>(S + e, in + std::size_t(row0) * K, e, n);
            cp_async_commit();
            cp_async_wait_all();
            return;
        }
    }
    constexpr int U = loads_in_flight;
    for (int e0 = threadIdx.x * GI; e0 < full; e0 += U * block_threads * GI) {
        RawGroup<In, GI> x[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            // The run's start is formed here, in the loop (the compiler hoists it): a pointer
            // formed before the loop gives the batched kernels other machine code.
            x[u] = load_raw_clipped<In, GI>(in + std::size_t(row0) * K, e0 + u * block_threads * GI, n);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int e = e0 + u * block_threads * GI;
            if (e >= full) break;
            if (!padded) {
                smem_store_raw<In, A, GI>(S + e, x[u], rotate);
            } else {
                In v[GI];
                memcpy(v, &x[u], sizeof(v));
                const PaddedGroup at(e, p.M * K);
#pragma unroll
                for (int k = 0; k < GI; ++k) S[at.index(k)] = A(v[k]);
            }
        }
    }
}

template <class In, class A, int G>
__device__ __forceinline__ void load_tall(const In* in, const Args& g, const Plan& p,
                                          long long row0, int nr, A* S) {
    constexpr int wide_group = wide_input_group<In>;
    if (g.in_group == wide_group) {
        load_tall_run<In, A, wide_group>(in, p, row0, nr, S);
    } else if (wide_group != G && g.in_group == G) {
        load_tall_run<In, A, G>(in, p, row0, nr, S);
    } else {
        const int K = p.K, full = int(p.lines) * K, n = nr * K;
        const bool padded = p.M * K != p.seg;
        FlatCursor at(threadIdx.x, K, block_threads);                // element e: row, column
        FlatCursor segment_of(threadIdx.x, p.M * K, block_threads);  // element e: its segment (row)
        for (int e = threadIdx.x; e < full; e += block_threads, at.next(), segment_of.next()) {
            A v = 0;
            if (e < n) v = A(in[std::size_t(row0 + at.row) * g.in_pitch + at.col]);
            S[padded ? e + segment_of.row : e] = v;
        }
    }
}

template <class Out, class A, int G>
__device__ __forceinline__ void write_tall(Out* out, const Args& g, const Plan& p, long long row0,
                                           int nr, const A* S, const A* carry) {
    const int K = p.K, n = nr * K;
    const bool padded = p.M * K != p.seg;
    if (g.vec_out) {
        FlatCursor at(threadIdx.x * G, K, block_threads * G);  // at.col: the column of element e
        for (int e = threadIdx.x * G; e < n; e += block_threads * G, at.next()) {
            A x[G];
            if (!padded) {
                smem_load_group<A, G>(S + e, x);
            } else {
                const PaddedGroup in_smem(e, p.M * K);
#pragma unroll
                for (int v = 0; v < G; ++v) x[v] = S[in_smem.index(v)];
            }
            int j = at.col;
#pragma unroll
            for (int v = 0; v < G; ++v) {
                x[v] += carry[j];
                j = j + 1 == K ? 0 : j + 1;
            }
            store_group_clipped<Out, A, G>(out + std::size_t(row0) * K, e, n, x);  // start: see load_tall
        }
    } else {
        FlatCursor at(threadIdx.x, K, block_threads);                // element e: row, column
        FlatCursor segment_of(threadIdx.x, p.M * K, block_threads);  // element e: its segment (row)
        for (int e = threadIdx.x; e < n; e += block_threads, at.next(), segment_of.next()) {
            const A sum = S[padded ? e + segment_of.row : e];
            out[std::size_t(row0 + at.row) * g.out_pitch + at.col] = Out(sum + carry[at.col]);
        }
    }
}

// ---- load and write-out, wide chunks (all K rows x columns [col0, col0 + nc)) -------------------

// A wide chunk's K rows of W columns, in groups of GI (the pitch is a whole number of groups),
// U groups in flight per thread. Shifted (16-byte groups, any pitch): a row's run may start
// anywhere in a 16-byte group, so each group comes from the two aligned ones around it
// (shift_window), half as many groups in flight (with 8 the registers spill at 3 blocks per SM).
template <class In, class A, int GI, bool Shifted = false>
__device__ __forceinline__ void load_wide_rows(const In* in, const Args& g, const Plan& p, long long col0, int nc,
                                               A* S) {
    const int K = p.K, W = int(p.lines);
    const int groups_per_row = W / GI, total = K * groups_per_row;
    const bool rotate = K >= rotate_min_width;
    constexpr int U = Shifted ? loads_in_flight / 2 : loads_in_flight;
    static_assert(!Shifted || GI * sizeof(In) == 16, "shifted groups are 16 bytes");
    FlatCursor at(threadIdx.x, groups_per_row, block_threads);  // group q: row, group in the row
    if constexpr (!Shifted && copies_straight<In, A, GI>()) {
        if (K >= straight_min_width) {
            for (int q = threadIdx.x; q < total; q += block_threads, at.next())
                copy_group_async<In, A, GI>(S + std::size_t(q) * GI,
                                            in + std::size_t(at.row) * g.in_pitch + std::size_t(col0), at.col * GI, nc);
            cp_async_commit();
            cp_async_wait_all();
            return;
        }
    }
    for (int q0 = threadIdx.x; q0 < total; q0 += U * block_threads) {
        RawGroup<In, GI> x[U], next[U];  // next: the aligned group after x (Shifted)
        int lead[U];                     // the run's start: elements into its aligned group (Shifted)
#pragma unroll
        for (int u = 0; u < U; ++u, at.next()) {
            const int q = q0 + u * block_threads;
            if (q >= total) break;
            const In* run = in + std::size_t(at.row) * g.in_pitch + std::size_t(col0);
            if constexpr (Shifted) {
                // Columns [e, e + GI) of the run lie at [e + lead, ...) of the aligned run before it.
                // Its elements before `lead` are not the run's: the head group loads only the run's.
                lead[u] = lead_elements(run);
                const In* aligned_run = run - lead[u];
                const int e = at.col * GI, n = lead[u] + nc;
                x[u] = e == 0 && lead[u] > 0 ? load_raw_head<In, GI>(run, lead[u], nc)
                                              : load_raw_clipped<In, GI>(aligned_run, e, n);
                if (lead[u] > 0) next[u] = load_raw_clipped<In, GI>(aligned_run, e + GI, n);
            } else {
                x[u] = load_raw_clipped<In, GI>(run, at.col * GI, nc);
            }
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int q = q0 + u * block_threads;
            if (q >= total) break;
            if constexpr (Shifted) {
                if (lead[u] > 0) x[u] = shift_window(x[u], next[u], lead[u] * int(sizeof(In)));
            }
            smem_store_raw<In, A, GI>(S + std::size_t(q) * GI, x[u], rotate);  // row i at i * W
        }
    }
}

// The same for rows whose runs start anywhere in a 16-byte group (an odd pitch or batch stride, a
// misaligned pointer): each group of GI columns comes from the two aligned groups around it
// (shift_window). A row's W / GI + 1 aligned groups are its slots; a warp loads 32 adjacent slots
// at a time, one load each, and its first 31 lanes form their groups with the next slot taken
// from the neighbouring lane by a shuffle, so U loads stay in flight. A row's last slot only
// serves its neighbour, and lane 31's slot is loaded again as the first of the next 31.
template <class In, class A>
__device__ __forceinline__ void load_wide_rows_shifted(const In* in, const Args& g, const Plan& p, long long col0,
                                                       int nc, A* S) {
    constexpr int GI = wide_input_group<In>, U = loads_in_flight, per_warp = 31, step = block_threads / 32 * per_warp;
    static_assert(GI * sizeof(In) == 16, "shifted groups are 16 bytes");
    const int K = p.K, W = int(p.lines);
    const int groups_per_row = W / GI, slots_per_row = groups_per_row + 1, total = K * slots_per_row;
    const bool rotate = K >= rotate_min_width;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    FlatCursor at(warp * per_warp + lane, slots_per_row, step);  // slot: row, aligned group in the row
    // s0, the warp's first slot, is the same on all of its lanes: the shuffles see every lane.
    for (int s0 = warp * per_warp; s0 < total; s0 += U * step) {
        uint4 x[U];
        int q[U];     // the group this lane forms (row * groups_per_row + group), or -1
        int lead[U];  // the run's start: elements into its aligned group
#pragma unroll
        for (int u = 0; u < U; ++u, at.next()) {
            if (s0 + u * step >= total) break;
            x[u] = make_uint4(0, 0, 0, 0), q[u] = -1, lead[u] = 0;
            if (s0 + u * step + lane >= total) continue;
            // Columns [e, e + GI) of the run lie at [e + lead, ...) of the aligned run before it.
            // Its elements before `lead` are not the run's: the head slot loads only the run's.
            const In* run = in + std::size_t(at.row) * g.in_pitch + std::size_t(col0);
            lead[u] = lead_elements(run);
            const int e = at.col * GI;
            x[u] = e == 0 && lead[u] > 0 ? load_raw_head<In, GI>(run, lead[u], nc)
                                          : load_raw_clipped<In, GI>(run - lead[u], e, lead[u] + nc);
            if (lane < per_warp && at.col < groups_per_row) q[u] = at.row * groups_per_row + at.col;
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (s0 + u * step >= total) break;
            const uint4 next = make_uint4(__shfl_down_sync(~0u, x[u].x, 1), __shfl_down_sync(~0u, x[u].y, 1),
                                          __shfl_down_sync(~0u, x[u].z, 1), __shfl_down_sync(~0u, x[u].w, 1));
            if (q[u] < 0) continue;
            const uint4 group = shift_window(x[u], next, lead[u] * int(sizeof(In)));
            smem_store_raw<In, A, GI>(S + std::size_t(q[u]) * GI, group, rotate);  // row i at i * W
        }
    }
}

// The pitch decides the groups (scan: g.in_group); any other pitch or alignment loads shifted:
// one load per group and a shuffle (load_wide_rows_shifted), except groups that widen into four
// 16-byte stores (u8 -> i32, u8 -> f32, u16 -> f64), which keep two loads per group. On an H200
// (docs/thin.md) the shuffle took 0.87-0.89 of the time of two loads for f32 and i32 and 0.97 of
// element loads for f64, but 1.03-1.11 for u8 -> i32, whose groups gain less from a saved load
// than they lose to the idle lanes (lane 31, a row's last slot); measured, not profiled. u16 ->
// f64 groups are four stores too; not timed.
template <class In, class A, int G>
__device__ __forceinline__ void load_wide(const In* in, const Args& g, const Plan& p,
                                          long long col0, int nc, A* S) {
    constexpr int wide_group = wide_input_group<In>;
    if (g.in_group == wide_group) {
        load_wide_rows<In, A, wide_group>(in, g, p, col0, nc, S);
    } else if (wide_group != G && g.in_group == G) {
        load_wide_rows<In, A, G>(in, g, p, col0, nc, S);
    } else if constexpr (wide_group * sizeof(A) == 4 * 16) {  // four 16-byte stores per group
        load_wide_rows<In, A, wide_group, true>(in, g, p, col0, nc, S);
    } else {
        load_wide_rows_shifted<In, A>(in, g, p, col0, nc, S);
    }
}

template <class Out, class A, int G>
__device__ __forceinline__ void write_wide(Out* out, const Args& g, const Plan& p, long long col0,
                                           int nc, const A* S, const A* carry) {
    const int K = p.K, W = int(p.lines);
    if (g.vec_out) {
        const int groups_per_row = W / G, total = K * groups_per_row;
        FlatCursor at(threadIdx.x, groups_per_row, block_threads);  // group q: row, group in the row
        for (int q = threadIdx.x; q < total; q += block_threads, at.next()) {
            const int i = at.row, c = at.col * G;
            if (c >= nc) continue;
            A x[G];
            smem_load_group<A, G>(S + std::size_t(q) * G, x);
            const A add = carry[i];
#pragma unroll
            for (int v = 0; v < G; ++v) x[v] += add;
            Out* row = out + std::size_t(i) * g.out_pitch + std::size_t(col0);
            store_group_clipped<Out, A, G>(row, c, nc, x);
        }
    } else {
        // Any pitch or alignment: the groups of G outputs are those of 16-byte aligned memory, so
        // a row's run starts `lead` elements into its first group and spans at most W / G + 1.
        const int groups_per_row = W / G + 1, total = K * groups_per_row;
        FlatCursor at(threadIdx.x, groups_per_row, block_threads);
        for (int q = threadIdx.x; q < total; q += block_threads, at.next()) {
            const int i = at.row;
            Out* run = out + std::size_t(i) * g.out_pitch + std::size_t(col0);
            const int c = at.col * G - lead_elements(run);  // the group's first column (may be < 0)
            if (c >= nc || c + G <= 0) continue;
            const A* S_row = S + std::size_t(i) * W;
            const A add = carry[i];
            if (c >= 0 && c + G <= nc) {
                A x[G];
                smem_load_shifted<A, G>(S_row, c, x);
#pragma unroll
                for (int v = 0; v < G; ++v) x[v] += add;
                store_group<Out, A, G>(run + c, x);
            } else {
#pragma unroll
                for (int v = 0; v < G; ++v)
                    if (c + v >= 0 && c + v < nc) run[c + v] = Out(S_row[c + v] + add);
            }
        }
    }
}

// ---- steps 1 and 4 on one thread's segment -----------------------------------------------------
// MT (below): the lines per thread M at compile time, or 0 for p.M at run time. Segments of 1, 2
// or 3 lines (every K >= 19 with 4-byte accumulators, K >= 10 with 8-byte ones) run their loops
// over the K components without an inner loop over the lines, whose set-up the compiler
// otherwise repeats for every component (docs/thin.md).

// Calls f(std::integral_constant<int, MT>) with MT = p.M where it is 1, 2 or 3, else MT = 0.
template <class F>
__device__ __forceinline__ void with_lines(const Plan& p, F f) {
    switch (p.M) {
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 3: f(std::integral_constant<int, 3>{}); break;
    default: f(std::integral_constant<int, 0>{}); break;
    }
}

// Step 1: the segment's sum over its lines, per component b, prefix-summed over b into the last
// line: the thread's local SAT there.
template <int MT, class A>
__device__ __forceinline__ void aggregate_lines(A* seg, const Plan& p) {
    const int M = MT > 0 ? MT : p.M, last = (M - 1) * p.sa;
    A run = 0;
    for (int b = 0; b < p.K; ++b) {
        const A* component = seg + b * p.sb;
        A s = 0;
        if constexpr (MT > 0) {
#pragma unroll
            for (int a = 0; a < MT; ++a) s += component[a * p.sa];
        } else {
            for (int a = 0; a < M; ++a) s += component[a * p.sa];
        }
        run += s;
        seg[last + b * p.sb] = run;
    }
}

// Step 4: lines a < M-1 become the chunk-local SAT, each from the line before it (line 0 from
// `prev`, the previous thread's last line; null for thread 0: zeros).
template <class A>
__device__ __forceinline__ void local_line(A* seg, const A* prev, const Plan& p, int a) {
    A* line = seg + a * p.sa;
    const A* before = a > 0 ? line - p.sa : prev;
    A u = 0;  // line a's prefix over its components
    for (int b = 0; b < p.K; ++b) {
        u += line[b * p.sb];
        line[b * p.sb] = u + (before ? before[b * p.sb] : A(0));
    }
}
template <int MT, class A>
__device__ __forceinline__ void local_lines(A* seg, const A* prev, const Plan& p) {
    if constexpr (MT > 0) {
#pragma unroll
        for (int a = 0; a + 1 < MT; ++a) local_line(seg, prev, p, a);
    } else {
        for (int a = 0; a + 1 < p.M; ++a) local_line(seg, prev, p, a);
    }
}

// ---- step 2 of a tall chunk ---------------------------------------------------------------------

// Tall chunks of at least this many components scan the warp's last lines by walking them.
constexpr int walk_min_width = 8;

// The warp's 32 last lines (segments p.seg apart, from first_last_line) scanned component by
// component: lane b walks component b (then b + 32) through the 32 last lines in order, a load, an
// add and a store per line, where a warp scan takes five shuffles and five adds per component.
// The lanes touch adjacent elements: no bank conflicts. warp_totals[b]: the sum of component b.
template <class A>
__device__ __forceinline__ void walk_last_lines(A* first_last_line, const Plan& p, int lane, A* warp_totals) {
    constexpr int ahead = 8;  // lines loaded before the first of them is stored
    for (int b = lane; b < p.K; b += 32) {
        A* x = first_last_line + b;
        A run = 0;
        for (int i0 = 0; i0 < 32; i0 += ahead) {
            A v[ahead];
#pragma unroll
            for (int k = 0; k < ahead; ++k) v[k] = x[(i0 + k) * p.seg];
#pragma unroll
            for (int k = 0; k < ahead; ++k) {
                run += v[k];
                x[(i0 + k) * p.seg] = run;
            }
        }
        warp_totals[b] = run;
    }
}

// ---- the kernel ------------------------------------------------------------------------------

// One block per chunk; chunks are handed out by ticket, so every chunk a block waits for was
// handed to a block that is already running (no deadlock for any grid). A batch: the tickets
// run over the images one after the other; the records of ticket t sit at index t, and a chunk
// looks back only as far as its image's first chunk (Batched; one image: false, the code of a
// single image).
template <class In, class Out, bool Tall, bool Batched, bool FourBlocks>
__global__ void __launch_bounds__(block_threads, blocks_by_registers(FourBlocks))
thin_sat_kernel(const In* in, Out* out, Args g, Plan p, Acc<Out>* agg, Acc<Out>* incl) {
    using A = Acc<Out>;
    constexpr int warps = block_threads / 32;
    constexpr int G = int(16 / sizeof(Out));  // elements per 16-byte output access
    extern __shared__ __align__(16) unsigned char smem_raw[];
    A* S = reinterpret_cast<A*>(smem_raw);
    __shared__ unsigned s_chunk;
    __shared__ int s_failed;
    __shared__ A s_warp[warps][max_width];  // warp totals, then warp offsets, per component
    __shared__ A s_agg[max_width];          // chunk aggregate
    __shared__ A s_carry[max_width];        // sum of the chunks before: SAT row above / column left
    __shared__ A s_part[block_threads];     // look-back: per-slot partial sums
    __shared__ int s_nearest[2];            // look-back: nearest chunk with its inclusive prefix
                                            // (two: one is reset while the other is read)

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    wait_for_cleared_flags();
    if (tid == 0) {
        s_chunk = atomicAdd(g.ticket, 1u);
        s_failed = 0;
        s_nearest[0] = block_threads;
    }
    __syncthreads();
    const unsigned ticket = s_chunk;  // indexes flags and published sums
    unsigned chunk = ticket;          // within the image
    long long first = 0;              // the image's first ticket
    if constexpr (Batched) {
        const unsigned image = ticket / p.chunks;
        chunk = ticket - image * p.chunks;
        first = (long long)ticket - chunk;
        in += std::size_t(image) * g.in_stride;
        out += std::size_t(image) * g.out_stride;
    }
    const int K = p.K, M = p.M;
    const long long start = (long long)chunk * p.lines;  // first row (tall) / column (wide)
    const long long left_over = (Tall ? g.rows : g.cols) - start;
    const int count = int(left_over < p.lines ? left_over : p.lines);

    if (Tall)
        load_tall<In, A, G>(in, g, p, start, count, S);
    else
        load_wide<In, A, G>(in, g, p, start, count, S);
    __syncthreads();

    // 1. Aggregate pass: the thread's local SAT on its last line.
    A* seg = S + std::size_t(tid) * p.seg;
    const int last = (M - 1) * p.sa;
    with_lines(p, [&](auto lines) { aggregate_lines<decltype(lines)::value>(seg, p); });
    // 2. Inclusive scan of the last lines over the threads: warps, then warp offsets.
    if (Tall && K >= walk_min_width) {
        __syncwarp();  // the warp's last lines, written by its lanes in step 1
        walk_last_lines(S + std::size_t(warp) * 32 * p.seg + last, p, lane, s_warp[warp]);
    } else {
        for (int b = 0; b < K; ++b) {
            const A inc = warp_inclusive_scan(seg[last + b * p.sb], lane);
            seg[last + b * p.sb] = inc;
            if (lane == 31) s_warp[warp][b] = inc;
        }
    }
    __syncthreads();
    if (tid < K) {
        A run = 0;
        for (int w2 = 0; w2 < warps; ++w2) {
            const A x = s_warp[w2][tid];
            s_warp[w2][tid] = run;
            run += x;
        }
        s_agg[tid] = run;
        // Publish the aggregate at once (chunk 0: it is also the inclusive prefix).
        __stcg((chunk == 0 ? incl : agg) + std::size_t(ticket) * K + tid, run);
        if (chunk == 0) s_carry[tid] = 0;
        __threadfence();
    }
    __syncthreads();
    if (tid == block_threads - 1) publish_state(g.flags + ticket, chunk == 0 ? inclusive : aggregate);
    if (warp > 0)
        for (int b = 0; b < K; ++b) seg[last + b * p.sb] += s_warp[warp][b];
    __syncthreads();  // last lines final before step 4 reads the previous thread's

    // 3. The whole block looks back over the chunks before this one, block_threads per round:
    // thread t waits until chunk left-t has published (flag >= aggregate); the nearest one with its
    // inclusive prefix ends the look-back. Then thread (q, s) = (t % K, t / K) adds component q
    // of chunks s, s + P, s + 2P, ... up to it. A round covers 256 chunks (blocks of 256) in two L2
    // round trips, more than start meanwhile (hundreds are in flight: a warp's 32 a round can fall
    // behind, and then every chunk walks back over all of them; warp 0 alone, 32 a round, took
    // 1.05-1.19 of the time in blocks of 128 threads, and 2 or 4 chunks a thread a round
    // 0.98-1.06: docs/thin.md, *Variants measured, not kept*).
    if (chunk > 0) {
        const int P = block_threads / K;  // slots: chunks summed in parallel per component
        const int q = tid % K, slot = tid / K;
        A sum = 0;
        int examined = 0;  // chunks summed so far (all rounds)
        for (long long left = (long long)ticket - 1, round = 0;; left -= block_threads, ++round) {
            int* nearest_slot = &s_nearest[round & 1];
            const long long c = left - tid;
            unsigned st = inclusive;  // before the image's chunk 0: nothing to add, stop there
            if (c >= first &&
                !bounded_spin([&] { return (st = load_acquire(g.flags + c)) != invalid; }, g.status))
                s_failed = 1;
            if (st == inclusive) atomicMin(nearest_slot, tid);
            __syncthreads();  // orders the acquires above before every thread's reads below
            const int nearest = *nearest_slot;
            if (tid == 0) s_nearest[(round + 1) & 1] = block_threads;  // for the next round
            if (s_failed) break;
            const bool found = nearest < block_threads;
            const int depth = found ? nearest + 1 : block_threads;
            if (slot < P) {
#pragma unroll 4
                for (int k = slot; k < depth; k += P) {
                    const long long ck = left - k;
                    if (ck < first) break;
                    sum += __ldcg((found && k == depth - 1 ? incl : agg) + std::size_t(ck) * K + q);
                }
            }
            examined += depth;
            __syncthreads();  // every thread has read *nearest_slot before it is reset
            if (found) break;
        }
        if (!s_failed) {
            if (slot < P) s_part[tid] = sum;
            __syncthreads();
            if (tid < K) {
                A carry = 0;
                const int used = examined < P ? examined : P;
                for (int s2 = 0; s2 < used; ++s2) carry += s_part[s2 * K + tid];
                s_carry[tid] = carry;
                __stcg(incl + std::size_t(ticket) * K + tid, A(carry + s_agg[tid]));
                __threadfence();
            }
            __syncthreads();
            if (tid == 0) publish_state(g.flags + ticket, inclusive);
        }
    }
    if (s_failed) return;  // a spin timed out: the status word says so

    // 4. Lines a < M-1: the chunk-local SAT from the line before (the previous thread's last).
    const A* prev = tid > 0 ? seg - p.seg + last : nullptr;
    with_lines(p, [&](auto lines) { local_lines<decltype(lines)::value>(seg, prev, p); });
    __syncthreads();

    // 5. Write out with the carry.
    if (Tall)
        write_tall<Out, A, G>(out, g, p, start, count, S, s_carry);
    else
        write_wide<Out, A, G>(out, g, p, start, count, S, s_carry);
}

inline bool aligned(const void* p, std::size_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; }

}  // namespace

template <class In, class Out>
bool applicable(int rows, int cols) {
    return rows >= 1 && cols >= 1 && std::min(rows, cols) <= max_width;
}

template <class In, class Out>
std::size_t scratch_bytes(int rows, int cols, int images) {
    if (!applicable<In, Out>(rows, cols) || images < 1) return 0;
    if (rows == 1) std::swap(rows, cols);  // as scan does
    const Scratch s = scratch_for<In, Out>(plan_for<In, Out>(rows, cols, images), images);
    return s.state_bytes + s.value_bytes;
}

// A thin kernel with its per-device cache (device_cache.h): its dynamic shared memory limit is
// set on its first launch or occupancy query on a device, and again only for a larger chunk.
template <class In, class Out>
using ThinKernel = void (*)(const In*, Out*, Args, Plan, Acc<Out>*, Acc<Out>*);  // every thin_sat_kernel
template <class In, class Out, bool Tall, bool Batched, bool FourBlocks = false>
satlib::CachedKernel<ThinKernel<In, Out>> thin_kernel() {
    static satlib::KernelCache cache;
    return {thin_sat_kernel<In, Out, Tall, Batched, FourBlocks>, &cache};
}
// The kernel of a plan: tall or wide chunks, one image or a batch, compiled for 4 blocks per SM
// (f32 and i32 alone: one tall image, or one wide one of at most SAT_THIN_FOUR_BLOCKS_MAX_ROWS
// rows; plan_for) or for SAT_THIN_MIN_BLOCKS.
template <class In, class Out>
auto kernel_for(const Plan& p, int images) {
    if (images > 1) return p.tall ? thin_kernel<In, Out, true, true>() : thin_kernel<In, Out, false, true>();
    if (p.tall) return thin_kernel<In, Out, true, false, has_four_blocks<In, Out>>();
    if constexpr (has_four_blocks<In, Out>)
        if (p.four_blocks) return thin_kernel<In, Out, false, false, true>();
    return thin_kernel<In, Out, false, false>();
}

template <class In, class Out>
cudaError_t scan(const In* in, std::size_t in_pitch, Out* out, std::size_t out_pitch, int rows,
                 int cols, cudaStream_t stream, void* scratch, int* status, int images,
                 std::size_t in_stride, std::size_t out_stride, Flags flags) {
    using A = Acc<Out>;
    constexpr int G = int(16 / sizeof(Out));
    if (rows < 0 || cols < 0 || images < 1) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    if (!applicable<In, Out>(rows, cols) || in == nullptr || out == nullptr ||
        in_pitch < std::size_t(cols) || out_pitch < std::size_t(cols) || !aligned(scratch, 16))
        return cudaErrorInvalidValue;
    // One row is the same memory as one column of contiguous rows; the tall path is faster on it
    // (H100, 1 x 2^31 - 2 f32: 12.4 ms wide, 9.1 ms as a column).
    if (rows == 1) {
        std::swap(rows, cols);
        in_pitch = out_pitch = 1;
    }
    const Plan p = plan_for<In, Out>(rows, cols, images);
    const Scratch sz = scratch_for<In, Out>(p, images);
    const std::size_t tickets = std::size_t(p.chunks) * std::size_t(images);
    if (tickets > std::size_t(INT32_MAX)) return cudaErrorInvalidValue;  // grid.x and the ticket

    cudaError_t err = cudaSuccess;
    bool own = false;
    if (scratch == nullptr) {
        if ((err = cudaMallocAsync(&scratch, sz.state_bytes + sz.value_bytes, stream)) != cudaSuccess)
            return err;
        own = true;
        flags = Flags::clear;
    }
    // The ticket and flags: cleared by a kernel the launch below overlaps (lookback.cuh).
    if (flags == Flags::clear) err = clear_flags(scratch, sz.state_bytes, stream);
    if (err == cudaSuccess) {
        unsigned* words = static_cast<unsigned*>(scratch);
        A* values = reinterpret_cast<A*>(static_cast<char*>(scratch) + sz.state_bytes);
        Args g;
        g.in_pitch = in_pitch;
        g.out_pitch = out_pitch;
        g.in_stride = images > 1 ? in_stride : 0;
        g.out_stride = images > 1 ? out_stride : 0;
        g.rows = rows;
        g.cols = cols;
        g.ticket = words;
        g.flags = words + state_header_words;
        g.status = status != nullptr ? status : reinterpret_cast<int*>(words + 1);
        // Groups of elements: tall chunks need contiguous rows, wide ones whole-group pitches, and
        // every image's first element is aligned as the first one's (strides in whole groups).
        // Input: 16-byte groups where the input allows them, else groups of G.
        const bool tall_rows_in = in_pitch == std::size_t(cols) || rows == 1;
        auto input_groups_fit = [&](int group) {
            return (p.tall ? tall_rows_in : in_pitch % group == 0) && aligned(in, group * sizeof(In)) &&
                   g.in_stride % group == 0;
        };
        constexpr int wide_group = wide_input_group<In>;
        g.in_group = input_groups_fit(wide_group) ? wide_group : input_groups_fit(G) ? G : 0;
        const bool contiguous_out = p.tall ? (out_pitch == std::size_t(cols) || rows == 1) : out_pitch % G == 0;
        g.vec_out = contiguous_out && aligned(out, 16) && g.out_stride % G == 0;
        A* agg = values;
        A* incl = values + tickets * p.K;
        const std::size_t smem = p.smem_elems * sizeof(A);
        const auto k = kernel_for<In, Out>(p, images);
        int device = -1;  // the current device (-1: none, the limit is set on every launch)
        if (cudaGetDevice(&device) != cudaSuccess) device = -1;
        err = satlib::launch_with_smem(k, device, int(smem), [&] {
            const bool overlap = satlib::overlaps_clear(k, device, flags);
            return sat::launch_kernel(overlap, k.kernel, unsigned(tickets), block_threads, smem, stream, in, out, g, p,
                                      agg, incl);
        });
        if (err == cudaSuccess) err = cudaGetLastError();  // an error an earlier call left is reported too
    }
    if (own) {
        const cudaError_t free_err = cudaFreeAsync(scratch, stream);
        if (err == cudaSuccess) err = free_err;
    }
    return err;
}

template <class In, class Out>
cudaError_t blocks_per_sm(int rows, int cols, int images, int* planned, int* resident) {
    if (!applicable<In, Out>(rows, cols) || images < 1) return cudaErrorInvalidValue;
    if (rows == 1) std::swap(rows, cols);  // as scan does
    const Plan p = plan_for<In, Out>(rows, cols, images);
    const auto k = kernel_for<In, Out>(p, images);
    const int smem = int(p.smem_elems * sizeof(Acc<Out>));
    *planned = p.blocks_per_sm;
    int device = -1;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess) err = satlib::raise_smem_limit(k, device, smem);  // as a launch sets it
    if (err == cudaSuccess) err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(resident, k.kernel, block_threads, smem);
    return err;
}

bool is_line(int rows, int cols, std::size_t in_pitch, std::size_t out_pitch) {
    return rows == 1 || (cols == 1 && in_pitch == 1 && out_pitch == 1);
}

namespace {
// CUB's scan of n elements (temp == nullptr: only its scratch size into temp_bytes). CUB's
// accumulator is the result of plus<A>(In, In), A: a narrower input is widened as CUB loads it.
template <class In, class Out>
cudaError_t cub_line_scan(void* temp, std::size_t& temp_bytes, const In* in, Out* out, int n, cudaStream_t stream) {
    return cub::DeviceScan::InclusiveScan(temp, temp_bytes, in, out, cuda::std::plus<Acc<Out>>{}, n, stream);
}

// u8 -> i32 in words of four: CUB scans the n / 4 byte sums of the input's 32-bit words (a
// 4-byte load per item, where element by element it loads 1 byte), and each item's output
// writes the word's four sums as one 16-byte store: the sum through the word less the bytes
// after each element (the word read again, expected from L1 or L2). Sums wrap as the element path's.
struct WriteWordSums {
    const uint32_t* words;
    int4* quads;
    __host__ __device__ void operator()(std::ptrdiff_t k, uint32_t through_word) const {
        const uint32_t word = words[k];
        quads[k] = word_sums(through_word, word >> 8 & 0xffu, word >> 16 & 0xffu, word >> 24);
    }
};
// The one pair with the word path.
template <class In, class Out>
constexpr bool has_word_path = std::is_same_v<In, uint8_t> && std::is_same_v<Out, int32_t>;
// The pairs with element lanes: one type in and out, one an element's sum takes.
template <class In, class Out>
constexpr bool has_element_lanes =
    std::is_same_v<In, Out> && (std::is_same_v<In, float> || std::is_same_v<In, double> || std::is_same_v<In, int32_t>);
// CUB's sm_90 tuning for 32-bit sums (its threads, loads, stores and look-back delays), put
// together as CUB's own sm_90 policy is, with 12 items per thread instead of its 24: each item's
// 16-byte write-out keeps more registers live than a plain scan's item (docs/thin.md, *Twelve
// items per thread*). One policy for every architecture built, measured on sm_90. The tuning is
// CUB's internal (cub::detail): a toolkit whose tuning differs stops the build here.
using WordScanTuning = cub::detail::scan::sm90_tuning<uint32_t, cub::detail::scan::primitive_op::yes>;
static_assert(WordScanTuning::threads == 128 && WordScanTuning::items == 24,
              "CUB's sm_90 tuning for 32-bit sums changed: measure word_scan_items again");
constexpr int word_scan_items = 12;
struct WordScanPolicies {
    struct Policy900 : cub::ChainedPolicy<900, Policy900, Policy900> {
        using ScanPolicyT = cub::AgentScanPolicy<
            WordScanTuning::threads, word_scan_items, uint32_t, WordScanTuning::load_algorithm, cub::LOAD_DEFAULT,
            WordScanTuning::store_algorithm, cub::BLOCK_SCAN_WARP_SCANS,
            cub::detail::MemBoundScaling<WordScanTuning::threads, word_scan_items, uint32_t>,
            WordScanTuning::delay_constructor>;
    };
    using MaxPolicy = Policy900;
};
// CUB's scan of `items` word sums into an output iterator: DeviceScan::InclusiveScan's dispatch
// (no initial value, 32-bit offsets and sums) with the policy above.
template <class Sums, class Quads>
cudaError_t word_scan_dispatch(void* temp, std::size_t& temp_bytes, Sums sums, Quads quads, int items,
                               cudaStream_t stream) {
    using Plus = cuda::std::plus<uint32_t>;
    using Dispatch = cub::DispatchScan<Sums, Quads, Plus, cub::NullType, uint32_t, uint32_t, cub::ForceInclusive::No,
                                       WordScanPolicies>;
    return Dispatch::Dispatch(temp, temp_bytes, sums, quads, Plus{}, cub::NullType{}, uint32_t(items), stream);
}
cudaError_t cub_word_scan(void* temp, std::size_t& temp_bytes, const uint8_t* in, int32_t* out, int n,
                          cudaStream_t stream) {
    const auto* words = reinterpret_cast<const uint32_t*>(in);
    const auto sums = thrust::make_transform_iterator(words, WordByteSum{});
    const auto quads = thrust::make_tabulate_output_iterator(WriteWordSums{words, reinterpret_cast<int4*>(out)});
    return word_scan_dispatch(temp, temp_bytes, sums, quads, n / 4, stream);
}

// u8 -> i32 images of 2 rows in words, 20,000,000 columns or wider: row j of the SAT is the 1-D
// scan of the column sums of rows 0..j, one word scan per row (J = j + 1 rows summed; row 0 is
// the line scan of its own words). Row j reads j + 1 input rows (3 bytes per column read, 8
// written, against 2 and 8 at best).
template <int J>
struct ColumnWordSum {  // item k: the bytes of word k in rows 0..J-1
    const uint32_t* words;
    std::size_t pitch;  // words between rows
    __host__ __device__ uint32_t operator()(uint32_t k) const {
        uint32_t sum = 0;
        for (int r = 0; r < J; ++r) sum += WordByteSum{}(words[r * pitch + k]);
        return sum;
    }
};
template <int J>
struct WriteColumnWordSums {
    const uint32_t* words;
    std::size_t pitch;
    int4* quads;  // output row J - 1
    __host__ __device__ void operator()(std::ptrdiff_t k, uint32_t through_word) const {
        uint32_t b1 = 0, b2 = 0, b3 = 0;  // bytes 1, 2 and 3 of word k, summed over the rows
        for (int r = 0; r < J; ++r) {
            const uint32_t word = words[r * pitch + k];
            b1 += word >> 8 & 0xffu, b2 += word >> 16 & 0xffu, b3 += word >> 24;
        }
        quads[k] = word_sums(through_word, b1, b2, b3);
    }
};
template <int J>
cudaError_t cub_column_word_scan(void* temp, std::size_t& temp_bytes, const uint8_t* in, std::size_t in_pitch,
                                 int32_t* out_row, int cols, cudaStream_t stream) {
    const auto* words = reinterpret_cast<const uint32_t*>(in);
    const auto sums = thrust::make_transform_iterator(thrust::counting_iterator<uint32_t>(0),
                                                      ColumnWordSum<J>{words, in_pitch / 4});
    const auto quads = thrust::make_tabulate_output_iterator(
        WriteColumnWordSums<J>{words, in_pitch / 4, reinterpret_cast<int4*>(out_row)});
    return word_scan_dispatch(temp, temp_bytes, sums, quads, cols / 4, stream);
}
// The packed rows and columns (RowLanes, AddLanes, PackedWordSums, WritePackedRows,
// PackedRowQuadSums, WritePackedColumns: sat_thin.cuh) as one CUB scan. CUB tunes only
// arithmetic sums, so the lanes take policies of ours, with the word path's loads, stores and
// look-back delays: 256 threads of 8 items (3 rows: 60 registers, 25 KB of shared memory, 4
// blocks per SM on sm_90, against 2 blocks of a 128-bit item's CUB tuning), and for 2 or 3 rows
// narrower than 8,000,000 columns (2,000,000 words) 512 threads of 4, the same 2048 items a tile,
// which took 0.76-0.94 of 256 x 8's time there; a scan of few tiles waits on each tile's path
// from load to store, which 4 items a thread may shorten (not profiled). The columns keep 256 x 8:
// on 512 x 4 they took 1.08-1.31 of the time at 1,048,576 and 4,000,000 rows. Measured on sm_90
// only (docs/thin.md, *One packed scan*, *u8 -> i32 images of 2 or 3 columns in words*).
// MemBoundScaling is given uint32_t so that it keeps the items; given RowLanes<3> it would scale
// them down by the item's size.
static_assert(WordScanTuning::load_algorithm == cub::BLOCK_LOAD_WARP_TRANSPOSE &&
                  WordScanTuning::store_algorithm == cub::BLOCK_STORE_WARP_TRANSPOSE,
              "CUB's sm_90 loads or stores for 32-bit sums changed: measure the lanes' policies again");
template <class Lanes, int Threads, int Items>
struct LanePolicies {
    struct Policy900 : cub::ChainedPolicy<900, Policy900, Policy900> {
        using ScanPolicyT = cub::AgentScanPolicy<
            Threads, Items, Lanes, WordScanTuning::load_algorithm, cub::LOAD_DEFAULT,
            WordScanTuning::store_algorithm, cub::BLOCK_SCAN_WARP_SCANS,
            cub::detail::MemBoundScaling<Threads, Items, uint32_t>, WordScanTuning::delay_constructor>;
    };
    using MaxPolicy = Policy900;
    static_assert(Policy900::ScanPolicyT::BLOCK_THREADS == Threads && Policy900::ScanPolicyT::ITEMS_PER_THREAD == Items);
};
template <int R>
using LongLaneTiles = LanePolicies<RowLanes<R>, 256, 8>;
template <int R>
using ShortLaneTiles = LanePolicies<RowLanes<R>, 512, 4>;
// The element lanes (PackedElements): 256 threads of 8 columns, 4 for f64, 24 KB of a tile's 3 rows
// in shared memory either way (not swept as the words' lanes were).
template <int R, class T>
using ElementLaneTiles = LanePolicies<RowLanes<R, lane_of<T>>, 256, sizeof(T) == 8 ? 4 : 8>;
constexpr int short_lane_tiles_below_cols = 8000000;
bool rows_take_short_lane_tiles(int cols) { return cols < short_lane_tiles_below_cols; }
// CUB's scan of `count` items of R lanes (the input iterator `items`) into the output iterator
// `write`, on the lanes' policies P: inclusive, or, given an initial value, exclusive (the
// initial value is CUB's internal cub::detail::InputValue, as DeviceScan::ExclusiveScan passes it).
template <class P, int R, class Lane, class Items, class Write, class Init = cub::NullType>
cudaError_t lane_scan_dispatch(void* temp, std::size_t& temp_bytes, Items items, Write write, int count,
                               cudaStream_t stream, Init init = {}) {
    using Add = AddLanes<R, Lane>;
    using Dispatch = cub::DispatchScan<Items, Write, Add, Init, uint32_t, RowLanes<R, Lane>, cub::ForceInclusive::No, P>;
    return Dispatch::Dispatch(temp, temp_bytes, items, write, Add{}, init, uint32_t(count), stream);
}
template <int R>
cudaError_t cub_packed_rows_scan(void* temp, std::size_t& temp_bytes, const uint8_t* in, std::size_t in_pitch,
                                 int32_t* out, std::size_t out_pitch, int cols, cudaStream_t stream) {
    const auto* words = reinterpret_cast<const uint32_t*>(in);
    const auto sums = thrust::make_transform_iterator(thrust::counting_iterator<uint32_t>(0),
                                                      PackedWordSums<R>{words, in_pitch / 4});
    const auto quads = thrust::make_tabulate_output_iterator(
        WritePackedRows<R>{words, in_pitch / 4, reinterpret_cast<int4*>(out), out_pitch / 4});
    if (rows_take_short_lane_tiles(cols))
        return lane_scan_dispatch<ShortLaneTiles<R>, R, uint32_t>(temp, temp_bytes, sums, quads, cols / 4, stream);
    return lane_scan_dispatch<LongLaneTiles<R>, R, uint32_t>(temp, temp_bytes, sums, quads, cols / 4, stream);
}
// 2 or 3 contiguous columns: the same lanes, one per column, 4 rows to an item (sat_thin.cuh).
template <int C>
cudaError_t cub_packed_columns_scan(void* temp, std::size_t& temp_bytes, const uint8_t* in, int32_t* out, int rows,
                                    cudaStream_t stream) {
    const auto* words = reinterpret_cast<const uint32_t*>(in);
    const auto sums = thrust::make_transform_iterator(thrust::counting_iterator<uint32_t>(0),
                                                      PackedRowQuadSums<C>{words});
    const auto quads = thrust::make_tabulate_output_iterator(WritePackedColumns<C>{words, reinterpret_cast<int4*>(out)});
    return lane_scan_dispatch<LongLaneTiles<C>, C, uint32_t>(temp, temp_bytes, sums, quads, rows / 4, stream);
}
// f32, f64 and i32 images of 2 or 3 rows: element lanes, a column to an item (sat_thin.cuh).
template <int R, class T>
cudaError_t cub_element_rows_scan(void* temp, std::size_t& temp_bytes, const T* in, std::size_t in_pitch, T* out,
                                  std::size_t out_pitch, int cols, cudaStream_t stream) {
    const auto columns = thrust::make_transform_iterator(thrust::counting_iterator<uint32_t>(0),
                                                         PackedElements<R, T>{in, in_pitch});
    const auto sums = thrust::make_tabulate_output_iterator(WritePackedElements<R, T>{out, out_pitch});
    return lane_scan_dispatch<ElementLaneTiles<R, T>, R, lane_of<T>>(temp, temp_bytes, columns, sums, cols, stream);
}
// f32 and i32 images of 2 rows of whole 16-byte groups: group lanes, exclusive (sat_thin.cuh),
// on the element lanes' policies (3 rows and f64 were measured and left in the chunks: only
// R = 2 and 4-byte T are built).
template <int R, class T>
cudaError_t cub_group_rows_scan(void* temp, std::size_t& temp_bytes, const T* in, std::size_t in_pitch, T* out,
                                std::size_t out_pitch, int cols, cudaStream_t stream) {
    constexpr int V = int(16 / sizeof(T));
    const auto* in_groups = reinterpret_cast<const Group16<T>*>(in);
    const auto groups = thrust::make_transform_iterator(thrust::counting_iterator<uint32_t>(0),
                                                        PackedGroupSums<R, T>{in_groups, in_pitch / V});
    const auto sums = thrust::make_tabulate_output_iterator(
        WritePackedGroups<R, T>{in_groups, in_pitch / V, reinterpret_cast<Group16<T>*>(out), out_pitch / V});
    using Lanes = RowLanes<R, lane_of<T>>;
    return lane_scan_dispatch<ElementLaneTiles<R, T>, R, lane_of<T>>(temp, temp_bytes, groups, sums, cols / V, stream,
                                                                     cub::detail::InputValue<Lanes>(Lanes{}));
}
template <class T>
cudaError_t cub_element_rows_scan(int rows, void* temp, std::size_t& temp_bytes, const T* in, std::size_t in_pitch,
                                  T* out, std::size_t out_pitch, int cols, cudaStream_t stream) {
    return rows == 2 ? cub_element_rows_scan<2>(temp, temp_bytes, in, in_pitch, out, out_pitch, cols, stream)
                     : cub_element_rows_scan<3>(temp, temp_bytes, in, in_pitch, out, out_pitch, cols, stream);
}
cudaError_t cub_packed_columns_scan(int cols, void* temp, std::size_t& temp_bytes, const uint8_t* in, int32_t* out,
                                    int rows, cudaStream_t stream) {
    return cols == 2 ? cub_packed_columns_scan<2>(temp, temp_bytes, in, out, rows, stream)
                     : cub_packed_columns_scan<3>(temp, temp_bytes, in, out, rows, stream);
}
cudaError_t cub_packed_rows_scan(int rows, void* temp, std::size_t& temp_bytes, const uint8_t* in,
                                 std::size_t in_pitch, int32_t* out, std::size_t out_pitch, int cols,
                                 cudaStream_t stream) {
    return rows == 2 ? cub_packed_rows_scan<2>(temp, temp_bytes, in, in_pitch, out, out_pitch, cols, stream)
                     : cub_packed_rows_scan<3>(temp, temp_bytes, in, in_pitch, out, out_pitch, cols, stream);
}
cudaError_t cub_column_word_scan(int j, void* temp, std::size_t& temp_bytes, const uint8_t* in, std::size_t in_pitch,
                                 int32_t* out_row, int cols, cudaStream_t stream) {
    switch (j) {  // 2 rows only: 3 rows always take the packed scan (rows_packed)
    case 0: return cub_word_scan(temp, temp_bytes, in, out_row, cols, stream);  // row 0 alone: a line
    case 1: return cub_column_word_scan<2>(temp, temp_bytes, in, in_pitch, out_row, cols, stream);
    default: return cudaErrorInvalidValue;
    }
}
// Which of the two scans an image of 2 or 3 rows in words takes. The packed scan reads each byte
// from DRAM once in one launch; a scan per row reads rows 0..j for row j (3 rows: 6 bytes a
// column, against 3) and pays a launch and a look-back per row. On an H200 the packed scan took
// 0.89 of the scans per row's time at 3 x 40,000,000, and for 2 rows 0.88 and 0.98 of it at
// 4,000,000 and 12,000,000 columns but 1.03 at 40,000,000 (docs/thin.md, *One packed scan*). So
// 3 rows always take it, and 2 rows below 20,000,000 columns.
constexpr int two_rows_packed_below = 20000000;
bool rows_shape_in_words(int rows, int cols) { return cols > 0 && cols % 4 == 0 && (rows == 2 || rows == 3); }
bool columns_shape_in_words(int rows, int cols) { return rows > 0 && rows % 4 == 0 && (cols == 2 || cols == 3); }
// CUB's scratch for the packed scan, or for the rows' scans one after another on the same
// scratch: the largest row's.
cudaError_t rows_temp_bytes(int rows, int cols, std::size_t& bytes) {
    bytes = 0;
    if (rows_packed(rows, cols)) return cub_packed_rows_scan(rows, nullptr, bytes, nullptr, 0, nullptr, 0, cols, 0);
    for (int j = 0; j < rows; ++j) {
        std::size_t row_bytes = 0;
        const cudaError_t err = cub_column_word_scan(j, nullptr, row_bytes, nullptr, 0, nullptr, cols, 0);
        if (err != cudaSuccess) return err;
        bytes = std::max(bytes, row_bytes);
    }
    return cudaSuccess;
}
// Runs `scan(temp, bytes)`, CUB's two-phase call (temp == nullptr: its scratch size into bytes), on
// the caller's scratch or, where that is nullptr, on scratch allocated and freed stream-ordered.
template <class Scan>
cudaError_t with_cub_scratch(void* scratch, cudaStream_t stream, Scan scan) {
    std::size_t bytes = 0;
    cudaError_t err = scan(nullptr, bytes);
    if (err != cudaSuccess) return err;
    const bool own = scratch == nullptr;
    if (own && (err = cudaMallocAsync(&scratch, bytes, stream)) != cudaSuccess) return err;
    err = scan(scratch, bytes);
    if (own) {
        const cudaError_t free_err = cudaFreeAsync(scratch, stream);
        if (err == cudaSuccess) err = free_err;
    }
    return err;
}
// The bytes a CUB size query (query(bytes), temp == nullptr) gives, or 0 where it fails.
template <class Query>
std::size_t cub_bytes_or_zero(Query query) {
    std::size_t bytes = 0;
    if (query(bytes) == cudaSuccess) return bytes;
    cudaGetLastError();  // no device: not an error of the caller's next call
    return 0;
}
}  // namespace

template <class In, class Out>
bool rows_in_words(const In* in, std::size_t in_pitch, const Out* out, std::size_t out_pitch, int rows, int cols) {
    if constexpr (has_word_path<In, Out>)
        return rows_shape_in_words(rows, cols) && in_pitch % 4 == 0 && out_pitch % 4 == 0 &&
               reinterpret_cast<std::uintptr_t>(in) % 4 == 0 && reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
    return false;
}

bool rows_packed(int rows, int cols) { return rows == 3 || (rows == 2 && cols < two_rows_packed_below); }

// Element lanes for rows narrower than 2 MiB. On an H200 they took 0.49-0.79 of the chunks' time
// there (up to 262,144 f32 or i32 columns, 16,384 f64) and 0.92-1.55 from there on, below 1 only
// at 2 x 4,000,000 f32 and i32 (docs/thin.md, *f32, f64 and i32 images of 2 or 3 rows in element
// lanes*): a tile of 3 rows moves 48 KB (2048 f32 or 1024 f64 columns), a u8 word tile 120 KB.
constexpr std::size_t element_lanes_below_row_bytes = std::size_t(2) << 20;
template <class In, class Out>
bool rows_in_lanes(int rows, int cols) {
    return has_element_lanes<In, Out> && (rows == 2 || rows == 3) && cols > 0 &&
           std::size_t(cols) * sizeof(In) < element_lanes_below_row_bytes;
}

// Group lanes for 2 rows of f32 or i32 from 2 MiB a row, where the element lanes lose to the
// chunks. On an H200 they took 0.81-0.98 of the chunks' time there (1,048,576 to 40,000,000
// columns), but 1.02-1.04 for 3 f32 rows from 4,000,000 columns and 0.93-1.20 for f64; below
// 2 MiB the element lanes took 0.54-0.86 of theirs (docs/thin.md, *f32 and i32 images of 2 rows
// in group lanes*).
#ifndef SAT_THIN_GROUP_LANES_FROM_ROW_BYTES  // (tuning; by default where the element lanes stop)
#define SAT_THIN_GROUP_LANES_FROM_ROW_BYTES element_lanes_below_row_bytes
#endif
constexpr std::size_t group_lanes_from_row_bytes = SAT_THIN_GROUP_LANES_FROM_ROW_BYTES;
template <class In, class Out>
bool rows_shape_in_groups(int rows, int cols) {
    constexpr int V = int(16 / sizeof(In));  // elements in a group
    return has_element_lanes<In, Out> && sizeof(In) == 4 && rows == 2 && cols > 0 && cols % V == 0 &&
           std::size_t(cols) * sizeof(In) >= group_lanes_from_row_bytes;
}
template <class In, class Out>
bool rows_in_groups(const In* in, std::size_t in_pitch, const Out* out, std::size_t out_pitch, int rows, int cols) {
    constexpr std::size_t V = 16 / sizeof(In);
    return rows_shape_in_groups<In, Out>(rows, cols) && in_pitch % V == 0 && out_pitch % V == 0 && aligned(in, 16) &&
           aligned(out, 16);
}

template <class In, class Out>
std::size_t rows_scratch_bytes(int rows, int cols) {
    if constexpr (has_word_path<In, Out>)
        if (rows_shape_in_words(rows, cols))
            return cub_bytes_or_zero([&](std::size_t& bytes) { return rows_temp_bytes(rows, cols, bytes); });
    if constexpr (has_element_lanes<In, Out>) {
        // Either lanes the shape may take (the group lanes: pointers and pitches decide).
        std::size_t bytes = 0;
        if constexpr (sizeof(In) == 4)
            if (rows_shape_in_groups<In, Out>(rows, cols))
                bytes = cub_bytes_or_zero([&](std::size_t& b) {
                    return cub_group_rows_scan<2, In>(nullptr, b, nullptr, 0, nullptr, 0, cols, 0);
                });
        if (rows_in_lanes<In, Out>(rows, cols))
            bytes = std::max(bytes, cub_bytes_or_zero([&](std::size_t& b) {
                return cub_element_rows_scan<In>(rows, nullptr, b, nullptr, 0, nullptr, 0, cols, 0);
            }));
        return bytes;
    }
    return 0;
}

template <class In, class Out>
cudaError_t rows_scan(const In* in, std::size_t in_pitch, Out* out, std::size_t out_pitch, int rows, int cols,
                      cudaStream_t stream, void* scratch, bool* packed, bool* group_lanes) {
    if (packed != nullptr) *packed = false;
    if (group_lanes != nullptr) *group_lanes = false;
    // Refused before any CUDA call: null pointers, pitches short of the width, other shapes.
    if (in == nullptr || out == nullptr || in_pitch < std::size_t(cols) || out_pitch < std::size_t(cols))
        return cudaErrorInvalidValue;
    if constexpr (has_word_path<In, Out>) {
        if (!rows_in_words(in, in_pitch, out, out_pitch, rows, cols)) return cudaErrorInvalidValue;
        return with_cub_scratch(scratch, stream, [&](void* temp, std::size_t& bytes) {
            if (temp == nullptr) return rows_temp_bytes(rows, cols, bytes);
            if (rows_packed(rows, cols)) {
                const cudaError_t err = cub_packed_rows_scan(rows, temp, bytes, in, in_pitch, out, out_pitch, cols, stream);
                if (err == cudaSuccess && packed != nullptr) *packed = true;
                return err;
            }
            // One scratch for the rows' scans in turn: each initializes its tile states first.
            cudaError_t err = cudaSuccess;
            for (int j = 0; j < rows && err == cudaSuccess; ++j)
                err = cub_column_word_scan(j, temp, bytes, in, in_pitch, out + j * out_pitch, cols, stream);
            return err;
        });
    }
    if constexpr (has_element_lanes<In, Out>) {
        const bool groups = rows_in_groups(in, in_pitch, out, out_pitch, rows, cols);
        if (!groups && !rows_in_lanes<In, Out>(rows, cols)) return cudaErrorInvalidValue;
        return with_cub_scratch(scratch, stream, [&](void* temp, std::size_t& bytes) {
            cudaError_t err = cudaErrorInvalidValue;
            if constexpr (sizeof(In) == 4)  // group lanes: 2 rows of f32 or i32 only (rows_shape_in_groups)
                if (groups) err = cub_group_rows_scan<2>(temp, bytes, in, in_pitch, out, out_pitch, cols, stream);
            if (!groups) err = cub_element_rows_scan<In>(rows, temp, bytes, in, in_pitch, out, out_pitch, cols, stream);
            if (err == cudaSuccess && temp != nullptr && packed != nullptr) *packed = true;
            if (err == cudaSuccess && temp != nullptr && group_lanes != nullptr) *group_lanes = groups;
            return err;
        });
    }
    return cudaErrorInvalidValue;
}

template <class In, class Out>
bool columns_in_words(const In* in, std::size_t in_pitch, const Out* out, std::size_t out_pitch, int rows, int cols) {
    if constexpr (has_word_path<In, Out>)
        return columns_shape_in_words(rows, cols) && in_pitch == std::size_t(cols) &&
               out_pitch == std::size_t(cols) && reinterpret_cast<std::uintptr_t>(in) % 4 == 0 &&
               reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
    return false;
}

template <class In, class Out>
std::size_t columns_scratch_bytes(int rows, int cols) {
    if constexpr (has_word_path<In, Out>)
        if (columns_shape_in_words(rows, cols))
            return cub_bytes_or_zero([&](std::size_t& bytes) {
                return cub_packed_columns_scan(cols, nullptr, bytes, nullptr, nullptr, rows, 0);
            });
    return 0;
}

template <class In, class Out>
cudaError_t columns_scan(const In* in, std::size_t in_pitch, Out* out, std::size_t out_pitch, int rows, int cols,
                         cudaStream_t stream, void* scratch) {
    if constexpr (has_word_path<In, Out>) {
        // Refused before any CUDA call: null pointers and what columns_in_words would not take.
        if (in == nullptr || out == nullptr || !columns_in_words(in, in_pitch, out, out_pitch, rows, cols))
            return cudaErrorInvalidValue;
        return with_cub_scratch(scratch, stream, [&](void* temp, std::size_t& bytes) {
            return cub_packed_columns_scan(cols, temp, bytes, in, out, rows, stream);
        });
    }
    return cudaErrorInvalidValue;
}

template <class In, class Out>
bool line_in_words(const In* in, const Out* out, int n) {
    if constexpr (has_word_path<In, Out>)
        return n > 0 && n % 4 == 0 && reinterpret_cast<std::uintptr_t>(in) % 4 == 0 &&
               reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
    return false;
}

template <class In, class Out>
std::size_t line_scratch_bytes(int n) {
    std::size_t bytes = 0, word_bytes = 0;
    if (n < 1 || cub_line_scan<In, Out>(nullptr, bytes, nullptr, nullptr, n, 0) != cudaSuccess) {
        cudaGetLastError();  // no device: not an error of the caller's next call
        return 0;
    }
    // Either path: the pointers, which pick it, are not known here.
    if constexpr (has_word_path<In, Out>) {
        if (n >= 4 && cub_word_scan(nullptr, word_bytes, nullptr, nullptr, n, 0) != cudaSuccess) {
            cudaGetLastError();
            return 0;
        }
    }
    return std::max(bytes, word_bytes);
}

template <class In, class Out>
cudaError_t line_scan(const In* in, Out* out, int n, cudaStream_t stream, void* scratch) {
    if (n < 0 || (n > 0 && (in == nullptr || out == nullptr))) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    return with_cub_scratch(scratch, stream, [&](void* temp, std::size_t& bytes) {
        if constexpr (has_word_path<In, Out>)
            if (line_in_words(in, out, n)) return cub_word_scan(temp, bytes, in, out, n, stream);
        return cub_line_scan<In, Out>(temp, bytes, in, out, n, stream);
    });
}

#define SAT_THIN_INSTANTIATE(In, Out)                                                         \
    template bool applicable<In, Out>(int, int);                                              \
    template std::size_t scratch_bytes<In, Out>(int, int, int);                               \
    template std::size_t line_scratch_bytes<In, Out>(int);                                    \
    template bool line_in_words<In, Out>(const In*, const Out*, int);                         \
    template bool rows_in_words<In, Out>(const In*, std::size_t, const Out*, std::size_t, int, int); \
    template bool rows_in_lanes<In, Out>(int, int);                                           \
    template bool rows_in_groups<In, Out>(const In*, std::size_t, const Out*, std::size_t, int, int); \
    template std::size_t rows_scratch_bytes<In, Out>(int, int);                               \
    template bool columns_in_words<In, Out>(const In*, std::size_t, const Out*, std::size_t, int, int); \
    template std::size_t columns_scratch_bytes<In, Out>(int, int);                            \
    template cudaError_t columns_scan<In, Out>(const In*, std::size_t, Out*, std::size_t, int, int, \
                                               cudaStream_t, void*);                          \
    template cudaError_t rows_scan<In, Out>(const In*, std::size_t, Out*, std::size_t, int, int,   \
                                            cudaStream_t, void*, bool*, bool*);               \
    template cudaError_t blocks_per_sm<In, Out>(int, int, int, int*, int*);                   \
    template cudaError_t line_scan<In, Out>(const In*, Out*, int, cudaStream_t, void*);       \
    template cudaError_t scan<In, Out>(const In*, std::size_t, Out*, std::size_t, int, int,   \
                                       cudaStream_t, void*, int*, int, std::size_t, std::size_t, Flags);
SAT_THIN_INSTANTIATE(float, float)
SAT_THIN_INSTANTIATE(double, double)
SAT_THIN_INSTANTIATE(int32_t, int32_t)
SAT_THIN_INSTANTIATE(uint8_t, int32_t)
SAT_THIN_INSTANTIATE(uint8_t, float)
SAT_THIN_INSTANTIATE(uint16_t, double)
SAT_THIN_INSTANTIATE(float, double)
#undef SAT_THIN_INSTANTIATE

}  // namespace thin
}  // namespace sat
