// report.cpp — the terminal table and the CSV rows.
#include <cmath>
#include <cstdio>
#include <sstream>

#include "harness.h"

namespace sat {

namespace {
std::string shape_text(Shape s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }
std::string number(double v, const char* fmt) {
    if (!(v == v) || v == 0) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}
std::string cost_text(const hmm::Cost& c) {
    if (!c.defined()) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g + %.3g l", c.units, c.latencies);
    return buf;
}
}  // namespace

void print_header(const LabInfo& lab, const Options&) {
    std::printf("%-18s %-6s %-12s %-5s %10s %19s %8s %7s  %-28s %-18s %9s\n", "variant", "type",
                "rows x cols", "check", "median ms", "[min, max] ms", "GB/s", "% copy",
                "HMM cost", "= units + l's", "pred ms");
    (void)lab;
}

void print_row(const Measurement& m) {
    const std::string range = m.reps > 0 ? "[" + number(m.min_ms, "%.3f") + ", " + number(m.max_ms, "%.3f") + "]" : "-";
    std::printf("%-18s %-6s %-12s %-5s %10s %19s %8s %7s  %-28s %-18s %9s\n", m.variant.c_str(),
                dtype_name(m.type), shape_text(m.shape).c_str(), m.verdict().c_str(),
                m.reps > 0 ? number(m.median_ms, "%.3f").c_str() : "-", range.c_str(),
                number(m.gbps, "%.1f").c_str(), number(m.pct_copy, "%.1f").c_str(),
                m.hmm_formula.c_str(), cost_text(m.hmm_cost).c_str(),
                number(m.predicted_ms, "%.3f").c_str());
    if (!m.error.empty()) std::printf("    error: %s\n", m.error.c_str());
    else if (!m.check.pass) std::printf("    check: %s\n", m.check.message().c_str());
}

std::string csv_header() {
    return "device,lab,variant,type,rows,cols,reps,median_ms,min_ms,max_ms,copy_ms,gbps,pct_copy,"
           "hmm_formula,hmm_units,hmm_latencies,predicted_ms,unit_ns,l_launch_us,l_graph_us,r,check,seed";
}

std::string csv_row(const Measurement& m) {
    std::ostringstream out;
    out.precision(6);
    auto num = [](double v) { return v == v ? v : 0.0; };
    out << '"' << m.device << "\"," << m.lab << ",\"" << m.variant << "\"," << dtype_name(m.type) << ','
        << m.shape.rows << ',' << m.shape.cols << ',' << m.reps << ',' << m.median_ms << ','
        << m.min_ms << ',' << m.max_ms << ',' << m.copy_ms << ',' << m.gbps << ',' << m.pct_copy
        << ",\"" << m.hmm_formula << "\"," << num(m.hmm_cost.units) << ',' << num(m.hmm_cost.latencies)
        << ',' << num(m.predicted_ms) << ',' << m.calibration.unit_s * 1e9 << ','
        << m.calibration.l_launch_s * 1e6 << ',' << m.calibration.l_graph_s * 1e6 << ','
        << (m.r >= 0 ? std::to_string(m.r) : std::string()) << ',' << m.verdict() << ',' << m.seed;
    return out.str();
}

}  // namespace sat
