#!/usr/bin/env python3
"""The instructions of one kernel where Nsight Compute's warp-state sampling caught the most warps,
as docs/results.md quotes them (the stream-K descriptor finding, runs EB and ED).

Reads the per-instruction page that `ncu -i REPORT --page source --csv --print-source sass`
writes and prints the total number of samples, then the N instructions with the most samples:
their share of all samples, their address, how many times a warp executed them, and the SASS.

Usage:
  scripts/ncu_hot.py KERNEL.sass.csv [N]      (N defaults to 25)
"""
import csv
import sys


USAGE = "usage: scripts/ncu_hot.py KERNEL.sass.csv [N]"


def main(argv):
    # Exit status as the tools' (docs/working.md): 2 bad usage, 1 a file it cannot read.
    if len(argv) < 2 or len(argv) > 3 or (len(argv) == 3 and not argv[2].isdigit()):
        print(USAGE, file=sys.stderr)
        sys.exit(2)
    try:
        rows = list(csv.reader(open(argv[1], newline="")))
        header = rows[1]
        header.index("Warp Stall Sampling (All Samples)")
    except (OSError, IndexError, ValueError) as e:
        print(f"ncu_hot.py: {argv[1]}: not a per-instruction page of ncu ({e})", file=sys.stderr)
        sys.exit(1)
    # Row 0 names the kernel; row 1 is the header.
    data = rows[2:]
    address, source = header.index("Address"), header.index("Source")
    samples = header.index("Warp Stall Sampling (All Samples)")
    executed = header.index("Instructions Executed")
    count = lambda r: float(r[samples] or 0)
    total = sum(count(r) for r in data)
    print(f"total samples {total:.0f} instructions {len(data)}")
    for r in sorted(data, key=count, reverse=True)[: int(argv[2]) if len(argv) > 2 else 25]:
        print(f"{count(r) / total * 100:5.1f}% {r[address]:>6} ex={r[executed]:>10} {r[source][:110]}")


if __name__ == "__main__":
    main(sys.argv)
