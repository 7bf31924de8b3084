// Lab 7 — SAT with a register cache: ScanRow-BRLT, BRLT-ScanRow and ScanRowColumn
// (Chen, Wahib, Takizawa, Takano, Matsuoka 2018, sections IV and V).
//
// Every kernel caches a 32 x 32 tile in the registers of one warp: lane L, register j is
//   loaded   (lane = column)  data[j] = tile[j][lane]   what a coalesced load gives
//   BRLT'ed  (lane = row)     data[j] = tile[lane][j]   after brlt_transpose
// A scan along one thread's registers is serial (31 adds, no communication); across the lanes it
// needs shuffles (Kogge-Stone or Ladner-Fischer). The algorithms (docs/lab7.md):
//   BRLT-ScanRow  (run twice)  load, BRLT, serial row scan, store transposed.
//   ScanRow-BRLT  (run twice)  load, shuffle row scan, BRLT, store transposed.
//   ScanRowColumn              ScanRow: a warp scans a row with shuffles, 1024 elements a step;
//                              ScanColumn: a serial column scan down 32-row tiles.
// Scanning rows and storing transposed, twice, is the SAT. Integer sums wrap modulo 2^32 in Out.
#include "register_cache.cuh"  // block shapes, StripShared, ColumnsOf16Bytes
#include "register_tile.cuh"

