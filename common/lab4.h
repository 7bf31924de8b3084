// lab4.h — lab 4's reusable entry point (solutions/lab4_2r1w.cu, instantiated there for every
// pair of common/types.h; lab 6 includes that file, the tests call it through this header).
//
// The SAT of the rows x cols matrix at `in` (leading dimension in_ld) into `out` (leading
// dimension out_ld): a sub-rectangle of a larger matrix, or in place (in == out, equal leading
// dimensions). Nothing outside the rows x cols rectangles is read or written. Scratch from `ws`.
#pragma once

#include "sat.h"

namespace lab4 {
template <class In, class Out>
void sat_2r1w(const In* in, std::size_t in_ld, Out* out, std::size_t out_ld, sat::Shape s,
              sat::Workspace& ws, cudaStream_t stream);
}  // namespace lab4
