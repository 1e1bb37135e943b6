"""Run HA's probe: why did torch.mm's TF32 GEMM time 5% faster than our cublas_gemm in run GF?
Two explanations were left open: the GPU spin before each of the probe's samples (a GPU drawing
less power when the GEMM starts, at the 700 W cap tf32 runs into) or a different cuBLAS kernel
behind torch.mm. This times torch.mm three ways, 3000 samples each after a second of warm-up,
each sample an L2 flush (a buffer of twice the L2 written) then the op between two CUDA events:
  spin   a ~250 us GPU spin between the flush and the op (run GF's --spin);
  queued no spin and no host sync between samples: every sample is enqueued back to back and
         the events are read at the end, so neither host time nor idle GPU time is in them
         (how our harness times its steady state);
  spin-queued  both: queued, with the spin before each op.
and names the kernels one torch.mm launches (torch.profiler). Prints medians in ms."""
import statistics
import sys

import torch

dtype_name, n = sys.argv[1], int(sys.argv[2])
dtype = {"tf32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[dtype_name]
torch.backends.cuda.matmul.allow_tf32 = dtype_name == "tf32"
torch.manual_seed(1)
a = torch.randn(n, n, device="cuda", dtype=dtype)
b = torch.randn(n, n, device="cuda", dtype=dtype)
c = torch.empty(n, n, device="cuda", dtype=dtype)
flush = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size, device="cuda", dtype=torch.uint8)
SPIN_CYCLES = 500_000  # ~250 us at 1.98 GHz


def op():
    torch.mm(a, b, out=c)


def warm(seconds=1.0):
    t0, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0.record()
    while True:
        for _ in range(20):
            flush.zero_()
            op()
        end.record()
        end.synchronize()
        if t0.elapsed_time(end) > seconds * 1e3:
            return


def timed(spin, queued, samples=3000):
    warm()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(samples)]
    times = []
    for start, end in events:
        flush.zero_()
        if spin:
            torch.cuda._sleep(SPIN_CYCLES)
        start.record()
        op()
        end.record()
        if not queued:
            end.synchronize()
            times.append(start.elapsed_time(end))
    if queued:
        torch.cuda.synchronize()
        times = [s.elapsed_time(e) for s, e in events]
    return statistics.median(times)


with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
    op()
    torch.cuda.synchronize()
names = sorted({e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA})
print(f"{dtype_name} {n} ({torch.cuda.get_device_name(0)}): torch.mm runs {names}")
for rnd in (1, 2):
    for label, spin, queued in (("spin", True, False), ("queued", False, True), ("spin-queued", True, True)):
        print(f"round {rnd} {label:12s} torch.mm {timed(spin, queued):.4f} ms", flush=True)
