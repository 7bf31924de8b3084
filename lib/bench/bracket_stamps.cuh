// bracket_stamps.cuh — the GPU's global timer read on a stream just before and just after a
// call (bench_timeline, bench_tile_times), so that the call's own stamps can be read as time
// after the first. nvcc only (a kernel).
#pragma once

#include <cuda_runtime.h>

#include <array>

#include "device.cuh"
#include "gpu_timing.h"

namespace bench {

static __global__ void write_globaltimer(unsigned long long* at) { *at = sat::globaltimer(); }

// Two one-thread kernels around what `call` enqueues on `stream`; read() after the stream is idle.
class BracketStamps {
  public:
    template <class Call>
    void around(cudaStream_t stream, Call&& call) {
        write_globaltimer<<<1, 1, 0, stream>>>(at_.as<unsigned long long>());
        SAT_CUDA(cudaGetLastError());
        call();
        write_globaltimer<<<1, 1, 0, stream>>>(at_.as<unsigned long long>() + 1);
        SAT_CUDA(cudaGetLastError());
    }
    std::array<unsigned long long, 2> read() const {
        std::array<unsigned long long, 2> both{};
        SAT_CUDA(cudaMemcpy(both.data(), at_.ptr, sizeof both, cudaMemcpyDeviceToHost));
        return both;
    }

  private:
    sat::DeviceBuffer at_{2 * sizeof(unsigned long long)};
};

}  // namespace bench
