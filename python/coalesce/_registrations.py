"""The fake kernels of coalesce::linear and coalesce::gated_linear: torch.compile traces the ops with
no graph break. (Their autograd is C++'s, python/csrc/ops.cpp, so that a call runs no Python.)"""
import torch

from ._library import EPILOGUES, GATED_EPILOGUES


# How c10 prints a ScalarType, so that the sentences are the C++ kernel's word for word.
_CPP_DTYPE = {torch.float64: "Double", torch.float32: "Float", torch.bfloat16: "BFloat16", torch.float16: "Half"}


def _dtype(t):
    return _CPP_DTYPE.get(t.dtype, str(t.dtype))


def _check(x, weight, bias, epilogue):
    # The C++ check_linear's rules and sentences (python/csrc/ops.cpp), for fake tensors; a test
    # runs both on every bad input and compares the messages.
    if epilogue not in EPILOGUES:
        raise RuntimeError(f"coalesce.linear: epilogue '{epilogue}' is not one of {', '.join(EPILOGUES)}")
    if weight.dim() != 2:
        raise RuntimeError("coalesce.linear: weight must be 2-D [out_features, in_features] (as nn.Linear "
                           f"stores it), got {weight.dim()}-D")
    if x.dim() < 1:
        raise RuntimeError("coalesce.linear: x must have at least 1 dimension, got a 0-D tensor")
    torch._check(x.shape[-1] == weight.shape[1], lambda: (
        f"coalesce.linear: x's last dimension ({x.shape[-1]}) must be weight's in_features ({weight.shape[1]})"))
    if x.dtype != weight.dtype:
        raise RuntimeError(f"coalesce.linear: x is {_dtype(x)} but weight is {_dtype(weight)}; give both one dtype")
    if x.device != weight.device:
        raise RuntimeError(f"coalesce.linear: x is on {x.device} but weight on {weight.device}")
    has_bias, _ = EPILOGUES[epilogue]
    if has_bias:
        if bias is None:
            raise RuntimeError(f"coalesce.linear: epilogue '{epilogue}' adds a bias, but bias is None")
        if bias.dim() != 1:
            raise RuntimeError(f"coalesce.linear: bias must be 1-D of out_features ({weight.shape[0]}) entries, "
                               f"got shape {list(bias.shape)}")
        torch._check(bias.shape[0] == weight.shape[0], lambda: (
            f"coalesce.linear: bias must be 1-D of out_features ({weight.shape[0]}) entries, "
            f"got shape {list(bias.shape)}"))
        if bias.dtype != x.dtype:
            raise RuntimeError(f"coalesce.linear: bias is {_dtype(bias)} but x is {_dtype(x)}")
        if bias.device != x.device:
            raise RuntimeError(f"coalesce.linear: bias is on {bias.device} but x on {x.device}")
    elif bias is not None:
        raise RuntimeError(f"coalesce.linear: epilogue '{epilogue}' adds no bias, but a bias was given "
                           "(use 'bias' or 'bias_<activation>')")


@torch.library.register_fake("coalesce::linear")
def _linear_fake(x, weight, bias, epilogue):
    _check(x, weight, bias, epilogue)
    return x.new_empty((*x.shape[:-1], weight.shape[0]))


def _check_gated(x, weight, epilogue):
    # The C++ check_gated_linear's rules and sentences, for fake tensors.
    if epilogue not in GATED_EPILOGUES:
        raise RuntimeError(f"coalesce.gated_linear: epilogue '{epilogue}' is not one of "
                           f"{', '.join(GATED_EPILOGUES)}")
    if weight.dim() != 2:
        raise RuntimeError("coalesce.gated_linear: weight must be 2-D [2 x intermediate, in_features] (gate and "
                           f"up rows interleaved), got {weight.dim()}-D")
    torch._check(weight.shape[0] % 2 == 0, lambda: (
        "coalesce.gated_linear: weight must have an even number of rows (gate and up interleaved), "
        f"got {weight.shape[0]}"))
    if x.dim() < 1:
        raise RuntimeError("coalesce.gated_linear: x must have at least 1 dimension, got a 0-D tensor")
    torch._check(x.shape[-1] == weight.shape[1], lambda: (
        f"coalesce.gated_linear: x's last dimension ({x.shape[-1]}) must be weight's in_features "
        f"({weight.shape[1]})"))
    if x.dtype != weight.dtype:
        raise RuntimeError(f"coalesce.gated_linear: x is {_dtype(x)} but weight is {_dtype(weight)}; "
                           "give both one dtype")
    if x.device != weight.device:
        raise RuntimeError(f"coalesce.gated_linear: x is on {x.device} but weight on {weight.device}")


@torch.library.register_fake("coalesce::gated_linear")
def _gated_linear_fake(x, weight, epilogue):
    _check_gated(x, weight, epilogue)
    return x.new_empty((*x.shape[:-1], weight.shape[0] // 2))
