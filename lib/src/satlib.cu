// satlib.cu — the SAT library's host side: scratch layout and launch of the look-back kernel
// (lookback_kernel.cuh), the C++ entry points of sat.hpp and the C ABI of satlib.h (batches,
// squared sums, the NPP layout, box filters).
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <type_traits>

#include "device_cache.h"
#include "launch.cuh"
#include "lookback_kernel.cuh"
#include "sat_thin.cuh"
#include "sat.hpp"
#include "satlib.h"
#include "satlib_testing.h"

// mk/lib.mk passes its LIB_VERSION; this fallback serves builds outside make (kept equal to it:
// a [library][cpu] test compares the two).
#ifndef SATLIB_VERSION
#define SATLIB_VERSION "1.1.0"
#endif

namespace satlib {

using sat::Flags;

constexpr std::size_t align_up(std::size_t x, std::size_t a) { return (x + a - 1) / a * a; }
// Elements an image spans from its first one: (rows - 1) * pitch + cols.
inline std::size_t span(std::size_t pitch, int rows, int cols) { return (std::size_t(rows) - 1) * pitch + std::size_t(cols); }

// The images of one call: how many, and where each starts, in elements from the first one.
struct Images {
    int count = 1;
    std::size_t in_stride = 0, out_stride = 0;
    std::size_t sq_stride = 0;  // Tables::both: between the squared tables
};

// Records per tile: one set per table the launch writes.
constexpr int tables_of(Tables T) { return T == Tables::both ? 2 : 1; }

struct Layout {
    Geometry g;
    std::size_t state_bytes, value_bytes;
    std::size_t off_row_sum, off_row_prefix, off_col_sum, off_col_prefix, off_left, off_corner, off_tile_sum;
};

constexpr int state_header_words = 32;  // ticket, internal status; tile states start at 128 B

// The pair's tile shapes: the default one for rows that start on whole 16-byte pieces, the one for
// rows that do not, those for small images (the small tiles, the short ones and the tall small
// ones) and the one for wide thin images of 33 or 34 rows.
template <class In, class Out> using LargeTiles = TileShape<In, sat::Acc<Out>>;
template <class In, class Out> using LanesTiles = LanesTileShape<In, sat::Acc<Out>>;
template <class In, class Out> using SmallTiles = SmallTileShape<In, sat::Acc<Out>>;
template <class In, class Out> using ShortTiles = ShortTileShape<In, sat::Acc<Out>>;  // short_tiles
template <class In, class Out> using TallSmallTiles = TallSmallTileShape<In, sat::Acc<Out>>;  // tall_small_tiles
template <class In, class Out> using WideThinTiles = WideThinTileShape<In, sat::Acc<Out>>;  // wide_thin_tiles

// Tiles of one rows x cols image, in tiles of shape S.
template <class In, class Out, class S = LargeTiles<In, Out>>
std::size_t tiles_per_image(int rows, int cols) {
    constexpr int C = S::threads * vec_of<Out>();
    constexpr int R = S::R;
    return std::size_t((cols + C - 1) / C) * std::size_t((rows + R - 1) / R);
}

// The most images one launch takes. Tickets are 32-bit and tile rows over the batch an int, so
// a launch has at most 2^29 tiles (a thin image has at most twice as many chunks as tiles, and
// the thin kernel's grid is one block per chunk); a batch beyond that takes several launches.
constexpr std::size_t max_launch_tiles = std::size_t(1) << 29;
template <class In, class Out, class S = LargeTiles<In, Out>>
int images_per_launch(int rows, int cols, int batch) {
    const std::size_t fit = std::max<std::size_t>(1, max_launch_tiles / tiles_per_image<In, Out, S>(rows, cols));
    return int(std::min<std::size_t>(std::size_t(batch), fit));
}

// Scratch of one launch of `images` rows x cols images: records for every tile of every image.
template <class In, class Out, class S>
Layout layout_for(int rows, int cols, int images) {
    using A = sat::Acc<Out>;
    constexpr int C = S::threads * vec_of<Out>();
    constexpr int R = S::R;
    Layout L{};
    L.g.rows = rows;
    L.g.cols = cols;
    L.g.tiles_x = (cols + C - 1) / C;
    L.g.tiles_y = (rows + R - 1) / R;
    L.g.tiles = unsigned(tiles_per_image<In, Out, S>(rows, cols) * std::size_t(images));
    const std::size_t tiles = L.g.tiles;
    L.state_bytes = (state_header_words + tiles) * sizeof(unsigned);
    std::size_t off = 0;
    auto take = [&](std::size_t count) {
        const std::size_t at = off;
        off = align_up(off + count * sizeof(A), 256);
        return at;
    };
    L.off_row_sum = take(tiles * R);
    L.off_row_prefix = take(tiles * R);
    L.off_col_sum = take(tiles * C);
    L.off_col_prefix = take(tiles * C);
    L.off_left = take(tiles);
    L.off_corner = take(tiles);
    L.off_tile_sum = take(tiles);
    L.value_bytes = off;
    return L;
}

// Thin matrices (a short side of at most sat::thin::max_width) take the one-dimensional
// look-back of sat_thin.cu: tiles of the 2-D kernel would be mostly empty there, and its scratch
// would outgrow the output. The squared table and the harness's instrumented runs take the 2-D
// kernel.
template <class In, class Out, Tables T>
bool thin_shape(int rows, int cols, const sat::ScanOptions& opt) {
    return T == Tables::sums && opt.grid_blocks == 0 && opt.trace == nullptr && sat::thin::applicable<In, Out>(rows, cols);
}
// But a wide thin image of 24 to 64 rows takes the 2-D tiles of shape S where its rows fill at
// least 60 % of its tile rows and its tiles' records (layout_for) and the thin kernel's scratch
// together stay within 10 % of its output's bytes, the thin shapes' bound (scratch_for sizes for
// both, since the path depends on the pointers too: S is LargeTiles or LanesTiles by whole_pieces,
// or WideThinTiles, wide_thin_tiles).
// H200, against the thin kernel: 33 x 4,000,000 f32 0.80 of the time, u8 -> i32 0.71; 24 rows of
// 40 0.95-0.96, 22 rows 1.04; 33 rows at odd pitches (tiles of 32 rows, the second tile row one row
// full) 1.15 (docs/thin.md, *Wide images of 24 to 64 rows in the 2-D tiles*).
constexpr int wide_tiles_min_rows = 24;
template <class In, class Out, class S>
bool wide_in_tiles(int rows, int cols) {
    if (rows < wide_tiles_min_rows || rows > sat::thin::max_width || rows >= cols) return false;
    const Layout L = layout_for<In, Out, S>(rows, cols, 1);
    if (10 * rows < 6 * S::R * L.g.tiles_y) return false;
    const std::size_t scratch = L.state_bytes + L.value_bytes + sat::thin::scratch_bytes<In, Out>(rows, cols, 1);
    return 10 * scratch <= std::size_t(rows) * std::size_t(cols) * sizeof(Out);
}
// The thin kernel's chunks' scratch for launches of at most `images` images of rows x cols: one
// image may take more chunks than a batch (chunks of which 4 fit an SM: sat_thin.cu, plan_for).
template <class In, class Out>
std::size_t thin_chunks_scratch(int rows, int cols, int images) {
    return std::max(sat::thin::scratch_bytes<In, Out>(rows, cols, images), sat::thin::scratch_bytes<In, Out>(rows, cols, 1));
}
template <class In, class Out, Tables T, class S>
bool takes_thin(int rows, int cols, const sat::ScanOptions& opt) {
    return thin_shape<In, Out, T>(rows, cols, opt) && !wide_in_tiles<In, Out, S>(rows, cols);
}

// Scratch one launch of `batch` images in tiles of shape S needs (launches after the first reuse it).
template <class In, class Out, Tables T, class S>
sat::ScanScratchSize shaped_scratch(int rows, int cols, int batch) {
    const Layout L = layout_for<In, Out, S>(rows, cols, images_per_launch<In, Out, S>(rows, cols, batch) * tables_of(T));
    return {L.state_bytes, L.value_bytes};
}

// Whether a call takes the small images' tiles: with the 256-thread ones it would be less than
// one round of the blocks that fit on a 132-SM GPU (H100, H200; 1920x1080 f32: 54 tiles of 40 x
// 1024 with vector accesses, 68 of 32 x 1024 without, for 132 SMs x 2 blocks), and some SMs would
// have none; or it is one image of sums (not u8's) that is one round of small or tall small tiles
// (small_tiles_past_a_round). A fixed count, not the current device's, so that the scratch a
// caller sizes with scratch_for fits the launch on any device.
constexpr std::size_t reference_sms = 132;
#ifndef LAB9_SMALL_TILE_ROUNDS
#define LAB9_SMALL_TILE_ROUNDS 1  // rounds below which the small tiles are taken (tuning)
#endif
// The f64 accumulator's 256-thread tiles serve one image's sums only: batches, squares and sums
// with squares have not been measured on them against the 128-thread shape, which those launches
// keep (docs/lab9.md).
template <class In, class Out>
constexpr bool large_tiles_for_one_image_sums_only() { return std::is_same_v<sat::Acc<Out>, double>; }
template <class In, class Out, class S>
constexpr bool is_large = std::is_same_v<S, LargeTiles<In, Out>> || std::is_same_v<S, LanesTiles<In, Out>>;

// Whether the pair has tiles of its own for wide thin images (lookback_kernel.cuh,
// WideThinTileShape: 34 rows). Without them no kernel of that shape is compiled.
template <class In, class Out, Tables T>
constexpr bool has_wide_thin_tiles() {
    return !same_shape<WideThinTiles<In, Out>, LargeTiles<In, Out>>() && T == Tables::sums;
}
// Whether they serve the rows of this access (vec: rows on whole pieces): where the 256-thread
// tiles they replace, LargeTiles with vector accesses and LanesTiles without, are shorter (the f64
// accumulator's 32 rows with either; f32's, i32's and u8 -> i32's 32 rows without). Their kernels are
// compiled for these accesses alone (compiled_for).
template <class In, class Out>
constexpr bool wide_thin_serves(bool vec) {
    return (vec ? LargeTiles<In, Out>::R : LanesTiles<In, Out>::R) < WideThinTiles<In, Out>::R;
}
// Whether a call takes them: one wide thin image of sums whose 34-row tiles make fewer tile rows
// than the 32-row ones of its access (33 or 34 rows: one tile row, not two about half full, which
// wide_in_tiles leaves in the chunks), that pass wide_in_tiles, and that are at least a round of
// 256-thread blocks on a 132-SM GPU (fewer stay in the chunks: no small tiles of 34 rows). H200,
// f64 33 x 1,818,176 in tiles of 16 + 18 rows: 0.78 of the chunks' time, 0.75 at odd pitches; the
// shipped 12 + 22 took 1.005 and 0.987 of that (docs/thin.md, *f64 images of 33 and 34 rows in
// tiles of 34*; f32, i32 and u8 at odd pitches: *Images of 33 and 34 rows at odd pitches in tiles
// of 34*).
template <class In, class Out, Tables T>
bool wide_thin_tiles(int rows, int cols, int images, const sat::ScanOptions& opt, bool vec) {
    using S = WideThinTiles<In, Out>;
    if constexpr (!has_wide_thin_tiles<In, Out, T>()) {
        return false;
    } else {
        const int large_rows = vec ? LargeTiles<In, Out>::R : LanesTiles<In, Out>::R;
        return wide_thin_serves<In, Out>(vec) && images == 1 && thin_shape<In, Out, T>(rows, cols, opt) &&
               (rows + S::R - 1) / S::R < (rows + large_rows - 1) / large_rows &&
               tiles_per_image<In, Out, S>(rows, cols) >= reference_sms * S::min_blocks &&
               wide_in_tiles<In, Out, S>(rows, cols);
    }
}

template <class In, class Out, Tables T>
bool small_tiles_past_a_round(int rows, int cols, int images);  // below

// Whether a call that would take the 256-thread tiles of shape Large takes the small ones: less
// than a round of Large, or one image of sums (not u8's) that is one round of the small or tall
// small tiles.
template <class In, class Out, Tables T, class Large>
bool small_tiles(int rows, int cols, int images) {
    if constexpr (same_shape<Large, SmallTiles<In, Out>>()) {
        return false;
    } else {
        if (large_tiles_for_one_image_sums_only<In, Out>() && (images > 1 || T != Tables::sums)) return true;
        const std::size_t tiles = tiles_per_image<In, Out, Large>(rows, cols) * std::size_t(images);
        return tiles < LAB9_SMALL_TILE_ROUNDS * reference_sms * Large::min_blocks ||
               small_tiles_past_a_round<In, Out, T>(rows, cols, images);
    }
}

// Whether a call of this pair and these tables may take short tiles of their own: one image's sums
// of a pair whose short shape is not its small one (lookback_kernel.cuh). Without them no kernel of
// the short shape is compiled.
template <class In, class Out, Tables T>
constexpr bool has_short_tiles() {
    return !same_shape<ShortTiles<In, Out>, SmallTiles<In, Out>>() && T == Tables::sums;
}
template <class In, class Out, Tables T>
bool short_tiles(int rows, int cols, int images);  // below
// The same for the tall small tiles (lookback_kernel.cuh, TallSmallTileShape).
template <class In, class Out, Tables T>
constexpr bool has_tall_small_tiles() {
    return !same_shape<TallSmallTiles<In, Out>, SmallTiles<In, Out>>() && T == Tables::sums;
}
template <class In, class Out, Tables T>
bool tall_small_tiles(int rows, int cols, int images);  // below

// Scratch one call of scan_images needs for `batch` images: the most of what its six tile
// shapes need, so that the size grows with the batch (the shape a call takes changes with its tile count,
// and a caller may size once for its largest batch).
template <class In, class Out, Tables T>
sat::ScanScratchSize scratch_for(int rows, int cols, int batch, const sat::ScanOptions& opt = {}) {
    sat::ScanScratchSize size;
    if (rows <= 0 || cols <= 0 || batch <= 0) return size;
    if (thin_shape<In, Out, T>(rows, cols, opt)) {  // the thin kernel's: one zeroed block
        size.state_bytes = thin_chunks_scratch<In, Out>(rows, cols, images_per_launch<In, Out>(rows, cols, batch));
        // One image may be a line (pitches decide): CUB's scratch, asked of the current device
        // (which this creates a context on); 0 without one (sat_thin.cuh: line_scratch_bytes).
        // For a batch too, since scratch sized for a batch serves one image (sat.hpp).
        if (rows == 1 || cols == 1)
            size.state_bytes = std::max(size.state_bytes, sat::thin::line_scratch_bytes<In, Out>(rows * cols));
        // It may be 2 or 3 rows in words (u8 -> i32; pitches and pointers decide) or in element or
        // group lanes (f32, f64, i32): CUB's scratch too.
        size.state_bytes = std::max(size.state_bytes, sat::thin::rows_scratch_bytes<In, Out>(rows, cols));
        // Or 2 or 3 contiguous columns in words (u8 -> i32): CUB's scratch for the columns' scan.
        size.state_bytes = std::max(size.state_bytes, sat::thin::columns_scratch_bytes<In, Out>(rows, cols));
        // Or a wide image in the 2-D tiles (wide_in_tiles): the scratch of each shape that takes it.
        auto grow = [&](const sat::ScanScratchSize& tiles) {
            size.state_bytes = std::max(size.state_bytes, tiles.state_bytes);
            size.value_bytes = std::max(size.value_bytes, tiles.value_bytes);
        };
        auto wide = [&](auto shape) {
            using S = decltype(shape);
            if (wide_in_tiles<In, Out, S>(rows, cols)) grow(shaped_scratch<In, Out, T, S>(rows, cols, batch));
        };
        wide(LargeTiles<In, Out>{}), wide(LanesTiles<In, Out>{}), wide(SmallTiles<In, Out>{});
        wide(ShortTiles<In, Out>{}), wide(TallSmallTiles<In, Out>{});
        // Or one image in the wide thin tiles (wide_thin_tiles), with either access, whatever the batch.
        if (wide_thin_tiles<In, Out, T>(rows, cols, 1, opt, true) || wide_thin_tiles<In, Out, T>(rows, cols, 1, opt, false))
            grow(shaped_scratch<In, Out, T, WideThinTiles<In, Out>>(rows, cols, 1));
        return size;
    }
    const sat::ScanScratchSize small = shaped_scratch<In, Out, T, SmallTiles<In, Out>>(rows, cols, batch);
    // One image of this shape may take the short tiles, a call of any batch size then.
    const sat::ScanScratchSize short_ = short_tiles<In, Out, T>(rows, cols, 1)
                                            ? shaped_scratch<In, Out, T, ShortTiles<In, Out>>(rows, cols, 1)
                                            : sat::ScanScratchSize{};
    // Or the tall small tiles (no more than the small ones' for any shape that takes them so far,
    // but sized on their own).
    const sat::ScanScratchSize tall = tall_small_tiles<In, Out, T>(rows, cols, 1)
                                          ? shaped_scratch<In, Out, T, TallSmallTiles<In, Out>>(rows, cols, 1)
                                          : sat::ScanScratchSize{};
    const sat::ScanScratchSize large = shaped_scratch<In, Out, T, LargeTiles<In, Out>>(rows, cols, batch);
    const sat::ScanScratchSize lanes = shaped_scratch<In, Out, T, LanesTiles<In, Out>>(rows, cols, batch);
    return {std::max({small.state_bytes, short_.state_bytes, tall.state_bytes, large.state_bytes, lanes.state_bytes}),
            std::max({small.value_bytes, short_.value_bytes, tall.value_bytes, large.value_bytes, lanes.value_bytes})};
}

// Whether a launch's tiles add up the aggregates of every tile left of and above them
// (Geometry::aggregates_only) instead of looking back. Correct for any grid (a tile waits only
// for tiles handed out before it), fast where every tile a tile needs is in flight with it, so
// that it waits for their loads only: a block per ticket (one round). And images of at most
// aggregates_tiles_x x aggregates_tiles_y tiles, so that a tile's sums to add stay a few loads a
// thread (1920x1080 f32 in 128-thread tiles: 4 x 32; 3840x2160 8 x 64, whose lowest tiles add 7
// column sums of their group and 7 of the groups above; 128 tile rows: 7 + 15). Images of 65 to
// 128 tile rows add up aggregates too (H200: 1080x1920 in 3 x 113 short tiles 0.91-0.97 of the
// time of 3 x 57 small tiles, the f64 accumulator's 5 x 113 0.86-0.88; 2048x4096 in 4 x 121 small
// tiles 0.80-0.86 of the time of their look-back; docs/tiles.md, *Up to 128 tile rows adding up
// aggregates*).
constexpr int aggregates_tiles_x = 32, aggregates_tiles_y = 128;
inline bool takes_aggregates_only(const Geometry& g, unsigned grid, int tables) {
    return grid >= g.tiles * unsigned(tables) && g.tiles_x <= aggregates_tiles_x && g.tiles_y <= aggregates_tiles_y;
}
// The tile rows of sum_aggregates' groups: images of more than 32 tile rows take groups of 8 (a
// tile adds at most 7 + 7 column sums, not 63; H200: 3840x2160 0.85-0.95 of the time), the
// others one group, no sums published (1280x720's 22 tile rows in groups of 8 took 1.06-1.08:
// the group's sums are one more hand-over on the way, and few loads are saved).
inline int aggregate_group_rows(const Geometry& g) { return g.tiles_y > 32 ? 8 : aggregates_tiles_y; }

// Whether one image in tiles of shape S is one round on a 132-SM GPU that adds up aggregates.
template <class In, class Out, class S>
bool one_round_adding_up(int rows, int cols) {
    return takes_aggregates_only(layout_for<In, Out, S>(rows, cols, 1).g, unsigned(reference_sms * S::min_blocks), 1);
}

// Whether a call that takes the small tiles takes the short ones (lookback_kernel.cuh): the pair
// has short tiles of its own (every pair, unless a tuning build gives every kernel one shape), the
// call is one image of sums (batches and squares were not measured in them), and its short tiles
// are one round on a 132-SM GPU that adds up aggregates.
template <class In, class Out, Tables T>
bool short_tiles(int rows, int cols, int images) {
    if constexpr (!has_short_tiles<In, Out, T>())
        return false;
    else
        return images == 1 && one_round_adding_up<In, Out, ShortTiles<In, Out>>(rows, cols);
}

// Whether a call takes the tall small tiles (lookback_kernel.cuh): the pair has them (f32, i32),
// the call is one image of sums (as for the short tiles), and in them it is one round that adds up
// aggregates where its small tiles are not (2160x3840: 5 x 102 tiles, not 5 x 113 small ones).
template <class In, class Out, Tables T>
bool tall_small_tiles(int rows, int cols, int images) {
    if constexpr (!has_tall_small_tiles<In, Out, T>())
        return false;
    else
        return images == 1 && !one_round_adding_up<In, Out, SmallTiles<In, Out>>(rows, cols) &&
               one_round_adding_up<In, Out, TallSmallTiles<In, Out>>(rows, cols);
}

// Whether one image of sums takes its small or tall small tiles where its 256-thread tiles are a
// round or more: where they are one round that adds up aggregates (2560x3570 f32: 5 x 105 small
// tiles, not 3 x 90 of 40 rows in two rounds; 3840x2160 at odd pitches: 8 x 64 small tiles, not
// 4 x 68 of 32 rows; 2560x2048 f64: 10 x 64, not 5 x 64 = 320 of 32 x 512; H200: f32 and i32
// 0.82-0.96 of the time, u16 -> f64 0.68-0.71, f32 -> f64 0.74-0.75, f64 0.94-0.99; docs/tiles.md,
// *One round of small tiles past a round of 256-thread tiles*). f32, i32 and the f64 accumulator:
// u8's were not measured so.
template <class In, class Out, Tables T>
bool small_tiles_past_a_round(int rows, int cols, int images) {
    if constexpr (std::is_same_v<In, uint8_t> || T != Tables::sums)
        return false;
    else
        return images == 1 && (one_round_adding_up<In, Out, SmallTiles<In, Out>>(rows, cols) ||
                               (has_tall_small_tiles<In, Out, T>() &&
                                one_round_adding_up<In, Out, TallSmallTiles<In, Out>>(rows, cols)));
}

// Blocks of `kernel` (with `smem` bytes of dynamic shared memory) resident at once on `device`,
// the current one. The answer depends only on the device and the kernel: asked once per device
// (0: the question failed; it is asked again next time).
template <class Kernel>
int resident_blocks(const CachedKernel<Kernel>& k, int threads, std::size_t smem, int device) {
    const int known = k.cache->resident.get(device);
    if (known > 0) return known;
    int sms = 0, per_sm = 0;
    if (device < 0 || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) return 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k.kernel, threads, smem) != cudaSuccess)
        return 0;
    const int resident = std::max(1, sms * per_sm);
    k.cache->resident.put(device, resident);
    return resident;
}

