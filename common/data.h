// data.h — input generation, the CPU reference and the checker (host side, no CUDA needed).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
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
// Largest |v[i]| (NaN counts as infinite), in parallel.
double max_abs(const std::vector<double>& v);

// Seeded test data, reproducible from (seed, index) alone (docs/hmm.md, "Checking results"):
//   exact: f32, f64, i32 uniform in {-K..-1, 1..K}, K = exact_value_range(n); u8 in [1, 255].
//          Every element is non-zero, so a lost, doubled or misplaced element changes the sums,
//          and the sums stay so small that every f32/f64 partial sum is an exact integer.
//   real:  f32 uniform in [0, 1); f64 integers in [0, 255]; u8 in [0, 255]; i32 in [-m, m]
//          with m * n < 2^31.
void generate_input(DType t, Shape s, std::uint64_t seed, void* dst, DataKind kind = DataKind::exact);
// The seed of image b of a batch (--batch): seed + b (modulo 2^64), so image b of a batch run with
// --seed S is the matrix a single-image run with --seed S+b generates, and each image is exact
// data of its own shape (K below is per image).
inline std::uint64_t image_seed(std::uint64_t seed, int image) { return seed + std::uint64_t(image); }
// K of the exact data for n elements: the largest K in [3, 127] with
// 64 * sqrt(n * E[a^2]) <= 2^24, E[a^2] = (K + 1)(2K + 1) / 6 (K = 9 at n = 2^31).
int exact_value_range(std::size_t n);
// Rows [row0, row0 + rows) of the same matrix (lab 10 makes a matrix strip by strip).
void generate_input_rows(DType t, Shape s, std::uint64_t seed, int row0, int rows, void* dst,
                         DataKind kind = DataKind::exact);

// The exact SAT of `in` (any input element type) for the checker:
//   integer outputs: sums modulo 2^32 (what int32 arithmetic wrapping produces, see docs/hmm.md);
//   float outputs: sums in double (exact for integer-valued data). The check is exact when every
//   input is an integer and exact_sum_factor * max|SAT| <= 2^24 (f32) or 2^53 (f64): then every
//   value an algorithm forms from at most two sub-rectangle sums is an exactly representable
//   integer, whatever the order of additions. Otherwise it uses the bound of rounding_bound,
//   with the SAT of |a| when the input has negative values.
constexpr double exact_sum_factor = 8;
struct Reference {
    Shape shape;
    bool exact = true;                   // compare exactly (bit for bit)
    std::vector<std::uint32_t> exact_sums;
    std::vector<double> sums;            // float outputs
    std::vector<double> abs_sums;        // empty when the input has no negative values or exact
    double unit_roundoff = 0;            // 2^-24 (f32) or 2^-53 (f64)
    double max_abs_sum = 0;              // max |SAT| (float outputs)
    std::string inexact_why;             // float outputs that are not exact: why not
    double chain = 0;                    // d of the float bound; 0: rows + cols + 64
};
Reference reference_sat(DType t, Shape s, const void* in);
// The transpose of `in`, converted to the output type, for Computes::transpose variants.
Reference reference_transpose(DType t, Shape s, const void* in);

// Compare `got` (output element type of `t`, ref.shape elements) with the reference: exactly
// when ref.exact, else |got - exact| <= rounding_bound(u, shape) * S|a| (NaN always fails).
CheckReport compare_output(DType t, const Reference& ref, const void* got);

// The relative rounding bound tau(d), d = rows + cols + 64, u the unit roundoff (docs/hmm.md):
//   d u <= 2^-7:  2 gamma_d, gamma_d = d u / (1 - d u), deterministic (Higham, Lemma 3.1) for
//                 any summation whose dependency chains have at most d additions;
//   beyond:       max(2 gamma_{d0}, 2 gamma~_d(lambda)), d0 u = 2^-7, with Higham & Mary's (2019)
//                 probabilistic gamma~_d(lambda) = exp(lambda sqrt(d) u + d u^2 / (1 - u)) - 1,
//                 lambda = 11 (every element of a 2^31-element SAT within it with probability
//                 above 1 - 10^-7 when rounding errors are independent and of mean zero).
// Finite, positive and non-decreasing in d for every shape.
double rounding_bound(double unit_roundoff, Shape s);
// The same bound for a summation chain of length d (rounding_bound uses d = rows + cols + 64).
double rounding_bound_chain(double unit_roundoff, double d);
constexpr double rounding_lambda = 11;
constexpr double rounding_deterministic_du = 1.0 / 128;  // d u up to which tau is deterministic

// Canary band: `band_bytes` bytes on each side of the output buffer, filled with canary_byte
// before a run; check_canaries names the first byte that changed.
constexpr unsigned char poison_byte = 0x7F;   // f32 3.4e38, i32 2139062143: never a real sum
// True when every byte of `value` is still poison_byte: an output the kernel never wrote, which
// a failure message names with unwritten_note.
constexpr const char* unwritten_note = " (never written: still the poison value)";
inline bool is_poison_bytes(const unsigned char* bytes, std::size_t count) {
    for (std::size_t k = 0; k < count; ++k)
        if (bytes[k] != poison_byte) return false;
    return true;
}
template <class T>
bool is_poison(const T& value) {
    return is_poison_bytes(reinterpret_cast<const unsigned char*>(&value), sizeof(T));
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

// The SAT of value(i, j) over a rows x cols matrix, summed exactly in 64-bit integers (integer
// data), handed to visit(i, j, sum) element by element in row-major order: the check of an
// output against exact sums without storing them (the library's tests and bench_batch).
template <class Value, class Visit>
void for_each_exact_sum(Shape s, Value value, Visit visit) {
    std::vector<long long> column(std::size_t(s.cols), 0);
    for (int i = 0; i < s.rows; ++i) {
        long long row = 0;
        for (int j = 0; j < s.cols; ++j) {
            row += value(i, j);
            column[j] += row;
            visit(i, j, column[j]);
        }
    }
}
// Whether an output element is the exact sum: integers modulo 2^32 (their sums wrap), floats
// exactly.
template <class Out>
bool equals_exact_sum(Out got, long long sum) {
    if constexpr (std::is_integral<Out>::value) return std::uint32_t(got) == std::uint32_t(sum);
    else return double(got) == double(sum);
}

}  // namespace sat
