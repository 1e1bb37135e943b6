#!/usr/bin/env python3
"""scripts/ncu_hot.py: on a per-instruction page written here in ncu's layout (a kernel-name row,
the header, one row per instruction), it prints the total samples and the instructions with the
most samples first, each with its share, address, executions and SASS; and refuses bad usage
with status 2 and its usage line, and a page it cannot read with status 1; it sums a page of
several launches (after ncu's notes) and refuses one whose launches are different kernels. It also
reads run ED's real page (results/logs/runED/ed.tgz) and reproduces the first line its committed
summary quotes, run LL's twenty launches (results/logs/runLL/ll.tgz), its whole summary, and run
LN's two pages by opcode and by how far ahead their shared loads go (--ops, --lead;
results/logs/runLN/ln.tgz), theirs; --lead is checked on a page of known distances."""
import csv
import subprocess
import sys
import tarfile
import tempfile
import unittest
from pathlib import Path

from archived import archived

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "scripts" / "ncu_hot.py"
HEADER = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Warp Stall Sampling (Not-issued Samples)",
          "# Samples", "Instructions Executed"]


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


def run_on_archived(run_name, member, *args):
    """The script on one page of a committed run's tarball (results/logs/runX/x.tgz), with `args`
    before the page's path and after it as run() takes them: ([options], [N])."""
    archive = archived(f"results/logs/run{run_name.upper()}") / f"{run_name}.tgz"
    options = [a for a in args if str(a).startswith("--")]
    rest = [a for a in args if not str(a).startswith("--")]
    with tempfile.TemporaryDirectory() as d, tarfile.open(archive) as tar:
        tar.extract(f"{run_name}/ncu/{member}", d)
        return run(*options, Path(d) / run_name / "ncu" / member, *rest)


def write_page(path, launches, notes="", mode="w"):
    """A per-instruction page in ncu's layout: `notes` first, then for each launch (a list of
    instruction rows below HEADER) a kernel-name row, the header and the rows."""
    with open(path, mode, newline="") as f:
        f.write(notes)
        w = csv.writer(f)
        for rows in launches:
            w.writerow(["Kernel Name", "k"])
            w.writerow(HEADER)
            w.writerows(rows)