// Whether `stream` is being captured into a CUDA graph, or is the legacy default stream while
// another stream is (cudaErrorStreamCaptureImplicit, taken out of the last error). Any other
// error: no, and the calls after this one report it.
inline bool may_be_capturing(cudaStream_t stream) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    const cudaError_t err = cudaStreamIsCapturing(stream, &capture);
    if (err == cudaErrorStreamCaptureImplicit) {
        cudaGetLastError();
        return true;
    }
    return err == cudaSuccess && capture != cudaStreamCaptureStatusNone;
}

// One library call on `stream`, as the capture mode allows it. A capture in global mode (the
// CUDA default, and torch.cuda.graph's) forbids every thread the calls the library makes on a
// stream that is not captured: stream-ordered allocations and frees, the pool's attributes, a
// wait for the stream. None of them orders work on a captured stream, so while this lives, the
// thread's capture mode is relaxed (cudaThreadExchangeStreamCaptureMode) unless `stream` itself
// is being captured. One per public entry (the C ABI's calls, after their argument checks, and
// sat::inclusive_scan_2d); the functions under it take it as an argument.
class CallOnStream {
public:
    explicit CallOnStream(cudaStream_t stream) : capturing_(may_be_capturing(stream)) {
        if (!capturing_) relaxed_ = cudaThreadExchangeStreamCaptureMode(&saved_) == cudaSuccess;
    }
    ~CallOnStream() {
        if (relaxed_) cudaThreadExchangeStreamCaptureMode(&saved_);
    }
    CallOnStream(const CallOnStream&) = delete;
    CallOnStream& operator=(const CallOnStream&) = delete;
    bool capturing() const { return capturing_; }

private:
    bool capturing_;
    bool relaxed_ = false;
    cudaStreamCaptureMode saved_ = cudaStreamCaptureModeRelaxed;  // the mode to set, then the one to restore
};

