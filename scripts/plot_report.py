#!/usr/bin/env python3
"""Draws the figures of a Coalesce report, by GPU model, from the CSV files coalesce-report writes.

Usage: plot_report.py DIR
  reads  DIR/by_model_shapes.csv   (figure, title, model, dtype, epilogue, m, n, k, shape, protocol,
                                    series, kind, run, median_ms, tflops, speedup, fastest: per
                                    problem the fused row (kind fused), each alternative (kind
                                    alternative) and cuBLAS GEMM alone where it computes less than
                                    the problem (kind ceiling); speedup = its time / the fused time)
         DIR/by_model_m_sweep.csv  (figure, title, panel, model, dtype, epilogue, n, k, protocol, m,
                                    series, kind, run, median_ms, tflops: kind fused, method or floor)
         DIR/tile_landscape.csv    (device, dtype, epilogue, shape, family, bm, bn, best_ms, tflops,
                                    config, cublas_tflops, configs, untimed)
         DIR/figures.csv           (file, caption, source: the tool, its git revision and the
                                    database, printed at the foot of each figure)
  writes one PNG per value of `figure` (coalesce-report names them from the data, e.g.
         nvidia-h200_bf16_shapes.png, nvidia-h200_bf16_m_sweep.png, and splits a family of more
         problems or panels than fit about 2,000 pixels into parts), and tile_landscape.png:
           *_shapes*.png   per problem, left every method's TFLOP/s, right the fused kernel's
                           speed-up over each alternative (log scale, 1 = as fast, the fastest
                           alternative ringed)
           *_m_sweep*.png  TFLOP/s against M (both axes logarithmic) at fixed N and K, a panel per
                           epilogue, N, K and protocol, the read_b floor dashed
           tile_landscape.png  the best TFLOP/s of each BM x BN tile at one shape, coloured around
                           cuBLAS GEMM's, untimed cells labelled with how they ended

coalesce-report embeds this file and runs it (`coalesce-report plots --out-dir DIR`); it can also
be run by hand on the CSV files. It needs matplotlib (Debian: python3-matplotlib). It draws what
the CSV holds and computes nothing the tools did not (the speed-ups come from coalesce-report).
"""
import csv
import math
import os
import sys

TOOL = "plot_report.py"
#: What coalesce-report writes for the figures (reports/plots.cpp); a folder with none of them has nothing to draw.
DATA = ("by_model_shapes.csv", "by_model_m_sweep.csv", "tile_landscape.csv")
mcolors = plt = mticker = None  # matplotlib's modules, imported once the arguments are known good


def load_matplotlib():
    """Imports matplotlib for files only (no display), or stops in one line, status 1."""
    global mcolors, plt, mticker
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.colors as mcolors
        import matplotlib.pyplot as plt
        import matplotlib.ticker as mticker
    except ImportError:
        fail(f"matplotlib is not installed for {sys.executable} (Debian: apt install python3-matplotlib)")


def fail(message):
    print(f"{TOOL}: {message}", file=sys.stderr)
    sys.exit(1)

# 100 dots per inch: a figure's inches are its pixels / 100, and no figure here is over 20 inches.
DPI = 100
FOOTER_INCHES = 0.22  # the strip at the foot of each figure that says what drew it
# One colour and marker per method, the same in every figure.
STYLE = {
    "cublas_gemm": ("tab:grey", "|"),
    "eager": ("tab:red", "s"),
    "unfused": ("tab:orange", "^"),
    "cublaslt_fused": ("tab:purple", "D"),
    "torch_eager": ("tab:brown", "v"),
    "torch_compile": ("tab:green", "P"),
    "triton": ("tab:cyan", "X"),
}


def read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def grouped(rows, column):
    """Rows grouped by `column`, in the order the values first come."""
    groups = {}
    for row in rows:
        groups.setdefault(row[column], []).append(row)
    return groups


def style_of(series):
    if series.startswith("coalesce"):
        return "black", "o"
    return STYLE.get(series, ("tab:blue", "."))


SOURCES = {}  # figure file -> what drew it, from figures.csv


def save(fig, out):
    source = SOURCES.get(os.path.basename(out))
    if source:
        fig.text(0.995, 0.003, source, ha="right", va="bottom", fontsize="x-small", color="grey")
    fig.savefig(out, dpi=DPI)
    plt.close(fig)


