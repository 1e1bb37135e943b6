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

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "scripts" / "ncu_hot.py"
HEADER = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Warp Stall Sampling (Not-issued Samples)",
          "# Samples", "Instructions Executed"]


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


class NcuHot(unittest.TestCase):
    def test_orders_by_samples_with_shares(self):
        with tempfile.TemporaryDirectory() as d:
            page = Path(d) / "k.sass.csv"
            with open(page, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["Kernel Name", "k"])
                w.writerow(HEADER)
                w.writerow(["0x10", "IADD3 R1, R2, R3, RZ", "10", "5", "10", "100"])
                w.writerow(["0x20", "HGMMA.64x256x16.F32.BF16 R24", "60", "30", "60", "400"])
                w.writerow(["0x30", "@P0 BRA 0x10", "30", "30", "30", "400"])
                w.writerow(["0x40", "EXIT", "", "", "", "1"])
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
            with open(page, "w", newline="") as f:
                f.write("==PROF== Connected to process 1 (coalesce-tune)\nproblem 512x512x512 bf16\n")
                w = csv.writer(f)
                for first, second in [("10", "30"), ("20", "40")]:
                    w.writerow(["Kernel Name", "k"])
                    w.writerow(HEADER)
                    w.writerow(["0x10", "LDC R1, c[0x0][0x28]", first, first, first, "768"])
                    w.writerow(["0x20", "@P0 BRA 0x10", second, second, second, "2048"])
            out = run(page)
            self.assertEqual(out.returncode, 0, out.stderr)
            lines = out.stdout.splitlines()
            self.assertEqual(lines[0], "total samples 100 instructions 2 launches 2")
            # ncu's repetition of a page (the same rows again right after it) counts once.
            repeated = Path(d) / "repeated.sass.csv"
            with open(repeated, "w", newline="") as f:
                w = csv.writer(f)
                for first, second in [("10", "30"), ("10", "30"), ("20", "40")]:
                    w.writerow(["Kernel Name", "k"])
                    w.writerow(HEADER)
                    w.writerow(["0x10", "LDC R1, c[0x0][0x28]", first, first, first, "768"])
                    w.writerow(["0x20", "@P0 BRA 0x10", second, second, second, "2048"])
            self.assertEqual(run(repeated).stdout, out.stdout)
            # --ops: each opcode's share, the predicate and modifiers dropped.
            out = run("--ops", page)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual(out.stdout, "total samples 100 instructions 2 launches 2\n 70.0% BRA\n 30.0% LDC\n")
            self.assertRegex(lines[1], r"^\s*70\.0% +0x20 ex=\s*2048 +@P0 BRA 0x10$")
            self.assertRegex(lines[2], r"^\s*30\.0% +0x10 ex=\s*768 ")
            # A page whose launches list different instructions is not one kernel's.
            with open(page, "a", newline="") as f:
                w = csv.writer(f)
                w.writerow(["Kernel Name", "other"])
                w.writerow(HEADER)
                w.writerow(["0x10", "EXIT", "1", "1", "1", "1"])
            out = run(page)
            self.assertEqual(out.returncode, 1)
            self.assertIn("its launches list different instructions", out.stderr)

    def test_lead_measures_how_far_ahead_shared_loads_go(self):
        # The loop body (executed 64 times): an LDS.128 into R8..R11 first read 4 instructions
        # later (R10; UR9 is a uniform register, not R9), an LDS.64 into R20..R21 read 1 later, a
        # plain LDS into R30 never read; the LDS outside the loop is not counted.
        with tempfile.TemporaryDirectory() as d:
            page = Path(d) / "k.sass.csv"
            with open(page, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["Kernel Name", "k"])
                w.writerow(HEADER)
                for addr, sass, ex in [("0x00", "LDS.128 R4, [R2]", "1"), ("0x10", "LDS.128 R8, [R2+0x10]", "64"),
                                       ("0x20", "LDS.64 R20, [R3]", "64"), ("0x30", "FFMA R1, R20, R21, R1", "64"),
                                       ("0x40", "FFMA R1, R1, UR9, R1", "64"), ("0x50", "FFMA R12, R10, R4, R12", "64"),
                                       ("0x60", "LDS R30, [R3+0x4]", "64"), ("0x70", "EXIT", "1")]:
                    w.writerow([addr, sass, "1", "1", "1", ex])
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
        archive = REPO / "results" / "logs" / "runED" / "ed.tgz"
        name = "wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu"
        with tempfile.TemporaryDirectory() as d, tarfile.open(archive) as tar:
            tar.extract(f"ed/ncu/{name}.sass.csv", d)
            out = run(Path(d) / "ed" / "ncu" / f"{name}.sass.csv", 1)
        self.assertEqual(out.returncode, 0, out.stderr)
        summary = (REPO / "results" / "logs" / "runED" / "ncu-summary.txt").read_text()
        self.assertIn(out.stdout.splitlines()[1].strip(), summary)

    def test_run_lls_page_gives_its_committed_summary(self):
        # Twenty launches of bf16 512^3's fastest config (k_interleave 2), summed: the figures
        # docs/results.md quotes from results/logs/runLL/ncu-summary.txt.
        archive = REPO / "results" / "logs" / "runLL" / "ll.tgz"
        name = "wgmma_bf16_bm64_bn64_bk64_s8_wg2_cm1_cn1_p1_g8_ts1_ki2_bias_gelu"
        with tempfile.TemporaryDirectory() as d, tarfile.open(archive) as tar:
            tar.extract(f"ll/ncu/{name}-source.csv", d)
            out = run(Path(d) / "ll" / "ncu" / f"{name}-source.csv", 10)
        self.assertEqual(out.returncode, 0, out.stderr)
        summary = (REPO / "results" / "logs" / "runLL" / "ncu-summary.txt").read_text()
        self.assertEqual(out.stdout, summary)
        self.assertTrue(out.stdout.startswith("total samples 5243 instructions 1456 launches 20\n"))

    def test_run_lns_pages_give_their_committed_summaries(self):
        # cuBLAS's SIMT kernel (its page written twice per launch) and our f32 M = 128 split GEMM,
        # three launches each, by opcode: the shares docs/results.md quotes.
        archive = REPO / "results" / "logs" / "runLN" / "ln.tgz"
        for page, summary in [("cublas-source.csv", "ncu-ops-cublas.txt"),
                              ("simt_f32_bm128_bn256_bk16_wm128_wn32_tm16_tn8_s4_v4_g8_o1_sk8_bias_gelu-source.csv",
                               "ncu-ops-simt.txt")]:
            with self.subTest(page=page), tempfile.TemporaryDirectory() as d, tarfile.open(archive) as tar:
                tar.extract(f"ln/ncu/{page}", d)
                out = run("--ops", Path(d) / "ln" / "ncu" / page, 8)
                lead = run("--lead", Path(d) / "ln" / "ncu" / page)
                self.assertEqual(out.returncode, 0, out.stderr)
                self.assertEqual(lead.returncode, 0, lead.stderr)
                committed = (REPO / "results" / "logs" / "runLN" / summary).read_text()
                self.assertEqual(out.stdout + lead.stdout.splitlines(keepends=True)[1], committed)
                self.assertIn(" launches 3\n", out.stdout.splitlines(keepends=True)[0])


if __name__ == "__main__":
    unittest.main()