// Stream-ordered scratch. The pool of cudaMallocAsync releases its free memory to the OS at every
// synchronization while its release threshold is 0 (the CUDA default), so a caller that
// synchronizes between calls (wait=True in Python, a benchmark) has the driver map the scratch
// anew in every call. A threshold of 0 on the current device's pool is raised to
// scratch_keep_bytes; a threshold the program set itself is left as it is. Asked on every call:
// cheap host calls, and right again after a cudaDeviceReset. Not on a stream being captured into
// a CUDA graph (`call` says): the graph's allocations do not come from the pool, and a pool query
// would end the capture with an error.
constexpr std::uint64_t scratch_keep_bytes = std::uint64_t(256) << 20;
inline cudaError_t scratch_alloc(void** p, std::size_t bytes, cudaStream_t stream, const CallOnStream& call) {
    if (call.capturing()) return cudaMallocAsync(p, bytes, stream);
    int device = 0;
    cudaMemPool_t pool = nullptr;
    std::uint64_t keep = 0;
    bool asked = cudaGetDevice(&device) == cudaSuccess && cudaDeviceGetMemPool(&pool, device) == cudaSuccess &&
                 cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) == cudaSuccess;
    if (asked && keep == 0) {
        keep = scratch_keep_bytes;
        asked = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) == cudaSuccess;
    }
    if (!asked) cudaGetLastError();  // a pool that cannot be asked or set only costs speed
    return cudaMallocAsync(p, bytes, stream);
}

inline bool aligned(const void* p, std::size_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; }

// Whether every row of a call starts on a whole 16-byte piece of its output (and the input's
// piece of the same columns): base pointers, pitches and batch strides in whole vectors. Those
// calls take vector accesses (Access::vectors), the others Access::lanes or Access::elements.
template <class In, class Out>
bool whole_pieces(const In* in, std::size_t in_pitch, const Out* out, std::size_t out_pitch, const Images& im,
                  const Out* sq, std::size_t sq_pitch, bool both) {
    constexpr int V = vec_of<Out>();
    return aligned(in, V * sizeof(In)) && aligned(out, 16) && in_pitch % V == 0 && out_pitch % V == 0 &&
           (im.count == 1 || (im.in_stride % V == 0 && im.out_stride % V == 0)) &&
           (!both || (aligned(sq, 16) && sq_pitch % V == 0 && (im.count == 1 || im.sq_stride % V == 0)));
}

// The library's own status word: spin timeouts of calls that passed no status of their own.
__device__ int library_status;

