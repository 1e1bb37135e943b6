"""coalesce::linear on CPU: registration, the eager-sequence kernel, the checks (C++ and the fake
kernel's agree), opcheck, gradcheck in f64 and torch.compile with no graph break."""
import pytest
import torch
import torch.nn.functional as F
from torch.library import opcheck

import coalesce

ACT = {
    None: lambda y: y,
    "relu": torch.relu,
    "gelu": lambda y: F.gelu(y),
    "gelu_tanh": lambda y: F.gelu(y, approximate="tanh"),
    "silu": F.silu,
}


def eager(x, w, b, epilogue):
    has_bias, act = coalesce.EPILOGUES[epilogue]
    return ACT[act](F.linear(x, w, b if has_bias else None))


def inputs(shape, n, epilogue, dtype=torch.float32, requires_grad=False, seed=0):
    g = torch.Generator().manual_seed(seed)
    k = shape[-1]
    x = torch.randn(*shape, generator=g, dtype=dtype).requires_grad_(requires_grad)
    w = torch.randn(n, k, generator=g, dtype=dtype).requires_grad_(requires_grad)
    b = torch.randn(n, generator=g, dtype=dtype).requires_grad_(requires_grad) if coalesce.EPILOGUES[epilogue][0] else None
    return x, w, b


def test_the_library_registers_the_ops_with_their_schemas():
    schema = str(torch.ops.coalesce.linear.default._schema)
    assert schema == "coalesce::linear(Tensor x, Tensor weight, Tensor? bias, str epilogue) -> Tensor"
    assert torch._C._dispatch_has_kernel_for_dispatch_key("coalesce::linear", "CPU")
    assert torch.Tag.pt2_compliant_tag in torch.ops.coalesce.linear.default.tags
    assert str(torch.ops.coalesce.load_tuning_table.default._schema) == "coalesce::load_tuning_table(str path) -> int"
    assert coalesce.library_path().endswith("libcoalesce_ops.so")


@pytest.mark.parametrize("epilogue", list(coalesce.EPILOGUES))
@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 17), (2, 1, 3, 4)])
def test_cpu_is_the_eager_sequence_with_any_leading_dims(epilogue, shape):
    x, w, b = inputs(shape, 11, epilogue)
    y = torch.ops.coalesce.linear(x, w, b, epilogue)
    assert y.shape == (*shape[:-1], 11)
    torch.testing.assert_close(y, eager(x, w, b, epilogue), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float64])
def test_cpu_computes_each_dtype(dtype):
    x, w, b = inputs((4, 9), 6, "bias_gelu", dtype=dtype)
    y = coalesce.linear(x, w, b, "bias_gelu")
    assert y.dtype == dtype
    torch.testing.assert_close(y, eager(x, w, b, "bias_gelu"))


def test_non_contiguous_inputs_give_the_same_result():
    x, w, b = inputs((6, 8), 5, "bias_relu")
    xt = x.t().contiguous().t()  # same values, column-major
    wt = w.t().contiguous().t()  # the layout coalesce.fuse keeps
    torch.testing.assert_close(torch.ops.coalesce.linear(xt, wt, b, "bias_relu"), eager(x, w, b, "bias_relu"))
    torch.testing.assert_close(torch.ops.coalesce.linear(x[:, ::2], w[:, ::2], b, "bias_relu"),
                               eager(x[:, ::2], w[:, ::2], b, "bias_relu"))


def test_linear_helper_picks_bias_or_none():
    x, w, b = inputs((3, 4), 2, "bias")
    torch.testing.assert_close(coalesce.linear(x, w, b), F.linear(x, w, b))
    torch.testing.assert_close(coalesce.linear(x, w), F.linear(x, w))


def bad_cases():
    x, w, b = inputs((3, 4), 5, "bias")
    return [
        ((x, w, b, "bias_swish"), "coalesce.linear: epilogue 'bias_swish' is not one of none, bias, bias_relu, "
                                  "bias_gelu, bias_gelu_tanh, bias_silu"),
        ((x, w[0], b, "bias"), "coalesce.linear: weight must be 2-D [out_features, in_features] (as nn.Linear "
                               "stores it), got 1-D"),
        ((x[0, 0], w, b, "bias"), "coalesce.linear: x must have at least 1 dimension, got a 0-D tensor"),
        ((x[:, :3], w, b, "bias"), "coalesce.linear: x's last dimension (3) must be weight's in_features (4)"),
        ((x.double(), w, b, "bias"), "coalesce.linear: x is Double but weight is Float; give both one dtype"),
        ((x, w, None, "bias_gelu"), "coalesce.linear: epilogue 'bias_gelu' adds a bias, but bias is None"),
        ((x, w, b[:4], "bias"), "coalesce.linear: bias must be 1-D of out_features (5) entries, got shape [4]"),
        ((x, w, b.view(5, 1), "bias"), "coalesce.linear: bias must be 1-D of out_features (5) entries, got shape "
                                       "[5, 1]"),
        ((x, w, b.double(), "bias"), "coalesce.linear: bias is Double but x is Float"),
        ((x, w, b, "none"), "coalesce.linear: epilogue 'none' adds no bias, but a bias was given (use 'bias' or "
                            "'bias_<activation>')"),
    ]


