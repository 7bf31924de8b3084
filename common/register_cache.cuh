// register_cache.cuh — what lab 7's kernels (solutions/lab7_register_cache.cu) stand on: the
// block shapes and the host-side choices between them (tuned on an H200 at 16384^2; docs/lab7.md),
// the types they keep in shared memory and registers, the 16-byte row pieces of ScanRowColumn-16B,
// and the six variants with their registration.
#pragma once

#include "device.cuh"

namespace lab7 {

using sat::ceil_div, sat::w;
[[maybe_unused]] constexpr unsigned full_mask = 0xffffffffu;  // shuffles: all 32 lanes take part

// Block shapes, in warps (tuned on an H200 at 16384^2; docs/lab7.md).
// The strip pass: NR strips of 32 rows stacked x NC tiles side by side. A warp needs its own
// 32 x 33 transpose buffer (Alg. 5's sMem[S][32][33]), so the buffers are dynamic shared memory.
// Stacked strips make each transposed store run longer (32*NR consecutive words of out_t).
template <class Out>
constexpr int strip_rows_per_block() { return sizeof(Out) <= 4 ? 4 : 1; }
template <class Out>
constexpr int strip_tiles_per_block() { return sizeof(Out) <= 4 ? 2 : 4; }
// ScanRow: NW warps, one row each; rows of at least NW * 1024 elements get all NW warps of a
// block side by side (see scan_rows). ScanColumn: NC bands of 32 columns x NR tiles down; wide
// matrices get 4 bands x 4 tiles (512-byte row segments: 92 % of a copy at 16384^2 instead of
// 88 %); below 128 such blocks (16384 columns) too many SMs sit idle, so narrower ones keep 2
// bands x 4 tiles.
template <class Out>
constexpr int warps_per_block() { return sizeof(Out) <= 4 ? 8 : 4; }
template <class Out>
constexpr int band_cols_per_block() { return sizeof(Out) <= 4 ? 2 : 1; }
// From wide_min_cols columns on; 8-byte types keep their one band (the same kernel).
template <class Out>
constexpr int wide_band_cols() { return sizeof(Out) <= 4 ? 4 : band_cols_per_block<Out>(); }
constexpr int wide_min_cols = 128 * 4 * 32;
// u8 input keeps stacked rows in ScanRow: side by side it was 2 % (16384^2) to 13 % (8192^2) slower.
template <class In, class Out>
constexpr bool side_by_side_rows_ok() { return sizeof(In) == sizeof(Out); }
// ScanRow puts the NW warps of a block side by side on one row when the row has NW pieces of 1024.
template <class In, class Out>
bool rows_side_by_side(sat::Shape s) {
    return side_by_side_rows_ok<In, Out>() && s.cols >= warps_per_block<Out>() * w * w;
}
// ScanRowColumn-16B: TD warps x RT rows a thread. 32 x 4 (16 values a thread) measured 97 % of a
// copy at 16384^2 f32, 16 x 8 and 8 x 16 94 %. 8-byte types have twice the bands: 16 x 4, so two
// blocks fit an SM.
template <class Out>
constexpr int band16_warps() { return sizeof(Out) <= 4 ? 32 : 16; }
constexpr int band16_rows_per_thread = 4;
// The 16-byte ScanColumn needs rows that start on 16 bytes, and at least 128 bands of 32 * V
// columns (fewer leave most SMs idle: it runs the paper's ScanColumn then).
template <class Out>
bool columns_fit_16_bytes(const Out* m, sat::Shape s) {
    constexpr int V = sat::vec_of<Out>();
    return s.cols % V == 0 && reinterpret_cast<std::uintptr_t>(m) % 16 == 0 && s.cols >= 128 * w * V;
}

// The strip pass's shared memory: a 32 x 33 transpose buffer per warp (Alg. 5's sMem[S][32][33])
// and the row totals the NC warps of a strip exchange.
template <class Out, int NR, int NC>
struct StripShared {
    Out transpose_buffer[NR * NC][w][w + 1];
    Out warp_row_totals[NR][NC][w];
};

// ScanRowColumn-16B: the V = 16 / sizeof(Out) adjacent columns a thread owns, added as one value.
template <class Out>
struct alignas(16) ColumnsOf16Bytes {
    Out v[sat::vec_of<Out>()];
    __device__ ColumnsOf16Bytes& operator+=(const ColumnsOf16Bytes& o) {
#pragma unroll
        for (int k = 0; k < sat::vec_of<Out>(); ++k) v[k] += o.v[k];
        return *this;
    }
};

// Rows r0 .. r0 + RT - 1 of the V columns from column c, one 16-byte access each; zeros past the
// last row or column. Plain accesses (no __restrict__, no read-only path): the pass runs in place.
// (c by reference: nvcc then orders the column test as it did when this was the kernel's lambda.)
template <int RT, class Out, class Cols>
__device__ __forceinline__ void load_rows_16_bytes(const Out* in, sat::Shape s, int r0, const int& c,
                                                   Cols (&rows)[RT]) {
#pragma unroll
    for (int i = 0; i < RT; ++i)
        rows[i] = c < s.cols && r0 + i < s.rows
                      ? *reinterpret_cast<const Cols*>(in + std::size_t(r0 + i) * s.cols + c)
                      : Cols{};
}
template <int RT, class Out, class Cols>
__device__ __forceinline__ void store_rows_16_bytes(Out* out, sat::Shape s, int r0, int c,
                                                    const Cols (&rows)[RT]) {
#pragma unroll
    for (int i = 0; i < RT; ++i)
        if (c < s.cols && r0 + i < s.rows)
            *reinterpret_cast<Cols*>(out + std::size_t(r0 + i) * s.cols + c) = rows[i];
}

// ---- The variants ------------------------------------------------------------------------------
// How a row is scanned: serially after the BRLT (BRLT-ScanRow), or with shuffles (the others).
enum class RowScan { serial, kogge_stone, ladner_fischer };

// The lab file's launchers: the strip pass twice (BRLT-ScanRow, ScanRow-BRLT), and ScanRowColumn.
template <RowScan scan, class In, class Out>
void run_twice_transposed(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream);
template <RowScan scan, bool columns_16_bytes, class In, class Out>
void run_scan_row_column(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream);

// The six variants, each a template <In, Out> with the harness's signature (in, out, s, ws, st),
// as SAT_VARIANT takes them.
struct Variants {
#define LAB7_VARIANT(name, call)                                                                   \
    template <class In, class Out>                                                                 \
    static void name(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t st) {  \
        call(in, out, s, ws, st);                                                                  \
    }
    LAB7_VARIANT(brlt_scan_row, (run_twice_transposed<RowScan::serial>))
    LAB7_VARIANT(scan_row_brlt, (run_twice_transposed<RowScan::kogge_stone>))
    LAB7_VARIANT(scan_row_brlt_lf, (run_twice_transposed<RowScan::ladner_fischer>))
    LAB7_VARIANT(scan_row_column, (run_scan_row_column<RowScan::kogge_stone, false>))
    LAB7_VARIANT(scan_row_column_lf, (run_scan_row_column<RowScan::ladner_fischer, false>))
    LAB7_VARIANT(scan_row_column_16b, (run_scan_row_column<RowScan::kogge_stone, true>))
#undef LAB7_VARIANT
};

// What the harness shows of lab 7 (name, HMM cost key and summary of each variant); the lab file
// registers lab_info<Variants>(). A template, so that a lab which includes lab 7's file (lab 8)
// instantiates none of the variants.
template <class V>
sat::LabInfo lab_info() {
    return {7, "Register cache: ScanRow-BRLT, BRLT-ScanRow, ScanRowColumn",
            "Chen et al. 2018, sections IV-V", /*gpu=*/true,
            {SAT_VARIANT("BRLT-ScanRow", "BRLT-ScanRow",
                         "BRLT, serial row scan in registers, store transposed; run twice",
                         V::template brlt_scan_row),
             SAT_VARIANT("ScanRow-BRLT", "ScanRow-BRLT",
                         "Kogge-Stone shuffle row scan, BRLT, store transposed; run twice",
                         V::template scan_row_brlt),
             SAT_VARIANT("ScanRow-BRLT-LF", "ScanRow-BRLT",
                         "as ScanRow-BRLT with a Ladner-Fischer shuffle scan",
                         V::template scan_row_brlt_lf),
             SAT_VARIANT("ScanRowColumn", "ScanRowColumn",
                         "warp-per-row Kogge-Stone ScanRow, then serial ScanColumn (in place)",
                         V::template scan_row_column),
             SAT_VARIANT("ScanRowColumn-LF", "ScanRowColumn",
                         "as ScanRowColumn with a Ladner-Fischer shuffle scan",
                         V::template scan_row_column_lf),
             SAT_VARIANT("ScanRowColumn-16B", "ScanRowColumn",
                         "as ScanRowColumn, ScanColumn with 16-byte accesses (wide matrices)",
                         V::template scan_row_column_16b)},
            /*default_shapes=*/{{1024, 1024}, {4096, 4096}, {16384, 16384}}};
}

}  // namespace lab7
