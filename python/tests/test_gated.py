"""coalesce::gated_linear on CPU (the eager sequence; the CUDA kernel is tested in python/gpu_tests)
and the gated MLP swap: act(x·Wgᵀ) * (x·Wuᵀ) from one weight whose gate and up rows interleave,
its checks (C++ and the fake kernel agree), opcheck, gradcheck in f64, torch.compile with no graph
break, and coalesce.fuse on Hugging Face Llama, Mistral and Qwen2 built from small configs."""
import copy

import pytest
import torch
import torch.nn.functional as F
import transformers
from torch.library import opcheck

import coalesce

ACT = {"swiglu": F.silu, "geglu": F.gelu}


def interleave(gate, up):
    """[2I, in] with row 2j gate_j and row 2j+1 up_j."""
    return torch.stack([gate, up], dim=1).reshape(-1, gate.shape[1])


def weights(i, k, dtype=torch.float32, requires_grad=False, seed=0):
    g = torch.Generator().manual_seed(seed)
    gate = torch.randn(i, k, generator=g, dtype=dtype)
    up = torch.randn(i, k, generator=g, dtype=dtype)
    return gate, up, interleave(gate, up).requires_grad_(requires_grad)


def test_the_op_is_registered_with_its_schema():
    schema = str(torch.ops.coalesce.gated_linear.default._schema)
    assert schema == "coalesce::gated_linear(Tensor x, Tensor weight, str epilogue) -> Tensor"
    assert torch.Tag.pt2_compliant_tag in torch.ops.coalesce.gated_linear.default.tags
    assert set(coalesce.GATED_EPILOGUES) == {"swiglu", "geglu"}


@pytest.mark.parametrize("epilogue", list(coalesce.GATED_EPILOGUES))
@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 17)])
def test_cpu_is_act_of_the_gate_times_the_up_projection(epilogue, shape):
    x = torch.randn(*shape)
    gate, up, w = weights(6, shape[-1])
    y = torch.ops.coalesce.gated_linear(x, w, epilogue)
    assert y.shape == (*shape[:-1], 6)
    torch.testing.assert_close(y, ACT[epilogue](x @ gate.t()) * (x @ up.t()))
    # The gate applied to the wrong half (rows swapped) is another function: the check above can fail.
    assert not torch.allclose(torch.ops.coalesce.gated_linear(x, interleave(up, gate), epilogue), y)


def bad_cases():
    x = torch.randn(3, 4)
    _, _, w = weights(5, 4)
    return [
        ((x, w, "swish"), "coalesce.gated_linear: epilogue 'swish' is not one of swiglu, geglu"),
        ((x, w[0], "swiglu"), "coalesce.gated_linear: weight must be 2-D [2 x intermediate, in_features] (gate "
                              "and up rows interleaved), got 1-D"),
        ((x, w[:9], "swiglu"), "coalesce.gated_linear: weight must have an even number of rows (gate and up "
                               "interleaved), got 9"),
        ((x[0, 0], w, "swiglu"), "coalesce.gated_linear: x must have at least 1 dimension, got a 0-D tensor"),
        ((x[:, :3], w, "geglu"), "coalesce.gated_linear: x's last dimension (3) must be weight's in_features (4)"),
        ((x.double(), w, "geglu"), "coalesce.gated_linear: x is Double but weight is Float; give both one dtype"),
    ]


@pytest.mark.parametrize("case", range(len(bad_cases())))
def test_bad_input_is_refused_in_one_sentence_by_the_kernel_and_the_fake_alike(case):
    args, message = bad_cases()[case]
    with pytest.raises(RuntimeError) as cpu:
        torch.ops.coalesce.gated_linear(*args)
    assert str(cpu.value).splitlines()[0] == message
    meta = [a.to("meta") if isinstance(a, torch.Tensor) else a for a in args]
    with pytest.raises(RuntimeError) as fake:
        torch.ops.coalesce.gated_linear(*meta)
    assert str(fake.value).splitlines()[0] == message


@pytest.mark.parametrize("epilogue", list(coalesce.GATED_EPILOGUES))
def test_opcheck_and_gradcheck_in_f64(epilogue):
    for requires_grad in (False, True):
        x = torch.randn(2, 3, 4, requires_grad=requires_grad)
        opcheck(torch.ops.coalesce.gated_linear.default, (x, weights(5, 4, requires_grad=requires_grad)[2], epilogue))
    x = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)
    w = weights(5, 4, dtype=torch.float64, requires_grad=True, seed=1)[2]

    def f(x, w):
        return torch.ops.coalesce.gated_linear(x, w, epilogue)

    assert torch.autograd.gradcheck(f, (x, w))
    assert torch.autograd.gradgradcheck(f, (x, w))


