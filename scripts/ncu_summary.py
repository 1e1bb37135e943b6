#!/usr/bin/env python3
"""The figures the journal (docs/journal/) quotes from Nsight Compute, one block per kernel; with --db, the
page stored as a profile in the results database.

Reads the raw pages that `ncu -i REPORT --page raw --csv` writes (one kernel per file) and prints
its duration and clock, tensor-pipe activity, shared-memory traffic and bank conflicts, issue
activity, registers, occupancy and the six largest stall reasons (warps stalled per issued
instruction).

With --db, the one page given also becomes a row of the database's `profiles` table: every metric
of the page with its unit goes, as one JSON object, to `coalesce-tune record-profile`, which finds
the device, problem and config in the database (and refuses, in one sentence with a non-zero
status, what it does not hold), derives the columns the reports read and writes under the
database's writer lease (docs/tuner.md, "Recording a profile"). This script reads ncu's format and
nothing else.

Usage:
  scripts/ncu_summary.py results/logs/runD/ncu/*.raw.csv
  scripts/ncu_summary.py --db results/coalesce.db --device GPU-... --shape 4096 --dtype bf16 \\
      --epilogue bias_gelu --method coalesce --config NAME [--source-hash PREFIX] \\
      [--profiled-at 2026-11-30T13:10:40Z] [--tool-version VERSION] [--tune PATH] RAW.csv
Exit status: 0 done, 1 the database refused the profile, 2 bad usage or a page that cannot be read.
"""
import argparse
import csv
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
import coalesce_tools  # noqa: E402  (beside this script)

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

#: The columns of a raw page that say which launch it was (ncu's record), not what it measured:
#: left out of the stored metrics (the launch__* metrics hold the block and grid sizes).
RECORD_COLUMNS = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
                  "Block Size", "Grid Size", "Device", "CC"}


class UsageError(Exception):
    """Bad usage or a page that cannot be read: one sentence and exit status 2."""


def read_page(path):
    """The page's kernels: (metric names, units, one list of values per kernel)."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise UsageError(f"{path}: cannot read it ({e.strerror})")
    if len(rows) < 3 or "Kernel Name" not in rows[0]:
        raise UsageError(f"{path}: no kernel in this raw page (ncu -i REPORT --page raw --csv)")
    return rows[0], rows[1], rows[2:]


def summarize(path, names, units, values):
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


def value_of(text):
    """A value as ncu printed it: a number (its thousands separators dropped) or the text."""
    bare = text.replace(",", "")
    if re.fullmatch(r"-?\d+", bare):
        return int(bare)
    if re.fullmatch(r"-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", bare):
        return float(bare)
    return text


def profile_of(names, units, values, args):
    """The JSON object `coalesce-tune record-profile` reads: the kernel, the tool and every
    metric of the page with a value, with the units of those that have one."""
    metrics, metric_units = {}, {}
    for name, unit, text in zip(names, units, values):
        if name in RECORD_COLUMNS or text == "":
            continue
        metrics[name] = value_of(text)
        if unit:
            metric_units[name] = unit
    profile = {"kernel": values[names.index("Kernel Name")], "tool": "ncu", "metrics": metrics,
               "units": metric_units}
    if args.tool_version:
        profile["tool_version"] = args.tool_version
    if args.profiled_at:
        profile["profiled_at"] = args.profiled_at
    return profile


def find_tune(given):
    """The coalesce-tune binary (coalesce_tools.find_tune)."""
    return coalesce_tools.find_tune(given, UsageError)


def store(path, names, units, values, args):
    """One page as one profile row, through `coalesce-tune record-profile`; its status."""
    command = [find_tune(args.tune), "record-profile", "--db", args.db, "--device", args.device,
               "--shape", args.shape, "--dtype", args.dtype, "--epilogue", args.epilogue,
               "--method", args.method]
    if args.config:
        command += ["--config", args.config]
    if args.source_hash:
        command += ["--source-hash", args.source_hash]
    profile = profile_of(names, units, values, args)
    return subprocess.run(command, input=json.dumps(profile), text=True).returncode


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Summarize Nsight Compute raw pages; with --db, store one as a profile.")
    p.add_argument("pages", nargs="+", metavar="RAW.csv", help="pages of `ncu -i REPORT --page raw --csv`")
    stored = p.add_argument_group("storing one page in the results database (--db)")
    stored.add_argument("--db", help="the results database (it must hold the device, problem and config)")
    stored.add_argument("--device", help="the profiled GPU's UUID (GPU-...)")
    stored.add_argument("--shape", help="the problem: N (M = N = K) or MxNxK")
    stored.add_argument("--dtype", help="the problem's dtype: f32, tf32, bf16, f16")
    stored.add_argument("--epilogue", default="bias_gelu", help="the problem's epilogue (default bias_gelu)")
    stored.add_argument("--method", help="coalesce, a baseline (cublas_gemm, ...) or a peer method")
    stored.add_argument("--config", help="the config's name (none for a library kernel)")
    stored.add_argument("--source-hash", help="the start of the config's source hash, where its name has several")
    stored.add_argument("--profiled-at", help="when ncu ran, UTC (2026-11-30T13:10:40Z); unknown if not given")
    stored.add_argument("--tool-version", help="ncu's version (`ncu --version`); unknown if not given")
    stored.add_argument("--tune", help="the coalesce-tune binary (default dist/bin, build/bin, then PATH)")
    args = p.parse_args(argv)
    storing = ("device", "shape", "dtype", "method", "config", "source_hash", "profiled_at", "tool_version", "tune")
    if args.db:
        missing = [f"--{f}" for f in ("device", "shape", "dtype", "method") if not getattr(args, f)]
        if missing:
            p.error(f"--db needs {', '.join(missing)}")
        if len(args.pages) != 1:
            p.error(f"--db stores one page; {len(args.pages)} were given")
    else:
        given = [f"--{f.replace('_', '-')}" for f in storing if getattr(args, f)]
        if given:
            p.error(f"{given[0]} says where to store the page: it needs --db")
    return args


def main(argv):
    args = parse_args(argv)
    try:
        pages = [(path, *read_page(path)) for path in args.pages]
        if args.db:
            path, names, units, kernels = pages[0]
            if len(kernels) != 1:
                raise UsageError(f"{path} holds {len(kernels)} kernels; --db stores a page of one "
                                 "(ncu -k NAME -c 1)")
            summarize(path, names, units, kernels[0])
            return store(path, names, units, kernels[0], args)
        for path, names, units, kernels in pages:
            for values in kernels:
                summarize(path, names, units, values)
        return 0
    except UsageError as e:
        print(f"ncu_summary.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