// What the library's tests ask about its launches (satlib_testing.h).
std::atomic<unsigned long long> scan_launches{0};
std::atomic<unsigned long long> last_launch_tiles{0};
std::atomic<unsigned> last_launch_grid{0};
std::atomic<int> last_launch_resident{0};
std::atomic<int> last_launch_threads{0};
std::atomic<bool> last_launch_overlapped{false};
std::atomic<int> last_launch_ptx_version{0};
std::atomic<bool> last_launch_vector{false};
std::atomic<satlib::testing::ThinPath> last_thin_path{satlib::testing::ThinPath::none};
std::atomic<int> last_launch_tile_rows{0};
std::atomic<bool> last_launch_aggregates_only{false};
std::atomic<int> last_launch_aggregate_group_rows{0};
void log_launch(unsigned grid, unsigned long long tiles, int resident = 0, int threads = 0, bool overlapped = false,
                int ptx_version = 0, satlib::testing::ThinPath thin_path = satlib::testing::ThinPath::none,
                bool vector = false, int tile_rows = 0, bool aggregates_only = false, int group_rows = 0) {
    scan_launches.fetch_add(1, std::memory_order_relaxed);
    last_thin_path.store(thin_path, std::memory_order_relaxed);
    last_launch_grid.store(grid, std::memory_order_relaxed);
    last_launch_tiles.store(tiles, std::memory_order_relaxed);
    last_launch_resident.store(resident, std::memory_order_relaxed);
    last_launch_threads.store(threads, std::memory_order_relaxed);
    last_launch_overlapped.store(overlapped, std::memory_order_relaxed);
    last_launch_ptx_version.store(ptx_version, std::memory_order_relaxed);
    last_launch_vector.store(vector, std::memory_order_relaxed);
    last_launch_tile_rows.store(tile_rows, std::memory_order_relaxed);
    last_launch_aggregates_only.store(aggregates_only, std::memory_order_relaxed);
    last_launch_aggregate_group_rows.store(aggregates_only ? group_rows : 0, std::memory_order_relaxed);
}
// A thin call's launches (no tiles or grid of the 2-D kernel's), and the path it took.
void log_thin_launch(satlib::testing::ThinPath path) { log_launch(0, 0, 0, 0, false, 0, path); }
namespace testing {
LaunchLog launch_log() {
    return {scan_launches.load(), last_launch_tiles.load(), last_launch_grid.load(), last_launch_resident.load(),
            last_launch_threads.load(), last_launch_overlapped.load(), last_launch_ptx_version.load(),
            last_launch_vector.load(), last_thin_path.load(), last_launch_tile_rows.load(),
            last_launch_aggregates_only.load(), last_launch_aggregate_group_rows.load()};
}
}  // namespace testing

// The 2-D look-back kernel for these accesses (Vec) and image counts (Batched), with its cache.
template <class In, class Out, class S, Tables T, bool Batched, bool Vec>
KernelCache& lookback_cache() {
    static KernelCache cache;
    return cache;
}
// LargeTiles' kernels are compiled for vector accesses only and LanesTiles' for the others
// (scan_images routes each call to one of them), WideThinTiles' for the accesses they serve
// (wide_thin_serves), the others for both.
template <class In, class Out, class S>
constexpr bool compiled_for(bool vec) {
    if (std::is_same_v<S, LargeTiles<In, Out>>) return vec;
    if (std::is_same_v<S, LanesTiles<In, Out>>) return !vec;
    if (std::is_same_v<S, WideThinTiles<In, Out>>) return wide_thin_serves<In, Out>(vec);
    return true;
}
template <class In, class Out, class S, Tables T, bool Batched, bool Vec>
auto lookback_kernel() {
    using Kernel = void (*)(const In*, Out*, Geometry, TileRecords<sat::Acc<Out>>, int*, unsigned long long*, Out*);
    return CachedKernel<Kernel>{lookback_sat_kernel<In, Out, S, Vec, T, Batched>,
                                &lookback_cache<In, Out, S, T, Batched, Vec>()};
}
template <class In, class Out, class S, Tables T, bool Batched>
auto lookback_kernel_for(bool vec) {
    if constexpr (!compiled_for<In, Out, S>(false)) return lookback_kernel<In, Out, S, T, Batched, true>();
    else if constexpr (!compiled_for<In, Out, S>(true)) return lookback_kernel<In, Out, S, T, Batched, false>();
    else return vec ? lookback_kernel<In, Out, S, T, Batched, true>() : lookback_kernel<In, Out, S, T, Batched, false>();
}

