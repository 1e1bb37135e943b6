"""The whole-model presets of the benchmark (python/bench/models.py): each builds from its config,
coalesce.fuse swaps exactly the linear + activation the preset names in every layer, and the fused
model's output is the original's (on the CPU the op is the eager sequence)."""
import os
import sys

import pytest
import torch

import coalesce

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
import models  # noqa: E402


@pytest.mark.parametrize("name", sorted(models.PRESETS))
def test_each_preset_fuses_one_linear_per_layer_and_keeps_its_output(name):
    preset = models.PRESETS[name]
    torch.manual_seed(3)
    eager, vocab = models.build(preset, layers=2)
    fused, _ = models.build(preset, layers=2)
    fused.load_state_dict(eager.state_dict())
    replaced = coalesce.fuse(fused)
    assert [(r.path, r.epilogue, r.in_features, r.out_features) for r in replaced] == [
        (preset.fused_path.format(i), preset.epilogue, preset.hidden, preset.intermediate) for i in range(2)]
    ids = torch.randint(0, vocab, (1, 9))
    with torch.no_grad():
        torch.testing.assert_close(fused(ids).last_hidden_state, eager(ids).last_hidden_state,
                                   rtol=1e-4, atol=1e-4)


def test_the_presets_are_the_published_sizes():
    # GPT-2 (Radford et al. 2019, Table 2) and BERT-large (Devlin et al. 2019): hidden, layers, heads.
    sizes = {n: (p.hidden, p.layers, p.heads, p.intermediate) for n, p in models.PRESETS.items()}
    assert sizes == {"gpt2": (768, 12, 12, 3072), "gpt2-xl": (1600, 48, 25, 6400),
                     "bert-large": (1024, 24, 16, 4096)}


def test_token_counts_past_the_positions_become_a_batch():
    gpt2, bert = models.PRESETS["gpt2"], models.PRESETS["bert-large"]
    assert models.batch_shape(gpt2, 16) == (1, 16)
    assert models.batch_shape(gpt2, 4096) == (4, 1024)
    assert models.batch_shape(bert, 8192) == (16, 512)
    with pytest.raises(ValueError, match="not a multiple of its 512 positions"):
        models.batch_shape(bert, 1000)
