#!/usr/bin/env python3
"""A stand-in for scripts/torch_peers.py in `coalesce-tune sweep --peers --peers-script` tests
(sweep_peers_test.cpp): it appends its arguments, as one JSON line, to $FAKE_PEERS_LOG, then
records one SYNTHETIC row of the first --method through the --tune it was given (`coalesce-tune
record --db DB`), as the real script does, on the device the --db holds, with the sample counts
and spin it was given; so the test sees the command line the sweep built and the row the sweep
merged from the database it handed over. FAKE_PEERS_EXIT=N makes it exit N after recording."""
import json
import os
import sqlite3
import subprocess
import sys

argv = sys.argv[1:]
with open(os.environ["FAKE_PEERS_LOG"], "a") as log:
    log.write(json.dumps(argv) + "\n")


def option(name):
    return argv[argv.index(name) + 1]


db, tune = option("--db"), option("--tune")
con = sqlite3.connect(db)
con.row_factory = sqlite3.Row
d = con.execute("SELECT * FROM devices").fetchone()
con.close()
m, n, k = (int(x) for x in option("--shape").split("x"))
method = option("--method")
min_samples = int(option("--min-samples"))
harness = {"spin_cycles": int(option("--spin-cycles")), "min_samples": min_samples,
           "max_samples": int(option("--max-samples"))}
if "--sample-gap-ms" in argv:
    harness["sample_gap_ms"] = float(option("--sample-gap-ms"))
limits = {key: d[key] for key in ("smem_per_block_optin", "smem_per_sm", "max_threads_per_block",
                                  "max_threads_per_sm", "regs_per_sm", "max_regs_per_thread",
                                  "max_blocks_per_sm")}
device = {"uuid": d["uuid"], "name": d["name"], "cc_major": d["cc_major"], "cc_minor": d["cc_minor"],
          "sm_count": d["sm_count"], "l2_bytes": d["l2_bytes"], "global_mem_bytes": d["global_mem_bytes"],
          "limits": limits}
problem = {"m": m, "n": n, "k": k, "dtype": option("--dtype"), "epilogue": option("--epilogue")}
errors = {"rel_frobenius": 1e-7, "max_abs_err": 1e-6, "max_abs_ref": 1.0, "max_scaled_err": 1e-7,
          "non_finite": 0, "count": m * n}
lines = [
    {"kind": "run", "tool": "torch_peers.py", "tool_version": "fake", "git_revision": "fake",
     "command_line": " ".join(["fake_torch_peers.py", *argv]), "host": "fake",
     "resume_key": "fake " + " ".join(argv), "device": device, "harness": harness},
    {"kind": "measurement", "problem": problem, "method": method, "family": "torch",
     "config": f"fake_{method}_{option('--compile-mode').replace('-', '_')}", "source_hash": "fake",
     "samples_ms": [0.5] * min_samples, "errors": errors},
    {"kind": "end", "status": "completed"},
]
feed = "".join(json.dumps(line) + "\n" for line in lines)
done = subprocess.run([tune, "record", "--db", db], input=feed, capture_output=True, text=True)
if done.returncode != 0:
    sys.stderr.write(done.stderr)
    sys.exit(done.returncode)
sys.exit(int(os.environ.get("FAKE_PEERS_EXIT", "0")))
