"""coalesce::linear on a GPU (the lead runs these on the GPU host; docs/pytorch.md, "On the GPU"):
numerics against an fp64 reference beside the eager sequence at odd shapes, non-contiguous
inputs, opcheck, torch.compile with no graph break, CUDA-graph capture, and the tuning table's
fallback when its config does not fit. They fail, never skip, without a GPU or a CUDA build."""
import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F
from torch.library import opcheck

import coalesce

assert torch.cuda.is_available(), "the GPU tests need a CUDA device"
assert coalesce.with_cuda(), "coalesce was built without its CUDA kernel: COALESCE_WITH_CUDA=ON pip install ..."

ACT = {None: lambda y: y, "relu": torch.relu, "gelu": F.gelu, "gelu_tanh": lambda y: F.gelu(y, approximate="tanh"),
       "silu": F.silu}
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32, "tf32": torch.float32}
# The error a dtype may add beyond eager's (outputs are O(1)): 16-bit rounding of C, TF32's 10-bit mantissa.
FLOOR = {"bf16": 3e-2, "f16": 4e-3, "tf32": 4e-3, "f32": 1e-4}


@pytest.fixture(autouse=True)
def tf32_off():
    saved = torch.backends.cuda.matmul.allow_tf32
    yield
    torch.backends.cuda.matmul.allow_tf32 = saved


