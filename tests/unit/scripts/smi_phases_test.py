#!/usr/bin/env python3
"""scripts/smi_phases.py: over run EH's real nvidia-smi samples and databases
(results/logs/runEH/eh.tgz) it prints exactly the committed results/logs/runEH/phases.txt, which
docs/journal/2026-12-01.md quotes; a sample line nvidia-smi could not fill ("[N/A]") is skipped, not fatal;
bad usage exits with status 2 and the usage line, a missing file with 1."""
import subprocess
import sys
import tarfile
import tempfile
import unittest
from pathlib import Path

from archived import archived

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "scripts" / "smi_phases.py"
RUN = archived("results/logs/runEH")
TAGS = ["r1_plain", "r1_sk", "r2_sk", "r2_plain"]


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


class SmiPhases(unittest.TestCase):
    def test_run_eh_gives_its_committed_phases(self):
        with tempfile.TemporaryDirectory() as d, tarfile.open(RUN / "eh.tgz") as tar:
            tar.extractall(d)
            out = run(Path(d) / "eh", *TAGS)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout, (RUN / "phases.txt").read_text())

    def test_unreadable_samples_are_skipped(self):
        with tempfile.TemporaryDirectory() as d, tarfile.open(RUN / "eh.tgz") as tar:
            tar.extractall(d)
            smi = Path(d) / "eh" / "smi.csv"
            lines = smi.read_text().splitlines(keepends=True)
            # A field nvidia-smi could not read, inside the first sweep's samples.
            lines.insert(len(lines) // 8, "2026/12/01 10:56:55.000, [N/A], [N/A], 55, 0x0000000000000004\n")
            smi.write_text("".join(lines))
            out = run(Path(d) / "eh", TAGS[0])
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("coalesce", out.stdout)

    def test_bad_usage_and_missing_files(self):
        out = run(RUN)
        self.assertEqual(out.returncode, 2)
        self.assertIn("usage: scripts/smi_phases.py DIR TAG", out.stderr)
        out = run(RUN, "r1_plain")  # the directory holds the archive, not its files
        self.assertEqual(out.returncode, 1)
        self.assertIn("no such file", out.stderr)


if __name__ == "__main__":
    unittest.main()
