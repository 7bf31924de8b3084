// What the library keeps per device between calls (lib/src/device_cache.h), on the CPU: a
// stand-in device whose kernel loses its shared memory limit on a reset and refuses a launch
// above it, as the CUDA runtime does ([cpu][library]).
#include <atomic>
#include <thread>
#include <vector>

#include "../src/device_cache.h"
#include "../../tests/test_util.h"

namespace {

constexpr int invalid_value = 1;  // the stand-in's launch error (cudaErrorInvalidValue's role)

// One kernel on one stand-in device: its dynamic shared memory limit and what was asked of it.
struct StandInKernel {
    std::atomic<int> limit{0};  // 0 after a reset, as the runtime's 48 KB default stands for here
    std::atomic<int> sets{0}, launches{0}, failed{0};
    int set_error = 0;     // what set_limit returns (0: success)
    int launch_error = 0;  // an error every launch returns whatever the limit (0: none)

    int set_limit(int bytes) {
        ++sets;
        if (set_error != 0) return set_error;
        limit = bytes;
        return 0;
    }
    int launch(int smem) {
        ++launches;
        const int err = launch_error != 0 ? launch_error : limit.load() < smem ? invalid_value : 0;
        failed += err != 0;
        return err;
    }
    int call(satlib::PerDevice<int>& cache, int device, int smem) {
        return satlib::launch_with_smem<int>(
            cache, device, smem, [&](int bytes) { return set_limit(bytes); }, [&] { return launch(smem); });
    }
};

}  // namespace

TEST_CASE("library device cache: one value per device ordinal, none beyond the slots", "[cpu][library]") {
    satlib::PerDevice<int> cache;
    CHECK(cache.get(0) == 0);
    cache.put(0, 5);
    cache.put(satlib::max_cached_devices - 1, 7);
    CHECK(cache.get(0) == 5);
    CHECK(cache.get(1) == 0);
    CHECK(cache.get(satlib::max_cached_devices - 1) == 7);
    // Ordinals without a slot are never cached: asked again on every call.
    cache.put(-1, 9);
    cache.put(satlib::max_cached_devices, 9);
    CHECK(cache.get(-1) == 0);
    CHECK(cache.get(satlib::max_cached_devices) == 0);
    // raise keeps the larger value.
    cache.raise(0, 3);
    CHECK(cache.get(0) == 5);
    cache.raise(0, 8);
    CHECK(cache.get(0) == 8);
    cache.raise(1, 4);
    CHECK(cache.get(1) == 4);
}

TEST_CASE("library device cache: a kernel's shared memory limit is set once per device", "[cpu][library]") {
    satlib::PerDevice<int> cache;
    StandInKernel dev0, dev1;
    for (int call = 0; call < 5; ++call) CHECK(dev0.call(cache, 0, 64 << 10) == 0);
    CHECK(dev0.sets == 1);
    CHECK(dev0.launches == 5);
    // Device 1 has a slot of its own: its first launch sets its own limit.
    CHECK(dev1.call(cache, 1, 64 << 10) == 0);
    CHECK(dev1.sets == 1);
    CHECK(dev0.sets == 1);
    // A smaller request runs under the limit set; a larger one raises it once.
    CHECK(dev0.call(cache, 0, 32 << 10) == 0);
    CHECK(dev0.sets == 1);
    CHECK(dev0.call(cache, 0, 96 << 10) == 0);
    CHECK(dev0.call(cache, 0, 96 << 10) == 0);
    CHECK(dev0.sets == 2);
    CHECK(dev0.limit == (96 << 10));
    CHECK(dev0.failed == 0);
}

TEST_CASE("library device cache: after a reset the failed launch sets the limit and runs again", "[cpu][library]") {
    satlib::PerDevice<int> cache;
    StandInKernel k;
    REQUIRE(k.call(cache, 0, 64 << 10) == 0);
    k.limit = 0;  // cudaDeviceReset: the context, and the limit with it, are gone
    CHECK(k.call(cache, 0, 64 << 10) == 0);
    CHECK(k.failed == 1);
    CHECK(k.sets == 2);
    CHECK(k.launches == 3);
    CHECK(k.call(cache, 0, 64 << 10) == 0);  // set again: no more failures
    CHECK(k.failed == 1);
    CHECK(k.sets == 2);
    // After a reset, a smaller request that the old limit covered sets the largest one known.
    k.limit = 0;
    CHECK(k.call(cache, 0, 32 << 10) == 0);
    CHECK(k.limit == (64 << 10));
}

