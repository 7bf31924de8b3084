// lookback_kernel.cuh — the library's single-pass SAT kernel: decoupled look-back in 2-D
// (Merrill & Garland 2016, taken to two dimensions), tuned per type. Lab 9
// (solutions/lab9_lookback.cu) teaches the same algorithm in a short version; this is the fast
// one. One kernel reads each input element once and writes each output element once. The matrix
// is cut into tiles of R rows x C columns (C = the block's threads x one 16-byte vector of the
// output each: with 256 threads 1024 columns for f32, 512 for f64; R and the threads per type and
// access: TileShape, LanesTileShape). A block starts while the kernel before it clears the
// tickets and flags (clear_flags, common/lookback.cuh): it warms L2 with the tile of its own
// index (the first round's tickets are the block indices, in some order) and waits for the
// flags. A tile
//   1. takes a ticket (atomicAdd) that says which tile it is: tiles are handed out row-major
//      (batches: a tile row of every image at a time, below), so every tile it will wait for
//      was handed out earlier to a block that is running (no deadlock for any grid size),
//   2. loads its R x C elements into registers and shared memory, all in flight (by cp.async
//      where the type and the alignment allow; load_tile says which copies go through registers),
//   3. publishes its aggregates: R, the sum of each of its rows, and C, the sum of each of its
//      columns                                                                 -> state partial
//   4. looks back LEFT along its tile row for its row carries               -> state row_done
//   5. looks back UP its tile column for its column carries and the corner   -> state done
//   6. takes its next ticket (none where the grid has a block per tile), prefetches the first
//      rows of that tile into L2 (so the DRAM reads of the next tile overlap this tile's
//      writes), adds the carries to its local SAT and writes it out.
// One round of few small tiles (a block per ticket; Geometry::aggregates_only): in place of 4
// and 5, a tile waits for the `partial` of the tiles left of it and above it, all handed out
// already, and adds up their aggregates (sum_aggregates); in a tall image the tiles above come
// in groups of 8 tile rows, whose last tiles publish each group's sums (`done`), so no tile waits
// for another's look-back.
// Tables: which tables one launch writes: the sums, the squared sums (each input value squared
// as it is loaded), or both. For both, tickets come in pairs: ticket 2k is tile k of the sums,
// 2k + 1 tile k of the squares; the two blocks read the same input tile at about the same time,
// so the second read is served by L2 and the input crosses DRAM once. The squares' records
// follow the sums' (as if their tile rows came after the sums' tile rows), and a tile waits only
// for earlier tiles of its own table, so the rule above holds.
// Batched: a batch of images in one launch. The tickets run over the images' tile rows
// together: tile row 0 of image 0, of image 1, ..., then tile row 1 of every image, each row
// left to right. A tile's upper neighbour is handed out images x tiles_x tickets earlier (image
// after image it would be tiles_x: 2 for a 1920-column f32 image), so it is far ahead by the
// time the tile looks up. The rule above still holds (a tile waits only for tiles of its own
// image above it or left of it). The records stay image after image (tile rows counted over
// the batch), and a look up its tile column stops at its image's first tile row.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "device.cuh"
#include "lookback.cuh"
#include "sat.h"

