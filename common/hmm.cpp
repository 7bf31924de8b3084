// hmm.cpp — every HMM cost formula of the suite, in one table.
//
// Terms follow Kasagi et al., Table I and Lemmas 2-5, Theorems 6-7: n elements, width w,
// latency l, recursion depth k, split r. Only the dominant terms are kept, as in Table I.
// For a non-square rows x cols matrix, the paper's 2*sqrt(n) (the number of anti-diagonals)
// becomes rows + cols, which is the same number for a square matrix.
#include "hmm.h"

#include <cmath>
#include <limits>

namespace sat::hmm {

namespace {

// Anti-diagonals of elements (4R1W launches) and of w x w blocks (1R1W stages), as "2 sqrt(n)".
double twice_side(const Params& p) { return p.rows + p.cols; }
double twice_block_side(const Params& p) { return std::ceil(p.rows / p.w) + std::ceil(p.cols / p.w); }

// Lab 10's two schedules (docs/lab10.md). Early: the column sums (one more read, m/w) publish on
// a second stream, and the exchange hides behind the strip's SAT.
Cost strip_cost(const Params& p, bool early) {
    const double m = p.n() / p.devices, scan = 2 * m / p.w + 3 * m / (p.w * p.w);
    const double a = p.strips <= 1 ? 0 : (p.devices == 1 ? (p.strips - 1) / p.strips : 1);
    Cost c{scan + 2 * a * m / p.w + (early ? m / p.w : 0), 3};
    if (p.strips > 1) {
        c.link_steps = p.strips - 1;
        c.link_bytes = (p.strips - 1) * p.cols * p.out_bytes;
        c.overlap_units = early ? scan : 0;
    }
    return c;
}

Cost undefined(const Params&) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan};
}

