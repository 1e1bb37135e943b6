#!/usr/bin/env python3
"""The table of issue 39's speed bar from a scripts/unaligned-run.sh database.

Per dtype, protocol and pair of shapes (an unaligned one and its aligned neighbour): the fastest
`coalesce` row measured ok at each (any family), its TFLOPS, the unaligned shape's throughput
as a fraction of the neighbour's (the bar: at least 0.90), and at the unaligned shape each
baseline's and peer's median over ours (cuBLAS GEMM alone, cuBLASLt's fused epilogue, torch
eager, torch.compile; the bar: above 1 for cuBLAS, cuBLASLt and torch.compile; for the LM-head
shape, ours at least 0.90 of cuBLAS GEMM alone's throughput). All from the one run's sitting;
each protocol (the first pass's flush_spin, the steady state's steady_spin) is a row of its own.
A protocol other than the first pass's gives "ours" at a shape only when the first pass's fastest
config was measured in it too: the steady state runs family by family, and a run stopped after
one family's steady step would otherwise show that family's best as the shape's.

Usage: scripts/unaligned_bar.py RUN_DB [ODD:EVEN ...]   (default: unaligned-run.sh's pairs)
"""
import sqlite3
import sys

PAIRS = ["4095x4097x4100:4096x4096x4096", "2047x8191x4095:2048x8192x4096", "8192x50257x768:8192x50256x768"]
PEERS = ("cublas_gemm", "cublaslt_fused", "torch_eager", "torch_compile")
FIRST_PASS = "flush_spin"
QUERY = """
SELECT m, n, k, dtype, method, protocol, config_name, median_ms FROM v_measurements
WHERE status = 'ok' AND epilogue = 'bias_gelu'
"""


def shape(text):
    parts = [int(x) for x in text.split("x")]
    return tuple(parts * 3) if len(parts) == 1 else tuple(parts)


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.exit(__doc__.strip().splitlines()[-1])
    pairs = [tuple(shape(s) for s in p.split(":")) for p in (sys.argv[2:] or PAIRS)]
    best, winner, configs = {}, {}, {}
    with sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True) as c:
        for m, n, k, dtype, method, protocol, config, median in c.execute(QUERY):
            key = ((m, n, k), dtype, method, protocol)
            if key not in best or median < best[key]:
                best[key] = median
                if method == "coalesce" and protocol == FIRST_PASS:
                    winner[(m, n, k), dtype] = config
            if method == "coalesce":
                configs.setdefault(((m, n, k), dtype, protocol), set()).add(config)

    def fused(at, dtype, protocol):
        """Our fastest median at `at`, or None where the first pass's winner is missing from `protocol`."""
        if protocol != FIRST_PASS and winner.get((at, dtype)) not in configs.get((at, dtype, protocol), ()):
            return None
        return best.get((at, dtype, "coalesce", protocol))
    dtypes = sorted({key[1] for key in best})
    protocols = sorted({key[3] for key in best})
    print("| dtype | protocol | unaligned | ours ms | TFLOPS | aligned | TFLOPS | fraction | "
          + " | ".join(f"{p} / ours" for p in PEERS) + " |")
    print("|---|---|---|---:|---:|---|---:|---:|" + "---:|" * len(PEERS))
    rows = 0
    for dtype in dtypes:
        for protocol in protocols:
            for odd, even in pairs:
                ours = fused(odd, dtype, protocol)
                if ours is None:
                    continue
                flops = 2.0 * odd[0] * odd[1] * odd[2]
                tflops = flops / ours / 1e9
                aligned = fused(even, dtype, protocol)
                even_tflops = 2.0 * even[0] * even[1] * even[2] / aligned / 1e9 if aligned else None
                cells = [dtype, protocol, "x".join(map(str, odd)), f"{ours:.4f}", f"{tflops:.1f}",
                         "x".join(map(str, even)), f"{even_tflops:.1f}" if even_tflops else "—",
                         f"{tflops / even_tflops:.3f}" if even_tflops else "—"]
                for peer in PEERS:
                    theirs = best.get((odd, dtype, peer, protocol))
                    cells.append(f"{theirs / ours:.3f}" if theirs else "—")
                print("| " + " | ".join(cells) + " |")
                rows += 1
    if not rows:
        print("\nno coalesce row at any unaligned shape of the pairs")
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())
