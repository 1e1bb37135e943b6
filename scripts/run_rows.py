#!/usr/bin/env python3
"""A line per run of a results database, the facts results/README.md's run rows are written
from: run id, device id, the tools' git revision (12 characters), the start (UTC, to the minute),
how many rows it stored, and for each problem it measured its fastest kernel config that passed
the check (median in microseconds, the config, its relative error) against the same run's
cuBLAS GEMM alone and eager sequence, and how its kernel rows ended (statuses).

    scripts/run_rows.py [--db results/coalesce.db] FIRST [LAST]

A run that measured no kernel config prints only its facts. Exit status: 0; 1 a database that
cannot be read or a run it does not hold; 2 bad usage.
"""
import argparse
import sqlite3
import sys


def problems(c, run):
    return c.execute("""select distinct p.id, p.m, p.n, p.k, p.dtype from measurements me
                        join problems p on p.id = me.problem_id where me.run_id = ? order by p.id""", (run,)).fetchall()


def line(c, run):
    facts = c.execute("select device_id, git_revision, started_at from runs where id = ?", (run,)).fetchone()
    if facts is None:
        return None
    device, git, started = facts
    rows = c.execute("select count(*) from measurements where run_id = ?", (run,)).fetchone()[0]
    parts = []
    for pid, m, n, k, dtype in problems(c, run):
        best = c.execute("""select cf.name, me.median_ms, me.rel_err from measurements me join configs cf on cf.id = me.config_id
                            where me.run_id = ? and me.problem_id = ? and me.method = 'coalesce' and me.status = 'ok'
                            order by me.median_ms limit 1""", (run, pid)).fetchone()
        if best is None:
            continue
        base = dict(c.execute("""select method, median_ms from measurements where run_id = ? and problem_id = ?
                                 and method in ('cublas_gemm', 'eager') and status = 'ok'""", (run, pid)).fetchall())
        statuses = c.execute("""select status, count(*) from measurements where run_id = ? and problem_id = ?
                                and method = 'coalesce' group by status order by status""", (run, pid)).fetchall()
        name, median_ms, rel_err = best
        us = median_ms * 1000
        text = f"{m}x{n}x{k} {dtype}: {us:.2f} µs ({name})"
        if "cublas_gemm" in base:
            cublas = base["cublas_gemm"] * 1000
            text += f", {100 * cublas / us:.1f}% of `cublas_gemm`'s {cublas:.2f}"
        if "eager" in base:
            eager = base["eager"] * 1000
            text += f", {eager / us:.2f}× `eager`'s {eager:.2f}"
        text += f"; rel_err {rel_err:.2e}; " + ", ".join(f"{s} {count}" for s, count in statuses)
        parts.append(text)
    head = f"{run} | device {device} | `{(git or '')[:12]}` | {started[:16].replace('T', ' ')} | {rows} rows"
    return head + "".join(" | " + p for p in parts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="results/coalesce.db")
    parser.add_argument("first", type=int)
    parser.add_argument("last", type=int, nargs="?")
    args = parser.parse_args()
    last = args.last if args.last is not None else args.first
    if last < args.first:
        parser.error(f"LAST ({last}) is before FIRST ({args.first})")
    try:
        c = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
        out = []
        for run in range(args.first, last + 1):
            text = line(c, run)
            if text is None:
                print(f"run_rows.py: {args.db} holds no run {run}", file=sys.stderr)
                return 1
            out.append(text)
    except sqlite3.Error as e:
        print(f"run_rows.py: cannot read {args.db}: {e}", file=sys.stderr)
        return 1
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