namespace satlib {

#ifndef LAB9_THREADS
#define LAB9_THREADS 128  // threads of a tile's block, unless its shape names another count
#endif
using namespace sat::lookback;  // tile states, acquire/release, published sums, warp sums

using sat::cp_async_commit;
using sat::cp_async_wait_all;
using sat::load_smem;
using sat::load_vec;
using sat::store_vec;
using sat::warp_inclusive_scan;
using sat::vec_of;  // each thread owns V = vec_of<Out>() adjacent columns of the tile

// A tile is R = RR + RS rows x C columns. Each thread owns V adjacent columns (one 16-byte
// vector of Out) and keeps RR rows of them in registers and RS rows in shared memory, where
// cp.async lands them; a block of `threads` threads covers C = threads * V columns. The bytes in
// flight per SM hide the look-back latency; the best shape depends on the type (time / copy;
// docs/lab9.md, docs/data/wide_tiles_h100.csv, docs/tiles.md). Rows that start on whole 16-byte
// pieces (vector accesses) take TileShape; the others LanesTileShape, below.
//   f32, i32: 16 + 24 rows of 256 threads (1024 columns), 2 blocks per SM (H200, against 16 + 16:
//             0.96-0.98 of the time from 8192^2 to 32768^2; 16 + 26, the most rows 2 blocks fit,
//             was not faster than 16 + 16; docs/tiles.md, *Taller tiles where rows start on whole
//             pieces*). 16 + 16 x 2 against the 128-thread shapes: H100, f32 8192^2 1.24 instead
//             of 1.33 for 28 + 36 x 3, 16384^2 1.13 instead of 1.18; H200, i32 against 16 + 16 x 4
//             0.915-0.936 of the time from 4096^2 to 32768^2.
//   f64:      16 + 16 rows of 256 threads (512 columns), 2 blocks per SM (H100, against 12 + 20 x 5
//             of 128 threads, which f64's batches and squares take and its images too tall for the
//             short tiles: 8192^2 1.17 instead of 1.25, 16384^2 1.12 instead of 1.22; 16 + 24 gave
//             0.99-1.01 on an H200)
//   u8->i32:   4 + 32 rows of 256 threads, 3 blocks per SM (H200, against 4 + 28: 0.977-0.990 of
//             the time from 8192^2 to 32768^2; 4 + 28 x 3 against 4 + 28 x 6 of 128 threads:
//             0.905-0.986 of the time from 4096^2 to 32768^2)
// (In, A) names the type: f32 (float, float), f64 (double, double), i32 (int32_t, uint32_t),
// u8i32 (uint8_t, uint32_t). -DLAB9_REG_ROWS=.. -DLAB9_SMEM_ROWS=.. -DLAB9_MIN_BLOCKS=.. set one
// shape for every type (tuning experiments).
template <int RegRows, int SmemRows, int MinBlocks, int Threads = LAB9_THREADS>
struct Shape {
    static constexpr int RR = RegRows;            // rows per tile in registers
    static constexpr int RS = SmemRows;           // rows per tile in shared memory
    static constexpr int R = RR + RS;             // rows per tile
    static constexpr int min_blocks = MinBlocks;  // tiles in flight per SM
    static constexpr int threads = Threads;       // of the tile's block: C = threads * V columns
    static constexpr int warps = Threads / 32;
    static_assert(R <= threads && threads % 32 == 0, "a thread per row for the row sums");
};
#ifdef LAB9_REG_ROWS
#ifndef LAB9_SMEM_ROWS
#define LAB9_SMEM_ROWS 36
#endif
#ifndef LAB9_MIN_BLOCKS
#define LAB9_MIN_BLOCKS 3
#endif
template <class In, class A> struct TileShape : Shape<LAB9_REG_ROWS, LAB9_SMEM_ROWS, LAB9_MIN_BLOCKS> {};
#else
template <class In, class A> struct TileShape : Shape<16, 24, 2, 256> {};  // f32: 1024 columns
template <> struct TileShape<int32_t, uint32_t> : Shape<16, 24, 2, 256> {};  // 1024 columns
template <> struct TileShape<double, double> : Shape<16, 16, 2, 256> {};  // 512 columns
template <> struct TileShape<uint8_t, uint32_t> : Shape<4, 32, 3, 256> {};  // 1024 columns
#endif
// The library's other pairs take the shape of the pair with the same accumulator and fewer
// input bytes in flight (not tuned separately).
template <> struct TileShape<uint8_t, float> : Shape<4, 32, 3, 256> {};  // u8 -> f32 as u8 -> i32
template <> struct TileShape<uint16_t, double> : Shape<16, 16, 2, 256> {};  // u16 -> f64 as f64
template <> struct TileShape<float, double> : Shape<16, 16, 2, 256> {};     // f32 -> f64 as f64

// Rows that do not start on a whole 16-byte piece (Access::lanes: odd pitches or offsets) keep
// 32-row tiles in the 256-thread blocks: f32 and i32 16 + 16, u8 4 + 28. In TileShape's taller
// tiles those calls took longer on an H200 (f32 and i32 at 16385^2 1.06-1.08 times as long, the
// f32 batch of 16 1081 x 1921 images 1.11; docs/tiles.md, *Taller tiles*). Every other pair
// as TileShape.
template <class In, class A> struct LanesTileShape : TileShape<In, A> {};
#ifndef LAB9_REG_ROWS
template <> struct LanesTileShape<float, float> : Shape<16, 16, 2, 256> {};
template <> struct LanesTileShape<int32_t, uint32_t> : Shape<16, 16, 2, 256> {};
template <> struct LanesTileShape<uint8_t, uint32_t> : Shape<4, 28, 3, 256> {};
template <> struct LanesTileShape<uint8_t, float> : Shape<4, 28, 3, 256> {};
#endif

// Small images: where the 256-thread tiles would leave SMs idle, or one image (not u8's) is one round
// of them (satlib.cu, small_tiles), tiles of
// 128 threads, more blocks each: f32 and i32 16 + 18 x 4, f64 (and the pairs that follow it)
// 12 + 20 x 5, which f64 batches and squares take too (satlib.cu, small_tiles), u8 4 + 30 x 6.
// 34 rows, not 32: one 3840x2160 image is then 8 x 64 tiles, one round within aggregates_tiles_y
// (32 rows: 8 x 68, which f32 takes in two rounds that look back); a tile's taller steps cost
// images of fewer tiles a few percent (docs/tiles.md, *Six column sums in flight, and 34-row
// small tiles*).
template <class In, class A> struct SmallTileShape : TileShape<In, A> {};
#ifndef LAB9_REG_ROWS
template <> struct SmallTileShape<float, float> : Shape<16, 18, 4> {};
template <> struct SmallTileShape<int32_t, uint32_t> : Shape<16, 18, 4> {};
template <> struct SmallTileShape<uint8_t, uint32_t> : Shape<4, 30, 6> {};
template <> struct SmallTileShape<uint8_t, float> : Shape<4, 30, 6> {};
template <> struct SmallTileShape<double, double> : Shape<12, 20, 5> {};
template <> struct SmallTileShape<uint16_t, double> : Shape<12, 20, 5> {};
template <> struct SmallTileShape<float, double> : Shape<12, 20, 5> {};
#endif
// Short images: tiles of 17 rows, for one image of at most aggregates_tiles_y (128) of them
// (satlib.cu, short_tiles): f32 and i32 8 + 9 x 4 (512 columns), u8 -> i32 and u8 -> f32 4 + 13 x 6 (512),
// f64 and the pairs that follow it 8 + 9 x 5 (256). 1920x1080 is 4 x 64 f32 tiles, two blocks on
// most SMs instead of one, and 8 x 64 f64 tiles, four instead of two (H200, 1920x1080 against the
// small tiles: f32 0.96 of the time, i32 0.94, u8 -> i32 0.87-0.90, u8 -> f32 0.89-0.91, f64 0.87,
// u16 -> f64 0.85, f32 -> f64 0.84-0.85; docs/tiles.md, *Short tiles*).
template <class In, class A> struct ShortTileShape : SmallTileShape<In, A> {};
#ifndef LAB9_REG_ROWS
template <> struct ShortTileShape<float, float> : Shape<8, 9, 4> {};
template <> struct ShortTileShape<int32_t, uint32_t> : Shape<8, 9, 4> {};
template <> struct ShortTileShape<uint8_t, uint32_t> : Shape<4, 13, 6> {};
template <> struct ShortTileShape<double, double> : Shape<8, 9, 5> {};
// u8 -> f32 as u8 -> i32; u16 -> f64 and f32 -> f64 as f64 (each measured in its own short tiles).
template <> struct ShortTileShape<uint8_t, float> : ShortTileShape<uint8_t, uint32_t> {};
template <> struct ShortTileShape<uint16_t, double> : ShortTileShape<double, double> {};
template <> struct ShortTileShape<float, double> : ShortTileShape<double, double> {};
#endif
// Images a little too large for one round of small tiles: f32 and i32 tiles of 16 + 22 rows of
// 512 columns at 4 blocks an SM, for one image of sums that is then one round of at most 128 of
// them tall (satlib.cu, tall_small_tiles). 2160x3840 (3840 rows) is 5 x 102 of them, one round of
// 510 on 132 SMs, instead of two rounds of 3 x 96 = 288 256-thread tiles; 5 x 113 = 565 small tiles
// would be more than a round too. H200: 0.76-0.77 of the time of the 256-thread tiles. A shape of its
// own: as the small tiles, 38 rows took 1.04-1.06 of the time of 34 for 3840x2160 and 2048x4096
// (docs/tiles.md, *Tall small tiles*). Other pairs: their small ones (u8's 2160x3840 is one round
// of 5 x 113 of 132 x 6).
template <class In, class A> struct TallSmallTileShape : SmallTileShape<In, A> {};
#ifndef LAB9_REG_ROWS
template <> struct TallSmallTileShape<float, float> : Shape<16, 22, 4> {};
template <> struct TallSmallTileShape<int32_t, uint32_t> : Shape<16, 22, 4> {};
#endif
// Wide thin images of 33 or 34 rows (satlib.cu, wide_thin_tiles): tiles of 34 rows of 256 threads,
// one tile row 97-100 % full, where 32-row tiles would make two tile rows about half full (which
// leaves such images in the thin kernel's chunks). The f64 accumulator's 256-thread tiles are 32
// rows with either access, so its 12 + 22 serve both; 12 rows in registers, not TileShape's 16:
// 16 + 18 spills 20-48 bytes a thread in 5 of the 6 kernels (lib/tests/kernel_spills.py). f32 and
// i32 (16 + 18) and u8 -> i32 (4 + 30) have them for rows that do not start on a whole piece
// (LanesTileShape's 32 rows); their vector tiles are 40 and 36 rows, one tile row already. u8 -> f32
// keeps its TileShape (no kernel): over a round of these tiles its f32 sums of the library tests'
// inputs (0 to 3) pass 2^24, so no exact test checks it there (inputs of 0 and 1 would).
template <class In, class A> struct WideThinTileShape : TileShape<In, A> {};
#ifndef LAB9_REG_ROWS
template <> struct WideThinTileShape<double, double> : Shape<12, 22, 2, 256> {};
template <> struct WideThinTileShape<uint16_t, double> : Shape<12, 22, 2, 256> {};
template <> struct WideThinTileShape<float, double> : Shape<12, 22, 2, 256> {};
template <> struct WideThinTileShape<float, float> : Shape<16, 18, 2, 256> {};
template <> struct WideThinTileShape<int32_t, uint32_t> : Shape<16, 18, 2, 256> {};
template <> struct WideThinTileShape<uint8_t, uint32_t> : Shape<4, 30, 3, 256> {};
#endif
// The kernels that may add up aggregates instead of looking back (Geometry::aggregates_only):
// the small, short and tall small tiles', which the library's launches of one round take
// (satlib.cu, small_tiles: 256-thread tiles are taken for a round or more of them, unless one
// image, not u8's, is one round of small or tall small tiles); in the 256-thread kernels that code costs
// registers, and f64's spill. sum_aggregates takes a thread a row for the row carries outside the
// corner's warp (a tuning shape of fewer threads or taller tiles looks back).
template <class In, class A, class S>
constexpr bool compiles_aggregates_only() {
    return (std::is_same_v<S, SmallTileShape<In, A>> || std::is_same_v<S, ShortTileShape<In, A>> ||
            std::is_same_v<S, TallSmallTileShape<In, A>>) &&
           S::R <= (S::warps - 1) * 32;
}
template <class S1, class S2>
constexpr bool same_shape() {
    return S1::RR == S2::RR && S1::RS == S2::RS && S1::min_blocks == S2::min_blocks && S1::threads == S2::threads;
}

// What tiles publish for each other (scratch). Tile t = tile_row * tiles_x + tile_col, tile rows
// counted over the batch (image b's are b * tiles_y .. b * tiles_y + tiles_y - 1); for one image
// and one table t is the ticket.
template <class A>
struct TileRecords {
    unsigned* ticket;   // next ticket to hand out (zeroed)
    unsigned* state;    // [tiles] TileState (zeroed)
    A* row_sum;         // [tiles][R] sum of each tile row                        (R of the paper)
    A* row_prefix;      // [tiles][R] sum of each row from column 0 to the tile's right edge
    A* col_sum;         // [tiles][C] sum of each tile column                     (C of the paper)
    A* col_prefix;      // [tiles][C] sum of each column from row 0 to the tile's bottom edge
    A* left_sum;        // [tiles] sum of the tile's rows left of the tile
    A* corner_prefix;   // [tiles] sum of all rows up to the tile's bottom, left of the tile
    A* tile_sum;        // [tiles] sum of the whole tile (Geometry::aggregates_only)
    // Geometry::aggregates_only, which publishes no prefixes: the last tile of each group of
    // aggregate_group_rows tile rows publishes its group's sums in the prefixes' place (satlib.cu).
    A* group_col_sum;   // [tiles][C] each column summed over the tile's group (col_prefix's place)
    A* group_tile_sum;  // [tiles] the whole tiles of the tile's group column (corner_prefix's place)