// scan_images (below) in tiles of shape S; vec: every row starts on a whole piece (whole_pieces).
template <class In, class Out, class S, Tables T>
cudaError_t scan_shaped(const In* in, std::size_t in_pitch, Out* out, std::size_t out_pitch, int rows,
                        int cols, const Images& im, cudaStream_t stream, const CallOnStream& call,
                        const sat::ScanOptions& opt, Out* sq, std::size_t sq_pitch, Flags state_flags, bool vec) {
    using A = sat::Acc<Out>;
    if (rows < 0 || cols < 0 || im.count < 1) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    constexpr bool both = T == Tables::both;
    // f64's 256-thread tiles, the short ones, the tall small ones and the wide thin ones take one
    // image's sums only (scan_images): their batch kernels are not compiled, and a batch here would
    // be a bug in the routing.
    constexpr bool one_image_per_launch = (large_tiles_for_one_image_sums_only<In, Out>() && is_large<In, Out, S>) ||
                                          std::is_same_v<S, ShortTiles<In, Out>> ||
                                          std::is_same_v<S, TallSmallTiles<In, Out>> ||
                                          std::is_same_v<S, WideThinTiles<In, Out>>;
    static_assert(!one_image_per_launch || T == Tables::sums, "one image's sums only");
    if (one_image_per_launch && im.count > 1) return cudaErrorInvalidValue;
    if (both && (sq == nullptr || sq_pitch < std::size_t(cols) || opt.trace != nullptr)) return cudaErrorInvalidValue;
    if (in == nullptr || out == nullptr || in_pitch < std::size_t(cols) ||
        out_pitch < std::size_t(cols) || !aligned(opt.values, 16) || (im.count > 1 && opt.trace != nullptr && !tile_stamps_on))
        return cudaErrorInvalidValue;
    int* status = opt.status;
    cudaError_t err = cudaSuccess;
    if (status == nullptr && (err = cudaGetSymbolAddress(reinterpret_cast<void**>(&status), library_status)) != cudaSuccess)
        return err;
    const int group = images_per_launch<In, Out>(rows, cols, im.count);  // images per thin launch
    // The flags of each launch: the caller's state as state_flags says for the first, cleared anew
    // before every other, and before the first when the call owns them.
    auto flags_of = [&](int first, bool own) { return own || first > 0 ? Flags::clear : state_flags; };
    // Thin images: the 1-D look-back, its scratch the caller's `state` (sized by scratch_for) or
    // the call's own, from scratch_alloc like the 2-D launches'.
    if (takes_thin<In, Out, T, S>(rows, cols, opt)) {
        const bool line = im.count == 1 && sat::thin::is_line(rows, cols, in_pitch, out_pitch);  // CUB's 1-D scan
        // 2 or 3 u8 rows of whole words: CUB's packed scan, or its word scan per row; 2 or 3 rows of
        // f32, f64 or i32: CUB's scan of element lanes, or of group lanes for wide rows.
        const bool few_rows = !line && im.count == 1 &&
                              (sat::thin::rows_in_words(in, in_pitch, out, out_pitch, rows, cols) ||
                               sat::thin::rows_in_lanes<In, Out>(rows, cols) ||
                               sat::thin::rows_in_groups(in, in_pitch, out, out_pitch, rows, cols));
        // 2 or 3 contiguous u8 columns, 4 rows to an item: CUB's packed scan down the columns.
        const bool few_cols = !line && im.count == 1 && sat::thin::columns_in_words(in, in_pitch, out, out_pitch, rows, cols);
        void* scratch = opt.state;
        void* own = nullptr;
        if (scratch == nullptr) {
            // A line, few rows or few columns: CUB's size alone, 0 where CUB cannot say (line_scan,
            // rows_scan and columns_scan then allocate their own), not scratch_for's, which falls
            // back to the chunks' size there.
            const std::size_t bytes = line       ? sat::thin::line_scratch_bytes<In, Out>(rows * cols)
                                      : few_rows ? sat::thin::rows_scratch_bytes<In, Out>(rows, cols)
                                      : few_cols ? sat::thin::columns_scratch_bytes<In, Out>(rows, cols)
                                                 : thin_chunks_scratch<In, Out>(rows, cols, group);
            if (bytes > 0 && (err = scratch_alloc(&own, bytes, stream, call)) != cudaSuccess) return err;
            scratch = own;
        }
        using satlib::testing::ThinPath;
        if (line) {
            err = sat::thin::line_scan<In, Out>(in, out, rows * cols, stream, scratch);
            if (err == cudaSuccess) log_thin_launch(ThinPath::line);
        } else if (few_rows) {
            bool packed = false, group_lanes = false;
            err = sat::thin::rows_scan<In, Out>(in, in_pitch, out, out_pitch, rows, cols, stream, scratch, &packed,
                                                &group_lanes);
            if (err == cudaSuccess)
                log_thin_launch(group_lanes ? ThinPath::group_rows : packed ? ThinPath::packed_rows : ThinPath::rows);
        } else if (few_cols) {
            err = sat::thin::columns_scan<In, Out>(in, in_pitch, out, out_pitch, rows, cols, stream, scratch);
            if (err == cudaSuccess) log_thin_launch(ThinPath::packed_columns);
        }
        for (int first = 0; !line && !few_rows && !few_cols && first < im.count && err == cudaSuccess; first += group) {
            const int n = std::min(group, im.count - first);
            err = sat::thin::scan<In, Out>(in + std::size_t(first) * im.in_stride, in_pitch,
                                           out + std::size_t(first) * im.out_stride, out_pitch, rows, cols, stream,
                                           scratch, status, n, im.in_stride, im.out_stride,
                                           flags_of(first, own != nullptr));
            if (err == cudaSuccess) log_thin_launch(ThinPath::chunks);
        }
        const cudaError_t free_err = own != nullptr ? cudaFreeAsync(own, stream) : cudaSuccess;
        return err == cudaSuccess ? free_err : err;
    }
    if (!compiled_for<In, Out, S>(vec)) return cudaErrorInvalidValue;  // a bug in the routing (scan_images)
    const int images = images_per_launch<In, Out, S>(rows, cols, im.count);  // per 2-D launch
    Layout L = layout_for<In, Out, S>(rows, cols, images * tables_of(T));
    L.g.in_pitch = in_pitch;
    L.g.out_pitch = out_pitch;
    L.g.sq_pitch = sq_pitch;
    L.g.in_batch_stride = im.in_stride;
    L.g.out_batch_stride = im.out_stride;
    L.g.sq_batch_stride = im.sq_stride;

    // Scratch: the caller's, or allocated for this call (stream-ordered). A call that would take the
    // thin kernel but for grid_blocks or trace allocates its own: inclusive_scan_2d_scratch, which
    // sees no options, sizes the caller's for the thin kernel.
    const bool sized_for_thin = takes_thin<In, Out, T, S>(rows, cols, {});
    void* state = sized_for_thin ? nullptr : opt.state;
    void* values = sized_for_thin ? nullptr : opt.values;
    bool own_state = false, own_values = false;
    if (state == nullptr) {
        if ((err = scratch_alloc(&state, L.state_bytes, stream, call)) != cudaSuccess) return err;
        own_state = true;
    }
    if (values == nullptr) {
        if ((err = scratch_alloc(&values, L.value_bytes, stream, call)) != cudaSuccess) {
            if (own_state) cudaFreeAsync(state, stream);
            return err;
        }
        own_values = true;
    }
    TileRecords<A> rec;
    unsigned* words = static_cast<unsigned*>(state);
    char* base = static_cast<char*>(values);
    rec.ticket = words;
    rec.state = words + state_header_words;
    rec.row_sum = reinterpret_cast<A*>(base + L.off_row_sum);
    rec.row_prefix = reinterpret_cast<A*>(base + L.off_row_prefix);
    rec.col_sum = reinterpret_cast<A*>(base + L.off_col_sum);
    rec.col_prefix = reinterpret_cast<A*>(base + L.off_col_prefix);
    rec.left_sum = reinterpret_cast<A*>(base + L.off_left);
    rec.corner_prefix = reinterpret_cast<A*>(base + L.off_corner);
    rec.tile_sum = reinterpret_cast<A*>(base + L.off_tile_sum);
    // A launch that adds up aggregates publishes no prefixes; its group sums take their place.
    rec.group_col_sum = rec.col_prefix;
    rec.group_tile_sum = rec.corner_prefix;

    constexpr std::size_t smem = smem_bytes<In, Out, S>();
    int device = -1;  // the current device, whose caches the launches use (-1: none, ask every time)
    if (cudaGetDevice(&device) != cudaSuccess) device = -1;
    for (int first = 0; first < im.count && err == cudaSuccess; first += images) {
        const int n = std::min(images, im.count - first);
        const Flags flags = flags_of(first, own_state);
        // The delays build (lookback_kernel.cuh, delay_tile): published sums that no tile wrote
        // read as NaN or a wrong integer.
        if constexpr (tile_delay_ns > 0) err = cudaMemsetAsync(values, 0xff, L.value_bytes, stream);
        if (err == cudaSuccess && flags == Flags::clear) err = clear_flags(state, L.state_bytes, stream);
        if (err != cudaSuccess) break;
        const auto k = [&] {
            if constexpr (one_image_per_launch) return lookback_kernel_for<In, Out, S, T, false>(vec);
            else return n > 1 ? lookback_kernel_for<In, Out, S, T, true>(vec) : lookback_kernel_for<In, Out, S, T, false>(vec);
        }();
        Geometry g = L.g;
        g.tiles = unsigned(tiles_per_image<In, Out, S>(rows, cols) * std::size_t(n));
        int grid = opt.grid_blocks, resident = 0;
        bool overlap = false;  // with the clear_flags before it
        // The shared memory limit is set once per device and kernel; the grid is sized after it.
        auto launch = [&] {
            if (opt.grid_blocks <= 0) {
                // As many blocks as fit. If that makes two rounds whose second is at least half
                // full (4096^2 f32: 412 tiles of 40 rows on 264 blocks), a block per two tiles
                // instead (H200: 0.97-0.99 of the time); a second round less than half full runs on
                // every block (4096^2 u8 -> i32: 456 tiles on 396 blocks, 0.91-0.94 of the time of
                // 228 blocks). u8 inputs run on every block at any fill (H200, u8 -> i32: 0.95-0.98
                // of the time evened out at 61 % and 81 %, a small gain; docs/tiles.md, *Two rounds
                // evened out*). With more rounds every block is needed (8192^2 in 128-thread tiles
                // of 64 rows was 5 % slower evened out).
                constexpr bool evens_out_two_rounds = sizeof(In) > 1;  // u8 inputs never
                const unsigned tickets = g.tiles * tables_of(T);
                resident = std::max(1, resident_blocks(k, S::threads, smem, device));
                const unsigned rounds = (tickets + unsigned(resident) - 1) / unsigned(resident);
                const bool even_out = evens_out_two_rounds && rounds == 2 &&
                                      2 * (tickets - unsigned(resident)) >= unsigned(resident);
                grid = int(even_out ? (tickets + 1) / 2 : std::min(tickets, unsigned(resident)));
            }
            g.aggregates_only = compiles_aggregates_only<In, A, S>() && takes_aggregates_only(g, unsigned(grid), tables_of(T));
            g.group_rows = aggregate_group_rows(g);
            overlap = overlaps_clear(k, device, flags);
            return sat::launch_kernel(overlap, k.kernel, unsigned(grid), S::threads, smem, stream,
                                 in + std::size_t(first) * im.in_stride, out + std::size_t(first) * im.out_stride, g,
                                 rec, status, opt.trace, both ? sq + std::size_t(first) * im.sq_stride : nullptr);
        };
        err = launch_with_smem(k, device, int(smem), launch);
        if (err == cudaSuccess) err = cudaGetLastError();  // an error an earlier call left is reported too
        if (err == cudaSuccess)
            log_launch(unsigned(grid), g.tiles, resident, S::threads, overlap, k.cache->ptx_version.get(device),
                       satlib::testing::ThinPath::none, vec, S::R, g.aggregates_only, g.group_rows);
    }
    // The scratch goes back even after an error; a failed free is reported too.
    for (void* own : {own_values ? values : nullptr, own_state ? state : nullptr}) {
        const cudaError_t free_err = own != nullptr ? cudaFreeAsync(own, stream) : cudaSuccess;
        if (err == cudaSuccess) err = free_err;
    }
    return err;
}

// A batch of images (one image: count 1), in one launch per images_per_launch images: the tables
// T names (both: the squared ones into `sq`, of pitch `sq_pitch`, images im.sq_stride apart).
// state_flags, not opt.state_is_zero: what the caller's scratch (opt.state) holds: zero, to be
// cleared, or just cleared by clear_flags, the last work on the stream, which the first launch
// then overlaps (common/sat.h).
template <class In, class Out, Tables T = Tables::sums>
cudaError_t scan_images(const In* in, std::size_t in_pitch, Out* out, std::size_t out_pitch, int rows,
                        int cols, const Images& im, cudaStream_t stream, const CallOnStream& call,
                        const sat::ScanOptions& opt, Flags state_flags, Out* sq = nullptr,
                        std::size_t sq_pitch = 0) {
    // Vector accesses need aligned rows: base pointers, pitches and batch strides in whole vectors.
    const bool vec = whole_pieces(in, in_pitch, out, out_pitch, im, sq, sq_pitch, T == Tables::both);
    auto scan_in = [&](auto tiles) {  // tiles: SmallTiles, ShortTiles, TallSmallTiles, LargeTiles, LanesTiles or WideThinTiles
        return scan_shaped<In, Out, decltype(tiles), T>(in, in_pitch, out, out_pitch, rows, cols, im, stream, call, opt,
                                                        sq, sq_pitch, state_flags, vec);
    };
    // The small tiles, or the short or tall small ones where they serve.
    auto scan_in_small = [&] {
        if constexpr (has_short_tiles<In, Out, T>())
            if (short_tiles<In, Out, T>(rows, cols, im.count)) return scan_in(ShortTiles<In, Out>{});
        if constexpr (has_tall_small_tiles<In, Out, T>())
            if (tall_small_tiles<In, Out, T>(rows, cols, im.count)) return scan_in(TallSmallTiles<In, Out>{});
        return scan_in(SmallTiles<In, Out>{});
    };
    // The 256-thread tiles for these rows (LargeTiles where they start on whole pieces), unless
    // the call is small enough for the small ones.
    auto scan_in_large = [&](auto large) {
        return small_tiles<In, Out, T, decltype(large)>(rows, cols, im.count) ? scan_in_small() : scan_in(large);
    };
    // f64's squares always take the 128-thread tiles (small_tiles): the 256-thread kernels for them are not compiled.
    if constexpr (large_tiles_for_one_image_sums_only<In, Out>() && T != Tables::sums) {
        return scan_in(SmallTiles<In, Out>{});
    } else {
        // One wide thin image of 33 or 34 rows: its 34-row tiles where they serve (wide_thin_tiles).
        if constexpr (has_wide_thin_tiles<In, Out, T>())
            if (wide_thin_tiles<In, Out, T>(rows, cols, im.count, opt, vec)) return scan_in(WideThinTiles<In, Out>{});
        return vec ? scan_in_large(LargeTiles<In, Out>{}) : scan_in_large(LanesTiles<In, Out>{});
    }
}

}  // namespace satlib

