#!/usr/bin/env python3
"""Peers for the Coalesce report: PyTorch eager, torch.compile and a Triton matmul with the fused
epilogue, run on the GPU by the rules of the C++ harness (harness/timing.hpp) and recorded
through `coalesce-tune record`, which computes the statistics, judges the error figures and
writes the results database (docs/tuner.md, "Recording outside measurements").

Usage (on a host with PyTorch, Triton and a CUDA GPU, with the tools built or carried in dist/):
  python3 scripts/torch_peers.py --db results/coalesce.db --shape 4096
  python3 scripts/torch_peers.py --quick          # 1024, 2048, 4096, 8192; shorter budgets

docs/reports.md ("Peers from PyTorch and Triton") says what each method runs and the caveats.
This script keeps what only Python can do: build the PyTorch and Triton computations, draw the
inputs, time samples with CUDA events and compute error figures against an fp64 reference on
the GPU. Everything else is asked of `coalesce-tune record` over a pipe, one JSON line each
way; the parts that need no GPU import without torch (tests/unit/reports/torch_peers_test.py
drives them with a fake measurement source).
"""
import argparse
import dataclasses
import hashlib
import json
import math
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Optional

TOOL = "torch_peers.py"
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
import coalesce_tools  # noqa: E402  (beside this script)

METHODS = ("torch_eager", "torch_compile", "triton")
#: The epilogue registry's rows the peers compute (kernels/core/epilogues.hpp: the same names in
#: the same order; tests/unit/reports/torch_peers_test.py checks it). bias_gelu_residual is not
#: here: its peers need a residual operand, which this script does not make yet.
EPILOGUES = ("none", "bias", "bias_relu", "bias_gelu", "bias_gelu_tanh", "bias_silu", "swiglu", "geglu")
#: The gated epilogues (EpilogueReads::gated): C[m][j] = act(gate) · up with B's columns 2j and
#: 2j+1 the gate and up columns j, C of N/2 columns; the gate's activation.
GATED = {"swiglu": "silu", "geglu": "gelu"}
COMPILE_MODES = ("default", "max-autotune-no-cudagraphs")
DEFAULT_SHAPES = ((1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192))
#: The seed of the inputs (coalesce-tune uses 1 too); each measurement derives its own from it.
DEFAULT_SEED = 1


@dataclasses.dataclass(frozen=True)
class DtypeSpec:
    """How the peers compute a problem of one dtype (kernels/core/types.hpp, gemm_types()): the torch dtype
    of A, B, bias and C, whether matmuls may use TF32, and the Triton kernel's tl.dot precision
    (it applies to f32 operands only: "ieee" keeps FP32 on the FMA units, "tf32" takes the tensor
    cores; 16-bit operands always go to the tensor cores)."""

    storage: str
    tf32: bool
    input_precision: str = "ieee"


#: The dtypes the peers run: every one Coalesce computes. The epilogue is computed in f32 and C
#: stored once in the dtype by Triton; PyTorch stores C in the dtype after each kernel.
DTYPES = {
    "f32": DtypeSpec(storage="float32", tf32=False),
    "tf32": DtypeSpec(storage="float32", tf32=True, input_precision="tf32"),
    "bf16": DtypeSpec(storage="bfloat16", tf32=False),
    "f16": DtypeSpec(storage="float16", tf32=False),
}

#: --quick: a quarter of the harness' 2000 ms sampling budget (sent as the run's harness
#: setting). A kernel whose mean settles to 0.5% stops as early as before; only noisy ones stop
#: sooner (their rows say so: "stop: budget").
QUICK_BUDGET_MS = 500.0

#: --steady-samples: the fewest samples the steady state is timed with (harness/timing_settings.hpp
#: kSteadyStateMinSamples, the rule of the database's v_run_regimes).
STEADY_MIN_SAMPLES = 1000

#: --spin-cycles: the GPU spin before each sample, in clock cycles (about 250 µs at 1.98 GHz),
#: harness/timing_settings.hpp kDefaultSpinCycles: the shared timing protocol, flush_spin, of
#: every method, coalesce-tune's too (docs/tuner.md, "The timing protocol"). It hides Python's
#: enqueue of the timed launch; it also rests the GPU, which is why every method gets it.
DEFAULT_SPIN_CYCLES = 500_000

#: The most launches queued between two events during warm-up, as harness/timing.cpp's
#: kMaxWarmupBatch: enough to hide launch gaps, few enough to stop near the warm-up target.
MAX_WARMUP_BATCH = 256


# --- errors -------------------------------------------------------------------------------------

class PeerError(Exception):
    """A refusal or failure, told in one sentence; `exit_code` is what the process returns."""

    exit_code = 1


class UsageError(PeerError):
    """Bad usage: status 2, as every Coalesce tool (docs/working.md, "Exit status")."""
    exit_code = 2


class NoTorch(PeerError):
    """This machine cannot measure: status 3, as a tool that finds no CUDA device."""
    exit_code = 3


class NoDevice(PeerError):
    exit_code = 3


# --- problems, configs, names -------------------------------------------------------------------

#: The largest side a --shape takes, as every tool's (kernels/core/problem.hpp, kMaxExtent).
MAX_EXTENT = 1 << 20


