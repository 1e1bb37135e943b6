#!/usr/bin/env python3
"""scripts/torch_peers.py where there is no torch and no GPU: its statistics against
harness/stats.cpp (through stats_dump), its constants against the C++ sources, its refusals (bad
input, a foreign or newer database, a held writer lock, no torch, no GPU: one line, the exit
code, the database unchanged by checksum) and its database writer, read back by coalesce-report.

ctest runs it with COALESCE_FIXTURE_DIR (fixture.db from tests/fixtures/make_fixture.cpp),
COALESCE_STATS_DUMP and COALESCE_REPORT set (tests/unit/reports/CMakeLists.txt).
"""
import csv
import fcntl
import hashlib
import importlib.util
import io
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "scripts" / "torch_peers.py"


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


class StatsMatchTheHarness(unittest.TestCase):
    """percentile, summarize and should_stop give what harness/stats.cpp gives, bit for bit."""

    # Timing-like samples (ms) with an outlier, and a short vector with known quantiles.
    SAMPLES = [2.913, 2.884, 3.051, 2.902, 2.931, 2.889, 2.954, 3.402, 2.921, 2.905, 2.897,
               2.918, 2.926, 2.899, 2.941, 2.911, 2.887, 2.909, 2.935, 2.903, 2.915, 2.894]

    def cpp(self, rule, elapsed_ms, samples):
        out = subprocess.run([str(env_path("COALESCE_STATS_DUMP")), str(rule.min_samples),
                              str(rule.max_samples), repr(rule.max_rel_std_error),
                              repr(rule.budget_ms), repr(elapsed_ms)] + [repr(x) for x in samples],
                             capture_output=True, text=True, check=True).stdout
        fields = dict(line.split(" ", 1) for line in out.splitlines())
        return fields

    def check_same(self, rule, elapsed_ms, samples):
        cpp = self.cpp(rule, elapsed_ms, samples)
        py = peers.summarize(samples)
        self.assertEqual(int(cpp["count"]), py.count)
        for key in ("median", "min", "max", "p10", "p90", "mean", "stdev", "rel_spread",
                    "rel_std_error"):
            self.assertEqual(float(cpp[key]), getattr(py, key), key)
        self.assertEqual(cpp["stop"], peers.should_stop(rule, py, elapsed_ms) or "none")

    def test_summary_and_stop_equal_the_cpp_ones(self):
        default = peers.Settings()
        self.check_same(default, 10.0, self.SAMPLES)            # the outlier keeps it noisy
        self.check_same(default, 5000.0, self.SAMPLES)          # budget spent
        self.check_same(default, 10.0, self.SAMPLES[:19])       # below min_samples
        self.check_same(peers.Settings(max_samples=22), 10.0, self.SAMPLES)
        self.check_same(default, 10.0, self.SAMPLES[:7] + self.SAMPLES[8:])  # converged
        self.check_same(default, 10.0, [1.0, 2.0, 3.0, 4.0, 5.0])
        self.check_same(default, 10.0, [0.5])

    def test_quantiles_interpolate_between_ranks(self):
        s = peers.summarize([5.0, 1.0, 4.0, 2.0, 3.0])
        self.assertEqual((s.min, s.median, s.max), (1.0, 3.0, 5.0))
        self.assertAlmostEqual(s.p10, 1.4, places=12)  # rank 0.4 between 1 and 2
        self.assertAlmostEqual(s.p90, 4.6, places=12)  # rank 3.6 between 4 and 5
        self.assertAlmostEqual(s.rel_spread, 3.2 / 3.0, places=12)
        self.assertEqual(peers.summarize([]).count, 0)


