#!/usr/bin/env python3
"""scripts/ncu_summary.py: its summary of run D's raw pages (results/logs/runD/ncu/summary.txt),
and with --db a page stored as a profile through the real `coalesce-tune record-profile`: a good
page becomes one row with every metric, and a device, problem or config the database does not
hold is refused in one sentence with status 1 and nothing stored; bad usage is status 2.

ctest runs it with COALESCE_FIXTURE_DIR (fixture.db from tests/fixtures/make_fixture.cpp) and
COALESCE_TUNE set (tests/unit/scripts/CMakeLists.txt).
"""
import csv
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from archived import archived

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "scripts" / "ncu_summary.py"
PAGES = archived("results/logs/runD/ncu")
#: The summary names each page by its path from the repository's top, as run D ran the script.
PAGES_TOP = PAGES.parents[3]
#: The fixture's H200 (tests/fixtures/make_fixture.cpp), its 4096³ problem and its best config.
FIXTURE_UUID = "GPU-5e1f0c2a-0000-4000-8000-fixture00001"
FIXTURE_CONFIG = "simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu"


def env_path(name):
    value = os.environ.get(name)
    if not value:
        raise unittest.SkipTest(f"{name} is not set (run through ctest)")
    return Path(value)


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


def rows(db, sql):
    """Rows of the database, read through a read-only URI (no lease needed to read)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        return c.execute(sql).fetchall()


class Summary(unittest.TestCase):
    def test_the_committed_summary_is_what_the_pages_say(self):
        pages = sorted(PAGES.glob("*.raw.csv"))
        self.assertEqual(len(pages), 5)
        out = subprocess.run([sys.executable, str(SCRIPT), *[str(p.relative_to(PAGES_TOP)) for p in pages]],
                             capture_output=True, text=True, cwd=PAGES_TOP)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout, (PAGES / "summary.txt").read_text())

    def test_bad_usage_is_status_two(self):
        page = PAGES / "cublas_bf16.raw.csv"
        for args, expect in [
            ([], "required: RAW.csv"),
            (["--config", "x", page], "--config says where to store the page: it needs --db"),
            (["--db", "x.db", "--device", "GPU-x", "--shape", "4096", "--dtype", "bf16", "--method", "cublas_gemm",
              page, page], "--db stores one page; 2 were given"),
            (["--db", "x.db", page], "--db needs --device, --shape, --dtype, --method"),
        ]:
            out = run(*args)
            self.assertEqual(out.returncode, 2, args)
            self.assertIn(expect, out.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            empty = Path(tmp) / "empty.raw.csv"
            empty.write_text('"ID","Kernel Name"\n"",""\n')
            out = run(empty)
            self.assertEqual(out.returncode, 2)
            self.assertEqual(out.stderr, f"ncu_summary.py: {empty}: no kernel in this raw page "
                                         "(ncu -i REPORT --page raw --csv)\n")


class Store(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.db = self.dir / "fixture.db"
        shutil.copy(env_path("COALESCE_FIXTURE_DIR") / "fixture.db", self.db)
        self.tune = env_path("COALESCE_TUNE")

    def tearDown(self):
        self.tmp.cleanup()

    def store(self, page, method, *more, device=FIXTURE_UUID, shape="4096"):
        return run("--db", self.db, "--device", device, "--shape", shape, "--dtype", "f32", "--epilogue",
                   "bias_gelu", "--method", method, "--tune", self.tune, *more, page)

    def renamed_page(self, kernel):
        """Run D's mma page, its kernel named `kernel` (the fixture's configs are simt's)."""
        with open(PAGES / "mma_bf16.raw.csv", newline="") as f:
            names, units, values = list(csv.reader(f))
        values[names.index("Kernel Name")] = kernel
        page = self.dir / "renamed.raw.csv"
        with open(page, "w", newline="") as f:
            csv.writer(f, quoting=csv.QUOTE_ALL).writerows([names, units, values])
        return page

    def test_a_page_becomes_one_profile_with_every_metric(self):
        page = PAGES / "cublas_bf16.raw.csv"
        out = self.store(page, "cublas_gemm", "--profiled-at", "2026-11-30T13:11:09Z")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertTrue(out.stdout.startswith("== "), out.stdout)  # the summary first
        self.assertEqual(out.stdout.splitlines()[-1],
                         f"stored profile 1 in {self.db}: nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT "
                         f"(cublas_gemm) of 4096x4096x4096 f32 bias_gelu on {FIXTURE_UUID}")
        (row,) = rows(self.db, "SELECT method, config_id, kernel, tool, tool_version, profiled_at, duration_us, "
                               "sm_clock_mhz, tensor_pipe_active_pct, achieved_occupancy_pct, registers, "
                               "(SELECT count(*) FROM json_each(metrics_json)), "
                               "json_extract(metrics_json, '$.\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum\"'), "
                               "json_extract(units_json, '$.\"gpu__time_duration.sum\"') FROM profiles")
        self.assertEqual(row[:6], ("cublas_gemm", None, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", "ncu", "",
                                   "2026-11-30T13:11:09Z"))
        self.assertAlmostEqual(row[6], 176.0)
        self.assertAlmostEqual(row[7], 1600.603)
        self.assertAlmostEqual(row[8], 94.993824)
        self.assertAlmostEqual(row[9], 14.636454)
        self.assertEqual(row[10], 168)
        with open(page, newline="") as f:
            names, _, values = list(csv.reader(f))
        record = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
                  "Block Size", "Grid Size", "Device", "CC"}
        self.assertEqual(row[11], sum(1 for n, v in zip(names, values) if v and n not in record))
        self.assertEqual(row[12], 128801)  # "128,801" on the page
        self.assertEqual(row[13], "us")
        # The same page again is stored already; the database is unchanged.
        again = self.store(page, "cublas_gemm", "--profiled-at", "2026-11-30T13:11:09Z")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn("already stored: profile 1", again.stdout)
        self.assertEqual(rows(self.db, "SELECT count(*) FROM profiles"), [(1,)])

    def test_a_tuned_kernel_is_stored_with_its_config(self):
        out = self.store(self.renamed_page(FIXTURE_CONFIG), "coalesce", "--config", FIXTURE_CONFIG)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(rows(self.db, "SELECT c.name, p.registers FROM profiles p JOIN configs c ON c.id = p.config_id"),
                         [(FIXTURE_CONFIG, 234)])

    def test_what_the_database_does_not_hold_is_refused(self):
        page = PAGES / "cublas_bf16.raw.csv"
        unknown = "GPU-00000000-0000-0000-0000-000000000000"
        for out, message in [
            (self.store(page, "cublas_gemm", device=unknown),
             f"no device {unknown} in {self.db}: a profile belongs to a GPU the database holds"),
            (self.store(page, "cublas_gemm", shape="4096x4096x1024"),
             f"no problem 4096x4096x1024 f32 bias_gelu in {self.db}: a profile goes beside the rows it explains"),
            (self.store(self.renamed_page("triton_kernel"), "triton", "--config", "triton_f32_nope_bias_gelu"),
             f"no config triton_f32_nope_bias_gelu in {self.db}"),
        ]:
            self.assertEqual(out.returncode, 1, out.stderr)
            self.assertEqual(out.stderr, f"coalesce-tune: {message}\n")
        self.assertEqual(rows(self.db, "SELECT count(*) FROM profiles"), [(0,)])

    def test_a_page_of_another_kernel_is_bad_usage(self):
        out = self.store(PAGES / "cublas_bf16.raw.csv", "coalesce", "--config", FIXTURE_CONFIG)
        self.assertEqual(out.returncode, 2)
        self.assertEqual(out.stderr, "coalesce-tune: the page's kernel is nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT, "
                                     f"not the config's kernel {FIXTURE_CONFIG} (a coalesce kernel is named after its "
                                     "config)\n")
        self.assertEqual(rows(self.db, "SELECT count(*) FROM profiles"), [(0,)])


if __name__ == "__main__":
    unittest.main()
