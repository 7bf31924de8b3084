// launch.cuh — kernel launches that need more than <<<...>>> (host side).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace sat {

// Launches `kernel` and returns this launch's error (cudaLaunchKernelEx), never one an earlier
// call left in the thread's last error, as cudaGetLastError after <<< >>> could: a launch that
// failed can then be tried again without risking a second run of one that did not. A failed
// launch's error is taken out of the last error, as cudaGetLastError would. `programmatic`: the
// kernel may start before the kernel before it on `stream` has ended (programmatic dependent
// launch), and must wait for it (griddepcontrol.wait) before it reads what that kernel writes.
template <class... Params, class... Args>
cudaError_t launch_kernel(bool programmatic, void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem,
                          cudaStream_t stream, Args&&... args) {
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    cudaLaunchAttribute serialization{};
    serialization.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    serialization.val.programmaticStreamSerializationAllowed = 1;
    if (programmatic) {
        config.attrs = &serialization;
        config.numAttrs = 1;
    }
    const cudaError_t err = cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
    if (err != cudaSuccess) cudaGetLastError();
    return err;
}

// The same, after everything before it on `stream` has ended.
template <class... Params, class... Args>
cudaError_t launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                          Args&&... args) {
    return launch_kernel(false, kernel, grid, block, smem, stream, std::forward<Args>(args)...);
}

// The PTX version `kernel` was compiled from as it runs on the current device (90: sm_90), or -1
// on an error (which is taken out of the last error).
template <class... Params>
int ptx_version(void (*kernel)(Params...)) {
    cudaFuncAttributes attr{};
    if (cudaFuncGetAttributes(&attr, kernel) == cudaSuccess) return attr.ptxVersion;
    cudaGetLastError();
    return -1;
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
