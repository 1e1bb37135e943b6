#!/usr/bin/env python3
"""The figures docs/results.md quotes from Nsight Compute, one block per kernel.

Reads the raw pages that `ncu -i REPORT --page raw --csv` writes (one kernel per file) and prints
its duration and clock, tensor-pipe activity, shared-memory traffic and bank conflicts, issue
activity, registers, occupancy and the six largest stall reasons (warps stalled per issued
instruction). Usage: scripts/ncu_summary.py results/logs/runD/ncu/*.raw.csv
"""
import csv
import sys

FIGURES = [
    ("gpu__time_duration.sum", "duration"),
    ("sm__cycles_elapsed.avg.per_second", "SM clock"),
    ("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "tensor pipe active"),
    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM throughput"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed", "shared-memory pipe"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared loads (wavefronts)"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "bank conflicts on loads"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "bank conflicts on stores"),
    ("smsp__issue_active.avg.pct_of_peak_sustained_active", "issue slots busy"),
    ("smsp__inst_executed.sum", "instructions"),
    ("launch__registers_per_thread", "registers/thread"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy"),
]
STALL = ("smsp__average_warps_issue_stalled_", "_per_issue_active.ratio")


def main(paths):
    if not paths:
        sys.exit("usage: scripts/ncu_summary.py RAW.csv ...")
    for path in paths:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        if len(rows) < 3:
            sys.exit(f"{path}: no kernel in this raw page")
        names, units, values = rows[0], rows[1], rows[2]
        col = {n: i for i, n in enumerate(names)}
        print(f"== {path}: {values[col['Kernel Name']]}")
        for metric, label in FIGURES:
            if metric in col:
                i = col[metric]
                print(f"  {label:28} {values[i]} {units[i]}".rstrip())
        stalls = [(n[len(STALL[0]):-len(STALL[1])], float(values[i].replace(",", "") or 0))
                  for n, i in col.items() if n.startswith(STALL[0]) and n.endswith(STALL[1])]
        top = sorted(stalls, key=lambda s: -s[1])[:6]
        print("  stalls per issue: " + ", ".join(f"{n} {v:.2f}" for n, v in top))


if __name__ == "__main__":
    main(sys.argv[1:])
