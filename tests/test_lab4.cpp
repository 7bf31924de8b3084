// Lab 4 (2R1W, Kasagi et al. section V): the variant against the CPU reference, including sizes
// where the SAT of the block sums S needs the recursion (k = 1).
#include "test_util.h"
#include "lab4.h"

#include <type_traits>
#include <vector>

using sat::DType;
using sat::Shape;

TEST_CASE("lab4 2R1W matches the reference for every type and standard shape", "[gpu][lab4]") {
    SAT_REQUIRE_GPU();
    sat_test::require_all_pass(4, {"2R1W"}, sat_test::all_types(), sat_test::standard_shapes());
}

TEST_CASE("lab4 edges: one block, one block row/column, S at and just past one block",
          "[gpu][lab4]") {
    SAT_REQUIRE_GPU();
    // S is (ty-1) x (tx-1) blocks: 1056 = 33 blocks gives S = 32 x 32 (no recursion), 1057 gives
    // 33 x 33 (recursion); 1 x 40000 / 40000 x 1 give S empty with a long C or R; 30 x 64 is
    // aligned for vectors on one side only.
    sat_test::require_all_pass(4, {"2R1W"}, sat_test::all_types(),
                               {{32, 32}, {33, 31}, {31, 33}, {32, 5000}, {5000, 32}, {1056, 1056},
                                {1057, 1057}, {1057, 40}, {40, 1057}, {30, 64}, {1, 40000}, {40000, 1}});
}

TEST_CASE("lab4 large matrices, 16384x16384 and 32768x32768 f32 (recursion depth k = 1)",
          "[gpu][lab4][large]") {
    SAT_REQUIRE_GPU();
    sat_test::require_all_pass(4, {"2R1W"}, {DType::f32}, {{16384, 16384}, {32768, 32768}});
}

// lab4::sat_2r1w on a sub-rectangle of a larger matrix (leading dimension ld, 16-byte aligned):
// with cols a multiple of 4 the 4-byte types take the vector path, otherwise the element path
// (sat::vectors_fit); either way the values outside the rectangle must neither enter the SAT
// nor be overwritten. Input values are small
// integers (exact in f32); outside the rectangle the input holds 1000 and the output a canary.
template <class In, class Out>
static void check_sub_rectangle(sat::Shape s, int r0, int c0, bool in_place, std::uint64_t seed) {
    const int P = s.rows + r0 + 3, ld = ((c0 + s.cols + 5 + 3) / 4) * 4;  // parent: P x ld
    const std::size_t n = std::size_t(P) * ld;
    std::vector<In> in(n, In(1000));
    std::uint64_t x = seed;
    for (int i = 0; i < s.rows; ++i)
        for (int j = 0; j < s.cols; ++j) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            in[std::size_t(r0 + i) * ld + c0 + j] = In((x >> 33) % 10);
        }
    const Out canary = Out(-7);
    std::vector<Out> out(n, canary);
    if (in_place)
        for (std::size_t k = 0; k < n; ++k) out[k] = Out(in[k]);
    const std::vector<Out> before = out;
    // The reference: unsigned wrap-around for integers, double for floats (exact: sums < 2^24).
    using A = std::conditional_t<std::is_floating_point_v<Out>, double, sat::Acc<Out>>;
    std::vector<A> ref(std::size_t(s.rows) * s.cols);
    for (int i = 0; i < s.rows; ++i)
        for (int j = 0; j < s.cols; ++j) {
            A v = A(in[std::size_t(r0 + i) * ld + c0 + j]);
            if (i > 0) v += ref[std::size_t(i - 1) * s.cols + j];
            if (j > 0) v += ref[std::size_t(i) * s.cols + j - 1];
            if (i > 0 && j > 0) v -= ref[std::size_t(i - 1) * s.cols + j - 1];
            ref[std::size_t(i) * s.cols + j] = v;
        }
    In* d_in = nullptr;
    Out* d_out = nullptr;
    REQUIRE(cudaMalloc(&d_out, n * sizeof(Out)) == cudaSuccess);
    REQUIRE(cudaMemcpy(d_out, out.data(), n * sizeof(Out), cudaMemcpyHostToDevice) == cudaSuccess);
    const std::size_t at = std::size_t(r0) * ld + c0;
    {
        sat::Workspace ws(true);
        if (in_place) {
            lab4::sat_2r1w(reinterpret_cast<const In*>(d_out + at), ld, d_out + at, ld, s, ws, nullptr);
        } else {
            REQUIRE(cudaMalloc(&d_in, n * sizeof(In)) == cudaSuccess);
            REQUIRE(cudaMemcpy(d_in, in.data(), n * sizeof(In), cudaMemcpyHostToDevice) == cudaSuccess);
            lab4::sat_2r1w(d_in + at, ld, d_out + at, ld, s, ws, nullptr);
        }
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    }
    REQUIRE(cudaMemcpy(out.data(), d_out, n * sizeof(Out), cudaMemcpyDeviceToHost) == cudaSuccess);
    cudaFree(d_in);
    cudaFree(d_out);
    std::size_t wrong_inside = 0, touched_outside = 0;
    for (int i = 0; i < P; ++i)
        for (int j = 0; j < ld; ++j) {
            const std::size_t k = std::size_t(i) * ld + j;
            const bool inside = i >= r0 && i < r0 + s.rows && j >= c0 && j < c0 + s.cols;
            if (inside) wrong_inside += out[k] != Out(ref[std::size_t(i - r0) * s.cols + (j - c0)]);
            else touched_outside += out[k] != before[k];
        }
    INFO("seed " << seed << ", " << s.rows << " x " << s.cols << " at (" << r0 << ", " << c0
                 << ") of " << P << " x " << ld << (in_place ? ", in place" : ""));
    CHECK(wrong_inside == 0);
    CHECK(touched_outside == 0);
}

TEST_CASE("lab4 sat_2r1w on a sub-rectangle reads and writes nothing past its columns",
          "[gpu][lab4]") {
    SAT_REQUIRE_GPU();
    // cols not a multiple of 4 (element path), then multiples of 4 (vector path)
    const Shape shapes[] = {{45, 37}, {70, 61}, {33, 130}, {1, 5}, {97, 89}, {1100, 1059},
                            {45, 36}, {70, 64}, {1, 4}, {1100, 1060}};
    for (Shape s : shapes)
        for (bool in_place : {false, true}) {
            const std::uint64_t seed = sat_test::fresh_seed();
            check_sub_rectangle<float, float>(s, 2, 4, in_place, seed);
            check_sub_rectangle<int32_t, int32_t>(s, 3, 8, in_place, seed);
            check_sub_rectangle<double, double>(s, 1, 4, in_place, seed);
            if (!in_place) check_sub_rectangle<uint8_t, int32_t>(s, 2, 4, false, seed);
        }
}
