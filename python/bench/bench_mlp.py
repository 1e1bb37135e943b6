#!/usr/bin/env python3
"""Per-op and GPT-2 XL MLP block timings of coalesce against PyTorch (issue 41's benchmark; the
lead runs it on the GPU host, docs/pytorch.md "On the GPU"). For each token count: the first
linear + activation alone (coalesce op, eager, torch.compile) and the MLP block
(Linear 1600->6400, GELU, Linear 6400->1600: eager, torch.compile, coalesce.fuse eager and under
torch.compile), bf16 by default; then the host time per call of each single op. One line of TSV
per measurement on stdout (and --out FILE): what, tokens, variant, median_us, p10_us, p90_us.

Each sample: L2 flushed (a write of 2x the L2 size), then one call between two CUDA events;
median and p10/p90 of --samples samples after --warmup calls. Where a call's kernels are shorter
than its host work (decode sizes), that times the host: at --graph-tokens the op and the block,
eager and coalesce, are also timed as one CUDA-graph replay per sample (`op_graph`,
`mlp_block_graph`), the GPU's time alone. These are not the harness's numbers (coalesce-tune's
protocol) and are not stored in the database."""
import argparse
import statistics
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn

import coalesce
import models

DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
ACTS = {"bias_gelu": lambda: nn.GELU(), "bias_gelu_tanh": lambda: nn.GELU(approximate="tanh"),
        "bias_relu": lambda: nn.ReLU()}


def timed(fn, samples, warmup, flush):
    for _ in range(warmup):
        fn()
    start = [torch.cuda.Event(enable_timing=True) for _ in range(samples)]
    end = [torch.cuda.Event(enable_timing=True) for _ in range(samples)]
    for i in range(samples):
        flush.zero_()
        start[i].record()
        fn()
        end[i].record()
    torch.cuda.synchronize()
    us = sorted(s.elapsed_time(e) * 1000 for s, e in zip(start, end))
    return statistics.median(us), us[len(us) // 10], us[(len(us) * 9) // 10]


def host_us_per_call(fn, calls=200):
    """The host time to enqueue one call, the GPU kept busy so the queue never waits on it.

    `calls` stays well under the launch queue's depth (about a thousand pending launches): with
    2000 calls the queue filled during the spin, and the figure was the spin shared among the
    calls (about 510 us for either variant, H100, 2026-12-06), not the host's enqueue time."""
    fn()
    torch.cuda.synchronize()
    torch.cuda._sleep(int(2e9))  # ~1 s of GPU spin: the enqueues below never wait for the GPU
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    elapsed = time.perf_counter() - t0
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def captured(fn, calls=1):
    """`calls` calls of `fn` captured in one CUDA graph (after a call on a side stream, as capture
    needs): a replay launches the same kernels with no host work between them."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    return graph


def graph_us_per_call(fn, calls=100, replays=20):
    """Host time per call when `calls` calls are captured in one CUDA graph and replayed."""
    graph = captured(fn, calls)
    graph.replay()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(replays):
        graph.replay()
    elapsed = time.perf_counter() - t0
    torch.cuda.synchronize()
    return elapsed / (replays * calls) * 1e6


def host_breakdown(x, w, wt, b, epilogue, emit):
    """Where a call's host time goes (no_grad, one token, the GPU kept busy): coalesce::linear
    from Python through the op packet and through its overload, PyTorch's own ops for scale (one
    cuBLAS linear; one elementwise op, about the floor of any op called from Python), and, from
    the library's probe where it has one, the op's CUDA kernel called from C++ (no Python, no
    dispatcher) and its runtime call alone. The rest of a call from Python is the binding's and
    the dispatcher's."""
    linear = torch.ops.coalesce.linear.default
    for variant, fn in [("coalesce_packet", lambda: torch.ops.coalesce.linear(x, wt, b, epilogue)),
                        ("coalesce_overload", lambda: linear(x, wt, b, epilogue)),
                        ("aten_linear", lambda: F.linear(x, w, b)), ("aten_relu", lambda: torch.relu(x))]:
        us = host_us_per_call(fn)
        emit("host_breakdown", 1, variant, (us, us, us))
    if hasattr(torch.ops.coalesce, "_host_us"):
        torch.cuda.synchronize()
        torch.cuda._sleep(int(2e9))
        op_us, runtime_us = torch.ops.coalesce._host_us(x, wt, b, epilogue, 200)
        torch.cuda.synchronize()
        emit("host_breakdown", 1, "op_kernel_from_cpp", (op_us,) * 3)
        emit("host_breakdown", 1, "runtime_call", (runtime_us,) * 3)


