#!/usr/bin/env python3
"""The instructions of one kernel where Nsight Compute's warp-state sampling caught the most warps,
as docs/journal/ quotes them (the stream-K descriptor finding, runs EB and ED, 2026-12-01;
bf16 512^3, run LL, 2026-12-02).

Reads the per-instruction page that `ncu --page source --csv --print-source sass` writes (or
`ncu -i REPORT` with the same options) and prints the total number of samples, then the N
instructions with the most samples: their share of all samples, their address, how many times a
warp executed them per launch, and the SASS. A page of several launches of the kernel (`-c 20`)
is summed instruction by instruction (the first line then says how many launches; a page that
repeats the one before it row for row, as ncu writes some kernels', counts once); lines before
the first launch's "Kernel Name" row (ncu's notes, the profiled program's output) are skipped.

With --ops it prints, instead of instructions, each opcode's share of the samples (FFMA, LDS,
...: the predicate and the modifiers dropped), the N largest. With --lead it prints how far ahead
the main loop loads from shared memory: over the instructions executed most often (the main
loop's body), each LDS's distance in instructions to the first later instruction that names one
of the registers it writes (4 for LDS.128, 2 for LDS.64), as count, median, 25th percentile and
minimum (run LN: cuBLAS's SIMT loop against ours).

Usage:
  scripts/ncu_hot.py [--ops | --lead] KERNEL.sass.csv [N]      (N defaults to 25)
"""
import collections
import csv
import re
import statistics
import sys


USAGE = "usage: scripts/ncu_hot.py [--ops | --lead] KERNEL.sass.csv [N]"
# An instruction's guard predicate (@P0, @!PT, @UP1), left out where the opcode is read.
PREDICATE = r"(?:@!?U?P[T0-9]+\s+)?"


def main(argv):
    # Exit status as the tools' (docs/working.md): 2 bad usage, 1 a file it cannot read.
    mode = argv[1] if len(argv) > 1 and argv[1] in ("--ops", "--lead") else ""
    if mode:
        argv = argv[:1] + argv[2:]
    if len(argv) < 2 or len(argv) > 3 or (len(argv) == 3 and not argv[2].isdigit()):
        print(USAGE, file=sys.stderr)
        sys.exit(2)
    most = int(argv[2]) if len(argv) > 2 else 25
    try:
        rows = list(csv.reader(open(argv[1], newline="")))
        first = next(i for i, r in enumerate(rows) if r and r[0] == "Kernel Name")
        header = rows[first + 1]
        header.index("Warp Stall Sampling (All Samples)")
    except (OSError, IndexError, ValueError, StopIteration) as e:
        print(f"ncu_hot.py: {argv[1]}: not a per-instruction page of ncu ({e or 'no Kernel Name row'})",
              file=sys.stderr)
        sys.exit(1)
    address, source = header.index("Address"), header.index("Source")
    samples = header.index("Warp Stall Sampling (All Samples)")
    executed = header.index("Instructions Executed")
    # Each launch: a "Kernel Name" row, the header, one row per instruction.
    launches = []
    for r in rows[first:]:
        if r and r[0] == "Kernel Name":
            launches.append([])
        elif len(r) == len(header) and r[address].startswith("0x"):
            launches[-1].append(r)
    # ncu writes some kernels' page twice per launch (cuBLAS's SIMT kernel in run LN): a page equal
    # to the one before it, row for row, is that repetition and counts once.
    launches = [l for i, l in enumerate(launches) if i == 0 or l != launches[i - 1]]
    sizes = {len(launch) for launch in launches}
    if len(sizes) != 1:
        print(f"ncu_hot.py: {argv[1]}: its launches list different instructions ({sorted(sizes)}): not one kernel",
              file=sys.stderr)
        sys.exit(1)
    number = lambda x: float(x or 0)
    data = [(r[address], r[source], sum(number(l[i][samples]) for l in launches),
             sum(number(l[i][executed]) for l in launches) / len(launches))
            for i, r in enumerate(launches[0])]
    total = sum(d[2] for d in data)
    more = f" launches {len(launches)}" if len(launches) > 1 else ""
    print(f"total samples {total:.0f} instructions {len(data)}{more}")
    if mode == "--lead":
        hottest = max(d[3] for d in data)
        leads = []
        for i, (_, sass, _, ex) in enumerate(data):
            load = re.match(PREDICATE + r"LDS(?:\.(\d+))?(?:\.\w+)*\s+R(\d+),", sass.strip())
            if ex != hottest or not load:
                continue
            base = int(load.group(2))
            written = {f"R{base + k}" for k in range({"128": 4, "64": 2}.get(load.group(1), 1))}
            later = (j for j in range(i + 1, len(data)) if written & set(re.findall(r"(?<![A-Z])R\d+", data[j][1])))
            use = next(later, None)
            if use is not None:
                leads.append(use - i)
        if not leads:
            print("no shared loads among the most executed instructions")
            return
        leads.sort()
        print(f"LDS in the main loop {len(leads)}, instructions to first use: median {statistics.median(leads):g}, "
              f"25th percentile {leads[len(leads) // 4]}, minimum {leads[0]}")
        return
    if mode == "--ops":
        by_op = collections.Counter()
        for _, sass, count, _ in data:
            by_op[re.sub("^" + PREDICATE, "", sass.strip()).split(" ")[0].split(".")[0]] += count
        for op, count in by_op.most_common(most):
            print(f"{count / total * 100:5.1f}% {op}")
        return
    for addr, sass, count, ex in sorted(data, key=lambda d: d[2], reverse=True)[:most]:
        print(f"{count / total * 100:5.1f}% {addr:>6} ex={ex:>10.0f} {sass[:110]}")


if __name__ == "__main__":
    main(sys.argv)
