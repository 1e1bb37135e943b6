#!/usr/bin/env python3
"""Each measured method's SM clock, power draw, temperature and throttle reasons while it was timed,
as docs/journal/2026-12-01.md quotes them (runs EH and EI: every 8192³ method at the 700 W power cap).

Reads, in DIR, `smi.csv` (what `nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,
temperature.gpu,clocks_event_reasons.active --format=csv,noheader,nounits -lms 20` wrote during the
sweeps) and one database TAG.db per sweep, in the order the sweeps ran. A method's timing window
runs from the previous row's `created_at` (in the same sweep) to its own, the first row's from 6 s
before; the figures are the means over the window's last 80% (past the method's checks and
warm-up), with the two most frequent throttle-reason masks and their shares. Both clocks are the
GPU host's, in UTC. `read_b` (microseconds long) is left out.

Usage:
  scripts/smi_phases.py DIR TAG [TAG ...]
"""
import collections
import csv
import datetime
import sqlite3
import sys
from pathlib import Path

USAGE = "usage: scripts/smi_phases.py DIR TAG [TAG ...]"


def samples(path):
    out = []
    for row in csv.reader(open(path, newline="")):
        if len(row) < 5:
            continue
        try:
            t = datetime.datetime.strptime(row[0].strip(), "%Y/%m/%d %H:%M:%S.%f")
            clock, power, temp = float(row[1]), float(row[2]), float(row[3])
        except ValueError:
            continue  # a header or a field nvidia-smi could not read
        out.append((t, clock, power, temp, row[4].strip()))
    return out


def main(argv):
    # Exit status as the tools' (docs/working.md): 2 bad usage, 1 a file it cannot read.
    if len(argv) < 3:
        print(USAGE, file=sys.stderr)
        sys.exit(2)
    directory = Path(argv[1])
    missing = [p for p in [directory / "smi.csv"] + [directory / (t + ".db") for t in argv[2:]] if not p.is_file()]
    if missing:
        print(f"smi_phases.py: {missing[0]}: no such file", file=sys.stderr)
        sys.exit(1)
    smi = samples(directory / "smi.csv")
    print("method                       config                 median_ms  window_s  samples  clock_MHz  power_W  temp_C  reasons (share)")
    for tag in argv[2:]:
        db = sqlite3.connect(f"file:{directory / (tag + '.db')}?mode=ro", uri=True)
        rows = db.execute("SELECT method, coalesce(config_name, ''), median_ms, created_at FROM v_measurements "
                          "WHERE status = 'ok' ORDER BY created_at").fetchall()
        previous = None
        for method, config, median, created in rows:
            end = datetime.datetime.strptime(created, "%Y-%m-%dT%H:%M:%S.%fZ")
            start = previous if previous else end - datetime.timedelta(seconds=6)
            previous = end
            first = start + (end - start) * 0.2
            window = [s for s in smi if first <= s[0] <= end]
            if not window or method == "read_b":
                continue
            n = len(window)
            clock = sum(s[1] for s in window) / n
            power = sum(s[2] for s in window) / n
            temp = sum(s[3] for s in window) / n
            reasons = collections.Counter(s[4] for s in window)
            top = ", ".join(f"{mask}:{count * 100 // n}%" for mask, count in reasons.most_common(2))
            kind = "stk2" if "stk2" in config else ("plain" if config else "")
            print(f"{tag:9} {method:17} {kind:6} {median:9.4f} {(end - first).total_seconds():7.1f} {n:7d} "
                  f"{clock:9.0f} {power:8.0f} {temp:6.1f}  {top}")


if __name__ == "__main__":
    main(sys.argv)