// ---- the C++ entry points (sat.hpp) ------------------------------------------------------------

namespace sat {

template <class In, class Out>
ScanScratchSize inclusive_scan_2d_scratch(int rows, int cols, int batch) {
    return satlib::scratch_for<In, Out, satlib::Tables::sums>(rows, cols, batch);
}
template <class In, class Out>
ScanScratchSize inclusive_scan_2d_scratch(int rows, int cols) {
    return inclusive_scan_2d_scratch<In, Out>(rows, cols, 1);
}

// A batch (options.batch): the outputs of its images must not overlap.
inline bool batch_fits(const Batch& b, std::size_t out_pitch, int rows, int cols) {
    return b.count <= 1 || rows <= 0 || cols <= 0 || b.out_stride >= satlib::span(out_pitch, rows, cols);
}

#define SAT_SCAN_2D_DEF(In, Out)                                                                   \
    template ScanScratchSize inclusive_scan_2d_scratch<In, Out>(int, int);                         \
    template ScanScratchSize inclusive_scan_2d_scratch<In, Out>(int, int, int);                    \
    cudaError_t inclusive_scan_2d(const In* in, std::size_t in_pitch, Out* out,                    \
                                  std::size_t out_pitch, int rows, int cols, cudaStream_t stream,  \
                                  const ScanOptions& options) {                                    \
        const Batch& b = options.batch;                                                            \
        if (!batch_fits(b, out_pitch, rows, cols)) return cudaErrorInvalidValue;                   \
        const satlib::CallOnStream call(stream);                                                   \
        return satlib::scan_images(in, in_pitch, out, out_pitch, rows, cols,                       \
                                   satlib::Images{b.count, b.in_stride, b.out_stride}, stream,     \
                                   call, options, options.state_is_zero ? Flags::zero : Flags::clear); \
    }
SAT_SCAN_2D_DEF(float, float)
SAT_SCAN_2D_DEF(double, double)
SAT_SCAN_2D_DEF(int32_t, int32_t)
SAT_SCAN_2D_DEF(uint8_t, int32_t)
SAT_SCAN_2D_DEF(uint8_t, float)
SAT_SCAN_2D_DEF(uint16_t, double)
SAT_SCAN_2D_DEF(float, double)
#undef SAT_SCAN_2D_DEF

}  // namespace sat

// ---- the C ABI (satlib.h) ----------------------------------------------------------------------

namespace satlib {
namespace {

thread_local char last_cuda_error[160] = "";
std::atomic<int> timed_out_seen{0};  // timeouts found by calls that checked (satlib_last_timeout)

int status_of(cudaError_t err) {
    switch (err) {
    case cudaSuccess: return SATLIB_OK;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorCompatNotSupportedOnDevice: return SATLIB_ERR_NO_DEVICE;
    case cudaErrorMemoryAllocation: return SATLIB_ERR_OUT_OF_MEMORY;
    case cudaErrorInvalidValue: return SATLIB_ERR_ARGUMENT;
    default:
        std::snprintf(last_cuda_error, sizeof last_cuda_error, "CUDA error: %s (%s)",
                      cudaGetErrorName(err), cudaGetErrorString(err));
        return SATLIB_ERR_CUDA;
    }
}

std::size_t dtype_size(int t) {
    switch (t) {
    case SATLIB_U8: return 1;
    case SATLIB_U16: return 2;
    case SATLIB_I32: case SATLIB_F32: return 4;
    case SATLIB_F64: return 8;
    default: return 0;
    }
}

// Calls f(In{}, Out{}) for a supported pair; false for any other.
template <class F>
bool dispatch_pair(int in_t, int out_t, F&& f) {
    if (in_t == SATLIB_F32 && out_t == SATLIB_F32) return f(float{}, float{}), true;
    if (in_t == SATLIB_F64 && out_t == SATLIB_F64) return f(double{}, double{}), true;
    if (in_t == SATLIB_I32 && out_t == SATLIB_I32) return f(int32_t{}, int32_t{}), true;
    if (in_t == SATLIB_U8 && out_t == SATLIB_I32) return f(uint8_t{}, int32_t{}), true;
    if (in_t == SATLIB_U8 && out_t == SATLIB_F32) return f(uint8_t{}, float{}), true;
    if (in_t == SATLIB_U16 && out_t == SATLIB_F64) return f(uint16_t{}, double{}), true;
    if (in_t == SATLIB_F32 && out_t == SATLIB_F64) return f(float{}, double{}), true;
    return false;
}

// Whether two byte ranges [a, a + an) and [b, b + bn) overlap.
bool overlap(const void* a, std::size_t an, const void* b, std::size_t bn) {
    const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
    return x < y + bn && y < x + an;
}

int check_args(const satlib_integral_args* a) {
    if (a == nullptr || a->in == nullptr || a->out == nullptr) return SATLIB_ERR_ARGUMENT;
    if (!dispatch_pair(a->in_type, a->out_type, [](auto, auto) {})) return SATLIB_ERR_TYPE;
    if (a->batch < 1 || a->rows < 1 || a->cols < 1) return SATLIB_ERR_ARGUMENT;
    if (a->layout != SATLIB_LAYOUT_SAME && a->layout != SATLIB_LAYOUT_NPP) return SATLIB_ERR_ARGUMENT;
    const int extra = a->layout == SATLIB_LAYOUT_NPP ? 1 : 0;
    const int out_rows = a->rows + extra, out_cols = a->cols + extra;
    if (out_cols < a->cols || out_rows < a->rows) return SATLIB_ERR_ARGUMENT;  // int overflow
    const std::size_t in_size = dtype_size(a->in_type), out_size = dtype_size(a->out_type);
    if (a->in_pitch < std::size_t(a->cols) || a->out_pitch < std::size_t(out_cols)) return SATLIB_ERR_ARGUMENT;
    if (a->sq_out != nullptr && a->sq_pitch < std::size_t(out_cols)) return SATLIB_ERR_ARGUMENT;
    if (!aligned(a->in, in_size) || !aligned(a->out, out_size) || !aligned(a->sq_out, out_size))
        return SATLIB_ERR_ARGUMENT;
    const std::size_t in_span = span(a->in_pitch, a->rows, a->cols);
    const std::size_t out_span = span(a->out_pitch, out_rows, out_cols);
    const std::size_t sq_span = a->sq_out != nullptr ? span(a->sq_pitch, out_rows, out_cols) : 0;
    if (a->batch > 1) {  // images of a batch must not overlap in the outputs
        if (a->out_batch_stride < out_span) return SATLIB_ERR_ARGUMENT;
        if (a->sq_out != nullptr && a->sq_batch_stride < sq_span) return SATLIB_ERR_ARGUMENT;
    }
    const std::size_t n = std::size_t(a->batch) - 1;
    const std::size_t in_bytes = (n * a->in_batch_stride + in_span) * in_size;
    const std::size_t out_bytes = (n * a->out_batch_stride + out_span) * out_size;
    // Sums in place: the input's own elements, same size, pitch and batch stride (a tile reads
    // its input before it writes, and reads no other tile's input). Any other overlap would have
    // tiles read input that others, of any image of the batch, already overwrote.
    const bool in_place = a->in == a->out && in_size == out_size && a->in_pitch == a->out_pitch &&
                          (a->batch == 1 || a->in_batch_stride == a->out_batch_stride) && extra == 0;
    if (!in_place && overlap(a->in, in_bytes, a->out, out_bytes)) return SATLIB_ERR_ARGUMENT;
    // The squared table is written first and read from nowhere: it must not overlap the input
    // or the sums.
    if (a->sq_out != nullptr) {
        const std::size_t sq_bytes = (n * a->sq_batch_stride + sq_span) * out_size;
        if (overlap(a->sq_out, sq_bytes, a->in, in_bytes) || overlap(a->sq_out, sq_bytes, a->out, out_bytes))
            return SATLIB_ERR_ARGUMENT;
    }
    return SATLIB_OK;
}

// Whether a CUDA device can be used by this process (after the arguments are checked). The count
// is fixed when the runtime starts, so a device found once stays found and is not asked again;
// a failed or empty answer is asked again on the next call.
std::atomic<bool> device_found{false};
int device_status() {
    if (device_found.load(std::memory_order_relaxed)) return SATLIB_OK;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        cudaGetLastError();  // clear it: the next call may find a device after all
        return status_of(err) == SATLIB_ERR_CUDA ? SATLIB_ERR_NO_DEVICE : status_of(err);
    }
    if (count <= 0) return SATLIB_ERR_NO_DEVICE;
    device_found.store(true, std::memory_order_relaxed);
    return SATLIB_OK;
}

// NPP layout: row 0 (cols + 1 elements) and column 0 (rows + 1 elements) of each of `images`
// tables are zero; blockIdx.y walks the images.
__global__ void zero_border(void* out, std::size_t pitch_bytes, std::size_t stride_bytes, std::size_t elem,
                            int rows, int cols, int images) {
    const std::size_t n = std::size_t(cols) + 1 + std::size_t(rows);
    for (int image = blockIdx.y; image < images; image += gridDim.y) {
        char* base = static_cast<char*>(out) + std::size_t(image) * stride_bytes;
        for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n; k += std::size_t(gridDim.x) * blockDim.x) {
            char* p = k <= std::size_t(cols) ? base + k * elem : base + (k - cols) * pitch_bytes;
            for (std::size_t b = 0; b < elem; ++b) p[b] = 0;
        }
    }
}