def whole_models(args, emit, flush):
    """A whole forward of each of --models (models.py: random weights, built from config) at each
    of --model-tokens: eager, torch.compile, coalesce.fuse and coalesce.fuse under torch.compile,
    and the share of coalesce.fuse's GPU time in the fused ops."""
    try:
        import transformers  # noqa: F401
    except ImportError:
        print("bench_mlp.py: transformers does not import: no whole-model forward", file=sys.stderr)
        return
    dtype = DTYPES[args.dtype]
    for name in args.models:
        preset = models.PRESETS[name]
        eager, vocab = models.build(preset)
        eager = eager.cuda().to(dtype)
        fused, _ = models.build(preset)
        fused = fused.cuda().to(dtype)
        fused.load_state_dict(eager.state_dict())
        replaced = coalesce.fuse(fused)
        print(f"# {name}: {len(replaced)} layers fused ({replaced[0].epilogue if replaced else 'none'})",
              file=sys.stderr)
        mode = args.compile_mode[0]
        variants = [("eager", eager), ("torch_compile", torch.compile(eager, mode=mode)),
                    ("coalesce_fuse", fused), ("coalesce_fuse_compile", torch.compile(fused, mode=mode))]
        with torch.inference_mode():
            for tokens in args.model_tokens:
                ids = torch.randint(0, vocab, models.batch_shape(preset, tokens), device="cuda")
                for variant, model in variants:
                    emit(f"{name}_forward", tokens, variant,
                         timed(lambda: model(ids), max(5, args.samples // 5), 3, flush))
                share = models.fused_fraction(lambda: fused(ids))
                emit(f"{name}_fused_share", tokens, "coalesce_fuse", (share, share, share))


def mlp(d_model, d_ff, epilogue, dtype):
    return nn.Sequential(nn.Linear(d_model, d_ff), ACTS[epilogue](), nn.Linear(d_ff, d_model)).cuda().to(dtype).eval()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tokens", type=int, nargs="+", default=[1, 16, 128, 1024, 4096, 8192])
    p.add_argument("--d-model", type=int, default=1600, help="GPT-2 XL's n_embd")
    p.add_argument("--d-ff", type=int, default=6400, help="GPT-2 XL's 4 x n_embd")
    p.add_argument("--dtype", choices=DTYPES, default="bf16")
    p.add_argument("--epilogue", choices=ACTS, default="bias_gelu",
                   help="GPT-2's own activation is tanh GELU (bias_gelu_tanh), where the runtime computes it")
    p.add_argument("--samples", type=int, default=50)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--compile-mode", nargs="+", default=["default"],
                   help="torch.compile modes: the first is `torch_compile` in the TSV, each other one "
                        "`torch_compile_<mode>` (e.g. default max-autotune); whole models use the first")
    p.add_argument("--extra-mode-tokens", type=int, nargs="*",
                   help="time the second and later compile modes only at these token counts (their autotuning "
                        "takes minutes per shape); default: every --tokens")
    p.add_argument("--graph-tokens", type=int, nargs="*", default=[1, 16, 128],
                   help="token counts (of --tokens) whose op and block, eager and coalesce, are also timed "
                        "as CUDA-graph replays, without the host's launch time (default 1 16 128)")
    p.add_argument("--table", help="a tuning table to load (else COALESCE_TUNING_TABLE's)")
    p.add_argument("--out", help="also write the TSV here")
    p.add_argument("--host-only", action="store_true",
                   help="only the host time per call and its breakdown (no GPU timings, no torch.compile)")
    p.add_argument("--models", nargs="*", default=[], choices=sorted(models.PRESETS),
                   help="also time a whole forward of these models (needs transformers; python/bench/models.py)")
    p.add_argument("--model-tokens", type=int, nargs="+", default=[4096],
                   help="tokens per whole-model forward (past the model's positions, a batch of full sequences)")
    args = p.parse_args()
    # Two modes of one name (or of one TSV name: `a-b` and `a_b`) would share a variant's rows.
    seen = {}
    for mode in args.compile_mode:
        variant = mode.replace("-", "_")
        if variant in seen:
            p.error(f"--compile-mode names '{mode}' twice" if seen[variant] == mode
                    else f"--compile-mode '{seen[variant]}' and '{mode}' would share the TSV's variant name")
        seen[variant] = mode
    if not torch.cuda.is_available() or not coalesce.with_cuda():
        print("bench_mlp.py: needs a CUDA device and coalesce built with COALESCE_WITH_CUDA=ON", file=sys.stderr)
        return 3
    if args.table:
        coalesce.load_table(args.table)
    dtype = DTYPES[args.dtype]
    flush = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size // 4, dtype=torch.float32,
                        device="cuda")
    lines = ["what\ttokens\tvariant\tmedian_us\tp10_us\tp90_us"]

    def emit(what, tokens, variant, figures):
        lines.append(f"{what}\t{tokens}\t{variant}\t" + "\t".join(f"{v:.2f}" for v in figures))
        print(lines[-1], flush=True)

    print(lines[0], flush=True)
    eager_block = mlp(args.d_model, args.d_ff, args.epilogue, dtype)
    fused_block = mlp(args.d_model, args.d_ff, args.epilogue, dtype)
    fused_block.load_state_dict(eager_block.state_dict())
    coalesce.fuse(fused_block)
    w, b = eager_block[0].weight, eager_block[0].bias
    wt = fused_block[0].weight  # the same values stored transposed (no copy per call)
    act = ACTS[args.epilogue]()

    def op_eager(x):
        return act(F.linear(x, w, b))

    def suffix(mode):
        return "" if mode == args.compile_mode[0] else "_" + mode.replace("-", "_")

    # Per mode: the op, the block and the fused block compiled (fullgraph: a graph break is an error).
    compiled = {mode: (torch.compile(op_eager, mode=mode, fullgraph=True),
                       torch.compile(eager_block, mode=mode, fullgraph=True),
                       torch.compile(fused_block, mode=mode, fullgraph=True)) for mode in args.compile_mode}
    with torch.inference_mode():
        for tokens in [] if args.host_only else args.tokens:
            x = torch.randn(tokens, args.d_model, device="cuda", dtype=dtype)
            modes = [m for i, m in enumerate(args.compile_mode)
                     if i == 0 or args.extra_mode_tokens is None or tokens in args.extra_mode_tokens]
            ops = [("coalesce", lambda: torch.ops.coalesce.linear(x, wt, b, args.epilogue)),
                   ("eager", lambda: op_eager(x))]
            ops += [("torch_compile" + suffix(m), lambda f=compiled[m][0]: f(x)) for m in modes]
            for variant, fn in ops:
                emit("op", tokens, variant, timed(fn, args.samples, args.warmup, flush))
            blocks = [("eager", lambda: eager_block(x)), ("coalesce_fuse", lambda: fused_block(x))]
            for m in modes:
                blocks += [("torch_compile" + suffix(m), lambda f=compiled[m][1]: f(x)),
                           ("coalesce_fuse_compile" + suffix(m), lambda f=compiled[m][2]: f(x))]
            for variant, fn in blocks:
                emit("mlp_block", tokens, variant, timed(fn, args.samples, args.warmup, flush))
            if tokens in args.graph_tokens:
                for what, runs in (("op_graph", ops[:2]), ("mlp_block_graph", blocks[:2])):
                    for variant, fn in runs:
                        emit(what, tokens, variant, timed(captured(fn).replay, args.samples, args.warmup, flush))
        x = torch.randn(1, args.d_model, device="cuda", dtype=dtype)
        for variant, fn in [("coalesce", lambda: torch.ops.coalesce.linear(x, wt, b, args.epilogue)),
                            ("eager", lambda: op_eager(x))]:
            us = host_us_per_call(fn)
            emit("host_per_call", 1, variant, (us, us, us))
    with torch.no_grad():  # the Autograd kernel decides, in C++, that nothing needs a gradient
        us = host_us_per_call(lambda: torch.ops.coalesce.linear(x, wt, b, args.epilogue))
        emit("host_per_call_no_grad", 1, "coalesce", (us, us, us))
        emit("host_per_call_graph", 1, "coalesce", (graph_us_per_call(
            lambda: torch.ops.coalesce.linear(x, wt, b, args.epilogue)),) * 3)
        host_breakdown(x, w, wt, b, args.epilogue, emit)
    if args.models and not args.host_only:
        whole_models(args, emit, flush)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
