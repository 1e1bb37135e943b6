"""coalesce.fuse: the patterns it swaps (nn.Sequential; Hugging Face GPT-2's MLP, BERT's and ViT's
intermediate, built from small configs with random weights, nothing downloaded), what it leaves,
the swapped model's outputs, gradients, state_dict and torch.compile."""
import copy

import pytest
import torch
from torch import nn
import transformers

import coalesce


def same_outputs(a, b, *args):
    with torch.no_grad():
        ya, yb = a(*args), b(*args)
    if hasattr(ya, "last_hidden_state"):
        ya, yb = ya.last_hidden_state, yb.last_hidden_state
    torch.testing.assert_close(ya, yb, rtol=1e-5, atol=1e-5)


def test_sequential_pairs_are_swapped_and_the_rest_left():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 8),
                          nn.Tanh(), nn.Linear(8, 8, bias=False), nn.GELU(), nn.Linear(8, 4), nn.SiLU(),
                          nn.Linear(4, 4), nn.GELU(approximate="tanh"))
    before = copy.deepcopy(model)
    keys = {k: v.shape for k, v in model.state_dict().items()}
    replaced = coalesce.fuse(model)
    assert [(r.path, r.activation, r.epilogue, r.in_features, r.out_features) for r in replaced] == [
        ("0", "1", "bias_gelu", 8, 16), ("2", "3", "bias_relu", 16, 16), ("8", "9", "bias_silu", 8, 4),
        ("10", "11", "bias_gelu_tanh", 4, 4)]
    assert all(r.pattern == "Sequential" for r in replaced)
    assert isinstance(model[0], coalesce.FusedLinear) and isinstance(model[1], nn.Identity)
    assert type(model[4]) is nn.Linear and isinstance(model[5], nn.Tanh)  # Tanh: no epilogue computes it
    assert type(model[6]) is nn.Linear and isinstance(model[7], nn.GELU)  # no bias: no such epilogue
    assert {k: v.shape for k, v in model.state_dict().items()} == keys
    same_outputs(before, model, torch.randn(3, 5, 8))


def test_epilogues_limits_the_swaps():
    model = nn.Sequential(nn.Linear(8, 8), nn.GELU(), nn.Linear(8, 8), nn.ReLU())
    replaced = coalesce.fuse(model, epilogues=["bias_relu"])
    assert [r.epilogue for r in replaced] == ["bias_relu"]
    assert type(model[0]) is nn.Linear


def test_nothing_recognised_changes_nothing():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.0), nn.GELU(), nn.LayerNorm(4))
    before = repr(model)
    assert coalesce.fuse(model) == []
    assert repr(model) == before


def test_fused_weight_is_stored_transposed_and_trains_like_the_original():
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(6, 5), nn.GELU())
    ref = copy.deepcopy(model)
    coalesce.fuse(model)
    fused = model[0]
    assert fused.weight.shape == (5, 6) and fused.weight.stride() == (1, 5)
    x = torch.randn(4, 6)
    model(x).sum().backward()
    ref(x).sum().backward()
    torch.testing.assert_close(fused.weight.grad, ref[0].weight.grad)
    torch.testing.assert_close(fused.bias.grad, ref[0].bias.grad)
    # A state_dict round trip keeps values and layout.
    fused.load_state_dict(ref[0].state_dict())
    assert fused.weight.stride() == (1, 5)


def gpt2():
    config = transformers.GPT2Config(n_layer=2, n_embd=32, n_head=4, vocab_size=64, n_positions=32)
    return transformers.GPT2Model(config).eval(), (torch.randint(0, 64, (2, 7)),)


def bert():
    config = transformers.BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                     intermediate_size=64, vocab_size=64, max_position_embeddings=32)
    return transformers.BertModel(config).eval(), (torch.randint(0, 64, (2, 7)),)


def vit():
    config = transformers.ViTConfig(image_size=16, patch_size=4, hidden_size=32, num_hidden_layers=2,
                                    num_attention_heads=4, intermediate_size=64)
    return transformers.ViTModel(config).eval(), (torch.randn(2, 3, 16, 16),)


@pytest.mark.parametrize("build,pattern,linear,epilogue", [
    (gpt2, "GPT2MLP", "h.{}.mlp.c_fc", "bias_gelu_tanh"),       # gelu_new
    (bert, "BertIntermediate", "encoder.layer.{}.intermediate.dense", "bias_gelu"),
    # transformers 5.2x's ViT (ViTMLP; its ViTIntermediate before is recognised too)
    (vit, "ViTMLP", "layers.{}.mlp.fc1", "bias_gelu"),
])
def test_hugging_face_mlps_built_from_config(build, pattern, linear, epilogue):
    torch.manual_seed(2)
    model, args = build()
    before = copy.deepcopy(model)
    replaced = coalesce.fuse(model)
    assert [(r.path, r.pattern, r.epilogue) for r in replaced] == [
        (linear.format(i), pattern, epilogue) for i in range(2)]
    same_outputs(before, model, *args)
    compiled = torch.compile(model, fullgraph=True, backend="aot_eager")
    torch._dynamo.reset()
    explained = torch._dynamo.explain(model)(*args)
    assert explained.graph_break_count == 0
    with torch.no_grad():
        torch.testing.assert_close(compiled(*args).last_hidden_state, model(*args).last_hidden_state)


def test_gpt2_conv1d_weight_is_shared_not_copied():
    model, _ = gpt2()
    c_fc = model.h[0].mlp.c_fc
    ptr = c_fc.weight.data_ptr()
    coalesce.fuse(model)
    fused = model.h[0].mlp.c_fc
    assert fused.weight.data_ptr() == ptr
    assert fused.weight.shape == (c_fc.nf, c_fc.weight.shape[0]) and fused.weight.stride() == (1, c_fc.nf)
