#!/usr/bin/env python3
"""scripts/ab_table.py: over the four databases of runs IA, IB, JF, KE, KH, LG, LI, LJ, LK, LO, LY, LZ and MA (results/logs/runIA/ia.tgz,
runIB/ib.tgz, runJF/jf.tgz, runKE/ke.tgz, runKH/kh.tgz, runLG/lg.tgz, runLI/li.tgz, runLJ/lj.tgz, runLK/lk.tgz, runLO/lo.tgz, runLY/ly.tgz, runLZ/lz.tgz, runMA/ma.tgz) it prints exactly the committed ab-table.txt of each run below its first line (the
run's description), which docs/journal/ quotes; a config one database lacks is listed as
incomplete rather than compared; bad usage exits with status 2, a missing database with 1."""
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import unittest
from pathlib import Path

from archived import archived

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "scripts" / "ab_table.py"
RUNS = {name: archived(f"results/logs/run{name.upper()}")
        for name in ("ia", "ib", "jf", "ke", "kh", "lg", "li", "lj", "lk", "lo", "ly", "lz", "ma")}


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


def extracted(d, name):
    with tarfile.open(RUNS[name] / f"{name}.tgz") as tar:
        tar.extractall(d, members=[m for m in tar.getmembers() if m.name.endswith(".db")])
    return Path(d) / name


class AbTable(unittest.TestCase):
    def test_each_run_gives_its_committed_table(self):
        for name, logs in RUNS.items():
            with self.subTest(run=name), tempfile.TemporaryDirectory() as d:
                out = run(extracted(d, name))
                self.assertEqual(out.returncode, 0, out.stderr)
                committed = (logs / "ab-table.txt").read_text().splitlines(keepends=True)[1:]
                self.assertEqual(out.stdout, "".join(committed))

    def test_a_config_one_database_lacks_is_incomplete(self):
        with tempfile.TemporaryDirectory() as d:
            src = extracted(d, "ia")
            name = "gemv_f32_mr1_w8_v16_l8_u8_sk4_bias_gelu"  # measured by both builds in both rounds
            with sqlite3.connect(src / "new-2.db") as c:
                deleted = c.execute("delete from measurements where config_id = (select id from configs where name = ?)",
                                    (name,)).rowcount
            self.assertGreater(deleted, 0)
            out = run(src)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertNotIn(f"f32 1x4096x4096 {name} |", out.stdout)
        self.assertIn(f"# incomplete: f32 1x4096x4096 {name} (old-1, old-2, new-1)", out.stdout)

    def test_bad_usage_and_a_missing_database(self):
        out = run()
        self.assertEqual(out.returncode, 2)
        self.assertIn("usage: scripts/ab_table.py DIR", out.stderr)
        with tempfile.TemporaryDirectory() as d:
            src = extracted(d, "ib")
            (src / "old-2.db").unlink()
            out = run(src)
        self.assertEqual(out.returncode, 1)
        self.assertIn("old-2.db: no such file", out.stderr)


if __name__ == "__main__":
    unittest.main()