    __device__ TileFlags flags(int* status) const { return TileFlags{state, status}; }
};

struct Geometry {
    int rows, cols;                   // of one image
    std::size_t in_pitch, out_pitch;  // elements
    std::size_t sq_pitch;             // of the squared table (Tables::both)
    int tiles_x, tiles_y;             // of one image
    unsigned tiles;                   // of the launch: tiles_x * tiles_y * images
    std::size_t in_batch_stride, out_batch_stride;  // elements between images (Batched only)
    std::size_t sq_batch_stride;
    // One round of few tiles (satlib.cu, takes_aggregates_only): each tile adds up the
    // aggregates of every tile left of it and above it (sum_aggregates) instead of looking back,
    // the tiles above in groups of group_rows tile rows.
    bool aggregates_only;
    int group_rows;
};

enum class Tables { sums, squares, both };

// ---- memory access helpers -------------------------------------------------------------------

// Scanned values written back over their input (same size only: f32, f64, i32).
__device__ __forceinline__ void store_smem(float* p, const float (&x)[4]) {
    *reinterpret_cast<float4*>(p) = make_float4(x[0], x[1], x[2], x[3]);
}
__device__ __forceinline__ void store_smem(double* p, const double (&x)[2]) {
    *reinterpret_cast<double2*>(p) = make_double2(x[0], x[1]);
}
__device__ __forceinline__ void store_smem(int32_t* p, const uint32_t (&x)[4]) {
    *reinterpret_cast<uint4*>(p) = make_uint4(x[0], x[1], x[2], x[3]);
}
__device__ __forceinline__ void store_smem(uint8_t*, const uint32_t (&)[4]) {}  // not used

// Loads for the pairs whose input is narrower than the output (u8 -> f32, u16 -> f64,
// f32 -> f64): one 4- or 8-byte load widened to V accumulators. Non-templates, so they are
// chosen over sat::load_vec / sat::load_smem for these pairs.
__device__ __forceinline__ void widen_u8(unsigned b, float (&x)[4]) {
    x[0] = float(b & 0xffu), x[1] = float((b >> 8) & 0xffu), x[2] = float((b >> 16) & 0xffu), x[3] = float(b >> 24);
}
__device__ __forceinline__ void widen_u16(unsigned b, double (&x)[2]) { x[0] = double(b & 0xffffu), x[1] = double(b >> 16); }
__device__ __forceinline__ void widen_f32(float2 b, double (&x)[2]) { x[0] = double(b.x), x[1] = double(b.y); }
__device__ __forceinline__ void load_vec(const uint8_t* p, float (&x)[4]) { widen_u8(__ldg(reinterpret_cast<const unsigned*>(p)), x); }
__device__ __forceinline__ void load_vec(const uint16_t* p, double (&x)[2]) { widen_u16(__ldg(reinterpret_cast<const unsigned*>(p)), x); }
__device__ __forceinline__ void load_vec(const float* p, double (&x)[2]) { widen_f32(__ldg(reinterpret_cast<const float2*>(p)), x); }
__device__ __forceinline__ void load_smem(const uint8_t* p, float (&x)[4]) { widen_u8(*reinterpret_cast<const unsigned*>(p), x); }
__device__ __forceinline__ void load_smem(const uint16_t* p, double (&x)[2]) { widen_u16(*reinterpret_cast<const unsigned*>(p), x); }
__device__ __forceinline__ void load_smem(const float* p, double (&x)[2]) { widen_f32(*reinterpret_cast<const float2*>(p), x); }

// cp.async of one thread's row piece: 16 bytes, or 4 (u8, u16) or 8 (f32 -> f64); `bytes` < `size`
// zero-fills the rest. load_tile passes `size` or 0: a piece that the matrix edge cuts goes element
// by element, since memcheck counts a cp.async with fewer source bytes as a read of the whole
// piece, past an input that ends inside it.
__device__ __forceinline__ void cp_async(void* smem, const void* gmem, int bytes, int size) {
    if (size == 8) {
        const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(s), "l"(gmem), "r"(bytes) : "memory");
    } else {
        sat::cp_async(smem, gmem, bytes, size);
    }
}

// The squared-sum table: each input value squared as it is loaded (`square` is a constant
// false in the launches that write the sums only).
template <class A, int V>
__device__ __forceinline__ void square_if(bool square, A (&x)[V]) {
    if (square) {
#pragma unroll
        for (int v = 0; v < V; ++v) x[v] *= x[v];
    }
}

// Shared-memory part of a tile: RS rows x C columns of In, row-major; in place of f32/f64/i32
// rows, the scan writes the local row prefixes back; narrower inputs (u8, u16, f32 -> f64) stay
// raw and `offsets` keeps each thread's prefix of the columns left of it instead.
template <class In, class A>
struct SmemTile {
    In* rows;     // [RS][C]
    A* offsets;   // [RS][threads of the block] (narrower inputs only)
};
template <class In, class A>
__host__ __device__ constexpr bool scan_in_place() { return sizeof(In) == sizeof(A); }

// How a kernel moves a row's pieces between global memory and the threads (each thread owns V
// adjacent columns of the tile). Rows that start on a whole piece (base pointers, pitches and
// batch strides checked on the host): 16-byte `vectors`. Others: `lanes` in LanesTileShape's tiles,
// whose launches run many rounds of tiles, where the bytes per access count, and in
// ShortTileShape's (H200, 1921x1081 against the small tiles' time: f32 0.85, 0.89 with
// `elements`; i32 0.83, u8 -> i32 0.89, u8 -> f32 0.92, f64 0.85, u16 -> f64 0.88, f32 -> f64 0.82-0.83)
// and TallSmallTileShape's (as the short tiles' 128-thread blocks; not measured against `elements`)
// and WideThinTileShape's (as LanesTileShape's 256-thread blocks);
// `elements` in SmallTileShape's (calls of less than a round, where each step's latency counts;
// f64 batches and squares) (docs/tiles.md, Rows that do not start on a whole piece).
enum class Access {
    vectors,   // one 16-byte access per piece; the piece that the right edge cuts, element by element
    elements,  // each thread its own V elements: each access of a warp spans 32 V elements
    lanes,     // the shared-memory rows and every store: lane l takes columns l, l + 32, ... of its
               // warp's 32 V columns, so each access of a warp covers 32 adjacent elements
               // (a bounds test per element only where a warp's columns or row are not wholly
               // inside the matrix); the register rows element by element
};
template <class In, class A, class S, bool Vec>
constexpr Access access_of() {
    if (Vec) return Access::vectors;
    return std::is_same_v<S, SmallTileShape<In, A>> ? Access::elements : Access::lanes;
}

