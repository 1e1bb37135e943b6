#!/usr/bin/env python3
"""scripts/run_rows.py over the lab database as tests/unit/scripts/archived.py extracts it: for the runs of the last merged GPU
runs (LT-LV, runs 355-375) each line's facts are results/README.md's row of that run (device,
rows, git revision, start), and the figures it prints for the run's problem (the best median,
its ratio to cuBLAS GEMM and to eager, and theirs) are the ones the row quotes; a run the
database lacks exits 1, bad usage 2."""
import re
import subprocess
import sys
import unittest
from pathlib import Path

from archived import archived

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "scripts" / "run_rows.py"
DB = archived("results/coalesce.db")
README = archived("results/README.md")
RUNS = range(355, 376)


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), "--db", str(DB), *map(str, args)], capture_output=True,
                          text=True)


def readme_rows():
    """run id -> the cells of its row in results/README.md's table of runs."""
    rows = {}
    for line in README.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0].isdigit():
            rows[int(cells[0])] = cells
    return rows


class RunRows(unittest.TestCase):
    def test_each_line_holds_its_readme_rows_facts_and_figures(self):
        out = run(RUNS.start, RUNS.stop - 1)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        self.assertEqual(len(lines), len(RUNS))
        rows = readme_rows()
        for line in lines:
            cells = [c.strip() for c in line.split(" | ")]
            run_id = int(cells[0])
            with self.subTest(run=run_id):
                row = rows[run_id]
                self.assertEqual(cells[1], f"device {row[1]}")
                self.assertEqual(cells[2], row[5])
                self.assertEqual(cells[3], row[6])
                self.assertEqual(cells[4], f"{row[4]} rows")
                self.assertEqual(len(cells), 6, "one problem a run")
                figures = re.fullmatch(r".*: ([0-9.]+) µs \(.*\), ([0-9.]+)% of `cublas_gemm`'s ([0-9.]+), "
                                       r"([0-9.]+)× `eager`'s ([0-9.]+); rel_err .*", cells[5])
                self.assertIsNotNone(figures, cells[5])
                for figure in figures.groups():  # as a whole number of the row, not a piece of one
                    self.assertRegex(row[3], r"(?<![0-9.])" + re.escape(figure) + r"(?![0-9])")

    def test_a_run_the_database_lacks_and_bad_usage(self):
        self.assertEqual(run(10 ** 6).returncode, 1)
        self.assertEqual(run(5, 3).returncode, 2)
        self.assertEqual(run("x").returncode, 2)


if __name__ == "__main__":
    unittest.main()
