#!/usr/bin/env python3
"""Byte-identity A/B of kernel cubins across a change to the epilogue code (issue 40 item 2:
kernels whose behaviour does not change keep identical code).

Compiles the same kernels, one cubin per (family, config, dtype, epilogue), from the kernels/ of
two trees, the old one taken from a git revision with `git archive`, and compares the cubins
byte for byte. The kernels are defined through each family's COALESCE_DEFINE_*_KERNEL macro with
an extern "C" symbol, so no type name reaches the cubin: an identical cubin is identical SASS.
Where the cubins differ, the code sections (.text.*, the SASS) are compared alone: "same code"
means the machine code is byte-identical and only metadata differs (e.g. a kernel parameter
added after the others changes the parameter table, not one instruction).
Needs nvcc only (no GPU; cuobjdump is not installed on the development machines).

    scripts/epilogue_cubin_ab.py --before d221153 [--after-tree .] [--only simt,gemv] [--jobs 2]

Exit 0 when every kernel's code is identical, 1 when one differs or fails to compile (each is
listed), 2 on usage errors.
"""
import argparse
import concurrent.futures
import hashlib
import os
import struct
import subprocess
import sys
import tarfile
import io
import tempfile

# A few configs of each family, covering its store paths: direct and staged stores, the TMA
# store, split-K partials, the in-kernel reductions (counters, cluster), stream-K, swap_ab.
KERNELS = {
    "simt": ("kernels/simt/gemm.cuh", "sm_90", [
        ("f32", "coalesce::SimtTile<128, 128, 16, 64, 32, 8, 8, 3, 4, 8, 2>"),
        ("f32", "coalesce::SimtTile<64, 64, 16, 32, 32, 4, 8, 3, 4, 8, 4, 4>"),
    ]),
    "mma": ("kernels/mma/gemm.cuh", "sm_90", [
        ("bf16", "coalesce::MmaTile<128, 128, 64, 64, 64, 4, 16, 1, 8, 2>"),
        ("f16", "coalesce::MmaTile<128, 128, 64, 64, 32, 4, 4, 1, 8, 1>"),
        ("tf32", "coalesce::MmaTile<128, 128, 64, 64, 32, 4, 16, 1, 8, 1>"),
    ]),
    "gemv": ("kernels/gemv/gemm.cuh", "sm_90", [
        ("bf16", "coalesce::GemvTile<4, 8, 16, 8, 4>"),
        ("f32", "coalesce::GemvTile<16, 8, 16, 8, 4>"),
    ]),
    "wgmma": ("kernels/wgmma/gemm.cuh", "sm_90a", [
        ("bf16", "coalesce::WgmmaTile<128, 256, 64, 4, 2, 1, 1, 1, 8, 0>"),
        ("f16", "coalesce::WgmmaTile<128, 128, 64, 6, 2, 1, 1, 1, 8, 1>"),
        ("bf16", "coalesce::WgmmaTile<128, 256, 64, 3, 2, 1, 1, 1, 8, 1, 1, 0, 0, 2>"),
        ("bf16", "coalesce::WgmmaTile<128, 128, 64, 6, 2, 1, 1, 0, 8, 0, 2, 0, 1>"),
        ("bf16", "coalesce::WgmmaTile<128, 128, 64, 4, 2, 1, 1, 0, 8, 0, 2, 0, 2>"),
        ("bf16", "coalesce::WgmmaTile<128, 128, 64, 4, 2, 1, 1, 1, 8, 0, 1, 0, 0, 0, 2>"),
        ("bf16", "coalesce::WgmmaTile<48, 64, 64, 8, 2, 1, 1, 0, 8, 0, 1, 0, 0, 0, 0, 2, 1>"),
        ("tf32", "coalesce::WgmmaTile<128, 256, 32, 4, 2, 1, 1, 1, 8, 0>"),
    ]),
}
# The epilogues that existed before the registry: the first config of each family is compiled
# with each, the others with the two ends (no epilogue, the erf GELU), to keep the run short.
EPILOGUES = ["none", "bias", "bias_relu", "bias_gelu"]
ENDS = ["none", "bias_gelu"]