TEST_CASE("library device cache: another thread's late, smaller limit costs one more launch", "[cpu][library]") {
    satlib::PerDevice<int> cache;
    StandInKernel k;
    // This call sets 64 KB; a thread that read the cache before it lands its 32 KB set between
    // this call's set and its launch.
    bool raced = false;
    const int err = satlib::launch_with_smem<int>(
        cache, 0, 64 << 10, [&](int bytes) { return k.set_limit(bytes); },
        [&] {
            if (!raced) raced = true, k.limit = 32 << 10;
            return k.launch(64 << 10);
        });
    CHECK(err == 0);
    CHECK(k.failed == 1);
    CHECK(k.limit == (64 << 10));
}

TEST_CASE("library device cache: errors come back as they are, and nothing failed is kept", "[cpu][library]") {
    satlib::PerDevice<int> cache;
    StandInKernel k;
    // The limit cannot be set: its error, no launch, nothing cached.
    k.set_error = 7;
    CHECK(k.call(cache, 2, 64 << 10) == 7);
    CHECK(k.launches == 0);
    CHECK(cache.get(2) == 0);
    // A launch that fails for another reason fails again when tried once more: its error.
    k.set_error = 0;
    k.launch_error = 9;
    CHECK(k.call(cache, 2, 64 << 10) == 9);
    CHECK(k.launches == 2);
    CHECK(k.call(cache, 2, 64 << 10) == 9);
    CHECK(k.launches == 4);
    // A device without a slot sets the limit on every launch.
    StandInKernel far;
    for (int call = 0; call < 3; ++call) CHECK(far.call(cache, satlib::max_cached_devices + 3, 64 << 10) == 0);
    CHECK(far.sets == 3);
    CHECK(far.failed == 0);
}

TEST_CASE("library device cache: a query before the launch raises the limit as the launch would", "[cpu][library]") {
    satlib::PerDevice<int> cache;
    StandInKernel k;
    auto raise = [&](int smem) {
        return satlib::raise_smem_limit<int>(cache, 0, smem, [&](int bytes) { return k.set_limit(bytes); });
    };
    CHECK(raise(64 << 10) == 0);
    CHECK(k.limit == (64 << 10));
    CHECK(raise(32 << 10) == 0);  // covered: not set again
    CHECK(k.sets == 1);
    CHECK(k.call(cache, 0, 64 << 10) == 0);  // the launch after it sets nothing and does not fail
    CHECK(k.sets == 1);
    CHECK(k.failed == 0);
    k.set_error = 7;  // a limit that cannot be set: its error, the cache as it was
    CHECK(raise(96 << 10) == 7);
    CHECK(cache.get(0) == (64 << 10));
    CHECK(k.sets == 2);  // the failed set was tried once
}

TEST_CASE("library device cache: threads on devices of their own, and threads on one device", "[cpu][library]") {
    constexpr int threads = 8, calls = 2000;
    satlib::PerDevice<int> cache;
    std::vector<StandInKernel> own(threads);
    StandInKernel shared;
    std::atomic<int> errors{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (int call = 0; call < calls; ++call) {
                // Device t alone: 48 KB, then 64 KB from the second call on.
                errors += own[t].call(cache, t, call == 0 ? 48 << 10 : 64 << 10) != 0;
                // Device `threads`, shared by every thread, one size: racing first sets are all 64 KB.
                errors += shared.call(cache, threads, 64 << 10) != 0;
            }
        });
    for (std::thread& t : pool) t.join();
    CHECK(errors == 0);
    for (int t = 0; t < threads; ++t) {
        INFO("device " << t);
        CHECK(own[t].sets == 2);
        CHECK(own[t].failed == 0);
        CHECK(cache.get(t) == (64 << 10));
    }
    CHECK(shared.sets >= 1);
    CHECK(shared.sets <= threads);
    CHECK(shared.failed == 0);
    CHECK(shared.launches == threads * calls);
}

TEST_CASE("library device cache: only kernels built for sm_90 or later overlap the clear", "[cpu][library]") {
    satlib::PerDevice<int> ptx;
    int asked = 0;
    auto version = [&](int v) {
        return [&asked, v] {
            ++asked;
            return v;
        };
    };
    CHECK(satlib::overlaps_clear(ptx, 0, version(90)));
    CHECK(satlib::overlaps_clear(ptx, 0, version(80)));  // device 0 answered: not asked again
    CHECK(asked == 1);
    CHECK_FALSE(satlib::overlaps_clear(ptx, 1, version(80)));  // a build for sm_80 would not wait
    CHECK_FALSE(satlib::overlaps_clear(ptx, 2, version(-1)));  // the query failed: no overlap
    CHECK(satlib::overlaps_clear(ptx, 2, version(90)));        // ... and it is asked again
    CHECK(satlib::overlaps_clear(ptx, 2, version(-1)));        // ... until it has an answer
    CHECK(asked == 4);
    CHECK(satlib::overlaps_clear(ptx, -1, version(100)));  // no device slot: asked every time
    CHECK_FALSE(satlib::overlaps_clear(ptx, -1, version(75)));
    CHECK(asked == 6);
}
