// report.cpp — the terminal table and the CSV rows.
#include <cmath>
#include <cstdio>
#include <sstream>

#include "harness.h"

namespace sat {

std::string shape_text(Shape s, int batch) {
    return (batch > 1 ? std::to_string(batch) + "x" : std::string()) + std::to_string(s.rows) + "x" + std::to_string(s.cols);
}

namespace {
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

// The table fits 120 columns: variant, type, shape, check, times, GB/s, % of copy, predicted ms;
// --wide adds the HMM cost formula and its value. Milliseconds keep their width as they grow.
namespace {
std::string ms_text(double v) {
    if (!(v == v) || v <= 0) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, v < 100 ? "%.3f" : v < 10000 ? "%.1f" : "%.0f", v);
    return buf;
}
// The variant column is Options::variant_width wide (18, or the lab's longest name); the shape
// column 13, or 17 with --batch (B x rows x cols).
constexpr const char* row_format = "%-*s %-5s %-*s %-5s %9s %21s %8s %7s %9s";
int shape_width(const Options& opt) { return opt.batch > 1 ? 17 : 13; }
std::string type_text(const Measurement& m) { return m.type_name.empty() ? dtype_name(m.type) : m.type_name; }
}  // namespace

std::string table_header(const Options& opt) {
    char buf[256];
    std::snprintf(buf, sizeof buf, row_format, opt.variant_width, "variant", "type", shape_width(opt),
                  opt.batch > 1 ? "B x rows x cols" : "rows x cols", "check",
                  "median ms", "[min, max] ms", "GB/s", "% copy", "pred ms");
    std::string line = buf;
    if (opt.wide) {
        std::snprintf(buf, sizeof buf, "  %-28s %s", "HMM cost", "= units + l's");
        line += buf;
    }
    return line;
}

std::string table_row(const Measurement& m, const Options& opt) {
    // Speeds are shown only for a run that passed: a wrong or unfinished result has no speed.
    const bool timed = m.ok() && m.reps > 0;
    const std::string range = timed ? "[" + ms_text(m.min_ms) + ", " + ms_text(m.max_ms) + "]" : "";
    char buf[512];
    std::snprintf(buf, sizeof buf, row_format, opt.variant_width, m.variant.c_str(), type_text(m).c_str(),
                  shape_width(opt), shape_text(m.shape, m.batch).c_str(),
                  m.verdict().c_str(), timed ? ms_text(m.median_ms).c_str() : "", range.c_str(),
                  timed ? number(m.gbps, "%.1f").c_str() : "", timed ? number(m.pct_copy, "%.1f").c_str() : "",
                  number(m.predicted_ms, "%.3f").c_str());
    std::string line = buf;
    if (opt.wide) {
        std::snprintf(buf, sizeof buf, "  %-28s %s", m.hmm_formula.c_str(), cost_text(m.hmm_cost).c_str());
        line += buf;
    }
    return line;
}

void print_header(const LabInfo&, const Options& opt) { std::printf("%s\n", table_header(opt).c_str()); }

void print_row(const Measurement& m, const Options& opt) {
    std::printf("%s\n", table_row(m, opt).c_str());
    if (!m.error.empty()) std::printf("    error: %s\n", m.error.c_str());
    else if (!m.check.pass) std::printf("    check: %s\n", m.check.message().c_str());
}

void print_todo_row(const Measurement& m, const Options& opt, const std::string& todo) {
    std::printf("%-*s %-5s %-*s FAIL %s\n", opt.variant_width, m.variant.c_str(), type_text(m).c_str(),
                shape_width(opt), shape_text(m.shape, m.batch).c_str(), todo.c_str());
}

std::string csv_header() {
    return "device,lab,variant,type,rows,cols,reps,median_ms,min_ms,max_ms,copy_ms,gbps,pct_copy,"
           "hmm_formula,hmm_units,hmm_latencies,predicted_ms,unit_ns,l_launch_us,l_graph_us,r,check,seed,cpu_ms,batch";
}

// The header before the batch column (CSV files of older runs): readers take a row without it as
// one image.
std::string csv_header_without_batch() {
    const std::string h = csv_header();
    return h.substr(0, h.size() - std::string(",batch").size());
}

std::string csv_row(const Measurement& m) {
    std::ostringstream out;
    out.precision(6);
    auto num = [](double v) { return v == v ? v : 0.0; };
    out << '"' << m.device << "\"," << m.lab << ",\"" << m.variant << "\"," << type_text(m) << ','
        << m.shape.rows << ',' << m.shape.cols << ',' << m.reps << ',' << m.median_ms << ','
        << m.min_ms << ',' << m.max_ms << ',' << m.copy_ms << ',' << m.gbps << ',' << m.pct_copy
        << ",\"" << m.hmm_formula << "\"," << num(m.hmm_cost.units) << ',' << num(m.hmm_cost.latencies)
        << ',' << num(m.predicted_ms) << ',' << m.calibration.unit_s * 1e9 << ','
        << m.calibration.l_launch_s * 1e6 << ',' << m.calibration.l_graph_s * 1e6 << ','
        << (m.r >= 0 ? std::to_string(m.r) : std::string()) << ',' << m.verdict() << ',' << m.seed << ','
        << m.cpu_reference_ms << ',' << m.batch;
    return out.str();
}

}  // namespace sat