// A call's own status word (status_ok or a timeout) into the library's, for satlib_last_timeout:
// the call's word is zeroed per call (its tiles stop waiting once it is set), the library's is
// kept until read.
__global__ void fold_status(const int* from) {
    if (*from != sat::status_ok) atomicMax(&library_status, *from);
}
// The library's word into *to, cleared in the same atomic step (satlib_wait).
__global__ void take_status(int* to) { *to = atomicExch(&library_status, sat::status_ok); }

template <class In, class Out>
int integral_typed(const satlib_integral_args& a, cudaStream_t stream, const CallOnStream& call, int check_timeout) {
    // A capture cannot wait for the timeout check: refused before any work, the capture intact.
    if (check_timeout && call.capturing()) return status_of(cudaErrorStreamCaptureUnsupported);
    const In* in = static_cast<const In*>(a.in);
    Out* out = static_cast<Out*>(a.out);
    Out* sq = static_cast<Out*>(a.sq_out);
    const bool npp = a.layout == SATLIB_LAYOUT_NPP;
    // Sums and squares in one launch per batch (Tables::both), except where the sums overwrite
    // the input (a sums tile could overwrite what its squares tile has yet to read) and for
    // thin images (the sums take the 1-D look-back, or wide_in_tiles' 2-D tiles): there the
    // squares go first, in a launch of their own.
    const bool one_pass = sq != nullptr && a.in != a.out && !thin_shape<In, Out, Tables::sums>(a.rows, a.cols, {});
    // One scratch for every launch of the call: this call's status word, the tile flags
    // (cleared before each launch) and the published sums.
    sat::ScanScratchSize need = scratch_for<In, Out, Tables::sums>(a.rows, a.cols, a.batch);
    if (sq != nullptr) {
        const sat::ScanScratchSize sq_need = one_pass ? scratch_for<In, Out, Tables::both>(a.rows, a.cols, a.batch)
                                                      : scratch_for<In, Out, Tables::squares>(a.rows, a.cols, a.batch);
        need.state_bytes = std::max(need.state_bytes, sq_need.state_bytes);
        need.value_bytes = std::max(need.value_bytes, sq_need.value_bytes);
    }
    const std::size_t status_bytes = 256, state_at = status_bytes;
    const std::size_t values_at = align_up(state_at + need.state_bytes, 256);
    void* scratch = nullptr;
    cudaError_t err = scratch_alloc(&scratch, values_at + need.value_bytes, stream, call);
    if (err != cudaSuccess) return status_of(err);
    char* base = static_cast<char*>(scratch);
    int* status = reinterpret_cast<int*>(base);
    sat::ScanOptions opt;
    opt.state = base + state_at;
    opt.values = base + values_at;
    opt.status = status;
    // One clear_flags clears the status word and the first launch's tile flags (they are
    // adjacent), and the first launch overlaps it (Flags::just_cleared); a second launch clears
    // the flags itself (Flags::clear).
    err = clear_flags(base, state_at + need.state_bytes, stream);
    // NPP layout: the tables start one row and column in, after a zero first row and column
    // (written after the sums, so that the first launch follows clear_flags).
    Out* const borders[2] = {sq, out};
    const std::size_t pitches[2] = {a.sq_pitch, a.out_pitch}, strides[2] = {a.sq_batch_stride, a.out_batch_stride};
    Out* tables[2] = {sq, out};
    for (int k = 0; k < 2 && npp; ++k)
        if (tables[k] != nullptr) tables[k] += pitches[k] + 1;
    if (err == cudaSuccess && one_pass) {
        const Images im{a.batch, a.in_batch_stride, strides[1], strides[0]};
        err = scan_images<In, Out, Tables::both>(in, a.in_pitch, tables[1], pitches[1], a.rows, a.cols, im, stream, call,
                                                 opt, Flags::just_cleared, tables[0], pitches[0]);
    } else if (err == cudaSuccess) {  // squares first: the sums may be in place
        if (sq != nullptr) {
            err = scan_images<In, Out, Tables::squares>(in, a.in_pitch, tables[0], pitches[0], a.rows, a.cols,
                                                        Images{a.batch, a.in_batch_stride, strides[0]}, stream, call,
                                                        opt, Flags::just_cleared);
        }
        if (err == cudaSuccess)
            err = scan_images<In, Out, Tables::sums>(in, a.in_pitch, tables[1], pitches[1], a.rows, a.cols,
                                                     Images{a.batch, a.in_batch_stride, strides[1]}, stream, call,
                                                     opt, sq == nullptr ? Flags::just_cleared : Flags::clear);
    }
    for (int k = 0; k < 2 && err == cudaSuccess && npp; ++k) {
        if (borders[k] == nullptr) continue;
        const dim3 grid(std::min(64, (a.rows + a.cols + 256) / 256), std::min(a.batch, 65535));
        zero_border<<<grid, 256, 0, stream>>>(borders[k], pitches[k] * sizeof(Out), strides[k] * sizeof(Out),
                                              sizeof(Out), a.rows, a.cols, a.batch);
        err = cudaGetLastError();
    }
    int timed_out = 0;
    if (err == cudaSuccess) {
        if (check_timeout) {
            err = cudaMemcpyAsync(&timed_out, status, sizeof(int), cudaMemcpyDeviceToHost, stream);
            if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
            if (timed_out != 0) timed_out_seen = 1;
        } else {
            fold_status<<<1, 1, 0, stream>>>(status);
            err = cudaGetLastError();
        }
    }
    const cudaError_t free_err = cudaFreeAsync(scratch, stream);
    if (err == cudaSuccess) err = free_err;
    if (err != cudaSuccess) return status_of(err);
    return timed_out != 0 ? SATLIB_ERR_TIMEOUT : SATLIB_OK;
}

// ---- box filters -------------------------------------------------------------------------------

// The table a box filter of In input sums in: differences of wrapped i32 sums are exact while
// the box's own sum fits in 32 bits; u16 and f32 sum in f64.
template <class In> struct BoxTable { using type = double; };
template <> struct BoxTable<uint8_t> { using type = int32_t; };
template <> struct BoxTable<int32_t> { using type = int32_t; };

// S(i, j) with S(-1, *) = S(*, -1) = 0, as a double (integer tables: the wrapped difference).
template <class T>
__device__ __forceinline__ double box_of(const T* s, std::size_t pitch, int top, int left, int bottom, int right) {
    auto at = [&](int i, int j) -> T { return (i < 0 || j < 0) ? T(0) : s[std::size_t(i) * pitch + j]; };
    if constexpr (std::is_integral_v<T>) {
        const uint32_t v = uint32_t(at(bottom, right)) - uint32_t(at(top, right)) - uint32_t(at(bottom, left)) +
                           uint32_t(at(top, left));
        return double(int32_t(v));
    } else {
        return double(at(bottom, right)) - double(at(top, right)) - double(at(bottom, left)) + double(at(top, left));
    }
}

// out(i, j) from the tables of sums (and squares) of a group of images, table b at b * stride:
// blockIdx.z is the image (grid.z <= 65535), so a group is one launch.
template <class T, class Out>
__global__ void box_kernel(const T* sum, const T* sq, std::size_t pitch, std::size_t stride, Out* out,
                           std::size_t out_pitch, std::size_t out_stride, int rows, int cols, int radius, int op,
                           bool unsigned_squares) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= cols) return;
    sum += std::size_t(blockIdx.z) * stride;
    if (sq != nullptr) sq += std::size_t(blockIdx.z) * stride;
    out += std::size_t(blockIdx.z) * out_stride;
    const int left = max(-1, j - radius - 1), right = min(cols - 1, j + radius);
    for (int i = blockIdx.y * blockDim.y + threadIdx.y; i < rows; i += gridDim.y * blockDim.y) {  // grid.y <= 65535
        const int top = max(-1, i - radius - 1), bottom = min(rows - 1, i + radius);
        const double s = box_of(sum, pitch, top, left, bottom, right);
        double v = s;
        if (op != SATLIB_BOX_SUM) {
            const double count = double(bottom - top) * double(right - left);
            const double mean = s / count;
            v = mean;
            if (op == SATLIB_BOX_VARIANCE) {
                double q = box_of(sq, pitch, top, left, bottom, right);
                if (unsigned_squares && q < 0) q += 4294967296.0;  // u8 squares: sums below 2^32
                v = fmax(0.0, q / count - mean * mean);
            }
        }
        out[std::size_t(i) * out_pitch + j] = Out(v);
    }
}

// Box kernel launches since the program started (satlib_testing.h).
std::atomic<unsigned long long> box_launch_count{0};

