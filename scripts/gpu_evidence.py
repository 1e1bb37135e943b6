#!/usr/bin/env python3
"""GPU evidence tied to the code it tested (docs/working.md, "GPU evidence").

A GPU run counts for the code whose git trees it ran: the paths of scripts/gpu-evidence-paths.txt
(kernels/, harness/, tuner/, ... : what the GPU tests build and judge). The trees are git's own
object ids, computed from the files on disk, so the GPU host (which gets the working tree without
.git) computes the same ids as `git rev-parse HEAD:kernels` here.

    gpu_evidence.py pack DIST BUILD      (scripts/gpu-pack.sh, here) DIST/source.json: the commit,
                                         the built tools' revision, the trees of the files as they
                                         travel and the paths where those differ from HEAD (dirty)
    gpu_evidence.py verify DIST          (scripts/gpu-test.sh, on the GPU host, first) refuses a
                                         tree whose files are not the packed ones, or tools built
                                         from another commit than the one packed
    gpu_evidence.py result DIST RUNS OUT (scripts/gpu-test.sh, last) the machine-readable result:
                                         every binary and test case with its status, the examples,
                                         the device, the trees of the tree it ran in
    gpu_evidence.py import FILE          (here) accepts only a clean, fully passing result whose
                                         trees are its commit's, and writes
                                         results/gpu-evidence/latest.json
    gpu_evidence.py check                (.ci/run, by scripts/check-gpu-evidence.sh) fails, naming
                                         the paths, when a tree at HEAD differs from latest.json's

Exit status: 0 done; 1 refused (the reason on stderr, one line per finding); 2 bad usage.
"""
import argparse
import datetime
import hashlib
import json
import os
import re
import socket
import stat
import subprocess
import sys

FORMAT = "coalesce-gpu-result/1"
PATHS_FILE = "scripts/gpu-evidence-paths.txt"
LATEST = "results/gpu-evidence/latest.json"
# Byte-compiled Python is never tracked (.gitignore) and may appear on the GPU host when a script
# runs there; it is not code the run tested.
IGNORED_NAMES = {"__pycache__", ".git"}
# pack, import and check work on the repository this script belongs to; verify and result (on the
# GPU host, run by scripts/gpu-test.sh from the tree's root) on the current directory.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOW_TO_RUN = ("make gpu-pack (on a clean, committed tree), carry dist, run `scripts/gpu-test.sh` on the GPU "
              "host, then `scripts/gpu_evidence.py import $OUT/gpu-result.json` here and commit " + LATEST)


class Refused(Exception):
    """A finding that makes the command exit 1."""


def say(msg):
    print(f"gpu_evidence: {msg}", file=sys.stderr)


# --- git object ids from files ------------------------------------------------------------------

def blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def entry_of(full):
    """(mode, object id) of one file or symlink as git stores it."""
    st = os.lstat(full)
    if stat.S_ISLNK(st.st_mode):
        return "120000", blob_id(os.readlink(full).encode())
    with open(full, "rb") as f:
        data = f.read()
    return ("100755" if st.st_mode & stat.S_IXUSR else "100644"), blob_id(data)


def tree_id(entries):
    """entries: {name: (mode, id)}. Git orders a tree's entries by name, a folder's as name + '/'."""
    def key(name):
        return name.encode() + (b"/" if entries[name][0] == "40000" else b"")
    body = b"".join(b"%s %s\0" % (entries[n][0].encode(), n.encode()) + bytes.fromhex(entries[n][1])
                    for n in sorted(entries, key=key))
    return hashlib.sha1(b"tree %d\0" % len(body) + body).hexdigest()


def object_id(root, path, files=None):
    """Git's id of PATH (a file's blob or a folder's tree) under ROOT; None when absent or empty.
    FILES, when given, is the set of relative file paths to count (here: what git would carry);
    otherwise every file under PATH counts (the GPU host, which holds only what was carried)."""
    full = os.path.join(root, path)
    if os.path.islink(full) or os.path.isfile(full):
        if files is not None and path not in files:
            return None
        return entry_of(full)[1]
    if not os.path.isdir(full):
        return None

    def walk(rel):
        entries = {}
        for name in os.listdir(os.path.join(root, rel)):
            if name in IGNORED_NAMES or name.endswith(".pyc"):
                continue
            child = f"{rel}/{name}"
            cfull = os.path.join(root, child)
            if os.path.isdir(cfull) and not os.path.islink(cfull):
                sub = walk(child)
                if sub is not None:  # git stores no empty folder
                    entries[name] = ("40000", sub)
            elif files is None or child in files:
                entries[name] = entry_of(cfull)
        return tree_id(entries) if entries else None

    return walk(path.rstrip("/"))