class NcuHot(unittest.TestCase):
    def test_orders_by_samples_with_shares(self):
        with tempfile.TemporaryDirectory() as d:
            page = Path(d) / "k.sass.csv"
            write_page(page, [[["0x10", "IADD3 R1, R2, R3, RZ", "10", "5", "10", "100"],
                               ["0x20", "HGMMA.64x256x16.F32.BF16 R24", "60", "30", "60", "400"],
                               ["0x30", "@P0 BRA 0x10", "30", "30", "30", "400"], ["0x40", "EXIT", "", "", "", "1"]]])
            out = run(page, 2)
            self.assertEqual(out.returncode, 0, out.stderr)
            lines = out.stdout.splitlines()
            self.assertEqual(lines[0], "total samples 100 instructions 4")
            self.assertEqual(len(lines), 3)
            self.assertRegex(lines[1], r"^\s*60\.0% +0x20 ex=\s*400 ")
            self.assertIn("HGMMA.64x256x16.F32.BF16", lines[1])
            self.assertRegex(lines[2], r"^\s*30\.0% +0x30 ex=\s*400 +@P0 BRA 0x10$")

    def test_sums_the_launches_of_a_page_after_ncus_notes(self):
        with tempfile.TemporaryDirectory() as d:
            page = Path(d) / "k.sass.csv"
            launch = lambda first, second: [["0x10", "LDC R1, c[0x0][0x28]", first, first, first, "768"],
                                            ["0x20", "@P0 BRA 0x10", second, second, second, "2048"]]
            write_page(page, [launch("10", "30"), launch("20", "40")],
                       notes="==PROF== Connected to process 1 (coalesce-tune)\nproblem 512x512x512 bf16\n")
            out = run(page)
            self.assertEqual(out.returncode, 0, out.stderr)
            lines = out.stdout.splitlines()
            self.assertEqual(lines[0], "total samples 100 instructions 2 launches 2")
            # ncu's repetition of a page (the same rows again right after it) counts once.
            repeated = Path(d) / "repeated.sass.csv"
            write_page(repeated, [launch("10", "30"), launch("10", "30"), launch("20", "40")])
            self.assertEqual(run(repeated).stdout, out.stdout)
            # --ops: each opcode's share, the predicate and modifiers dropped.
            out = run("--ops", page)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual(out.stdout, "total samples 100 instructions 2 launches 2\n 70.0% BRA\n 30.0% LDC\n")
            self.assertRegex(lines[1], r"^\s*70\.0% +0x20 ex=\s*2048 +@P0 BRA 0x10$")
            self.assertRegex(lines[2], r"^\s*30\.0% +0x10 ex=\s*768 ")
            # A page whose launches list different instructions is not one kernel's.
            write_page(page, [[["0x10", "EXIT", "1", "1", "1", "1"]]], mode="a")
            out = run(page)
            self.assertEqual(out.returncode, 1)
            self.assertIn("its launches list different instructions", out.stderr)

    def test_lead_measures_how_far_ahead_shared_loads_go(self):
        # The loop body (executed 64 times): an LDS.128 into R8..R11 first read 4 instructions
        # later (R10; UR9 is a uniform register, not R9), an LDS.64 into R20..R21 read 1 later, a
        # plain LDS into R30 never read; the LDS outside the loop is not counted.
        with tempfile.TemporaryDirectory() as d:
            page = Path(d) / "k.sass.csv"
            body = [("0x00", "LDS.128 R4, [R2]", "1"), ("0x10", "LDS.128 R8, [R2+0x10]", "64"),
                    ("0x20", "LDS.64 R20, [R3]", "64"), ("0x30", "FFMA R1, R20, R21, R1", "64"),
                    ("0x40", "FFMA R1, R1, UR9, R1", "64"), ("0x50", "FFMA R12, R10, R4, R12", "64"),
                    ("0x60", "LDS R30, [R3+0x4]", "64"), ("0x70", "EXIT", "1")]
            write_page(page, [[[addr, sass, "1", "1", "1", ex] for addr, sass, ex in body]])
            out = run("--lead", page)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.splitlines()[1],
                         "LDS in the main loop 2, instructions to first use: median 2.5, 25th percentile 1, minimum 1")

    def test_bad_usage_and_a_missing_page(self):
        for args in [(), ("a.csv", "ten"), ("a.csv", "1", "2"), ("--ops",)]:
            out = run(*args)
            self.assertEqual(out.returncode, 2, args)
            self.assertIn("usage: scripts/ncu_hot.py [--ops | --lead] KERNEL.sass.csv [N]", out.stderr)
        with tempfile.TemporaryDirectory() as d:
            out = run(Path(d) / "none.sass.csv")
        self.assertEqual(out.returncode, 1)
        self.assertIn("not a per-instruction page of ncu", out.stderr)

    def test_run_eds_page_gives_its_committed_summary(self):
        out = run_on_archived("ed", "wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu.sass.csv", 1)
        self.assertEqual(out.returncode, 0, out.stderr)
        summary = (archived("results/logs/runED") / "ncu-summary.txt").read_text()
        self.assertIn(out.stdout.splitlines()[1].strip(), summary)

    def test_run_lls_page_gives_its_committed_summary(self):
        # Twenty launches of bf16 512^3's fastest config (k_interleave 2), summed: the figures
        # docs/journal/2026-12-02.md quotes from results/logs/runLL/ncu-summary.txt.
        out = run_on_archived("ll", "wgmma_bf16_bm64_bn64_bk64_s8_wg2_cm1_cn1_p1_g8_ts1_ki2_bias_gelu-source.csv", 10)
        self.assertEqual(out.returncode, 0, out.stderr)
        summary = (archived("results/logs/runLL") / "ncu-summary.txt").read_text()
        self.assertEqual(out.stdout, summary)
        self.assertTrue(out.stdout.startswith("total samples 5243 instructions 1456 launches 20\n"))

    def test_run_lns_pages_give_their_committed_summaries(self):
        # cuBLAS's SIMT kernel (its page written twice per launch) and our f32 M = 128 split GEMM,
        # three launches each, by opcode and by how far ahead their shared loads go: the figures
        # docs/journal/2026-12-02.md quotes.
        for page, summary in [("cublas-source.csv", "ncu-ops-cublas.txt"),
                              ("simt_f32_bm128_bn256_bk16_wm128_wn32_tm16_tn8_s4_v4_g8_o1_sk8_bias_gelu-source.csv",
                               "ncu-ops-simt.txt")]:
            with self.subTest(page=page):
                out = run_on_archived("ln", page, "--ops", 8)
                lead = run_on_archived("ln", page, "--lead")
                self.assertEqual(out.returncode, 0, out.stderr)
                self.assertEqual(lead.returncode, 0, lead.stderr)
                committed = (archived("results/logs/runLN") / summary).read_text()
                self.assertEqual(out.stdout + lead.stdout.splitlines(keepends=True)[1], committed)
                self.assertIn(" launches 3\n", out.stdout.splitlines(keepends=True)[0])

if __name__ == "__main__":
    unittest.main()