class ConstantsMatchTheCppSources(unittest.TestCase):
    """The values the script copies from the C++ side are the C++ side's."""

    def source(self, relative: str) -> str:
        return (REPO / relative).read_text(encoding="utf-8")

    def test_timing_settings(self):
        text = self.source("harness/timing.hpp")
        settings = peers.Settings()
        for field in ("l2_flush_factor", "min_samples", "max_samples", "max_rel_std_error",
                      "budget_ms", "first_warmup_ms", "warmup_ms"):
            m = re.search(r"\b(?:double|int) " + field + r" = ([0-9.e+-]+);", text)
            self.assertIsNotNone(m, field)
            self.assertEqual(float(m.group(1)), float(getattr(settings, field)), field)
        batch = re.search(r"kMaxWarmupBatch = (\d+);", self.source("harness/timing.cpp"))
        self.assertEqual(int(batch.group(1)), peers.MAX_WARMUP_BATCH)

    def test_f32_tolerance(self):
        m = re.search(r"case Dtype::f32: return \{([0-9.e+-]+), ([0-9.e+-]+)\};",
                      self.source("harness/check.cpp"))
        self.assertEqual((float(m.group(1)), float(m.group(2))), peers.F32_TOLERANCE)

    def test_database_identity_and_schema_version(self):
        m = re.search(r"kApplicationId = (0x[0-9a-fA-F]+);", self.source("schema/db.hpp"))
        self.assertEqual(int(m.group(1), 16), peers.APPLICATION_ID)
        migrations = sorted((REPO / "schema" / "migrations").glob("*.sql"))
        self.assertEqual(len(migrations), peers.SCHEMA_VERSION,
                         "a migration was added: check torch_peers.py's inserts against it and "
                         "raise SCHEMA_VERSION")

    def test_project_version(self):
        m = re.search(r"project\(Coalesce VERSION ([0-9.]+)", self.source("CMakeLists.txt"))
        self.assertEqual(m.group(1), peers.VERSION)

    def test_fp32_lanes_table(self):
        body = self.source("schema/db.cpp").split("int fp32_lanes_per_sm(", 1)[1].split("\n}", 1)[0]
        table = {}
        for cases, lanes in re.findall(r"((?:case \d+: )+)return (\d+);", body):
            for cc in re.findall(r"case (\d+):", cases):
                table[int(cc)] = int(lanes)
        self.assertTrue(table)
        for cc, lanes in table.items():
            self.assertEqual(peers.fp32_lanes_per_sm(cc // 10, cc % 10), lanes, cc)
        self.assertEqual(peers.fp32_lanes_per_sm(6, 1), 0)

    def test_uuid_in_the_harness_form(self):
        m = re.search(r"char uuid\[(\d+)\];", self.source("harness/device.cpp"))
        self.assertGreaterEqual(int(m.group(1)) - 1, 40)  # the C++ buffer holds the full form
        full = peers.device_uuid(bytes(range(16)))
        self.assertEqual(full, "GPU-00010203-0405-0607-0809-0a0b0c0d0e0f")
        self.assertEqual(len(full), 40)


class PureParts(unittest.TestCase):
    def test_no_torch_imported(self):
        # The script imports triton at module level (its kernel must be a module global); the
        # script itself imports torch only when it measures.
        if peers.triton is not None:
            self.skipTest("triton is installed here and may import torch itself")
        self.assertNotIn("torch", sys.modules)

    def test_parse_shape(self):
        self.assertEqual(peers.parse_shape("4096"), (4096, 4096, 4096))
        self.assertEqual(peers.parse_shape("128x256x64"), (128, 256, 64))
        for bad in ("", "0", "-5", "12x", "1x2", "1x2x3x4", "4096 ", "x", "1e3", "0x4x4"):
            self.assertIsNone(peers.parse_shape(bad), bad)

    def test_judge(self):
        ok = peers.ErrorFigures(rel_frobenius=2e-7, max_abs_err=4e-5, max_abs_ref=90.0,
                                count=100)
        self.assertIsNone(peers.judge(ok))
        tf32 = peers.ErrorFigures(rel_frobenius=3e-4, max_abs_err=4e-5, max_abs_ref=90.0,
                                  count=100)
        self.assertIn("relative Frobenius error", peers.judge(tf32))
        patch = peers.ErrorFigures(rel_frobenius=2e-7, max_abs_err=0.5, max_abs_ref=90.0,
                                   count=100)
        self.assertIn("max abs error", peers.judge(patch))
        unwritten = peers.ErrorFigures(non_finite=3, count=100)
        self.assertIn("3 of 100 outputs are NaN", peers.judge(unwritten))
        self.assertEqual(peers.judge(peers.ErrorFigures()), "no elements were compared")

    def test_options(self):
        args = peers.parse_args(["--shape", "4096", "--shape", "4096", "--shape", "100x72x40",
                                 "--method", "triton", "--quick"])
        self.assertEqual(args.shapes, [(4096, 4096, 4096), (100, 72, 40)])
        self.assertEqual(args.methods, ["triton"])
        self.assertEqual(args.settings.budget_ms, peers.QUICK_BUDGET_MS)
        self.assertEqual(args.settings.min_samples, 20)
        self.assertEqual(len(args.triton_configs), peers.QUICK_TRITON_CONFIGS)
        default = peers.parse_args([])
        self.assertEqual(default.shapes, list(peers.DEFAULT_SHAPES))
        self.assertEqual(default.methods, list(peers.METHODS))
        self.assertEqual(default.settings, peers.Settings())
        self.assertEqual(peers.cuda_version_number("12.8"), 12080)
        self.assertEqual(peers.cuda_version_number(None), 0)
        names = {c.name("bias_gelu") for c in peers.TRITON_CONFIGS}
        self.assertIn("triton_f32_bm128_bn128_bk32_w8_s3_bias_gelu", names)
        self.assertEqual(len(names), len(peers.TRITON_CONFIGS))


class Refusals(unittest.TestCase):
    """The command line on bad input and bad databases: one line on stderr, nothing on stdout,
    the exit code, and the database and its directory as they were."""

    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="torch_peers_test."))
        self.fake = self.dir / "fake"  # stand-in torch packages go here
        self.work = self.dir / "work"
        self.work.mkdir()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def fixture_copy(self, name="coalesce.db") -> Path:
        db = self.work / name
        shutil.copy(env_path("COALESCE_FIXTURE_DIR") / "fixture.db", db)
        return db

    def fake_torch(self, body: str):
        package = self.fake / "torch"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(textwrap.dedent(body))

    def run_script(self, *args, fake=False):
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        if fake:
            env["PYTHONPATH"] = str(self.fake)
        return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                              text=True, env=env, cwd=self.work, timeout=120)

    def refused(self, expect: str, code: int, db: Path, *args, fake=False):
        before = checksum(db) if db.exists() else None
        files = listing(self.work)
        r = self.run_script("--db", str(db), *args, fake=fake)
        self.assertEqual(r.returncode, code, r.stderr)
        self.assertEqual(r.stdout, "")
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn(expect, lines[0])
        self.assertTrue(lines[0].startswith("torch_peers.py: "), lines[0])
        self.assertEqual(checksum(db) if db.exists() else None, before)
        self.assertEqual(listing(self.work), files)
        return lines[0]

    def test_bad_input(self):
        db = self.fixture_copy()
        self.refused("bad --shape '12x'", 2, db, "--shape", "12x")
        self.refused("bad --shape '0'", 2, db, "--shape", "0")
        self.refused("invalid choice: 'gelu'", 2, db, "--epilogue", "gelu")
        self.refused("invalid choice: 'cublas'", 2, db, "--method", "cublas")
        self.refused("bad --device -1", 2, db, "--device", "-1")
        self.refused("unrecognized arguments", 2, db, "--no-such-flag")
        self.refused("does not exist", 1, self.work / "nodir" / "x.db")

    def test_foreign_and_newer_databases(self):
        text = self.work / "notes.txt"
        text.write_text("not a database, just text\n" * 200)
        self.refused("not a Coalesce database (not an SQLite file)", 1, text)
        other = self.work / "other.db"
        with sqlite3.connect(other) as c:
            c.execute("CREATE TABLE notes (body TEXT)")
            c.execute("INSERT INTO notes VALUES ('mine')")
        c.close()
        self.refused("not a Coalesce database (an SQLite file of another application)", 1, other)
        newer = self.fixture_copy("newer.db")
        c = sqlite3.connect(newer)
        c.execute("PRAGMA user_version = 99")
        c.close()
        self.refused("newer Coalesce (schema version 99; this tool knows up to "
                     f"{peers.SCHEMA_VERSION})", 1, newer)

    def test_writer_lock_held(self):
        db = self.fixture_copy()
        lock = Path(str(db) + "-lock")
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.write(fd, b"pid 4242 on testhost\n")
            line = self.refused("is being written by pid 4242 on testhost", 1, db)
            self.assertIn("one writer per database", line)
            self.assertTrue(lock.exists())  # the holder's side file is left alone
        finally:
            os.close(fd)

    def test_no_torch(self):
        self.fake_torch("raise ImportError(\"No module named 'torch'\")\n")
        db = self.fixture_copy()
        self.refused("PyTorch is not installed", 2, db, fake=True)
        missing = self.work / "new.db"
        self.refused("PyTorch is not installed", 2, missing, fake=True)
        self.assertFalse(missing.exists())

    def test_no_gpu(self):
        self.fake_torch("""
            class _Flags:
                allow_tf32 = True
            class backends:
                class cuda:
                    matmul = _Flags()
                cudnn = _Flags()
            class cuda:
                @staticmethod
                def is_available():
                    return False
                @staticmethod
                def device_count():
                    return 0
            __version__ = "0.0-fake"
            """)
        db = self.fixture_copy()
        self.refused("no CUDA device", 2, db, fake=True)
        missing = self.work / "new.db"
        self.refused("no CUDA device", 2, missing, fake=True)
        self.assertFalse(missing.exists())


