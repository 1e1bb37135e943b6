"""Coalesce's tuned fused GEMM + bias + activation kernels from PyTorch (docs/pytorch.md).

    import coalesce
    coalesce.load_table("coalesce-tuning.tsv")   # or COALESCE_TUNING_TABLE=...
    replaced = coalesce.fuse(model)              # nn.Linear + GELU/ReLU/SiLU -> one fused op
    y = torch.ops.coalesce.linear(x, weight, bias, "bias_gelu")
    h = torch.ops.coalesce.gated_linear(x, gate_up, "swiglu")   # silu(x Wg) * (x Wu), interleaved
"""
from ._library import EPILOGUES, GATED_EPILOGUES, library_path, with_cuda
from . import _registrations  # noqa: F401  (fake kernel and autograd of coalesce::linear)
from .fuse import FusedGatedMLP, FusedLinear, Replacement, fuse
from .table import load_table, tuning_choice
from .tune import LinearShape, linear_shapes, tune

__all__ = ["EPILOGUES", "FusedGatedMLP", "FusedLinear", "GATED_EPILOGUES", "LinearShape", "Replacement", "fuse",
           "gated_linear", "library_path", "linear", "linear_shapes", "load_table", "tune", "tuning_choice",
           "with_cuda"]


def linear(x, weight, bias=None, epilogue=None):
    """epilogue(x @ weight.T [+ bias]) in one kernel on CUDA (the eager sequence on CPU).
    weight is [out_features, in_features] as nn.Linear stores it; epilogue defaults to
    'bias' with a bias and 'none' without."""
    import torch
    if epilogue is None:
        epilogue = "none" if bias is None else "bias"
    return torch.ops.coalesce.linear(x, weight, bias, epilogue)


def gated_linear(x, gate_up, epilogue="swiglu"):
    """act(x @ gate.T) * (x @ up.T) in one kernel on CUDA (the eager sequence on CPU), where
    gate_up is [2 x intermediate, in_features] with gate and up rows interleaved (row 2j gate_j,
    row 2j+1 up_j); epilogue 'swiglu' (SiLU) or 'geglu' (erf GELU)."""
    import torch
    return torch.ops.coalesce.gated_linear(x, gate_up, epilogue)
