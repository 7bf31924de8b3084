// data.cpp — seeded inputs, the CPU reference SAT and the checker.
#include "data.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <thread>

namespace sat {

std::size_t input_bytes(DType t) {
    return dispatch(t, [](auto in, auto) { return sizeof(in); });
}
std::size_t output_bytes(DType t) {
    return dispatch(t, [](auto, auto out) { return sizeof(out); });
}

void parallel_for(std::size_t count, const std::function<void(std::size_t, std::size_t)>& body,
                  std::size_t min_per_thread) {
    const std::size_t threads =
        std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()),
                              std::max<std::size_t>(1, count / std::max<std::size_t>(1, min_per_thread)));
    if (threads <= 1) {
        body(0, count);
        return;
    }
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < threads; ++t)
        pool.emplace_back(body, count * t / threads, count * (t + 1) / threads);
    for (auto& th : pool) th.join();
}

double max_abs(const std::vector<double>& v) {
    const std::size_t chunk = 1 << 20, chunks = v.size() / chunk + (v.size() % chunk != 0);
    std::vector<double> part(chunks, 0);
    parallel_for(chunks, [&](std::size_t b, std::size_t e) {
        for (std::size_t c = b; c < e; ++c)
            for (std::size_t i = c * chunk; i < std::min(v.size(), (c + 1) * chunk); ++i) {
                const double a = std::fabs(v[i]);
                if (!(a <= part[c])) part[c] = a != a ? std::numeric_limits<double>::infinity() : a;
            }
    }, 1);
    double result = 0;
    for (double p : part) result = std::max(result, p);
    return result;
}

namespace {

// splitmix64: a value per (seed, index), so any element can be regenerated independently.
std::uint64_t mix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

template <class In>
void fill(In* dst, Shape s, std::uint64_t seed, DataKind kind, std::size_t first = 0,
          std::size_t count = ~std::size_t(0)) {
    const std::uint64_t key = mix(seed);
    // real i32: values in [-m, m] with m * n < 2^31, so every partial sum fits in int32.
    const std::int64_t m =
        std::clamp<std::int64_t>(std::int64_t(2147483647.0 / double(std::max<std::size_t>(1, s.n()))), 1, 1000);
    const std::uint64_t k = std::uint64_t(exact_value_range(s.n()));
    parallel_for(std::min(count, s.n()), [&](std::size_t b, std::size_t e) {
        for (std::size_t j = b; j < e; ++j) {
            const std::size_t i = first + j;  // index in the whole matrix: the same data strip by strip
            const std::uint64_t bits = mix(key ^ mix(i));
            if (kind == DataKind::exact) {
                if constexpr (std::is_same_v<In, uint8_t>) {
                    dst[j] = uint8_t(1 + bits % 255);
                } else {
                    const std::int64_t v = std::int64_t(bits % (2 * k));  // 0 .. 2K-1 -> -K..-1, 1..K
                    dst[j] = In(v < std::int64_t(k) ? v - std::int64_t(k) : v - std::int64_t(k) + 1);
                }
            } else if constexpr (std::is_same_v<In, float>) {
                dst[j] = float(bits >> 40) * (1.0f / 16777216.0f);  // 24 random bits in [0,1)
            } else if constexpr (std::is_same_v<In, double>) {
                dst[j] = double(bits % 256);
            } else if constexpr (std::is_same_v<In, uint8_t>) {
                dst[j] = uint8_t(bits);
            } else {
                dst[j] = In(std::int64_t(bits % std::uint64_t(2 * m + 1)) - m);
            }
        }
    });
}

// SAT in place over `a` (already converted to the accumulation type): row prefix sums in
// parallel over rows, then column accumulation in parallel over column ranges.
template <class Acc>
void sat_in_place(Acc* a, Shape s) {
    const std::size_t cols = s.cols;
    parallel_for(s.rows, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i)
            for (std::size_t j = 1; j < cols; ++j) a[i * cols + j] += a[i * cols + j - 1];
    });
    parallel_for(cols, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = 1; i < std::size_t(s.rows); ++i)
            for (std::size_t j = b; j < e; ++j) a[i * cols + j] += a[(i - 1) * cols + j];
    });
}

}  // namespace

int exact_value_range(std::size_t n) {
    int k = 127;
    const double limit = std::ldexp(1.0, 24) / 64;  // sqrt(n E[a^2]) <= limit
    while (k > 3 && double(n) * ((k + 1.0) * (2.0 * k + 1.0) / 6.0) > limit * limit) --k;
    return k;
}

void generate_input(DType t, Shape s, std::uint64_t seed, void* dst, DataKind kind) {
    dispatch(t, [&](auto in, auto) { fill(static_cast<decltype(in)*>(dst), s, seed, kind); });
}

