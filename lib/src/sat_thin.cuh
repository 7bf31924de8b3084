// sat_thin.cuh — the summed-area table of a thin matrix (few rows or few columns) in one pass.
//
// A thin matrix is cut along its long side into chunks of about 16 K elements (64 KB of
// accumulators; one tall f32 or i32 image of K = 1 to 10 or 12 columns, and one wide one of at
// most 5 rows: a chunk of which 4 fit an SM): a chunk of a tall matrix (cols <= rows) is T * M
// whole rows, a chunk of a wide one (rows < cols) is T * M whole columns, T = 256 the block's
// threads. Each chunk's aggregate is one vector of K = the short side's length: the SAT row at
// its bottom (tall) or the SAT column at its right edge (wide), computed locally. Chunks resolve
// their carries by decoupled look-back in one dimension (Merrill & Garland 2016), so the scratch
// is a flag and two K-vectors per chunk, under 1 % of the output (docs/thin.md).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "sat.h"

namespace sat {
namespace thin {

// The longest short side the thin path accepts (K of the aggregates).
constexpr int max_width = 64;

// Row and column of a flat index q = row * per_row + col that a thread steps by a fixed amount
// (a block's threads, or a multiple): one division when it starts, none per step. A division by a
// runtime value takes a reciprocal on the MIO pipe, where the segment walks' shared-memory
// accesses queue too. Host and device: tests/test_thin.cpp checks it against / and %.
struct FlatCursor {
    int row, col, per_row, step_rows, step_cols;
    __host__ __device__ __forceinline__ FlatCursor(int q, int per_row_, int step)
        : row(q / per_row_), col(q % per_row_), per_row(per_row_), step_rows(step / per_row_),
          step_cols(step % per_row_) {}
    __host__ __device__ __forceinline__ void next() {
        row += step_rows, col += step_cols;
        if (col >= per_row) col -= per_row, ++row;
    }
};

// Where a group of elements e, e + 1, ... of a padded tall chunk lies in shared memory (one pad
// after each segment of len elements: element f at f + f / len): element e + j, for j <= len, at
// index(j), with one division for the group. Host and device: tests/test_thin.cpp checks it.
struct PaddedGroup {
    int first, split;  // where element e lies; from j = split on, past the pad after e's segment
    __host__ __device__ __forceinline__ PaddedGroup(int e, int len) : first(e + e / len), split(len - e % len) {}
    __host__ __device__ __forceinline__ int index(int j) const { return first + j + (j >= split ? 1 : 0); }
};

// True when the thin path is the right one for this shape (it is correct for any shape it
// accepts: rows, cols >= 1 and min(rows, cols) <= max_width).
template <class In, class Out>
bool applicable(int rows, int cols);

// u8 -> i32 in words of four (sat_thin.cu's word scans): the sum of a 32-bit word's four bytes.
struct WordByteSum {
    __host__ __device__ uint32_t operator()(uint32_t word) const {
        return (word & 0xffu) + (word >> 8 & 0xffu) + (word >> 16 & 0xffu) + (word >> 24);
    }
};
// A word's four inclusive sums, as one 16-byte group, from the sum through its last byte and its
// bytes 1, 2 and 3 (each summed over the rows the sums cover): each sum less the bytes after it.
__host__ __device__ inline int4 word_sums(uint32_t through_word, uint32_t b1, uint32_t b2, uint32_t b3) {
    const uint32_t s3 = through_word, s2 = s3 - b3, s1 = s2 - b2, s0 = s1 - b1;
    return make_int4(int(s0), int(s1), int(s2), int(s3));
}
// u8 -> i32 images of 2 or 3 rows in one scan: item k holds the byte sums of word k of each row,
// a 32-bit lane each, added lane by lane (mod 2^32, as the element path's sums wrap), so one scan
// carries every row's prefix and reads each input byte once from DRAM; row j's output adds
// lanes 0..j. The packed columns below take the same lanes, one per column. Host and device:
// tests/test_thin.cpp runs them as a scan on the CPU.
template <int R, class Lane = uint32_t>
struct RowLanes {
    Lane sum[R];
};
template <int R, class Lane = uint32_t>
struct AddLanes {
    __host__ __device__ RowLanes<R, Lane> operator()(const RowLanes<R, Lane>& a, const RowLanes<R, Lane>& b) const {
        RowLanes<R, Lane> c;
        for (int r = 0; r < R; ++r) c.sum[r] = a.sum[r] + b.sum[r];
        return c;
    }
};
template <int R>
struct PackedWordSums {  // item k: the byte sums of word k in rows 0..R-1, one lane each
    const uint32_t* words;
    std::size_t pitch;  // words between rows
    __host__ __device__ RowLanes<R> operator()(uint32_t k) const {
        RowLanes<R> lanes;
        for (int r = 0; r < R; ++r) lanes.sum[r] = WordByteSum{}(words[r * pitch + k]);
        return lanes;
    }
};
template <int R>
struct WritePackedRows {
    const uint32_t* words;
    std::size_t in_pitch;  // words
    int4* quads;
    std::size_t out_pitch;  // int4 groups between output rows
    __host__ __device__ void operator()(std::ptrdiff_t k, RowLanes<R> through_word) const {
        uint32_t s3 = 0, b1 = 0, b2 = 0, b3 = 0;  // over rows 0..r: the sum through word k, its bytes 1..3
        for (int r = 0; r < R; ++r) {
            const uint32_t word = words[r * in_pitch + k];
            s3 += through_word.sum[r];
            b1 += word >> 8 & 0xffu, b2 += word >> 16 & 0xffu, b3 += word >> 24;
            quads[r * out_pitch + k] = word_sums(s3, b1, b2, b3);
        }
    }
};
// u8 -> i32 images of 2 or 3 columns (N x C with pitches of C) in one scan down the columns: item
// k is rows 4k..4k+3, the C words from byte 4Ck; lane c holds column c's bytes summed over those
// rows. Row r's sums are the column sums through it, added left to right; the output iterator
// reads the item's words again and stores its 4 rows of C sums as C 16-byte groups.
template <int C>
struct PackedRowQuadSums {  // item k: column c's bytes of rows 4k..4k+3, summed, in lane c
    const uint32_t* words;
    __host__ __device__ RowLanes<C> operator()(uint32_t k) const {
        RowLanes<C> lanes{};
        for (int w = 0; w < C; ++w) {
            const uint32_t word = words[std::size_t(C) * k + w];
            for (int b = 0; b < 4; ++b) lanes.sum[(4 * w + b) % C] += word >> 8 * b & 0xffu;
        }
        return lanes;
    }
};
template <int C>
struct WritePackedColumns {
    const uint32_t* words;
    int4* quads;  // C groups per item
    __host__ __device__ void operator()(std::ptrdiff_t k, RowLanes<C> through_item) const {
        uint32_t bytes[4 * C];  // element e of the item: row e / C, column e % C
        for (int w = 0; w < C; ++w) {
            const uint32_t word = words[std::size_t(C) * k + w];
            for (int b = 0; b < 4; ++b) bytes[4 * w + b] = word >> 8 * b & 0xffu;
        }
        uint32_t column[C];  // column c's sum through the row before the item
        for (int c = 0; c < C; ++c) {
            column[c] = through_item.sum[c];
            for (int r = 0; r < 4; ++r) column[c] -= bytes[r * C + c];
        }
        uint32_t sums[4 * C];
        for (int r = 0; r < 4; ++r) {
            uint32_t row = 0;
            for (int c = 0; c < C; ++c) {
                column[c] += bytes[r * C + c];
                row += column[c];
                sums[r * C + c] = row;
            }
        }
        for (int g = 0; g < C; ++g)
            quads[std::size_t(C) * k + g] =
                make_int4(int(sums[4 * g]), int(sums[4 * g + 1]), int(sums[4 * g + 2]), int(sums[4 * g + 3]));
    }
};
// f32, f64 and i32 images of 2 or 3 rows in one scan (rows_in_lanes): item k holds element k of
// each row, a lane each, so that one scan carries every row's prefix and reads each element once;
// row j's output adds lanes 0..j. i32 takes uint32_t lanes, whose sums wrap as the element path's.
template <class T>
using lane_of = std::conditional_t<std::is_same_v<T, int32_t>, uint32_t, T>;
template <int R, class T>
struct PackedElements {  // item k: element k of rows 0..R-1
    const T* in;
    std::size_t pitch;  // elements between rows
    __host__ __device__ RowLanes<R, lane_of<T>> operator()(uint32_t k) const {
        RowLanes<R, lane_of<T>> lanes;
        for (int r = 0; r < R; ++r) lanes.sum[r] = lane_of<T>(in[r * pitch + k]);
        return lanes;
    }
};
template <int R, class T>
struct WritePackedElements {
    T* out;
    std::size_t pitch;
    __host__ __device__ void operator()(std::ptrdiff_t k, RowLanes<R, lane_of<T>> through_element) const {
        lane_of<T> sum = 0;  // rows 0..r's prefixes through column k
        for (int r = 0; r < R; ++r) {
            sum += through_element.sum[r];
            out[r * pitch + k] = T(sum);
        }
    }
};
// f32 and i32 images of 2 rows of whole 16-byte groups (rows_in_groups; the functors take 3 rows
// and f64 too, as measured in docs/thin.md): item k holds the sum of group k of each row
// (V = 16 / sizeof(T) elements), a lane each, so that an item moves 16 bytes of every row with
// one load per row. The scan is exclusive: the output iterator gets each row's prefix before the
// group (CUB's sum over the groups before), reads the group again (expected from L1 or L2) and
// adds its elements to it one by one, so no output is a total less the elements after it (f32
// outputs are never formed by subtraction).
template <class T>
struct alignas(16) Group16 {
    T v[16 / sizeof(T)];
};
template <int R, class T>
struct PackedGroupSums {  // item k: the sum of group k of rows 0..R-1
    const Group16<T>* groups;
    std::size_t pitch;  // groups between rows
    __host__ __device__ RowLanes<R, lane_of<T>> operator()(uint32_t k) const {
        RowLanes<R, lane_of<T>> lanes;
        for (int r = 0; r < R; ++r) {
            const Group16<T> g = groups[r * pitch + k];
            lane_of<T> sum = 0;
            for (int v = 0; v < int(16 / sizeof(T)); ++v) sum += lane_of<T>(g.v[v]);
            lanes.sum[r] = sum;
        }
        return lanes;
    }
};
template <int R, class T>
struct WritePackedGroups {
    const Group16<T>* in;
    std::size_t in_pitch;  // groups
    Group16<T>* out;
    std::size_t out_pitch;
    __host__ __device__ void operator()(std::ptrdiff_t k, RowLanes<R, lane_of<T>> before_group) const {
        constexpr int V = int(16 / sizeof(T));
        lane_of<T> column[V] = {};  // rows 0..r's prefixes through each column of the group
        for (int r = 0; r < R; ++r) {
            const Group16<T> g = in[r * in_pitch + k];
            lane_of<T> run = before_group.sum[r];  // row r's prefix
            Group16<T> sums;
            for (int v = 0; v < V; ++v) {
                run += lane_of<T>(g.v[v]);
                column[v] += run;
                sums.v[v] = T(column[v]);
            }
            out[r * out_pitch + k] = sums;
        }
    }
};
// Device scratch the call needs: a zeroed part (ticket, flags) followed by a value part (the
// published K-vectors). Zeroing all of it is simplest and costs little (it is < 1 % of the
// output). 0 for an empty or non-applicable shape. images: a batch of that many (scan).
template <class In, class Out>
std::size_t scratch_bytes(int rows, int cols, int images = 1);

// Launch on `stream`. scratch: >= scratch_bytes, its flags as `flags` says (common/sat.h: zero,
// to clear here, or just cleared by clear_flags), or nullptr (allocated, cleared and freed
// stream-ordered inside). status: device int set to
// sat::status_spin_timeout when a chunk waited 2 s for another one (may be null). Pitches in
// elements (>= cols; any value). Returns cudaErrorInvalidValue for a bad argument or a shape
// that is not applicable; rows or cols of 0 do nothing. A batch of `images` rows x cols images,
// image b at in + b * in_stride and out + b * out_stride (elements), is one launch: chunks are
// handed out image after image.
// Instantiated for (float, float), (double, double), (int32_t, int32_t), (uint8_t, int32_t),
// (uint8_t, float), (uint16_t, double), (float, double).
template <class In, class Out>
cudaError_t scan(const In* in, std::size_t in_pitch, Out* out, std::size_t out_pitch, int rows,
                 int cols, cudaStream_t stream, void* scratch, int* status, int images = 1,
                 std::size_t in_stride = 0, std::size_t out_stride = 0,
                 Flags flags = Flags::zero);

// For the tests: the blocks per SM the plan of this shape counts on (planned: what the kernel's
// __launch_bounds__ and the chunk's shared memory allow on an sm_90 SM) and those the current
// device keeps resident with that kernel and chunk (resident).
template <class In, class Out>
cudaError_t blocks_per_sm(int rows, int cols, int images, int* planned, int* resident);

// One image of one line with contiguous elements (1 x N, or N x 1 with pitches of 1) is a 1-D
// inclusive scan: line_scan hands it to CUB's DeviceScan (the same decoupled look-back, tuned
// per GPU), which runs it faster than scan's chunks (docs/thin.md). No spin timeout of ours.
bool is_line(int rows, int cols, std::size_t in_pitch, std::size_t out_pitch);
// Device scratch line_scan needs for n elements on either of its paths (need not be zeroed), as
// CUB sizes it for the current device (one size on every device of a one-architecture build); 0
// when CUB cannot say
// (no device, or none usable now): scratch sized then is too small for a later line_scan on a
// device, which uses the scratch it is given; only a null scratch makes it allocate its own.
template <class In, class Out>
std::size_t line_scratch_bytes(int n);
// Whether line_scan hands CUB words of four elements (u8 -> i32 only: n a multiple of 4, `in`
// 4-byte and `out` 16-byte aligned), which it loads 4 bytes and stores 16 at a time; else CUB
// scans element by element.
template <class In, class Out>
bool line_in_words(const In* in, const Out* out, int n);
// One u8 -> i32 image of 2 or 3 rows whose rows are whole words (cols a multiple of 4, pitches
// multiples of 4, `in` 4-byte and `out` 16-byte aligned) is a CUB scan over its words, each
// item a word of four as in a line's. Where rows_packed says so (3 rows; 2 rows narrower than
// 20,000,000), one scan whose item holds every row's word sum, a 32-bit lane each; else one scan
// per row, row j's item the word's column sum over rows 0..j. rows_scratch_bytes: CUB's scratch
// for the scan or scans (0 for other shapes, or where CUB cannot say; as for line_scratch_bytes,
// scratch sized then is too small for a later rows_scan on a device). rows_scan sets *packed
// (where not nullptr) to whether it ran the packed scan.
template <class In, class Out>
bool rows_in_words(const In* in, std::size_t in_pitch, const Out* out, std::size_t out_pitch, int rows, int cols);
bool rows_packed(int rows, int cols);  // rows_in_words's shapes: one packed scan (else a scan per row)
// f32, f64 and i32 images of 2 or 3 rows narrower than 2 MiB a row (fewer than 524,288 f32 or
// i32 columns, or 262,144 f64), any pitches (In == Out): one CUB scan whose item holds a column's
// elements, a lane each (PackedElements), 256 threads of 8 items (4 for f64); rows of 2 MiB or
// more take the chunks (docs/thin.md). rows_scratch_bytes and rows_scan serve them too
// (rows_scan's *packed: true).
template <class In, class Out>
bool rows_in_lanes(int rows, int cols);
// f32 and i32 images of 2 rows of 2 MiB or more (524,288 columns) whose rows are whole 16-byte
// groups (cols and pitches multiples of 4, `in` and `out` 16-byte aligned; In == Out): one CUB
// scan whose item holds a group's sum in each row (PackedGroupSums), 256 threads of 8 items;
// rows_scratch_bytes and rows_scan serve them too (rows_scan's *packed and *group_lanes: true).
template <class In, class Out>
bool rows_in_groups(const In* in, std::size_t in_pitch, const Out* out, std::size_t out_pitch, int rows, int cols);
template <class In, class Out>
std::size_t rows_scratch_bytes(int rows, int cols);
template <class In, class Out>
cudaError_t rows_scan(const In* in, std::size_t in_pitch, Out* out, std::size_t out_pitch, int rows, int cols,
                      cudaStream_t stream, void* scratch, bool* packed = nullptr, bool* group_lanes = nullptr);
// One u8 -> i32 image of 2 or 3 contiguous columns (N x C with pitches of C, N a multiple of 4,
// `in` 4-byte and `out` 16-byte aligned) is one CUB scan down its columns, each item 4 rows with a
// 32-bit lane per column (PackedRowQuadSums), 256 threads of 8 items at every height.
// columns_scratch_bytes: CUB's scratch for it (0 for other shapes, or where CUB cannot say; as for
// line_scratch_bytes, scratch sized then is too small for a later columns_scan on a device).
template <class In, class Out>
bool columns_in_words(const In* in, std::size_t in_pitch, const Out* out, std::size_t out_pitch, int rows, int cols);
template <class In, class Out>
std::size_t columns_scratch_bytes(int rows, int cols);
template <class In, class Out>
cudaError_t columns_scan(const In* in, std::size_t in_pitch, Out* out, std::size_t out_pitch, int rows, int cols,
                         cudaStream_t stream, void* scratch);
// scratch: at least line_scratch_bytes(n), or nullptr (allocated and freed stream-ordered).
template <class In, class Out>
cudaError_t line_scan(const In* in, Out* out, int n, cudaStream_t stream, void* scratch);

}  // namespace thin
}  // namespace sat
