// task_arrays.cuh — lab 8x's data movement and bookkeeping around its two task arrays: the
// parallelograms of error diffusion (where they lie, loading and storing them, the row above a
// strip) and the knapsack's rows and the lower strips an item needs. The tasks themselves (error
// collection, the DP step, the waits and hand-overs) are in solutions/lab8x_tasks.cu.
#pragma once

#include <cstdint>

#include "device.cuh"

namespace lab8x {

using sat::ceil_div;
using sat::w;

// ---- Error diffusion: parallelogram p of strip S covers rows 32S .. 32S+31; row r its columns
// 32p - 2r + k, k = 0 .. 31.
struct TaskArray {
    int strips;     // m = ceil(rows / 32)
    int per_strip;  // n = P = ceil((cols + 62) / 32)
};
__host__ __device__ inline TaskArray parallelograms(sat::Shape s) {
    return {ceil_div(s.rows, w), ceil_div(s.cols + 2 * (w - 1), w)};
}

// One warp's shared memory: the parallelogram (pixel in, 0/255 out), row r at [r][k]; the
// errors of the row above the strip at columns 32p-1 .. 32p+32; the errors of the strip's
// last row for the strip below.
struct HalftoneTile {
    float value[w][w + 1];  // +1: lane r reading [r][k] hits 32 different banks
    float above[w + 2];
    float bottom[w];
};


// Pixels of parallelogram (strip, p): raw[r] = a(32 strip + r, 32p - 2r + lane), 0 outside.
// Each row is 32 consecutive bytes: one coalesced access per row.
__device__ __forceinline__ void load_parallelogram(const std::uint8_t* __restrict__ image,
                                                   sat::Shape s, int strip, int p, int lane,
                                                   float (&raw)[w]) {
#pragma unroll
    for (int r = 0; r < w; ++r) {
        const int row = strip * w + r, col = p * w - 2 * r + lane;
        raw[r] = (row < s.rows && col >= 0 && col < s.cols)
                     ? float(image[std::size_t(row) * s.cols + col])
                     : 0.f;
    }
}

__device__ __forceinline__ void stage_parallelogram(HalftoneTile& t, const float (&raw)[w],
                                                    int lane) {
#pragma unroll
    for (int r = 0; r < w; ++r) t.value[r][lane] = raw[r];
}

// Errors of the last row of the strip above at columns 32p-1 .. 32p+32, 0 outside the image.
// __ldcg reads at L2: in SKSS another SM wrote them during this kernel.
__device__ __forceinline__ void load_row_above(HalftoneTile& t, const float* bottom_errors,
                                               sat::Shape s, int strip, int p, int lane) {
    for (int k = lane; k < w + 2; k += w) {
        const int col = p * w - 1 + k;
        t.above[k] = (strip > 0 && col >= 0 && col < s.cols)
                         ? __ldcg(bottom_errors + std::size_t(strip - 1) * s.cols + col)
                         : 0.f;
    }
}


// The 0/255 pixels back to the image (row by row, coalesced) and the strip's last-row errors
// to bottom_errors (only if a strip below exists to read them).
__device__ __forceinline__ void store_parallelogram(const HalftoneTile& t, std::uint8_t* halftone,
                                                    float* bottom_errors, sat::Shape s,
                                                    int strips, int strip, int p, int lane) {
#pragma unroll 4
    for (int r = 0; r < w; ++r) {
        const int row = strip * w + r, col = p * w - 2 * r + lane;
        if (row < s.rows && col >= 0 && col < s.cols)
            halftone[std::size_t(row) * s.cols + col] = std::uint8_t(t.value[r][lane]);
    }
    const int col = p * w - 2 * (w - 1) + lane;
    if (strip + 1 < strips && col >= 0 && col < s.cols)
        bottom_errors[std::size_t(strip) * s.cols + col] = t.bottom[lane];
}


__host__ __device__ __forceinline__ std::int32_t* knapsack_row(std::int32_t* table,
                                                               std::int32_t* best, int items,
                                                               int width, int j) {
    return j == items ? best : table + std::size_t(j) * width;
}


struct LowerStrips {
    int near, far;  // distances i - strip of the highest and lowest strip needed, 0 = none
};
__device__ __forceinline__ LowerStrips strips_needed(int strip, int weight) {
    const long long top = (long long)strip * w;  // the strip's first capacity
    const long long lo = top - weight > 0 ? top - weight : 0;
    const long long hi = weight > w - 1 ? top + (w - 1) - weight : top - 1;
    if (weight == 0 || strip == 0 || hi < lo) return {0, 0};
    return {strip - int(hi / w), strip - int(lo / w)};
}

}  // namespace lab8x
