#!/usr/bin/env python3
"""Which GPU kernels the peers run (issue 42, "learn from the fastest peer"): for GEMM + bias +
exact GELU at the headline 16-bit shapes, torch.profiler lists the CUDA kernels that PyTorch
eager (cuBLAS/cuBLASLt through addmm or matmul) and torch.compile (default mode) launch, with
their mean device time. A diagnostic, not a measurement of record: the profiler times kernels
back to back on warm caches (no L2 flush, no spin), so its times are not the flush_spin
protocol's and are not stored in any database; use them for the kernel names and the split of
time between kernels.

Usage, on the GPU host:  python3 scripts/peer_kernels.py --out $OUT/peer-kernels.md
"""
import argparse
import sys

SHAPES = ((4096, 4096, 4096), (8192, 8192, 8192), (4096, 14336, 4096), (4096, 4096, 14336), (8192, 8192, 1024))


def kernels(torch, fn, iters):
    """Mean device µs per call of each CUDA kernel `fn` launches, slowest first."""
    from torch.profiler import ProfilerActivity, profile

    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
    rows = []
    for e in prof.key_averages():
        if e.device_type.name != "CUDA" or e.count == 0:
            continue
        total = getattr(e, "device_time_total", None) or getattr(e, "cuda_time_total", 0)
        rows.append((total / iters, e.count // iters, e.key))
    return sorted(rows, reverse=True)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the markdown file to write")
    ap.add_argument("--dtypes", default="bf16,f16")
    ap.add_argument("--iters", type=int, default=20)
    args = ap.parse_args(argv)
    import torch
    import torch.nn.functional as F

    dtypes = {"bf16": torch.bfloat16, "f16": torch.float16}
    lines = [
        "# Kernels the peers run (torch.profiler, back to back, warm L2; not the flush_spin protocol)",
        "",
        f"torch {torch.__version__}, GPU {torch.cuda.get_device_name()}; mean device µs per call over {args.iters} calls.",
        "",
    ]

    def fused(x, w, b):
        return F.gelu(torch.addmm(b, x, w))

    # One compile per shape and dtype (ten of them): above dynamo's default recompile limit (8),
    # past which it would silently run eager.
    for knob in ("cache_size_limit", "recompile_limit"):
        if hasattr(torch._dynamo.config, knob):
            setattr(torch._dynamo.config, knob, 64)
    compiled = torch.compile(fused, mode="default", dynamic=False)
    for name in args.dtypes.split(","):
        dt = dtypes[name]
        for m, n, k in SHAPES:
            g = torch.Generator(device="cuda").manual_seed(1)
            x = torch.randn(m, k, device="cuda", dtype=dt, generator=g)
            w = torch.randn(k, n, device="cuda", dtype=dt, generator=g)
            b = torch.randn(n, device="cuda", dtype=dt, generator=g)
            for label, fn in (("eager addmm + gelu", lambda: fused(x, w, b)),
                              ("eager matmul alone", lambda: x @ w),
                              ("torch.compile default", lambda: compiled(x, w, b))):
                try:
                    rows = kernels(torch, fn, args.iters)
                except Exception as e:  # a peer that fails is listed as failed, not skipped silently
                    lines.append(f"## {name} {m}x{n}x{k}: {label}: failed: {str(e).splitlines()[0][:200]}\n")
                    continue
                total = sum(r[0] for r in rows)
                lines.append(f"## {name} {m}x{n}x{k}: {label} (sum {total:.1f} µs)")
                lines.append("")
                lines.append("| µs | per call | kernel |")
                lines.append("|---:|---:|---|")
                for us, count, key in rows:
                    lines.append(f"| {us:.1f} | {count} | `{key[:160]}` |")
                lines.append("")
            del x, w, b
            torch.cuda.empty_cache()
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"peer_kernels: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
