// Lab 7 — SAT with a register cache (Chen, Wahib, Takizawa, Takano, Matsuoka 2018, §IV–V).
// A warp caches a 32 x 32 tile in registers, data[j] of each lane (docs/lab7.md):
//   loaded   (lane = column)  data[j] = tile[j][lane]   what a coalesced load gives
//   BRLT'ed  (lane = row)     data[j] = tile[lane][j]   after brlt_transpose
// A scan along a thread's registers is serial (no communication); across the lanes it shuffles.
//   BRLT-ScanRow / ScanRow-BRLT  load, BRLT + serial row scan / shuffle row scan + BRLT, store
//                                transposed; run twice, that is the SAT.
//   ScanRowColumn  ScanRow (a warp shuffle-scans 1024 elements of a row a step), then ScanColumn
//                  (each thread scans its column serially, in place).
// Sums are kept in A = sat::Acc<Out>: unsigned for integers, which wrap modulo 2^32 (defined).
#include "register_cache.cuh"  // block shapes, shared-memory layouts, the variants, registration
#include "register_tile.cuh"   // loads and stores of register tiles and rows

namespace lab7 {

// ---- Warp and block building blocks -----------------------------------------------------------
// Inclusive scan of x across the 32 lanes with shuffles: Kogge-Stone (Alg. 3) or Ladner-Fischer
// (Alg. 4: in step d the upper half of every group of 2d lanes adds the last of the lower half).
template <RowScan scan, class T>
__device__ __forceinline__ T warp_scan(T x, int lane) {
    // BEGIN SOLUTION hint: for d = 1, 2, 4, 8, 16, with if constexpr (scan == RowScan::ladner_fischer) choosing: Kogge-Stone: up = __shfl_up_sync(full_mask, x, d), lanes >= d add up; Ladner-Fischer: v = __shfl_sync(full_mask, x, (lane & ~(2d-1)) + d - 1), lanes with bit d set add v
#pragma unroll
    for (int d = 1; d < w; d *= 2) {
        if constexpr (scan == RowScan::ladner_fischer) {
            const T v = __shfl_sync(full_mask, x, (lane & ~(2 * d - 1)) + d - 1);  // lower half's last
            if (lane & d) x += v;
        } else {
            const T up = __shfl_up_sync(full_mask, x, d);
            if (lane >= d) x += up;
        }
    }
    // END SOLUTION
    return x;
}

// Block-Register-Local-Transpose (Alg. 5) of the warp's 32 x 32 register matrix through a
// 32 x 33 shared buffer: data[j] = tile[j][lane] becomes data[j] = tile[lane][j]. The 33rd
// column shifts each row by one bank: the row writes and the column reads are conflict-free.
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

// Serial inclusive scan along the N registers of one thread (Alg. 2): no communication at all.
template <class T, int N>
__device__ __forceinline__ void serial_scan(T (&data)[N]) {
    // BEGIN SOLUTION hint: data[j] += data[j - 1] for j = 1 .. N-1
#pragma unroll
    for (int j = 1; j < N; ++j) data[j] += data[j - 1];
    // END SOLUTION
}

// Carry across the K warps of group g of a block (Fig. 3c): warp k posts my_total and gets back
// carry + the totals of warps 0 .. k-1; carry then grows by all K, for the next step. A total is
// per lane (slot = lane, L = 32), or per warp (slot 0, L = 1). Every thread of the block calls it.
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

// ---- BRLT-ScanRow and ScanRow-BRLT: one pass = row prefix sums, stored transposed ------------
// A block of NR x NC warps walks NR strips of 32 rows left to right, NC tiles at a time; warp
// (tile_r, tile_c) takes tile tile_c of strip tile_r. out_t[c * rows + r] = sum_{c' <= c} in[r][c'].
template <class In, class Out, RowScan scan, int NR, int NC>
__global__ void __launch_bounds__(NR * NC * w)
scan_rows_transposed(const In* __restrict__ in, Out* __restrict__ out_t, sat::Shape s) {
    using A = sat::Acc<Out>;
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    auto& sh = *reinterpret_cast<StripShared<A, NR, NC>*>(shared_bytes);
    const int lane = threadIdx.x % w, warp = threadIdx.x / w, tile_r = warp / NC, tile_c = warp % NC;
    const int r0 = (blockIdx.x * NR + tile_r) * w;  // this warp's strip: rows r0 .. r0+31
    A row_carry = 0;  // sum of row r0+lane over all columns left of this chunk
    A next[w], data[w];  // look-ahead: next's loads are in flight during the work on data
    sat::load_register_tile(in, s, r0, tile_c * w, lane, next);  // lane = column, next[j] = row r0+j
    for (int chunk = 0; chunk < s.cols; chunk += NC * w) {
        const int c0 = chunk + tile_c * w;  // this warp's tile: columns c0 .. c0+31
        sat::copy_registers(next, data);
        if (chunk + NC * w < s.cols) sat::load_register_tile(in, s, r0, c0 + NC * w, lane, next);
        // BEGIN SOLUTION hint: ScanRow-BRLT: warp_scan<scan> on each register, then brlt_transpose(data, sh.transpose_buffer[warp], lane); BRLT-ScanRow (scan == RowScan::serial): brlt_transpose, then serial_scan. Then sat::add_to_each(data, carry_from_warps_before(sh.warp_row_totals, tile_r, tile_c, lane, data[31], row_carry))
        if constexpr (scan != RowScan::serial)  // ScanRow-BRLT: row j of the tile is register j
#pragma unroll
            for (int j = 0; j < w; ++j) data[j] = warp_scan<scan>(data[j], lane);
        brlt_transpose(data, sh.transpose_buffer[warp], lane);  // lane = row r0+lane, data[j] = column c0+j
        if constexpr (scan == RowScan::serial) serial_scan(data);  // BRLT-ScanRow
        sat::add_to_each(data, carry_from_warps_before(sh.warp_row_totals, tile_r, tile_c, lane,
                                                       data[w - 1], row_carry));
        // END SOLUTION
        sat::store_register_tile_transposed(out_t, s, r0, c0, lane, data);
    }
}

// ---- ScanRowColumn ----------------------------------------------------------------------------
// ScanRow (Fig. 4): register j of lane L holds column c0 + 32j + L of the warp's row (coalesced).
// A block has NR rows x NC warps a row: with NC > 1 (wide rows) the warps take consecutive pieces
// of 1024 and chain them, and ptxas is told to fit 2 blocks an SM (docs/lab7.md measured why).
template <class In, class Out, RowScan scan, int NR, int NC>
__global__ void __launch_bounds__(NR * NC * w, NC > 1 ? 2 : 0)
scan_rows(const In* __restrict__ in, Out* __restrict__ out, sat::Shape s) {
    using A = sat::Acc<Out>;
    __shared__ A piece_totals[NR][NC][1];  // a piece's total is the same in every lane
    const int lane = threadIdx.x % w, warp = threadIdx.x / w;
    const int row_in_block = warp / NC, part = warp % NC, row = blockIdx.x * NR + row_in_block;
    // A warp past the last row takes part in the block barriers: it loads zeros, stores nothing.
    const int cols = row < s.rows ? s.cols : 0;
    const In* in_row = in + std::size_t(row < s.rows ? row : 0) * s.cols;
    Out* out_row = out + std::size_t(row) * s.cols;
    A row_carry = 0;  // sum of the row left of this step, the same in every lane
    constexpr int piece = w * w, step = NC * piece;
    A next[w], data[w];  // look-ahead, as in scan_rows_transposed
    sat::load_register_row(in_row, cols, part * piece, lane, next);
    for (int chunk = 0; chunk < s.cols; chunk += step) {
        const int c0 = chunk + part * piece;  // this warp's piece: columns c0 .. c0+1023
        sat::copy_registers(next, data);
        if (chunk + step < s.cols) sat::load_register_row(in_row, cols, c0 + step, lane, next);
        // BEGIN SOLUTION hint: warp_scan<scan> on every register; chain the 32 groups in order (group j's total is data[j] of lane 31, __shfl_sync; group j adds piece_total, the sum of groups 0..j-1); then the carry from the pieces on the left, added to every data[j]: NC == 1: row_carry, then row_carry += piece_total; NC > 1: carry_from_warps_before(piece_totals, row_in_block, part, 0, piece_total, row_carry)
#pragma unroll
        for (int j = 0; j < w; ++j) data[j] = warp_scan<scan>(data[j], lane);
        A piece_total = 0;
#pragma unroll
        for (int j = 0; j < w; ++j) {
            const A group_total = __shfl_sync(full_mask, data[j], w - 1);
            data[j] += piece_total;
            piece_total += group_total;
        }
        A left_of_piece = row_carry;
        if constexpr (NC > 1)
            left_of_piece = carry_from_warps_before(piece_totals, row_in_block, part, 0,
                                                    piece_total, row_carry);
        else
            row_carry += piece_total;
        sat::add_to_each(data, left_of_piece);
        // END SOLUTION
        sat::store_register_row(out_row, cols, c0, lane, data);
    }
}

// ScanColumn: a block of NR x NC warps walks down NC bands of 32 columns, NR tiles at a time; a
// thread scans its column serially. In place (in == out): a thread reads an element, then writes it.
template <class Out, int NR, int NC>
__global__ void __launch_bounds__(NR * NC * w) scan_columns(const Out* in, Out* out, sat::Shape s) {
    using A = sat::Acc<Out>;
    __shared__ A warp_column_totals[NC][NR][w];
    const int lane = threadIdx.x % w, warp = threadIdx.x / w, tile_r = warp / NC, tile_c = warp % NC;
    const int c0 = (blockIdx.x * NC + tile_c) * w, c = c0 + lane;  // this warp's band: c0 .. c0+31
    A column_carry = 0;  // sum of column c above this step
    A next[w], data[w];  // look-ahead, as in scan_rows_transposed
    sat::load_register_tile(in, s, tile_r * w, c0, lane, next);  // lane = column, next[j] = row
    for (int chunk = 0; chunk < s.rows; chunk += NR * w) {
        const int r0 = chunk + tile_r * w;
        sat::copy_registers(next, data);
        if (chunk + NR * w < s.rows) sat::load_register_tile(in, s, r0 + NR * w, c0, lane, next);
        // BEGIN SOLUTION hint: serial_scan down the registers, then sat::add_to_each(data, carry_from_warps_before(warp_column_totals, tile_c, tile_r, lane, data[31], column_carry))
        serial_scan(data);
        sat::add_to_each(data, carry_from_warps_before(warp_column_totals, tile_c, tile_r, lane,
                                                       data[w - 1], column_carry));
        // END SOLUTION
        if (c < s.cols)
#pragma unroll
            for (int j = 0; j < w; ++j)
                if (r0 + j < s.rows) out[std::size_t(r0 + j) * s.cols + c] = Out(data[j]);
    }
}

// ScanColumn with 16-byte accesses (ScanRowColumn-16B; beyond the paper): a thread owns V = 16 /
// sizeof(Out) columns, a warp a band of 32 * V (512 bytes a row), TD warps stack down it, RT rows each.
template <class Out, int TD, int RT>
__global__ void __launch_bounds__(TD * w) scan_columns_16b(const Out* in, Out* out, sat::Shape s) {
    using Cols = ColumnsOf16Bytes<sat::Acc<Out>>;
    __shared__ Cols tile_totals[1][TD][w];
    const int lane = threadIdx.x % w, tile = threadIdx.x / w;  // tile: this warp's RT rows a step
    const int c = (blockIdx.x * w + lane) * sat::vec_of<Out>();  // this thread's columns: c .. c+V-1
    Cols column_carry{};     // sums of this thread's columns above this step
    Cols next[RT], data[RT];  // look-ahead, as in scan_columns
    load_rows_16_bytes(in, s, tile * RT, c, next);
    for (int chunk = 0; chunk < s.rows; chunk += TD * RT) {
        const int r0 = chunk + tile * RT;
        sat::copy_registers(next, data);
        if (chunk + TD * RT < s.rows) load_rows_16_bytes(in, s, r0 + TD * RT, c, next);
        // BEGIN SOLUTION hint: serial_scan down the RT rows (Cols adds its V columns with +=), then sat::add_to_each(data, carry_from_warps_before(tile_totals, 0, tile, lane, data[RT - 1], column_carry))
        serial_scan(data);
        sat::add_to_each(data, carry_from_warps_before(tile_totals, 0, tile, lane, data[RT - 1],
                                                       column_carry));
        // END SOLUTION
        store_rows_16_bytes(out, s, r0, c, data);
    }
}

// ---- Launchers (declared in register_cache.cuh, with the block shapes) ------------------------
// BRLT-ScanRow / ScanRow-BRLT: the same pass twice, through a cols x rows scratch matrix.
template <RowScan scan, class In, class Out>
void run_twice_transposed(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream) {
    constexpr int NR = strip_rows_per_block<Out>(), NC = strip_tiles_per_block<Out>();
    constexpr int bytes = int(sizeof(StripShared<sat::Acc<Out>, NR, NC>));
    auto pass = [&](auto kernel, const auto* from, Out* to, sat::Shape from_shape) {
        SAT_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
        kernel<<<ceil_div(from_shape.rows, NR * w), NR * NC * w, bytes, stream>>>(from, to, from_shape);
        SAT_CHECK_LAUNCH("scan_rows_transposed");
    };
    Out* rows_scanned_t = ws.get<Out>(s.n());  // cols x rows: row prefix sums, transposed
    pass(scan_rows_transposed<In, Out, scan, NR, NC>, in, rows_scanned_t, s);
    pass(scan_rows_transposed<Out, Out, scan, NR, NC>, rows_scanned_t, out, sat::Shape{s.cols, s.rows});
}

// ScanRowColumn: ScanRow into out, then ScanColumn in place.
template <RowScan scan, bool columns_16_bytes, class In, class Out>
void run_scan_row_column(const In* in, Out* out, sat::Shape s, sat::Workspace&, cudaStream_t stream) {
    constexpr int NW = warps_per_block<Out>(), SR = side_by_side_rows_ok<In, Out>() ? 1 : NW;
    if (rows_side_by_side<In, Out>(s))  // NW warps side by side on SR = 1 row (never for u8 input)
        scan_rows<In, Out, scan, SR, NW / SR><<<ceil_div(s.rows, SR), NW * w, 0, stream>>>(in, out, s);
    else  // NW rows stacked, one warp each
        scan_rows<In, Out, scan, NW, 1><<<ceil_div(s.rows, NW), NW * w, 0, stream>>>(in, out, s);
    SAT_CHECK_LAUNCH("scan_rows");
    constexpr int NC = band_cols_per_block<Out>(), NR = NW / NC, WC = wide_band_cols<Out>();
    constexpr int TD = band16_warps<Out>(), RT = band16_rows_per_thread, V = sat::vec_of<Out>();
    if (columns_16_bytes && columns_fit_16_bytes(out, s))
        scan_columns_16b<Out, TD, RT><<<ceil_div(s.cols, w * V), TD * w, 0, stream>>>(out, out, s);
    else if (s.cols >= wide_min_cols)  // the same NR tiles down, WC bands across
        scan_columns<Out, NR, WC><<<ceil_div(s.cols, WC * w), NR * WC * w, 0, stream>>>(out, out, s);
    else
        scan_columns<Out, NR, NC><<<ceil_div(s.cols, NC * w), NR * NC * w, 0, stream>>>(out, out, s);
    SAT_CHECK_LAUNCH("scan_columns");
}

}  // namespace lab7

#ifndef SAT_INCLUDED_BY_LAB  // registered once, by lab 7's own file
SAT_REGISTER_LAB(lab7::lab_info<lab7::Variants>());
#endif
