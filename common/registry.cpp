// registry.cpp — the lab registry, type names, CUDA error reporting and Workspace memory.
#include <cstring>
#include <map>

#include "sat.h"

namespace sat {

namespace {
std::map<int, LabInfo>& registry() {
    static std::map<int, LabInfo> labs;
    return labs;
}
}  // namespace

bool register_lab(const LabInfo& info) {
    registry()[info.number] = info;
    return true;
}

const LabInfo* find_lab(int number) {
    auto it = registry().find(number);
    return it == registry().end() ? nullptr : &it->second;
}

std::vector<const LabInfo*> all_labs() {
    std::vector<const LabInfo*> labs;
    for (auto& [number, info] : registry()) labs.push_back(&info);
    return labs;
}

const char* dtype_name(DType t) {
    switch (t) {
        case DType::f32: return "f32";
        case DType::f64: return "f64";
        case DType::i32: return "i32";
        case DType::u8i32: return "u8i32";
    }
    return "?";
}

void throw_cuda_error(cudaError_t err, const char* what, const char* file, int line) {
    const char* base = std::strrchr(file, '/');
    throw Error(std::string(base ? base + 1 : file) + ":" + std::to_string(line) + ": " + what +
                " failed: " + cudaGetErrorString(err));
}

// Scratch is handed out as whole blocks: the i-th request of a run gets block i, which is
// (re)allocated only when it is too small. A variant that asks for the same sizes every run
// therefore allocates during the warm-up and never again.
void* Workspace::bytes(std::size_t n) {
    if (n == 0) n = 1;
    const std::size_t i = used_++;
    if (i < blocks_.size() && sizes_[i] >= n) return blocks_[i];
    if (i == blocks_.size()) {
        blocks_.push_back(nullptr);
        sizes_.push_back(0);
    }
    if (blocks_[i]) {
        if (on_device_) cudaFree(blocks_[i]);
        else std::free(blocks_[i]);
    }
    blocks_[i] = nullptr;
    sizes_[i] = 0;
    if (on_device_) SAT_CUDA(cudaMalloc(&blocks_[i], n));
    else if (!(blocks_[i] = std::malloc(n))) throw Error("out of host memory for scratch");
    sizes_[i] = n;
    return blocks_[i];
}

void* Workspace::zeroed_bytes(std::size_t n, cudaStream_t stream) {
    void* p = bytes(n);
    if (on_device_) SAT_CUDA(cudaMemsetAsync(p, 0, n, stream));
    else std::memset(p, 0, n);
    return p;
}

Workspace::~Workspace() {
    for (void* p : blocks_) {
        if (!p) continue;
        if (on_device_) cudaFree(p);
        else std::free(p);
    }
}

}  // namespace sat
