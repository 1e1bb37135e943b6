#!/usr/bin/env python3
"""Draws the plots of a Coalesce report from the CSV files coalesce-report writes.

Usage: plot_report.py DIR
  reads  DIR/tflops_by_shape.csv  (device, m, n, k, dtype, epilogue, shape, series, run,
                                   median_ms, tflops, peak_tflops, vs_eager, and with
                                   coalesce-report --same-model measured_on: the other device
                                   of a cross-device point, drawn hollow and dashed)
         DIR/tflops_vs_m.csv      (device, dtype, epilogue, n, k, m, series, kind, run, median_ms,
                                   tflops: the report's throughput-against-M groups; kind is fused,
                                   method or floor)
         DIR/tile_landscape.csv   (device, dtype, epilogue, shape, family, bm, bn, best_ms, tflops,
                                   config, cublas_tflops, configs, untimed)
  writes DIR/tflops_vs_shape.png  TFLOP/s against shape, one line per method
         DIR/ratio_to_eager.png   every method's time / eager's, a line at 1.0
         DIR/tflops_vs_m.png      TFLOP/s against M (log2) at fixed N and K, one panel per device,
                                  dtype, epilogue, N and K, one line per method, and the read_b
                                  floor as the throughput of a kernel limited only by reading B;
                                  drawn only when the data has such groups
         DIR/tile_landscape.png   the best TFLOP/s of each BM x BN tile at one shape, coloured
                                  around cuBLAS GEMM's, untimed cells labelled with how they ended
  One panel per device, dtype and epilogue; every title names them.

coalesce-report embeds this file and runs it (`coalesce-report plots --out-dir DIR`); it can
also be run by hand on the CSV files. It needs matplotlib (Debian: python3-matplotlib). It draws
what the CSV holds and computes nothing the tools did not (the ratios come from coalesce-report).
"""
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.colors as mcolors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402


def read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def panels(rows, *extra):
    """Rows grouped by device, dtype, epilogue (and `extra` columns), in the order they come."""
    groups = {}
    for row in rows:
        key = (row["device"], row["dtype"], row["epilogue"]) + tuple(row[c] for c in extra)
        groups.setdefault(key, []).append(row)
    return groups


def title(key):
    return " · ".join(key)


def figure(count, width=9.0, height=4.5):
    fig, axes = plt.subplots(count, 1, figsize=(width, height * count), squeeze=False)
    return fig, axes[:, 0]


def save(fig, out):
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def shape_axis(ax, rows):
    """Shapes in numeric order (by M·N·K, then M, N, K) on the x axis; returns label -> x."""
    shapes = sorted({(float(r["flops"]), int(r["m"]), int(r["n"]), int(r["k"]), r["shape"]) for r in rows})
    ax.set_xticks(range(len(shapes)))
    ax.set_xticklabels([s[-1] for s in shapes], rotation=20)
    return {s[-1]: i for i, s in enumerate(shapes)}


def plot_series(ax, rows, x_of, value):
    series = {}
    cross_device = set()  # series measured on another device of the model (--same-model)
    for r in rows:
        v = value(r)
        if v is not None:
            series.setdefault(r["series"], []).append((x_of(r), v))
            if r.get("measured_on"):
                cross_device.add(r["series"])
    for name, points in series.items():
        points.sort()
        style = dict(marker="o")
        if name in cross_device:
            style = dict(marker="D", markerfacecolor="none", linestyle="--")
        ax.plot([p[0] for p in points], [p[1] for p in points], label=name, **style)


def plot_tflops_vs_shape(rows, out):
    groups = panels(rows)
    fig, axes = figure(len(groups))
    for ax, (key, group) in zip(axes, groups.items()):
        x = shape_axis(ax, group)
        plot_series(ax, group, lambda r: x[r["shape"]], lambda r: float(r["tflops"]))
        peaks = {r["peak_tflops"] for r in group if r["peak_tflops"]}
        if len(peaks) == 1:
            peak = float(peaks.pop())
            ax.axhline(peak, color="grey", linestyle="--", linewidth=1)
            ax.text(len(x) - 1, peak, f"peak of its math {peak:.1f} ", ha="right", va="top", color="grey")
        ax.set_ylabel("TFLOP/s (2·M·N·K / median)")
        ax.set_title(f"{title(key)}: throughput by shape")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    save(fig, out)


