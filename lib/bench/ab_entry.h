// ab_entry.h — the calls bench_ab makes of each library version (ab_entry.cpp): plain types
// only, so that the two versions' own types never meet.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

// f32 -> f32, f64 -> f64, i32 -> i32, u8 -> i32, and the library's other pairs: u8 -> f32, u16 -> f64,
// f32 -> f64
enum class AbType { f32, f64, i32, u8i32, u8f32, u16f64, f32f64 };

struct AbCall {
    AbType type;
    const void* in;
    void* out;
    int rows, cols, batch;  // batch images of rows x cols, back to back
    void* state;            // the caller's scratch (ScanOptions::state, ::values), cleared by the call
    void* values;
    int* status;
    cudaStream_t stream;
};

struct AbScratch {
    std::size_t state_bytes = 0, value_bytes = 0;
};

// One namespace per version: ab_this (this tree) and ab_base (the AB_BASE checkout).
namespace ab_this {
cudaError_t scan(const AbCall& c);
AbScratch scratch(AbType type, int rows, int cols, int batch);
const char* version();  // "this tree"
}  // namespace ab_this
namespace ab_base {
cudaError_t scan(const AbCall& c);
AbScratch scratch(AbType type, int rows, int cols, int batch);
const char* version();  // the base checkout's folder
}  // namespace ab_base
