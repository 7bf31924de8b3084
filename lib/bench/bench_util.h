// bench_util.h — what the library's benchmarks (bench_batch, bench_host) share.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>

// True when a CUDA device is present; else one line on stderr ("<program>: no CUDA device").
inline bool have_device(const char* program) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) return true;
    std::fprintf(stderr, "%s: no CUDA device\n", program);
    return false;
}