# --- the list of paths and git ------------------------------------------------------------------

def parse_paths(text):
    paths = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip().rstrip("/")
        if line:
            if line.startswith("/") or ".." in line.split("/") or line == "results" or line.startswith("results/"):
                raise Refused(f"{PATHS_FILE}: '{line}' is not a path inside the repository outside results/")
            paths.append(line)
    return paths


def git(root, *args, check=True):
    r = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise Refused(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def git_id(root, rev, path):
    r = subprocess.run(["git", "-C", root, "rev-parse", "--verify", "-q", f"{rev}:{path}"],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def carried_files(root, paths):
    """The files of PATHS that travel to the GPU host: tracked ones still on disk and untracked
    ones git does not ignore (an untracked kernel header is built in: kernels/ is globbed)."""
    out = git(root, "ls-files", "-co", "--exclude-standard", "-z", "--", *paths)
    return {f for f in out.split("\0") if f and os.path.lexists(os.path.join(root, f))}


# --- pack ---------------------------------------------------------------------------------------

def tools_revision_of_build(build):
    header = os.path.join(build, "generated", "coalesce", "version.h")
    try:
        with open(header) as f:
            m = re.search(r'COALESCE_GIT_REVISION "([^"]*)"', f.read())
        return m.group(1) if m else "unknown"
    except OSError:
        return "unknown"


def cmd_pack(args):
    root = ROOT
    with open(os.path.join(root, PATHS_FILE)) as f:
        paths = parse_paths(f.read())
    files = carried_files(root, paths)
    trees = {p: object_id(root, p, files) for p in paths}
    head = {p: git_id(root, "HEAD", p) for p in paths}
    commit = git(root, "rev-parse", "HEAD").strip()
    source = {
        "format": FORMAT,
        "commit": commit,
        "tools_revision": tools_revision_of_build(args.build),
        "paths": paths,
        "trees": trees,
        "dirty": [p for p in paths if trees[p] != head[p]],
        "packed_at": now(),
    }
    os.makedirs(args.dist, exist_ok=True)
    with open(os.path.join(args.dist, "source.json"), "w") as f:
        json.dump(source, f, indent=1)
        f.write("\n")
    if source["dirty"]:
        say(f"packed a tree with uncommitted changes in {', '.join(source['dirty'])}: "
            "its GPU run tests them but cannot be imported as evidence")
    elif not evidence_revision(source):
        say(f"the build's revision {source['tools_revision']} is not HEAD {commit[:12]} (rebuild after "
            "committing): its GPU run cannot be imported as evidence")
    return 0


def evidence_revision(r):
    return r.get("tools_revision") == (r.get("commit") or "")[:12] and len(r.get("commit") or "") == 40


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def load_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise Refused(f"{path}: cannot read {what}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise Refused(f"{path}: not JSON ({e.msg} at line {e.lineno})")


# --- verify (GPU host, before any test) ---------------------------------------------------------

def tool_revisions(dist):
    """{tool: revision} from each packed tool's --version line '... (git REV)'."""
    revs = {}
    bindir = os.path.join(dist, "bin")
    for name in sorted(os.listdir(bindir)) if os.path.isdir(bindir) else []:
        if not name.startswith("coalesce-"):
            continue
        try:
            out = subprocess.run([os.path.join(bindir, name), "--version"], capture_output=True, text=True,
                                 timeout=60).stdout
        except (OSError, subprocess.TimeoutExpired):
            out = ""
        m = re.search(r"\(git ([^)\s]+)\)", out)
        revs[name] = m.group(1) if m else None
    return revs


def cmd_verify(args):
    source = load_json(os.path.join(args.dist, "source.json"), "the pack's record (run scripts/gpu-pack.sh)")
    findings = []
    commit = source.get("commit") or ""
    if len(commit) != 40:
        findings.append("dist/source.json records no commit (packed outside a git checkout?)")
    here = {p: object_id(".", p) for p in source.get("paths", [])}
    differ = [p for p in source.get("paths", []) if here[p] != source["trees"].get(p)]
    if differ:
        findings.append(f"this tree is not the one dist/ was packed from (commit {commit[:12]}): "
                        f"{', '.join(differ)} differ; pack again (make gpu-pack) from this tree")
    revs = tool_revisions(args.dist)
    if not revs:
        findings.append("dist/bin holds no coalesce-* tool to tell the build's revision")
    for tool, rev in revs.items():
        base = (rev or "").removesuffix("-dirty")
        if not rev or not commit.startswith(base) or len(base) < 7:
            findings.append(f"dist/bin/{tool} was built at {rev or 'an unknown revision'}, not at the packed "
                            f"commit {commit[:12]}: rebuild and pack again")
        elif rev != source.get("tools_revision"):
            findings.append(f"dist/bin/{tool} says {rev}, the pack recorded {source.get('tools_revision')}")
    if findings:
        raise Refused("; ".join(findings))
    return 0


# --- result (GPU host, after the tests) ---------------------------------------------------------

def gtest_cases(path):
    """{Suite.Case: passed|failed|skipped} from a GoogleTest --gtest_output=json file."""
    cases = {}
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError):
        return cases
    for suite in doc.get("testsuites", []):
        for case in suite.get("testsuite", []):
            name = f"{suite.get('name')}.{case.get('name')}"
            if case.get("failures"):
                cases[name] = "failed"
            elif case.get("result") == "SKIPPED" or case.get("status") == "NOTRUN":
                cases[name] = "skipped"
            else:
                cases[name] = "passed"
    return cases


def devices():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,uuid,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    found = []
    for line in out.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 3:
            found.append({"name": parts[0], "uuid": parts[1], "driver": parts[2]})
    return found


def cmd_result(args):
    """RUNS holds, per test binary NAME, NAME.json (GoogleTest's) and NAME.rc, per example NAME.rc
    under examples/, and failures.txt (gpu-test.sh's FAIL lines)."""
    source = load_json(os.path.join(args.dist, "source.json"), "the pack's record")
    binaries, examples = [], []
    for list_name, into in (("gpu-tests.txt", binaries), ("gpu-examples.txt", examples)):
        with open(os.path.join(args.dist, list_name)) as f:
            names = [n.strip() for n in f if n.strip()]
        for name in names:
            sub = "" if into is binaries else "examples"
            rc_file = os.path.join(args.runs, sub, name + ".rc")
            rc = int(open(rc_file).read().strip()) if os.path.exists(rc_file) else None
            entry = {"name": name, "exit": rc}
            if into is binaries:
                entry["tests"] = gtest_cases(os.path.join(args.runs, name + ".json"))
            into.append(entry)
    failures_file = os.path.join(args.runs, "failures.txt")
    failures = [l.rstrip("\n") for l in open(failures_file)] if os.path.exists(failures_file) else []
    paths = source.get("paths", [])
    result = {
        "format": FORMAT,
        "verdict": "passed" if not failures else "failed",
        "commit": source.get("commit"),
        "tools_revision": source.get("tools_revision"),
        "tools": tool_revisions(args.dist),
        "dirty": source.get("dirty", []),
        "paths": paths,
        # Computed here from the files the tests were built from and ran beside, not copied.
        "trees": {p: object_id(".", p) for p in paths},
        "devices": devices(),
        "host": socket.gethostname(),
        "finished_at": now(),
        "failures": failures,
        "binaries": binaries,
        "examples": examples,
    }
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1, sort_keys=False)
        f.write("\n")
    return 0


# --- import and check (here) --------------------------------------------------------------------

def findings_of(r):
    """Why a result is not clean, passing evidence (empty when it is)."""
    found = []
    if r.get("format") != FORMAT:
        return [f"format {r.get('format')!r}, not {FORMAT!r}"]
    if r.get("verdict") != "passed" or r.get("failures"):
        found.append(f"the run did not pass ({len(r.get('failures') or [])} failures"
                     + (f": {r['failures'][0]}" if r.get("failures") else "") + ")")
    if not r.get("binaries"):
        found.append("it ran no test binary")
    for b in r.get("binaries") or []:
        cases = b.get("tests") or {}
        bad = [c for c, s in cases.items() if s != "passed"]
        if b.get("exit") != 0:
            found.append(f"{b.get('name')} exited {b.get('exit')}")
        if not cases:
            found.append(f"{b.get('name')} ran no test")
        elif bad:
            found.append(f"{b.get('name')}: {len(bad)} of {len(cases)} tests not passed ({bad[0]}: {cases[bad[0]]})")
    if not r.get("examples"):
        found.append("it ran no example")
    for e in r.get("examples") or []:
        if e.get("exit") != 0:
            found.append(f"example {e.get('name')} exited {e.get('exit')}")
    if r.get("dirty"):
        found.append(f"it was built from uncommitted changes in {', '.join(r['dirty'])}")
    if not evidence_revision(r):
        found.append(f"its tools were built at {r.get('tools_revision')}, not at its commit "
                     f"{(r.get('commit') or '?')[:12]}")
    for tool, rev in (r.get("tools") or {}).items():
        if rev != r.get("tools_revision"):
            found.append(f"{tool} says {rev}, not {r.get('tools_revision')}")
    if not r.get("devices"):
        found.append("it names no device (nvidia-smi found none)")
    if not r.get("paths") or any(t is None for t in (r.get("trees") or {None: None}).values()):
        found.append("it records no tree for some path")
    return found


def cmd_import(args):
    root = ROOT
    r = load_json(args.file, "the GPU result")
    found = findings_of(r)
    commit = r.get("commit") or ""
    if not found:
        if subprocess.run(["git", "-C", root, "cat-file", "-e", f"{commit}^{{commit}}"],
                          capture_output=True).returncode != 0:
            found.append(f"its commit {commit[:12]} is not in this repository")
        else:
            listed = parse_paths(git(root, "show", f"{commit}:{PATHS_FILE}"))
            if listed != r["paths"]:
                found.append(f"its paths are not {PATHS_FILE} of {commit[:12]}")
            differ = [p for p in r["paths"] if git_id(root, commit, p) != r["trees"].get(p)]
            if differ:
                found.append(f"the trees it ran are not those of its commit {commit[:12]}: {', '.join(differ)}")
    if found:
        raise Refused(f"{args.file} refused: " + "; ".join(found))
    out = os.path.join(root, LATEST)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    r["imported_at"] = now()
    with open(out, "w") as f:
        json.dump(r, f, indent=1)
        f.write("\n")
    tests = sum(len(b["tests"]) for b in r["binaries"])
    print(f"imported: {commit[:12]} on {r['devices'][0]['name']}, {len(r['binaries'])} binaries "
          f"({tests} tests), {len(r['examples'])} examples -> {LATEST}")
    return 0


def cmd_check(args):
    root = ROOT
    latest = os.path.join(root, LATEST)
    if not os.path.exists(latest):
        raise Refused(f"no GPU result at {LATEST}: {HOW_TO_RUN}")
    r = load_json(latest, "the GPU result")
    found = findings_of(r)
    if found:
        raise Refused(f"{LATEST} is not a clean passing result ({'; '.join(found)}): {HOW_TO_RUN}")
    paths = parse_paths(git(root, "show", f"HEAD:{PATHS_FILE}"))
    changed = [p for p in paths if git_id(root, "HEAD", p) != r["trees"].get(p)]
    gone = [p for p in r["paths"] if p not in paths]
    if changed or gone:
        names = ", ".join(p + "/" if git(root, "cat-file", "-t", f"HEAD:{p}", check=False).strip() == "tree" else p
                          for p in changed)
        what = []
        if changed:
            what.append(f"{names} changed")
        if gone:
            what.append(f"{', '.join(gone)} left {PATHS_FILE}")
        device = (r.get("devices") or [{}])[0].get("name", "?")
        raise Refused(f"{' and '.join(what)} since the GPU result of {r['commit'][:12]} ({device}, "
                      f"{r.get('finished_at')}): the code at HEAD has no GPU run. {HOW_TO_RUN}")
    print(f"check-gpu-evidence: the GPU result of {r['commit'][:12]} covers HEAD ({len(paths)} paths)")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("pack"); s.add_argument("dist"); s.add_argument("build"); s.set_defaults(run=cmd_pack)
    s = sub.add_parser("verify"); s.add_argument("dist"); s.set_defaults(run=cmd_verify)
    s = sub.add_parser("result"); s.add_argument("dist"); s.add_argument("runs"); s.add_argument("out")
    s.set_defaults(run=cmd_result)
    s = sub.add_parser("import"); s.add_argument("file"); s.set_defaults(run=cmd_import)
    s = sub.add_parser("check"); s.set_defaults(run=cmd_check)
    s = sub.add_parser("id", help="git's id of each PATH under ROOT as the files stand")
    s.add_argument("root"); s.add_argument("paths", nargs="+")
    s.set_defaults(run=lambda a: print("\n".join(f"{object_id(a.root, q) or '-'} {q}" for q in a.paths)) or 0)
    args = p.parse_args()
    try:
        return args.run(args)
    except Refused as e:
        say(str(e))
        return 1


if __name__ == "__main__":
    sys.exit(main())