def problem(m, n, k, dtype, epilogue, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.rand(m, k, device="cuda", generator=g, dtype=torch.float64) * 2 - 1
    w = (torch.rand(n, k, device="cuda", generator=g, dtype=torch.float64) * 2 - 1) / k ** 0.5
    b = torch.rand(n, device="cuda", generator=g, dtype=torch.float64) * 2 - 1
    if not coalesce.EPILOGUES[epilogue][0]:
        b = None
    return x, w, b


def reference(x, w, b, epilogue):
    return ACT[coalesce.EPILOGUES[epilogue][1]](F.linear(x, w, b))


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("epilogue", ["none", "bias", "bias_relu", "bias_gelu"])
@pytest.mark.parametrize("m,n,k", [(1, 3072, 768), (17, 1000, 513), (128, 4095, 4097), (4097, 768, 3072),
                                   (3, 5, 7)])
def test_numerics_against_fp64_beside_eager(dtype, epilogue, m, n, k):
    torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"
    x64, w64, b64 = problem(m, n, k, dtype, epilogue)
    ref = reference(x64, w64, b64, epilogue)
    t = DTYPES[dtype]
    x, w, b = x64.to(t), w64.to(t), None if b64 is None else b64.to(t)
    got = torch.ops.coalesce.linear(x, w, b, epilogue)
    assert got.dtype == t and got.shape == (m, n)
    err = (got.double() - ref).abs().max().item()
    err_eager = (reference(x, w, b, epilogue).double() - ref).abs().max().item()
    assert err <= max(4 * err_eager, FLOOR[dtype]), f"fused {err:.3g}, eager {err_eager:.3g}"


def test_leading_dims_and_non_contiguous_inputs():
    x64, w64, b64 = problem(2 * 3 * 40, 96, 64, "bf16", "bias_gelu")
    x = x64.to(torch.bfloat16).view(2, 3, 40, 64)
    w, b = w64.to(torch.bfloat16), b64.to(torch.bfloat16)
    expected = torch.ops.coalesce.linear(x, w, b, "bias_gelu")
    assert expected.shape == (2, 3, 40, 96)
    torch.testing.assert_close(torch.ops.coalesce.linear(x.transpose(1, 2).contiguous().transpose(1, 2), w, b,
                                                         "bias_gelu"), expected)
    torch.testing.assert_close(torch.ops.coalesce.linear(x, w.t().contiguous().t(), b, "bias_gelu"), expected)


def test_descriptors_made_without_views_cover_every_layout():
    # The CUDA kernel makes the runtime's descriptors from sizes and strides (cuda_ops.cpp): a
    # contiguous x at an address off 16 bytes, a 1-D x, a strided bias and a weight stored either
    # way each take their own branch; all must equal the contiguous, aligned call.
    x64, w64, b64 = problem(41, 96, 63, "bf16", "bias_gelu")
    x, w, b = (t.to(torch.bfloat16) for t in (x64, w64, b64))
    expected = torch.ops.coalesce.linear(x, w, b, "bias_gelu")
    padded = torch.empty(42 * 63, device="cuda", dtype=torch.bfloat16)
    off = padded[63:].view(41, 63)  # 126 bytes past an aligned block: not 16-byte aligned
    off.copy_(x)
    assert off.is_contiguous() and off.data_ptr() % 16 != 0
    torch.testing.assert_close(torch.ops.coalesce.linear(off, w, b, "bias_gelu"), expected)
    wide = torch.zeros(41, 80, device="cuda", dtype=torch.bfloat16)
    wide[:, :63] = x  # rows 80 apart: the runtime takes only contiguous rows, so this one is copied
    torch.testing.assert_close(torch.ops.coalesce.linear(wide[:, :63], w, b, "bias_gelu"), expected)
    strided_b = torch.zeros(2 * 96, device="cuda", dtype=torch.bfloat16)[::2]
    strided_b.copy_(b)
    torch.testing.assert_close(torch.ops.coalesce.linear(x, w, strided_b, "bias_gelu"), expected)
    w_t = w.t().contiguous().t()  # stored transposed, as coalesce.fuse keeps it: no copy
    torch.testing.assert_close(torch.ops.coalesce.linear(x, w_t, b, "bias_gelu"), expected)
    row = torch.ops.coalesce.linear(x[5], w_t, b, "bias_gelu")
    assert row.shape == (96,)
    torch.testing.assert_close(row, expected[5])


def test_host_probe_times_the_kernel_and_the_runtime_call():
    x, w, b = (t.to(torch.bfloat16) for t in problem(1, 256, 128, "bf16", "bias_gelu"))
    op_us, runtime_us = torch.ops.coalesce._host_us(x, w.t().contiguous().t(), b, "bias_gelu", 20)
    torch.cuda.synchronize()
    assert 0 < runtime_us < 10_000 and 0 < op_us < 10_000  # µs per call: figures, not timeouts
    with pytest.raises(RuntimeError, match="calls must be at least 1"):
        torch.ops.coalesce._host_us(x, w, b, "bias_gelu", 0)


def test_opcheck_on_cuda():
    for epilogue in ("none", "bias", "bias_gelu"):
        x, w, b = (t if t is None else t.to(torch.bfloat16) for t in problem(33, 64, 48, "bf16", epilogue))
        opcheck(torch.ops.coalesce.linear.default, (x, w, b, epilogue))
        x.requires_grad_(), w.requires_grad_()
        opcheck(torch.ops.coalesce.linear.default, (x, w, b, epilogue))


def test_torch_compile_inductor_with_no_graph_break():
    model = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 256)).cuda()
    model = model.to(torch.bfloat16)
    coalesce.fuse(model)
    x = torch.randn(8, 77, 256, device="cuda", dtype=torch.bfloat16)
    torch._dynamo.reset()
    assert torch._dynamo.explain(model)(x).graph_break_count == 0
    compiled = torch.compile(model, fullgraph=True)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x))


def test_cuda_graph_capture_and_replay():
    x64, w64, b64 = problem(300, 512, 256, "bf16", "bias_gelu")
    x, w, b = (t.to(torch.bfloat16) for t in (x64, w64, b64))
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):  # warm up outside capture (the runtime's first load of a kernel)
        torch.ops.coalesce.linear(x, w, b, "bias_gelu")
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = torch.ops.coalesce.linear(x, w, b, "bias_gelu")
    x.copy_((x64 * 0.5).to(torch.bfloat16))
    graph.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(out, torch.ops.coalesce.linear(x, w, b, "bias_gelu"))


def test_backward_on_cuda_matches_eager():
    x64, w64, b64 = problem(64, 128, 96, "f32", "bias_gelu")
    x, w, b = (t.float().requires_grad_() for t in (x64, w64, b64))
    torch.ops.coalesce.linear(x, w, b, "bias_gelu").sum().backward()
    grads = [t.grad for t in (x, w, b)]
    x2, w2, b2 = (t.float().requires_grad_() for t in (x64, w64, b64))
    F.gelu(F.linear(x2, w2, b2)).sum().backward()
    for g, t in zip(grads, (x2, w2, b2)):
        torch.testing.assert_close(g, t.grad, rtol=1e-3, atol=1e-3)


