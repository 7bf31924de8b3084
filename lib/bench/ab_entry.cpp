// ab_entry.cpp — one version of the library as bench_ab calls it. Built twice (mk/lib_ab.mk):
// against this tree's sat.hpp (namespace ab_this), and against the base checkout's sat.hpp with
// -Dsat=satbase -Dsatlib=satlibbase (namespace ab_base), so that it calls that version's objects.
#include "ab_entry.h"

#include <cstdint>

#include "sat.hpp"

namespace AB_NAMESPACE {

namespace {
template <class In, class Out>
cudaError_t scan_as(const AbCall& c) {
    sat::ScanOptions opt;
    opt.state = c.state;
    opt.values = c.values;
    opt.status = c.status;
    opt.batch.count = c.batch;
    opt.batch.in_stride = opt.batch.out_stride = std::size_t(c.rows) * std::size_t(c.cols);
    return sat::inclusive_scan_2d(static_cast<const In*>(c.in), std::size_t(c.cols), static_cast<Out*>(c.out),
                                  std::size_t(c.cols), c.rows, c.cols, c.stream, opt);
}
template <class In, class Out>
AbScratch scratch_as(int rows, int cols, int batch) {
    const sat::ScanScratchSize s = sat::inclusive_scan_2d_scratch<In, Out>(rows, cols, batch);
    return {s.state_bytes, s.value_bytes};
}

// Calls f(In{}, Out{}) with the pair `type` names; `none` for any other value.
template <class R, class F>
R with_pair(AbType type, R none, F&& f) {
    switch (type) {
    case AbType::f32: return f(float{}, float{});
    case AbType::f64: return f(double{}, double{});
    case AbType::i32: return f(int32_t{}, int32_t{});
    case AbType::u8i32: return f(uint8_t{}, int32_t{});
    case AbType::u8f32: return f(uint8_t{}, float{});
    case AbType::u16f64: return f(uint16_t{}, double{});
    case AbType::f32f64: return f(float{}, double{});
    }
    return none;
}
}  // namespace

cudaError_t scan(const AbCall& c) {
    return with_pair(c.type, cudaErrorInvalidValue,
                     [&](auto in, auto out) { return scan_as<decltype(in), decltype(out)>(c); });
}

AbScratch scratch(AbType type, int rows, int cols, int batch) {
    return with_pair(type, AbScratch{},
                     [&](auto in, auto out) { return scratch_as<decltype(in), decltype(out)>(rows, cols, batch); });
}

const char* version() { return AB_VERSION; }

}  // namespace AB_NAMESPACE