// Load the thread's V columns [c, c + V) of the tile's rows; outside the matrix reads 0.
// Rows [0, RR) go to registers (all loads in flight before any use), rows [RR, R) to shared
// memory: by cp.async (in flight at the same time, holding no registers), except the element
// loops of Access::elements and the piece that the right edge cuts, and u8 and u16 inputs in
// Access::lanes, which copy through registers (cp.async moves 4, 8 or 16 bytes). Access::lanes
// copies each element of the warp's shared-memory rows to its own place, lane by lane.
template <class S, class In, class A, int V, Access X>
__device__ __forceinline__ void load_tile(const In* in, const Geometry& g, int i0, int c, bool square,
                                          A (&x)[S::RR][V], SmemTile<In, A> sm) {
    constexpr int RR = S::RR, RS = S::RS;
#pragma unroll
    for (int r = 0; r < RR; ++r) {
        const int i = i0 + r;
#pragma unroll
        for (int v = 0; v < V; ++v) x[r][v] = A(0);
        if (i >= g.rows || c >= g.cols) continue;
        const In* row = in + std::size_t(i) * g.in_pitch + c;
        if (X == Access::vectors && c + V <= g.cols) {
            load_vec(row, x[r]);
        } else {
#pragma unroll
            for (int v = 0; v < V; ++v)
                if (c + v < g.cols) x[r][v] = A(row[v]);
        }
        square_if(square, x[r]);
    }
    constexpr int C = S::threads * V;
    In* dst = sm.rows + threadIdx.x * V;
    if constexpr (X == Access::lanes) {  // each element to its own place (4- and 8-byte inputs by cp.async)
        const int lane = threadIdx.x & 31;
        const int warp_c = c - lane * V;  // the first of the warp's 32 V columns
        In* warp_dst = dst - lane * V;
        const bool warp_inside = warp_c + 32 * V <= g.cols;  // no bounds test per element
        if constexpr (sizeof(In) < 4) {
            // Where the warp and all RS rows lie inside the matrix: no test per row, and a group
            // of rows is loaded before any of it is stored (u8: 7 rows, 28 loads of a lane in
            // flight). In the loop below each row's stores wait for its own loads, one round trip
            // a row (docs/tiles.md, u8 and u16 shared-memory rows loaded a group at a time).
            // 7 rows for u8's RS = 28, 4 for u16's 16; other RS (lab 9's tile sweeps) a divisor.
            constexpr int group = RS % 7 == 0 ? 7 : RS % 4 == 0 ? 4 : RS % 2 == 0 ? 2 : 1;
            if (warp_inside && i0 + RR + RS <= g.rows) {
                const In* src = in + std::size_t(i0 + RR) * g.in_pitch + warp_c + lane;
                In* d = warp_dst + lane;
#pragma unroll 1
                for (int r0 = 0; r0 < RS; r0 += group) {
                    In staged[group][V];
#pragma unroll
                    for (int r = 0; r < group; ++r)
#pragma unroll
                        for (int j = 0; j < V; ++j) staged[r][j] = src[std::size_t(r0 + r) * g.in_pitch + 32 * j];
#pragma unroll
                    for (int r = 0; r < group; ++r)
#pragma unroll
                        for (int j = 0; j < V; ++j) d[std::size_t(r0 + r) * C + 32 * j] = staged[r][j];
                }
                cp_async_commit();  // as every path of load_tile ends (an empty group here)
                return;
            }
        }
#pragma unroll 4
        for (int r = 0; r < RS; ++r) {
            const int i = i0 + RR + r;
            if (warp_inside && i < g.rows) {
                const In* src = in + std::size_t(i) * g.in_pitch + warp_c + lane;
                In* d = warp_dst + std::size_t(r) * C + lane;
#pragma unroll
                for (int j = 0; j < V; ++j) {
                    if constexpr (sizeof(In) >= 4)
                        cp_async(d + 32 * j, src + 32 * j, int(sizeof(In)), int(sizeof(In)));
                    else
                        d[32 * j] = src[32 * j];
                }
                continue;
            }
            const In* row = in + (i < g.rows ? std::size_t(i) * g.in_pitch : 0);
#pragma unroll
            for (int j = 0; j < V; ++j) {
                const int col = warp_c + 32 * j + lane;
                const bool inside = i < g.rows && col < g.cols;
                In* d = warp_dst + std::size_t(r) * C + 32 * j + lane;
                if constexpr (sizeof(In) >= 4)
                    cp_async(d, inside ? row + col : in, inside ? int(sizeof(In)) : 0, int(sizeof(In)));
                else
                    *d = inside ? row[col] : In(0);
            }
        }
    } else if (X == Access::vectors && (c >= g.cols || c + V <= g.cols)) {
        // Whole pieces, or 0 bytes (rows or pieces past the matrix). Only the thread whose piece the
        // right edge cuts (one in the last tile of a tile row) takes the element loop below: its warp
        // diverges once per tile.
#pragma unroll 4
        for (int r = 0; r < RS; ++r) {
            const int i = i0 + RR + r;
            const bool inside = i < g.rows && c < g.cols;
            const In* row = in + (inside ? std::size_t(i) * g.in_pitch + c : 0);
            cp_async(dst + std::size_t(r) * C, row, inside ? V * int(sizeof(In)) : 0, V * int(sizeof(In)));
        }
    } else {  // element by element: the piece that the right edge cuts, or every piece (Access::elements)
#pragma unroll 4
        for (int r = 0; r < RS; ++r) {
            const int i = i0 + RR + r;
            const bool inside = i < g.rows && c < g.cols;
            const In* row = in + (inside ? std::size_t(i) * g.in_pitch + c : 0);
#pragma unroll
            for (int v = 0; v < V; ++v) dst[std::size_t(r) * C + v] = (inside && c + v < g.cols) ? row[v] : In(0);
        }
    }
    cp_async_commit();
}

// Access::lanes: the warp's stage (32 V values in shared memory) turns the threads' pieces of a
// row into lanes: x[j] becomes column 32 j + lane of the warp's 32 V columns.
template <class A, int V>
__device__ __forceinline__ void piece_to_lanes(A (&x)[V], A* stage) {
    static_assert(sizeof(A) * V == 16, "a piece is one 16-byte vector");
    const int lane = threadIdx.x & 31;
    uint4 piece;
    memcpy(&piece, &x, sizeof piece);
    *reinterpret_cast<uint4*>(stage + lane * V) = piece;
    __syncwarp();
#pragma unroll
    for (int j = 0; j < V; ++j) x[j] = stage[32 * j + lane];
    __syncwarp();  // the stage is written again by the next row
}

// ptxas may regroup integer sums (float sums it may not). Given x = p + before, it may keep p and
// before apart until the write-out, to fold them into the three-input adds (IADD3) there: a
// register more per row, and i32's 16 register rows would spill (73521d0's: 4-64 bytes). An
// identity byte permute, which ptxas (CUDA 13.0) does not look through, holds the sum as one value
// (docs/tiles.md, *Integer register rows held whole*; lib/tests/kernel_spills.py checks it).
template <class A>
__device__ __forceinline__ A held_whole(A value) {
    if constexpr (std::is_integral_v<A> && sizeof(A) == 4) return A(__byte_perm(unsigned(value), 0u, 0x3210u));
    else return value;
}

// Local SAT pieces of the tile: col[v] = sum of the thread's column v over the tile (C of the
// paper); x[r][v] becomes the prefix of row r from the left edge of the thread's warp;
// shared-memory rows the same (or their offsets, for narrower inputs); s_warps_left[w][r] = the
// sum of row r over the warps left of warp w; s_row_sum[r] = sum of tile row r (R of the paper).
template <class S, class In, class A, int V, Access X>
__device__ __forceinline__ void local_tile_scan(bool square, A (&x)[S::RR][V], SmemTile<In, A> sm,
                                                A (&col)[V], A (*s_warp_total)[S::R],
                                                A (*s_warps_left)[S::R], A* s_row_sum) {
    constexpr int RR = S::RR, RS = S::RS, R = S::R;
    constexpr int C = S::threads * V;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int r = 0; r < RR; ++r)
#pragma unroll
        for (int v = 0; v < V; ++v) col[v] += x[r][v];
#pragma unroll
    for (int r = 0; r < RR; ++r) {
#pragma unroll
        for (int v = 1; v < V; ++v) x[r][v] += x[r][v - 1];
        const A inclusive = warp_inclusive_scan(x[r][V - 1], lane);
        const A before = warp_exclusive(inclusive, lane);  // lanes to the left in this warp
#pragma unroll
        for (int v = 0; v < V; ++v) x[r][v] = held_whole(x[r][v] + before);
        if (lane == 31) s_warp_total[warp][r] = inclusive;
    }
    cp_async_wait_all();  // this thread's own shared-memory rows have landed
    if constexpr (X == Access::lanes) __syncwarp();  // and those of the warp's other lanes
    for (int r = 0; r < RS; ++r) {
        In* p = sm.rows + std::size_t(r) * C + threadIdx.x * V;
        A y[V];
        load_smem(p, y);
        square_if(square, y);
#pragma unroll
        for (int v = 0; v < V; ++v) col[v] += y[v];
#pragma unroll
        for (int v = 1; v < V; ++v) y[v] += y[v - 1];
        const A inclusive = warp_inclusive_scan(y[V - 1], lane);
        const A before = warp_exclusive(inclusive, lane);
        if constexpr (scan_in_place<In, A>()) {
#pragma unroll
            for (int v = 0; v < V; ++v) y[v] += before;
            store_smem(p, y);
        } else {
            sm.offsets[r * S::threads + threadIdx.x] = before;
        }
        if (lane == 31) s_warp_total[warp][RR + r] = inclusive;
    }
    __syncthreads();
    // One thread per row adds up the warps' totals into the row's sum R, keeping the running
    // total before each warp for write_tile: it then reads one value per row, not one per warp.
    if (threadIdx.x < R) {
        A total = 0;
#pragma unroll
        for (int w2 = 0; w2 < S::warps; ++w2) {
            s_warps_left[w2][threadIdx.x] = total;
            total += s_warp_total[w2][threadIdx.x];
        }
        s_row_sum[threadIdx.x] = total;
    }
}