def test_backward_matches_autograd_of_the_eager_sequence():
    x = torch.randn(4, 6, requires_grad=True)
    gate, up, w = weights(3, 6, requires_grad=True)
    grad = torch.randn(4, 3)
    torch.ops.coalesce.gated_linear(x, w, "swiglu").backward(grad)
    got = (x.grad.clone(), w.grad.clone())
    x.grad = None
    gate, up = gate.requires_grad_(), up.requires_grad_()
    (F.silu(x @ gate.t()) * (x @ up.t())).backward(grad)
    torch.testing.assert_close(got[0], x.grad)
    torch.testing.assert_close(got[1], interleave(gate.grad, up.grad))


def test_torch_compile_traces_the_op_with_no_graph_break():
    def block(x, w, down):
        return torch.ops.coalesce.gated_linear(x, w, "swiglu") @ down + x

    x, w, down = torch.randn(2, 5, 8), weights(16, 8)[2], torch.randn(16, 8)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(block)(x, w, down)
    assert explained.graph_break_count == 0 and explained.graph_count == 1
    compiled = torch.compile(block, fullgraph=True, backend="aot_eager")
    torch.testing.assert_close(compiled(x, w, down), block(x, w, down))


def llama(hidden_act="silu"):
    config = transformers.LlamaConfig(hidden_size=32, intermediate_size=48, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, vocab_size=64,
                                      max_position_embeddings=32, hidden_act=hidden_act)
    return transformers.LlamaModel(config).eval()


def mistral():
    config = transformers.MistralConfig(hidden_size=32, intermediate_size=48, num_hidden_layers=2,
                                        num_attention_heads=4, num_key_value_heads=2, vocab_size=64,
                                        max_position_embeddings=32)
    return transformers.MistralModel(config).eval()


def qwen2():
    config = transformers.Qwen2Config(hidden_size=32, intermediate_size=48, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, vocab_size=64,
                                      max_position_embeddings=32)
    return transformers.Qwen2Model(config).eval()


@pytest.mark.parametrize("build,pattern,epilogue", [
    (llama, "LlamaMLP", "swiglu"), (lambda: llama("gelu"), "LlamaMLP", "geglu"),
    (mistral, "MistralMLP", "swiglu"), (qwen2, "Qwen2MLP", "swiglu"),
])
def test_gated_mlps_built_from_config_become_one_gated_op(build, pattern, epilogue):
    torch.manual_seed(4)
    model = build()
    before = copy.deepcopy(model)
    keys = {k: v.shape for k, v in model.state_dict().items()}
    replaced = coalesce.fuse(model)
    assert [(r.path, r.pattern, r.activation, r.epilogue, r.in_features, r.out_features) for r in replaced] == [
        (f"layers.{i}.mlp", pattern, f"layers.{i}.mlp.act_fn", epilogue, 32, 48) for i in range(2)]
    assert isinstance(model.layers[0].mlp, coalesce.FusedGatedMLP)
    assert model.layers[0].mlp.gate_up.stride() == (1, 96)  # stored as B = gate_upᵀ, no copy per call
    # The original's state_dict keys and values, both ways.
    state = model.state_dict()
    assert {k: v.shape for k, v in state.items()} == keys
    for k, v in before.state_dict().items():
        torch.testing.assert_close(state[k], v)
    ids = torch.randint(0, 64, (2, 7))
    with torch.no_grad():
        torch.testing.assert_close(model(ids).last_hidden_state, before(ids).last_hidden_state,
                                   rtol=1e-5, atol=1e-5)
    reloaded = build()
    coalesce.fuse(reloaded)
    reloaded.load_state_dict(before.state_dict())
    with torch.no_grad():
        torch.testing.assert_close(reloaded(ids).last_hidden_state, before(ids).last_hidden_state,
                                   rtol=1e-5, atol=1e-5)
    torch._dynamo.reset()
    assert torch._dynamo.explain(model)(ids).graph_break_count == 0


def test_a_gate_activation_no_epilogue_computes_is_left_alone():
    model = llama("gelu_pytorch_tanh")  # Gemma's: no tanh-GELU gated epilogue
    assert coalesce.fuse(model) == []
    model = llama()
    assert coalesce.fuse(model, epilogues=["bias_gelu"]) == []


def test_tune_lists_the_gated_gemm_of_a_fused_llama():
    model = llama()
    coalesce.fuse(model)
    shapes = coalesce.linear_shapes(model, (torch.randint(0, 64, (2, 7)),))
    gated = [s for s in shapes if s.epilogue == "swiglu"]
    assert gated == [coalesce.LinearShape(14, 96, 32, "f32", "swiglu", count=2)]
    assert coalesce.LinearShape(14, 32, 48, "f32", "none", count=2) in shapes  # down_proj, as it was
