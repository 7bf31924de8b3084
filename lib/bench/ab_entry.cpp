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
}  // namespace

cudaError_t scan(const AbCall& c) {
    switch (c.type) {
    case AbType::f32: return scan_as<float, float>(c);
    case AbType::f64: return scan_as<double, double>(c);
    case AbType::i32: return scan_as<int32_t, int32_t>(c);
    case AbType::u8i32: return scan_as<uint8_t, int32_t>(c);
    case AbType::u8f32: return scan_as<uint8_t, float>(c);
    case AbType::u16f64: return scan_as<uint16_t, double>(c);
    case AbType::f32f64: return scan_as<float, double>(c);
    }
    return cudaErrorInvalidValue;
}

AbScratch scratch(AbType type, int rows, int cols, int batch) {
    switch (type) {
    case AbType::f32: return scratch_as<float, float>(rows, cols, batch);
    case AbType::f64: return scratch_as<double, double>(rows, cols, batch);
    case AbType::i32: return scratch_as<int32_t, int32_t>(rows, cols, batch);
    case AbType::u8i32: return scratch_as<uint8_t, int32_t>(rows, cols, batch);
    case AbType::u8f32: return scratch_as<uint8_t, float>(rows, cols, batch);
    case AbType::u16f64: return scratch_as<uint16_t, double>(rows, cols, batch);
    case AbType::f32f64: return scratch_as<float, double>(rows, cols, batch);
    }
    return {};
}

const char* version() { return AB_VERSION; }

}  // namespace AB_NAMESPACE
