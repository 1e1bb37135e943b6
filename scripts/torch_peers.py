#!/usr/bin/env python3
"""Peers for the Coalesce report: PyTorch eager, torch.compile and a Triton matmul with the fused
epilogue, each checked against an fp64 reference and timed cold by the rules of the C++ harness
(harness/timing.hpp), stored as peer rows in the results database (docs/database.md).

Usage (on a host with PyTorch, Triton and a CUDA GPU):
  python3 scripts/torch_peers.py --db results/coalesce.db --shape 4096
  python3 scripts/torch_peers.py --quick          # 1024, 2048, 4096, 8192; shorter budgets

docs/reports.md ("Peers from PyTorch and Triton") says what each method runs and the caveats.
The parts that need no GPU (statistics, tolerances, names, the database) import without torch;
tests/unit/reports/torch_peers_test.py tests them against the C++ definitions.
"""
import argparse
import dataclasses
import errno
import fcntl
import hashlib
import json
import math
import os
import re
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Callable, Optional

TOOL = "torch_peers.py"
#: The project's version (CMakeLists.txt `project(Coalesce VERSION ...)`; a test keeps them equal).
VERSION = "0.1.0"
#: `PRAGMA application_id` of every Coalesce database: 'Coal' in ASCII (schema/db.hpp).
APPLICATION_ID = 0x436F616C
#: The schema version these inserts are written for: the highest of schema/migrations/ (a test
#: fails when a migration is added without this script being checked against it).
SCHEMA_VERSION = 2
#: STRICT tables need SQLite 3.37, the JSON functions in the CHECKs 3.38.
MIN_SQLITE = (3, 38, 0)

REPO = Path(__file__).resolve().parent.parent
MIGRATIONS = REPO / "schema" / "migrations"

METHODS = ("torch_eager", "torch_compile", "triton")
EPILOGUES = ("none", "bias", "bias_relu", "bias_gelu")
COMPILE_MODES = ("default", "max-autotune-no-cudagraphs")
DEFAULT_SHAPES = ((1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192))
#: The seed of the inputs (coalesce-tune uses 1 too); each measurement derives its own from it.
DEFAULT_SEED = 1


# --- errors -------------------------------------------------------------------------------------

class PeerError(Exception):
    """A refusal or failure, told in one sentence; `exit_code` is what the process returns."""

    exit_code = 1


class UsageError(PeerError):
    exit_code = 2


class NoTorch(PeerError):
    exit_code = 2


class NoDevice(PeerError):
    exit_code = 2


class DbError(PeerError):
    """Every failure of the results database (schema/db.hpp's db::Error)."""


class NotCoalesceDatabase(DbError):
    pass


class NewerSchema(DbError):
    pass


class WriterBusy(DbError):
    pass


# --- the harness' settings, statistics and stopping rule (harness/timing.hpp, stats.cpp) -------

@dataclasses.dataclass
class Settings:
    """harness/timing.hpp's TimingSettings, field for field; the reasons for each value are there.
    --quick shortens budget_ms only: samples, warm-up and the noise criterion stay."""

    l2_flush_factor: float = 2.0
    min_samples: int = 20
    max_samples: int = 1000
    max_rel_std_error: float = 0.005
    budget_ms: float = 2000.0
    first_warmup_ms: float = 1000.0
    warmup_ms: float = 50.0


#: --quick: a quarter of the sampling budget. A kernel whose mean settles to 0.5% stops as early
#: as before; only noisy ones stop sooner (their rows say so: "stop: budget").
QUICK_BUDGET_MS = 500.0

#: The most launches queued between two events during warm-up (harness/timing.cpp's
#: kMaxWarmupBatch).
MAX_WARMUP_BATCH = 256


@dataclasses.dataclass
class SampleStats:
    """harness/stats.hpp's SampleStats."""

    count: int = 0
    median: float = 0.0
    min: float = 0.0
    max: float = 0.0
    p10: float = 0.0
    p90: float = 0.0
    mean: float = 0.0
    stdev: float = 0.0
    rel_spread: float = 0.0
    rel_std_error: float = 0.0


def percentile(sorted_samples: list[float], q: float) -> float:
    """The q-quantile of ascending samples, interpolating linearly between the two closest ranks
    (NumPy's default; harness/stats.cpp's percentile)."""
    rank = q * (len(sorted_samples) - 1)
    lo = int(math.floor(rank))
    hi = min(lo + 1, len(sorted_samples) - 1)
    frac = rank - lo
    return sorted_samples[lo] + frac * (sorted_samples[hi] - sorted_samples[lo])


def summarize(samples: list[float]) -> SampleStats:
    """harness/stats.cpp's summarize: order statistics, mean, Bessel stdev, relative spread and
    the mean's relative standard error."""
    s = SampleStats()
    if not samples:
        return s
    xs = sorted(samples)
    s.count = len(xs)
    s.min, s.max = xs[0], xs[-1]
    s.median = percentile(xs, 0.5)
    s.p10 = percentile(xs, 0.1)
    s.p90 = percentile(xs, 0.9)
    total = 0.0
    for x in xs:
        total += x
    s.mean = total / s.count
    sq = 0.0
    for x in xs:
        sq += (x - s.mean) * (x - s.mean)
    s.stdev = math.sqrt(sq / (s.count - 1)) if s.count > 1 else 0.0
    s.rel_spread = (s.p90 - s.p10) / s.median if s.median > 0 else 0.0
    s.rel_std_error = s.stdev / (s.mean * math.sqrt(s.count)) if s.mean > 0 else 0.0
    return s


def should_stop(settings: Settings, stats: SampleStats, elapsed_ms: float) -> Optional[str]:
    """harness/stats.cpp's should_stop: never below min_samples; then max_samples, a mean known
    to max_rel_std_error ("converged"), or the wall-time budget spent."""
    if stats.count < settings.min_samples:
        return None
    if stats.count >= settings.max_samples:
        return "max_samples"
    if stats.rel_std_error < settings.max_rel_std_error:
        return "converged"
    if elapsed_ms >= settings.budget_ms:
        return "budget"
    return None


# --- the verdict on error figures (harness/check.hpp, check.cpp) --------------------------------

@dataclasses.dataclass
class ErrorFigures:
    """harness/check.hpp's ErrorFigures: over the finite outputs, against the fp64 reference."""

    rel_frobenius: float = 0.0
    max_abs_err: float = 0.0
    max_abs_ref: float = 0.0
    non_finite: int = 0
    count: int = 0


#: harness/check.cpp's f32 tolerance (relative Frobenius, max abs error over max |ref|);
#: check.hpp explains why these values separate FP32 from TF32 and from real bugs.
F32_TOLERANCE = (1e-4, 1e-3)


