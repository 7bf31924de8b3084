// io.h — matrices and images in and out: .npy (NumPy), .pgm (binary P5) and .png (stb).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sat.h"

namespace sat {

// A host matrix read from a file. `dtype` is the NumPy element type: "f4", "f8", "i4", "u1", or
// "u2" (16-bit PNG/PGM pixels, kept whole).
struct HostMatrix {
    Shape shape;
    std::string dtype;
    std::vector<unsigned char> bytes;  // row-major, shape.n() elements
    std::string note;                  // one line to show the user ("int64 data read as int32"), or empty
};

// Read .npy (2-D, C order, little-endian f4/f8/i4/i8/u1; int64 only when every value fits in
// int32), .pgm (P5, 8 or 16 bits) or .png (gray; 16-bit kept as u2). The suffix is matched in any
// case. Throws sat::Error with one clear line when the file is missing, truncated, not 2-D, holds
// NaN/Inf, or is not understood; a header's size claim is checked before anything is allocated.
HostMatrix read_matrix(const std::string& path);
// Write .npy of the given dtype ("f4", "f8", "i4", "u1").
void write_npy(const std::string& path, Shape s, const std::string& dtype, const void* data);
// 8-bit gray (channels = 1) or RGB (channels = 3) image; .png or .pgm (gray only) by extension.
void write_image(const std::string& path, int width, int height, int channels,
                 const unsigned char* pixels);

// The NumPy dtype of a harness type's input and output.
std::string npy_input_dtype(DType t);
std::string npy_output_dtype(DType t);
// Convert a matrix read from a file to the input element type of `t` (u1 -> f4 etc.).
std::vector<unsigned char> convert_input(const HostMatrix& m, DType t);

// Box filter from a SAT: mean of the (2 radius + 1)^2 window around each pixel, clipped at the
// borders, rounded to 8 bits. `sat` is the output element type of `t`.
std::vector<unsigned char> box_filter_from_sat(DType t, Shape s, const void* sat, int radius);

// A colour ramp for pictures (tile completion times, bank maps): 0 -> dark blue, 1 -> yellow.
void ramp_colour(double x, unsigned char rgb[3]);

}  // namespace sat