def first_line(error):
    return str(error).splitlines()[0]


@pytest.mark.parametrize("case", range(len(bad_cases())))
def test_bad_input_is_refused_in_one_sentence_by_the_kernel_and_the_fake_alike(case):
    args, message = bad_cases()[case]
    with pytest.raises(RuntimeError) as cpu:
        torch.ops.coalesce.linear(*args)
    assert first_line(cpu.value) == message
    meta = [a.to("meta") if isinstance(a, torch.Tensor) else a for a in args]
    with pytest.raises(RuntimeError) as fake:
        torch.ops.coalesce.linear(*meta)
    assert first_line(fake.value) == message


def test_the_fake_kernel_gives_the_output_shape_without_data():
    x = torch.empty(2, 3, 8, device="meta", dtype=torch.bfloat16)
    w = torch.empty(16, 8, device="meta", dtype=torch.bfloat16)
    b = torch.empty(16, device="meta", dtype=torch.bfloat16)
    y = torch.ops.coalesce.linear(x, w, b, "bias_gelu")
    assert y.shape == (2, 3, 16) and y.dtype == torch.bfloat16 and y.device.type == "meta"


@pytest.mark.parametrize("epilogue", list(coalesce.EPILOGUES))
def test_opcheck(epilogue):
    for shape in [(3, 8), (2, 3, 8)]:
        for requires_grad in (False, True):
            x, w, b = inputs(shape, 5, epilogue, requires_grad=requires_grad)
            opcheck(torch.ops.coalesce.linear.default, (x, w, b, epilogue))


@pytest.mark.parametrize("epilogue", list(coalesce.EPILOGUES))
def test_gradcheck_in_f64(epilogue):
    x, w, b = inputs((2, 3, 4), 5, epilogue, dtype=torch.float64, requires_grad=True, seed=1)
    args = (x, w) if b is None else (x, w, b)

    def f(*t):
        return torch.ops.coalesce.linear(t[0], t[1], t[2] if len(t) > 2 else None, epilogue)

    assert torch.autograd.gradcheck(f, args)
    assert torch.autograd.gradgradcheck(f, args)


def test_backward_matches_autograd_of_the_eager_sequence():
    x, w, b = inputs((4, 6), 3, "bias_gelu", requires_grad=True)
    grad = torch.randn(4, 3)
    torch.ops.coalesce.linear(x, w, b, "bias_gelu").backward(grad)
    got = [t.grad.clone() for t in (x, w, b)]
    for t in (x, w, b):
        t.grad = None
    eager(x, w, b, "bias_gelu").backward(grad)
    for g, t in zip(got, (x, w, b)):
        torch.testing.assert_close(g, t.grad)


@pytest.mark.parametrize("dynamic", [False, True])
def test_torch_compile_traces_the_op_with_no_graph_break(dynamic):
    def block(x, w1, b1, w2, b2):
        h = torch.ops.coalesce.linear(x, w1, b1, "bias_gelu")
        return torch.ops.coalesce.linear(h, w2, b2, "bias") + x

    x, w1, b1 = inputs((2, 5, 8), 16, "bias_gelu")
    _, w2, b2 = inputs((16,), 8, "bias", seed=3)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(block)(x, w1, b1, w2, b2)
    assert explained.graph_break_count == 0 and explained.graph_count == 1
    compiled = torch.compile(block, fullgraph=True, backend="aot_eager", dynamic=dynamic)
    torch.testing.assert_close(compiled(x, w1, b1, w2, b2), block(x, w1, b1, w2, b2))
    x2 = torch.randn(3, 7, 8)
    torch.testing.assert_close(compiled(x2, w1, b1, w2, b2), block(x2, w1, b1, w2, b2))
