// .npy / .pgm / .png round trips, errors, and the box filter.
#include <cstdio>
#include <cstring>
#include <fstream>

#include "data.h"
#include "io.h"
#include "test_util.h"

using sat::DType;
using sat::Shape;

namespace {
std::string temp_path(const std::string& name) { return "build/test_tmp_" + name; }
}  // namespace

TEST_CASE(".npy round trip for every dtype", "[cpu][io]") {
    for (const char* dtype : {"f4", "f8", "i4", "u1"}) {
        const Shape s{7, 13};
        const std::size_t elem = dtype[1] == '8' ? 8 : dtype[1] == '4' ? 4 : 1;
        std::vector<unsigned char> data(s.n() * elem);
        for (std::size_t k = 0; k < data.size(); ++k) data[k] = static_cast<unsigned char>(k * 31 + 7);
        const std::string path = temp_path(std::string("rt_") + dtype + ".npy");
        sat::write_npy(path, s, dtype, data.data());
        const sat::HostMatrix m = sat::read_matrix(path);
        CHECK(m.shape.rows == 7);
        CHECK(m.shape.cols == 13);
        CHECK(m.dtype == dtype);
        CHECK(m.bytes == data);
        std::remove(path.c_str());
    }
}

TEST_CASE(".pgm and .png round trips keep every pixel", "[cpu][io]") {
    const int width = 37, height = 23;
    std::vector<unsigned char> px(width * height);
    for (std::size_t k = 0; k < px.size(); ++k) px[k] = static_cast<unsigned char>(k * 7);
    for (const char* ext : {".pgm", ".png"}) {
        const std::string path = temp_path(std::string("img") + ext);
        sat::write_image(path, width, height, 1, px.data());
        const sat::HostMatrix m = sat::read_matrix(path);
        CHECK(m.shape.rows == height);
        CHECK(m.shape.cols == width);
        CHECK(m.bytes == px);
        std::remove(path.c_str());
    }
}

TEST_CASE("unreadable inputs give one clear error", "[cpu][io]") {
    CHECK_THROWS_WITH(sat::read_matrix("build/no_such_file.npy"), Catch::Contains("no_such_file.npy: cannot open"));
    const std::string junk = temp_path("junk.npy");
    FILE* f = std::fopen(junk.c_str(), "wb");
    std::fputs("not numpy", f);
    std::fclose(f);
    CHECK_THROWS_WITH(sat::read_matrix(junk), Catch::Contains("not a .npy file"));
    std::remove(junk.c_str());
    CHECK_THROWS_WITH(sat::read_matrix("Makefile"), Catch::Contains("unknown file type"));
}

TEST_CASE("input conversion refuses a type that cannot hold the data", "[cpu][io]") {
    sat::HostMatrix m;
    m.shape = {1, 2};
    m.dtype = "f4";
    m.bytes.resize(8);
    CHECK_THROWS_WITH(sat::convert_input(m, DType::u8i32), Catch::Contains("needs 8-bit data"));
    CHECK_THROWS_WITH(sat::convert_input(m, DType::i32), Catch::Contains("needs integer data"));
    m.dtype = "u1";
    m.bytes = {3, 250};
    const auto f = sat::convert_input(m, DType::f32);
    float v[2];
    std::memcpy(v, f.data(), 8);
    CHECK(v[0] == 3.0f);
    CHECK(v[1] == 250.0f);
}

TEST_CASE("box filter from a SAT: radius 0 is the identity, a constant stays constant", "[cpu][io]") {
    const Shape s{9, 11};
    std::vector<std::uint8_t> img(s.n());
    for (std::size_t k = 0; k < s.n(); ++k) img[k] = static_cast<std::uint8_t>((k * 37) % 256);
    std::vector<std::int32_t> b(s.n());
    sat::cpu_sat(img.data(), b.data(), s);
    CHECK(sat::box_filter_from_sat(DType::u8i32, s, b.data(), 0) == std::vector<unsigned char>(img.begin(), img.end()));
    std::vector<std::uint8_t> flat(s.n(), 77);
    sat::cpu_sat(flat.data(), b.data(), s);
    for (int radius : {1, 3, 20})
        for (unsigned char v : sat::box_filter_from_sat(DType::u8i32, s, b.data(), radius)) REQUIRE(v == 77);
}

TEST_CASE("box filter averages the clipped window", "[cpu][io]") {
    const Shape s{1, 3};
    std::vector<float> row = {0, 3, 9};
    std::vector<float> b(3);
    sat::cpu_sat(row.data(), b.data(), s);
    const auto out = sat::box_filter_from_sat(DType::f32, s, b.data(), 1);
    CHECK(int(out[0]) == 2);  // (0 + 3) / 2 rounds to 2
    CHECK(int(out[1]) == 4);  // (0 + 3 + 9) / 3
    CHECK(int(out[2]) == 6);  // (3 + 9) / 2
}

TEST_CASE("16-bit pixels stay 16-bit; int64 is narrowed only when it fits", "[cpu][io]") {
    // A 16-bit PGM (big-endian samples) read whole, then converted exactly to f64.
    const std::string pgm = "build/test_tmp_16.pgm";
    {
        std::ofstream f(pgm, std::ios::binary);
        f << "P5\n3 2\n65535\n";
        const unsigned char px[12] = {0xFF, 0xFF, 0x01, 0x00, 0x00, 0x01, 0x12, 0x34, 0x80, 0x00, 0x00, 0x00};
        f.write(reinterpret_cast<const char*>(px), 12);
    }
    const sat::HostMatrix m = sat::read_matrix(pgm);
    REQUIRE(m.dtype == "u2");
    CHECK(m.shape.rows == 2);
    CHECK(m.shape.cols == 3);
    const auto f64 = sat::convert_input(m, sat::DType::f64);
    const double* v = reinterpret_cast<const double*>(f64.data());
    CHECK(v[0] == 65535);
    CHECK(v[1] == 256);
    CHECK(v[2] == 1);
    CHECK(v[3] == 0x1234);
    CHECK(v[4] == 0x8000);
    CHECK_THROWS_WITH(sat::convert_input(m, sat::DType::u8i32), Catch::Contains("needs 8-bit data"));
    // A PGM one byte short is refused, not padded.
    {
        std::ofstream f(pgm, std::ios::binary);
        f << "P5\n3 2\n255\n" << std::string(5, 'x');
    }
    CHECK_THROWS_WITH(sat::read_matrix(pgm), Catch::Contains("truncated PGM"));
}
