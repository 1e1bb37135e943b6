#!/usr/bin/env python3
"""scripts/plot_report.py refuses in one line, without a traceback and with status 1: an
interpreter without matplotlib (simulated: the module made unimportable), a folder that does not
exist, and a folder holding none of the CSV files coalesce-report writes (issue 45)."""
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "plot_report.py"


def run(directory, without_matplotlib=False):
    """The script on `directory`; with `without_matplotlib`, as an interpreter that lacks it."""
    hide = "sys.modules['matplotlib'] = None; " if without_matplotlib else ""
    code = (f"import runpy, sys; {hide}sys.argv = ['plot_report.py', {str(directory)!r}]; "
            f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


class PlotReportRefusals(unittest.TestCase):
    def assert_one_line(self, result, status, start):
        self.assertEqual(result.returncode, status, result.stderr)
        self.assertNotIn("Traceback", result.stderr)
        self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
        self.assertTrue(result.stderr.startswith(start), result.stderr)
        self.assertEqual(result.stdout, "")

    def test_without_matplotlib(self):
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "by_model_shapes.csv").write_text("device,m\n")
            self.assert_one_line(run(d, without_matplotlib=True), 1, "plot_report.py: matplotlib is not installed for ")

    def test_a_missing_folder(self):
        with tempfile.TemporaryDirectory() as d:
            missing = Path(d) / "nosuch"
            result = run(missing)
            self.assert_one_line(result, 1, f"plot_report.py: {missing} is not a directory")

    def test_a_folder_without_plot_data(self):
        with tempfile.TemporaryDirectory() as d:
            result = run(d)
            self.assert_one_line(result, 1, f"plot_report.py: {d} holds none of by_model_shapes.csv")
            self.assertEqual(list(Path(d).iterdir()), [])


if __name__ == "__main__":
    unittest.main()
