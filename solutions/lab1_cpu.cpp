// Lab 1 — the SAT on the CPU (Kasagi et al. 2014, section VIII).
//
// The baseline every GPU speed-up in this suite is quoted against. Three variants:
//   2R2W(CPU)  column-wise prefix sums in raster order, then row-wise prefix sums:
//              each element is read and written twice, always walking memory in order.
//   4R1W(CPU)  b[i][j] = a[i][j] + b[i-1][j] + b[i][j-1] - b[i-1][j-1] in raster order:
//              one write per element, but four reads.
//   threaded   row prefix sums split by rows over T threads, then column accumulation split
//              by column ranges over T threads: two streaming passes at memory speed.
// Matrices are row-major: element (i, j) of a rows x cols matrix is at [i * cols + j].
#include <algorithm>
#include <thread>
#include <vector>

#include "sat.h"

namespace lab1 {

using sat::Acc;

template <class In, class Out>
void sat_2r2w_cpu(const In* a, Out* b, sat::Shape s, sat::Workspace&, cudaStream_t) {
    [[maybe_unused]] const std::size_t rows = s.rows, cols = s.cols;  // unused until the TODO is done
    // BEGIN SOLUTION hint: copy a into b, then b[i+1][j] += b[i][j] in raster order (columns), then b[i][j+1] += b[i][j] (rows); add in Acc<Out>
    for (std::size_t k = 0; k < rows * cols; ++k) b[k] = Out(a[k]);
    for (std::size_t i = 1; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j)
            b[i * cols + j] = Out(Acc<Out>(b[i * cols + j]) + Acc<Out>(b[(i - 1) * cols + j]));
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 1; j < cols; ++j)
            b[i * cols + j] = Out(Acc<Out>(b[i * cols + j]) + Acc<Out>(b[i * cols + j - 1]));
    // END SOLUTION
}

template <class In, class Out>
void sat_4r1w_cpu(const In* a, Out* b, sat::Shape s, sat::Workspace&, cudaStream_t) {
    [[maybe_unused]] const std::size_t rows = s.rows, cols = s.cols;  // unused until the TODO is done
    // BEGIN SOLUTION hint: formula (1): b[i][j] = a[i][j] + b[i-1][j] + b[i][j-1] - b[i-1][j-1], terms outside the matrix are 0
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
            Acc<Out> sum = Acc<Out>(a[i * cols + j]);
            if (i > 0) sum += Acc<Out>(b[(i - 1) * cols + j]);
            if (j > 0) sum += Acc<Out>(b[i * cols + j - 1]);
            if (i > 0 && j > 0) sum -= Acc<Out>(b[(i - 1) * cols + j - 1]);
            b[i * cols + j] = Out(sum);
        }
    // END SOLUTION
}

// Run body(first, last) over [0, count) split into `threads` contiguous ranges.
template <class Body>
void split_over_threads(std::size_t count, int threads, Body body) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        const std::size_t first = count * t / threads, last = count * (t + 1) / threads;
        if (first < last) pool.emplace_back(body, first, last);
    }
    for (std::thread& th : pool) th.join();
}

template <class In, class Out>
void sat_threaded_cpu(const In* a, Out* b, sat::Shape s, sat::Workspace& ws, cudaStream_t) {
    [[maybe_unused]] const std::size_t rows = s.rows, cols = s.cols;  // unused until the TODO is done
    [[maybe_unused]] const int threads = ws.cpu_threads > 0 ? ws.cpu_threads
                                           : int(std::max(1u, std::thread::hardware_concurrency()));
    // BEGIN SOLUTION hint: pass 1: each thread takes a range of rows and computes their row prefix sums into b; pass 2: each thread takes a range of columns and adds row i-1 into row i, top to bottom
    split_over_threads(rows, threads, [&](std::size_t first_row, std::size_t last_row) {
        for (std::size_t i = first_row; i < last_row; ++i) {
            Acc<Out> row_sum = 0;
            for (std::size_t j = 0; j < cols; ++j) {
                row_sum += Acc<Out>(a[i * cols + j]);
                b[i * cols + j] = Out(row_sum);
            }
        }
    });
    // Column ranges are whole cache lines wide so that threads never share a line.
    const std::size_t line = 64 / sizeof(Out), col_blocks = (cols + line - 1) / line;
    split_over_threads(col_blocks, threads, [&](std::size_t first_block, std::size_t last_block) {
        const std::size_t first_col = first_block * line, last_col = std::min(cols, last_block * line);
        for (std::size_t i = 1; i < rows; ++i)
            for (std::size_t j = first_col; j < last_col; ++j)
                b[i * cols + j] = Out(Acc<Out>(b[i * cols + j]) + Acc<Out>(b[(i - 1) * cols + j]));
    });
    // END SOLUTION
}

}  // namespace lab1

SAT_REGISTER_LAB(([] {
    sat::LabInfo lab = sat::lab_info(1, "the SAT on the CPU", "Kasagi et al. 2014, section VIII", {
        SAT_VARIANT("2R2W(CPU)", "cpu", "column prefix sums, then row prefix sums, in raster order", lab1::sat_2r2w_cpu),
        SAT_VARIANT("4R1W(CPU)", "cpu", "b[i][j] = a[i][j] + b[i-1][j] + b[i][j-1] - b[i-1][j-1]", lab1::sat_4r1w_cpu),
        SAT_VARIANT("threaded", "cpu", "row scans split by rows, then columns split by ranges, over all cores", lab1::sat_threaded_cpu),
    }, {{1024, 1024}, {2048, 2048}, {1080, 1920}});
    lab.gpu = false;
    return lab;
}()));