def source(family, dtype, tile, epilogue):
    header, _, _ = KERNELS[family]
    epi = f"coalesce::EpilogueFor<coalesce::Epilogue::{epilogue}>"
    if family == "simt":
        define = f"COALESCE_DEFINE_SIMT_KERNEL(k, {tile}, {epi})"
    elif family == "wgmma":
        define = f"COALESCE_DEFINE_WGMMA_KERNEL(k, coalesce::Dtype::{dtype}, {tile}, {epi})"
    else:
        macro = "COALESCE_DEFINE_MMA_KERNEL" if family == "mma" else "COALESCE_DEFINE_GEMV_KERNEL"
        define = f"{macro}(k, {tile}, coalesce::GemmOf<coalesce::Dtype::{dtype}>, {epi})"
    return f'#include "{header}"\n{define}\n'


def code_sections(blob):
    """The contents of the ELF64 sections named .text.*, in section order (the kernels' SASS)."""
    shoff, = struct.unpack_from("<Q", blob, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", blob, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", blob, shoff + i * shentsize) for i in range(shnum)]
    names_at = headers[shstrndx][4]

    def name(h):
        start = names_at + h[0]
        return blob[start:blob.index(b"\0", start)].decode()

    return [(name(h), blob[h[4]:h[4] + h[5]]) for h in headers if name(h).startswith(".text.")]


def compile_cubin(root, work, name, text, arch):
    src = os.path.join(work, name + ".cu")
    out = os.path.join(work, name + ".cubin")
    with open(src, "w") as f:
        f.write(text)
    cmd = ["nvcc", "-std=c++17", "-cubin", f"-arch={arch}", "-O3", "-I", root, "-o", out, src]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "nvcc failed"
    with open(out, "rb") as f:
        blob = f.read()
    code = hashlib.sha256(repr(code_sections(blob)).encode()).hexdigest()
    return (hashlib.sha256(blob).hexdigest(), code), None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="git revision of the old kernels/")
    ap.add_argument("--after-tree", default=".", help="the tree whose kernels/ is the new side")
    ap.add_argument("--only", default="", help="comma-separated families (default: all)")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    families = [f for f in args.only.split(",") if f] or list(KERNELS)
    for f in families:
        if f not in KERNELS:
            print(f"epilogue_cubin_ab: no family '{f}' (have {', '.join(KERNELS)})", file=sys.stderr)
            return 2

    with tempfile.TemporaryDirectory() as tmp:
        before_root = os.path.join(tmp, "before")
        os.makedirs(before_root)
        archive = subprocess.run(["git", "-C", args.after_tree, "archive", args.before, "kernels"],
                                 capture_output=True)
        if archive.returncode != 0:
            print(f"epilogue_cubin_ab: git archive {args.before} failed: {archive.stderr.decode().strip()}",
                  file=sys.stderr)
            return 2
        tarfile.open(fileobj=io.BytesIO(archive.stdout)).extractall(before_root)
        after_root = os.path.abspath(args.after_tree)

        jobs = []
        for family in families:
            _, arch, configs = KERNELS[family]
            for i, (dtype, tile) in enumerate(configs):
                for epilogue in (EPILOGUES if i == 0 else ENDS):
                    name = f"{family}_{i}_{dtype}_{epilogue}"
                    jobs.append((name, source(family, dtype, tile, epilogue), arch))
        results = {}
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {}
            for side, root in (("before", before_root), ("after", after_root)):
                work = os.path.join(tmp, "work_" + side)
                os.makedirs(work)
                for name, text, arch in jobs:
                    futures[pool.submit(compile_cubin, root, work, name, text, arch)] = (side, name)
            for fut in concurrent.futures.as_completed(futures):
                results[futures[fut]] = fut.result()

        differ = same_code = 0
        for name, _, _ in jobs:
            (b, berr), (a, aerr) = results[("before", name)], results[("after", name)]
            if berr or aerr:
                verdict = f"compile failed: before: {berr or 'ok'}; after: {aerr or 'ok'}"
                differ += 1
            elif a[0] == b[0]:
                verdict = "identical"
            elif a[1] == b[1]:
                verdict = "same code (metadata differs)"
                same_code += 1
            else:
                verdict = "DIFFERENT code"
                differ += 1
            print(f"{name:40s} {verdict}")
        print(f"{len(jobs) - differ - same_code} of {len(jobs)} cubins identical, {same_code} with the same "
              f"code and other metadata, {differ} with different code")
        return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
