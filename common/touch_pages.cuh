// touch_pages.cuh — loads every page of a device buffer, so that its address translations are in
// the GPU's TLBs (runner.cu before each timed repetition; tools/tlb_probe.cu measures the effect).
#pragma once

#include <algorithm>
#include <cstddef>

#include <cuda_runtime.h>

namespace sat {

// Distance between the loads: the smallest GPU page (64 KiB) that cudaMalloc uses.
constexpr std::size_t touch_stride = std::size_t(64) << 10;

namespace {  // internal linkage: the kernel may be compiled into several objects

// One volatile byte load every touch_stride bytes of [p, p + bytes), and one of its last byte.
__global__ void touch_pages(const unsigned char* p, std::size_t bytes) {
    const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k <= bytes / touch_stride)
        (void)*reinterpret_cast<const volatile unsigned char*>(p + std::min(k * touch_stride, bytes - 1));
}

}  // namespace

// Enqueues touch_pages over [p, p + bytes) on `stream`; nothing for an empty buffer.
inline cudaError_t touch_pages_async(const void* p, std::size_t bytes, cudaStream_t stream) {
    if (!p || bytes == 0) return cudaSuccess;
    const std::size_t threads = bytes / touch_stride + 1;
    touch_pages<<<unsigned((threads + 255) / 256), 256, 0, stream>>>(static_cast<const unsigned char*>(p), bytes);
    return cudaGetLastError();
}

}  // namespace sat
