// progress_ref: a worker's progress flag, an unsigned word in global memory that says how much of
// its work is in memory (labs 8 and 8x: a strip's progress). One spelling for every use:
//
//   progress_ref p(word);                       // a device-scope atomic reference to `word`
//   p.store(done, cuda::memory_order_release);  // after the stores that `done` announces
//   p.load(cuda::memory_order_acquire);         // before reading what the value announces
//
// Normally progress_ref is cuda::atomic_ref<unsigned, cuda::thread_scope_device>. Compiled with
// -DSAT_CHECK_ORDERING (the labs' test binaries, so every grade and `make mutants`: mk/labs.mk),
// it is that atomic_ref with load() and store() checked: a load weaker than acquire or a store
// weaker than release stops the kernel with a device assertion that names the calling file, line
// and function. A relaxed flag access is a race that a GPU rarely shows and that no
// compute-sanitizer tool reports; the check makes it fail every time. A __threadfence() followed
// by a relaxed store is rejected too: the labs teach the release store. The orders are constants
// once the calls are inlined, so the check costs correct code nothing. Other members (operator
// T, operator=, fetch_*, exchange) are atomic_ref's own, seq_cst unless told, and not checked.
#pragma once
#include <cuda/atomic>

namespace sat {

#ifndef SAT_CHECK_ORDERING

using progress_ref = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;

#else

// Where a call stands: the defaults are the caller's file, line and function (the student's code,
// not this header), also when the Caller is itself a default argument.
struct Caller {
    const char* file;
    unsigned line;
    const char* function;
    __device__ __forceinline__ Caller(const char* file = __builtin_FILE(), unsigned line = __builtin_LINE(),
                                      const char* function = __builtin_FUNCTION())
        : file(file), line(line), function(function) {}
};

class progress_ref : public cuda::atomic_ref<unsigned, cuda::thread_scope_device> {
    using base = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;

    // Stops the kernel with `why`, naming the caller, unless `order` is `needed` or seq_cst.
    __device__ __forceinline__ static void require(cuda::memory_order order, cuda::memory_order needed,
                                                   const char* why, const Caller& at) {
        if (order != needed && order != cuda::memory_order_seq_cst) __assert_fail(why, at.file, at.line, at.function);
    }

public:
    using base::base;

    __device__ __forceinline__ unsigned load(cuda::memory_order order = cuda::memory_order_seq_cst,
                                             Caller at = {}) const {
        require(order, cuda::memory_order_acquire,
                "SAT_CHECK_ORDERING: progress_ref::load needs cuda::memory_order_acquire: a weaker "
                "load lets this thread read the announced data before they arrive",
                at);
        return base::load(order);
    }

    __device__ __forceinline__ void store(unsigned value, cuda::memory_order order = cuda::memory_order_seq_cst,
                                          Caller at = {}) const {
        require(order, cuda::memory_order_release,
                "SAT_CHECK_ORDERING: progress_ref::store needs cuda::memory_order_release: a weaker "
                "store may raise the flag before the data it announces are visible",
                at);
        base::store(value, order);
    }
};

#endif  // SAT_CHECK_ORDERING

}  // namespace sat