// The tables are scratch: a group of images whose tables fit in box_tables_bytes (at least one
// image; a whole batch of small images) takes one integral pass (one launch, squares included)
// and one box launch, so the scratch stays bounded for large batches of large images.
constexpr std::size_t box_tables_bytes = std::size_t(256) << 20;
constexpr std::size_t box_max_images = 65535;  // grid.z

template <class In, class Out>
int box_typed(const In* in, std::size_t in_pitch, std::size_t in_stride, Out* out, std::size_t out_pitch,
              std::size_t out_stride, int batch, int rows, int cols, int radius, int op, cudaStream_t stream,
              const CallOnStream& call) {
    using T = typename BoxTable<In>::type;
    const bool squares = op == SATLIB_BOX_VARIANCE;
    const std::size_t n = std::size_t(rows) * cols;  // one table, pitch cols, tables n apart
    const std::size_t image_bytes = n * sizeof(T) * (squares ? 2 : 1);
    const int group = int(std::min({std::size_t(batch), box_max_images, std::max<std::size_t>(1, box_tables_bytes / image_bytes)}));
    void* tables = nullptr;
    cudaError_t err = scratch_alloc(&tables, image_bytes * std::size_t(group), stream, call);
    if (err != cudaSuccess) return status_of(err);
    T* sum = static_cast<T*>(tables);
    T* sq = squares ? sum + n * std::size_t(group) : nullptr;
    int status = SATLIB_OK;
    for (int first = 0; first < batch && status == SATLIB_OK; first += group) {
        const int images = std::min(group, batch - first);
        satlib_integral_args a{};
        a.in = in + std::size_t(first) * in_stride, a.in_type = sat::dtype_of<In>(), a.in_pitch = in_pitch;
        a.in_batch_stride = in_stride;
        a.out = sum, a.out_type = sat::dtype_of<T>(), a.out_pitch = std::size_t(cols), a.out_batch_stride = n;
        a.sq_out = sq, a.sq_pitch = std::size_t(cols), a.sq_batch_stride = n;
        a.batch = images, a.rows = rows, a.cols = cols, a.layout = SATLIB_LAYOUT_SAME;
        status = integral_typed<In, T>(a, stream, call, 0);
        if (status != SATLIB_OK) break;
        const dim3 block(32, 8), grid((cols + 31) / 32, std::min((rows + 7) / 8, 65535), images);
        box_kernel<<<grid, block, 0, stream>>>(sum, sq, std::size_t(cols), n, out + std::size_t(first) * out_stride,
                                               out_pitch, out_stride, rows, cols, radius, op, std::is_same_v<In, uint8_t>);
        status = status_of(cudaGetLastError());
        if (status == SATLIB_OK) box_launch_count.fetch_add(1, std::memory_order_relaxed);
    }
    const cudaError_t free_err = cudaFreeAsync(tables, stream);
    if (status == SATLIB_OK) status = status_of(free_err);
    return status;
}

}  // namespace

namespace testing {
unsigned long long box_launches() { return box_launch_count.load(); }
}  // namespace testing
}  // namespace satlib

extern "C" {

int satlib_integral(const satlib_integral_args* args, void* stream, int check_timeout) {
    using namespace satlib;
    const int bad = check_args(args);
    if (bad != SATLIB_OK) return bad;
    const int dev = device_status();
    if (dev != SATLIB_OK) return dev;
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    const CallOnStream call(s);
    int result = SATLIB_OK;
    dispatch_pair(args->in_type, args->out_type, [&](auto in_tag, auto out_tag) {
        result = integral_typed<decltype(in_tag), decltype(out_tag)>(*args, s, call, check_timeout);
    });
    return result;
}

int satlib_box(const void* in, satlib_dtype in_type, size_t in_pitch, size_t in_batch_stride, void* out,
               satlib_dtype out_type, size_t out_pitch, size_t out_batch_stride, int batch, int rows,
               int cols, int radius, satlib_box_op op, void* stream) {
    using namespace satlib;
    if (in == nullptr || out == nullptr) return SATLIB_ERR_ARGUMENT;
    if (dtype_size(in_type) == 0 || (out_type != SATLIB_F32 && out_type != SATLIB_F64)) return SATLIB_ERR_TYPE;
    if (batch < 1 || rows < 1 || cols < 1 || radius < 0) return SATLIB_ERR_ARGUMENT;
    if (op != SATLIB_BOX_SUM && op != SATLIB_BOX_MEAN && op != SATLIB_BOX_VARIANCE) return SATLIB_ERR_ARGUMENT;
    if (in_pitch < std::size_t(cols) || out_pitch < std::size_t(cols)) return SATLIB_ERR_ARGUMENT;
    if (!aligned(in, dtype_size(in_type)) || !aligned(out, dtype_size(out_type))) return SATLIB_ERR_ARGUMENT;
    if (batch > 1 && out_batch_stride < span(out_pitch, rows, cols)) return SATLIB_ERR_ARGUMENT;
    const std::size_t in_bytes = ((std::size_t(batch) - 1) * in_batch_stride + span(in_pitch, rows, cols)) * dtype_size(in_type);
    const std::size_t out_bytes = ((std::size_t(batch) - 1) * out_batch_stride + span(out_pitch, rows, cols)) * dtype_size(out_type);
    if (overlap(in, in_bytes, out, out_bytes)) return SATLIB_ERR_ARGUMENT;  // the filter reads no input after the SAT
    const int dev = device_status();
    if (dev != SATLIB_OK) return dev;
    radius = std::min(radius, std::max(rows, cols));  // the same clipped windows, no int overflow
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    const CallOnStream call(s);
    auto run = [&](auto in_tag) {
        using In = decltype(in_tag);
        const In* p = static_cast<const In*>(in);
        if (out_type == SATLIB_F32)
            return box_typed(p, in_pitch, in_batch_stride, static_cast<float*>(out), out_pitch, out_batch_stride,
                             batch, rows, cols, radius, op, s, call);
        return box_typed(p, in_pitch, in_batch_stride, static_cast<double*>(out), out_pitch, out_batch_stride,
                         batch, rows, cols, radius, op, s, call);
    };
    switch (in_type) {
    case SATLIB_U8: return run(uint8_t{});
    case SATLIB_U16: return run(uint16_t{});
    case SATLIB_I32: return run(int32_t{});
    case SATLIB_F32: return run(float{});
    default: return run(double{});
    }
}

int satlib_last_timeout(void) {
    using namespace satlib;
    int seen = timed_out_seen.exchange(0);
    if (device_status() != SATLIB_OK) return seen;
    int device_word = 0;
    if (cudaDeviceSynchronize() == cudaSuccess &&
        cudaMemcpyFromSymbol(&device_word, library_status, sizeof(int)) == cudaSuccess) {
        const int zero = 0;
        cudaMemcpyToSymbol(library_status, &zero, sizeof(int));
    }
    return seen != 0 || device_word != 0 ? 1 : 0;
}

int satlib_wait(void* stream) {
    using namespace satlib;
    const int dev = device_status();
    if (dev != SATLIB_OK) return dev;
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    const CallOnStream call(s);  // runs while another stream is captured in global mode
    if (call.capturing()) return status_of(cudaErrorStreamCaptureUnsupported);
    // The library's word, taken behind the work on `stream` (the fold_status of its calls) in
    // one atomic exchange, so that a timeout another stream folds in meanwhile stays for the
    // next look. A CUDA error after the take loses the word's timeouts (satlib.h says so).
    int* taken = nullptr;
    int word = sat::status_ok;
    cudaError_t err = scratch_alloc(reinterpret_cast<void**>(&taken), sizeof(int), s, call);
    if (err != cudaSuccess) return status_of(err);
    take_status<<<1, 1, 0, s>>>(taken);
    err = cudaGetLastError();
    if (err == cudaSuccess) err = cudaMemcpyAsync(&word, taken, sizeof(int), cudaMemcpyDeviceToHost, s);
    const cudaError_t free_err = cudaFreeAsync(taken, s);
    if (err == cudaSuccess) err = free_err;
    if (err == cudaSuccess) err = cudaStreamSynchronize(s);
    if (err != cudaSuccess) return status_of(err);
    return word != sat::status_ok ? SATLIB_ERR_TIMEOUT : SATLIB_OK;
}

const char* satlib_error_string(int status) {
    switch (status) {
    case SATLIB_OK: return "satlib: success";
    case SATLIB_ERR_ARGUMENT: return "satlib: bad argument (a null pointer, a bad shape, pitch, stride, alignment or overlap)";
    case SATLIB_ERR_TYPE: return "satlib: unsupported type pair (f32->f32, f64->f64, i32->i32, u8->i32, u8->f32, u16->f64, f32->f64; box output f32 or f64)";
    case SATLIB_ERR_NO_DEVICE: return "satlib: no CUDA device or driver";
    case SATLIB_ERR_OUT_OF_MEMORY: return "satlib: out of device memory";
    case SATLIB_ERR_TIMEOUT: return "satlib: a tile waited more than 2 s for another one; the output is incomplete";
    case SATLIB_ERR_CUDA: return satlib::last_cuda_error[0] != 0 ? satlib::last_cuda_error : "satlib: CUDA error";
    default: return "satlib: unknown status";
    }
}

const char* satlib_version(void) { return SATLIB_VERSION; }

}  // extern "C"
