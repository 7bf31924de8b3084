// peers.cu — what a user would pick instead of the labs, measured through the same harness.
//
// Registered as "lab 0" so that `build/peers` is an ordinary lab binary: the same CLI, checking,
// timing, copy reference and CSV rows as every lab (`make build/peers`, then
// `build/peers --sizes 4096 --type u8i32`). `make bench` runs it next to the labs.
//
//   NPP-integral  nppiIntegral_8u32s_C1R_Ctx from the CUDA toolkit's NPP (libnppist). NPP has
//                 integral images for 8-bit input only (8u -> 32s and 8u -> 32f), so only
//                 --type u8i32 runs; f32, f64 and i32 stop with a clear error. NPP writes a
//                 (H+1) x (W+1) table whose first row and column are zero: the variant computes
//                 into scratch and strips them with one cudaMemcpy2DAsync. A user who needs the
//                 H x W table pays that copy too, so it is inside the measured time.
//                 Compiled only when the Makefile finds libnppist (it passes -DSAT_HAVE_NPP=1);
//                 otherwise every type stops with "built without NPP".
//   CUB-two-pass  the SAT as two CUB passes. Pass 1: one thread block per row, the row in chunks
//                 of 2048 (f64: 1024) elements: cub::BlockLoad (coalesced, warp-striped, then
//                 transposed to a blocked arrangement), cub::BlockScan with a running prefix
//                 carried from chunk to chunk, cub::BlockStore. Pass 2: one thread block per
//                 32-column strip walks down the rows 128 at a time: the 128 x 32 tile goes to
//                 shared memory with coalesced row loads, each warp scans one column with
//                 cub::WarpScan (four 32-row pieces, carrying the column's running total), and
//                 the tile is stored back coalesced. Each pass reads and writes every element
//                 once (about 4n/w in the HMM: twice a copy); pass 2 has only ceil(W/32) blocks,
//                 so it is short of parallelism on narrow matrices.
//
// Neither is an algorithm of the papers: their cost key is "copy", the physical bound, so their
// predicted_ms is the copy time, not a model of them (the plots leave lab 0 out of predicted vs
// measured).
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_scan.cuh>

#include <cstdint>
#include <string>
#include <type_traits>

#include "sat.h"
#include "sat_scan.h"

#if SAT_HAVE_NPP
#include <npp.h>
#endif

namespace peers {

constexpr int w = 32;

// The scan type: Out for floating point; for integers the unsigned type of the same width,
// whose wrap-around is defined and matches the checker (sums modulo 2^32).
template <class Out>
using Acc = sat::Acc<Out>;

// ---- CUB-two-pass, pass 1: row scans --------------------------------------------------------

constexpr int row_threads = 256;
template <class Out>
constexpr int row_items = sizeof(Out) == 8 ? 4 : 8;  // elements per thread per chunk

// The row's running total, handed to BlockScan as its prefix callback: per chunk, warp 0 calls it
// with the chunk's total and gets back the carry that BlockScan adds to every element.
template <class T>
struct RunningPrefix {
    T total;
    __device__ T operator()(T chunk_total) {
        const T carry = total;
        total += chunk_total;
        return carry;
    }
};

// out(i, :) = inclusive prefix sums of in(i, :); one thread block per row i.
template <class In, class Out>
__global__ void __launch_bounds__(row_threads) row_scan_kernel(const In* in, Out* out, int cols) {
    using T = Acc<Out>;
    constexpr int items = row_items<Out>;
    constexpr int chunk = row_threads * items;
    using Load = cub::BlockLoad<In, row_threads, items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using Scan = cub::BlockScan<T, row_threads>;
    using Store = cub::BlockStore<T, row_threads, items, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Scan::TempStorage scan;
        typename Store::TempStorage store;
    } temp;

