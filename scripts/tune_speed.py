#!/usr/bin/env python3
"""The table of issue 43's sweep bar from a scripts/tune-speed-run.sh run (unpacked).

Per problem: the default sweep's wall time (cold kernel cache), how many configs it measured,
its winner; the exhaustive sweep's count and best; and the default winner against the
exhaustive best twice: its own median from the default sweep, and its median in the exhaustive
sweep (the same config timed again in the same sitting, which leaves out the noise between the
two sweeps). Only rows of the `coalesce` method measured ok in the first-pass protocol count;
the steady-state re-timing, if any, is not the search's.

Usage: scripts/tune_speed.py RUN_DIR   (holds default.db, exhaustive.db and logs/times.txt)
"""
import sqlite3
import sys
from pathlib import Path

QUERY = """
SELECT m, n, k, dtype, epilogue, config_name, median_ms FROM v_measurements
WHERE method = 'coalesce' AND status = 'ok' AND NOT steady_state
"""


def rows(db):
    by_problem = {}
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        for m, n, k, dtype, epilogue, name, median in c.execute(QUERY):
            by_problem.setdefault((f"{m}x{n}x{k}", dtype, epilogue), {})[name] = median
    return by_problem


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    run = Path(sys.argv[1])
    # "STEP SHAPE DTYPE rc=N wall_s=T" per sweep, SHAPE as the databases name it (N is NxNxN).
    times = {}
    for line in (run / "logs" / "times.txt").read_text().splitlines():
        step, shape, dtype, *fields = line.split()
        shape = "x".join([shape] * 3) if "x" not in shape else shape
        times[(step, shape, dtype)] = dict(f.split("=", 1) for f in fields)
    default, exhaustive = rows(run / "default.db"), rows(run / "exhaustive.db")
    print("| problem | default: wall s (rc) | configs | winner | median ms | exhaustive: configs (rc) | best | "
          "median ms | winner's median there | behind the best: first pass / same sweep |")
    print("|---|---|---:|---|---:|---|---|---:|---:|---|")
    for key in sorted(default):
        shape, dtype, epilogue = key
        d, e = default[key], exhaustive.get(key, {})
        win = min(d, key=d.get)
        t = times.get(("default", shape, dtype), {})
        erc = "rc=" + times.get(("exhaustive", shape, dtype), {}).get("rc", "?")
        head = f"| {shape} {dtype} {epilogue} | {t.get('wall_s', '?')} ({t.get('rc', '?')}) | {len(d)} | {win} | {d[win]:.4f} |"
        if not e:
            print(head, f"none ({erc}) | - | - | - | - |")
            continue
        best = min(e, key=e.get)
        there = e.get(win)
        first = f"{(d[win] / e[best] - 1) * 100:+.1f}%"
        same = f"{(there / e[best] - 1) * 100:+.1f}%" if there else "-"
        if erc != "rc=0":
            erc += ", cut short: not the space's best"
        print(head, f"{len(e)} ({erc}) | {best} | {e[best]:.4f} | {f'{there:.4f}' if there else '-'} | {first} / {same} |")


if __name__ == "__main__":
    main()
