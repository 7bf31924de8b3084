// launch.cuh — a kernel launch that reports its own error.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace satlib {

// Launches `kernel` and returns this launch's error (cudaLaunchKernelEx), never one an earlier
// call left in the thread's last error, as cudaGetLastError after <<< >>> could: a launch that
// failed can then be tried again without risking a second run of one that did not. A failed
// launch's error is taken out of the last error, as cudaGetLastError would.
template <class... Params, class... Args>
cudaError_t launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                          Args&&... args) {
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    const cudaError_t err = cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
    if (err != cudaSuccess) cudaGetLastError();
    return err;
}

}  // namespace satlib
