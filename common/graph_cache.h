// graph_cache.h — instantiated CUDA graphs kept for replay (lab 5's 1R1W-graph).
//
// A graph's kernel nodes hold their arguments, so an executable graph is reusable for exactly one
// (element types, input, output, shape, trace) combination: that is the key. The cache keeps the
// few most recent ones and destroys them when pushed out and at exit.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <typeinfo>

namespace sat {

struct GraphKey {
    const std::type_info* type;  // typeid of the input element type
    const void* in;
    const void* out;
    int rows, cols;
    const void* trace;
};

// The executable graph for `key`: from the cache, or built by `capture` (which returns null when
// it captured nothing, e.g. an unwritten skeleton; that is returned and not cached).
cudaGraphExec_t cached_graph(const GraphKey& key, const std::function<cudaGraphExec_t()>& capture);

// How many graphs have been built so far (a replay adds none); for the tests.
int graph_builds();

}  // namespace sat