// One warp: the sum of each of the tile's R rows left of the tile (row carry). Look back along
// the tile row, 32 tiles per window (lane k watches tile tx-1-k): wait until each has published
// at least its row sums, add row sums up to the nearest tile that published row prefixes, add
// those, stop. Publishes this tile's row_prefix and left_sum (state row_done; done for the top
// strip, whose column prefixes are its column sums). Returns false on a spin timeout.
template <int R, class A>
__device__ bool row_look_back(const TileRecords<A>& rec, const Geometry& g, int batch_ty, int tx,
                              bool top_strip, const A* s_row_sum, A* s_row_carry, A* s_left_sum,
                              int* status) {
    constexpr int Q = (R + 31) / 32;  // rows per lane: lane, lane + 32, ... (those below R)
    const int lane = threadIdx.x & 31;
    const std::size_t strip = std::size_t(batch_ty) * g.tiles_x;  // tile row over the batch
    A carry[Q];
#pragma unroll
    for (int q = 0; q < Q; ++q) carry[q] = 0;
    for (int left = tx - 1;; left -= 32) {
        const int b = left - lane;
        unsigned st = row_done;  // left of column 0: nothing to add, stop there
        bool ok = true;
        if (b >= 0) {
            const unsigned* flag = rec.state + strip + b;
            ok = sat::bounded_spin([&] { return (st = load_acquire(flag)) != invalid; }, status);
        }
        if (!__all_sync(full_mask, ok)) return false;
        const unsigned has_prefix = __ballot_sync(full_mask, st >= row_done);
        const int depth = has_prefix ? __ffs(has_prefix) : 32;  // tiles to add in this window
        __syncwarp();  // orders the sums below after the flags other lanes acquired
#pragma unroll 2
        for (int k = 0; k < depth; ++k) {
            if (left - k < 0) break;
            const std::size_t t = strip + (left - k);
            const A* src = ((has_prefix && k == depth - 1) ? rec.row_prefix : rec.row_sum) + t * R;
#pragma unroll
            for (int q = 0; q < Q; ++q)
                if (R % 32 == 0 || lane + 32 * q < R) carry[q] += __ldcg(src + lane + 32 * q);
        }
        if (has_prefix) break;
    }
    const std::size_t t = std::size_t(batch_ty) * g.tiles_x + tx;
    A mine = 0;
#pragma unroll
    for (int q = 0; q < Q; ++q) {
        const int r = lane + 32 * q;
        if (R % 32 != 0 && r >= R) continue;
        s_row_carry[r] = carry[q];
        __stcg(rec.row_prefix + t * R + r, A(carry[q] + s_row_sum[r]));
        mine += carry[q];
    }
    const A left_sum = warp_sum(mine);
    if (lane == 0) {
        *s_left_sum = left_sum;
        __stcg(rec.left_sum + t, left_sum);
        if (top_strip) __stcg(rec.corner_prefix + t, left_sum);
    }
    __syncwarp();
    if (lane == 0) publish_state(rec.state + t, top_strip ? done : row_done);
    return true;
}

// Result of examining one window of 32 tiles above (one warp decides, the block adds).
template <class A>
struct ColumnWindow {
    int depth;       // tiles to add, starting with the one just above; -1: spin timeout
    bool found;      // the last of them published its prefixes: the look-back ends
    A corner_part;   // their left sums (and the last one's corner prefix) added up
};

// One warp: examine tiles `above`, above-1, ..., above-31 of tile column tx. Waits until each
// has published at least row_done (its column sums and left sum), then finds the nearest that
// is done. Rows above `first_row` (the image's top tile row) count as done with zero sums.
template <class A>
__device__ ColumnWindow<A> column_window(const TileRecords<A>& rec, const Geometry& g, int above,
                                         int first_row, int tx, int* status) {
    ColumnWindow<A> win{0, true, A(0)};
    const int lane = threadIdx.x & 31;
    const int a = above - lane;
    unsigned st = done;
    bool ok = true;
    const std::size_t t = std::size_t(a) * g.tiles_x + tx;
    if (a >= first_row) ok = sat::bounded_spin([&] { return (st = load_acquire(rec.state + t)) >= row_done; }, status);
    ok = __all_sync(full_mask, ok);
    const unsigned found = __ballot_sync(full_mask, st == done);
    win.depth = ok ? (found ? __ffs(found) : 32) : -1;
    win.found = found != 0;
    A part = 0;
    if (ok && a >= first_row && lane < win.depth) part = __ldcg((st == done ? rec.corner_prefix : rec.left_sum) + t);
    win.corner_part = warp_sum(part);
    return win;
}

// Geometry::aggregates_only: a launch of one round (a block per ticket) of few tiles. Every tile
// this one needs holds a ticket already, so rather than chain prefixes (row_look_back, then the
// column windows, which wait for the look-backs of the tiles above), the block adds up their
// aggregates from L2: the row sums of the tiles to its left (its row carries, a thread a row), the
// column sums of the tiles above (its column carries, every thread) and the whole sums of the
// tiles above-left (the corner, the last warp). The tiles above come in groups of G = g.group_rows
// tile rows of the image: the tiles of its own group one by one (at `partial`), the groups above
// through the sums their last tiles publish (at `done`), so a tile adds at most
// G - 1 + (tiles_y - 1) / G column sums a thread instead of tiles_y - 1 (G <= 33: the group's
// last tile reads its group's whole sums a lane each). Returns false on a spin timeout (the same
// answer in every thread).
template <class S, class A, int V>
__device__ bool sum_aggregates(const TileRecords<A>& rec, const Geometry& g, int batch_ty, int first_row, int tx,
                               const A (&col)[V], const A* s_row_sum, A* s_row_carry, A* s_corner, A (&carry)[V],
                               int* status) {
    constexpr int R = S::R, C = S::threads * V;
    const int G = g.group_rows;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const TileFlags flags = rec.flags(status);
    auto tile_at = [&](int row, int col_of_tiles) { return std::size_t(row) * g.tiles_x + col_of_tiles; };
    const int ty = batch_ty - first_row;               // tile row within the image
    const int groups_above = ty / G;                   // whole groups above this tile's group
    const int group_top = first_row + groups_above * G;
    const int in_group = batch_ty - group_top;         // tile rows of its group above this tile
    auto group_last_row = [&](int j) { return first_row + j * G + G - 1; };

    // The tiles of the group's rows above this one and of its own row, columns 0..tx, row-major
    // but this one (the last): a thread a tile, then the next.
    const int waited = (in_group + 1) * (tx + 1) - 1;
    bool ok = true;
    for (int k = tid; ok && k < waited; k += S::threads)
        ok = flags.wait(tile_at(group_top + k / (tx + 1), k % (tx + 1)), partial) != invalid;
    if (__syncthreads_or(!ok)) return false;  // orders every read below after the flags acquired
    // Each an L2 round trip: 4 in flight a thread, and 2 for the groups' sums at the end (6 here, or
    // more than 2 there, spill in some small-tile kernels).
#pragma unroll 4
    for (int row = group_top; row < batch_ty; ++row) add_published(rec.col_sum + tile_at(row, tx) * C + tid * V, carry);
    if (in_group == G - 1) {  // the group's last tile: its sums, for the tiles below (state done)
        A group_sum[V];
#pragma unroll
        for (int v = 0; v < V; ++v) group_sum[v] = carry[v] + col[v];
        publish(rec.group_col_sum + tile_at(batch_ty, tx) * C + tid * V, group_sum);
        if (warp == 0) {
            A part = lane < in_group ? __ldcg(rec.tile_sum + tile_at(group_top + lane, tx)) : A(0);
            for (int r = lane; r < R; r += 32) part += s_row_sum[r];
            part = warp_sum(part);
            if (lane == 0) __stcg(rec.group_tile_sum + tile_at(batch_ty, tx), part);
        }
        __syncthreads();  // the release below covers every thread's sums
        if (tid == 0) flags.publish(tile_at(batch_ty, tx), done);
    }
    // The last tiles of the groups above, columns 0..tx.
    for (int k = tid; ok && k < groups_above * (tx + 1); k += S::threads)
        ok = flags.wait(tile_at(group_last_row(k / (tx + 1)), k % (tx + 1)), done) != invalid;
    if (__syncthreads_or(!ok)) return false;
    // The row carries, a thread a row (rows 32 and 33 of a 34-row tile do not wait behind rows 0
    // and 1 in one warp), loads in flight; the corner on the last warp.
    constexpr int corner_warp = S::warps - 1;
    static_assert(R <= corner_warp * 32, "the row carries' threads and the corner's warp (compiles_aggregates_only)");
    if (tid < R) {
        const A* row_sums = rec.row_sum + tile_at(batch_ty, 0) * R + tid;  // tile 0 of the row, row tid
        A sum = 0;
#pragma unroll 4
        for (int left = 0; left < tx; ++left) sum += __ldcg(row_sums + std::size_t(left) * R);
        s_row_carry[tid] = sum;
    }
    if (warp == corner_warp) {  // the corner: the groups above, then the tiles of this one
        A part = 0;
#pragma unroll 2
        for (int k = lane; k < (groups_above + in_group) * tx; k += 32) {
            const int q = k / tx, left = k % tx;
            part += __ldcg(q < groups_above ? rec.group_tile_sum + tile_at(group_last_row(q), left)
                                            : rec.tile_sum + tile_at(group_top + q - groups_above, left));
        }
        part = warp_sum(part);
        if (lane == 0) *s_corner = part;
    }
#pragma unroll 2
    for (int j = 0; j < groups_above; ++j)
        add_published(rec.group_col_sum + tile_at(group_last_row(j), tx) * C + tid * V, carry);
    __syncthreads();  // s_row_carry, s_corner
    return true;
}