def test_a_table_config_that_does_not_fit_falls_back_to_the_default(tmp_path):
    props = torch.cuda.get_device_properties(0)
    table = tmp_path / "t.tsv"
    table.write_text("# coalesce tuning table 1\ngpu_model\tsm_count\tdtype\tepilogue\tm\tn\tk\tconfig_name\t"
                     f"median_us\n{props.name}\t{props.multi_processor_count}\tbf16\tbias_gelu\t64\t64\t64\t"
                     "no_such_config_bf16_bias_gelu\t1.0\n")
    code = ("import torch, coalesce\n"
            "x = torch.randn(64, 64, device='cuda', dtype=torch.bfloat16)\n"
            "w = torch.randn(64, 64, device='cuda', dtype=torch.bfloat16) / 8\n"
            "b = torch.randn(64, device='cuda', dtype=torch.bfloat16)\n"
            "y = torch.ops.coalesce.linear(x, w, b, 'bias_gelu')\n"
            "torch.testing.assert_close(y, torch.nn.functional.gelu(torch.nn.functional.linear(x, w, b)), "
            "rtol=3e-2, atol=3e-2)\n")
    env = dict(os.environ, COALESCE_TUNING_TABLE=str(table), COALESCE_LOG="debug")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "exact, config no_such_config_bf16_bias_gelu" in done.stderr
    assert "refused" in done.stderr and "the built-in default" in done.stderr


GATED_ACT = {"swiglu": F.silu, "geglu": F.gelu}


def gated_reference(x, w, epilogue):
    z = F.linear(x, w)
    return GATED_ACT[epilogue](z[..., 0::2]) * z[..., 1::2]


@pytest.mark.parametrize("dtype", ["bf16", "f16", "f32"])
@pytest.mark.parametrize("epilogue", list(coalesce.GATED_EPILOGUES))
@pytest.mark.parametrize("m,n,k", [(1, 28672, 4096), (17, 1000, 513), (128, 512, 256), (3, 10, 7)])
def test_gated_numerics_against_fp64_beside_eager(dtype, epilogue, m, n, k):
    """coalesce::gated_linear (n = 2·I, gate and up rows interleaved) against fp64, within 4x the
    eager sequence's error (or the dtype's floor)."""
    x64, w64, _ = problem(m, n, k, dtype, "none")
    ref = gated_reference(x64, w64, epilogue)
    t = DTYPES[dtype]
    x, w = x64.to(t), w64.to(t)
    got = torch.ops.coalesce.gated_linear(x, w, epilogue)
    assert got.dtype == t and got.shape == (m, n // 2)
    err = (got.double() - ref).abs().max().item()
    err_eager = (gated_reference(x, w, epilogue).double() - ref).abs().max().item()
    assert err <= max(4 * err_eager, FLOOR[dtype]), f"fused {err:.3g}, eager {err_eager:.3g}"


def test_gated_opcheck_and_fused_llama_mlp_on_cuda():
    x64, w64, _ = problem(33, 128, 48, "bf16", "none")
    x, w = x64.to(torch.bfloat16), w64.to(torch.bfloat16)
    opcheck(torch.ops.coalesce.gated_linear.default, (x, w, "swiglu"))
    import transformers  # in the GPU host's image (docs/pytorch.md)
    config = transformers.LlamaConfig(hidden_size=256, intermediate_size=688, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, vocab_size=128)
    eager = transformers.LlamaModel(config).cuda().to(torch.bfloat16).eval()
    fused = transformers.LlamaModel(config).cuda().to(torch.bfloat16).eval()
    fused.load_state_dict(eager.state_dict())
    assert len(coalesce.fuse(fused)) == 2
    ids = torch.randint(0, 128, (2, 50), device="cuda")
    with torch.no_grad():
        torch.testing.assert_close(fused(ids).last_hidden_state, eager(ids).last_hidden_state, rtol=5e-2, atol=5e-2)
