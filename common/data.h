// data.h — input generation, the CPU reference and the checker (host side, no CUDA needed).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "harness.h"
#include "sat.h"

namespace sat {

std::size_t input_bytes(DType t);   // bytes per input element
std::size_t output_bytes(DType t);  // bytes per output element

// Call f(In{}, Out{}) with the element types of `t` (e.g. uint8_t{}, int32_t{} for u8i32).
template <class F>
decltype(auto) dispatch(DType t, F&& f) {
    switch (t) {
        case DType::f64: return f(double{}, double{});
        case DType::i32: return f(int32_t{}, int32_t{});
        case DType::u8i32: return f(uint8_t{}, int32_t{});
        case DType::f32: break;
    }
    return f(float{}, float{});
}

// Run body(begin, end) over [0, count) on all cores (used for work on 10^9 elements), with at
// least min_per_thread items per thread.
void parallel_for(std::size_t count, const std::function<void(std::size_t, std::size_t)>& body,
                  std::size_t min_per_thread = 4096);

// Seeded test data, reproducible from (seed, index) alone:
//   f32 uniform in [0, 1); f64 integers in [0, 255] (exact sums); u8 integers in [0, 255];
//   i32 integers in [-m, m] with m chosen so that no partial sum can leave int32.
void generate_input(DType t, Shape s, std::uint64_t seed, void* dst);
// Rows [row0, row0 + rows) of the same matrix (lab 10 makes a matrix strip by strip).
void generate_input_rows(DType t, Shape s, std::uint64_t seed, int row0, int rows, void* dst);

// The exact SAT of `in` (any input element type) for the checker:
//   integer outputs: sums modulo 2^32 (what int32 arithmetic wrapping produces, see docs/hmm.md);
//   float outputs: sums in double, plus the SAT of |a| that bounds the rounding error.
struct Reference {
    Shape shape;
    bool exact = true;                   // integer output: compare exactly
    std::vector<std::uint32_t> exact_sums;
    std::vector<double> sums;            // float outputs
    std::vector<double> abs_sums;        // empty when the input has no negative values
    double unit_roundoff = 0;            // 2^-24 (f32) or 2^-53 (f64)
    double chain = 0;                    // d of the float bound; 0: rows + cols + 64
};
Reference reference_sat(DType t, Shape s, const void* in);
// The transpose of `in`, converted to the output type, for Computes::transpose variants.
Reference reference_transpose(DType t, Shape s, const void* in);

// Compare `got` (output element type of `t`, ref.shape elements) with the reference.
// Float tolerance: |got - exact| <= 2 * gamma(d) * S|a|, gamma(d) = d u / (1 - d u),
// d = rows + cols + 64: any summation order whose dependency chains are at most d additions
// long meets it (Higham, Accuracy and Stability, Lemma 3.1; docs/hmm.md).
CheckReport compare_output(DType t, const Reference& ref, const void* got);

// Canary band: `band_bytes` bytes on each side of the output buffer, filled with canary_byte
// before a run; check_canaries names the first byte that changed.
constexpr unsigned char poison_byte = 0x7F;   // f32 3.4e38, i32 2139062143: never a real sum
// True when every byte of `value` is still poison_byte: an output the kernel never wrote, which
// a failure message names with unwritten_note.
constexpr const char* unwritten_note = " (never written: still the poison value)";
template <class T>
bool is_poison(const T& value) {
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(&value);
    for (std::size_t k = 0; k < sizeof(T); ++k)
        if (bytes[k] != poison_byte) return false;
    return true;
}
constexpr unsigned char canary_byte = 0x5A;
constexpr std::size_t canary_band_bytes = 4096;
std::string check_canaries(const unsigned char* before, const unsigned char* after,
                           std::size_t band_bytes);

// The CPU reference SAT itself, for any element types (64-bit/double accumulation is the
// caller's choice of Acc). Also used by tests as the definition.
template <class In, class Acc>
void cpu_sat(const In* in, Acc* out, Shape s) {
    for (int i = 0; i < s.rows; ++i) {
        Acc row_sum = 0;
        for (int j = 0; j < s.cols; ++j) {
            row_sum += Acc(in[std::size_t(i) * s.cols + j]);
            const Acc above = i > 0 ? out[std::size_t(i - 1) * s.cols + j] : Acc(0);
            out[std::size_t(i) * s.cols + j] = above + row_sum;
        }
    }
}

}  // namespace sat