def parse_shape(text: str) -> Optional[tuple[int, int, int]]:
    """"N" (M = N = K) or "MxNxK" (x or ×, as the reports print shapes), each side 1..MAX_EXTENT:
    the tools' --shape (kernels/core/problem.hpp, parse_extents)."""
    if not re.fullmatch(r"[0-9]+([x×][0-9]+[x×][0-9]+)?", text):
        return None
    dims = [int(p) for p in re.split("[x×]", text)]
    if any(d <= 0 or d > MAX_EXTENT for d in dims):
        return None
    return (dims[0],) * 3 if len(dims) == 1 else (dims[0], dims[1], dims[2])


@dataclasses.dataclass(frozen=True)
class Problem:
    """C = epilogue(A·B + bias), A M×K, B K×N, row-major, in `dtype` (the `problems` row)."""

    m: int
    n: int
    k: int
    dtype: str
    epilogue: str

    def json(self) -> dict:
        return dataclasses.asdict(self)

    def label(self) -> str:
        return f"{self.m}x{self.n}x{self.k} {self.dtype} {self.epilogue}"


@dataclasses.dataclass(frozen=True)
class TritonConfig:
    """One block config of the Triton kernel below; GROUP_M rasterizes blocks for L2 reuse."""

    bm: int
    bn: int
    bk: int
    warps: int
    stages: int
    group_m: int = 8

    def name(self, dtype: str, epilogue: str) -> str:
        return (f"triton_{dtype}_bm{self.bm}_bn{self.bn}_bk{self.bk}_w{self.warps}"
                f"_s{self.stages}_{epilogue}")

    def params(self, dtype: str) -> dict:
        out = {"bm": self.bm, "bn": self.bn, "bk": self.bk, "num_warps": self.warps,
               "num_stages": self.stages, "group_m": self.group_m}
        if DTYPES[dtype].storage == "float32":  # tl.dot's precision applies to f32 operands only
            out["input_precision"] = DTYPES[dtype].input_precision
        return out


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
#: On the tensor cores larger tiles and deeper K slices, the shapes Triton's own matmul tutorial
#: autotunes over: for 16-bit operands three stages of 128×64 + 64×256 take 144 KiB of shared
#: memory; tf32 operands are twice the bytes, so its K slices are half as deep.
TENSOR_TRITON_CONFIGS = (
    TritonConfig(128, 256, 64, 8, 3),
    TritonConfig(128, 128, 64, 8, 3),
    TritonConfig(128, 128, 32, 4, 4),
    TritonConfig(64, 128, 32, 4, 4),
)
TF32_TRITON_CONFIGS = (
    TritonConfig(128, 256, 32, 8, 3),
    TritonConfig(128, 128, 32, 8, 3),
    TritonConfig(128, 128, 32, 4, 4),
    TritonConfig(64, 128, 32, 4, 4),
)
#: --quick tries the first two.
QUICK_TRITON_CONFIGS = 2


def triton_configs(dtype: str) -> tuple:
    """The Triton block configs tried for a dtype."""
    return {"f32": TRITON_CONFIGS, "tf32": TF32_TRITON_CONFIGS}.get(dtype, TENSOR_TRITON_CONFIGS)


@dataclasses.dataclass(frozen=True)
class Planned:
    """One row to measure: a problem, a method and its config (family, name, parameters)."""

    problem: Problem
    method: str
    family: str
    config: str
    params: dict = dataclasses.field(hash=False)
    triton: Optional[TritonConfig] = None


def plan(args: argparse.Namespace) -> list[Planned]:
    """Every problem × method × config of the invocation, in the order they are measured."""
    out = []
    for m, n, k in args.shapes:
        p = Problem(m, n, k, args.dtype, args.epilogue)
        for method in args.methods:
            if method == "triton":
                out += [Planned(p, method, "triton", cfg.name(p.dtype, p.epilogue),
                                cfg.params(p.dtype), cfg) for cfg in args.triton_configs]
                continue
            params = {"library": "torch", "tf32": DTYPES[p.dtype].tf32}
            name = f"torch_eager_{p.dtype}_{p.epilogue}"
            if method == "torch_compile":
                params.update({"backend": "inductor", "mode": args.compile_mode, "dynamic": False,
                               "fullgraph": True})
                name = (f"torch_compile_{args.compile_mode.replace('-', '_')}_{p.dtype}_"
                        f"{p.epilogue}")
            out.append(Planned(p, method, "torch", name, params))
    return out


def device_uuid(raw: bytes) -> str:
    """A device's 16 UUID bytes as NVIDIA writes them: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx."""
    h = raw.hex()
    return f"GPU-{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def cuda_version_number(text: Optional[str]) -> int:
    """"12.8" -> 12080 (cudaRuntimeGetVersion's encoding); 0 when unknown."""
    m = re.fullmatch(r"(\d+)\.(\d+)(\..*)?", text or "")
    return int(m.group(1)) * 1000 + int(m.group(2)) * 10 if m else 0


def git_revision() -> Optional[str]:
    """The checkout's short revision with "-dirty" for uncommitted changes (as
    cmake/Version.cmake), or None outside a git checkout."""
    try:
        rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short=12", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        if rev.returncode != 0 or not rev.stdout.strip():
            return None
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True, text=True, timeout=10)
        return rev.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


def derived_seed(seed: int, *parts) -> int:
    """A measurement's own input seed: fresh inputs per method and config, as the C++ harness
    refills its workspace before each check, and the same ones when a run is resumed."""
    digest = hashlib.sha256(json.dumps([seed, *parts]).encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)


# --- command line -------------------------------------------------------------------------------

