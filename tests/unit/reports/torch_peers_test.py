#!/usr/bin/env python3
"""scripts/torch_peers.py where there is no torch and no GPU: its options and names, its
refusals (bad input, no torch, no GPU: one line, the exit code, the database unchanged), and its
feed: the script's own run, probe and measurement lines, from a fake measurement source, through
the real `coalesce-tune record`, read back with `coalesce-report query` and the report.

ctest runs it with COALESCE_FIXTURE_DIR (fixture.db from tests/fixtures/make_fixture.cpp),
COALESCE_TUNE and COALESCE_REPORT set (tests/unit/reports/CMakeLists.txt).
"""
import contextlib
import csv
import hashlib
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "scripts" / "torch_peers.py"
#: The fixture's device (tests/fixtures/make_fixture.cpp), whose rows the peers join.
FIXTURE_UUID = "GPU-5e1f0c2a-0000-4000-8000-fixture00001"


def load_script():
    spec = importlib.util.spec_from_file_location("torch_peers", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


peers = load_script()


def env_path(name: str) -> Path:
    value = os.environ.get(name)
    if not value:
        raise unittest.SkipTest(f"{name} is not set (run through ctest)")
    return Path(value)


def checksum(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def listing(directory: Path) -> list[str]:
    return sorted(os.listdir(directory))


def query(db: Path, sql: str) -> list[dict]:
    """Rows of `coalesce-report query --format csv`, as dicts of text."""
    out = subprocess.run([str(env_path("COALESCE_REPORT")), "query", "--db", str(db), "--format",
                          "csv", sql], capture_output=True, text=True, check=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


class FakeBackend:
    """A measurement source without torch or a GPU, with TorchBackend's three methods: every
    config is right and times 0.50, 0.51, 0.49 ms in turn (fed until the recorder's rule stops
    it), except those named in `outcomes`: "compile_failed", "wrong" (TF32-sized errors) or
    "interrupt" (Ctrl-C while measuring)."""

    TIMES = (0.50, 0.51, 0.49)

    def __init__(self, uuid: str = FIXTURE_UUID, outcomes: dict = None):
        self.uuid = uuid
        self.outcomes = outcomes or {}
        self.measured = []

    def environment(self) -> dict:
        return {
            "device": {"uuid": self.uuid, "name": "NVIDIA H200", "cc_major": 9, "cc_minor": 0,
                       "sm_count": 132, "l2_bytes": 62914560, "global_mem_bytes": 150754820096,
                       "max_sm_clock_mhz": 1980,
                       "limits": {"smem_per_block_optin": 232448, "smem_per_sm": 233472,
                                  "max_threads_per_block": 1024, "max_threads_per_sm": 2048,
                                  "regs_per_sm": 65536, "max_regs_per_thread": 255,
                                  "max_blocks_per_sm": 32}},
            "driver_version": 13000,
            "driver_release": "580.95.05",
            "runtime_version": 13000,
            "versions": {"torch": "0.0-fake", "cuda": "13.0", "triton": "0.0-fake"},
        }

    def skip_reason(self, method):
        return None

    def measure(self, planned, seed, harness, sample) -> dict:
        self.measured.append(planned.config)
        outcome = self.outcomes.get(planned.config, "ok")
        if outcome == "interrupt":
            raise KeyboardInterrupt
        if outcome == "compile_failed":
            return {"status": "compile_failed", "message": "BackendCompilerFailed: fake"}
        i = 0
        while not sample(self.TIMES[i % len(self.TIMES)]):
            i += 1
        count = planned.problem.m * planned.problem.n
        right = {"rel_frobenius": 2.5e-7, "max_abs_err": 4e-5, "max_abs_ref": 9.0, "max_scaled_err": 1e-7,
                 "non_finite": 0, "count": count}
        first = dict(right, rel_frobenius=3e-4) if outcome == "wrong" else right
        return {"errors": first, "errors_after": right, "message": "fake",
                "sm_clock_before_mhz": 1980, "sm_clock_after_mhz": 1965}


class PureParts(unittest.TestCase):
    def test_no_torch_imported(self):
        # The script imports triton at module level (its kernel must be a module global); the
        # script itself imports torch only when it measures.
        if peers.triton is not None:
            self.skipTest("triton is installed here and may import torch itself")
        self.assertNotIn("torch", sys.modules)

    def test_epilogues_are_the_registrys_rows_in_order(self):
        # kernels/core/epilogues.hpp's rows, in order, less those whose peers need a residual
        # operand; the gated ones (EpilogueReads' third field) are GATED.
        text = (REPO / "kernels" / "core" / "epilogues.hpp").read_text()
        rows = re.findall(r'\{Epilogue::(\w+), "(\w+)", \{(true|false), (true|false), (true|false)\}', text)
        self.assertGreater(len(rows), 4)
        for enum_name, name, *_ in rows:
            self.assertEqual(enum_name, name)
        self.assertEqual(peers.EPILOGUES, tuple(name for _, name, _, residual, _ in rows if residual == "false"))
        self.assertEqual(set(peers.GATED), {name for _, name, _, _, gated in rows if gated == "true"})
        for name in peers.EPILOGUES:
            peers.parse_args(["--epilogue", name, "--shape", "64"])

    def test_gated_epilogues_run_torch_only_and_need_an_even_n(self):
        args = peers.parse_args(["--epilogue", "swiglu", "--shape", "64x128x32"])
        self.assertEqual(args.methods, ["torch_eager", "torch_compile"])
        with self.assertRaisesRegex(peers.UsageError, "no gated epilogue"):
            peers.parse_args(["--epilogue", "geglu", "--shape", "64", "--method", "triton"])
        with self.assertRaisesRegex(peers.UsageError, "must be even"):
            peers.parse_args(["--epilogue", "swiglu", "--shape", "64x127x32"])

    def test_parse_shape(self):
        self.assertEqual(peers.parse_shape("4096"), (4096, 4096, 4096))
        self.assertEqual(peers.parse_shape("128x256x64"), (128, 256, 64))
        self.assertEqual(peers.parse_shape("128×256×64"), (128, 256, 64))
        self.assertEqual(peers.parse_shape("1048576x1x1"), (1048576, 1, 1))
        self.assertIsNone(peers.parse_shape("1048577"))
        for bad in ("", "0", "-5", "12x", "1x2", "1x2x3x4", "4096 ", "x", "1e3", "0x4x4"):
            self.assertIsNone(peers.parse_shape(bad), bad)

    def test_options_and_the_plan(self):
        args = peers.parse_args(["--shape", "4096", "--shape", "4096", "--shape", "100x72x40",
                                 "--method", "triton", "--quick"])
        self.assertEqual(args.shapes, [(4096, 4096, 4096), (100, 72, 40)])
        self.assertEqual(args.methods, ["triton"])
        self.assertEqual(len(args.triton_configs), peers.QUICK_TRITON_CONFIGS)
        self.assertEqual([p.config for p in peers.plan(args)][:2],
                         ["triton_f32_bm128_bn128_bk32_w8_s3_bias_gelu",
                          "triton_f32_bm128_bn64_bk32_w4_s3_bias_gelu"])
        default = peers.parse_args([])
        self.assertEqual(default.shapes, list(peers.DEFAULT_SHAPES))
        self.assertEqual(default.methods, list(peers.METHODS))
        names = [p.config for p in peers.plan(default) if p.problem.m == 1024]
        self.assertEqual(names[:2], ["torch_eager_f32_bias_gelu",
                                     "torch_compile_default_f32_bias_gelu"])
        self.assertEqual(len(names), 2 + len(peers.TRITON_CONFIGS))
        self.assertEqual(peers.cuda_version_number("12.8"), 12080)
        self.assertEqual(peers.cuda_version_number(None), 0)
        self.assertEqual(peers.device_uuid(bytes(range(16))),
                         "GPU-00010203-0405-0607-0809-0a0b0c0d0e0f")


    def test_every_dtype_coalesce_computes_has_its_peers(self):
        # The peers run every dtype the tools take; tl.dot's precision is recorded for f32
        # operands (FMA units for f32, tensor cores for tf32) and the tensor-core dtypes try
        # tensor-core tiles.
        self.assertEqual(sorted(peers.DTYPES), ["bf16", "f16", "f32", "tf32"])
        for dtype, precision in (("f32", "ieee"), ("tf32", "tf32"), ("bf16", None), ("f16", None)):
            args = peers.parse_args(["--dtype", dtype, "--shape", "4096"])
            planned = peers.plan(args)
            self.assertEqual([p.config for p in planned][:2],
                             [f"torch_eager_{dtype}_bias_gelu", f"torch_compile_default_{dtype}_bias_gelu"])
            self.assertEqual(planned[0].params["tf32"], dtype == "tf32")
            triton = [p for p in planned if p.method == "triton"]
            self.assertEqual(len(triton), len(peers.triton_configs(dtype)))
            self.assertTrue(all(p.config.startswith(f"triton_{dtype}_") for p in triton))
            self.assertEqual(triton[0].params.get("input_precision"), precision)
            for p in triton:  # the ring of stages fits the H200's 227 KiB of shared memory
                cfg = p.triton
                size = 4 if dtype in ("f32", "tf32") else 2
                self.assertLessEqual(cfg.stages * (cfg.bm + cfg.bn) * cfg.bk * size, 227 * 1024, p.config)
        self.assertEqual(peers.triton_configs("bf16")[0].bk, 64)


class Refusals(unittest.TestCase):
    """The command line before anything is measured: one line on stderr, nothing on stdout, the
    exit code, and the database and its directory as they were."""

    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="torch_peers_test."))
        self.fake = self.dir / "fake"  # stand-in torch packages go here
        self.work = self.dir / "work"
        self.work.mkdir()
        self.db = self.work / "coalesce.db"
        shutil.copy(env_path("COALESCE_FIXTURE_DIR") / "fixture.db", self.db)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def fake_torch(self, body: str):
        package = self.fake / "torch"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(textwrap.dedent(body))

    def refused(self, expect: str, code: int, db: Path, *args):
        before = checksum(db) if db.exists() else None
        files = listing(self.work)
        env = dict(os.environ, PYTHONPATH=str(self.fake))
        r = subprocess.run([sys.executable, str(SCRIPT), "--db", str(db), *args],
                           capture_output=True, text=True, env=env, cwd=self.work, timeout=120)
        self.assertEqual(r.returncode, code, r.stderr)
        self.assertEqual(r.stdout, "")
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn(expect, lines[0])
        self.assertTrue(lines[0].startswith("torch_peers.py: "), lines[0])
        self.assertEqual(checksum(db) if db.exists() else None, before)
        self.assertEqual(listing(self.work), files)

    def test_bad_input(self):
        tune = str(env_path("COALESCE_TUNE"))
        self.refused("bad --shape '12x'", 2, self.db, "--shape", "12x")
        self.refused("bad --shape '0'", 2, self.db, "--shape", "0")
        self.refused("invalid choice: 'gelu'", 2, self.db, "--epilogue", "gelu")
        self.refused("invalid choice: 'cublas'", 2, self.db, "--method", "cublas")
        self.refused("invalid choice: 'f64'", 2, self.db, "--dtype", "f64")
        self.refused("bad --device -1", 2, self.db, "--device", "-1")
        self.refused("unrecognized arguments", 2, self.db, "--no-such-flag")
        self.refused("bad --steady-samples 999: the steady state is 1000 samples or more", 2,
                     self.db, "--steady-samples", "999")
        self.refused("bad --spin-cycles -1: a spin is 0 cycles or more", 2, self.db,
                     "--spin-cycles", "-1")
        self.refused("--steady-samples sets both sample counts", 2, self.db,
                     "--steady-samples", "1000", "--min-samples", "1000")
        self.refused("bad sample counts: at most 10 is below at least 50", 2, self.db,
                     "--min-samples", "50", "--max-samples", "10")
        self.refused("bad sample counts: at most 1000 is below at least 3000", 2, self.db,
                     "--min-samples", "3000")
        self.refused("bad --min-samples 0: a sample count is 1 or more", 2, self.db,
                     "--min-samples", "0")
        self.refused("bad --sample-gap-ms -1: from 0 to 1000 ms", 2, self.db,
                     "--sample-gap-ms", "-1")
        self.refused("--tune /nonexistent is not an executable", 2, self.db, "--tune",
                     "/nonexistent")
        self.fake_torch("raise ImportError(\"No module named 'torch'\")\n")
        self.refused("PyTorch is not installed", 3, self.db, "--tune", tune)
        missing = self.work / "new.db"
        self.refused("PyTorch is not installed", 3, missing, "--tune", tune)
        self.assertFalse(missing.exists())

    def test_no_gpu(self):
        self.fake_torch("""
            class cuda:
                @staticmethod
                def is_available():
                    return False
                @staticmethod
                def device_count():
                    return 0
            __version__ = "0.0-fake"
            """)
        self.refused("no CUDA device", 3, self.db, "--tune", str(env_path("COALESCE_TUNE")))


class Feed(unittest.TestCase):
    """The script's feed through the real `coalesce-tune record`: what it stores, what it skips
    on a second invocation, how an interrupted one resumes, and what the recorder refuses."""

    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="torch_peers_feed."))
        self.db = self.dir / "coalesce.db"
        shutil.copy(env_path("COALESCE_FIXTURE_DIR") / "fixture.db", self.db)
        self.tune = str(env_path("COALESCE_TUNE"))

    def tearDown(self):
        shutil.rmtree(self.dir)

    def invoke(self, backend: FakeBackend, *argv: str) -> tuple[int, str]:
        """One invocation of the script's run with `backend` in place of the GPU."""
        args = peers.parse_args(["--db", str(self.db), *argv])
        recorder = peers.Recorder(self.tune, str(self.db))
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                code = peers.Peers(args, backend, recorder).run_all()
        finally:
            recorder.close()
        return code, out.getvalue()

    def test_rows_as_the_recorder_stores_them(self):
        args = ["--shape", "64", "--quick"]
        wrong = "triton_f32_bm128_bn64_bk32_w4_s3_bias_gelu"
        compile_failed = "torch_compile_default_f32_bias_gelu"
        code, out = self.invoke(FakeBackend(outcomes={wrong: "wrong",
                                                      compile_failed: "compile_failed"}), *args)
        self.assertEqual(code, 0, out)
        self.assertIn("stored 4 rows in run 3", out)
        rows = {r["config_name"]: r for r in query(self.db, """
            SELECT config_name, family, method, status, median_ms, min_ms, max_ms, samples,
                   rel_err, message, sm_clock_before_mhz, run_id, device_id
            FROM v_measurements WHERE run_id = 3""")}
        self.assertEqual(len(rows), 4)
        eager = rows["torch_eager_f32_bias_gelu"]
        # 20 samples (the harness' min_samples): 6 of 0.49, 7 of 0.50, 7 of 0.51; their relative
        # standard error is below 0.5%, so the rule stopped there.
        self.assertEqual((eager["status"], eager["samples"]), ("ok", "20"))
        self.assertEqual((float(eager["median_ms"]), float(eager["min_ms"]),
                          float(eager["max_ms"])), (0.50, 0.49, 0.51))
        self.assertEqual(eager["message"], "fake; stop: converged")
        self.assertEqual((eager["family"], eager["device_id"], eager["sm_clock_before_mhz"]),
                         ("torch", "1", "1980"))
        self.assertEqual(rows[compile_failed]["status"], "compile_failed")
        self.assertEqual(rows[compile_failed]["message"], "BackendCompilerFailed: fake")
        w = rows[wrong]
        self.assertEqual((w["status"], w["median_ms"], w["samples"]), ("wrong_result", "", ""))
        self.assertEqual(float(w["rel_err"]), 3e-4)
        self.assertTrue(w["message"].startswith("relative Frobenius error 0.0003 exceeds "), w["message"])
        run = query(self.db, "SELECT tool, status, command_line, json_extract(harness_json, "
                             "'$.budget_ms') AS budget, json_extract(harness_json, "
                             "'$.min_samples') AS min_samples FROM runs WHERE id = 3")[0]
        self.assertEqual((run["tool"], run["status"], run["budget"], run["min_samples"]),
                         ("torch_peers.py", "completed", "500.0", "20"))
        self.assertIn("--shape 64 --quick", run["command_line"])
        self.assertEqual(listing(self.dir), ["coalesce.db"])  # the writer closed cleanly

        # The same command again: every config is stored, nothing is measured, no run is added.
        again = FakeBackend()
        code, out = self.invoke(again, *args)
        self.assertEqual(code, 0, out)
        self.assertEqual(again.measured, [])
        self.assertIn("nothing stored: every config was measured on this device before", out)
        self.assertEqual(query(self.db, "SELECT COUNT(*) AS n FROM runs")[0]["n"], "3")

    def test_steady_samples_time_every_method_that_often_as_a_run_of_the_steady_state(self):
        # The same configs as a default run already stored: a row of their own, in the other
        # regime, each with exactly the samples asked for.
        args = ["--shape", "64", "--quick", "--method", "torch_eager"]
        self.assertEqual(self.invoke(FakeBackend(), *args)[0], 0)
        code, out = self.invoke(FakeBackend(), *args, "--steady-samples", "1000")
        self.assertEqual(code, 0, out)
        rows = query(self.db, """
            SELECT x.run_id, x.samples, x.steady_state, json_extract(r.harness_json, '$.min_samples')
                   AS min_samples, json_extract(r.harness_json, '$.max_samples') AS max_samples
            FROM measurements x JOIN runs r ON r.id = x.run_id
            WHERE x.method = 'torch_eager' ORDER BY x.run_id""")
        self.assertEqual([(r["samples"], r["steady_state"]) for r in rows], [("20", "0"), ("1000", "1")])
        self.assertEqual((rows[1]["min_samples"], rows[1]["max_samples"]), ("1000", "1000"))
        self.assertNotEqual(rows[0]["run_id"], rows[1]["run_id"])

    def test_the_spin_before_each_sample_decides_the_protocol(self):
        # The default spin and none, on one GPU, are two runs of two timing protocols (flush_spin,
        # the shared one, and flush_b2b), each saying its spin as the harness names it
        # (spin_cycles): the config is measured once in each, and the same command again finds
        # its own protocol's row.
        args = ["--shape", "64", "--quick", "--method", "torch_eager"]
        self.assertEqual(self.invoke(FakeBackend(), *args)[0], 0)
        unspun = FakeBackend()
        code, out = self.invoke(unspun, *args, "--spin-cycles", "0")
        self.assertEqual(code, 0, out)
        self.assertEqual(unspun.measured, ["torch_eager_f32_bias_gelu"])
        runs = query(self.db, """
            SELECT r.id, json_extract(r.harness_json, '$.spin_cycles') AS spin, g.protocol,
                   r.resume_key FROM runs r JOIN v_run_protocols g ON g.run_id = r.id
            WHERE r.tool = 'torch_peers.py' ORDER BY r.id""")
        self.assertEqual([(r["spin"], r["protocol"]) for r in runs],
                         [("500000", "flush_spin"), ("0", "flush_b2b")])
        self.assertNotIn("spin_cycles", runs[0]["resume_key"])
        self.assertIn("spin_cycles=0", runs[1]["resume_key"])
        self.assertEqual([r["protocol"] for r in query(self.db, """
            SELECT protocol FROM measurements WHERE method = 'torch_eager' ORDER BY id""")],
                         ["flush_spin", "flush_b2b"])
        again = FakeBackend()
        code, out = self.invoke(again, *args, "--spin-cycles", "0")
        self.assertEqual(code, 0, out)
        self.assertEqual(again.measured, [])

    def test_the_sweeps_sampling_settings_become_the_runs(self):
        # What `coalesce-tune sweep --peers` passes: its sample counts and rest, so that the run
        # falls in the sweep's protocol and each method stops by the same rule.
        args = ["--shape", "64", "--method", "torch_eager", "--min-samples", "30",
                "--max-samples", "30", "--sample-gap-ms", "0.5"]
        code, out = self.invoke(FakeBackend(), *args)
        self.assertEqual(code, 0, out)
        run = query(self.db, """
            SELECT json_extract(r.harness_json, '$.min_samples') AS lo,
                   json_extract(r.harness_json, '$.max_samples') AS hi,
                   json_extract(r.harness_json, '$.sample_gap_ms') AS gap, g.protocol,
                   (SELECT samples FROM measurements m WHERE m.run_id = r.id) AS samples
            FROM runs r JOIN v_run_protocols g ON g.run_id = r.id
            WHERE r.tool = 'torch_peers.py'""")
        self.assertEqual([(r["lo"], r["hi"], r["gap"], r["protocol"], r["samples"]) for r in run],
                         [("30", "30", "0.5", "flush_rested", "30")])

    def test_an_interrupted_run_resumes(self):
        args = ["--shape", "64", "--quick", "--method", "triton", "--method", "torch_eager"]
        second = "triton_f32_bm128_bn128_bk32_w8_s3_bias_gelu"
        code, out = self.invoke(FakeBackend(outcomes={second: "interrupt"}), *args)
        self.assertEqual(code, 130, out)
        self.assertEqual(query(self.db, "SELECT status, (SELECT COUNT(*) FROM measurements m "
                                        "WHERE m.run_id = r.id) AS n FROM runs r WHERE id = 3"),
                         [{"status": "interrupted", "n": "1"}])
        resumed = FakeBackend()
        code, out = self.invoke(resumed, *args)
        self.assertEqual(code, 0, out)
        self.assertEqual(resumed.measured, [second, "triton_f32_bm128_bn64_bk32_w4_s3_bias_gelu"])
        self.assertEqual(query(self.db, "SELECT status, resumed, (SELECT COUNT(*) FROM "
                                        "measurements m WHERE m.run_id = r.id) AS n FROM runs r "
                                        "WHERE id >= 3"),
                         [{"status": "completed", "resumed": "1", "n": "3"}])

    def comparison_at_4096(self) -> list[dict]:
        report = subprocess.run([str(env_path("COALESCE_REPORT")), "history", "--db", str(self.db),
                                 "--table", "comparison", "--format", "csv", "--shape", "4096"],
                                capture_output=True, text=True, check=True).stdout
        return list(csv.DictReader(io.StringIO("\n".join(
            line for line in report.splitlines() if line and not line.startswith("#")))))

    def test_the_report_shows_them_as_peers_in_the_best_rows_protocol_only(self):
        # The fixture's sweep timed back to back (flush_b2b): spun peers (flush_spin) are another
        # protocol and stay out of its comparison; peers timed without the spin join it.
        code, out = self.invoke(FakeBackend(), "--shape", "4096", "--quick")
        self.assertEqual(code, 0, out)
        table = self.comparison_at_4096()
        self.assertEqual(table[0]["method"], "coalesce")
        self.assertEqual([r["method"] for r in table if r["method"] in peers.METHODS], [])
        code, out = self.invoke(FakeBackend(), "--shape", "4096", "--quick", "--spin-cycles", "0")
        self.assertEqual(code, 0, out)
        table = self.comparison_at_4096()
        by_method = {r["method"]: r for r in table}
        self.assertEqual(table[0]["method"], "coalesce")
        for method in peers.METHODS:
            self.assertEqual(by_method[method]["run"], "4", method)
            self.assertEqual(by_method[method]["status"], "ok", method)
            self.assertEqual(float(by_method[method]["median_ms"]), 0.5, method)

    def test_the_recorders_refusals_reach_the_user(self):
        text = self.dir / "notes.txt"
        text.write_text("not a database, just text\n" * 200)
        before = checksum(text)
        args = peers.parse_args(["--db", str(text), "--shape", "64"])
        recorder = peers.Recorder(self.tune, str(text))
        try:
            with self.assertRaises(peers.PeerError) as refused, \
                    contextlib.redirect_stdout(io.StringIO()):
                peers.Peers(args, FakeBackend(), recorder).run_all()
        finally:
            recorder.close()
        self.assertIn("is not a Coalesce database (not an SQLite file)", str(refused.exception))
        self.assertEqual(checksum(text), before)
        self.assertEqual(listing(self.dir), ["coalesce.db", "notes.txt"])


if __name__ == "__main__":
    unittest.main()
