// bench_util.h — what the library's benchmarks (bench_ab, bench_batch, bench_host, bench_timeline)
// share.
#pragma once

#include <cuda_runtime.h>

#include <cctype>
#include <cstddef>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>

// True when a CUDA device is present; else one line on stderr ("<program>: no CUDA device").
inline bool have_device(const char* program) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) return true;
    std::fprintf(stderr, "%s: no CUDA device\n", program);
    return false;
}

// Bytes of the device-to-device copy a benchmark times its calls against: (input + output
// bytes) / 2, which reads and writes as many bytes as one read of the input and one write of
// the output (the harness's reference too).
inline std::size_t copy_reference_bytes(std::size_t in_bytes, std::size_t out_bytes) {
    return (in_bytes + out_bytes) / 2;
}

// The run's metadata, in front of every CSV row: GPU, driver, CUDA (driver API), date (UTC).
inline std::string run_columns(const cudaDeviceProp& prop) {
    std::string driver = "unknown";
    std::ifstream version("/proc/driver/nvidia/version");
    std::string word;
    while (version >> word)  // "... Kernel Module  580.159.04  ..."
        if (word.find('.') != std::string::npos && std::isdigit(static_cast<unsigned char>(word[0]))) {
            driver = word;
            break;
        }
    int cuda = 0;
    cudaDriverGetVersion(&cuda);
    char date[16];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    return std::string(prop.name) + "," + driver + "," + std::to_string(cuda / 1000) + "." +
           std::to_string(cuda % 1000 / 10) + "," + date;
}

// A benchmark's own CSV (--csv FILE), written anew; null when none was asked for. False after one
// line on stderr when FILE cannot be written.
inline bool open_bench_csv(const std::string& path, const char* program, std::FILE** csv) {
    *csv = nullptr;
    if (path.empty()) return true;
    if ((*csv = std::fopen(path.c_str(), "w")) != nullptr) return true;
    std::fprintf(stderr, "%s: cannot write %s\n", program, path.c_str());
    return false;
}

// Closes a CSV that open_bench_csv opened (null: nothing to do). False after one line on stderr
// when its rows could not be written.
inline bool close_bench_csv(std::FILE* csv, const std::string& path, const char* program) {
    if (csv == nullptr || std::fclose(csv) == 0) return true;
    std::fprintf(stderr, "%s: cannot write %s\n", program, path.c_str());
    return false;
}
