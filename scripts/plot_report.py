#!/usr/bin/env python3
"""Draws the plots of a Coalesce report from the CSV files coalesce-report writes.

Usage: plot_report.py DIR
  reads  DIR/tflops_by_shape.csv  (device, shape, series, tflops, peak_tflops, ...)
         DIR/tile_landscape.csv   (device, family, bm, bn, best_ms, tflops, config, ...)
  writes DIR/tflops_vs_shape.png  TFLOP/s against shape, one line per method, per device
         DIR/tile_landscape.png   the best TFLOP/s of each BM x BN tile at one shape

coalesce-report embeds this file and runs it (`coalesce-report plots --out-dir DIR`); it can
also be run by hand on the CSV files. It needs matplotlib (Debian: python3-matplotlib).
"""
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402


def read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def by_device(rows):
    devices = {}
    for row in rows:
        devices.setdefault(row["device"], []).append(row)
    return devices


def plot_tflops_vs_shape(rows, out):
    devices = by_device(rows)
    fig, axes = plt.subplots(len(devices), 1, figsize=(9, 4.5 * len(devices)), squeeze=False)
    for ax, (device, dev_rows) in zip(axes[:, 0], devices.items()):
        shapes = sorted({(float(r["flops"]), r["shape"]) for r in dev_rows})
        x_of = {label: i for i, (_, label) in enumerate(shapes)}
        series = {}
        for r in dev_rows:
            series.setdefault(r["series"], []).append((x_of[r["shape"]], float(r["tflops"])))
        for name, points in series.items():
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name)
        peaks = {r["peak_tflops"] for r in dev_rows if r["peak_tflops"]}
        if len(peaks) == 1:
            peak = float(peaks.pop())
            ax.axhline(peak, color="grey", linestyle="--", linewidth=1)
            ax.text(len(shapes) - 1, peak, f"peak of its math {peak:.1f} ", ha="right", va="top",
                    color="grey")
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels([label for _, label in shapes], rotation=20)
        ax.set_ylabel("TFLOP/s (2·M·N·K / median)")
        ax.set_title(f"{device}: throughput by shape")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def plot_tile_landscape(rows, out):
    groups = {}
    for r in rows:
        groups.setdefault((r["device"], r["family"], r["shape"]), []).append(r)
    fig, axes = plt.subplots(1, len(groups), figsize=(6.5 * len(groups), 5.5), squeeze=False)
    for ax, ((device, family, shape), cells) in zip(axes[0], groups.items()):
        bms = sorted({int(c["bm"]) for c in cells})
        bns = sorted({int(c["bn"]) for c in cells})
        grid = [[math.nan] * len(bns) for _ in bms]
        for c in cells:
            grid[bms.index(int(c["bm"]))][bns.index(int(c["bn"]))] = float(c["tflops"])
        image = ax.imshow(grid, cmap="viridis", origin="lower", aspect="auto")
        for i in range(len(bms)):
            for j in range(len(bns)):
                if not math.isnan(grid[i][j]):
                    ax.text(j, i, f"{grid[i][j]:.1f}", ha="center", va="center", color="white")
        ax.set_xticks(range(len(bns)))
        ax.set_xticklabels(bns)
        ax.set_yticks(range(len(bms)))
        ax.set_yticklabels(bms)
        ax.set_xlabel("BN")
        ax.set_ylabel("BM")
        ax.set_title(f"{device} · {family} · {shape}\nbest TFLOP/s of each block tile")
        fig.colorbar(image, ax=ax, label="TFLOP/s")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: plot_report.py DIR")
    directory = sys.argv[1]
    shapes = read_rows(os.path.join(directory, "tflops_by_shape.csv"))
    if shapes:
        plot_tflops_vs_shape(shapes, os.path.join(directory, "tflops_vs_shape.png"))
    tiles = read_rows(os.path.join(directory, "tile_landscape.csv"))
    if tiles:
        plot_tile_landscape(tiles, os.path.join(directory, "tile_landscape.png"))


if __name__ == "__main__":
    main()
