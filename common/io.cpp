// io.cpp — .npy / .pgm / .png reading and writing, box filter, colour ramp.
#include "io.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "data.h"

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_PNM
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

namespace sat {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::size_t dtype_size(const std::string& dtype) {
    if (dtype == "f4" || dtype == "i4") return 4;
    if (dtype == "f8") return 8;
    if (dtype == "u1") return 1;
    throw Error("unsupported .npy dtype '" + dtype + "' (use float32, float64, int32 or uint8)");
}

std::string header_field(const std::string& header, const std::string& key) {
    const auto at = header.find("'" + key + "'");
    if (at == std::string::npos) return "";
    auto start = header.find(':', at) + 1;
    while (start < header.size() && header[start] == ' ') ++start;
    return header.substr(start);
}

HostMatrix read_npy(const std::string& path, std::ifstream& file) {
    char magic[8];
    if (!file.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
        throw Error(path + ": not a .npy file");
    std::size_t header_len = 0;
    if (magic[6] == 1) {
        unsigned char len[2];
        file.read(reinterpret_cast<char*>(len), 2);
        header_len = len[0] | (len[1] << 8);
    } else {
        unsigned char len[4];
        file.read(reinterpret_cast<char*>(len), 4);
        header_len = len[0] | (len[1] << 8) | (len[2] << 16) | (std::size_t(len[3]) << 24);
    }
    std::string header(header_len, '\0');
    if (!file.read(header.data(), header_len)) throw Error(path + ": truncated .npy header");

    const std::string descr = header_field(header, "descr");
    const std::string order = header_field(header, "fortran_order");
    const std::string shape = header_field(header, "shape");
    if (descr.size() < 4 || (descr[1] != '<' && descr[1] != '|'))
        throw Error(path + ": .npy must be little-endian");
    HostMatrix m;
    m.dtype = descr.substr(2, 2);
    const std::size_t elem = dtype_size(m.dtype);
    if (order.rfind("False", 0) != 0) throw Error(path + ": .npy must be in C order");
    long rows = 0, cols = 0;
    if (std::sscanf(shape.c_str(), "(%ld, %ld)", &rows, &cols) != 2 || rows < 1 || cols < 1 ||
        rows > 2147483647L || cols > 2147483647L)
        throw Error(path + ": .npy must hold a non-empty 2-D array");
    m.shape = {int(rows), int(cols)};
    m.bytes.resize(m.shape.n() * elem);
    if (!file.read(reinterpret_cast<char*>(m.bytes.data()), m.bytes.size()))
        throw Error(path + ": .npy data is shorter than its shape says");
    return m;
}

HostMatrix read_image(const std::string& path) {
    int width = 0, height = 0, channels = 0;
    unsigned char* pixels = stbi_load(path.c_str(), &width, &height, &channels, 1);
    if (!pixels) throw Error(path + ": cannot read image (" + stbi_failure_reason() + ")");
    HostMatrix m;
    m.shape = {height, width};
    m.dtype = "u1";
    m.bytes.assign(pixels, pixels + m.shape.n());
    stbi_image_free(pixels);
    return m;
}

}  // namespace

HostMatrix read_matrix(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw Error(path + ": cannot open (" + std::strerror(errno) + ")");
    if (ends_with(path, ".npy")) return read_npy(path, file);
    if (ends_with(path, ".png") || ends_with(path, ".pgm")) return read_image(path);
    throw Error(path + ": unknown file type (use .npy, .pgm or .png)");
}

void write_npy(const std::string& path, Shape s, const std::string& dtype, const void* data) {
    const std::string descr = dtype == "u1" ? "|u1" : "<" + dtype;
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" +
                         std::to_string(s.rows) + ", " + std::to_string(s.cols) + "), }";
    // Pad so that magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::ofstream file(path, std::ios::binary);
    if (!file) throw Error(path + ": cannot write (" + std::strerror(errno) + ")");
    file.write("\x93NUMPY\x01\x00", 8);
    const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xFF),
                                  static_cast<unsigned char>(header.size() >> 8)};
    file.write(reinterpret_cast<const char*>(len), 2);
    file << header;
    file.write(static_cast<const char*>(data), std::streamsize(s.n() * dtype_size(dtype)));
    if (!file) throw Error(path + ": write failed");
}

