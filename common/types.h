// types.h — the harness's type pairs (In -> Out), listed once, in DType order:
//   f32: float -> float   f64: double -> double   i32: int32 -> int32   u8i32: uint8 -> int32
// X(In, Out) is expanded for each pair: explicit instantiations, registration, tests.
#pragma once

#include <cstdint>

#define SAT_FOR_EACH_TYPE_PAIR(X) X(float, float) X(double, double) X(int32_t, int32_t) X(uint8_t, int32_t)