def plot_shapes(rows, out):
    """One figure: a row per problem, two panels sharing it."""
    problems = []  # (label, its rows), in the tool's order
    index = {}
    protocols = {r["protocol"] for r in rows}
    for r in rows:
        key = (r["shape"], r["epilogue"], r["protocol"])
        if key not in index:
            label = f"{r['shape']} {r['epilogue']}" + (f" [{r['protocol']}]" if len(protocols) > 1 else "")
            index[key] = len(problems)
            problems.append((label, []))
        problems[index[key]][1].append(r)
    height = 1.8 + 0.3 * len(problems)
    fig, (left, right) = plt.subplots(1, 2, figsize=(14.0, height), sharey=True,
                                      gridspec_kw={"width_ratios": [1, 1.2]})
    ys = {label: len(problems) - 1 - i for i, (label, _) in enumerate(problems)}  # first problem on top
    seen = set()
    for label, group in problems:
        y = ys[label]
        for r in group:
            colour, marker = style_of(r["series"])
            name = r["series"] if not r["series"].startswith("coalesce") else "coalesce (fused)"
            first = name not in seen
            seen.add(name)
            fused = r["kind"] == "fused"
            if r["tflops"]:
                left.scatter(float(r["tflops"]), y, color=colour, marker=marker, s=36,
                             label=name if first else None, zorder=5 if fused else 3)
            if r["speedup"] and r["kind"] == "alternative":
                right.scatter(float(r["speedup"]), y, color=colour, marker=marker, s=36, zorder=3)
                if r["fastest"] == "1":
                    right.scatter(float(r["speedup"]), y, facecolors="none", edgecolors="black", s=140, zorder=4)
    left.set_yticks(list(ys.values()))
    left.set_yticklabels(list(ys.keys()), fontsize="small")
    left.set_xscale("log")
    left.xaxis.set_major_formatter(mticker.FormatStrFormatter("%g"))
    left.xaxis.set_minor_formatter(mticker.FormatStrFormatter("%g"))
    left.tick_params(axis="x", which="minor", labelsize="x-small")
    left.set_xlabel("TFLOP/s (2·M·N·K / median), log scale")
    left.grid(True, axis="x", which="both", alpha=0.3)
    right.axvline(1.0, color="black", linewidth=1)
    right.set_xscale("log")
    speedups = [float(r["speedup"]) for r in rows if r["speedup"] and r["kind"] == "alternative"] or [1.0]
    low, high = min(speedups + [1.0]), max(speedups + [1.0])
    ticks = [t for t in (0.25, 0.33, 0.5, 0.67, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 4, 6, 8) if low / 1.1 <= t <= high * 1.1]
    right.set_xticks(ticks)
    right.xaxis.set_major_formatter(mticker.FormatStrFormatter("%g"))
    right.xaxis.set_minor_formatter(mticker.NullFormatter())
    right.set_title("fused speed-up over each alternative = its time ÷ the fused time", fontsize="medium")
    right.set_xlabel("× (right of 1: fused faster; ringed: the fastest alternative), log scale")
    right.grid(True, axis="x", which="both", alpha=0.3)
    for ax in (left, right):
        ax.set_ylim(-0.7, len(problems) - 0.3)
    title = rows[0]["title"] + (f" · protocol {protocols.pop()}" if len(protocols) == 1 else "")
    fig.suptitle(title)
    left.set_title("every method's throughput", fontsize="medium")
    fig.legend(loc="lower center", ncol=8, fontsize="small", frameon=False,
               bbox_to_anchor=(0.5, FOOTER_INCHES / height))
    fig.tight_layout(rect=(0, (0.45 + FOOTER_INCHES) / height, 1, 1))
    save(fig, out)


def plot_m_sweep(rows, out):
    """One figure: a panel per group, two columns, TFLOP/s against M."""
    panels = grouped(rows, "panel")
    columns = 2 if len(panels) > 1 else 1
    count = math.ceil(len(panels) / columns)
    fig, axes = plt.subplots(count, columns, figsize=(7.0 * columns, 0.6 + 4.2 * count), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    kind_order = {"fused": 0, "method": 1, "floor": 2}
    for ax, (panel, group) in zip(axes.flat, panels.items()):
        ms = sorted({int(r["m"]) for r in group})
        values, kinds = {}, {}
        for r in group:
            values.setdefault(r["series"], {})[int(r["m"])] = float(r["tflops"])
            kinds[r["series"]] = r["kind"]
        for name in sorted(values, key=lambda n: kind_order.get(kinds[n], 1)):
            # An M the series lacks is a gap (NaN), so no line claims a value that was not measured.
            ys = [values[name].get(m, math.nan) for m in ms]
            if kinds[name] == "floor":
                ax.plot(ms, ys, color="black", linestyle="--", linewidth=1.5, marker="x",
                        label="B-read floor: 2·M·N·K ÷ read_b's time")
            else:
                colour, marker = style_of(name)
                ax.plot(ms, ys, color=colour, marker=marker, linewidth=2.5 if kinds[name] == "fused" else 1,
                        label=name, zorder=3 if kinds[name] == "fused" else 2)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(ms)
        ax.set_xticklabels([str(m) for m in ms])
        ax.minorticks_off()
        ax.set_xlabel("M")
        ax.set_ylabel("TFLOP/s")
        ax.set_title(panel, fontsize="medium")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize="x-small")
    fig.suptitle(rows[0]["title"] + ": TFLOP/s against M")
    height = 0.6 + 4.2 * count
    fig.tight_layout(rect=(0, FOOTER_INCHES / height, 1, 1 - 0.4 / height))
    save(fig, out)


