// io.cpp — .npy / .pgm / .png reading and writing, box filter, colour ramp.
#include "io.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "data.h"
#include "harness.h"

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_PNM
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

namespace sat {

namespace {

std::size_t dtype_size(const std::string& dtype) {
    if (dtype == "f4" || dtype == "i4") return 4;
    if (dtype == "f8" || dtype == "i8") return 8;
    if (dtype == "u2") return 2;
    if (dtype == "u1") return 1;
    throw Error("unsupported .npy dtype '" + dtype + "' (use float32, float64, int32, int64 or uint8)");
}

std::string header_field(const std::string& header, const std::string& key) {
    const auto at = header.find("'" + key + "'");
    if (at == std::string::npos) return "";
    auto start = header.find(':', at) + 1;
    while (start < header.size() && header[start] == ' ') ++start;
    return header.substr(start);
}

std::uint64_t file_size(const std::string& path) {
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    return f ? std::uint64_t(f.tellg()) : 0;
}

// The dimensions of a .npy shape tuple "(a, b, ...)"; throws on anything else.
std::vector<long> npy_dims(const std::string& path, const std::string& shape) {
    std::vector<long> dims;
    if (shape.empty() || shape[0] != '(') throw Error(path + ": .npy header has no shape");
    std::size_t i = 1;
    while (i < shape.size() && shape[i] != ')') {
        if (shape[i] == ' ' || shape[i] == ',') { ++i; continue; }
        char* end = nullptr;
        const long d = std::strtol(shape.c_str() + i, &end, 10);
        if (end == shape.c_str() + i) throw Error(path + ": .npy header has a malformed shape");
        dims.push_back(d);
        i = std::size_t(end - shape.c_str());
    }
    return dims;
}

// int64 data (NumPy's default integer) is read as int32 when every value fits.
void narrow_int64(const std::string& path, HostMatrix& m) {
    const std::size_t n = m.shape.n();
    std::vector<unsigned char> narrow(n * 4);
    std::int64_t top = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::int64_t v;
        std::memcpy(&v, m.bytes.data() + 8 * i, 8);
        if (v > INT32_MAX || v < INT32_MIN) {
            if (std::llabs(v) > std::llabs(top)) top = v;
            continue;
        }
        const std::int32_t w = std::int32_t(v);
        std::memcpy(narrow.data() + 4 * i, &w, 4);
    }
    if (top != 0)
        throw Error(path + ": int64 values do not fit in int32 (largest " + std::to_string(top) +
                    "); save the array as float64 (--type f64)");
    m.bytes.swap(narrow);
    m.dtype = "i4";
    m.note = path + ": int64 data read as int32 (every value fits)";
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
    const std::uint64_t size = file_size(path);
    if (header_len > size) throw Error(path + ": truncated .npy header");
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
    const std::vector<long> dims = npy_dims(path, shape);
    if (dims.size() != 2) {
        std::string text;
        for (long d : dims) text += (text.empty() ? "" : "x") + std::to_string(d);
        throw Error(path + ": .npy holds a " + std::to_string(dims.size()) + "-D array" +
                    (text.empty() ? "" : " (" + text + ")") + "; the labs take one 2-D matrix");
    }
    const long rows = dims[0], cols = dims[1];
    if (rows < 1 || cols < 1 || rows > 2147483647L || cols > 2147483647L)
        throw Error(path + ": .npy must hold a non-empty 2-D array");
    m.shape = {int(rows), int(cols)};
    // Check the header's claim against the file before allocating for it.
    const std::uint64_t data_offset = std::uint64_t(file.tellg());
    const std::uint64_t claimed = std::uint64_t(m.shape.n()) * elem;
    if (size < data_offset || size - data_offset < claimed)
        throw Error(path + ": .npy header says " + std::to_string(rows) + "x" + std::to_string(cols) + " (" +
                    std::to_string(claimed) + " bytes) but the file holds " +
                    std::to_string(size < data_offset ? 0 : size - data_offset) + " bytes of data");
    m.bytes.resize(claimed);
    if (!file.read(reinterpret_cast<char*>(m.bytes.data()), m.bytes.size()))
        throw Error(path + ": .npy data is shorter than its shape says");
    if (m.dtype == "u2") throw Error("unsupported .npy dtype 'u2' (use float32, float64, int32, int64 or uint8)");
    if (m.dtype == "i8") narrow_int64(path, m);
    return m;
}

// Binary PGM (P5), 8 or 16 bits per pixel; a file shorter than its header says is refused.
HostMatrix read_pgm(const std::string& path, std::ifstream& file) {
    auto token = [&]() -> std::string {
        std::string t;
        int c;
        while ((c = file.get()) != EOF) {
            if (c == '#') {
                while ((c = file.get()) != EOF && c != '\n') {}
                continue;
            }
            if (std::isspace(c)) {
                if (!t.empty()) break;
                continue;
            }
            t += char(c);
        }
        return t;
    };
    if (token() != "P5") throw Error(path + ": not a binary PGM (P5)");
    long width = 0, height = 0, maxval = 0;
    try {
        width = std::stol(token());
        height = std::stol(token());
        maxval = std::stol(token());
    } catch (const std::exception&) {
        throw Error(path + ": malformed PGM header");
    }
    if (width < 1 || height < 1 || width > 2147483647L || height > 2147483647L || maxval < 1 || maxval > 65535)
        throw Error(path + ": malformed PGM header");
    const std::size_t bytes_per = maxval > 255 ? 2 : 1;
    const std::uint64_t offset = std::uint64_t(file.tellg());
    const std::uint64_t need = std::uint64_t(width) * std::uint64_t(height) * bytes_per;
    const std::uint64_t size = file_size(path);
    if (size < offset || size - offset < need)
        throw Error(path + ": truncated PGM: " + std::to_string(width) + "x" + std::to_string(height) + " needs " +
                    std::to_string(need) + " bytes of pixels, the file holds " +
                    std::to_string(size < offset ? 0 : size - offset));
    HostMatrix m;
    m.shape = {int(height), int(width)};
    m.bytes.resize(need);
    if (!file.read(reinterpret_cast<char*>(m.bytes.data()), std::streamsize(need))) throw Error(path + ": read failed");
    if (bytes_per == 1) {
        m.dtype = "u1";
    } else {  // big-endian 16-bit samples -> native uint16
        m.dtype = "u2";
        for (std::size_t i = 0; i < need; i += 2) std::swap(m.bytes[i], m.bytes[i + 1]);
    }
    return m;
}

HostMatrix read_png(const std::string& path) {
    int width = 0, height = 0, channels = 0;
    HostMatrix m;
    if (stbi_is_16_bit(path.c_str())) {
        // 16-bit PNG: all 16 bits are kept (as uint16, summed exactly in f64).
        stbi_us* pixels = stbi_load_16(path.c_str(), &width, &height, &channels, 1);
        if (!pixels) throw Error(path + ": cannot read image (" + stbi_failure_reason() + ")");
        m.shape = {height, width};
        m.dtype = "u2";
        m.bytes.resize(m.shape.n() * 2);
        std::memcpy(m.bytes.data(), pixels, m.bytes.size());
        stbi_image_free(pixels);
        return m;
    }
    unsigned char* pixels = stbi_load(path.c_str(), &width, &height, &channels, 1);
    if (!pixels) throw Error(path + ": cannot read image (" + stbi_failure_reason() + ")");
    m.shape = {height, width};
    m.dtype = "u1";
    m.bytes.assign(pixels, pixels + m.shape.n());
    stbi_image_free(pixels);
    return m;
}

// NaN or Inf has no SAT to check against: refuse it, naming the first one.
template <class T>
void refuse_non_finite(const std::string& path, const HostMatrix& m) {
    const std::size_t n = m.shape.n();
    for (std::size_t i = 0; i < n; ++i) {
        T v;
        std::memcpy(&v, m.bytes.data() + sizeof(T) * i, sizeof(T));
        if (!std::isfinite(v))
            throw Error(path + ": element (" + std::to_string(i / m.shape.cols) + ", " +
                        std::to_string(i % m.shape.cols) + ") is " + (std::isnan(v) ? "NaN" : "Inf") +
                        "; the labs take finite numbers only");
    }
}

}  // namespace