// at: &out(i, c), where this thread's columns of row i start (write_tile forms it).
template <class Out, class A, int V, Access X>
__device__ __forceinline__ void store_row(Out* at, const Geometry& g, int i, int c, const A (&acc)[V]) {
    if (i >= g.rows || c >= g.cols) return;
    if (X == Access::vectors && c + V <= g.cols) {
        store_vec(at, acc);
    } else {
#pragma unroll
        for (int v = 0; v < V; ++v)
            if (c + v < g.cols) at[v] = Out(acc[v]);
    }
}

// A row of the warp's pieces, stored lane by lane (Access::lanes). Every lane of the warp calls
// it (the stage's __syncwarp), rows past the matrix too.
template <class Out, class A, int V>
__device__ __forceinline__ void store_row_lanes(Out* at, const Geometry& g, int i, int c, const A (&acc)[V],
                                                A* stage) {
    const int lane = threadIdx.x & 31;
    const int warp_c = c - lane * V;
    A by_lane[V];
#pragma unroll
    for (int v = 0; v < V; ++v) by_lane[v] = acc[v];
    piece_to_lanes(by_lane, stage);  // by_lane[j]: column warp_c + 32 j + lane
    if (i >= g.rows) return;
    Out* dst = at - lane * V + lane;  // out(i, warp_c + lane)
    if (warp_c + 32 * V <= g.cols) {  // the warp wholly inside: no bounds test per element
#pragma unroll
        for (int j = 0; j < V; ++j) __stcs(dst + 32 * j, Out(by_lane[j]));
        return;
    }
#pragma unroll
    for (int j = 0; j < V; ++j)
        if (warp_c + 32 * j + lane < g.cols) __stcs(dst + 32 * j, Out(by_lane[j]));
}

// Add the carries to the local SAT and write the tile: out(i, c) = top(c) + sum over the tile
// rows r' <= r of (row carry r' + local row prefix (r', c)), where top(c) = SAT of the row above
// the tile = corner + prefix of the column carries, and the local row prefix is the warps to the
// left (s_warps_left) + the prefix within the warp (x, or the shared-memory row).
template <class S, class In, class Out, class A, int V, Access X>
__device__ __forceinline__ void write_tile(Out* out, std::size_t pitch, const Geometry& g, int i0, int c, bool square,
                                           const A (&top)[V], const A (&x)[S::RR][V], SmemTile<In, A> sm,
                                           const A (*s_warps_left)[S::R], const A* s_row_carry, A* stage) {
    constexpr int RR = S::RR, RS = S::RS;
    constexpr int C = S::threads * V;
    const A* warps_left = s_warps_left[threadIdx.x >> 5];  // [r]: row r over the warps left of this one
    A acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = top[v];
#pragma unroll
    for (int r = 0; r < RR; ++r) {
        const A carry = s_row_carry[r] + warps_left[r];
#pragma unroll
        for (int v = 0; v < V; ++v) acc[v] += carry + x[r][v];
        Out* at = out + std::size_t(i0 + r) * pitch + c;  // per row: a pointer held across x's rows spills
        if constexpr (X == Access::lanes) store_row_lanes<Out, A, V>(at, g, i0 + r, c, acc, stage);
        else store_row<Out, A, V, X>(at, g, i0 + r, c, acc);
    }
    // The shared-memory rows' &out(i, c), stepped by the pitch instead of a 64-bit multiply-add a row
    // (u8 -> i32: 3 % fewer instructions, 8 % in a batch); x is dead here, so the pointer spills nothing.
    Out* at = out + std::size_t(i0 + RR) * pitch + c;
#pragma unroll 2
    for (int r = 0; r < RS; ++r) {
        A y[V];
        load_smem(sm.rows + std::size_t(r) * C + threadIdx.x * V, y);
        A carry = s_row_carry[RR + r] + warps_left[RR + r];
        if constexpr (!scan_in_place<In, A>()) {  // narrow input: raw values, prefix them now
            square_if(square, y);
#pragma unroll
            for (int v = 1; v < V; ++v) y[v] += y[v - 1];
            carry += sm.offsets[r * S::threads + threadIdx.x];
        }
#pragma unroll
        for (int v = 0; v < V; ++v) acc[v] += carry + y[v];
        if constexpr (X == Access::lanes) store_row_lanes<Out, A, V>(at, g, i0 + RR + r, c, acc, stage);
        else store_row<Out, A, V, X>(at, g, i0 + RR + r, c, acc);
        at += pitch;
    }
}

// Warm L2 with a tile before its block loads it: one bulk prefetch per tile row (Hopper's
// cp.async.bulk.prefetch; a hint, so the row is trimmed to whole aligned 16-byte pieces). Inside
// the tile loop only the first rows: what every resident block prefetches must stay well inside
// L2 (50 MB on an H100 or H200, which the writes pass through too). The first round's tiles,
// warmed before any output is written, take all R rows (up to 41 MiB for f32: 264 tiles of 160 KiB).
#ifndef LAB9_PREFETCH_MB
#define LAB9_PREFETCH_MB 24
#endif
template <class S, class In, int V>
constexpr int prefetch_rows() {
    constexpr long long row_bytes = (long long)S::threads * V * sizeof(In);
    constexpr long long rows = (LAB9_PREFETCH_MB << 20) / (132LL * S::min_blocks * row_bytes);
    return rows < S::R ? int(rows) : S::R;
}
template <class S, class In, int V>
__device__ __forceinline__ void prefetch_tile_l2(const In* in, const Geometry& g, int i0, int col0, int rows) {
#if __CUDA_ARCH__ >= 900
    // Row r from lane r / warps of warp r % warps: every warp issues a few rows, rather than
    // warp 0 (the first ticket, the row look-back) all of them (docs/tiles.md, Spread over the warps).
    constexpr int warps = S::threads / 32;
    const int r = int(threadIdx.x % 32) * warps + int(threadIdx.x / 32);
    const int i = i0 + r;
    if (r >= rows || i >= g.rows || col0 >= g.cols) return;
    const char* first = reinterpret_cast<const char*>(in + std::size_t(i) * g.in_pitch + col0);
    const char* last = first + std::size_t(min(S::threads * V, g.cols - col0)) * sizeof(In);
    const std::uintptr_t a = (reinterpret_cast<std::uintptr_t>(first) + 15) & ~std::uintptr_t(15);
    const std::uintptr_t b = reinterpret_cast<std::uintptr_t>(last) & ~std::uintptr_t(15);
    if (b > a)
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(a), "r"(unsigned(b - a)) : "memory");
#endif
}

template <class In, class Out, class S>
constexpr std::size_t smem_bytes() {
    using A = sat::Acc<Out>;
    constexpr int C = S::threads * vec_of<Out>();
    constexpr int RS = S::RS;
    return std::size_t(RS) * C * sizeof(In) +
           (scan_in_place<In, A>() ? 0 : std::size_t(RS) * S::threads * sizeof(A));
}