void generate_input_rows(DType t, Shape s, std::uint64_t seed, int row0, int rows, void* dst,
                         DataKind kind) {
    dispatch(t, [&](auto in, auto) {
        fill(static_cast<decltype(in)*>(dst), s, seed, kind, std::size_t(row0) * s.cols,
             std::size_t(rows) * s.cols);
    });
}

Reference reference_sat(DType t, Shape s, const void* in_ptr) {
    Reference ref;
    ref.shape = s;
    dispatch(t, [&](auto in_tag, auto out_tag) {
        using In = decltype(in_tag);
        using Out = decltype(out_tag);
        const In* in = static_cast<const In*>(in_ptr);
        if constexpr (std::is_integral_v<Out>) {
            ref.exact_sums.resize(s.n());
            std::uint32_t* a = ref.exact_sums.data();
            parallel_for(s.n(), [&](std::size_t b, std::size_t e) {
                for (std::size_t i = b; i < e; ++i) a[i] = std::uint32_t(std::int64_t(in[i]));
            });
            sat_in_place(a, s);  // unsigned arithmetic wraps modulo 2^32, like the GPU's int32
        } else {
            ref.unit_roundoff = std::is_same_v<Out, float> ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
            ref.sums.resize(s.n());
            std::atomic<bool> negative{false}, integral{true};  // the exactness test needs both
            parallel_for(s.n(), [&](std::size_t b, std::size_t e) {
                bool any_negative = false, all_integers = true;
                for (std::size_t i = b; i < e; ++i) {
                    const double v = double(in[i]);
                    ref.sums[i] = v;
                    any_negative |= v < 0;
                    all_integers &= std::trunc(v) == v;  // false for NaN and infinities too
                }
                if (any_negative) negative.store(true, std::memory_order_relaxed);
                if (!all_integers) integral.store(false, std::memory_order_relaxed);
            });
            sat_in_place(ref.sums.data(), s);  // exact: integers below 2^53 (checked just below)
            ref.max_abs_sum = max_abs(ref.sums);
            // Every sum of two sub-rectangle sums is at most 8 max|SAT| in magnitude (each
            // sub-rectangle sum is a signed sum of 4 SAT values).
            const double representable = 1 / ref.unit_roundoff;  // 2^24 or 2^53
            ref.exact = integral.load() && exact_sum_factor * ref.max_abs_sum <= representable;
            if (!integral.load()) ref.inexact_why = "real-valued data";
            else if (!ref.exact)
                ref.inexact_why = "integer data whose sums exceed 2^" +
                                  std::to_string(std::is_same_v<Out, float> ? 24 : 53) + " / " +
                                  std::to_string(int(exact_sum_factor));
            if (!ref.exact && negative.load()) {  // the bound needs the SAT of |a|
                ref.abs_sums.resize(s.n());
                parallel_for(s.n(), [&](std::size_t b, std::size_t e) {
                    for (std::size_t i = b; i < e; ++i) ref.abs_sums[i] = std::fabs(double(in[i]));
                });
                sat_in_place(ref.abs_sums.data(), s);
            }
        }
    });
    return ref;
}

Reference reference_transpose(DType t, Shape s, const void* in_ptr) {
    Reference ref;
    ref.shape = {s.cols, s.rows};
    dispatch(t, [&](auto in_tag, auto out_tag) {
        using In = decltype(in_tag);
        using Out = decltype(out_tag);
        const In* in = static_cast<const In*>(in_ptr);
        ref.exact = true;  // a transpose moves values: compare bit-exactly after conversion
        if constexpr (std::is_integral_v<Out>) ref.exact_sums.resize(s.n());
        else ref.sums.resize(s.n());
        for (std::size_t i = 0; i < std::size_t(s.rows); ++i)
            for (std::size_t j = 0; j < std::size_t(s.cols); ++j) {
                const In v = in[i * s.cols + j];
                if constexpr (std::is_integral_v<Out>) ref.exact_sums[j * s.rows + i] = std::uint32_t(Out(v));
                else ref.sums[j * s.rows + i] = double(Out(v));
            }
    });
    return ref;
}