const std::vector<Formula> table = {
    // Lab 1: CPU algorithms are outside the model.
    {"cpu", "-", "not an HMM algorithm", undefined},
    // The physical reference every GPU time is compared with: read n, write n, coalesced.
    {"copy", "2n/w + l", "one coalesced read and write per element",
     [](const Params& p) { return Cost{2 * p.n() / p.w, 1}; }},
    // Lab 2. Table I: n/n coalesced + n/n stride, one barrier.
    {"2R2W", "2n + 2n/w + 2l", "Kasagi Table I, Lemma 2",
     [](const Params& p) { return Cost{2 * p.n() + 2 * p.n() / p.w, 2}; }},
    // Lab 3. One w x w tile transpose: n coalesced reads, n coalesced writes.
    {"transpose", "2n/w + l", "Kasagi section IV (diagonal arrangement, Lemma 1)",
     [](const Params& p) { return Cost{2 * p.n() / p.w, 1}; }},
    {"4R4W", "8n/w + 4l", "Kasagi Table I, Lemma 3",
     [](const Params& p) { return Cost{8 * p.n() / p.w, 4}; }},
    // Lab 4.
    {"2R1W", "3n/w + (2k+3)l", "Kasagi Table I, Lemma 4",
     [](const Params& p) { return Cost{3 * p.n() / p.w, 2.0 * p.k + 3}; }},
    // Lab 5. 4R1W: every element reads 4 values by stride and writes 1; 2 sqrt(n) launches.
    {"4R1W", "5n + 2sqrt(n) l", "Kasagi Table I, Lemma 5",
     [](const Params& p) { return Cost{5 * p.n(), twice_side(p)}; }},
    {"1R1W", "2n/w + 2(sqrt(n)/w) l", "Kasagi Table I, Theorem 6",
     [](const Params& p) { return Cost{2 * p.n() / p.w, twice_block_side(p)}; }},
    // Lab 6. Reads (1+r)n and writes n, all coalesced: (2+r)n/w as in Theorem 7 (Table I's
    // "(1+r)n/w" counts the reads only).
    {"(1+r)R1W", "(2+r)n/w + (2(1-sqrt(r))sqrt(n)/w + 4k + 5)l", "Kasagi Table I, Theorem 7",
     [](const Params& p) {
         return Cost{(2 + p.r) * p.n() / p.w,
                     (1 - std::sqrt(p.r)) * twice_block_side(p) + 4.0 * p.k + 5};
     }},
    // Lab 7 (Chen et al. 2018), derived in docs/lab7.md: every variant is two kernels that each
    // read and write every element once, coalesced (the transposes happen in registers/shared
    // memory, which the HMM does not charge); the -LF variants share their key.
    {"ScanRow-BRLT", "4n/w + 2l", "derived in docs/lab7.md",
     [](const Params& p) { return Cost{4 * p.n() / p.w, 2}; }},
    {"BRLT-ScanRow", "4n/w + 2l", "derived in docs/lab7.md",
     [](const Params& p) { return Cost{4 * p.n() / p.w, 2}; }},
    {"ScanRowColumn", "4n/w + 2l", "derived in docs/lab7.md",
     [](const Params& p) { return Cost{4 * p.n() / p.w, 2}; }},
    // Lab 8 (Funasaka et al. 2017), derived in docs/lab8.md: one kernel, one read and one write
    // per element; the critical path of the task array is one hand-over l per strip of 4w rows
    // plus one per step of w lanes' 16 bytes of output: 4w columns of a 4-byte type, 2w of f64.
    // SKSS-warp (w x w tasks) has 1R1W's task graph and uses the key "1R1W".
    {"SKSS", "2n/w + (H/4w + W/4w)l (f64: W/2w)", "derived in docs/lab8.md",
     [](const Params& p) {
         const double step_cols = 16 / p.out_bytes * p.w;
         return Cost{2 * p.n() / p.w, std::ceil(p.rows / (4 * p.w)) + std::ceil(p.cols / step_cols)};
     }},
    // Lab 9, derived in docs/lab9.md: one pass (2n/w); a tile of R rows also publishes its column
    // sums and prefixes and reads at least one tile's back (3n/(Rw) = 3n/w^2: the lab's and the
    // library's tiles have R = w rows); the
    // flags' memset and the kernel are two launches. The look-back latency overlaps other tiles'
    // traffic.
    {"LookBack", "2n/w + 3n/w^2 + 2l", "derived in docs/lab9.md",
     [](const Params& p) { return Cost{2 * p.n() / p.w + 3 * p.n() / (p.w * p.w), 2}; }},
    // Lab 10, derived in docs/lab10.md: G strips on D devices, m = n/D elements on the busiest
    // device, of which a share `a` gets the carry added (a = (G-1)/G on one device, 1 on the last
    // of G devices); X = (G-1)(lambda + W b / beta) is the all-gather of one W-element row per strip.
    {"Strips-ScanThenAdd", "(2+2a)m/w + 3m/w^2 + 3l + X", "derived in docs/lab10.md",
     [](const Params& p) { return strip_cost(p, false); }},
    {"Strips-EarlyColumnSums", "(3+2a)m/w + 3m/w^2 + 3l + max(0, X - (2m/w + 3m/w^2))",
     "derived in docs/lab10.md", [](const Params& p) { return strip_cost(p, true); }},
};

}  // namespace

const std::vector<Formula>& formulas() { return table; }

const Formula& formula(const std::string& key) {
    for (const Formula& f : table)
        if (f.key == key) return f;
    throw Error("no HMM cost formula named '" + key + "' (see common/hmm.cpp)");
}

int recursion_depth(double rows, double cols, double w) {
    double side = std::ceil(std::max(rows, cols) / w);  // side of the block-sum matrix S
    int k = 0;
    while (side > w) {
        side = std::ceil(side / w);
        ++k;
    }
    return k;
}

Params params_for(Shape shape, double r) {
    Params p;
    p.rows = shape.rows;
    p.cols = shape.cols;
    p.k = recursion_depth(p.rows, p.cols, p.w);
    p.r = r < 0 ? 0 : r;
    return p;
}

double predict_seconds(Cost cost, const Calibration& cal, Barrier barrier) {
    if (!cost.defined()) return std::numeric_limits<double>::quiet_NaN();
    double l = 0;
    if (barrier == Barrier::kernel_launch) l = cal.l_launch_s;
    if (barrier == Barrier::graph_launch) l = cal.l_graph_s;
    double link = 0;  // lab 10's GPU-to-GPU level, zero for every other lab
    if (cost.link_steps > 0 && cal.link_bytes_per_s > 0)
        link = std::max(0.0, cost.link_steps * cal.link_latency_s + cost.link_bytes / cal.link_bytes_per_s -
                                 cost.overlap_units * cal.unit_s);
    return cost.units * cal.unit_s + cost.latencies * l + link;
}

}  // namespace sat::hmm