HostMatrix read_matrix(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw Error(path + ": cannot open (" + std::strerror(errno) + ")");
    HostMatrix m;
    switch (output_format(path)) {  // the same suffixes, in any case
        case OutputFormat::npy: m = read_npy(path, file); break;
        case OutputFormat::pgm: m = read_pgm(path, file); break;
        case OutputFormat::png: m = read_png(path); break;
        default: throw Error(path + ": unknown file type (use .npy, .pgm or .png)");
    }
    if (m.dtype == "f4") refuse_non_finite<float>(path, m);
    if (m.dtype == "f8") refuse_non_finite<double>(path, m);
    return m;
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
    file.close();
    if (!file) throw Error(path + ": write failed");
}

void write_image(const std::string& path, int width, int height, int channels,
                 const unsigned char* pixels) {
    const OutputFormat format = output_format(path);
    if (format == OutputFormat::pgm) {
        if (channels != 1) throw Error(path + ": .pgm holds gray images only; use .png");
        std::ofstream file(path, std::ios::binary);
        file << "P5\n" << width << " " << height << "\n255\n";
        file.write(reinterpret_cast<const char*>(pixels), std::streamsize(width) * height);
        file.close();
        if (!file) throw Error(path + ": write failed");
        return;
    }
    if (format != OutputFormat::png) throw Error(path + ": unknown image type (use .png or .pgm)");
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
        if (m.dtype == "u2") { std::uint16_t v; std::memcpy(&v, p + 2 * i, 2); return v; }
        if (m.dtype == "i4") { int32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
        if (m.dtype == "f4") { float v; std::memcpy(&v, p + 4 * i, 4); return v; }
        double v; std::memcpy(&v, p + 8 * i, 8); return v;
    };
    const bool integral_source = m.dtype == "u1" || m.dtype == "u2" || m.dtype == "i4";
    if (t == DType::u8i32 && m.dtype != "u1")
        throw Error("--type u8i32 needs 8-bit data; this input is " + m.dtype + " (use --type " +
                    (m.dtype == "i4" || m.dtype == "u2" ? "i32 or f64" : "f32 or f64") + ")");
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
