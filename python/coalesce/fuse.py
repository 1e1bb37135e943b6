"""coalesce.fuse(model): a linear layer followed by its activation becomes one FusedLinear, whose
forward is one coalesce::linear call, and a gated MLP (Llama's, Mistral's, Qwen's) becomes one
FusedGatedMLP, whose gate and up projections are one coalesce::gated_linear call (docs/pytorch.md,
"The module swap")."""
import dataclasses
import logging

import torch
from torch import nn

from ._library import EPILOGUES, GATED_EPILOGUES

log = logging.getLogger("coalesce")


class FusedLinear(nn.Module):
    """epilogue(x @ weight.T + bias) as one coalesce::linear call. `weight` is [out, in], as
    nn.Linear's, but stored transposed (strides (1, out)): the runtime reads B = weight.T [in, out]
    row-major, so no call copies it. state_dict keys and shapes are nn.Linear's."""

    def __init__(self, weight_in_out, bias, epilogue):
        super().__init__()
        if epilogue not in EPILOGUES:
            raise ValueError(f"coalesce.FusedLinear: epilogue '{epilogue}' is not one of {', '.join(EPILOGUES)}")
        if EPILOGUES[epilogue][0] != (bias is not None):
            raise ValueError(f"coalesce.FusedLinear: epilogue '{epilogue}' and bias={bias is not None} disagree")
        # weight_in_out is [in, out] and contiguous; its .t() is the [out, in] view kept.
        self.weight = nn.Parameter(weight_in_out.t(), requires_grad=weight_in_out.requires_grad)
        self.bias = None if bias is None else nn.Parameter(bias, requires_grad=bias.requires_grad)
        self.epilogue = epilogue
        self.in_features, self.out_features = weight_in_out.shape

    @classmethod
    def from_linear(cls, linear, epilogue):
        """From nn.Linear: its weight copied once into the transposed layout."""
        w = linear.weight.detach().t().contiguous().requires_grad_(linear.weight.requires_grad)
        b = None if linear.bias is None else linear.bias.detach().requires_grad_(linear.bias.requires_grad)
        return cls(w, b, epilogue)

    @classmethod
    def from_conv1d(cls, conv, epilogue):
        """From Hugging Face's Conv1D (GPT-2), whose weight is [in, out] already: shared, not copied."""
        return cls(conv.weight.detach().requires_grad_(conv.weight.requires_grad),
                   conv.bias.detach().requires_grad_(conv.bias.requires_grad), epilogue)

    def forward(self, x):
        # The overload, not the packet: one Python call less per forward (docs/pytorch.md).
        return torch.ops.coalesce.linear.default(x, self.weight, self.bias, self.epilogue)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, epilogue={self.epilogue}"


