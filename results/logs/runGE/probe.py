"""Run GE's probe (run GF's adds the spin, `--spin`): is our cublas_gemm baseline as fast as the GEMM PyTorch gets from cuBLAS, and
how long does Inductor's bias + GELU kernel take alone? Timed the way the harness times (each
sample: an L2 flush by writing a buffer of twice the L2, then the op between two CUDA events),
3000 samples back to back after a second of warm-up; prints medians in ms. With `--spin` (run GF)
each sample starts behind a GPU spin of about 250 µs (torch.cuda._sleep), so the host's enqueue
of the timed op hides behind it, as the peers' harness does; without it (run GE) host time is in
the samples."""
import statistics
import sys

import torch
import torch.nn.functional as F

dtype_name, n = sys.argv[1], int(sys.argv[2])
spin = "--spin" in sys.argv[3:]
dtype = {"tf32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[dtype_name]
torch.backends.cuda.matmul.allow_tf32 = dtype_name == "tf32"
torch.manual_seed(1)
a = torch.randn(n, n, device="cuda", dtype=dtype)
b = torch.randn(n, n, device="cuda", dtype=dtype)
bias = torch.randn(n, device="cuda", dtype=dtype)
c = torch.empty(n, n, device="cuda", dtype=dtype)
flush = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size, device="cuda", dtype=torch.uint8)
epilogue = torch.compile(lambda x, y: F.gelu(x + y), fullgraph=True, dynamic=False)


def timed(fn, samples=3000, warmup_s=1.0):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = torch.cuda.Event(enable_timing=True)
    t0.record()
    while True:  # warm-up
        for _ in range(20):
            flush.zero_()
            fn()
        end.record()
        end.synchronize()
        if t0.elapsed_time(end) > warmup_s * 1e3:
            break
    times = []
    for _ in range(samples):
        flush.zero_()
        if spin:
            torch.cuda._sleep(500_000)  # ~250 us at 1.98 GHz
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


mm = timed(lambda: torch.mm(a, b, out=c))
epi = timed(lambda: epilogue(c, bias))
both = timed(lambda: epilogue(torch.mm(a, b), bias))
print(f"{dtype_name} {n}: torch.mm {mm:.4f} ms, Inductor bias+GELU alone {epi:.4f} ms, "
      f"mm then it {both:.4f} ms ({torch.cuda.get_device_name(0)}{', spin' if spin else ''})")