    const std::size_t row = blockIdx.x;
    const In* src = in + row * cols;
    Out* dst = out + row * cols;
    RunningPrefix<T> prefix{T(0)};
    for (int base = 0; base < cols; base += chunk) {
        const int valid = min(chunk, cols - base);
        In raw[items];
        Load(temp.load).Load(src + base, raw, valid, In(0));
        T values[items];
#pragma unroll
        for (int k = 0; k < items; ++k) values[k] = T(raw[k]);  // u8 -> uint32 etc.
        __syncthreads();  // temp is reused by the scan
        Scan(temp.scan).InclusiveSum(values, values, prefix);
        __syncthreads();
        Store(temp.store).Store(dst + base, values, valid);
        __syncthreads();  // before the next chunk's load reuses temp
    }
}

// ---- CUB-two-pass, pass 2: column scans -----------------------------------------------------

constexpr int col_warps = 32;              // warp c scans column c of the strip
constexpr int col_chunk_rows = 4 * w;      // rows per trip down: 4 loads in flight per thread

// m(:, j) = inclusive prefix sums of m(:, j), in place; one thread block per 32-column strip.
template <class Out>
__global__ void __launch_bounds__(w * col_warps) column_scan_kernel(Out* m, int rows, int cols) {
    using T = Acc<Out>;
    using WarpScan = cub::WarpScan<T>;
    __shared__ T tile[col_chunk_rows][w + 1];  // +1: a column walk hits 32 different banks
    __shared__ typename WarpScan::TempStorage scan_temp[col_warps];

    const int lane = threadIdx.x, warp = threadIdx.y;
    const int col = blockIdx.x * w + lane;  // the column this lane loads and stores
    T carry = T(0);                          // running total of column blockIdx.x * w + warp
    for (int top = 0; top < rows; top += col_chunk_rows) {
        // Coalesced loads: warp y moves rows y, y + 32, y + 64, y + 96 of the chunk.
#pragma unroll
        for (int k = 0; k < col_chunk_rows / col_warps; ++k) {
            const int r = k * col_warps + warp, i = top + r;
            tile[r][lane] = (i < rows && col < cols) ? T(m[std::size_t(i) * cols + col]) : T(0);
        }
        __syncthreads();
        // Warp `warp` scans its column in 32-row pieces, lane = row within the piece.
#pragma unroll
        for (int piece = 0; piece < col_chunk_rows / w; ++piece) {
            T v = tile[piece * w + lane][warp], piece_total;
            WarpScan(scan_temp[warp]).InclusiveSum(v, v, piece_total);
            tile[piece * w + lane][warp] = v + carry;
            carry += piece_total;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < col_chunk_rows / col_warps; ++k) {
            const int r = k * col_warps + warp, i = top + r;
            if (i < rows && col < cols) m[std::size_t(i) * cols + col] = Out(tile[r][lane]);
        }
        __syncthreads();  // the tile is refilled by the next trip
    }
}

template <class In, class Out>
void run_cub_two_pass(const In* in, Out* out, sat::Shape s, sat::Workspace&, cudaStream_t stream) {
    row_scan_kernel<In, Out><<<s.rows, row_threads, 0, stream>>>(in, out, s.cols);
    SAT_CHECK_LAUNCH("row_scan_kernel");
    column_scan_kernel<Out><<<(s.cols + w - 1) / w, dim3(w, col_warps), 0, stream>>>(out, s.rows, s.cols);
    SAT_CHECK_LAUNCH("column_scan_kernel");
}

// ---- NPP-integral ---------------------------------------------------------------------------

#if SAT_HAVE_NPP
// NPP's stream context for `stream` on the current device (what nppGetStreamContext fills in).
NppStreamContext npp_context(cudaStream_t stream) {
    NppStreamContext ctx{};
    int device = 0;
    SAT_CUDA(cudaGetDevice(&device));
    cudaDeviceProp prop;
    SAT_CUDA(cudaGetDeviceProperties(&prop, device));
    unsigned int flags = 0;
    SAT_CUDA(cudaStreamGetFlags(stream, &flags));
    ctx.hStream = stream;
    ctx.nCudaDeviceId = device;
    ctx.nMultiProcessorCount = prop.multiProcessorCount;
    ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
    ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
    ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
    ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
    ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
    ctx.nStreamFlags = flags;
    return ctx;
}
#endif

