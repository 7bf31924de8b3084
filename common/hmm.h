// hmm.h — the Hierarchical Memory Machine cost model of Kasagi et al. (2014), section III.
//
// Global memory access cost = C/w + S + (B + 1)(l - 1) time units, for C coalesced accesses,
// S stride accesses and B barrier steps; one time unit = one coalesced access of w words.
// Every algorithm's formula lives in exactly one place, the table in hmm.cpp; a lab names its
// formula by key (Variant::cost). The calibration turns a cost into seconds on the running GPU.
#pragma once

#include <string>
#include <vector>

#include "sat.h"

namespace sat::hmm {

struct Params {
    double rows = 0, cols = 0;  // the matrix; n = rows * cols
    double w = 32;              // HMM width
    int k = 0;                  // 2R1W recursion depth (recursion_depth)
    double r = 0;               // (1+r)R1W fraction handled by 2R1W
    // b bytes per output element (SKSS's steps: 16 bytes a lane, w lanes; lab 10's exchanged rows).
    double out_bytes = 4;
    // Lab 10's GPU-to-GPU level: G row strips on D devices (D = 1 or G).
    double strips = 1, devices = 1;
    double n() const { return rows * cols; }
};
Params params_for(Shape shape, double r = 0);

// A cost split into its two terms: `units` time units of memory traffic, plus `latencies`
// times the latency l (one per barrier, i.e. per dependent kernel launch on a GPU).
struct Cost {
    double units = 0;
    double latencies = 0;
    // Lab 10: the GPU-to-GPU level. X = link_steps * lambda + link_bytes / beta, of which the
    // part shorter than `overlap_units` time units of other work is hidden.
    double link_steps = 0, link_bytes = 0, overlap_units = 0;
    bool defined() const { return units == units; }  // false for NaN (no formula, e.g. CPU)
};

struct Formula {
    std::string key;       // "2R1W"
    std::string symbolic;  // "3n/w + (2k+3)l"
    std::string source;    // "Kasagi Table I, Lemma 4"
    Cost (*eval)(const Params&);
};

const std::vector<Formula>& formulas();
// The formula for `key`; throws sat::Error naming the key when there is none.
const Formula& formula(const std::string& key);

// Depth k of the 2R1W recursion: 0 when the block-sum matrix S (ceil(side/w) square) fits in
// one w x w block, one more for each further level.
int recursion_depth(double rows, double cols, double w = 32);

// Measured on the running GPU (common/runner.cu): seconds per time unit and per latency l.
struct Calibration {
    double unit_s = 0;       // one coalesced w-word access at the measured copy bandwidth
    double l_launch_s = 0;   // one dependent kernel launch on a stream
    double l_graph_s = 0;    // one dependent kernel node inside a CUDA graph
    double link_latency_s = 0;      // lambda: one step of the exchange between strips (lab 10)
    double link_bytes_per_s = 0;    // beta: the exchange's bandwidth per step (lab 10)
};
double predict_seconds(Cost cost, const Calibration& cal, Barrier barrier);

}  // namespace sat::hmm