def judge(e: ErrorFigures, tolerance=F32_TOLERANCE) -> Optional[str]:
    """None when the figures pass; else why not, in harness/check.cpp's words."""
    rel_bound, abs_bound = tolerance
    if e.count <= 0:
        return "no elements were compared"
    if e.non_finite > 0:
        return (f"{e.non_finite} of {e.count} outputs are NaN or infinite "
                "(unwritten or overflowed)")
    if not math.isfinite(e.rel_frobenius) or e.rel_frobenius > rel_bound:
        return f"relative Frobenius error {e.rel_frobenius:.3g} exceeds {rel_bound:.3g}"
    if not e.max_abs_err <= abs_bound * e.max_abs_ref:
        return (f"max abs error {e.max_abs_err:.3g} exceeds {abs_bound:.3g} x max|ref| "
                f"({e.max_abs_ref:.3g})")
    return None


# --- names, shapes, devices ---------------------------------------------------------------------

def parse_shape(text: str) -> Optional[tuple[int, int, int]]:
    """"N" (M = N = K) or "MxNxK" with positive integers, as coalesce-report's --shape."""
    if not re.fullmatch(r"[0-9]+(x[0-9]+x[0-9]+)?", text):
        return None
    dims = [int(p) for p in text.split("x")]
    if any(d <= 0 for d in dims):
        return None
    return (dims[0],) * 3 if len(dims) == 1 else (dims[0], dims[1], dims[2])


@dataclasses.dataclass(frozen=True)
class TritonConfig:
    """One block config of the Triton kernel below; GROUP_M rasterizes blocks for L2 reuse."""

    bm: int
    bn: int
    bk: int
    warps: int
    stages: int
    group_m: int = 8

    def name(self, epilogue: str) -> str:
        return (f"triton_f32_bm{self.bm}_bn{self.bn}_bk{self.bk}_w{self.warps}_s{self.stages}"
                f"_{epilogue}")

    def params(self) -> dict:
        return {"bm": self.bm, "bn": self.bn, "bk": self.bk, "num_warps": self.warps,
                "num_stages": self.stages, "group_m": self.group_m, "input_precision": "ieee"}


#: The block configs tried, each measured and stored as its own row (the report shows the
#: fastest). FP32 with input_precision="ieee" runs on the FMA units, not the tensor cores, so
#: these are the CUDA-core shapes that do well there (128×128 per block at 8 warps, 64 outputs
#: per thread); three stages of 128×32 + 32×128 floats take 96 KiB of shared memory.
TRITON_CONFIGS = (
    TritonConfig(128, 128, 32, 8, 3),
    TritonConfig(128, 64, 32, 4, 3),
    TritonConfig(64, 128, 32, 4, 3),
    TritonConfig(128, 128, 16, 8, 4),
)
#: --quick tries the first two.
QUICK_TRITON_CONFIGS = 2


def torch_config_name(method: str, epilogue: str, compile_mode: str) -> str:
    if method == "torch_eager":
        return f"torch_eager_f32_{epilogue}"
    return f"torch_compile_{compile_mode.replace('-', '_')}_f32_{epilogue}"


def device_uuid(raw: bytes) -> str:
    """A device's 16 UUID bytes as NVIDIA writes them: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx."""
    h = raw.hex()
    return f"GPU-{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


#: Until 2026-11-29 harness/device.cpp formatted the UUID into a 40-byte buffer, so the
#: 40-character string lost its last hex digit to the terminating NUL, and databases written
#: then key a GPU by those 39 characters. A device row is found by either form (so the peers
#: share coalesce-tune's row, and the report compares within a device) and inserted in full, as
#: the C++ tools now do.
LEGACY_UUID_CHARS = 39


def fp32_lanes_per_sm(cc_major: int, cc_minor: int) -> int:
    """schema/db.cpp's fp32_lanes_per_sm: FP32 units per SM, 0 when not in the table."""
    cc = cc_major * 10 + cc_minor
    if cc in (70, 72, 75, 80):
        return 64
    if cc in (86, 87, 89, 90, 100, 103, 120):
        return 128
    return 0


def cuda_version_number(text: Optional[str]) -> int:
    """"12.8" -> 12080 (cudaRuntimeGetVersion's encoding); 0 when unknown."""
    m = re.fullmatch(r"(\d+)\.(\d+)(\..*)?", text or "")
    return int(m.group(1)) * 1000 + int(m.group(2)) * 10 if m else 0


def git_revision() -> str:
    """The checkout's short revision with "-dirty" for uncommitted changes (as
    cmake/Version.cmake), or "unknown" outside a git checkout."""
    try:
        rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short=12", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        if rev.returncode != 0 or not rev.stdout.strip():
            return "unknown"
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True, text=True, timeout=10)
        return rev.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def derived_seed(seed: int, *parts) -> int:
    """A measurement's own input seed: fresh inputs per method and config, as the C++ harness
    refills its workspace before each check, and the same ones when a run is resumed."""
    digest = hashlib.sha256(json.dumps([seed, *parts]).encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)


# --- the results database (schema/db.cpp and lease.cpp, for Python's sqlite3) -------------------

class WriterLease:
    """schema/lease.cpp: an exclusive flock on `<database>-lock`, naming its holder; the side file
    is removed on release. The database file itself is never opened for it (closing any
    descriptor of a file drops the process's POSIX locks on it, which are SQLite's)."""

    def __init__(self, database: str):
        self.lock_path = database + "-lock"
        self.fd = -1
        # The holder unlinks the side file when it lets go, so a lock taken on a file that was
        # unlinked meanwhile is worthless: retry until the locked file is the one at the path.
        while True:
            try:
                fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as e:
                raise DbError(f"cannot create the writer lock {self.lock_path}: {e.strerror}")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as e:
                os.close(fd)
                if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    raise WriterBusy(f"{database} is being written by {self._holder()}; wait for "
                                     "it to finish (one writer per database)")
                raise DbError(f"cannot lock {self.lock_path}: {e.strerror}")
            held = os.fstat(fd)
            try:
                at_path = os.stat(self.lock_path)
            except FileNotFoundError:
                at_path = None
            if at_path and (held.st_ino, held.st_dev) == (at_path.st_ino, at_path.st_dev):
                self.fd = fd
                break
            os.close(fd)
        # Name the holder for whoever is refused next; failing to write it only loses that.
        try:
            os.ftruncate(self.fd, 0)
            os.write(self.fd, f"pid {os.getpid()} on {socket.gethostname()}\n".encode())
        except OSError:
            pass

    def _holder(self) -> str:
        try:
            with open(self.lock_path, encoding="utf-8", errors="replace") as f:
                who = f.readline().strip()
        except OSError:
            who = ""
        return who or "another process"

    def release(self):
        if self.fd < 0:
            return
        try:
            os.unlink(self.lock_path)  # while still locked: see the retry loop above
        except OSError:
            pass
        os.close(self.fd)
        self.fd = -1


