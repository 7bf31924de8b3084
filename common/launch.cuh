// launch.cuh — kernel launches that need more than <<<...>>> (host side).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace sat {

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

// Launch `kernel` on `grid` blocks (a multiple of `cluster`) of `block` threads in thread-block
// clusters of `cluster` x 1 x 1 blocks (Hopper and later), on `stream`.
template <class... Params, class... Args>
cudaError_t launch_clusters(void (*kernel)(Params...), unsigned grid, unsigned block,
                            unsigned cluster, cudaStream_t stream, Args... args) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(block);
    config.stream = stream;
    cudaLaunchAttribute cluster_shape = {};
    cluster_shape.id = cudaLaunchAttributeClusterDimension;
    cluster_shape.val.clusterDim.x = cluster;
    cluster_shape.val.clusterDim.y = cluster_shape.val.clusterDim.z = 1;
    config.attrs = &cluster_shape;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, kernel, args...);
}

}  // namespace sat
