"""The whole models issue 41's benchmark runs forward, built from their published configs with
random weights (nothing downloaded): GPT-2 small and XL (Radford et al. 2019, Table 2; the sizes of
Hugging Face's `gpt2` and `gpt2-xl` configs) and BERT-large (Devlin et al. 2019, section 3: L=24,
H=1024, A=16, feed-forward 4H). `layers` overrides the depth (the CPU tests build one layer).

Each preset says what `coalesce.fuse` should swap in it: one linear + activation per layer
(GPT-2's c_fc with gelu_new, the tanh GELU; BERT's intermediate dense with the erf GELU)."""
import dataclasses


@dataclasses.dataclass(frozen=True)
class Preset:
    name: str
    family: str          # "gpt2" or "bert"
    hidden: int
    layers: int
    heads: int
    intermediate: int
    epilogue: str        # what coalesce.fuse makes of each layer's first MLP linear + activation
    fused_path: str      # that linear's module path, {} the layer's index
    max_seq: int         # the config's positions: longer token counts run as a batch of sequences


PRESETS = {
    "gpt2": Preset("gpt2", "gpt2", 768, 12, 12, 3072, "bias_gelu_tanh", "h.{}.mlp.c_fc", 1024),
    "gpt2-xl": Preset("gpt2-xl", "gpt2", 1600, 48, 25, 6400, "bias_gelu_tanh", "h.{}.mlp.c_fc", 1024),
    "bert-large": Preset("bert-large", "bert", 1024, 24, 16, 4096, "bias_gelu", "encoder.layer.{}.intermediate.dense", 512),
}


def build(preset, layers=None):
    """The model of `preset` (transformers, random weights, eval mode) and its vocabulary size."""
    import transformers
    n = layers if layers is not None else preset.layers
    if preset.family == "gpt2":
        config = transformers.GPT2Config(n_embd=preset.hidden, n_layer=n, n_head=preset.heads,
                                         n_inner=preset.intermediate, n_positions=preset.max_seq)
        return transformers.GPT2Model(config).eval(), config.vocab_size
    config = transformers.BertConfig(hidden_size=preset.hidden, num_hidden_layers=n,
                                     num_attention_heads=preset.heads, intermediate_size=preset.intermediate,
                                     max_position_embeddings=preset.max_seq)
    return transformers.BertModel(config).eval(), config.vocab_size


def batch_shape(preset, tokens):
    """(batch, sequence) for `tokens` tokens: one sequence up to the config's positions, else a
    batch of full-length sequences (tokens must then be a multiple of max_seq)."""
    if tokens <= preset.max_seq:
        return 1, tokens
    if tokens % preset.max_seq:
        raise ValueError(f"{preset.name}: {tokens} tokens is not a multiple of its {preset.max_seq} positions")
    return tokens // preset.max_seq, preset.max_seq


def fused_fraction(run):
    """The share of the GPU time of one call of `run` spent in coalesce::linear ops, from
    torch.profiler's per-op device time (the ops' own kernels, whatever their names)."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    run()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        run()
        torch.cuda.synchronize()
    events = prof.key_averages()

    def device_us(e):
        return getattr(e, "device_time_total", None) or getattr(e, "cuda_time_total", 0.0)

    fused = sum(device_us(e) for e in events if e.key == "coalesce::linear")
    # The kernels themselves are the events on the GPU: their time sums to the call's.
    total = sum(device_us(e) for e in events if e.device_type == torch.autograd.DeviceType.CUDA)
    return fused / total if total > 0 else float("nan")