def _classify(conn: sqlite3.Connection, path: str) -> tuple[str, int]:
    """("empty" | "coalesce", user_version) from reads only; raises NotCoalesceDatabase or
    NewerSchema as schema/db.cpp's classify does."""
    try:
        app = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        objects = conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
    except sqlite3.DatabaseError as e:
        if "not a database" in str(e) or "malformed" in str(e):
            raise NotCoalesceDatabase(f"{path} is not a Coalesce database (not an SQLite file)")
        raise DbError(f"cannot read the header of {path}: {e}")
    if app == 0 and version == 0 and objects == 0:
        return "empty", 0
    if app != APPLICATION_ID:
        raise NotCoalesceDatabase(f"{path} is not a Coalesce database (an SQLite file of another "
                                  "application)")
    if version > SCHEMA_VERSION:
        raise NewerSchema(f"{path} was written by a newer Coalesce (schema version {version}; "
                          f"this tool knows up to {SCHEMA_VERSION}); use a newer torch_peers.py")
    return "coalesce", version


def _migrations() -> list[tuple[int, str, str]]:
    """The repository's schema/migrations/NNNN_<name>.sql as (version, name, sql), 1..N."""
    found = []
    for f in sorted(MIGRATIONS.glob("*.sql")):
        m = re.fullmatch(r"(\d{4})_.*\.sql", f.name)
        if not m:
            raise DbError(f"schema migration {f} is not named NNNN_<name>.sql")
        found.append((int(m.group(1)), f.name, f.read_text(encoding="utf-8")))
    for i, (version, name, _) in enumerate(found):
        if version != i + 1:
            raise DbError(f"schema migrations must be numbered 1..N without gaps; {name} breaks "
                          "the sequence")
    return found


@dataclasses.dataclass
class Timing:
    """Order statistics of the samples (ms), as schema/db.hpp's Timing."""

    median_ms: float
    min_ms: float
    max_ms: float
    p10_ms: float
    p90_ms: float
    samples: int


@dataclasses.dataclass
class Row:
    """One measurement row (schema/db.hpp's MeasurementRow for the peers)."""

    problem: int
    method: str
    config: int
    status: str
    timing: Optional[Timing] = None
    rel_err: Optional[float] = None
    max_abs_err: Optional[float] = None
    sm_clock_before_mhz: Optional[int] = None
    sm_clock_after_mhz: Optional[int] = None
    grid_blocks: Optional[int] = None
    message: str = ""


