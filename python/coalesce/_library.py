"""Loads libcoalesce_ops.so, the torch library of the coalesce ops (python/csrc/)."""
import os

import torch

# The epilogues coalesce::linear knows (python/csrc/ops.cpp's table, which a test checks this
# against): name -> (reads a bias, the activation after it). On CUDA the runtime's registry
# decides which of them it computes.
EPILOGUES = {
    "none": (False, None),
    "bias": (True, None),
    "bias_relu": (True, "relu"),
    "bias_gelu": (True, "gelu"),
    "bias_gelu_tanh": (True, "gelu_tanh"),
    "bias_silu": (True, "silu"),
}

# The gated epilogues coalesce::gated_linear knows (python/csrc/ops.cpp's kGated): name -> the
# activation of the gate, act(gate) * up.
GATED_EPILOGUES = {
    "swiglu": "silu",
    "geglu": "gelu",
}


def library_path():
    """The path of the native library inside the installed package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libcoalesce_ops.so")


def _load():
    path = library_path()
    if not os.path.exists(path):
        raise ImportError(f"coalesce: {path} is missing: install the package with pip (pip install "
                          "--no-build-isolation ./python), which builds it")
    torch.ops.load_library(path)


def with_cuda():
    """Whether the library was built with the CUDA kernel (COALESCE_WITH_CUDA=ON)."""
    return torch._C._dispatch_has_kernel_for_dispatch_key("coalesce::linear", "CUDA")


_load()
