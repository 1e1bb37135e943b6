#!/usr/bin/env python3
"""Run FG's epilogue stall count: sums each stall reason's samples over the SASS lines of the
epilogue (from 30 lines before the first MUFU.EX2, the GELU's, or 20 before the first F2FP when
there is none, to 5 after the last F2FP) of an ncu per-instruction page (--page source --csv
--print-source sass). Usage: epilogue_stalls.py PAGE.sass.csv[.gz]..."""
import csv, gzip, sys
from collections import Counter

for path in sys.argv[1:]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        rows = list(csv.reader(f))
    head = next(i for i, r in enumerate(rows) if "Address" in r)
    h, data = rows[head], rows[head + 1 :]
    src = h.index("Source")
    reasons = {c: h.index(c) for c in h if c.startswith("stall_") and "Not Issued" not in c}
    f2fp = [i for i, r in enumerate(data) if "F2FP" in r[src]]
    ex2 = [i for i, r in enumerate(data) if "MUFU.EX2" in r[src]]
    start = min(ex2) - 30 if ex2 else min(f2fp) - 20
    end = max(f2fp) + 5
    region, whole = Counter(), Counter()
    for i, r in enumerate(data):
        for k, j in reasons.items():
            n = int(r[j] or 0)
            whole[k] += n
            if start <= i < end:
                region[k] += n
    print(f"{path}: epilogue lines {start}..{end}, {sum(region.values())} of {sum(whole.values())} samples")
    print("  " + ", ".join(f"{k[6:]} {v}" for k, v in region.most_common(8)))
