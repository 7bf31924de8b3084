// device_cache.h — what the library keeps per device between calls, so that a call repeats no
// query whose answer cannot change: blocks of a kernel resident at once, and the dynamic shared
// memory limit already set on a kernel. Host code; outside nvcc it needs no CUDA header, and the
// CPU tests (lib/tests/test_device_cache.cpp) drive it with stand-in setters and launches.
#pragma once

#include <algorithm>
#include <atomic>

#ifdef __CUDACC__  // the CUDA part at the end; the CPU tests compile the rest without CUDA
#include "launch.cuh"
#include "sat.h"
#endif

namespace satlib {

// Device ordinals with a slot; a device beyond them is asked again on every call (correct, slower).
constexpr int max_cached_devices = 64;

// One value per device ordinal, T{} (0) until stored. Lock-free and safe to share between host
// threads: threads racing on one device both ask and store what they were told.
template <class T>
class PerDevice {
public:
    static bool cacheable(int device) { return device >= 0 && device < max_cached_devices; }
    T get(int device) const { return cacheable(device) ? slot_[device].load(std::memory_order_acquire) : T{}; }
    void put(int device, T value) {
        if (cacheable(device)) slot_[device].store(value, std::memory_order_release);
    }
    // Stores max(stored, value): of racing raises, the largest stays.
    void raise(int device, T value) {
        if (!cacheable(device)) return;
        T seen = slot_[device].load(std::memory_order_relaxed);
        while (seen < value && !slot_[device].compare_exchange_weak(seen, value, std::memory_order_release))
            ;
    }

private:
    std::atomic<T> slot_[max_cached_devices]{};
};

// What the library keeps per device for one kernel instantiation. Keyed by the kernel itself:
// kernels of one type pair share a signature but not their tile shape, tables or occupancy.
struct KernelCache {
    PerDevice<int> smem_limit;  // the dynamic shared memory limit set on it (bytes)
    PerDevice<int> resident;    // blocks resident at once
    PerDevice<int> ptx_version; // of the code it runs there (90: sm_90); 0 until asked
};
// A kernel with its cache (one static KernelCache per instantiation).
template <class Kernel>
struct CachedKernel {
    Kernel kernel;
    KernelCache* cache;
};

// `set_limit(smem)` (the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize on the current
// device) only when `limit` holds no limit that large for `device`: the first step of
// launch_with_smem below, and on its own for a kernel asked about (an occupancy query) before it
// is launched, with the limit a launch would set.
template <class Error, class SetLimit>
Error raise_smem_limit(PerDevice<int>& limit, int device, int smem, SetLimit&& set_limit) {
    if (limit.get(device) >= smem) return Error{};
    const Error err = set_limit(smem);
    if (err == Error{}) limit.raise(device, smem);
    return err;
}

// A launch of a kernel that takes `smem` bytes of dynamic shared memory: raise_smem_limit, then
// `launch()`. Both `set_limit` and `launch` return an error
// value, Error{} for success; `launch` must return its own launch's error (common/launch.cuh), so that a
// failed one can be tried again. A failed launch is tried once more after setting the limit
// again: a cudaDeviceReset takes the limit with the context, and another thread's first, smaller
// limit can land after this one's. An error of any other cause comes back the second time.
template <class Error, class SetLimit, class Launch>
Error launch_with_smem(PerDevice<int>& limit, int device, int smem, SetLimit&& set_limit, Launch&& launch) {
    if (const Error err = raise_smem_limit<Error>(limit, device, smem, set_limit); err != Error{}) return err;
    const Error err = launch();
    if (err == Error{}) return err;
    const Error set = set_limit(std::max(smem, limit.get(device)));
    return set != Error{} ? set : launch();
}

// Whether a look-back kernel may start while the clear_flags kernel before it runs (programmatic
// dependent launch, common/lookback.cuh): only code compiled for sm_90 or later waits for the
// flags (griddepcontrol.wait); a build for an older architecture, even run on a Hopper GPU from
// its PTX, would not. `ptx_version()`: the kernel's PTX version on the current device
// (cudaFuncGetAttributes), negative on an error; asked once per device, and again after an error
// (no overlap for that launch).
template <class Query>
bool overlaps_clear(PerDevice<int>& ptx, int device, Query&& ptx_version) {
    int v = ptx.get(device);
    if (v == 0) {
        v = ptx_version();
        if (v > 0) ptx.put(device, v);
    }
    return v >= 90;
}

#ifdef __CUDACC__
// raise_smem_limit and launch_with_smem for a cached kernel, whose limit is its
// cudaFuncAttributeMaxDynamicSharedMemorySize on the current device.
template <class Kernel>
auto smem_limit_setter(const CachedKernel<Kernel>& k) {
    return [kernel = k.kernel](int bytes) {
        return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    };
}
template <class Kernel>
cudaError_t raise_smem_limit(const CachedKernel<Kernel>& k, int device, int smem) {
    return raise_smem_limit<cudaError_t>(k.cache->smem_limit, device, smem, smem_limit_setter(k));
}
template <class Kernel, class Launch>
cudaError_t launch_with_smem(const CachedKernel<Kernel>& k, int device, int smem, Launch&& launch) {
    return launch_with_smem<cudaError_t>(k.cache->smem_limit, device, smem, smem_limit_setter(k), launch);
}

// overlaps_clear for a launch of a cached kernel whose flags are as `flags` says: only a
// clear_flags that runs before it (Flags::clear, Flags::just_cleared) can be overlapped, and the
// runtime is asked for the kernel's PTX version.
template <class Kernel>
bool overlaps_clear(const CachedKernel<Kernel>& k, int device, sat::Flags flags) {
    return flags != sat::Flags::zero &&
           overlaps_clear(k.cache->ptx_version, device, [&] { return sat::ptx_version(k.kernel); });
}
#endif

}  // namespace satlib
