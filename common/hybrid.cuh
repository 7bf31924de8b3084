// hybrid.cuh — lab 6's bookkeeping: which tiles a 2R1W pass over a range of anti-diagonals holds
// (Grid, Pass), the scratch the passes share (Carries), and the choice of the split r (the
// triangles' size for an r, the r values of --sweep). The kernels are in solutions/lab6_hybrid.cu.
#pragma once

#include "device.cuh"

#include <algorithm>
#include <cmath>
#include <vector>

namespace lab6 {

constexpr double default_r = 0.25;  // the paper's 1.25R1W

struct Grid {
    int tile_rows, tile_cols;
    int diagonals() const { return tile_rows + tile_cols - 1; }
};

struct Pass {
    int first, end;  // anti-diagonals [first, end)
    // The tiles of the pass in tile column J are rows [rows_from(J), rows_to(J)] (may be empty),
    // and in tile row I columns [cols_from(I), cols_to(I)].
    __host__ __device__ int rows_from(int J) const { return max(0, first - J); }
    __host__ __device__ int rows_to(int J, Grid g) const { return min(g.tile_rows - 1, end - 1 - J); }
    __host__ __device__ int cols_from(int I) const { return max(0, first - I); }
    __host__ __device__ int cols_to(int I, Grid g) const { return min(g.tile_cols - 1, end - 1 - I); }
    __host__ __device__ bool holds(int I, int J) const { return I + J >= first && I + J < end; }
    // Bounding box of the pass in tiles: top-left tile and extent.
    __host__ __device__ int box_row(Grid g) const { return max(0, first - (g.tile_cols - 1)); }
    __host__ __device__ int box_col(Grid g) const { return max(0, first - (g.tile_rows - 1)); }
    __host__ __device__ int box_rows(Grid g) const { return min(g.tile_rows, end) - box_row(g); }
    __host__ __device__ int box_cols(Grid g) const { return min(g.tile_cols, end) - box_col(g); }
};

// Up to two passes handled by one launch (blockIdx.z picks the pass).
struct Passes {
    Pass p[2];
};

// Scratch of the 2R1W passes; each tile owns its own entries, so A and B share the arrays.
template <class Out>
struct Carries {
    Out* col_sums;     // tile_rows x cols:  [I][c] column sums of tile (I, c / w), then its C
    Out* row_sums_t;   // tile_cols x rows:  [J][r] row sums of tile (r / w, J), then its R
    Out* tile_sums_t;  // tile_cols x tile_rows: [J][I] the sum of tile (I, J)'s C, then its S
};

// Anti-diagonals in each triangle for a given r (see the top of the file).
inline int triangle_diagonals(Grid g, double r) {
    const double side = std::min(g.tile_rows, g.tile_cols);
    return int(std::lround(std::sqrt(std::clamp(r, 0.0, 1.0)) * side));
}


// The r values of --sweep: r = (k w)^2 / n for k = 0 .. side / w, as in the paper, i.e.
// (k / m)^2 with m = min(tile_rows, tile_cols), so that each gives a different t (= k). Large
// sizes keep 24 values of k spread evenly, always with k = 0 (1R1W) and k = m (2R1W).
inline std::vector<double> sweep_r(sat::Shape s) {
    const int m = std::min(sat::ceil_div(s.rows, sat::w), sat::ceil_div(s.cols, sat::w));
    constexpr int most = 24;
    std::vector<int> ks;
    if (m + 1 <= most) {
        for (int k = 0; k <= m; ++k) ks.push_back(k);
    } else {
        for (int i = 0; i < most; ++i) {
            const int k = int(std::lround(double(i) * m / (most - 1)));
            if (ks.empty() || k != ks.back()) ks.push_back(k);
        }
    }
    std::vector<double> rs;
    for (int k : ks) rs.push_back(double(k) * k / (double(m) * m));
    return rs;
}

}  // namespace lab6
