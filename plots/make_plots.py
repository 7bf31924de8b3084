#!/usr/bin/env python3
"""make_plots.py — the five benchmark figures from a bench CSV (tools/bench.py, or any CSV that
the lab binaries wrote with --csv). Needs numpy and matplotlib, no GPU.

    python3 plots/make_plots.py build/bench_<gpu>.csv build/plots     (make plots CSV=...)
    python3 plots/make_plots.py plots/sample_bench.csv build/plots    (make plots)

Writes into the output folder:
    a_time_vs_size.png             time vs matrix side per algorithm, log-log (Kasagi Table II style)
    b_pct_copy_vs_size.png         % of the device-to-device copy bandwidth vs side
    c_r_sweep.png                  (1+r)R1W time vs r (lab 6 --sweep rows), measured and HMM model
    d_hmm_predicted_vs_measured.png  HMM predicted vs measured time per algorithm
    e_speedup_vs_cpu.png           speed-up of each GPU algorithm over the fastest CPU SAT (lab 1)

The GPU, driver and date come from the .json that tools/bench.py writes beside the CSV; without
it, from the CSV's device column and the file's date. A figure whose rows are not in the CSV
still gets written, saying so.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

try:
    import matplotlib
except ImportError:  # `make deps` may have installed it into .deps/python
    sys.path.insert(0, str(HERE.parent / ".deps" / "python"))
    try:
        import matplotlib
    except ImportError:
        print("make_plots: needs numpy and matplotlib (make deps, or pip install numpy matplotlib)", file=sys.stderr)
        sys.exit(3)
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter  # noqa: E402

from bench_data import (BenchData, TYPES, load_from_argv, side_label)  # noqa: E402

FIGURES = ["a_time_vs_size.png", "b_pct_copy_vs_size.png", "c_r_sweep.png",
           "d_hmm_predicted_vs_measured.png", "e_speedup_vs_cpu.png"]
TYPE_NOTE = {"f32": "f32: float -> float", "f64": "f64: double -> double", "u8i32": "u8i32: uint8 -> int32",
             "i32": "i32: int32 -> int32"}


# ---- Shared figure furniture ---------------------------------------------------------------------

def style_for(data: BenchData):
    """A fixed colour and marker per algorithm, the same in every figure."""
    # One colour per lab (the peers black, the CPU grey); within a lab, marker and dash differ.
    cmap = plt.get_cmap("tab10")
    lab_colour = {0: (0.0, 0.0, 0.0), 1: (0.5, 0.5, 0.5)}
    markers = "osD^v<>ph*"
    dashes = ["-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1))]
    styles, index_in_lab = {}, {}
    for algo in data.algorithms():
        lab = algo[0]
        k = index_in_lab.get(lab, 0)
        index_in_lab[lab] = k + 1
        colour = lab_colour.get(lab, cmap((lab - 2) % 10))
        styles[algo] = dict(color=colour, marker=markers[(k + lab) % len(markers)],
                            linestyle=dashes[k % len(dashes)])
    return styles


def stamp(fig, data: BenchData, what: str):
    fig.suptitle(f"{what}\n{data.gpu} — {data.date_text}", fontsize=12)
    fig.text(0.995, 0.995, data.provenance, ha="right", va="top", fontsize=7, color="0.4")


def side_axis(ax, sides):
    ax.set_xscale("log", base=2)
    ticks = sorted(s for s in sides if abs(s - round(s)) < 1e-6 and int(round(s)) % 1024 == 0) or sorted(sides)
    ax.set_xticks(ticks)
    ax.set_xticklabels([side_label(s) for s in ticks])
    ax.minorticks_off()
    ax.set_xlabel("matrix side √n (elements; W×H shapes at √(W·H))")


def empty(ax, message):
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, fontsize=10, wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])


def legend_below(fig, handles):
    if handles:
        fig.legend(handles=handles, loc="lower center", ncol=min(6, len(handles)), fontsize=8, frameon=False)


def handles_for(algos, styles):
    return [Line2D([], [], color=styles[a]["color"], marker=styles[a]["marker"], linestyle=styles[a]["linestyle"],
                   label=BenchData.algo_label(a)) for a in algos]


# ---- (a) time vs size, (b) % of copy --------------------------------------------------------------

def per_type_curves(data, styles, out, value, ylabel, title, include_cpu, yscale="log", refs=()):
    types = [t for t in TYPES if data.rows_of(type_=t)] or TYPES[:1]
    fig, axes = plt.subplots(1, len(types), figsize=(6.2 * len(types), 6.4), squeeze=False)
    used = []
    for ax, t in zip(axes[0], types):
        sides = set()
        for algo in data.algorithms():
            if algo[0] == 1 and not include_cpu:
                continue
            if data.is_transpose(algo):
                continue
            pts = data.curve(algo, t, value)
            if not pts:
                continue
            sq = [(s, v) for s, v, square in pts if square]
            rect = [(s, v) for s, v, square in pts if not square]
            st = styles[algo]
            if sq:
                ax.plot([p[0] for p in sq], [p[1] for p in sq], color=st["color"], marker=st["marker"],
                        linestyle=st["linestyle"], markersize=4, linewidth=1.3)
            if rect:
                ax.plot([p[0] for p in rect], [p[1] for p in rect], color=st["color"], marker=st["marker"],
                        linestyle="none", markersize=6, markerfacecolor="none")
            sides.update(p[0] for p in pts)
            if algo not in used:
                used.append(algo)
        if value == "median_ms":
            copy = data.copy_curve(t)
            if copy:
                ax.plot([p[0] for p in copy], [p[1] for p in copy], color="black", linewidth=2.4, linestyle="--",
                        label="copy of the same bytes")
                ax.legend(loc="upper left", fontsize=8)
        for y, label in refs:
            ax.axhline(y, color="black", linewidth=0.8, linestyle="--" if y == 100 else ":")
            ax.text(ax.get_xlim()[0] if sides else 1, y, f" {label}", va="bottom", fontsize=8)
        if not sides:
            empty(ax, f"no {t} rows in this CSV")
            continue
        side_axis(ax, sides)
        ax.set_yscale(yscale)
        ax.set_ylabel(ylabel)
        ax.set_title(TYPE_NOTE.get(t, t), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    legend_below(fig, handles_for(used, styles)
                 + [Line2D([], [], color="k", marker="o", markerfacecolor="none", linestyle="none",
                           label="W×H shapes (1920×1080, 3840×2160)")])
    stamp(fig, data, title)
    fig.tight_layout(rect=(0, 0.14, 1, 0.93))
    fig.savefig(out, dpi=110)
    plt.close(fig)


# ---- (c) r sweep ----------------------------------------------------------------------------------

def r_sweep(data, out):
    sweeps = data.sweeps()
    n = max(1, len(sweeps))
    fig, axes = plt.subplots(1, n, figsize=(6.4 * n, 5.6), squeeze=False)
    if not sweeps:
        empty(axes[0][0], "no (1+r)R1W sweep rows in this CSV\n(lab 6 --sweep: several r values for one size)")
    for ax, ((t, rows_, cols_), pts) in zip(axes[0], sweeps.items()):
        r = [p["r"] for p in pts]
        ax.plot(r, [p["median_ms"] for p in pts], "o-", color="tab:blue", markersize=4, label="measured (median)")
        pred = [(p["r"], p["predicted_ms"]) for p in pts if p["predicted_ms"] > 0]
        if pred:
            ax.plot([p[0] for p in pred], [p[1] for p in pred], "--", color="tab:orange", label="HMM model (predicted)")
            best_model = min(pred, key=lambda p: p[1])
            ax.plot([best_model[0]], [best_model[1]], "^", color="tab:orange", markersize=10,
                    label=f"model optimum r = {best_model[0]:.3g}")
        best = min(pts, key=lambda p: p["median_ms"])
        ax.plot([best["r"]], [best["median_ms"]], "*", color="tab:red", markersize=14,
                label=f"fastest measured r = {best['r']:.3g} ({best['median_ms']:.3g} ms)")
        copy = sorted(p["copy_ms"] for p in pts)
        if copy:
            ax.axhline(copy[len(copy) // 2], color="black", linestyle=":", linewidth=1, label="copy of the same bytes")
        ax.set_xlabel("r (fraction of the matrix done by 2R1W: r = 0 is 1R1W, r = 1 is 2R1W)")
        ax.set_ylabel("time per SAT (ms)")
        ax.set_title(f"{rows_}×{cols_} {t}", fontsize=10)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    stamp(fig, data, "(c) (1+r)R1W: the r sweep of lab 6 (Kasagi et al. section VII)")
    fig.tight_layout(rect=(0, 0.02, 1, 0.9))
    fig.savefig(out, dpi=110)
    plt.close(fig)


# ---- (d) HMM predicted vs measured -----------------------------------------------------------------

def predicted_vs_measured(data, styles, out):
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 6.6))
    used, lo, hi = [], float("inf"), 0.0
    type_marker = {"f32": "o", "f64": "s", "u8i32": "^", "i32": "D"}
    for algo in data.algorithms():
        if algo[0] in (0, 1):  # peers have no model of their own; the CPU is outside the HMM
            continue
        pts = [r for r in data.model_rows(algo)]
        if not pts:
            continue
        used.append(algo)
        for t in TYPES:
            sel = [r for r in pts if r["type"] == t]
            if sel:
                x = [r["predicted_ms"] for r in sel]
                y = [r["median_ms"] for r in sel]
                left.scatter(x, y, color=styles[algo]["color"], marker=type_marker.get(t, "o"), s=18, alpha=0.85)
                lo, hi = min(lo, *x, *y), max(hi, *x, *y)
        sq = sorted((r["side"], r["median_ms"] / r["predicted_ms"]) for r in pts if r["type"] == "f32" and r["square"])
        if sq:
            right.plot([p[0] for p in sq], [p[1] for p in sq], color=styles[algo]["color"], marker=styles[algo]["marker"],
                       linestyle=styles[algo]["linestyle"], markersize=4)
    if used:
        left.plot([lo, hi], [lo, hi], color="black", linewidth=1, label="measured = predicted")
        left.set_xscale("log")
        left.set_yscale("log")
        left.set_xlabel("HMM predicted time (ms): cost × calibration (time unit from the copy, l = launch)")
        left.set_ylabel("measured median time (ms)")
        left.set_title("every GPU lab row (marker = type: ○ f32  □ f64  △ u8i32)", fontsize=10)
        left.grid(True, which="both", alpha=0.3)
        left.legend(fontsize=8, loc="upper left")
        right.axhline(1, color="black", linewidth=1)
        sides = {r["side"] for a in used for r in data.model_rows(a) if r["square"]}
        if sides:
            side_axis(right, sides)
        right.set_yscale("log")
        right.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        right.yaxis.set_major_formatter(FormatStrFormatter("%g"))
        right.yaxis.set_minor_formatter(NullFormatter())
        right.set_ylabel("measured ÷ predicted (1 = the model is exact)")
        right.set_title("f32, square matrices", fontsize=10)
        right.grid(True, which="both", alpha=0.3)
    else:
        empty(left, "no GPU lab rows with an HMM prediction in this CSV")
        empty(right, "")
    legend_below(fig, handles_for(used, styles))
    stamp(fig, data, "(d) HMM cost model: predicted vs measured time per algorithm")
    fig.tight_layout(rect=(0, 0.12, 1, 0.92))
    fig.savefig(out, dpi=110)
    plt.close(fig)


# ---- (e) speed-up over the CPU lab -------------------------------------------------------------------

def speedup(data, styles, out):
    types = [t for t in TYPES if data.rows_of(type_=t)] or TYPES[:1]
    fig, axes = plt.subplots(1, len(types), figsize=(6.2 * len(types), 6.4), squeeze=False)
    used = []
    for ax, t in zip(axes[0], types):
        cpu = data.cpu_best(t)  # (rows, cols) -> (ms, variant)
        sides = set()
        for algo in data.algorithms():
            if algo[0] == 1 or data.is_transpose(algo):
                continue
            pts = []
            for r in data.series(algo, t):
                key = (r["rows"], r["cols"])
                if key in cpu and r["median_ms"] > 0:
                    pts.append((r["side"], cpu[key][0] / r["median_ms"], r["square"]))
            if not pts:
                continue
            st = styles[algo]
            sq = sorted((s, v) for s, v, square in pts if square)
            rect = [(s, v) for s, v, square in pts if not square]
            if sq:
                ax.plot([p[0] for p in sq], [p[1] for p in sq], color=st["color"], marker=st["marker"],
                        linestyle=st["linestyle"], markersize=4)
            if rect:
                ax.plot([p[0] for p in rect], [p[1] for p in rect], color=st["color"], marker=st["marker"],
                        linestyle="none", markerfacecolor="none", markersize=6)
            sides.update(p[0] for p in pts)
            if algo not in used:
                used.append(algo)
        if not sides:
            empty(ax, f"no {t} sizes with both lab 1 (CPU) and GPU rows")
            continue
        ax.axhline(1, color="black", linewidth=0.8)
        side_axis(ax, sides)
        ax.set_yscale("log")
        ax.set_ylabel("speed-up over the fastest lab 1 CPU SAT (×)")
        names = sorted({v for _, v in cpu.values()})
        ax.set_title(f"{TYPE_NOTE.get(t, t)}; CPU baseline: fastest of {', '.join(names)}", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
    legend_below(fig, handles_for(used, styles))
    stamp(fig, data, f"(e) speed-up over the CPU lab (lab 1 on {data.cpu})")
    fig.tight_layout(rect=(0, 0.14, 1, 0.92))
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv):
    data, _, out_dir = load_from_argv(argv, "make_plots", "OUT_DIR")
    out_dir.mkdir(parents=True, exist_ok=True)
    styles = style_for(data)
    per_type_curves(data, styles, out_dir / FIGURES[0], "median_ms", "time per SAT (ms, median)",
                    "(a) SAT time vs matrix size (cf. Kasagi et al. Table II)", include_cpu=True)
    per_type_curves(data, styles, out_dir / FIGURES[1], "pct_copy",
                    "% of copy bandwidth (copy time ÷ SAT time × 100)",
                    "(b) fraction of the device-to-device copy bandwidth reached", include_cpu=False,
                    yscale="linear", refs=((100, "copy"), (90, "90 % (lab 9 target)")))
    r_sweep(data, out_dir / FIGURES[2])
    predicted_vs_measured(data, styles, out_dir / FIGURES[3])
    speedup(data, styles, out_dir / FIGURES[4])
    for name in FIGURES:
        print(f"wrote {out_dir / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