namespace {
// Compare elements [begin, end); the caller merges the reports of all ranges.
template <class Out>
CheckReport compare_range(const Reference& ref, const Out* got, double tau, std::size_t begin,
                          std::size_t end) {
    CheckReport rep;
    const Shape s = ref.shape;
    for (std::size_t i = begin; i < end; ++i) {
        double expected, value, err;
        bool bad;
        if constexpr (std::is_integral_v<Out>) {
            const std::uint32_t e = ref.exact_sums[i], g = std::uint32_t(got[i]);
            expected = double(std::int32_t(e));
            value = double(got[i]);
            err = std::fabs(value - expected);
            bad = e != g;
        } else {
            expected = ref.sums[i];
            value = double(got[i]);
            err = std::fabs(value - expected);
            const double scale = ref.abs_sums.empty() ? std::fabs(expected) : ref.abs_sums[i];
            bad = ref.exact ? !(value == expected) : !(err <= tau * scale);  // NaN fails too
            if (err != err) err = std::numeric_limits<double>::infinity();
        }
        if (err > rep.max_error) rep.max_error = err;
        if (bad) {
            if (rep.wrong == 0) {
                rep.first_unwritten = is_poison(got[i]);
                rep.first_row = long(i / s.cols);
                rep.first_col = long(i % s.cols);
                rep.first_expected = expected;
                rep.first_got = value;
            }
            ++rep.wrong;
        }
    }
    return rep;
}

template <class Out>
CheckReport compare_typed(const Reference& ref, const Out* got) {
    const Shape s = ref.shape;
    const double tau = ref.exact             ? 0
                       : ref.chain > 0         ? rounding_bound_chain(ref.unit_roundoff, ref.chain)
                                               : rounding_bound(ref.unit_roundoff, s);
    // Split into fixed chunks so that "first wrong" is the first in row-major order.
    const std::size_t chunk = 1 << 20, chunks = s.n() / chunk + (s.n() % chunk != 0);
    std::vector<CheckReport> parts(chunks);
    parallel_for(chunks, [&](std::size_t b, std::size_t e) {
        for (std::size_t c = b; c < e; ++c)
            parts[c] = compare_range(ref, got, tau, c * chunk, std::min(s.n(), (c + 1) * chunk));
    }, 1);
    CheckReport rep;
    for (const CheckReport& part : parts) {
        if (part.wrong > 0 && rep.wrong == 0) {
            rep.first_row = part.first_row;
            rep.first_col = part.first_col;
            rep.first_expected = part.first_expected;
            rep.first_got = part.first_got;
            rep.first_unwritten = part.first_unwritten;
        }
        rep.wrong += part.wrong;
        rep.max_error = std::max(rep.max_error, part.max_error);
    }
    rep.checked = s.n();
    rep.pass = rep.wrong == 0;
    if (ref.exact) rep.tolerance = "exact";
    else {
        const double d = double(s.rows) + s.cols + 64;
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s: |err| <= %.2g * sum|a| (%s, d = rows+cols+64)",
                      ref.inexact_why.c_str(), tau,
                      d * ref.unit_roundoff <= rounding_deterministic_du ? "2*gamma_d" : "probabilistic, docs/hmm.md");
        rep.tolerance = buf;
    }
    return rep;
}
}  // namespace

double rounding_bound(double u, Shape s) {
    return rounding_bound_chain(u, double(s.rows) + double(s.cols) + 64);
}

double rounding_bound_chain(double u, double d) {
    const auto gamma = [u](double d) { return d * u / (1 - d * u); };
    if (d * u <= rounding_deterministic_du) return 2 * gamma(d);
    const double d0 = rounding_deterministic_du / u;
    const double probabilistic = std::expm1(rounding_lambda * std::sqrt(d) * u + d * u * u / (1 - u));
    return std::max(2 * gamma(d0), 2 * probabilistic);
}

CheckReport compare_output(DType t, const Reference& ref, const void* got) {
    return dispatch(t, [&](auto, auto out_tag) {
        using Out = decltype(out_tag);
        return compare_typed<Out>(ref, static_cast<const Out*>(got));
    });
}

std::string check_canaries(const unsigned char* before, const unsigned char* after,
                           std::size_t band_bytes) {
    for (std::size_t i = 0; i < band_bytes; ++i)
        if (before[i] != canary_byte)
            return "out-of-bounds write " + std::to_string(band_bytes - i) + " bytes before the output";
    for (std::size_t i = 0; i < band_bytes; ++i)
        if (after[i] != canary_byte)
            return "out-of-bounds write " + std::to_string(i) + " bytes past the end of the output";
    return "";
}

std::string CheckReport::message() const {
    if (pass && canary.empty() && repetition.empty()) return "PASS";
    char buf[512];
    std::string text;
    if (!canary.empty()) text = canary;
    if (wrong > 0) {
        // A batch: the counts are over its images, the first wrong element is in image first_image.
        const std::string over = images > 1 ? " over " + std::to_string(images) + " images" : "";
        const std::string in_image = images > 1 ? " in image " + std::to_string(first_image) + " (0-based)" : "";
        std::snprintf(buf, sizeof buf,
                      "%zu of %zu elements wrong%s; first%s at (row %ld, col %ld): expected %.17g, got %.17g%s; max error %.3g (%s)",
                      wrong, checked, over.c_str(), in_image.c_str(), first_row, first_col, first_expected, first_got,
                      first_unwritten ? unwritten_note : "", max_error,
                      tolerance.c_str());
        text += (text.empty() ? "" : "; ") + std::string(buf);
    }
    if (!repetition.empty()) text += (text.empty() ? "" : "; ") + repetition;
    return text;
}

}  // namespace sat