// Tile stamps (a measurement build only: bench_tile_times, compiled with -DSATLIB_TILE_STAMPS):
// `trace` then holds tile_stamps %globaltimer stamps per ticket, in the order of TileStamp, instead
// of the 32 x 32 pieces' stamps; one thread of the block writes each.
enum TileStamp {
    stamp_ticket,       // taken (a block's later tickets: before it writes out the tile before)
    stamp_scanned,      // thread 0, after the barrier that ends the local scan
    stamp_partial,      // the releasing thread, after releasing partial
    stamp_row_done,     // lane 0 of warp 0, after its row look-back (the left edge: with partial;
                        // aggregates_only: thread 0 too, when sum_aggregates has every carry)
    stamp_carries,      // thread 0, after its own adds of the column sums (no barrier after it)
    stamp_done,         // the releasing thread, after releasing done (aggregates_only: where a look-back would)
    stamp_written,      // thread 0, its stores issued
    stamp_block_start,  // a block of the first round starts (thread 0)
    stamp_prefetched,   // the first round: thread 0, its L2 prefetch of the tile issued
    stamp_flags_clear,  // the first round: thread 0, past the wait for the kernel that clears the flags
    stamp_loads_start,  // thread 0, the top of the tile loop (after the barrier that ends the write-out before)
    tile_stamps
};
#ifdef SATLIB_TILE_STAMPS
constexpr bool tile_stamps_on = true;
#else
constexpr bool tile_stamps_on = false;
#endif
__device__ __forceinline__ void stamp_tile(unsigned long long* trace, unsigned ticket, TileStamp what) {
    if (tile_stamps_on && trace != nullptr) trace[std::size_t(ticket) * tile_stamps + what] = sat::globaltimer();
}

// Tile delays (a test build only: build/tests/lib_delays, the library compiled with
// -DSATLIB_TILE_DELAYS=ns; mk/lib_delays.mk): every third tile of the hand-out order (a tile's
// sums and squares alike) sleeps before it publishes anything, and the tile after it sleeps after
// its `partial`. That build fills the published sums with 0xff bytes before each launch
// (satlib.cu, scan_shaped), so a tile that read another's records without waiting for the flag
// that covers them would add NaN or a wrong integer, and lib/tests/test_library.cpp's checks fail.
enum TileDelay : unsigned {  // the tile index, modulo 3, that sleeps there
    delay_before_partial = 1,
    delay_after_partial = 2,
};
#ifdef SATLIB_TILE_DELAYS
constexpr unsigned long long tile_delay_ns = SATLIB_TILE_DELAYS;
#else
constexpr unsigned long long tile_delay_ns = 0;
#endif
__device__ __forceinline__ void delay_tile(unsigned tile, TileDelay where) {
    if (tile_delay_ns == 0 || tile % 3 != where) return;
    const unsigned long long until = sat::globaltimer() + tile_delay_ns;
    while (sat::globaltimer() < until) __nanosleep(1000);
}

