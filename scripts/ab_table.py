#!/usr/bin/env python3
"""The A/B table of a run that measured two builds in alternating rounds: every method and
config measured by both builds in both rounds (DIR/old-1.db, new-1.db, old-2.db, new-2.db, as
the run.sh of runs IA and IB write them), with its four medians in microseconds and the change
of the mean of the new build's two against the old build's two.

    scripts/ab_table.py DIR

Rows are ordered by dtype, M, shape, then kernel configs before the baselines. A method or config
missing from one of the four databases is listed at the end as incomplete. Exit status: 0, 1 a
database missing or unreadable, 2 bad usage.
"""
import sqlite3
import sys
from collections import defaultdict
from pathlib import Path

SIDES = [("old", 1), ("old", 2), ("new", 1), ("new", 2)]


def medians(db):
    """(dtype, shape, method or config) -> (median in microseconds, whether it is a kernel config),
    of the rows that measured ok."""
    sql = """select p.m, p.n, p.k, p.dtype, me.method, coalesce(cf.name, ''), me.median_ms
             from measurements me join problems p on p.id = me.problem_id
             left join configs cf on cf.id = me.config_id where me.status = 'ok'"""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        return {(dt, f"{m}x{n}x{k}", method if method != "coalesce" else name): (median * 1000, method == "coalesce")
                for m, n, k, dt, method, name, median in c.execute(sql)}


def order(key, configs):
    dtype, shape, what = key
    return (dtype, int(shape.split("x")[0]), shape, key not in configs, what)


def main(argv):
    if len(argv) != 2:
        print("usage: scripts/ab_table.py DIR (with old-1.db, new-1.db, old-2.db and new-2.db)", file=sys.stderr)
        return 2
    table = defaultdict(dict)
    configs = set()  # the keys that are kernel configs (method `coalesce`), listed before the baselines
    for side, r in SIDES:
        db = Path(argv[1]) / f"{side}-{r}.db"
        if not db.is_file():
            print(f"scripts/ab_table.py: {db}: no such file", file=sys.stderr)
            return 1
        try:
            for key, (us, is_config) in medians(db).items():
                table[key][(side, r)] = us
                if is_config:
                    configs.add(key)
        except sqlite3.Error as e:
            print(f"scripts/ab_table.py: {db}: {e}", file=sys.stderr)
            return 1
    print("# dtype shape method/config | old round 1, round 2 | new round 1, round 2 | mean new - mean old (us), %")
    incomplete = []
    for key in sorted(table, key=lambda k: order(k, configs)):
        v = table[key]
        if len(v) < len(SIDES):
            incomplete.append(key)
            continue
        old = (v[("old", 1)] + v[("old", 2)]) / 2
        new = (v[("new", 1)] + v[("new", 2)]) / 2
        print(f"{key[0]} {key[1]} {key[2]} | {v[('old', 1)]:.2f}, {v[('old', 2)]:.2f} | "
              f"{v[('new', 1)]:.2f}, {v[('new', 2)]:.2f} | {new - old:+.2f} {100 * (new - old) / old:+.1f}%")
    for key in incomplete:
        print(f"# incomplete: {' '.join(key)} ({', '.join(f'{s}-{r}' for s, r in SIDES if (s, r) in table[key])})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