namespace lab7 {

using sat::ceil_div;
using sat::w;

[[maybe_unused]] constexpr unsigned full_mask = 0xffffffffu;  // all 32 lanes always take part

enum class RowScan { serial, kogge_stone, ladner_fischer };

// ---- Warp-level building blocks ---------------------------------------------------------------

// Inclusive Kogge-Stone scan of x across the 32 lanes (Alg. 3): 5 shuffle steps.
template <class T>
__device__ __forceinline__ T warp_scan_kogge_stone(T x, int lane) {
    // BEGIN SOLUTION hint: for d = 1, 2, 4, 8, 16: up = __shfl_up_sync(full_mask, x, d); lanes >= d add up
#pragma unroll
    for (int d = 1; d < w; d *= 2) {
        const T up = __shfl_up_sync(full_mask, x, d);
        if (lane >= d) x += up;
    }
    // END SOLUTION
    return x;
}

// Inclusive Ladner-Fischer scan of x across the 32 lanes (Alg. 4): in step d the upper half of
// every group of 2d lanes adds the last value of the lower half.
template <class T>
__device__ __forceinline__ T warp_scan_ladner_fischer(T x, int lane) {
    // BEGIN SOLUTION hint: for d = 1..16 (doubling): v = __shfl_sync(full_mask, x, (lane & ~(2d-1)) + d - 1); lanes with bit d set add v
#pragma unroll
    for (int d = 1; d < w; d *= 2) {
        const int last_of_lower_half = (lane & ~(2 * d - 1)) + d - 1;
        const T v = __shfl_sync(full_mask, x, last_of_lower_half);
        if (lane & d) x += v;
    }
    // END SOLUTION
    return x;
}

template <RowScan scan, class T>
__device__ __forceinline__ T warp_scan(T x, int lane) {
    if constexpr (scan == RowScan::ladner_fischer) return warp_scan_ladner_fischer(x, lane);
    else return warp_scan_kogge_stone(x, lane);
}

// Block-Register-Local-Transpose (Alg. 5) of the warp's 32 x 32 register matrix through a
// 32 x 33 shared buffer: data[j] = tile[j][lane] becomes data[j] = tile[lane][j]. The 33rd
// column shifts each row by one bank, so both the row writes and the column reads are
// conflict-free.
template <class T>
__device__ __forceinline__ void brlt_transpose(T (&data)[w], T (*buffer)[w + 1], int lane) {
    // BEGIN SOLUTION hint: write data[j] to buffer[j][lane], __syncwarp(), read data[j] from buffer[lane][j], __syncwarp()
#pragma unroll
    for (int j = 0; j < w; ++j) buffer[j][lane] = data[j];
    __syncwarp();
#pragma unroll
    for (int j = 0; j < w; ++j) data[j] = buffer[lane][j];
    __syncwarp();  // the buffer is free again before the warp's next transpose writes to it
    // END SOLUTION
}

// Serial inclusive scan along the registers of one thread (Alg. 2): no communication at all.
template <class T>
__device__ __forceinline__ void serial_scan(T (&data)[w]) {
    // BEGIN SOLUTION hint: data[j] += data[j - 1] for j = 1 .. 31
#pragma unroll
    for (int j = 1; j < w; ++j) data[j] += data[j - 1];
    // END SOLUTION
}

// Carry across the K warps of group g of a block (the warps side by side on a strip or a row,
// or stacked on a band of columns), Fig. 3c: warp k posts its total and gets back the totals of
// warps 0 .. k-1 plus `carry`; `carry` then grows by the group's total, for the next step.
// A total is per lane (slot = lane, L = 32), or one per warp (slot 0, L = 1) when it is the same
// in every lane. Every thread of the block must call it (two block barriers).
template <class T, int G, int K, int L>
__device__ __forceinline__ T carry_from_warps_before(T (&totals)[G][K][L], int g, int k,
                                                     int slot, T my_total, T& carry) {
    T before = carry;
    // BEGIN SOLUTION hint: post my_total in totals[g][k][slot], __syncthreads(), add the totals of warps 0..k-1 to before, __syncthreads(), add all K to carry (T may be a struct: start sums from T{}, add with += only)
    totals[g][k][slot] = my_total;
    __syncthreads();
    T group_total{};
#pragma unroll
    for (int i = 0; i < K; ++i) {
        const T t = totals[g][i][slot];
        if (i < k) before += t;
        group_total += t;
    }
    __syncthreads();  // every warp has read the totals before the next step overwrites them
    carry += group_total;
    // END SOLUTION
    return before;
}

// ---- BRLT-ScanRow and ScanRow-BRLT: one pass = row prefix sums, stored transposed -----------
//
// A block of NR x NC warps owns NR strips of 32 rows and walks them left to right, NC tiles
// (NC * 32 columns) at a time; warp (tile_r, tile_c) takes tile tile_c of strip tile_r. After
// the transpose, lane L holds row r0+L of its tile, so the carry from the tiles on the left is
// one register per thread; the NC warps of a strip exchange their row totals through shared
// memory (Fig. 3c). Output: out_t is the cols x rows transpose,
// out_t[c * rows + r] = sum_{c' <= c} in[r][c'].
template <class In, class Out, RowScan scan, int NR, int NC>
__global__ void __launch_bounds__(NR * NC * w)
scan_rows_transposed(const In* __restrict__ in, Out* __restrict__ out_t, sat::Shape s) {
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    auto& sh = *reinterpret_cast<StripShared<Out, NR, NC>*>(shared_bytes);
    auto& transpose_buffer = sh.transpose_buffer;
    auto& warp_row_totals = sh.warp_row_totals;
    const int lane = threadIdx.x % w;
    const int warp = threadIdx.x / w;
    const int tile_r = warp / NC, tile_c = warp % NC;
    const int r0 = (blockIdx.x * NR + tile_r) * w;  // this warp's strip: rows r0 .. r0+31
    Out row_carry = 0;              // sum of row r0+lane over all columns left of this chunk

    // Look-ahead (software pipelining): the loads of the next chunk are issued before the work
    // on this one, so they are in flight during the shuffles, the transpose and the stores.
    Out next[w];
    sat::load_register_tile(in, s, r0, tile_c * w, lane, next);  // lane = column, next[j] = row r0+j
    for (int chunk = 0; chunk < s.cols; chunk += NC * w) {
        const int c0 = chunk + tile_c * w;  // this warp's tile: columns c0 .. c0+31
        Out data[w];
#pragma unroll
        for (int j = 0; j < w; ++j) data[j] = next[j];
        if (chunk + NC * w < s.cols) sat::load_register_tile(in, s, r0, c0 + NC * w, lane, next);

        // BEGIN SOLUTION hint: scan each row of the tile (shuffle scan before the BRLT, or serial scan after it), then add the carries
        if constexpr (scan != RowScan::serial) {
            // ScanRow-BRLT: row j of the tile is register j across the 32 lanes.
#pragma unroll
            for (int j = 0; j < w; ++j) data[j] = warp_scan<scan>(data[j], lane);
        }
        brlt_transpose(data, transpose_buffer[warp], lane);  // lane = row r0+lane, data[j] = column c0+j
        if constexpr (scan == RowScan::serial) serial_scan(data);  // BRLT-ScanRow

        // Carry across the warps of this chunk and from the chunks to the left.
        const Out left_of_tile =
            carry_from_warps_before(warp_row_totals, tile_r, tile_c, lane, data[w - 1], row_carry);
#pragma unroll
        for (int j = 0; j < w; ++j) data[j] += left_of_tile;
        // END SOLUTION

        // Transposed, coalesced store: for each j the warp writes 32 consecutive elements
        // out_t[(c0+j) * rows + r0 .. r0+31].
        const int r = r0 + lane;
        if (r < s.rows) {
#pragma unroll
            for (int j = 0; j < w; ++j)
                if (c0 + j < s.cols) out_t[std::size_t(c0 + j) * s.rows + r] = data[j];
        }
    }
}

// ---- ScanRowColumn ---------------------------------------------------------------------------

// ScanRow (Fig. 4): a warp scans a row 1024 elements per step: register j of lane L holds
// column c0 + 32j + L (coalesced), each group of 32 is scanned with shuffles and the groups are
// chained through their totals. A block has NR rows x NC warps per row; with NC > 1 (wide rows)
// the warps of a row take consecutive pieces of 1024 and chain them like the strip pass's warps,
// and ptxas is told to fit 2 blocks an SM (the schedule docs/lab7.md measured).
template <class In, class Out, RowScan scan, int NR, int NC>
__global__ void __launch_bounds__(NR * NC * w, NC > 1 ? 2 : 0)
scan_rows(const In* __restrict__ in, Out* __restrict__ out, sat::Shape s) {
    __shared__ Out piece_totals[NR][NC][1];  // a piece's total is the same in every lane
    const int lane = threadIdx.x % w;
    const int warp = threadIdx.x / w;
    const int row_in_block = warp / NC, part = warp % NC;  // part: which piece of NC
    const int row = blockIdx.x * NR + row_in_block;
    // A warp past the last row takes part in the block barriers: it loads zeros, stores nothing.
    const int cols = row < s.rows ? s.cols : 0;
    const In* in_row = in + std::size_t(row < s.rows ? row : 0) * s.cols;
    Out* out_row = out + std::size_t(row) * s.cols;
    Out row_carry = 0;  // sum of the row left of this step, the same in every lane
    constexpr int piece = w * w, step = NC * piece;

    // Look-ahead: the next step's loads are in flight while this step scans (as ScanColumn).
    Out next[w];
    sat::load_register_row(in_row, cols, part * piece, lane, next);
    for (int chunk = 0; chunk < s.cols; chunk += step) {
        const int c0 = chunk + part * piece;  // this warp's piece: columns c0 .. c0+1023
        Out data[w];
#pragma unroll
        for (int j = 0; j < w; ++j) data[j] = next[j];
        if (chunk + step < s.cols) sat::load_register_row(in_row, cols, c0 + step, lane, next);
        // BEGIN SOLUTION hint: shuffle-scan every register, chain the groups (a group's total is in lane 31), then add the carry from the pieces on the left
#pragma unroll
        for (int j = 0; j < w; ++j) data[j] = warp_scan<scan>(data[j], lane);
        // The 32 scans are independent; only the cheap chain below is serial.
        Out piece_total = 0;
#pragma unroll
        for (int j = 0; j < w; ++j) {
            const Out group_total = __shfl_sync(full_mask, data[j], w - 1);
            data[j] += piece_total;
            piece_total += group_total;
        }
        Out left_of_piece = row_carry;
        if constexpr (NC > 1)
            left_of_piece = carry_from_warps_before(piece_totals, row_in_block, part, 0,
                                                    piece_total, row_carry);
        else
            row_carry += piece_total;
#pragma unroll
        for (int j = 0; j < w; ++j) data[j] += left_of_piece;
        // END SOLUTION
#pragma unroll
        for (int j = 0; j < w; ++j) {
            const int c = c0 + j * w + lane;
            if (c < cols) out_row[c] = data[j];
        }
    }
}

// ScanColumn: a block of NR x NC warps owns NC bands of 32 columns and walks down them NR * 32
// rows at a time; each thread scans its column serially in registers (no shuffles), the warps
// of a band exchange their column totals through shared memory. May run in place (in == out):
// every element is read and written by the same thread, read first.
template <class Out, int NR, int NC>
__global__ void __launch_bounds__(NR * NC * w)
scan_columns(const Out* in, Out* out, sat::Shape s) {
    __shared__ Out warp_column_totals[NC][NR][w];
    const int lane = threadIdx.x % w;
    const int warp = threadIdx.x / w;
    const int tile_r = warp / NC, tile_c = warp % NC;
    const int c0 = (blockIdx.x * NC + tile_c) * w;  // this warp's band: columns c0 .. c0+31
    const int c = c0 + lane;
    Out column_carry = 0;  // sum of column c above this step

    Out next[w];  // look-ahead, as in scan_rows_transposed
    sat::load_register_tile(in, s, tile_r * w, c0, lane, next);  // lane = column, next[j] = row
    for (int chunk = 0; chunk < s.rows; chunk += NR * w) {
        const int r0 = chunk + tile_r * w;
        Out data[w];
#pragma unroll
        for (int j = 0; j < w; ++j) data[j] = next[j];
        if (chunk + NR * w < s.rows) sat::load_register_tile(in, s, r0 + NR * w, c0, lane, next);
        // BEGIN SOLUTION hint: serial column scan, then add the totals of the warps above and the carry from the steps above
        serial_scan(data);
        const Out above_tile = carry_from_warps_before(warp_column_totals, tile_c, tile_r, lane,
                                                       data[w - 1], column_carry);
#pragma unroll
        for (int j = 0; j < w; ++j) data[j] += above_tile;
        // END SOLUTION
        if (c < s.cols) {
#pragma unroll
            for (int j = 0; j < w; ++j)
                if (r0 + j < s.rows) out[std::size_t(r0 + j) * s.cols + c] = data[j];
        }
    }
}

// ScanColumn with 16-byte accesses (ScanRowColumn-16B; beyond the paper): a thread owns V =
// 16 / sizeof(Out) adjacent columns and RT rows a step, so a warp access covers 512 bytes of a row.
// TD warps are stacked down a band of 32 * V columns. Plain accesses: the pass runs in place.
template <class Out, int TD, int RT>
__global__ void __launch_bounds__(TD * w)
scan_columns_16b(const Out* in, Out* out, sat::Shape s) {
    using Cols = ColumnsOf16Bytes<Out>;
    constexpr int V = sat::vec_of<Out>();
    __shared__ Cols tile_totals[1][TD][w];
    const int lane = threadIdx.x % w;
    const int tile = threadIdx.x / w;          // this warp's RT rows of each step
    const int c = (blockIdx.x * w + lane) * V;  // this thread's columns: c .. c+V-1
    auto load_rows = [&](int r0, Cols (&rows)[RT]) {  // zeros past the last row or column
#pragma unroll
        for (int i = 0; i < RT; ++i)
            rows[i] = c < s.cols && r0 + i < s.rows
                          ? *reinterpret_cast<const Cols*>(in + std::size_t(r0 + i) * s.cols + c)
                          : Cols{};
    };
    Cols column_carry{};  // sums of this thread's columns above this step
    Cols next[RT];        // look-ahead, as in scan_columns
    load_rows(tile * RT, next);
    for (int chunk = 0; chunk < s.rows; chunk += TD * RT) {
        const int r0 = chunk + tile * RT;
        Cols data[RT];
#pragma unroll
        for (int i = 0; i < RT; ++i) data[i] = next[i];
        if (chunk + TD * RT < s.rows) load_rows(r0 + TD * RT, next);
        // BEGIN SOLUTION hint: serial scan down the RT rows (each of the V columns), then add the totals of the warps above and the carry
#pragma unroll
        for (int i = 1; i < RT; ++i) data[i] += data[i - 1];
        const Cols above_tile =
            carry_from_warps_before(tile_totals, 0, tile, lane, data[RT - 1], column_carry);
#pragma unroll
        for (int i = 0; i < RT; ++i) data[i] += above_tile;
        // END SOLUTION
#pragma unroll
        for (int i = 0; i < RT; ++i)
            if (c < s.cols && r0 + i < s.rows)
                *reinterpret_cast<Cols*>(out + std::size_t(r0 + i) * s.cols + c) = data[i];
    }
}

// ---- Host side -------------------------------------------------------------------------------

// BRLT-ScanRow / ScanRow-BRLT: the same pass twice, through a cols x rows scratch matrix.
template <RowScan scan, class In, class Out>
void run_twice_transposed(const In* in, Out* out, sat::Shape s, sat::Workspace& ws,
                          cudaStream_t stream) {
    constexpr int NR = strip_rows_per_block<Out>(), NC = strip_tiles_per_block<Out>();
    constexpr int shared_bytes = int(sizeof(StripShared<Out, NR, NC>));
    auto pass1 = scan_rows_transposed<In, Out, scan, NR, NC>;
    auto pass2 = scan_rows_transposed<Out, Out, scan, NR, NC>;
    SAT_CUDA(cudaFuncSetAttribute(pass1, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
    SAT_CUDA(cudaFuncSetAttribute(pass2, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
    Out* rows_scanned_t = ws.get<Out>(s.n());  // cols x rows: row prefix sums, transposed
    pass1<<<ceil_div(s.rows, NR * w), NR * NC * w, shared_bytes, stream>>>(in, rows_scanned_t, s);
    SAT_CHECK_LAUNCH("scan_rows_transposed (pass 1)");
    const sat::Shape t{s.cols, s.rows};
    pass2<<<ceil_div(t.rows, NR * w), NR * NC * w, shared_bytes, stream>>>(rows_scanned_t, out, t);
    SAT_CHECK_LAUNCH("scan_rows_transposed (pass 2)");
}

template <RowScan scan, class In, class Out>
void run_scan_row_column(const In* in, Out* out, sat::Shape s, sat::Workspace&,
                         cudaStream_t stream, bool columns_16_bytes = false) {
    constexpr int NW = warps_per_block<Out>();
    constexpr bool side_by_side_ok = side_by_side_rows_ok<In, Out>();
    if (side_by_side_ok && s.cols >= NW * w * w) {  // NW warps side by side on one row
        if constexpr (side_by_side_ok)
            scan_rows<In, Out, scan, 1, NW><<<s.rows, NW * w, 0, stream>>>(in, out, s);
    } else {  // NW rows stacked, one warp each
        scan_rows<In, Out, scan, NW, 1><<<ceil_div(s.rows, NW), NW * w, 0, stream>>>(in, out, s);
    }
    SAT_CHECK_LAUNCH("scan_rows");
    // The 16-byte pass needs rows that start on 16 bytes, and at least 128 bands of 32 * V columns.
    constexpr int V = sat::vec_of<Out>();
    const bool rows_aligned = s.cols % V == 0 && reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
    if (columns_16_bytes && rows_aligned && s.cols >= 128 * w * V) {
        constexpr int TD = band16_warps<Out>(), RT = band16_rows_per_thread;
        scan_columns_16b<Out, TD, RT><<<ceil_div(s.cols, w * V), TD * w, 0, stream>>>(out, out, s);
        SAT_CHECK_LAUNCH("scan_columns_16b");
        return;
    }
    constexpr int NC = band_cols_per_block<Out>(), NR = NW / NC;
    if constexpr (sizeof(Out) <= 4) {
        if (s.cols >= wide_min_cols) {  // the same NR tiles down, wide_band_cols bands across
            constexpr int WC = wide_band_cols;
            scan_columns<Out, NR, WC><<<ceil_div(s.cols, WC * w), NR * WC * w, 0, stream>>>(out, out, s);
            SAT_CHECK_LAUNCH("scan_columns");
            return;
        }
    }
    scan_columns<Out, NR, NC><<<ceil_div(s.cols, NC * w), NW * w, 0, stream>>>(out, out, s);  // in place
    SAT_CHECK_LAUNCH("scan_columns");
}

// The six variants, each with the harness's signature (common/register_cache.cuh).
LAB7_VARIANT(brlt_scan_row, run_twice_transposed<RowScan::serial>(in, out, s, ws, st))
LAB7_VARIANT(scan_row_brlt, run_twice_transposed<RowScan::kogge_stone>(in, out, s, ws, st))
LAB7_VARIANT(scan_row_brlt_lf, run_twice_transposed<RowScan::ladner_fischer>(in, out, s, ws, st))
LAB7_VARIANT(scan_row_column, run_scan_row_column<RowScan::kogge_stone>(in, out, s, ws, st))
LAB7_VARIANT(scan_row_column_16b, run_scan_row_column<RowScan::kogge_stone>(in, out, s, ws, st, true))
LAB7_VARIANT(scan_row_column_lf, run_scan_row_column<RowScan::ladner_fischer>(in, out, s, ws, st))

}  // namespace lab7

#ifndef SAT_INCLUDED_BY_LAB  // registered once, by lab 7's own file
SAT_REGISTER_LAB(([] {
    sat::LabInfo lab;
    lab.number = 7;
    lab.title = "Register cache: ScanRow-BRLT, BRLT-ScanRow, ScanRowColumn";
    lab.source = "Chen et al. 2018, sections IV-V";
    lab.variants = {
        SAT_VARIANT("BRLT-ScanRow", "BRLT-ScanRow",
                    "BRLT, serial row scan in registers, store transposed; run twice",
                    lab7::brlt_scan_row),
        SAT_VARIANT("ScanRow-BRLT", "ScanRow-BRLT",
                    "Kogge-Stone shuffle row scan, BRLT, store transposed; run twice",
                    lab7::scan_row_brlt),
        SAT_VARIANT("ScanRow-BRLT-LF", "ScanRow-BRLT",
                    "as ScanRow-BRLT with a Ladner-Fischer shuffle scan",
                    lab7::scan_row_brlt_lf),
        SAT_VARIANT("ScanRowColumn", "ScanRowColumn",
                    "warp-per-row Kogge-Stone ScanRow, then serial ScanColumn (in place)",
                    lab7::scan_row_column),
        SAT_VARIANT("ScanRowColumn-LF", "ScanRowColumn",
                    "as ScanRowColumn with a Ladner-Fischer shuffle scan",
                    lab7::scan_row_column_lf),
        SAT_VARIANT("ScanRowColumn-16B", "ScanRowColumn",
                    "as ScanRowColumn, ScanColumn with 16-byte accesses (wide matrices)",
                    lab7::scan_row_column_16b),
    };
    lab.default_shapes = {{1024, 1024}, {4096, 4096}, {16384, 16384}};
    return lab;
}()));
#endif