class FusedGatedMLP(nn.Module):
    """down_proj(act(gate_proj(x)) * up_proj(x)) with the first half as one coalesce::gated_linear
    call: `gate_up` is [2·I, in] with gate and up rows interleaved (row 2j gate_j, row 2j+1 up_j),
    stored transposed (strides (1, 2·I)) so the runtime reads B = gate_upᵀ [in, 2·I] with no copy
    per call. state_dict keys and shapes are the original's (gate_proj.weight, up_proj.weight, and
    down_proj's own), so checkpoints load either way."""

    def __init__(self, gate_weight, up_weight, down_proj, epilogue):
        super().__init__()
        if epilogue not in GATED_EPILOGUES:
            raise ValueError(f"coalesce.FusedGatedMLP: epilogue '{epilogue}' is not one of "
                             f"{', '.join(GATED_EPILOGUES)}")
        if gate_weight.shape != up_weight.shape:
            raise ValueError(f"coalesce.FusedGatedMLP: gate weight {tuple(gate_weight.shape)} and up weight "
                             f"{tuple(up_weight.shape)} differ")
        intermediate, in_features = gate_weight.shape
        b = torch.empty(in_features, 2 * intermediate, dtype=gate_weight.dtype, device=gate_weight.device)
        b[:, 0::2] = gate_weight.detach().t()
        b[:, 1::2] = up_weight.detach().t()
        requires_grad = gate_weight.requires_grad or up_weight.requires_grad
        self.gate_up = nn.Parameter(b.t(), requires_grad=requires_grad)
        self.down_proj = down_proj
        self.epilogue = epilogue
        self.in_features, self.intermediate = in_features, intermediate
        self._register_state_dict_hook(FusedGatedMLP._original_keys)
        self._register_load_state_dict_pre_hook(FusedGatedMLP._from_original_keys)

    @classmethod
    def from_mlp(cls, mlp, epilogue):
        """From a module with gate_proj, up_proj (bias-free nn.Linear) and down_proj."""
        return cls(mlp.gate_proj.weight, mlp.up_proj.weight, mlp.down_proj, epilogue)

    @staticmethod
    def _original_keys(module, state_dict, prefix, local_metadata):
        w = state_dict.pop(prefix + "gate_up")
        state_dict[prefix + "gate_proj.weight"] = w[0::2]
        state_dict[prefix + "up_proj.weight"] = w[1::2]
        return state_dict

    @staticmethod
    def _from_original_keys(state_dict, prefix, *args):
        gate, up = prefix + "gate_proj.weight", prefix + "up_proj.weight"
        if gate in state_dict and up in state_dict:
            g, u = state_dict.pop(gate), state_dict.pop(up)
            state_dict[prefix + "gate_up"] = torch.stack([g, u], dim=1).reshape(-1, g.shape[1])

    def forward(self, x):
        return self.down_proj(torch.ops.coalesce.gated_linear.default(x, self.gate_up, self.epilogue))

    def extra_repr(self):
        return f"in_features={self.in_features}, intermediate={self.intermediate}, epilogue={self.epilogue}"


@dataclasses.dataclass(frozen=True)
class Replacement:
    """One swap: the linear module's path, the pattern recognised, the activation's path (now
    nn.Identity), the epilogue and the shape."""
    path: str
    pattern: str
    activation: str
    epilogue: str
    in_features: int
    out_features: int


def activation_epilogue(module):
    """The bias epilogue an activation module computes, or None if it is not one the ops know.
    Hugging Face's activations are recognised by class name, so transformers need not import."""
    name = type(module).__name__
    if isinstance(module, nn.ReLU) or name == "ReLU":
        return "bias_relu"
    if isinstance(module, nn.GELU):
        return "bias_gelu_tanh" if module.approximate == "tanh" else "bias_gelu"
    if isinstance(module, nn.SiLU) or name in ("SiLUActivation",):
        return "bias_silu"
    if name == "GELUActivation":  # erf GELU (BERT's and ViT's "gelu")
        return "bias_gelu"
    if name in ("NewGELUActivation", "GELUTanh", "PytorchGELUTanh", "FastGELUActivation"):
        return "bias_gelu_tanh"  # GPT-2's "gelu_new": 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    return None


def gated_epilogue(module):
    """The gated epilogue whose gate activation `module` is (SiLU: swiglu, erf GELU: geglu), or None."""
    name = type(module).__name__
    if isinstance(module, nn.SiLU) or name == "SiLUActivation":
        return "swiglu"
    if (isinstance(module, nn.GELU) and module.approximate == "none") or name == "GELUActivation":
        return "geglu"
    return None


# Gated MLPs whose forward is down_proj(act_fn(gate_proj(x)) * up_proj(x)): Hugging Face's Llama,
# Mistral and Qwen families (transformers/models/*/modeling_*.py).
_GATED_BLOCKS = {"LlamaMLP", "MistralMLP", "Qwen2MLP", "Qwen3MLP"}


def _is_conv1d(module):
    # transformers.pytorch_utils.Conv1D: y = x @ weight + bias with weight [in, out].
    return type(module).__name__ == "Conv1D" and hasattr(module, "weight") and hasattr(module, "nf")


