#!/usr/bin/env python3
"""The table of issue 40's residual bar from a scripts/residual-run.sh database.

Per problem, config (its name without the epilogue) and protocol: the median of the config with
the `bias` epilogue, with `bias_gelu` and with `bias_gelu_residual`, all from the one run's
sitting, and the residual kernel's median over the bias-only one's (the bar: at most 1.02).
Only rows of the `coalesce` method measured ok count; each protocol (the first pass's
flush_spin, the steady state's steady_spin) is a row of its own, against its own bias row.

Usage: scripts/residual_bar.py RUN_DB
"""
import sqlite3
import sys

QUERY = """
SELECT m, n, k, dtype, epilogue, config_name, protocol, median_ms FROM v_measurements
WHERE method = 'coalesce' AND status = 'ok'
"""
EPILOGUES = ("bias", "bias_gelu", "bias_gelu_residual")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    table = {}
    with sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True) as c:
        for m, n, k, dtype, epilogue, name, protocol, median in c.execute(QUERY):
            if epilogue not in EPILOGUES or not name.endswith("_" + epilogue):
                continue
            tile = name[: -len(epilogue) - 1]
            key = (f"{m}x{n}x{k}", dtype, tile, protocol)
            # The fastest row where a config was timed twice in one protocol.
            old = table.setdefault(key, {}).get(epilogue)
            table[key][epilogue] = median if old is None else min(old, median)
    print("| problem | dtype | config | protocol | bias ms | bias_gelu ms | bias_gelu_residual ms | residual / bias |")
    print("|---|---|---|---|---:|---:|---:|---:|")
    worst = None
    for key in sorted(table):
        row = table[key]
        cells = [f"{row[e]:.4f}" if e in row else "—" for e in EPILOGUES]
        ratio = row["bias_gelu_residual"] / row["bias"] if "bias" in row and "bias_gelu_residual" in row else None
        if ratio is not None:
            worst = ratio if worst is None else max(worst, ratio)
        print("| " + " | ".join(list(key) + cells + [f"{ratio:.3f}" if ratio else "—"]) + " |")
    print()
    print(f"worst residual / bias: {worst:.3f} (bar: 1.02)" if worst else "no config timed with both epilogues")
    return 0 if worst else 1


if __name__ == "__main__":
    sys.exit(main())