class PeerDatabase:
    """The results database opened for writing: checked before anything is written, with the
    writer lease, migrated, in WAL mode, every row committed when its call returns."""

    def __init__(self, path: str):
        """Checks the file and takes the lease; writes nothing (connect() does)."""
        self.path = path
        self.conn: Optional[sqlite3.Connection] = None
        if sqlite3.sqlite_version_info < MIN_SQLITE:
            raise DbError(f"this python3's SQLite is {sqlite3.sqlite_version}; the results "
                          f"database needs {'.'.join(map(str, MIN_SQLITE))} or newer (STRICT "
                          "tables, JSON checks)")
        p = Path(path)
        if p.exists() and not p.is_file():
            raise DbError(f"{path} is not a regular file")
        parent = p.absolute().parent
        if not parent.is_dir():
            raise DbError(f"{path} cannot be opened: the directory {parent} does not exist")
        if p.exists() and p.stat().st_size > 0:
            # An immutable read-only connection takes no lock and creates no side file, so a
            # foreign file is refused untouched.
            uri = "file:" + urllib.parse.quote(str(p.absolute()), safe="/") + "?mode=ro&immutable=1"
            try:
                probe = sqlite3.connect(uri, uri=True)
            except sqlite3.Error as e:
                raise DbError(f"cannot open {path}: {e}")
            try:
                _classify(probe, path)
            finally:
                probe.close()
        self.lease = WriterLease(path)

    def connect(self):
        """Opens read-write (creating the file if missing), applies pending migrations, switches
        to WAL and FULL sync, and marks runs left 'running' as interrupted (holding the lease, no
        writer of theirs is alive)."""
        try:
            self.conn = sqlite3.connect(self.path, isolation_level=None, timeout=5.0)
            _, version = _classify(self.conn, self.path)  # again, under the lease
            self.conn.execute("PRAGMA foreign_keys=ON")
            if version < SCHEMA_VERSION:
                for v, name, sql in _migrations()[version:SCHEMA_VERSION]:
                    script = "BEGIN IMMEDIATE;\n" + sql + "\n;"
                    if v == 1:
                        script += f"PRAGMA application_id={APPLICATION_ID};"
                    script += f"PRAGMA user_version={v};COMMIT;"
                    try:
                        self.conn.executescript(script)
                    except sqlite3.Error as e:
                        if self.conn.in_transaction:
                            self.conn.execute("ROLLBACK")
                        raise DbError(f"cannot apply migration {name} in {self.path}: {e}")
            mode = self.conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode != "wal":
                raise DbError(f"cannot switch {self.path} to WAL mode (is it on a file system "
                              "without shared memory, such as NFS?)")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.execute("UPDATE runs SET status='interrupted' WHERE status='running'")
        except sqlite3.Error as e:
            raise DbError(f"cannot open {self.path}: {e}")

    def close(self):
        """Back to a rollback journal (the file stands alone, no -wal beside it), then the lease."""
        if self.conn is not None:
            try:
                self.conn.execute("PRAGMA journal_mode=DELETE")
            except sqlite3.Error:
                pass  # readers attached: the file stays in WAL mode, which is as valid
            self.conn.close()
            self.conn = None
        self.lease.release()

    def _one(self, sql: str, params=(), what: str = "write"):
        try:
            return self.conn.execute(sql, params).fetchall()
        except sqlite3.Error as e:
            raise DbError(f"cannot {what} in {self.path}: {e}")

    def find_device(self, uuid: str) -> Optional[int]:
        """The device with this UUID, in full or in the legacy truncated form (LEGACY_UUID_CHARS)."""
        rows = self._one("SELECT id, uuid FROM devices WHERE uuid IN (?, ?) "
                         "ORDER BY uuid = ? DESC, id LIMIT 1",
                         (uuid, uuid[:LEGACY_UUID_CHARS], uuid), "look up a device")
        return rows[0][0] if rows else None

    def insert_device(self, d: dict) -> int:
        """Inserts a device the C++ tools have not stored yet (keys as the devices columns)."""
        cols = ", ".join(d)
        marks = ", ".join("?" * len(d))
        return self._one(f"INSERT INTO devices ({cols}) VALUES ({marks}) RETURNING id",
                         tuple(d.values()), "store a device")[0][0]

    def find_unfinished_run(self, resume_key: str, device: int) -> Optional[int]:
        rows = self._one("SELECT id FROM runs WHERE resume_key = ? AND device_id IS ? AND "
                         "status <> 'completed' ORDER BY id DESC LIMIT 1",
                         (resume_key, device), "look up unfinished runs")
        return rows[0][0] if rows else None

    def resume_run(self, run: int):
        self._one("UPDATE runs SET status = 'running', resumed = resumed + 1, ended_at = NULL "
                  "WHERE id = ? AND status <> 'completed'", (run,), "resume a run")

    def begin_run(self, info: dict) -> int:
        """Starts a run ('running', started_at now); `info` holds the runs columns."""
        cols = ", ".join(info)
        marks = ", ".join("?" * len(info))
        return self._one(f"INSERT INTO runs ({cols}) VALUES ({marks}) RETURNING id",
                         tuple(info.values()), "start a run")[0][0]

    def end_run(self, run: int, status: str):
        self._one("UPDATE runs SET status = ?, ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') "
                  "WHERE id = ?", (status, run), "end a run")

    def upsert_problem(self, m: int, n: int, k: int, dtype: str, epilogue: str) -> int:
        self._one("INSERT INTO problems (m, n, k, dtype, epilogue) VALUES (?, ?, ?, ?, ?) "
                  "ON CONFLICT DO NOTHING", (m, n, k, dtype, epilogue), "store a problem")
        return self._one("SELECT id FROM problems WHERE m = ? AND n = ? AND k = ? AND dtype = ? "
                         "AND epilogue = ?", (m, n, k, dtype, epilogue), "store a problem")[0][0]

    def upsert_config(self, family: str, name: str, params: dict, source_hash: str) -> int:
        """The id of (name, source_hash), inserted if new; refuses a stored row of that key with
        another family or parameters (schema/db.cpp's upsert_config)."""
        params_json = json.dumps(params, separators=(",", ":"))
        self._one("INSERT INTO configs (family, name, params_json, source_hash) "
                  "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                  (family, name, params_json, source_hash), "store a config")
        config, same = self._one(
            "SELECT id, family = ? AND json(params_json) = json(?) FROM configs "
            "WHERE name = ? AND source_hash = ?", (family, params_json, name, source_hash),
            "store a config")[0]
        if not same:
            raise DbError(f"cannot store config {name} in {self.path}: a config with that name "
                          "and source hash is stored with another family or parameters")
        return config

    def measured(self, device: int, problem: int, method: str, config: int) -> Optional[tuple]:
        """(run, status) of the stored row of this config, if any: a config is measured once per
        device × problem × method, whatever the run (measurements_config_once)."""
        rows = self._one("SELECT run_id, status FROM measurements WHERE device_id = ? AND "
                         "problem_id = ? AND method = ? AND config_id = ?",
                         (device, problem, method, config), "look up a measurement")
        return rows[0] if rows else None

    def insert_measurement(self, run: int, device: int, r: Row) -> Optional[int]:
        """Stores one row in its own transaction; None when its key is already stored. tflops
        (2·M·N·K / median) and rel_spread ((p90 − p10) / median) are computed as
        schema/db.cpp does; the schema's CHECKs refuse an inconsistent row."""
        if r.status != "ok" and r.timing is not None:
            raise DbError(f"cannot store a measurement in {self.path}: a {r.status} row carries "
                          "no timing")
        flops = self._one("SELECT 2.0 * m * n * k FROM problems WHERE id = ?", (r.problem,),
                          "store a measurement")
        if not flops:
            raise DbError(f"cannot store a measurement in {self.path}: no problem {r.problem}")
        t = r.timing
        rel_spread = tflops = None
        if t is not None and t.median_ms > 0:
            rel_spread = (t.p90_ms - t.p10_ms) / t.median_ms
            tflops = flops[0][0] / (t.median_ms * 1e9)  # FLOP / (ms · 1e-3) / 1e12
        rows = self._one(
            "INSERT INTO measurements (run_id, device_id, problem_id, method, config_id, status, "
            "median_ms, min_ms, max_ms, p10_ms, p90_ms, rel_spread, samples, tflops, rel_err, "
            "max_abs_err, sm_clock_before_mhz, sm_clock_after_mhz, grid_blocks, message) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING RETURNING id",
            (run, device, r.problem, r.method, r.config, r.status,
             t and t.median_ms, t and t.min_ms, t and t.max_ms, t and t.p10_ms, t and t.p90_ms,
             rel_spread, t and t.samples, tflops, r.rel_err, r.max_abs_err,
             r.sm_clock_before_mhz, r.sm_clock_after_mhz, r.grid_blocks, r.message),
            "store a measurement")
        return rows[0][0] if rows else None


# --- command line -------------------------------------------------------------------------------

class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{message} (see --help)")


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The options; bad input raises UsageError before anything is opened."""
    p = _Parser(prog=TOOL, description="Measure PyTorch eager, torch.compile and a Triton matmul "
                "with the fused epilogue by the rules of Coalesce's harness, and store them as "
                "peer rows in the results database.")
    p.add_argument("--db", default="results/coalesce.db", help="the results database "
                   "(default results/coalesce.db)")
    p.add_argument("--shape", action="append", default=[], metavar="N|MxNxK",
                   help="a problem shape (repeatable; default 1024, 2048, 4096, 8192)")
    p.add_argument("--epilogue", default="bias_gelu", choices=EPILOGUES,
                   help="the epilogue after the GEMM (default bias_gelu, exact erf GELU)")
    p.add_argument("--method", action="append", default=[], choices=METHODS,
                   help="measure only these methods (repeatable; default all three)")
    p.add_argument("--compile-mode", default="default", choices=COMPILE_MODES,
                   help="torch.compile's mode (default: default)")
    p.add_argument("--device", type=int, default=0, help="CUDA device ordinal (default 0)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="input seed (default 1)")
    p.add_argument("--quick", action="store_true",
                   help=f"sampling budget {QUICK_BUDGET_MS:g} ms instead of 2000 and the first "
                        f"{QUICK_TRITON_CONFIGS} Triton configs only")
    p.add_argument("--version", action="version", version=f"{TOOL} {VERSION}")
    args = p.parse_args(argv)
    shapes = []
    for s in args.shape:
        shape = parse_shape(s)
        if shape is None:
            raise UsageError(f"bad --shape '{s}': expected N or MxNxK with positive integers")
        if shape not in shapes:
            shapes.append(shape)
    args.shapes = shapes or list(DEFAULT_SHAPES)
    args.methods = [m for m in METHODS if m in args.method] if args.method else list(METHODS)
    if args.device < 0:
        raise UsageError(f"bad --device {args.device}: a CUDA ordinal is 0 or more")
    if args.seed < 0:
        raise UsageError(f"bad --seed {args.seed}: a seed is 0 or more")
    args.settings = Settings(budget_ms=QUICK_BUDGET_MS) if args.quick else Settings()
    args.triton_configs = TRITON_CONFIGS[:QUICK_TRITON_CONFIGS] if args.quick else TRITON_CONFIGS
    return args


def resume_key(args: argparse.Namespace) -> str:
    """What makes a later invocation the same sweep: its normalized arguments (not --db)."""
    shapes = ",".join(f"{m}x{n}x{k}" for m, n, k in args.shapes)
    return (f"{TOOL} shapes={shapes} epilogue={args.epilogue} methods={','.join(args.methods)} "
            f"compile_mode={args.compile_mode} seed={args.seed} quick={int(args.quick)}")


# --- the GPU side (imports torch and triton lazily) ---------------------------------------------

def load_torch():
    """torch with TF32 off for matmuls (set and asserted), or NoTorch."""
    try:
        import torch
    except ImportError as e:
        raise NoTorch(f"PyTorch is not installed for {sys.executable} ({e}); run this on a host "
                      "with PyTorch and a CUDA GPU")
    except Exception as e:  # a broken install (missing CUDA libraries, ...)
        raise NoTorch(f"PyTorch does not import for {sys.executable}: {type(e).__name__}: "
                      f"{_first_line(e)}")
    # The legacy switches, as asked of every peer: FP32 means FP32. Only these are written, and
    # only these are read back (PyTorch >= 2.9 refuses reads that mix them with fp32_precision).
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if torch.backends.cuda.matmul.allow_tf32 or torch.backends.cudnn.allow_tf32:
        raise PeerError("TF32 could not be turned off for matmuls and cuDNN; the peers would not "
                        "be FP32")
    return torch


def _first_line(e: BaseException, limit: int = 300) -> str:
    text = str(e).strip().splitlines()
    line = text[0] if text else ""
    return line if len(line) <= limit else line[:limit - 3] + "..."


def _failure(e: BaseException) -> tuple[str, str]:
    """(status, message) of an exception raised while compiling or running a method: errors of
    Dynamo, Inductor and Triton's compiler are compile_failed, the rest launch_failed."""
    module = type(e).__module__ or ""
    compile_error = (module.startswith(("torch._dynamo", "torch._inductor", "triton"))
                     or "OutOfResources" in type(e).__name__)
    status = "compile_failed" if compile_error else "launch_failed"
    return status, f"{type(e).__name__}: {_first_line(e)}"


class Nvml:
    """SM clocks and the driver string through pynvml (nvidia-ml-py) when it imports; None/0 and
    '' otherwise, as the C++ harness treats a missing libnvidia-ml."""

    NVML_CLOCK_SM = 1

    def __init__(self, uuid: str, ordinal: int):
        self.handle = None
        try:
            import pynvml
            pynvml.nvmlInit()
            self.nvml = pynvml
            try:
                # By UUID: NVML's indices ignore CUDA_VISIBLE_DEVICES, CUDA's ordinals do not.
                self.handle = pynvml.nvmlDeviceGetHandleByUUID(uuid)
            except Exception:
                self.handle = pynvml.nvmlDeviceGetHandleByIndex(ordinal)
        except Exception:
            self.handle = None

    def sm_clock_mhz(self) -> Optional[int]:
        if self.handle is None:
            return None
        try:
            return int(self.nvml.nvmlDeviceGetClockInfo(self.handle, self.NVML_CLOCK_SM))
        except Exception:
            return None

    def max_sm_clock_mhz(self) -> int:
        if self.handle is None:
            return 0
        try:
            return int(self.nvml.nvmlDeviceGetMaxClockInfo(self.handle, self.NVML_CLOCK_SM))
        except Exception:
            return 0

    def driver_release(self) -> str:
        if self.handle is None:
            return ""
        try:
            v = self.nvml.nvmlSystemGetDriverVersion()
            return v.decode() if isinstance(v, bytes) else str(v)
        except Exception:
            return ""


class Driver:
    """The few CUDA driver calls the devices row and the runs row need that torch does not
    expose (opt-in shared memory, blocks per SM, cuDriverGetVersion), through libcuda.so.1."""

    # CUdevice_attribute values from cuda.h.
    MAX_THREADS_PER_BLOCK = 1
    MAX_THREADS_PER_MULTIPROCESSOR = 39
    MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81
    MAX_REGISTERS_PER_MULTIPROCESSOR = 82
    MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
    MAX_BLOCKS_PER_MULTIPROCESSOR = 106

    def __init__(self, ordinal: int):
        import ctypes
        self.ctypes = ctypes
        try:
            self.lib = ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            raise NoDevice(f"cannot load the CUDA driver (libcuda.so.1): {e}")
        self.dev = ctypes.c_int()
        if self.lib.cuInit(0) != 0 or self.lib.cuDeviceGet(ctypes.byref(self.dev), ordinal) != 0:
            raise NoDevice(f"the CUDA driver does not know device {ordinal}")

    def attribute(self, code: int) -> int:
        v = self.ctypes.c_int()
        rc = self.lib.cuDeviceGetAttribute(self.ctypes.byref(v), code, self.dev)
        if rc != 0:
            raise PeerError(f"cuDeviceGetAttribute({code}) failed with CUDA error {rc}")
        return v.value

    def version(self) -> int:
        v = self.ctypes.c_int()
        return v.value if self.lib.cuDriverGetVersion(self.ctypes.byref(v)) == 0 else 0


def _uuid_bytes(props) -> bytes:
    """The 16 bytes of torch's device UUID (its `bytes`, or its printed form)."""
    raw = getattr(props.uuid, "bytes", None)
    if raw is not None and len(bytes(raw)) == 16:
        return bytes(raw)
    digits = re.sub(r"[^0-9a-fA-F]", "", str(props.uuid).replace("GPU-", ""))
    if len(digits) != 32:
        raise PeerError(f"cannot read the device's UUID from '{props.uuid}'")
    return bytes.fromhex(digits)


class ColdTimer:
    """harness/timing.cpp's ColdTimer with torch: warm-up in GPU time, then per sample the output
    reset and the L2 flush outside the window, one event pair around one launch, synchronized,
    until the stopping rule says enough. Every sample is kept."""

    #: Before the start event the stream gets a GPU spin of this many clock cycles (about 250 µs
    #: at 1.98 GHz), so that Python's time to enqueue the launch (tens of µs for eager's three
    #: ops or a compiled wrapper) passes while the GPU is busy and stays out of the window: the
    #: window then holds what the C++ harness' holds, the GPU's time for the launch (nvbench's
    #: blocking kernel serves the same purpose). Each row states the slowest enqueue it saw.
    SPIN_CYCLES = 500_000

    def __init__(self, torch, device, settings: Settings, l2_bytes: int, nvml: Nvml):
        self.torch = torch
        self.settings = settings
        self.nvml = nvml
        self.flush = torch.empty(int(settings.l2_flush_factor * l2_bytes), dtype=torch.uint8,
                                 device=device)
        self.start = torch.cuda.Event(enable_timing=True)
        self.stop = torch.cuda.Event(enable_timing=True)
        self.spin = getattr(torch.cuda, "_sleep", None)
        self.process_warmed = False

    def _elapsed_ms(self) -> float:
        self.stop.synchronize()
        return float(self.start.elapsed_time(self.stop))

    def measure(self, launch: Callable[[], None], reset: Callable[[], None]) -> dict:
        s = self.settings
        # 1. Warm-up in growing batches between one event pair (no flush: it loads the module
        #    and brings the clocks up).
        target = s.warmup_ms if self.process_warmed else s.first_warmup_ms
        warmup_launches, warmup_ms, batch = 0, 0.0, 1
        while warmup_launches == 0 or warmup_ms < target:
            self.start.record()
            for _ in range(batch):
                launch()
            self.stop.record()
            warmup_ms += self._elapsed_ms()
            warmup_launches += batch
            batch = min(batch * 2, MAX_WARMUP_BATCH)
        self.process_warmed = True

        # 2. Samples.
        samples: list[float] = []
        slowest_enqueue_s = 0.0
        clock_before = self.nvml.sm_clock_mhz()
        wall_start = time.perf_counter()
        while True:
            reset()
            self.flush.zero_()
            if self.spin is not None:
                self.spin(self.SPIN_CYCLES)
            self.start.record()
            t0 = time.perf_counter()
            launch()
            slowest_enqueue_s = max(slowest_enqueue_s, time.perf_counter() - t0)
            self.stop.record()
            samples.append(self._elapsed_ms())
            stats = summarize(samples)
            stop = should_stop(s, stats, (time.perf_counter() - wall_start) * 1e3)
            if stop:
                break
        return {"samples": samples, "stats": stats, "stop": stop, "warmup_launches":
                warmup_launches, "warmup_ms": warmup_ms, "clock_before": clock_before,
                "clock_after": self.nvml.sm_clock_mhz(), "slowest_enqueue_us":
                slowest_enqueue_s * 1e6}


# The Triton kernel is defined at module level because Triton resolves the names a kernel uses
# (tl, ...) in its module's globals; without triton (the CPU machines) the module still imports.
try:
    import triton
    import triton.language as tl
except Exception:  # not installed, or broken: the triton method then says so and is skipped
    triton = None
    tl = None

if triton is not None:

    @triton.jit
    def matmul_epilogue_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                               stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                               EPILOGUE: tl.constexpr, BLOCK_M: tl.constexpr,
                               BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                               GROUP_M: tl.constexpr):
        """C = epilogue(A·B + bias): A (M×K), B (K×N), C (M×N) row-major, FP32 throughout;
        EPILOGUE 0 none, 1 bias, 2 bias_relu, 3 bias_gelu (the index in EPILOGUES)."""
        # Blocks run GROUP_M block-rows at a time down each block-column, so that consecutive
        # blocks share B's panel in L2 instead of sweeping all of B per block-row.
        pid = tl.program_id(0)
        blocks_m = tl.cdiv(M, BLOCK_M)
        blocks_n = tl.cdiv(N, BLOCK_N)
        per_group = GROUP_M * blocks_n
        first_m = (pid // per_group) * GROUP_M
        group_rows = tl.minimum(blocks_m - first_m, GROUP_M)
        block_m = first_m + (pid % per_group) % group_rows
        block_n = (pid % per_group) // group_rows

        rows = block_m * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = block_n * BLOCK_N + tl.arange(0, BLOCK_N)
        ks = tl.arange(0, BLOCK_K)
        a_tile = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
        b_tile = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            # Out-of-range rows, columns and the K tail load as 0 and add nothing.
            a = tl.load(a_tile, mask=(rows[:, None] < M) & (ks[None, :] + k0 < K), other=0.0)
            b = tl.load(b_tile, mask=(ks[:, None] + k0 < K) & (cols[None, :] < N), other=0.0)
            # "ieee": true FP32 products on the FMA units; Triton's default for fp32 is TF32.
            acc = tl.dot(a, b, acc, input_precision="ieee")
            a_tile += BLOCK_K * stride_ak
            b_tile += BLOCK_K * stride_bk

        if EPILOGUE >= 1:  # acc + bias[n]
            bias = tl.load(bias_ptr + cols, mask=cols < N, other=0.0)
            acc = acc + bias[None, :]
        if EPILOGUE == 2:  # relu(x) = max(x, 0)
            acc = tl.maximum(acc, 0.0)
        if EPILOGUE == 3:  # gelu(x) = x/2 · (1 + erf(x/√2)), the exact form
            acc = 0.5 * acc * (1.0 + tl.math.erf(acc * 0.7071067811865476))
        c_tile = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
        tl.store(c_tile, acc, mask=(rows[:, None] < M) & (cols[None, :] < N))

class PeerRun:
    """One invocation on the GPU: the device and run rows, then every problem × method."""

    def __init__(self, args, torch, db: PeerDatabase):
        self.args = args
        self.torch = torch
        self.db = db
        if not torch.cuda.is_available() or torch.cuda.device_count() == 0:
            raise NoDevice("no CUDA device: this machine has no GPU or no NVIDIA driver, or "
                           "this PyTorch was built without CUDA")
        if args.device >= torch.cuda.device_count():
            raise NoDevice(f"no CUDA device {args.device}: this machine has "
                           f"{torch.cuda.device_count()}")
        torch.cuda.set_device(args.device)
        self.device = torch.device("cuda", args.device)
        self.props = torch.cuda.get_device_properties(args.device)
        self.uuid = device_uuid(_uuid_bytes(self.props))
        self.nvml = Nvml(self.uuid, args.device)
        self.driver = Driver(args.device)
        self.triton = triton
        source = Path(__file__).read_bytes()
        versions = (f"torch {torch.__version__} cuda {torch.version.cuda} triton "
                    f"{getattr(self.triton, '__version__', 'none')}")
        # The peers' "source": this file and the libraries it drives. Any change measures afresh.
        self.source_hash = hashlib.sha256(source + versions.encode()).hexdigest()[:16]
        self.versions = versions
        self.stored = 0
        self.timer = None
        self.device_id: Optional[int] = None
        #: The run, opened (or resumed) when the first row is about to be measured, so that an
        #: invocation that finds everything stored leaves no empty run behind.
        self.run: Optional[int] = None

    # -- rows of the environment -----------------------------------------------------------------

    def device_row(self) -> int:
        found = self.db.find_device(self.uuid)
        if found is not None:
            return found
        p, d = self.props, self.driver
        return self.db.insert_device({
            "uuid": self.uuid,
            "name": p.name,
            "arch": f"sm_{p.major}{p.minor}",
            "cc_major": p.major,
            "cc_minor": p.minor,
            "sm_count": p.multi_processor_count,
            "l2_bytes": int(p.L2_cache_size),
            "global_mem_bytes": int(p.total_memory),
            "max_sm_clock_mhz": self.nvml.max_sm_clock_mhz(),
            "fp32_lanes_per_sm": fp32_lanes_per_sm(p.major, p.minor),
            "smem_per_block_optin": d.attribute(Driver.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
            "smem_per_sm": d.attribute(Driver.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
            "max_threads_per_block": d.attribute(Driver.MAX_THREADS_PER_BLOCK),
            "max_threads_per_sm": d.attribute(Driver.MAX_THREADS_PER_MULTIPROCESSOR),
            "regs_per_sm": d.attribute(Driver.MAX_REGISTERS_PER_MULTIPROCESSOR),
            # DeviceLimits' value: the architectural limit the C++ tools store as well.
            "max_regs_per_thread": 255,
            "max_blocks_per_sm": d.attribute(Driver.MAX_BLOCKS_PER_MULTIPROCESSOR),
        })

    def open_run(self) -> int:
        if self.run is None:
            self.run = self._open_run(self.device_id)
            print(f"{TOOL}: run {self.run} on {self.props.name} ({self.uuid}), {self.versions}; "
                  f"writing {self.args.db}", flush=True)
        return self.run

    def _open_run(self, device: int) -> int:
        # Another script or library version is another sweep (its configs are new rows too).
        key = f"{resume_key(self.args)} source={self.source_hash}"
        unfinished = self.db.find_unfinished_run(key, device)
        if unfinished is not None:
            self.db.resume_run(unfinished)
            print(f"{TOOL}: resuming run {unfinished} of this sweep", file=sys.stderr)
            return unfinished
        s = self.args.settings
        harness = dataclasses.asdict(s)
        harness.update({
            "input_seed": self.args.seed,
            "l2_flush_bytes": int(s.l2_flush_factor * self.props.L2_cache_size),
            "gpu_spin_cycles_before_each_sample": ColdTimer.SPIN_CYCLES
            if hasattr(self.torch.cuda, "_sleep") else 0,
            "torch": self.torch.__version__,
            "torch_cuda": self.torch.version.cuda,
            "triton": getattr(self.triton, "__version__", None),
            "compile_mode": self.args.compile_mode,
            "tf32": False,
            "quick": self.args.quick,
        })
        return self.db.begin_run({
            "device_id": device,
            "resume_key": key,
            "tool": TOOL,
            "tool_version": f"{VERSION} ({self.versions})",
            "git_revision": git_revision(),
            "command_line": " ".join(sys.argv),
            "host": socket.gethostname(),
            "driver_version": self.driver.version(),
            "driver_release": self.nvml.driver_release(),
            "runtime_version": cuda_version_number(self.torch.version.cuda),
            "harness_json": json.dumps(harness, separators=(",", ":")),
        })

    # -- inputs, reference, check ---------------------------------------------------------------

    def inputs(self, m: int, n: int, k: int, seed: int):
        """A, B and bias uniform in [-1, 1) from a seeded generator on the device."""
        torch = self.torch
        g = torch.Generator(device=self.device)
        g.manual_seed(seed)

        def uniform(*shape):
            return torch.rand(shape, generator=g, device=self.device,
                              dtype=torch.float32).mul_(2.0).sub_(1.0)

        return uniform(m, k), uniform(k, n), uniform(n)

    def reference(self, a, b, bias):
        """epilogue(A·B + bias) in fp64 from the fp32 inputs widened exactly."""
        x = a.double() @ b.double()
        epi = self.args.epilogue
        if epi != "none":
            x += bias.double()
        if epi == "bias_relu":
            x.clamp_(min=0.0)
        elif epi == "bias_gelu":
            x = 0.5 * x * (1.0 + self.torch.erf(x * (1.0 / math.sqrt(2.0))))
        return x

    def errors(self, out, ref) -> ErrorFigures:
        """harness/workspace.cu's figures: error sums over the finite outputs, the reference's
        over all."""
        torch = self.torch
        finite = torch.isfinite(out)
        diff = (out.double() - ref).abs_().masked_fill_(~finite, 0.0)
        sq_err = float(diff.square().sum())
        sq_ref = float(ref.square().sum())
        if sq_ref > 0:
            rel = math.sqrt(sq_err / sq_ref)
        else:
            rel = math.inf if sq_err > 0 else 0.0
        return ErrorFigures(rel_frobenius=rel, max_abs_err=float(diff.max()),
                            max_abs_ref=float(ref.abs().max()),
                            non_finite=int((~finite).sum()), count=out.numel())

    # -- the methods -----------------------------------------------------------------------------

    def torch_function(self):
        """The epilogue as a PyTorch user writes it, and that expression as text."""
        F = self.torch.nn.functional
        epi = self.args.epilogue
        if epi == "bias_gelu":  # approximate='none' (the default): the erf form
            return (lambda a, b, bias: F.gelu(a @ b + bias)), "F.gelu(a @ b + bias)"
        if epi == "bias_relu":
            return (lambda a, b, bias: F.relu(a @ b + bias)), "F.relu(a @ b + bias)"
        if epi == "bias":
            return (lambda a, b, bias: a @ b + bias), "a @ b + bias"
        return (lambda a, b, bias: a @ b), "a @ b"

    def kernels_per_call(self, call) -> str:
        """The CUDA kernels one call launches, from the profiler (empty when it is unavailable)."""
        torch = self.torch
        try:
            from torch.profiler import ProfilerActivity, profile
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                call()
                torch.cuda.synchronize()
            names = [e.name for e in prof.events()
                     if str(getattr(e, "device_type", "")).endswith("CUDA")
                     and not e.name.startswith(("Memset", "Memcpy"))]
        except Exception:
            return ""
        if not names:
            return ""
        short = [re.sub(r"<.*", "", n)[:48] for n in names]
        return f"{len(names)} kernel{'s' if len(names) > 1 else ''} per call ({', '.join(short)})"

    def measure_all(self):
        """Every problem × method × config not yet stored for this device, one row each."""
        args = self.args
        self.device_id = self.device_row()
        self.timer = ColdTimer(self.torch, self.device, args.settings, self.props.L2_cache_size,
                               self.nvml)
        for m, n, k in args.shapes:
            problem = self.db.upsert_problem(m, n, k, "f32", args.epilogue)
            label = f"{m}x{n}x{k} f32 {args.epilogue}"
            for method in args.methods:
                if method == "triton":
                    if self.triton is None:
                        print(f"{TOOL}: {label}: triton skipped: it does not import for "
                              f"{sys.executable}", file=sys.stderr)
                        continue
                    for cfg in args.triton_configs:
                        config = self.db.upsert_config("triton", cfg.name(args.epilogue),
                                                       cfg.params(), self.source_hash)
                        self.measure_one(problem, (m, n, k), label, method,
                                         cfg.name(args.epilogue), config, cfg)
                else:
                    name = torch_config_name(method, args.epilogue, args.compile_mode)
                    params = {"library": "torch", "tf32": False}
                    if method == "torch_compile":
                        params.update({"backend": "inductor", "mode": args.compile_mode,
                                       "dynamic": False, "fullgraph": True})
                    config = self.db.upsert_config("torch", name, params, self.source_hash)
                    self.measure_one(problem, (m, n, k), label, method, name, config, None)

    def measure_one(self, problem, shape, label, method, name, config, cfg):
        stored = self.db.measured(self.device_id, problem, method, config)
        if stored is not None:
            print(f"{label}  {name}: already measured ({stored[1]}, run {stored[0]}); skipped")
            return
        run = self.open_run()
        row = self.run_method(problem, shape, method, config, cfg)
        if self.db.insert_measurement(run, self.device_id, row) is not None:
            self.stored += 1
        t = row.timing
        if t is not None:
            tflops = 2.0 * shape[0] * shape[1] * shape[2] / (t.median_ms * 1e9)
            print(f"{label}  {name}: ok  median {t.median_ms:.4f} ms  {tflops:.2f} TFLOP/s  "
                  f"({t.samples} samples; rel err {row.rel_err:.2e})", flush=True)
        else:
            print(f"{label}  {name}: {row.status}: {row.message}", flush=True)

    def run_method(self, problem, shape, method, config, cfg) -> Row:
        """Check on fresh inputs, then time, then check the last timed output again (a race
        shows up under repetition): harness/method.cpp's run_method."""
        torch = self.torch
        m, n, k = shape
        row = Row(problem=problem, method=method, config=config, status="ok")
        a, b, bias = self.inputs(m, n, k, derived_seed(self.args.seed, m, n, k, method,
                                                       cfg.name(self.args.epilogue) if cfg
                                                       else ""))
        ref = self.reference(a, b, bias)
        note = ""
        out = {}
        try:
            if method == "triton":
                launch, reset, output, note = self.triton_runner(a, b, bias, shape, cfg)
                row.grid_blocks = ((m + cfg.bm - 1) // cfg.bm) * ((n + cfg.bn - 1) // cfg.bn)
            else:
                fn, expression = self.torch_function()
                if method == "torch_compile":
                    import torch._dynamo
                    torch._dynamo.reset()  # a fresh static-shape compile per problem
                    fn = torch.compile(fn, mode=self.args.compile_mode, dynamic=False,
                                       fullgraph=True)

                def launch(fn=fn):
                    out["c"] = fn(a, b, bias)

                def reset():
                    pass  # every call allocates its output through the caching allocator

                def output():
                    return out["c"]

            reset()
            t0 = time.perf_counter()
            launch()  # the check run; for torch.compile and Triton it also compiles
            torch.cuda.synchronize()
            first_call_s = time.perf_counter() - t0
        except Exception as e:
            row.status, row.message = _failure(e)
            self._require_healthy_context(row.message)
            return row

        try:
            why = self.check(row, output(), ref)
            if why:
                row.status, row.message = "wrong_result", why
                return row
            t = self.timer.measure(launch, reset)
            why = self.check(row, output(), ref)
            if why:
                row.status = "wrong_result"
                row.message = f"wrong after repeated runs (a race?): {why}"
                return row
        except Exception as e:
            row.status, row.message = "launch_failed", f"{type(e).__name__}: {_first_line(e)}"
            row.rel_err = row.max_abs_err = None
            self._require_healthy_context(row.message)
            return row

        st = t["stats"]
        row.timing = Timing(st.median, st.min, st.max, st.p10, st.p90, st.count)
        row.sm_clock_before_mhz = t["clock_before"]
        row.sm_clock_after_mhz = t["clock_after"]
        if method == "torch_eager":
            note = f"PyTorch eager: {expression}, TF32 off"
        elif method == "torch_compile":
            note = (f"torch.compile(mode={self.args.compile_mode}) of {expression}: Inductor, "
                    f"dynamic=False, fullgraph, TF32 off; compiled in {first_call_s:.1f} s "
                    "before timing")
        if method != "triton":
            kernels = self.kernels_per_call(launch)
            if kernels:
                note += f"; {kernels}"
        # The spin's duration at the device's top clock (1980 MHz, the H200's, when NVML is absent).
        spin_us = ColdTimer.SPIN_CYCLES / (self.nvml.max_sm_clock_mhz() or 1980)
        enqueue = f"slowest host enqueue {t['slowest_enqueue_us']:.0f} us"
        if self.timer.spin is None:
            enqueue += " (no GPU spin available: host time may be in the samples)"
        elif t["slowest_enqueue_us"] > spin_us:
            enqueue += f" exceeded the {spin_us:.0f} us GPU spin: host time may be in a sample"
        row.message = f"{note}; stop: {t['stop']}; {enqueue}"
        return row

    def check(self, row: Row, out, ref) -> Optional[str]:
        e = self.errors(out, ref)
        row.rel_err, row.max_abs_err = e.rel_frobenius, e.max_abs_err
        return judge(e)

    def _require_healthy_context(self, what: str):
        """After a failure: a CUDA context that no longer works (an illegal address is sticky)
        ends the run, since nothing after it could be measured."""
        try:
            self.torch.cuda.synchronize()
        except Exception as e:
            raise PeerError(f"the CUDA context is lost ({_first_line(e)}) after: {what}")

    def triton_runner(self, a, b, bias, shape, cfg: TritonConfig):
        torch = self.torch
        kernel = matmul_epilogue_kernel
        m, n, k = shape
        c = torch.empty((m, n), dtype=torch.float32, device=self.device)
        grid = (triton.cdiv(m, cfg.bm) * triton.cdiv(n, cfg.bn),)
        code = EPILOGUES.index(self.args.epilogue)  # 0 none, 1 bias, 2 bias_relu, 3 bias_gelu

        def launch():
            kernel[grid](a, b, bias, c, m, n, k, a.stride(0), a.stride(1), b.stride(0),
                         b.stride(1), c.stride(0), c.stride(1), EPILOGUE=code, BLOCK_M=cfg.bm,
                         BLOCK_N=cfg.bn, BLOCK_K=cfg.bk, GROUP_M=cfg.group_m,
                         num_warps=cfg.warps, num_stages=cfg.stages)

        def reset():
            c.fill_(math.nan)  # poisoned: an unwritten element fails the check

        note = (f"Triton {triton.__version__} tl.dot input_precision=ieee (FP32 on the FMA "
                "units), epilogue fused; 1 kernel per call")
        return launch, reset, (lambda: c), note


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    db = None
    peers = None

    def end_run(status: str):
        if peers is None or peers.run is None:
            return
        try:
            db.end_run(peers.run, status)
        except PeerError as e:
            print(f"{TOOL}: {e}", file=sys.stderr)

    try:
        args = parse_args(argv)
        db = PeerDatabase(args.db)
        torch = load_torch()
        peers = PeerRun(args, torch, db)
        db.connect()
        peers.measure_all()
        if peers.run is None:
            print(f"{TOOL}: nothing to measure: every config is stored for this device in "
                  f"{args.db}")
            return 0
        db.end_run(peers.run, "completed")
        print(f"{TOOL}: stored {peers.stored} rows in run {peers.run} of {args.db}")
        return 0
    except PeerError as e:
        end_run("failed")
        print(f"{TOOL}: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        end_run("interrupted")
        if peers is not None and peers.run is not None:
            print(f"{TOOL}: interrupted: the same command resumes run {peers.run}",
                  file=sys.stderr)
        return 130
    except BaseException:
        end_run("failed")  # an unexpected error: its traceback follows
        raise
    finally:
        if db is not None:
            db.close()


if __name__ == "__main__":
    sys.exit(main())
