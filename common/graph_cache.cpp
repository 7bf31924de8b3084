// graph_cache.cpp — see graph_cache.h.
#include "graph_cache.h"

#include "sat.h"

#include <vector>

namespace sat {
namespace {

bool same(const GraphKey& a, const GraphKey& b) {
    return *a.type == *b.type && a.in == b.in && a.out == b.out && a.rows == b.rows &&
           a.cols == b.cols && a.trace == b.trace;
}

class GraphCache {
public:
    ~GraphCache() {
        for (Entry& e : entries_) cudaGraphExecDestroy(e.exec);  // errors ignored at exit
    }
    cudaGraphExec_t find(const GraphKey& key) const {
        for (const Entry& e : entries_)
            if (same(e.key, key)) return e.exec;
        return nullptr;
    }
    void add(const GraphKey& key, cudaGraphExec_t exec) {
        if (entries_.size() == capacity) {
            // An exec still running is freed when it completes (CUDA guarantees this).
            SAT_CUDA(cudaGraphExecDestroy(entries_.front().exec));
            entries_.erase(entries_.begin());
        }
        entries_.push_back({key, exec});
        ++builds_;
    }
    int builds() const { return builds_; }

private:
    static constexpr std::size_t capacity = 16;  // 4 per element type, as many as a run sequence uses
    struct Entry {
        GraphKey key;
        cudaGraphExec_t exec;
    };
    std::vector<Entry> entries_;
    int builds_ = 0;
};

GraphCache& cache() {
    static GraphCache graphs;  // constructed after CUDA's first use, so destroyed before its exit
    return graphs;
}

}  // namespace

cudaGraphExec_t cached_graph(const GraphKey& key, const std::function<cudaGraphExec_t()>& capture) {
    cudaGraphExec_t exec = cache().find(key);
    if (exec) return exec;
    exec = capture();
    if (exec) cache().add(key, exec);
    return exec;
}

int graph_builds() { return cache().builds(); }

}  // namespace sat