def plot_ratio_to_eager(rows, out):
    rows = [r for r in rows if r.get("vs_eager")]
    if not rows:
        return
    groups = panels(rows)
    fig, axes = figure(len(groups))
    for ax, (key, group) in zip(axes, groups.items()):
        x = shape_axis(ax, group)
        plot_series(ax, group, lambda r: x[r["shape"]], lambda r: float(r["vs_eager"]))
        ax.axhline(1.0, color="black", linewidth=1)
        ax.text(0, 1.0, " eager (cuBLAS GEMM, bias add, activation)", va="bottom", fontsize="small")
        ax.set_ylabel("time ÷ eager's time (below 1: faster)")
        ax.set_title(f"{title(key)}: every method against eager")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    save(fig, out)


def plot_tflops_vs_m(rows, out):
    """Throughput against M at fixed N and K (the report's m_sweep groups), a panel per group in
    two columns: one line per method, the fastest fused config in bold, and the read_b floor
    (2·M·N·K / the time to read B once) as a dashed black line, the throughput no GEMM that
    reads B can pass. Both axes are logarithmic: M doubles along x, and the floor's throughput
    grows in proportion to M."""
    groups = panels(rows, "n", "k")
    if not groups:
        return
    columns = 2 if len(groups) > 1 else 1
    count = math.ceil(len(groups) / columns)
    fig, axes = plt.subplots(count, columns, figsize=(8.0 * columns, 4.5 * count), squeeze=False)
    for ax in axes.flat[len(groups):]:
        ax.set_visible(False)
    kind_order = {"fused": 0, "method": 1, "floor": 2}
    for ax, (key, group) in zip(axes.flat, groups.items()):
        ms = sorted({int(r["m"]) for r in group})
        values = {}  # series -> {M: TFLOP/s}
        order = {}   # series -> (its kind, its place among the rows of an M: the tool's method order)
        place = {}
        for r in group:
            m = int(r["m"])
            place[m] = place.get(m, -1) + 1
            values.setdefault(r["series"], {})[m] = float(r["tflops"])
            rank = (kind_order.get(r["kind"], 1), place[m])
            order[r["series"]] = min(order.get(r["series"], rank), rank)
        for name in sorted(values, key=lambda n: order[n]):
            # An M the series lacks is a gap (NaN), so no line claims a value that was not measured.
            ys = [values[name].get(m, math.nan) for m in ms]
            if order[name][0] == kind_order["floor"]:
                ax.plot(ms, ys, color="black", linestyle="--", linewidth=1.5, marker="x",
                        label="B-read floor: 2·M·N·K ÷ read_b's time")
            elif order[name][0] == kind_order["fused"]:
                ax.plot(ms, ys, marker="o", linewidth=2.5, label=name, zorder=3)  # above the methods it is compared with
            else:
                ax.plot(ms, ys, marker=".", linewidth=1, label=name)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(ms)
        ax.set_xticklabels([str(m) for m in ms])
        ax.minorticks_off()
        ax.set_xlabel("M")
        ax.set_ylabel("TFLOP/s (2·M·N·K / median)")
        device, dtype, epilogue, n, k = key
        ax.set_title(f"{title((device, dtype, epilogue))} · N = {n}, K = {k}", fontsize="medium")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize="x-small")
    save(fig, out)


def plot_tile_landscape(rows, out):
    groups = panels(rows, "family", "shape")
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
        ax.set_title(f"{title(key)}\nbest TFLOP/s of each block tile")
        label = "TFLOP/s" + (f" (black line: cuBLAS GEMM, {reference:.1f})" if reference else "")
        bar = fig.colorbar(image, ax=ax, label=label)
        if reference:
            bar.ax.axhline(reference, color="black", linewidth=2)
    save(fig, out)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: plot_report.py DIR")
    directory = sys.argv[1]
    shapes = read_rows(os.path.join(directory, "tflops_by_shape.csv"))
    if shapes:
        plot_tflops_vs_shape(shapes, os.path.join(directory, "tflops_vs_shape.png"))
        plot_ratio_to_eager(shapes, os.path.join(directory, "ratio_to_eager.png"))
    sweeps = read_rows(os.path.join(directory, "tflops_vs_m.csv"))
    if sweeps:
        plot_tflops_vs_m(sweeps, os.path.join(directory, "tflops_vs_m.png"))
    tiles = read_rows(os.path.join(directory, "tile_landscape.csv"))
    if tiles:
        plot_tile_landscape(tiles, os.path.join(directory, "tile_landscape.png"))


if __name__ == "__main__":
    main()