# Modules whose forward applies `activation` to `linear`'s output and nothing else reads it:
# class name -> (linear attribute, activation attribute).
_KNOWN_BLOCKS = {
    "GPT2MLP": ("c_fc", "act"),                          # Hugging Face GPT-2: act(c_fc(x)), then c_proj
    "BertIntermediate": ("dense", "intermediate_act_fn"),  # Hugging Face BERT
    "RobertaIntermediate": ("dense", "intermediate_act_fn"),
    "ViTIntermediate": ("dense", "intermediate_act_fn"),   # Hugging Face ViT before transformers 5.2x
    "ViTMLP": ("fc1", "activation_fn"),                  # Hugging Face ViT since: fc2(act(fc1(x)))
    "Mlp": ("fc1", "act"),                               # timm's ViT MLP: act(fc1(x)), drop, norm, fc2
}


def fuse(model, epilogues=None):
    """Replaces, in place, each linear layer directly followed by an activation the ops compute:
    consecutive (nn.Linear, activation) children of an nn.Sequential, and the blocks of
    _KNOWN_BLOCKS (GPT-2's MLP, BERT's and ViT's intermediate, timm's Mlp). The linear becomes a
    FusedLinear, the activation nn.Identity. Each gated MLP of _GATED_BLOCKS (bias-free gate and
    up projections, SiLU or erf GELU) becomes a FusedGatedMLP (its Replacement's out_features is
    the intermediate size). Anything else is left as it is. `epilogues` limits the
    swaps to those epilogues (default: all of EPILOGUES with a bias and an activation). Returns the
    list of Replacements, also logged on the 'coalesce' logger."""
    allowed = set(epilogues) if epilogues is not None else (
        {e for e, (b, a) in EPILOGUES.items() if b and a} | set(GATED_EPILOGUES))
    replaced = []

    def swap_gated(parent, prefix, name):
        mlp = getattr(parent, name)
        epilogue = gated_epilogue(mlp.act_fn)
        if epilogue is None or epilogue not in allowed:
            return False
        projections = (mlp.gate_proj, mlp.up_proj)
        if not all(type(p) is nn.Linear and p.bias is None for p in projections):
            return False
        fused = FusedGatedMLP.from_mlp(mlp, epilogue)
        setattr(parent, name, fused)
        replaced.append(Replacement(prefix + name, type(mlp).__name__, prefix + name + ".act_fn", epilogue,
                                    fused.in_features, fused.intermediate))
        return True

    def swap(parent, prefix, linear_name, act_name, pattern):
        linear = getattr(parent, linear_name)
        act = getattr(parent, act_name)
        epilogue = activation_epilogue(act)
        if epilogue is None or epilogue not in allowed:
            return
        if isinstance(linear, nn.Linear) and type(linear) is nn.Linear and linear.bias is not None:
            fused = FusedLinear.from_linear(linear, epilogue)
        elif _is_conv1d(linear):
            fused = FusedLinear.from_conv1d(linear, epilogue)
        else:
            return
        setattr(parent, linear_name, fused)
        setattr(parent, act_name, nn.Identity())
        replaced.append(Replacement(prefix + linear_name, pattern, prefix + act_name, epilogue,
                                    fused.in_features, fused.out_features))

    def visit(module, prefix):
        known = _KNOWN_BLOCKS.get(type(module).__name__)
        if known and all(hasattr(module, a) for a in known) and isinstance(getattr(module, known[1]), nn.Module):
            swap(module, prefix, known[0], known[1], type(module).__name__)
        if isinstance(module, nn.Sequential):
            names = list(module._modules)
            for first, second in zip(names, names[1:]):
                swap(module, prefix, first, second, "Sequential")
        for name, child in list(module.named_children()):
            if type(child).__name__ in _GATED_BLOCKS and all(
                    hasattr(child, a) for a in ("gate_proj", "up_proj", "down_proj", "act_fn")):
                if swap_gated(module, prefix, name):
                    continue
            if not isinstance(child, (FusedLinear, FusedGatedMLP)):
                visit(child, prefix + name + ".")

    visit(model, "")
    for r in replaced:
        log.info("coalesce.fuse: %s (%s) -> FusedLinear %s, %s -> Identity", r.path, r.pattern, r.epilogue,
                 r.activation)
    if not replaced:
        log.info("coalesce.fuse: no linear layer followed by a known activation in %s", type(model).__name__)
    return replaced