void write_image(const std::string& path, int width, int height, int channels,
                 const unsigned char* pixels) {
    if (ends_with(path, ".pgm")) {
        if (channels != 1) throw Error(path + ": .pgm holds gray images only; use .png");
        std::ofstream file(path, std::ios::binary);
        file << "P5\n" << width << " " << height << "\n255\n";
        file.write(reinterpret_cast<const char*>(pixels), std::streamsize(width) * height);
        if (!file) throw Error(path + ": write failed");
        return;
    }
    if (!ends_with(path, ".png")) throw Error(path + ": unknown image type (use .png or .pgm)");
    if (!stbi_write_png(path.c_str(), width, height, channels, pixels, width * channels))
        throw Error(path + ": cannot write PNG");
}

std::string npy_input_dtype(DType t) {
    switch (t) {
        case DType::f32: return "f4";
        case DType::f64: return "f8";
        case DType::i32: return "i4";
        case DType::u8i32: return "u1";
    }
    return "";
}
std::string npy_output_dtype(DType t) {
    switch (t) {
        case DType::f32: return "f4";
        case DType::f64: return "f8";
        default: return "i4";
    }
}

std::vector<unsigned char> convert_input(const HostMatrix& m, DType t) {
    if (m.dtype == npy_input_dtype(t)) return m.bytes;
    std::vector<unsigned char> out(m.shape.n() * input_bytes(t));
    auto read = [&](std::size_t i) -> double {
        const unsigned char* p = m.bytes.data();
        if (m.dtype == "u1") return p[i];
        if (m.dtype == "i4") { int32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
        if (m.dtype == "f4") { float v; std::memcpy(&v, p + 4 * i, 4); return v; }
        double v; std::memcpy(&v, p + 8 * i, 8); return v;
    };
    const bool integral_source = m.dtype == "u1" || m.dtype == "i4";
    if (t == DType::u8i32 && m.dtype != "u1")
        throw Error("--type u8i32 needs 8-bit data; this input is " + m.dtype + " (use --type " +
                    (m.dtype == "i4" ? "i32" : "f32 or f64") + ")");
    if (t == DType::i32 && !integral_source)
        throw Error("--type i32 needs integer data; this input is " + m.dtype + " (use --type f32 or f64)");
    dispatch(t, [&](auto in_tag, auto) {
        using In = decltype(in_tag);
        In* dst = reinterpret_cast<In*>(out.data());
        for (std::size_t i = 0; i < m.shape.n(); ++i) dst[i] = In(read(i));
    });
    return out;
}

std::vector<unsigned char> box_filter_from_sat(DType t, Shape s, const void* sat, int radius) {
    std::vector<unsigned char> image(s.n());
    dispatch(t, [&](auto, auto out_tag) {
        using Out = decltype(out_tag);
        const Out* b = static_cast<const Out*>(sat);
        // b(i, j) with b(-1, *) = b(*, -1) = 0; int32 sums are read modulo 2^32, which keeps
        // differences of wrapped sums exact.
        auto at = [&](long i, long j) -> double {
            if (i < 0 || j < 0) return 0;
            return double(b[std::size_t(i) * s.cols + j]);
        };
        auto at_u = [&](long i, long j) -> std::uint32_t {
            if (i < 0 || j < 0) return 0;
            return std::uint32_t(b[std::size_t(i) * s.cols + j]);
        };
        for (long i = 0; i < s.rows; ++i)
            for (long j = 0; j < s.cols; ++j) {
                const long top = std::max(-1L, i - radius - 1), bottom = std::min<long>(s.rows - 1, i + radius);
                const long left = std::max(-1L, j - radius - 1), right = std::min<long>(s.cols - 1, j + radius);
                double sum;
                if constexpr (std::is_integral_v<Out>)
                    sum = double(std::uint32_t(at_u(bottom, right) - at_u(top, right) - at_u(bottom, left) + at_u(top, left)));
                else
                    sum = at(bottom, right) - at(top, right) - at(bottom, left) + at(top, left);
                const double count = double(bottom - top) * double(right - left);
                image[std::size_t(i) * s.cols + j] =
                    static_cast<unsigned char>(std::clamp(std::lround(sum / count), 0L, 255L));
            }
    });
    return image;
}

void ramp_colour(double x, unsigned char rgb[3]) {
    x = std::clamp(x, 0.0, 1.0);
    // dark blue -> magenta -> orange -> yellow, readable when printed in gray too
    const double r = std::clamp(1.6 * x, 0.0, 1.0);
    const double g = std::clamp(1.6 * x - 0.6, 0.0, 1.0);
    const double b = std::clamp(0.5 + 0.8 * x - 1.6 * x * x, 0.0, 1.0);
    rgb[0] = static_cast<unsigned char>(255 * r);
    rgb[1] = static_cast<unsigned char>(255 * g);
    rgb[2] = static_cast<unsigned char>(255 * b);
}

}  // namespace sat