template <class In, class Out>
void run_npp_integral(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream) {
    if constexpr (!(std::is_same_v<In, uint8_t> && std::is_same_v<Out, int32_t>)) {
        (void)in, (void)out, (void)s, (void)ws, (void)stream;
        throw sat::Error("NPP-integral: not available for this type: NPP's integral image takes 8-bit "
                         "input only (8u->32s, 8u->32f); use --type u8i32");
    } else {
#if SAT_HAVE_NPP
        // NPP's table is (H+1) x (W+1): a zero row on top, a zero column on the left.
        const std::size_t padded_cols = std::size_t(s.cols) + 1;
        Npp32s* padded = ws.get<Npp32s>((std::size_t(s.rows) + 1) * padded_cols);
        static NppStreamContext ctx{};
        static bool have_ctx = false;
        if (!have_ctx || ctx.hStream != stream) ctx = npp_context(stream), have_ctx = true;
        const NppStatus status = nppiIntegral_8u32s_C1R_Ctx(
            in, s.cols, padded, int(padded_cols * sizeof(Npp32s)), NppiSize{s.cols, s.rows}, 0, ctx);
        if (status < 0)  // positive values are warnings
            throw sat::Error("nppiIntegral_8u32s_C1R_Ctx failed with NppStatus " + std::to_string(int(status)));
        SAT_CUDA(cudaMemcpy2DAsync(out, std::size_t(s.cols) * sizeof(Out), padded + padded_cols + 1,
                                   padded_cols * sizeof(Npp32s), std::size_t(s.cols) * sizeof(Out), s.rows,
                                   cudaMemcpyDeviceToDevice, stream));
#else
        (void)in, (void)out, (void)s, (void)ws, (void)stream;
        throw sat::Error("NPP-integral: not available: built without NPP (no libnppist.so in the CUDA "
                         "toolkit's lib64 when build/peers was made)");
#endif
    }
}

// The suite's own library (lib/, docs/library.md): sat::inclusive_scan_2d, given the harness's
// scratch as a caller who keeps it between calls would; the call clears its flags itself
// (clear_flags, which its launch overlaps). A batch (--batch B): the library's batch option, B
// images back to back in one call.
template <class In, class Out>
void run_satlib(const In* in, Out* out, sat::Shape s, sat::Workspace& ws, cudaStream_t stream) {
    const sat::ScanScratchSize need = sat::inclusive_scan_2d_scratch<In, Out>(s.rows, s.cols, ws.batch);
    sat::ScanOptions opt;
    opt.batch.count = ws.batch;
    opt.batch.in_stride = opt.batch.out_stride = s.n();
    opt.state = ws.get<unsigned char>(need.state_bytes);
    if (need.value_bytes > 0) opt.values = ws.get<unsigned char>(need.value_bytes);
    opt.status = ws.status;
    SAT_CUDA(sat::inclusive_scan_2d(in, std::size_t(s.cols), out, std::size_t(s.cols), s.rows, s.cols, stream, opt));
}

}  // namespace peers

SAT_REGISTER_LAB(sat::lab_info(
    0, "peers", "NVIDIA NPP and CUB from the CUDA toolkit, for comparison",
    {
        SAT_VARIANT("NPP-integral", "copy",
                    "nppiIntegral_8u32s (u8i32 only) + a 2-D copy dropping NPP's zero row/column",
                    peers::run_npp_integral),
        SAT_VARIANT("CUB-two-pass", "copy",
                    "row scans with cub::BlockScan, then column scans with cub::WarpScan",
                    peers::run_cub_two_pass),
        sat::batched(SAT_VARIANT("satlib", "copy",
                                 "this suite's library: sat::inclusive_scan_2d (2-D look-back; thin shapes: "
                                 "1-D look-back); a batch in one call",
                                 peers::run_satlib)),
    }));
