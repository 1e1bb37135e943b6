#!/usr/bin/env python3
"""The README's current tables, made from the published database by the report's own numbers.

For each dtype, the headline problems (HEADLINE) with bias + exact GELU, in the shared timing
protocol (flush_spin, docs/tuner.md "The timing protocol"): the best fused kernel of the GPU model
beside the library baselines of its run and the PyTorch/Triton peers of its sitting, as
`coalesce-report --format csv --table by_model` computes them. This script only selects and
prints: every figure is the report's.

  scripts/readme_tables.py --report build/bin/coalesce-report --check README.md   # exit 1 on a difference
  scripts/readme_tables.py --report build/bin/coalesce-report --write README.md   # rewrite the block

The block sits between BEGIN and END in the README. A headline cell the database lacks is an
error, never an empty cell. Exit status: 0 done, 1 a difference or a missing row, 2 bad usage.
"""
import argparse
import csv
import difflib
import io
import subprocess
import sys
from pathlib import Path

TOOL = "readme_tables.py"
BEGIN = "<!-- readme-tables:begin (scripts/readme_tables.py writes this block; readme_tables_test checks it) -->"
END = "<!-- readme-tables:end -->"
PROTOCOL = "flush_spin"
#: The headline problems per dtype: the square shapes where most GPU time goes, and a 64-token
#: batch, each measured with every peer in one sitting (the headline runs of 2026-12-05:
#: docs/journal/2026-12-05.md).
HEADLINE = {"bf16": ("4096×4096×4096", "8192×8192×8192", "64×4096×4096"),
            "f16": ("4096×4096×4096", "8192×8192×8192", "64×4096×4096"),
            "tf32": ("4096×4096×4096", "8192×8192×8192", "64×4096×4096"),
            "f32": ("4096×4096×4096", "8192×8192×8192", "64×4096×4096")}
DTYPES = tuple(HEADLINE)
#: The alternatives the tables show, in column order (the CSV's *_us columns).
ALTERNATIVES = (("cublas_gemm", "cuBLAS GEMM alone"), ("cublaslt_fused", "cuBLASLt fused (tanh)"),
                ("eager", "eager (3 kernels)"), ("torch_compile", "torch.compile"), ("triton", "Triton"))
DTYPE_TITLE = {"bf16": "bf16", "f16": "f16", "tf32": "tf32 (f32 storage, TF32 math)",
               "f32": "f32 (our kernel: 3xTF32 on the tensor cores, f32 accuracy)"}


class Failure(Exception):
    pass


def report_rows(report: str, db: str) -> list[dict]:
    out = subprocess.run([report, "--db", db, "--format", "csv", "--table", "by_model", "--epilogue", "bias_gelu"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise Failure(f"{report} failed (status {out.returncode}): {out.stderr.strip()}")
    body = "".join(line for line in io.StringIO(out.stdout) if not line.startswith("#"))
    return list(csv.DictReader(io.StringIO(body)))


def cell(value: str) -> str:
    return f"{float(value):.1f}" if value else "—"


def tables(rows: list[dict]) -> str:
    chosen = {(r["dtype"], r["shape"]): r for r in rows if r["protocol"] == PROTOCOL and r["shape"] in HEADLINE.get(r["dtype"], ())}
    missing = [f"{d} {s}" for d in DTYPES for s in HEADLINE[d] if (d, s) not in chosen]
    if missing:
        raise Failure(f"no {PROTOCOL} row for {', '.join(missing)} in the database")
    models = sorted({r["model"] for r in chosen.values()})
    runs = sorted({int(r["run"]) for r in chosen.values()})
    lines = [f"{models[0] if len(models) == 1 else ', '.join(models)}; protocol `{PROTOCOL}`; "
             f"runs {runs[0]}–{runs[-1]} of `results/coalesce.db`; medians in µs; "
             "the last column above 1: the fused kernel is faster than the fastest alternative.", ""]
    for dtype in DTYPES:
        lines += [f"**{DTYPE_TITLE[dtype]}**", "",
                  "| shape | fused | " + " | ".join(title for _, title in ALTERNATIVES) + " | fastest alternative | fused vs it |",
                  "| --- | ---: | " + " | ".join("---:" for _ in ALTERNATIVES) + " | --- | ---: |"]
        for shape in HEADLINE[dtype]:
            r = chosen[(dtype, shape)]
            lines.append(f"| {shape} | {cell(r['fused_us'])} | "
                         + " | ".join(cell(r[f"{key}_us"]) for key, _ in ALTERNATIVES)
                         + f" | {r['fastest_alternative']} | **{float(r['speedup']):.2f}×** |")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def split(readme: str) -> tuple[str, str, str]:
    if readme.count(BEGIN) != 1 or readme.count(END) != 1 or readme.index(BEGIN) > readme.index(END):
        raise Failure("the README has no single block between the readme-tables markers")
    head, rest = readme.split(BEGIN + "\n", 1)
    block, tail = rest.split(END, 1)
    return head, block, tail


def main() -> int:
    p = argparse.ArgumentParser(prog=f"scripts/{TOOL}", description=__doc__.split("\n\n")[0])
    p.add_argument("--report", default="build/bin/coalesce-report", help="the coalesce-report binary")
    p.add_argument("--db", default="results/coalesce.db", help="the published database")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--check", metavar="README", help="exit 1 when README's block differs")
    what.add_argument("--write", metavar="README", help="rewrite README's block")
    args = p.parse_args()
    try:
        made = tables(report_rows(args.report, args.db))
        target = args.check or args.write
        if not target:
            sys.stdout.write(made)
            return 0
        readme = Path(target).read_text()
        head, block, tail = split(readme)
        if args.write:
            Path(target).write_text(head + BEGIN + "\n" + made + END + tail)
            return 0
        if block != made:
            sys.stderr.write(f"{TOOL}: {target}'s tables differ from the database's (scripts/readme_tables.py --write):\n")
            sys.stderr.writelines(difflib.unified_diff(block.splitlines(True), made.splitlines(True), target, "database"))
            return 1
        return 0
    except (Failure, OSError) as e:
        print(f"{TOOL}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