class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{message} (see --help)")


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The options; bad input raises UsageError before anything is started."""
    p = _Parser(prog=TOOL, description="Measure PyTorch eager, torch.compile and a Triton matmul "
                "with the fused epilogue by the rules of Coalesce's harness, and record them as "
                "peer rows in the results database through `coalesce-tune record`.")
    p.add_argument("--db", default="results/coalesce.db", help="the results database "
                   "(default results/coalesce.db)")
    p.add_argument("--tune", metavar="PATH", help="the coalesce-tune binary (default "
                   "dist/bin/coalesce-tune, then build/bin/coalesce-tune, then PATH)")
    p.add_argument("--shape", action="append", default=[], metavar="N|MxNxK",
                   help="a problem shape (repeatable; default 1024, 2048, 4096, 8192)")
    p.add_argument("--dtype", default="f32", choices=tuple(DTYPES),
                   help="the problem's dtype (default f32)")
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
    p.add_argument("--steady-samples", type=int, metavar="N",
                   help=f"time every method N times back to back (at least {STEADY_MIN_SAMPLES}): "
                        "the steady state, as `coalesce-tune sweep --steady-top` times the tuned "
                        "kernels (docs/tuner.md)")
    p.add_argument("--spin-cycles", type=int, default=DEFAULT_SPIN_CYCLES, metavar="N",
                   help=f"GPU spin before each sample, in clock cycles (default {DEFAULT_SPIN_CYCLES}, "
                        "about 250 us at 1.98 GHz, as coalesce-tune's): it keeps Python's enqueue out "
                        "of the samples; 0 times each sample behind only the output reset and the L2 "
                        "flush")
    p.add_argument("--min-samples", type=int, metavar="N",
                   help="timed samples per method at least (the harness' default 20); "
                        "coalesce-tune sweep --peers passes its own")
    p.add_argument("--max-samples", type=int, metavar="N",
                   help="timed samples per method at most (the harness' default 1000)")
    p.add_argument("--sample-gap-ms", type=float, metavar="MS",
                   help="milliseconds the GPU rests after each timed sample (the flush_rested "
                        "protocol; default 0)")
    args = p.parse_args(argv)
    if args.spin_cycles < 0:
        raise UsageError(f"bad --spin-cycles {args.spin_cycles}: a spin is 0 cycles or more")
    if args.steady_samples is not None and args.steady_samples < STEADY_MIN_SAMPLES:
        raise UsageError(f"bad --steady-samples {args.steady_samples}: the steady state is "
                         f"{STEADY_MIN_SAMPLES} samples or more")
    if args.steady_samples is not None and (args.min_samples is not None
                                            or args.max_samples is not None):
        raise UsageError("--steady-samples sets both sample counts: give it or --min-samples and "
                         "--max-samples, not both")
    for name in ("min_samples", "max_samples"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise UsageError(f"bad --{name.replace('_', '-')} {value}: a sample count is 1 or more")
    # Unset, each keeps the harness' default (harness/timing_settings.hpp: 20 and 1000).
    fewest = 20 if args.min_samples is None else args.min_samples
    most = 1000 if args.max_samples is None else args.max_samples
    if most < fewest:
        raise UsageError(f"bad sample counts: at most {most} is below at least {fewest} "
                         "(--min-samples, --max-samples)")
    if args.sample_gap_ms is not None and not (0 <= args.sample_gap_ms <= 1000):
        raise UsageError(f"bad --sample-gap-ms {args.sample_gap_ms:g}: from 0 to 1000 ms")
    shapes = []
    for s in args.shape:
        shape = parse_shape(s)
        if shape is None:
            raise UsageError(f"bad --shape '{s}': expected N (M = N = K) or MxNxK (x or ×), each "
                             f"side a whole number from 1 to {MAX_EXTENT}")
        if shape not in shapes:
            shapes.append(shape)
    args.shapes = shapes or list(DEFAULT_SHAPES)
    args.methods = [m for m in METHODS if m in args.method] if args.method else list(METHODS)
    if args.epilogue in GATED:
        if args.method and "triton" in args.method:
            raise UsageError(f"--method triton: the Triton kernel has no gated epilogue ({args.epilogue}); "
                             "the gated peers are torch_eager and torch_compile")
        args.methods = [m for m in args.methods if m != "triton"]
        if any(n % 2 for _, n, _ in shapes or DEFAULT_SHAPES):
            raise UsageError(f"--epilogue {args.epilogue}: N is the gate and up columns together and must be "
                             "even")
    if args.device < 0:
        raise UsageError(f"bad --device {args.device}: a CUDA ordinal is 0 or more")
    if args.seed < 0:
        raise UsageError(f"bad --seed {args.seed}: a seed is 0 or more")
    configs = triton_configs(args.dtype)
    args.triton_configs = configs[:QUICK_TRITON_CONFIGS] if args.quick else configs
    args.command_line = " ".join([TOOL, *argv])
    return args


def resume_key(args: argparse.Namespace) -> str:
    """What makes a later invocation the same sweep: its normalized arguments (not --db)."""
    shapes = ",".join(f"{m}x{n}x{k}" for m, n, k in args.shapes)
    return (f"{TOOL} shapes={shapes} dtype={args.dtype} epilogue={args.epilogue} "
            f"methods={','.join(args.methods)} compile_mode={args.compile_mode} seed={args.seed} "
            f"quick={int(args.quick)}"
            + (f" steady_samples={args.steady_samples}" if args.steady_samples else "")
            + (f" min_samples={args.min_samples}" if args.min_samples is not None else "")
            + (f" max_samples={args.max_samples}" if args.max_samples is not None else "")
            + (f" sample_gap_ms={args.sample_gap_ms:g}" if args.sample_gap_ms else "")
            + (f" spin_cycles={args.spin_cycles}" if args.spin_cycles != DEFAULT_SPIN_CYCLES else ""))


def find_tune(given: Optional[str]) -> str:
    """The coalesce-tune binary (coalesce_tools.find_tune)."""
    return coalesce_tools.find_tune(given, UsageError)


# --- the recorder: `coalesce-tune record` over a pipe -------------------------------------------

class Recorder:
    """A `coalesce-tune record --db DB` process: each line sent is answered by one JSON line.
    It runs in a session of its own, so Ctrl-C reaches only this script, which then ends the
    run as interrupted."""

    def __init__(self, tune: str, db: str):
        self.tune = tune
        self.version, self.git = self._tool_version(tune)
        try:
            self.proc = subprocess.Popen([tune, "record", "--db", db], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True, start_new_session=True)
        except OSError as e:
            raise PeerError(f"cannot start {tune} record: {e.strerror}")

    @staticmethod
    def _tool_version(tune: str) -> tuple[str, str]:
        """The tools' version and git revision from `coalesce-tune --version` ("coalesce-tune
        0.1.0 (git abc)")."""
        try:
            out = subprocess.run([tune, "--version"], capture_output=True, text=True,
                                 timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        m = re.search(r"coalesce-tune (\S+) \(git (\S+)\)", out)
        return (m.group(1), m.group(2)) if m else ("unknown", "unknown")

    def send(self, line: dict) -> dict:
        """Sends one line and returns its answer; PeerError with the tool's sentence when it
        refuses the line or the database."""
        try:
            self.proc.stdin.write(json.dumps(line, allow_nan=False, separators=(",", ":")) + "\n")
            self.proc.stdin.flush()
            answer = self.proc.stdout.readline()
        except BrokenPipeError:
            answer = ""
        if not answer:
            raise PeerError(self._why_stopped())
        return json.loads(answer)

    def _why_stopped(self) -> str:
        code = self.proc.wait()
        said = [line for line in self.proc.stderr.read().splitlines() if line.strip()]
        return said[-1] if said else f"{self.tune} record stopped (exit status {code})"

    def close(self):
        """Closes the feed and waits; without an end line the tool leaves the run interrupted."""
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


# --- the run: its header, then per planned row a probe, the measurement and its row -------------

class Peers:
    """One invocation: what `backend` measures, fed to `recorder` row by row. `backend` is the
    GPU (TorchBackend) or, in the tests, a fake with the same three methods: environment(),
    skip_reason(method) and measure(planned, seed, harness, sample)."""

    def __init__(self, args: argparse.Namespace, backend, recorder: Recorder):
        self.args = args
        self.backend = backend
        self.recorder = recorder
        self.env = backend.environment()
        self.versions = " ".join(f"{k} {v}" for k, v in self.env["versions"].items())
        # The peers' "source": this file and the libraries it drives. Any change measures afresh.
        source = Path(__file__).read_bytes() + self.versions.encode()
        self.source_hash = hashlib.sha256(source).hexdigest()[:16]
        self.harness: dict = {}
        self.run: Optional[int] = None
        self.stored = 0

    def header(self) -> dict:
        """The run header: the device as torch and the driver see it, the tool, the settings."""
        # spin_cycles is TimingSettings' field: the run's protocol (v_run_protocols) reads it.
        harness = {"input_seed": self.args.seed, "quick": self.args.quick,
                   "compile_mode": self.args.compile_mode, "tf32": DTYPES[self.args.dtype].tf32,
                   "spin_cycles": self.args.spin_cycles,
                   **self.env.get("harness", {}), **self.env["versions"]}
        if self.args.quick:
            harness["budget_ms"] = QUICK_BUDGET_MS
        if self.args.steady_samples:
            harness["min_samples"] = harness["max_samples"] = self.args.steady_samples
        if self.args.min_samples is not None:
            harness["min_samples"] = self.args.min_samples
        if self.args.max_samples is not None:
            harness["max_samples"] = self.args.max_samples
        if self.args.sample_gap_ms:
            harness["sample_gap_ms"] = self.args.sample_gap_ms
        return {
            "kind": "run",
            "tool": TOOL,
            "tool_version": f"{self.recorder.version} ({self.versions})",
            "git_revision": git_revision() or self.recorder.git,
            "command_line": self.args.command_line,
            "host": socket.gethostname(),
            "resume_key": f"{resume_key(self.args)} source={self.source_hash}",
            "driver_version": self.env["driver_version"],
            "driver_release": self.env["driver_release"],
            "runtime_version": self.env["runtime_version"],
            "device": self.env["device"],
            "harness": harness,
        }

    def sample(self, ms: float) -> Optional[str]:
        """Feeds one timed sample; the harness' stopping rule answers why to stop, or None."""
        return self.recorder.send({"kind": "sample", "ms": ms})["stop"]

    def run_all(self) -> int:
        answer = self.recorder.send(self.header())
        self.harness = answer["harness"]
        device = self.env["device"]
        print(f"{TOOL}: {device['name']} ({device['uuid']}), {self.versions}; recording into "
              f"{self.args.db}", flush=True)
        try:
            for planned in plan(self.args):
                self.measure_one(planned)
        except KeyboardInterrupt:
            # The feed ends without its end line (a line may have been cut short): the recorder
            # leaves the run interrupted, and the same command resumes it.
            self.recorder.close()
            print(f"{TOOL}: interrupted: the same command resumes the run", file=sys.stderr)
            return 130
        self.recorder.send({"kind": "end", "status": "completed"})
        if self.run is None:
            print(f"{TOOL}: nothing stored: every config was measured on this device before "
                  f"(in {self.args.db}) or skipped")
        else:
            print(f"{TOOL}: stored {self.stored} rows in run {self.run} of {self.args.db}")
        return 0

    def measure_one(self, p: Planned):
        key = {"problem": p.problem.json(), "method": p.method, "config": p.config,
               "source_hash": self.source_hash}
        label = p.problem.label()
        stored = self.recorder.send({"kind": "measured", **key})
        if stored["measured"]:
            print(f"{label}  {p.config}: already measured ({stored['status']}, run "
                  f"{stored['run']}); skipped")
            return
        why_not = self.backend.skip_reason(p.method)
        if why_not:
            print(f"{TOOL}: {label}: {p.method} skipped: {why_not}", file=sys.stderr)
            return
        seed = derived_seed(self.args.seed, p.problem.m, p.problem.n, p.problem.k, p.method,
                            p.config if p.triton else "")
        fields = self.backend.measure(p, seed, self.harness, self.sample)
        answer = self.recorder.send({"kind": "measurement", **key, "family": p.family,
                                     "params": p.params, **fields})
        if answer["stored"]:
            self.stored += 1
            self.run = answer["run"]
        if answer["status"] == "ok":
            print(f"{label}  {p.config}: ok  median {answer['median_ms']:.4f} ms  "
                  f"{answer['tflops']:.2f} TFLOP/s  ({answer['samples']} samples)", flush=True)
        else:
            print(f"{label}  {p.config}: {answer['status']}: {answer['message']}", flush=True)


# --- the GPU side (imports torch and triton lazily) ---------------------------------------------

def load_torch():
    """torch, or NoTorch."""
    try:
        import torch
    except ImportError as e:
        raise NoTorch(f"PyTorch is not installed for {sys.executable} ({e}); run this on a host "
                      "with PyTorch and a CUDA GPU")
    except Exception as e:  # a broken install (missing CUDA libraries, ...)
        raise NoTorch(f"PyTorch does not import for {sys.executable}: {type(e).__name__}: "
                      f"{_first_line(e)}")
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
    """The few CUDA driver calls the device's limits and the run need that torch does not expose
    (opt-in shared memory, blocks per SM, cuDriverGetVersion), through libcuda.so.1."""

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
    """harness/timing.cpp's ColdTimer with torch, step for step: warm-up in GPU time, then per
    sample the output reset, the L2 flush (a write of l2_flush_factor × L2, rounded down to 16
    bytes as the harness' buffer is) and the GPU spin outside the window, one event pair around
    one launch, synchronized, then the rest of sample_gap_ms; each sample goes to
    `coalesce-tune record`, whose stopping rule (the run's min_samples, max_samples,
    max_rel_std_error and budget_ms) says when enough were taken. The flush size, warm-up times
    and gap are the harness settings the recorder answered with."""

    #: Before the start event the stream gets a GPU spin of `spin_cycles` clock cycles
    #: (--spin-cycles, default about 250 µs at 1.98 GHz), so that Python's time to enqueue the
    #: launch (tens of µs for eager's three ops or a compiled wrapper) passes while the GPU is
    #: busy and stays out of the window (nvbench's blocking kernel serves the same purpose). The
    #: C++ harness spins the same way (TimingSettings::spin_cycles, its one-thread clock64 loop
    #: is torch.cuda._sleep's), so every method of a comparison is timed behind the same spin.
    #: Each row states the slowest enqueue it saw.

    def __init__(self, torch, device, harness: dict, l2_bytes: int, nvml: Nvml, spin_cycles: int):
        self.torch = torch
        self.harness = harness
        self.nvml = nvml
        self.flush = torch.empty(int(harness["l2_flush_factor"] * l2_bytes) // 16 * 16,
                                 dtype=torch.uint8, device=device)
        self.gap_s = float(harness.get("sample_gap_ms", 0)) / 1e3
        self.start = torch.cuda.Event(enable_timing=True)
        self.stop = torch.cuda.Event(enable_timing=True)
        self.spin = getattr(torch.cuda, "_sleep", None) if spin_cycles > 0 else None
        self.spin_cycles = spin_cycles
        self.process_warmed = False

    def _elapsed_ms(self) -> float:
        self.stop.synchronize()
        return float(self.start.elapsed_time(self.stop))

    def measure(self, launch: Callable[[], None], reset: Callable[[], None],
                sample: Callable[[float], Optional[str]]) -> dict:
        # 1. Warm-up in growing batches between one event pair (no flush: it loads the module
        #    and brings the clocks up).
        h = self.harness
        target = h["warmup_ms"] if self.process_warmed else h["first_warmup_ms"]
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

        # 2. Samples, until the recorder's stopping rule says why to stop.
        slowest_enqueue_s = 0.0
        clock_before = self.nvml.sm_clock_mhz()
        while True:
            reset()
            self.flush.zero_()
            if self.spin is not None:
                self.spin(self.spin_cycles)
            self.start.record()
            t0 = time.perf_counter()
            launch()
            slowest_enqueue_s = max(slowest_enqueue_s, time.perf_counter() - t0)
            self.stop.record()
            ms = self._elapsed_ms()
            if self.gap_s > 0:
                time.sleep(self.gap_s)
            if sample(ms):
                break
        return {"clock_before": clock_before, "clock_after": self.nvml.sm_clock_mhz(),
                "slowest_enqueue_us": slowest_enqueue_s * 1e6}


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
                               GROUP_M: tl.constexpr, INPUT_PRECISION: tl.constexpr):
        """C = epilogue(A·B + bias): A (M×K), B (K×N), C (M×N) row-major in the problem's
        storage type, accumulated and finished in f32, C rounded once on the store;
        EPILOGUE 0 none, 1 bias, 2 bias_relu, 3 bias_gelu, 4 bias_gelu_tanh, 5 bias_silu (the
        index in EPILOGUES)."""
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
            # f32: "ieee" (true FP32 products on the FMA units; Triton's default for fp32 is
            # TF32) or "tf32"; 16-bit operands ignore it and take the tensor cores.
            acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)
            a_tile += BLOCK_K * stride_ak
            b_tile += BLOCK_K * stride_bk

        if EPILOGUE >= 1:  # acc + bias[n]
            bias = tl.load(bias_ptr + cols, mask=cols < N, other=0.0)
            acc = acc + bias[None, :].to(tl.float32)
        if EPILOGUE == 2:  # relu(x) = max(x, 0)
            acc = tl.maximum(acc, 0.0)
        if EPILOGUE == 3:  # gelu(x) = x/2 · (1 + erf(x/√2)), the exact form
            acc = 0.5 * acc * (1.0 + tl.math.erf(acc * 0.7071067811865476))
        if EPILOGUE == 4:  # x/2 · (1 + tanh(y)) = x · sigmoid(2y), y = √(2/π)(x + 0.044715 x³)
            acc = acc * tl.sigmoid(1.5957691216057308 * (acc + 0.044715 * acc * acc * acc))
        if EPILOGUE == 5:  # silu(x) = x · sigmoid(x)
            acc = acc * tl.sigmoid(acc)
        c_tile = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
        tl.store(c_tile, acc.to(c_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


class TorchBackend:
    """The measurements on the GPU: each method run once on fresh inputs, timed cold, and its
    first and last timed outputs compared with an fp64 reference (the figures; the verdict is
    the recorder's, as is every statistic)."""

    def __init__(self, args: argparse.Namespace, torch):
        self.args = args
        self.torch = torch
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
        self.timer: Optional[ColdTimer] = None

    def environment(self) -> dict:
        p, d, torch = self.props, self.driver, self.torch
        return {
            "device": {
                "uuid": self.uuid,
                "name": p.name,
                "cc_major": p.major,
                "cc_minor": p.minor,
                "sm_count": p.multi_processor_count,
                "l2_bytes": int(p.L2_cache_size),
                "global_mem_bytes": int(p.total_memory),
                "max_sm_clock_mhz": self.nvml.max_sm_clock_mhz(),
                "limits": {
                    "smem_per_block_optin": d.attribute(Driver.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
                    "smem_per_sm": d.attribute(Driver.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
                    "max_threads_per_block": d.attribute(Driver.MAX_THREADS_PER_BLOCK),
                    "max_threads_per_sm": d.attribute(Driver.MAX_THREADS_PER_MULTIPROCESSOR),
                    "regs_per_sm": d.attribute(Driver.MAX_REGISTERS_PER_MULTIPROCESSOR),
                    # DeviceLimits' value: the architectural limit the C++ tools store as well.
                    "max_regs_per_thread": 255,
                    "max_blocks_per_sm": d.attribute(Driver.MAX_BLOCKS_PER_MULTIPROCESSOR),
                },
            },
            "driver_version": d.version(),
            "driver_release": self.nvml.driver_release(),
            "runtime_version": cuda_version_number(torch.version.cuda),
            "versions": {"torch": torch.__version__, "cuda": torch.version.cuda,
                         "triton": getattr(triton, "__version__", "none")},
            # A torch without the spin times without it, and the run says so.
            **({} if hasattr(torch.cuda, "_sleep") else {"harness": {"spin_cycles": 0}}),
        }

    def skip_reason(self, method: str) -> Optional[str]:
        if method == "triton" and triton is None:
            return f"it does not import for {sys.executable}"
        return None

    # -- inputs, reference, figures -------------------------------------------------------------

    def set_precision(self, spec: DtypeSpec):
        """TF32 for matmuls and cuDNN as the dtype says, set and read back. Only the legacy
        switches are written and read (PyTorch >= 2.9 refuses reads that mix them with
        fp32_precision)."""
        torch = self.torch
        torch.backends.cuda.matmul.allow_tf32 = spec.tf32
        torch.backends.cudnn.allow_tf32 = spec.tf32
        if (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32) != (spec.tf32,
                                                                                      spec.tf32):
            raise PeerError(f"TF32 could not be {'enabled' if spec.tf32 else 'turned off'} for "
                            "matmuls and cuDNN")

    def inputs(self, p: Problem, seed: int):
        """A, B and bias uniform in [-1, 1) from a seeded generator on the device, then stored in
        the problem's dtype."""
        torch = self.torch
        g = torch.Generator(device=self.device)
        g.manual_seed(seed)
        storage = getattr(torch, DTYPES[p.dtype].storage)

        def uniform(*shape):
            x = torch.rand(shape, generator=g, device=self.device, dtype=torch.float32)
            return x.mul_(2.0).sub_(1.0).to(storage)

        return uniform(p.m, p.k), uniform(p.k, p.n), uniform(p.n)

    @staticmethod
    def halves(b):
        """A gated problem's B (gate and up columns interleaved, as Coalesce's kernels read it)
        as frameworks store the merged weight: the gate columns, then the up columns. Made once
        per problem, before timing: the peers run their own layout."""
        import torch
        return torch.cat([b[:, 0::2], b[:, 1::2]], dim=1).contiguous()

    def reference(self, p: Problem, a, b, bias):
        """(pre, ref): A·B + bias and epilogue(A·B + bias) in fp64 from the stored inputs widened
        exactly; for a gated epilogue pre is A·B (N columns, interleaved) and ref act(gate)·up."""
        pre = a.double() @ b.double()
        if p.epilogue in GATED:
            g, u = pre[:, 0::2], pre[:, 1::2]
            if GATED[p.epilogue] == "silu":
                act = g / (1.0 + self.torch.exp(-g))
            else:
                act = 0.5 * g * (1.0 + self.torch.erf(g * (1.0 / math.sqrt(2.0))))
            return pre, act * u
        if p.epilogue != "none":
            pre += bias.double()
        x = pre
        if p.epilogue == "bias_relu":
            x = pre.clamp(min=0.0)
        elif p.epilogue == "bias_gelu":
            x = 0.5 * pre * (1.0 + self.torch.erf(pre * (1.0 / math.sqrt(2.0))))
        elif p.epilogue == "bias_gelu_tanh":
            x = 0.5 * pre * (1.0 + self.torch.tanh(math.sqrt(2.0 / math.pi) * (pre + 0.044715 * pre ** 3)))
        elif p.epilogue == "bias_silu":
            x = pre / (1.0 + self.torch.exp(-pre))
        return pre, x

    def errors(self, out, reference) -> dict:
        """harness/workspace.cu's figures: error sums over the finite outputs, the reference's
        over all (random inputs never give an all-zero reference), and the elementwise figure,
        each error over |pre-activation| + rms(pre-activation) (harness/check.hpp)."""
        torch = self.torch
        pre, ref = reference
        finite = torch.isfinite(out)
        diff = (out.double() - ref).abs_().masked_fill_(~finite, 0.0)
        rms = math.sqrt(float(pre.square().mean()))
        if ref.shape != pre.shape:  # gated: output j over (|gate| + rms)·(|up| + rms), as the harness
            scale = (pre[:, 0::2].abs() + rms) * (pre[:, 1::2].abs() + rms)
        else:
            scale = pre.abs() + rms
        return {"rel_frobenius": math.sqrt(float(diff.square().sum()) / float(ref.square().sum())),
                "max_abs_err": float(diff.max()), "max_abs_ref": float(ref.abs().max()),
                "max_scaled_err": float((diff / scale).max()),
                "non_finite": int((~finite).sum()), "count": out.numel()}

    # -- the methods -----------------------------------------------------------------------------

    def torch_function(self, epilogue: str):
        """The epilogue as a PyTorch user writes it, and that expression as text."""
        F = self.torch.nn.functional
        if epilogue in GATED:  # b: [gate | up] halves (halves()), as vLLM's merged gate_up_proj
            act = F.silu if GATED[epilogue] == "silu" else F.gelu

            def gated(a, b, bias):
                gate, up = (a @ b).chunk(2, dim=-1)
                return act(gate) * up

            return gated, f"gate, up = (a @ w_gate_up).chunk(2, -1); F.{GATED[epilogue]}(gate) * up"
        if epilogue == "bias_gelu":  # approximate='none' (the default): the erf form
            return (lambda a, b, bias: F.gelu(a @ b + bias)), "F.gelu(a @ b + bias)"
        if epilogue == "bias_gelu_tanh":
            return ((lambda a, b, bias: F.gelu(a @ b + bias, approximate="tanh")),
                    "F.gelu(a @ b + bias, approximate='tanh')")
        if epilogue == "bias_silu":
            return (lambda a, b, bias: F.silu(a @ b + bias)), "F.silu(a @ b + bias)"
        if epilogue == "bias_relu":
            return (lambda a, b, bias: F.relu(a @ b + bias)), "F.relu(a @ b + bias)"
        if epilogue == "bias":
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

    def measure(self, planned: Planned, seed: int, harness: dict,
                sample: Callable[[float], Optional[str]]) -> dict:
        """The measurement line's fields: the figures of the first output (fresh inputs) and of
        the last timed one (a race shows up under repetition), with the samples fed to
        `sample` meanwhile; or a status and message when the method could not run."""
        torch = self.torch
        p = planned.problem
        if self.timer is None:
            self.timer = ColdTimer(torch, self.device, harness, self.props.L2_cache_size,
                                   self.nvml, self.args.spin_cycles)
        self.set_precision(DTYPES[p.dtype])
        a, b, bias = self.inputs(p, seed)
        ref = self.reference(p, a, b, bias)
        if p.epilogue in GATED:
            b = self.halves(b)
        fields = {}
        out = {}
        try:
            if planned.method == "triton":
                launch, reset, output, note = self.triton_runner(a, b, bias, p, planned.triton)
                cfg = planned.triton
                fields["grid_blocks"] = (((p.m + cfg.bm - 1) // cfg.bm) *
                                         ((p.n + cfg.bn - 1) // cfg.bn))
            else:
                fn, expression = self.torch_function(p.epilogue)
                if planned.method == "torch_compile":
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
            launch()  # the checked run; for torch.compile and Triton it also compiles
            torch.cuda.synchronize()
            first_call_s = time.perf_counter() - t0
        except Exception as e:
            status, message = _failure(e)
            self._require_healthy_context(message)
            return {"status": status, "message": message}

        try:
            fields["errors"] = self.errors(output(), ref)
            t = self.timer.measure(launch, reset, sample)
            fields["errors_after"] = self.errors(output(), ref)
        except PeerError:
            raise  # the recorder refused a sample: nothing more can be recorded
        except Exception as e:
            message = f"{type(e).__name__}: {_first_line(e)}"
            self._require_healthy_context(message)
            return {"status": "launch_failed", "message": message}

        # How many times the method stores C in the dtype (the tolerance grows with it): eager
        # runs each operator as its own kernel (a @ b, + bias, the activation); Triton's fused
        # kernel stores once; Inductor's GEMM plus one pointwise kernel at most twice.
        if planned.method == "triton":
            fields["roundings"] = 1
        elif planned.method == "torch_eager" and p.epilogue in GATED:
            fields["roundings"] = 3  # the GEMM, the activation, the product
        elif planned.method == "torch_eager":
            fields["roundings"] = 1 + (p.epilogue != "none") + (p.epilogue not in ("none", "bias"))
        else:
            fields["roundings"] = 2
        if planned.method == "torch_eager":
            note = f"PyTorch eager: {expression}, TF32 {'on' if DTYPES[p.dtype].tf32 else 'off'}"
        elif planned.method == "torch_compile":
            note = (f"torch.compile(mode={self.args.compile_mode}) of {expression}: Inductor, "
                    f"dynamic=False, fullgraph; compiled in {first_call_s:.1f} s before timing")
        if planned.method != "triton":
            kernels = self.kernels_per_call(launch)
            if kernels:
                note += f"; {kernels}"
        # The spin's duration at the device's top clock (1980 MHz, the H200's, when NVML is absent).
        spin_us = self.args.spin_cycles / (self.nvml.max_sm_clock_mhz() or 1980)
        enqueue = f"slowest host enqueue {t['slowest_enqueue_us']:.0f} us"
        if self.args.spin_cycles == 0:
            enqueue += (" (no GPU spin, --spin-cycles 0: an enqueue longer than the reset and the "
                        "flush puts host time in that sample)")
        elif self.timer.spin is None:
            enqueue += " (no GPU spin available: host time may be in the samples)"
        elif t["slowest_enqueue_us"] > spin_us:
            enqueue += f" exceeded the {spin_us:.0f} us GPU spin: host time may be in a sample"
        fields["message"] = f"{note}; {enqueue}"
        if t["clock_before"]:
            fields["sm_clock_before_mhz"] = t["clock_before"]
        if t["clock_after"]:
            fields["sm_clock_after_mhz"] = t["clock_after"]
        return fields

    def _require_healthy_context(self, what: str):
        """After a failure: a CUDA context that no longer works (an illegal address is sticky)
        ends the run, since nothing after it could be measured."""
        try:
            self.torch.cuda.synchronize()
        except Exception as e:
            raise PeerError(f"the CUDA context is lost ({_first_line(e)}) after: {what}")

    def triton_runner(self, a, b, bias, p: Problem, cfg: TritonConfig):
        torch = self.torch
        kernel = matmul_epilogue_kernel
        c = torch.empty((p.m, p.n), dtype=a.dtype, device=self.device)
        grid = (triton.cdiv(p.m, cfg.bm) * triton.cdiv(p.n, cfg.bn),)
        code = EPILOGUES.index(p.epilogue)  # the kernel's EPILOGUE: the index in EPILOGUES

        def launch():
            kernel[grid](a, b, bias, c, p.m, p.n, p.k, a.stride(0), a.stride(1), b.stride(0),
                         b.stride(1), c.stride(0), c.stride(1), EPILOGUE=code, BLOCK_M=cfg.bm,
                         BLOCK_N=cfg.bn, BLOCK_K=cfg.bk, GROUP_M=cfg.group_m,
                         INPUT_PRECISION=DTYPES[p.dtype].input_precision,
                         num_warps=cfg.warps, num_stages=cfg.stages)

        def reset():
            c.fill_(math.nan)  # poisoned: an unwritten element fails the check

        precision = DTYPES[p.dtype].input_precision
        where = ("FP32 on the FMA units" if p.dtype == "f32" else
                 "tensor cores" + ("" if p.dtype == "tf32" else f", {p.dtype} operands"))
        note = (f"Triton {triton.__version__} tl.dot input_precision={precision} ({where}), "
                "epilogue fused in f32; 1 kernel per call")
        return launch, reset, (lambda: c), note


def main(argv: Optional[list[str]] = None) -> int:
    recorder = None
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
        tune = find_tune(args.tune)
        backend = TorchBackend(args, load_torch())
        recorder = Recorder(tune, args.db)
        return Peers(args, backend, recorder).run_all()
    except PeerError as e:
        print(f"{TOOL}: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:  # before the first row: the recorder leaves no run behind
        return 130
    finally:
        if recorder is not None:
            recorder.close()


if __name__ == "__main__":
    sys.exit(main())