def plot_tile_landscape(rows, out):
    groups = {}
    for row in rows:
        groups.setdefault((row["device"], row["dtype"], row["epilogue"], row["family"], row["shape"]), []).append(row)
    fig, axes = plt.subplots(1, len(groups), figsize=(7.0 * len(groups), 6.0), squeeze=False)
    for ax, (key, cells) in zip(axes[0], groups.items()):
        bms = sorted({int(c["bm"]) for c in cells})
        bns = sorted({int(c["bn"]) for c in cells})
        grid = [[math.nan] * len(bns) for _ in bms]
        untimed = {}
        for c in cells:
            i, j = bms.index(int(c["bm"])), bns.index(int(c["bn"]))
            if c["tflops"]:
                grid[i][j] = float(c["tflops"])
            else:
                untimed[(i, j)] = c["untimed"]
        values = [v for row in grid for v in row if not math.isnan(v)]
        reference = next((float(c["cublas_tflops"]) for c in cells if c["cublas_tflops"]), None)
        norm = None
        if values and reference:
            # Diverging around cuBLAS GEMM: blue cells beat it, red ones fall short.
            low, high = min(values + [reference]), max(values + [reference])
            span = max(reference - low, high - reference, 1e-9)
            norm = mcolors.TwoSlopeNorm(vmin=reference - span, vcenter=reference, vmax=reference + span)
        cmap = plt.get_cmap("RdBu").copy()
        cmap.set_bad("lightgrey")
        image = ax.imshow(grid, cmap=cmap, norm=norm, origin="lower", aspect="auto")
        for i in range(len(bms)):
            for j in range(len(bns)):
                if not math.isnan(grid[i][j]):
                    strong = norm is not None and abs(norm(grid[i][j]) - 0.5) > 0.3
                    ax.text(j, i, f"{grid[i][j]:.1f}", ha="center", va="center",
                            color="white" if strong else "black")
                elif (i, j) in untimed:
                    ax.text(j, i, untimed[(i, j)].replace(" (", "\n("), ha="center", va="center",
                            fontsize="x-small", color="dimgrey")
        ax.set_xticks(range(len(bns)))
        ax.set_xticklabels(bns)
        ax.set_yticks(range(len(bms)))
        ax.set_yticklabels(bms)
        ax.set_xlabel("BN")
        ax.set_ylabel("BM")
        ax.set_title(" · ".join(key) + "\nbest TFLOP/s of each block tile")
        label = "TFLOP/s" + (f" (black line: cuBLAS GEMM, {reference:.1f})" if reference else "")
        bar = fig.colorbar(image, ax=ax, label=label)
        if reference:
            bar.ax.axhline(reference, color="black", linewidth=2)
    fig.tight_layout(rect=(0, FOOTER_INCHES / 6.0, 1, 1))
    save(fig, out)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: plot_report.py DIR")
    directory = sys.argv[1]
    if not os.path.isdir(directory):
        fail(f"{directory} is not a directory (coalesce-report plots --out-dir DIR writes one)")
    if not any(os.path.exists(os.path.join(directory, name)) for name in DATA):
        fail(f"{directory} holds none of {', '.join(DATA)}: nothing to draw")
    load_matplotlib()
    SOURCES.update({r["file"]: r["source"] for r in read_rows(os.path.join(directory, "figures.csv"))})
    for figure, rows in grouped(read_rows(os.path.join(directory, "by_model_shapes.csv")), "figure").items():
        plot_shapes(rows, os.path.join(directory, figure))
    for figure, rows in grouped(read_rows(os.path.join(directory, "by_model_m_sweep.csv")), "figure").items():
        plot_m_sweep(rows, os.path.join(directory, figure))
    tiles = read_rows(os.path.join(directory, "tile_landscape.csv"))
    if tiles:
        plot_tile_landscape(tiles, os.path.join(directory, "tile_landscape.png"))


if __name__ == "__main__":
    main()
