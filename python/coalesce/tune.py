"""coalesce.tune(model, example_inputs): the linear shapes a model runs, swept by coalesce-tune
into the results database, exported as the tuning table and loaded (docs/pytorch.md)."""
import dataclasses
import os
import shutil
import subprocess
import tempfile

import torch
from torch import nn

from .fuse import FusedGatedMLP, FusedLinear, _is_conv1d
from .table import load_table

_DTYPES = {torch.bfloat16: "bf16", torch.float16: "f16", torch.float32: "f32"}


@dataclasses.dataclass(frozen=True, order=True)
class LinearShape:
    """One problem of coalesce-tune's workload files: C[m, n] = epilogue(A[m, k] B[k, n])."""
    m: int
    n: int
    k: int
    dtype: str
    epilogue: str
    count: int = 1

    def workload_line(self, name):
        return f"{self.m},{self.n},{self.k},{self.dtype},{self.epilogue},{name},{self.count}"


def _dtype_name(t):
    name = _DTYPES.get(t.dtype)
    if name is None:
        raise ValueError(f"coalesce.tune: {t.dtype} is not a dtype the kernels compute (bf16, f16, f32)")
    if name == "f32" and t.is_cuda and torch.backends.cuda.matmul.allow_tf32:
        return "tf32"
    return name


def linear_shapes(model, example_inputs):
    """Runs model(*example_inputs) once (no grad) and returns the problems of its FusedLinear,
    FusedGatedMLP (its gated GEMM, N = 2·I), nn.Linear and Conv1D calls, each once with the number
    of calls: a fused module's own epilogue, a plain layer's 'bias' (or 'none'). Call it on a fused
    model to tune the fused epilogues."""
    seen = {}
    hooks = []

    def record(module, inputs, _output):
        x = inputs[0]
        if isinstance(module, FusedLinear):
            n, k, epilogue = module.out_features, module.in_features, module.epilogue
        elif isinstance(module, FusedGatedMLP):  # its GEMM: N = 2·I over the interleaved gate/up weight
            n, k, epilogue = 2 * module.intermediate, module.in_features, module.epilogue
        elif _is_conv1d(module):
            k, n = module.weight.shape
            epilogue = "bias"
        else:
            n, k = module.out_features, module.in_features
            epilogue = "none" if module.bias is None else "bias"
        key = (x.numel() // k, n, k, _dtype_name(x), epilogue)
        seen[key] = seen.get(key, 0) + 1

    for module in model.modules():
        if isinstance(module, (FusedLinear, FusedGatedMLP, nn.Linear)) or _is_conv1d(module):
            hooks.append(module.register_forward_hook(record))
    try:
        with torch.no_grad():
            if isinstance(example_inputs, dict):
                model(**example_inputs)
            else:
                model(*example_inputs)
    finally:
        for h in hooks:
            h.remove()
    return sorted(LinearShape(*key, count=c) for key, c in seen.items())


def tune(model, example_inputs, db="results/coalesce.db", table=None, tune_bin=None, report_bin=None,
         sweep_args=(), dry_run=False):
    """Sweeps the model's linear shapes (linear_shapes) with `coalesce-tune sweep --shapes-file`
    into `db`, exports the tuning table (`coalesce-report export`) to `table` (default: beside db,
    coalesce-tuning.tsv) and loads it. With dry_run, runs nothing and returns the commands.
    The tools are tune_bin / report_bin, else $COALESCE_TUNE / $COALESCE_REPORT, else on PATH.
    Returns (shapes, commands). A tool that fails raises subprocess.CalledProcessError."""
    shapes = linear_shapes(model, example_inputs)
    if not shapes:
        raise ValueError("coalesce.tune: the model ran no linear layer on these inputs: nothing to tune")
    table = table or os.path.join(os.path.dirname(os.path.abspath(db)), "coalesce-tuning.tsv")
    tune_bin = tune_bin or os.environ.get("COALESCE_TUNE") or shutil.which("coalesce-tune") or "coalesce-tune"
    report_bin = report_bin or os.environ.get("COALESCE_REPORT") or shutil.which("coalesce-report") or "coalesce-report"
    workdir = tempfile.mkdtemp(prefix="coalesce-tune-")
    workload = os.path.join(workdir, "model.csv")
    with open(workload, "w") as f:
        f.write(f"# coalesce.tune: the linear layers {type(model).__name__} ran\n")
        for i, s in enumerate(shapes):
            f.write(s.workload_line(f"linear{i}") + "\n")
    commands = [
        [tune_bin, "sweep", "--shapes-file", workload, "--db", db, *sweep_args],
        [report_bin, "export", "--db", db, "--out", table],
    ]
    if dry_run:
        return shapes, commands
    for command in commands:
        subprocess.run(command, check=True)
    load_table(table)
    shutil.rmtree(workdir, ignore_errors=True)
    return shapes, commands