// The single-pass SAT kernel: a persistent grid of any size; each block takes tickets until
// the tiles run out. Vec: 16-byte accesses are aligned (checked on the host). Batched: several
// images (one image: false). T: the tables it writes (both: the squares into `sq`). S: the tile
// shape (TileShape, LanesTileShape or SmallTileShape of the pair).
template <class In, class Out, class S, bool Vec, Tables T = Tables::sums, bool Batched = false>
__global__ void __launch_bounds__(S::threads, S::min_blocks)
lookback_sat_kernel(const In* in, Out* out, Geometry g, TileRecords<sat::Acc<Out>> rec,
                    int* status, unsigned long long* trace, Out* sq = nullptr) {
    using A = sat::Acc<Out>;
    constexpr int V = vec_of<Out>();
    constexpr int C = S::threads * V;
    constexpr int RR = S::RR, RS = S::RS, R = S::R, warps = S::warps;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    constexpr int poll_warp = warps > 1 ? 1 : 0;  // column window polls while warp 0 looks left
    constexpr int release_thread = (warps - 1) * 32;   // publishes partial and done (row_done: row_look_back;
                                                        // a group's done: thread 0 in sum_aggregates)
    constexpr int ticket_thread = (warps > 2 ? warps - 2 : 0) * 32;  // takes the next ticket

    extern __shared__ __align__(16) unsigned char smem_raw[];
    SmemTile<In, A> sm;
    sm.rows = reinterpret_cast<In*>(smem_raw);
    sm.offsets = reinterpret_cast<A*>(smem_raw + std::size_t(RS) * C * sizeof(In));
    __shared__ unsigned s_ticket;
    __shared__ int s_failed;
    __shared__ A s_warp_total[warps][R];  // per-warp partial row sums (row scans)
    __shared__ A s_warps_left[warps][R];  // [w][r]: row r summed over the warps left of w (write_tile)
    __shared__ A s_row_sum[R];            // this tile's row sums
    __shared__ A s_row_carry[R];          // sums of this tile's rows left of it
    __shared__ A s_left_sum;
    __shared__ A s_corner;                // sum_aggregates' corner
    __shared__ A s_top_total[warps];      // per-warp column-carry totals (top-row scan)
    __shared__ ColumnWindow<A> s_window;
    constexpr Access X = access_of<In, A, S, Vec>();
    constexpr bool staged = X == Access::lanes;  // stores go through the warp's stage
    __shared__ __align__(16) A s_stage[staged ? warps : 1][staged ? 32 * V : 1];  // piece_to_lanes

    constexpr bool both = T == Tables::both;
    const unsigned tickets = both ? 2 * g.tiles : g.tiles;
    const int images = Batched ? int(g.tiles / (unsigned(g.tiles_x) * unsigned(g.tiles_y))) : 1;
    // Where a ticket's tile lies: its tile row over the batch (indexes the records), its tile
    // column, its image, that image's first tile row, and the tile row within the image.
    // (both: odd tickets are the squares.)
    struct Place { int batch_ty, tx, image, first_row, ty; };
    auto place_of = [&](unsigned tk) {
        Place p;
        const unsigned tile = both ? tk >> 1 : tk;         // in hand-out order
        const int band = int(tile / unsigned(g.tiles_x));  // batched: tile row ty of every image, then ty + 1
        p.tx = int(tile % unsigned(g.tiles_x));
        p.image = Batched ? band % images : 0;
        p.ty = Batched ? band / images : band;
        p.first_row = p.image * g.tiles_y;
        p.batch_ty = p.first_row + p.ty;
        return p;
    };
    // Warm L2 with the first `rows` rows of a ticket's tile; a squares ticket (both: the odd
    // ones) reads the input of the sums ticket before it.
    auto prefetch_ticket = [&](unsigned tk, int rows) {
        if (tk >= tickets || (both && (tk & 1u))) return;
        const Place p = place_of(tk);
        prefetch_tile_l2<S, In, V>(Batched ? in + p.image * g.in_batch_stride : in, g, p.ty * R, p.tx * C, rows);
    };
    // The first round's tickets are the block indices, in some order: warm L2 with the whole
    // tile of this block's index while the flags are cleared (only a hint: it reads nothing the
    // kernel before writes), then wait for that kernel (programmatic dependent launch; launched
    // without one, the wait returns at once).
    const unsigned long long block_start = tile_stamps_on ? sat::globaltimer() : 0;
    prefetch_ticket(blockIdx.x, R);
    const unsigned long long prefetched = tile_stamps_on ? sat::globaltimer() : 0;
    wait_for_cleared_flags();
    const unsigned long long flags_clear = tile_stamps_on ? sat::globaltimer() : 0;
    if (tid == 0) {
        s_ticket = atomicAdd(rec.ticket, 1u);
        s_failed = 0;
        if (tile_stamps_on && trace != nullptr && s_ticket < tickets) {
            unsigned long long* first = trace + std::size_t(s_ticket) * tile_stamps;
            first[stamp_block_start] = block_start, first[stamp_prefetched] = prefetched;
            first[stamp_flags_clear] = flags_clear;
            stamp_tile(trace, s_ticket, stamp_ticket);
        }
    }
    __syncthreads();
    unsigned ticket = s_ticket;
    while (ticket < tickets) {
        const bool square = T == Tables::squares || (both && (ticket & 1u));
        const Place here = place_of(ticket);
        int batch_ty = here.batch_ty, first_row = here.first_row;
        const int tx = here.tx, image = here.image, ty = here.ty;
        if (both && square) {  // the squares' records: after the sums' tile rows
            const int sum_rows = int(g.tiles / unsigned(g.tiles_x));
            batch_ty += sum_rows, first_row += sum_rows;
        }
        const In* image_in = Batched ? in + image * g.in_batch_stride : in;
        const int i0 = ty * R, c = tx * C + tid * V;  // this thread: rows i0.., columns c..c+V-1
        const std::size_t t = std::size_t(batch_ty) * g.tiles_x + tx;  // the tile's records
        const bool top_strip = ty == 0, left_edge = tx == 0;

        if (tid == 0) stamp_tile(trace, ticket, stamp_loads_start);
        A x[RR][V];
        load_tile<S, In, A, V, X>(image_in, g, i0, c, square, x, sm);

        // Local SAT of the tile, and its aggregates R and C.
        A col[V];
#pragma unroll
        for (int v = 0; v < V; ++v) col[v] = 0;
        local_tile_scan<S, In, A, V, X>(square, x, sm, col, s_warp_total, s_warps_left, s_row_sum);
        __syncthreads();
        if (tid == 0) stamp_tile(trace, ticket, stamp_scanned);
        delay_tile(both ? ticket >> 1 : ticket, delay_before_partial);

        // Publish the aggregates (state partial). Tiles on the left edge have no row carry, so
        // they publish their row prefixes at once; the top strip has no column carry, so its
        // column sums are its column prefixes.
        // Adding up aggregates, no tile publishes prefixes (the group sums take their place), and
        // the top strip publishes its column sums: sum_aggregates reads col_sum of the tiles above.
        const bool by_aggregates = compiles_aggregates_only<In, A, S>() && g.aggregates_only;
        const bool left_prefixes = left_edge && !by_aggregates;
        publish((top_strip && !by_aggregates ? rec.col_prefix : rec.col_sum) + t * C + tid * V, col);
        if (tid < R) {
            __stcg(rec.row_sum + t * R + tid, s_row_sum[tid]);
            if (left_prefixes) {
                __stcg(rec.row_prefix + t * R + tid, s_row_sum[tid]);
                s_row_carry[tid] = 0;
            }
        }
        if (by_aggregates && warp == 0) {  // the tile's whole sum, for the corners of the tiles below-right
            A part = 0;
            for (int r = lane; r < R; r += 32) part += s_row_sum[r];
            part = warp_sum(part);
            if (lane == 0) __stcg(rec.tile_sum + t, part);
        }
        if (tid == 0 && left_prefixes) {
            s_left_sum = 0;
            __stcg(rec.left_sum + t, A(0));
            if (top_strip) __stcg(rec.corner_prefix + t, A(0));
        }
        __syncthreads();
        // Flags are released by the last warp: a release waits for the block's writes to
        // land, and warps 0 and 1 have look-backs to start.
        if (tid == release_thread) {
            publish_state(rec.state + t, left_prefixes ? (top_strip ? done : row_done) : partial);
            stamp_tile(trace, ticket, stamp_partial);
            if (left_prefixes) stamp_tile(trace, ticket, stamp_row_done);
        }
        delay_tile(both ? ticket >> 1 : ticket, delay_after_partial);

        // Look back: warp 0 along the tile row while warp `poll_warp` examines the first
        // window up the tile column; then the whole block adds the column sums it found.
        if (warp == 0 && !left_edge && !by_aggregates) {
            const bool ok = row_look_back<R>(rec, g, batch_ty, tx, top_strip, s_row_sum, s_row_carry,
                                          &s_left_sum, status);
            if (!ok && lane == 0) s_failed = 1;
            if (lane == 0) stamp_tile(trace, ticket, stamp_row_done);
        }
        A carry[V];  // sum of each of this thread's columns above the tile
        A corner = 0;  // sum of everything above and left of the tile
#pragma unroll
        for (int v = 0; v < V; ++v) carry[v] = 0;
        if (by_aggregates) {
            if constexpr (compiles_aggregates_only<In, A, S>()) {
                if (!sum_aggregates<S, A, V>(rec, g, batch_ty, first_row, tx, col, s_row_sum, s_row_carry, &s_corner,
                                             carry, status))
                    return;  // a spin timed out
                corner = s_corner;
            }
            if (tid == 0) stamp_tile(trace, ticket, stamp_row_done);
        } else if (top_strip) {
            __syncthreads();  // the row look-back's s_row_carry, s_left_sum
            if (s_failed) return;  // a spin timed out: leave, the harness reports it
        } else {
            for (int above = batch_ty - 1;; above -= 32) {
                if (warp == poll_warp) {
                    const ColumnWindow<A> win = column_window(rec, g, above, first_row, tx, status);
                    if (lane == 0) s_window = win;
                }
                __syncthreads();
                const ColumnWindow<A> win = s_window;
                if (s_failed || win.depth < 0) return;  // a spin timed out
                corner += win.corner_part;
#pragma unroll 4
                for (int k = 0; k < win.depth; ++k) {
                    if (above - k < first_row) break;
                    const std::size_t tk = std::size_t(above - k) * g.tiles_x + tx;
                    const A* src = (win.found && k == win.depth - 1) ? rec.col_prefix : rec.col_sum;
                    add_published(src + tk * C + tid * V, carry);
                }
                if (win.found) break;
                __syncthreads();  // s_window is rewritten by the next window
            }
        }

        if (tid == 0) stamp_tile(trace, ticket, stamp_carries);
        // top(c) = corner + prefix of the column carries: the SAT row just above the tile.
        A top[V];
        top[0] = carry[0];
#pragma unroll
        for (int v = 1; v < V; ++v) top[v] = top[v - 1] + carry[v];
        const A top_inclusive = warp_inclusive_scan(top[V - 1], lane);
        const A top_before = warp_exclusive(top_inclusive, lane);
        if (lane == 31) s_top_total[warp] = top_inclusive;
        if (!top_strip && !by_aggregates) {  // publish the column prefixes and the corner (state done)
            A prefix[V];
#pragma unroll
            for (int v = 0; v < V; ++v) prefix[v] = carry[v] + col[v];
            publish(rec.col_prefix + t * C + tid * V, prefix);
            if (tid == 0) __stcg(rec.corner_prefix + t, A(corner + s_left_sum));
        }
        // The next ticket is taken only now, by a thread with nothing to wait for: a ticket
        // taken earlier would sit unstarted while this tile finishes, and the tiles below it
        // would wait for it (a convoy).
        // Every thread has read s_ticket at the top of the loop (barriers since), so it can
        // carry the next ticket now; the next tile's rows are fetched into L2 while this one is
        // written.
        // With a block per tile (one round) the blocks' first atomics hand out every ticket: no
        // block takes another.
        if (tid == ticket_thread) {
            s_ticket = gridDim.x >= tickets ? tickets : atomicAdd(rec.ticket, 1u);
            if (s_ticket < tickets) stamp_tile(trace, s_ticket, stamp_ticket);
        }
        __syncthreads();
        const unsigned next_ticket = s_ticket;
        if (tid == release_thread) {
            if (!top_strip && !by_aggregates) publish_state(rec.state + t, done);
            stamp_tile(trace, ticket, stamp_done);
        }
        prefetch_ticket(next_ticket, prefetch_rows<S, In, V>());
        A before = corner;
#pragma unroll
        for (int w2 = 0; w2 < warps - 1; ++w2)
            if (w2 < warp) before += s_top_total[w2];
#pragma unroll
        for (int v = 0; v < V; ++v) top[v] += top_before + before;

        Out* table = out;
        std::size_t pitch = g.out_pitch, batch_stride = g.out_batch_stride;
        if (both && square) table = sq, pitch = g.sq_pitch, batch_stride = g.sq_batch_stride;
        Out* image_out = Batched ? table + image * batch_stride : table;
        write_tile<S, In, Out, A, V, X>(image_out, pitch, g, i0, c, square, top, x, sm, s_warps_left, s_row_carry,
                                         s_stage[staged ? warp : 0]);
        if (tid == 0) stamp_tile(trace, ticket, stamp_written);
        // A 32 x 32 piece of the trace is stamped by the tile that holds its last row (R need not
        // be a multiple of 32): a piece shared with the tile above is stamped when this tile's
        // stores are issued, which the tile above's may still follow (a stamp of the trace, not a
        // bound).
        if (!tile_stamps_on && !Batched && trace != nullptr && c < g.cols && c % sat::w == 0)
            for (int p = i0 / sat::w; p * sat::w < min(i0 + R, g.rows); ++p)
                if (min(p * sat::w + sat::w, g.rows) - 1 < i0 + R)
                    sat::record_tile(trace, sat::Shape{g.rows, g.cols}, p, c / sat::w);

        __syncthreads();  // the shared-memory rows are read by write_tile before the next load
        ticket = next_ticket;
    }
}


}  // namespace satlib