class Writer(unittest.TestCase):
    """The database side without a GPU: initialization from schema/migrations, the rows as the
    script stores them (every CHECK of the schema applies), resume, and coalesce-report reading
    them back as peers."""

    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="torch_peers_writer."))

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_new_database_has_the_cpp_schema(self):
        path = self.dir / "new.db"
        db = peers.PeerDatabase(str(path))
        db.connect()
        uuid = peers.device_uuid(bytes(range(16)))
        self.assertIsNone(db.find_device(uuid))
        device = db.insert_device({
            "uuid": uuid[:peers.LEGACY_UUID_CHARS], "name": "Test GPU", "arch": "sm_90",
            "cc_major": 9, "cc_minor": 0, "sm_count": 132, "l2_bytes": 62914560,
            "global_mem_bytes": 1 << 37, "max_sm_clock_mhz": 1980, "fp32_lanes_per_sm": 128,
            "smem_per_block_optin": 232448, "smem_per_sm": 233472, "max_threads_per_block": 1024,
            "max_threads_per_sm": 2048, "regs_per_sm": 65536, "max_regs_per_thread": 255,
            "max_blocks_per_sm": 32})
        self.assertEqual(db.find_device(uuid), device)  # the full form finds the legacy form
        db.close()
        self.assertEqual(sorted(os.listdir(self.dir)), ["new.db"])  # no -wal, -shm or -lock
        fixture = env_path("COALESCE_FIXTURE_DIR") / "fixture.db"
        schema = "SELECT type, name, sql FROM sqlite_schema ORDER BY type, name"
        mine, theirs = sqlite3.connect(path), sqlite3.connect(fixture)
        self.assertEqual(mine.execute(schema).fetchall(), theirs.execute(schema).fetchall())
        for pragma in ("application_id", "user_version"):
            self.assertEqual(mine.execute(f"PRAGMA {pragma}").fetchone(),
                             theirs.execute(f"PRAGMA {pragma}").fetchone(), pragma)
        mine.close()
        theirs.close()

    def test_rows_read_back_as_peers(self):
        path = self.dir / "coalesce.db"
        shutil.copy(env_path("COALESCE_FIXTURE_DIR") / "fixture.db", path)
        db = peers.PeerDatabase(str(path))
        db.connect()
        device = db.find_device("GPU-5e1f0c2a-0000-4000-8000-fixture00001")
        self.assertEqual(device, 1)
        run = db.begin_run({"device_id": device, "resume_key": "test", "tool": peers.TOOL,
                            "tool_version": peers.VERSION, "git_revision": "unknown",
                            "command_line": "torch_peers.py --shape 4096", "host": "test",
                            "harness_json": "{}"})
        problem = db.upsert_problem(4096, 4096, 4096, "f32", "bias_gelu")
        eager = db.upsert_config("torch", "torch_eager_f32_bias_gelu", {"library": "torch"}, "h1")
        self.assertEqual(db.upsert_config("torch", "torch_eager_f32_bias_gelu",
                                          {"library": "torch"}, "h1"), eager)
        with self.assertRaises(peers.DbError):  # same key, other parameters
            db.upsert_config("torch", "torch_eager_f32_bias_gelu", {"library": "jax"}, "h1")
        cfgs = {c: db.upsert_config("triton", c.name("bias_gelu"), c.params(), "h1")
                for c in peers.TRITON_CONFIGS[:3]}
        fast, slow, broken = peers.TRITON_CONFIGS[:3]
        timing = peers.Timing(2.95, 2.93, 3.01, 2.94, 2.97, 31)
        rows = [
            peers.Row(problem, "torch_eager", eager, "ok", timing, 2e-7, 4e-5, 1980, 1965),
            peers.Row(problem, "triton", cfgs[fast], "ok", peers.Timing(3.1, 3.05, 3.2, 3.08,
                                                                       3.12, 25), 2e-7, 4e-5),
            peers.Row(problem, "triton", cfgs[slow], "ok", peers.Timing(3.5, 3.4, 3.6, 3.45,
                                                                       3.55, 25), 2e-7, 4e-5),
            peers.Row(problem, "triton", cfgs[broken], "compile_failed",
                      message="OutOfResources: shared memory"),
        ]
        for row in rows:
            self.assertIsNotNone(db.insert_measurement(run, device, row))
        self.assertIsNone(db.insert_measurement(run, device, rows[0]))  # once per config
        self.assertEqual(db.measured(device, problem, "torch_eager", eager), (run, "ok"))
        with self.assertRaises(peers.DbError):  # an ok row needs its timing (schema CHECK)
            db.insert_measurement(run, device, peers.Row(problem, "torch_compile", eager, "ok",
                                                         rel_err=1e-7, max_abs_err=1e-5))
        with self.assertRaises(peers.DbError):  # a wrong result needs its error figures
            db.insert_measurement(run, device, peers.Row(problem, "torch_compile", eager,
                                                         "wrong_result"))
        with self.assertRaises(peers.DbError):  # a failure carries no timing
            db.insert_measurement(run, device, peers.Row(problem, "triton", cfgs[slow],
                                                         "launch_failed", timing))
        db.close()

        # Left 'running' (as after kill -9): the next writer marks it interrupted and the same
        # sweep resumes it.
        db = peers.PeerDatabase(str(path))
        db.connect()
        self.assertEqual(db._one("SELECT status FROM runs WHERE id = ?", (run,))[0][0],
                         "interrupted")
        self.assertEqual(db.find_unfinished_run("test", device), run)
        db.resume_run(run)
        db.end_run(run, "completed")
        stored = db._one("SELECT tflops, rel_spread FROM measurements WHERE run_id = ? AND "
                         "method = 'torch_eager'", (run,))[0]
        self.assertAlmostEqual(stored[0], 2 * 4096 ** 3 / 2.95e9)
        self.assertAlmostEqual(stored[1], (2.97 - 2.94) / 2.95)
        db.close()
        self.assertEqual(sorted(os.listdir(self.dir)), ["coalesce.db"])

        report = subprocess.run([str(env_path("COALESCE_REPORT")), "--db", str(path), "--table",
                                 "comparison", "--format", "csv", "--shape", "4096"],
                                capture_output=True, text=True, check=True).stdout
        table = list(csv.DictReader(io.StringIO("\n".join(
            line for line in report.splitlines() if line and not line.startswith("#")))))
        by_method = {r["method"]: r for r in table}
        self.assertEqual(by_method["torch_eager"]["run"], str(run))
        self.assertEqual(float(by_method["torch_eager"]["median_ms"]), 2.95)
        self.assertEqual(by_method["triton"]["config"], fast.name("bias_gelu"))
        self.assertEqual(by_method["triton"]["status"], "ok")
        self.assertNotIn("torch_compile", by_method)
        self.assertEqual(table[0]["method"], "coalesce")


if __name__ == "__main__":
    unittest.main()
