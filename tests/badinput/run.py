#!/usr/bin/env python3
"""The bad-input suite (issue 45): every row of cases.tsv is one command given bad or unusual
input, with the exit status and the start of the first stderr line it must give.

Each row runs in a fresh directory holding only the files its row names, made from the fixtures
(fixtures/ and the databases made below with the tools themselves). Every file and link there is
hashed before and after; a row fails when its status differs, its first stderr line does not start
with the expected text, any byte of any given file changed (or a file was removed or replaced by
another kind), or a command that was refused (a non-zero status) left a new file behind.

Usage: run.py --bin BUILD/bin [--cases cases.tsv] [--known known-defects.txt] [-k SUBSTRING]
              [-j JOBS] [--show]
runner_test.sh checks the runner itself on runner_cases.tsv: rows that must pass and rows that must
each be reported failing.

A row whose defect is known and not yet fixed is listed in known-defects.txt (id, issue, reason):
it still runs, keeps its expected (correct) behaviour, and while it fails it prints
`KNOWN <id>: <reason> (still failing) ...` and counts as known, not failed. A listed row that
passes fails the suite, so a fixed defect is taken off the list instead of hiding a regression later.
Prints one line per failing or known row, then `N passed, M failed, K known`; exit status 1 when
any row failed.
--show prints every row's status and first stderr line as the tools give them (to write a row).
The table's format is described at the top of cases.tsv and in docs/working.md.
"""
import argparse
import concurrent.futures
import fcntl
import hashlib
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# A row that runs longer than this is a hang, not a slow refusal: the suite's rows are refusals
# taken before any work starts, and the few dry runs compile one config.
ROW_TIMEOUT_S = 60
# The holder the writer lease names when a row holds it (schema/lease.cpp writes "pid N on HOST").
LEASE_HOLDER = "pid 4242 on badinput-host"
APPLICATION_ID = 0x436F616C  # "Coal", docs/database.md


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def snapshot(root):
    """{relative path: what it is}: a file's mode and content hash, a link's target, a directory."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            if os.path.islink(path):
                state[rel] = "link -> " + os.readlink(path)
            elif os.path.isdir(path):
                state[rel] = "directory"
            elif os.path.isfile(path):
                state[rel] = "file %o %s" % (st.st_mode & 0o7777, sha256(path))
            else:
                state[rel] = "other"
    return state


# --- fixtures -------------------------------------------------------------------------------------

def make_fixtures(bin_dir, out):
    """The generated fixtures, once per suite run: databases written by the tools themselves, and
    their damaged copies. The text fixtures are the files in fixtures/."""
    for name in os.listdir(os.path.join(HERE, "fixtures")):
        shutil.copy(os.path.join(HERE, "fixtures", name), os.path.join(out, name))
    tune = os.path.join(bin_dir, "coalesce-tune")

    def record(db, feed):
        with open(os.path.join(HERE, "fixtures", feed), "rb") as f:
            subprocess.run([tune, "record", "--db", os.path.join(out, db)], stdin=f,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)

    record("good.db", "feed.jsonl")
    record("other.db", "feed_other.jsonl")
    good = os.path.join(out, "good.db")
    with open(good, "rb") as f:
        data = f.read()
    with open(os.path.join(out, "trunc.db"), "wb") as f:     # a copy cut off mid-page
        f.write(data[: len(data) // 2 + 100])
    with open(os.path.join(out, "header.db"), "wb") as f:    # the SQLite header alone
        f.write(data[:100])
    open(os.path.join(out, "empty.db"), "wb").close()
    with open(os.path.join(out, "text.db"), "w") as f:
        f.write("not a database, just text\n" * 40)
    with open(os.path.join(out, "zeros.db"), "wb") as f:
        f.write(b"\0" * 8192)

    def sql(db, script, base=None):
        path = os.path.join(out, db)
        if base:
            shutil.copy(os.path.join(out, base), path)
        con = sqlite3.connect(path)
        con.executescript(script)
        con.commit()
        con.close()

    sql("future.db", "PRAGMA user_version = 99;", base="good.db")
    sql("foreign.db", "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
    sql("noapp.db", "PRAGMA application_id = 0;", base="good.db")
    migrations = sorted(os.listdir(os.path.join(REPO, "schema", "migrations")))
    for version in (1, 4):   # an older schema, as results/runS/*.db (4) and earlier (1) hold
        script = "".join(open(os.path.join(REPO, "schema", "migrations", m)).read()
                         for m in migrations if int(m[:4]) <= version)
        sql("v%d.db" % version, script + "PRAGMA application_id = %d; PRAGMA user_version = %d;"
            % (APPLICATION_ID, version))
    # A writer killed inside a transaction: killed.db with its hot killed.db-journal beside it
    # (a cache of one page makes SQLite spill changed pages into the file before the kill), and
    # one killed after a commit in WAL mode: wal.db with its wal.db-wal, the -shm dropped.
    for name, script in (
            ("killed.db", "con = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                          "con.execute('PRAGMA cache_size = 1')\n"
                          "con.execute('BEGIN IMMEDIATE')\n"
                          "con.execute(\"UPDATE runs SET host = 'killed'\")\n"
                          "con.execute('CREATE TABLE pad (x BLOB)')\n"
                          "for i in range(50): con.execute('INSERT INTO pad VALUES (zeroblob(4000))')\n"),
            ("wal.db", "con = sqlite3.connect(sys.argv[1])\n"
                       "con.execute('PRAGMA journal_mode = WAL')\n"
                       "con.execute(\"UPDATE runs SET host = 'killed'\")\n"
                       "con.commit()\n")):
        shutil.copy(good, os.path.join(out, name))
        subprocess.run([sys.executable, "-c", "import os, sqlite3, sys\n" + script + "os._exit(0)\n",
                        os.path.join(out, name)], check=True)
    for side in ("killed.db-journal", "wal.db-wal"):
        if not os.path.exists(os.path.join(out, side)):
            raise SystemExit("run.py: could not make the killed writer's fixture (no %s)" % side)


def materialize(spec, fixtures, work, locks):
    """Makes one entry of a row's files column in `work` (see cases.tsv's header)."""
    if spec.startswith("+lock:"):
        db = os.path.join(work, spec[len("+lock:"):])
        fd = os.open(db + "-lock", os.O_RDWR | os.O_CREAT, 0o644)
        os.write(fd, LEASE_HOLDER.encode())
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        locks.append(fd)
        return
    if spec.startswith("+ro:"):
        os.chmod(os.path.join(work, spec[len("+ro:"):]), 0o444)
        return
    if spec.startswith("+out:"):   # a product the command may leave even when it fails
        return
    for op in ("=>", "->", "="):
        if op in spec:
            name, source = spec.split(op, 1)
            break
    else:
        name, op, source = spec, "=", spec
    path = os.path.join(work, name)
    if name.endswith("/"):
        os.makedirs(path, exist_ok=True)
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if op == "->":
        os.symlink(source, path)
    elif op == "=>":
        os.link(os.path.join(work, source), path)
    else:
        src = os.path.join(fixtures, source)
        if not os.path.exists(src):
            raise ValueError("no fixture '%s'" % source)
        shutil.copy(src, path)


# --- the table ------------------------------------------------------------------------------------

class Case:
    def __init__(self, line_no, fields):
        self.line_no = line_no
        self.id, status, self.expect, files, self.command = fields
        self.status = int(status)
        self.files = files.split() if files not in ("", "-") else []


class KnownDefect:
    def __init__(self, line_no, issue, reason):
        self.line_no, self.issue, self.reason = line_no, issue, reason


def read_known(path, cases):
    """{row id: KnownDefect} from a known-defects list: per line `id<TAB>issue<TAB>reason`, the
    issue a number, '#' lines comments. Every id must name a row of `cases` (all of them, before
    -k), so a renamed or removed row cannot leave a stale entry behind."""
    known, ids = {}, {c.id for c in cases}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 3 or not fields[1].isdigit() or not fields[2].strip():
                raise SystemExit("%s:%d: expected 3 tab-separated fields (row id, issue number, "
                                 "reason)" % (path, n))
            row, issue, reason = fields
            if row in known:
                raise SystemExit("%s:%d: the row %s is listed twice" % (path, n, row))
            if row not in ids:
                raise SystemExit("%s:%d: no row %s in the cases: take it off the list"
                                 % (path, n, row))
            known[row] = KnownDefect(n, int(issue), reason)
    return known


def read_cases(path):
    cases, seen = [], set()
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 5:
                raise SystemExit("%s:%d: expected 5 tab-separated fields (id, status, stderr, "
                                 "files, command), found %d" % (path, n, len(fields)))
            case = Case(n, fields)
            if case.id in seen:
                raise SystemExit("%s:%d: the id %s is used twice" % (path, n, case.id))
            seen.add(case.id)
            cases.append(case)
    return cases


def start(command, work, env):
    """Runs a row's command line; a fork refused for want of processes (a row beside it that
    starts many threads) is tried again after a pause, up to three times."""
    for attempt in range(3):
        try:
            return subprocess.run(["bash", "-c", command], cwd=work, env=env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, timeout=ROW_TIMEOUT_S)
        except BlockingIOError:
            if attempt == 2:
                raise
            time.sleep(1)


def run_case(case, bin_dir, fixtures, root):
    """Runs one row; returns (failures, status, first stderr line)."""
    row_dir = os.path.join(root, case.id)
    work, home = os.path.join(row_dir, "work"), os.path.join(row_dir, "home")
    os.makedirs(work)
    os.makedirs(os.path.join(home, "tmp"))
    locks = []
    try:
        for spec in case.files:
            materialize(spec, fixtures, work, locks)
        before = snapshot(work)
        # A row names the repository's scripts as scripts/NAME; the tools are found on PATH.
        command = re.sub(r"(?<![\w./-])scripts/", REPO + "/scripts/", case.command)
        command = command.replace("{dir}", work)
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""),
                   HOME=home, XDG_CACHE_HOME=os.path.join(home, "cache"),
                   TMPDIR=os.path.join(home, "tmp"), PYTHONDONTWRITEBYTECODE="1",
                   MPLBACKEND="Agg", COALESCE_TUNE=os.path.join(bin_dir, "coalesce-tune"))
        try:
            proc = start(command, work, env)
        except subprocess.TimeoutExpired:
            return ["ran past %d s" % ROW_TIMEOUT_S], None, ""
        except OSError as e:
            return ["could not start: %s" % e], None, ""
        stderr = proc.stderr.decode("utf-8", "replace")
        first = stderr.split("\n", 1)[0]
        after = snapshot(work)
    finally:
        for fd in locks:
            os.close(fd)
    failures = []
    if proc.returncode != case.status:
        failures.append("status %d, expected %d" % (proc.returncode, case.status))
    expect = case.expect.replace("{dir}", work)
    if expect != "*" and not first.startswith(expect):
        failures.append("stderr %r, expected it to start with %r" % (first, expect))
    for rel, what in sorted(before.items()):
        if rel not in after:
            failures.append("%s was removed" % rel)
        elif after[rel] != what:
            failures.append("%s changed" % rel)
    if proc.returncode != 0:
        allowed = tuple(spec[len("+out:"):] for spec in case.files if spec.startswith("+out:"))
        for rel in sorted(set(after) - set(before)):
            if not any(rel == a or rel.startswith(a + os.sep) for a in allowed):
                failures.append("refused, yet left a new file %s" % rel)
    return failures, proc.returncode, first


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin", required=True, help="the directory of the built tools (build/bin)")
    p.add_argument("--cases", default=os.path.join(HERE, "cases.tsv"))
    p.add_argument("--known",
                   help="the rows of known, unfixed defects (default: known-defects.txt beside "
                        "run.py with the default --cases, else none)")
    p.add_argument("-k", dest="only", help="run only the rows whose id contains this")
    p.add_argument("-j", dest="jobs", type=int, default=2, help="rows run at once (default 2)")
    p.add_argument("--show", action="store_true",
                   help="print every row's status and first stderr line")
    args = p.parse_args()
    bin_dir = os.path.abspath(args.bin)
    all_cases = read_cases(args.cases)
    known_path = args.known
    if known_path is None and os.path.abspath(args.cases) == os.path.join(HERE, "cases.tsv"):
        known_path = os.path.join(HERE, "known-defects.txt")
    known = read_known(known_path, all_cases) if known_path else {}
    cases = [c for c in all_cases if not args.only or args.only in c.id]
    root = tempfile.mkdtemp(prefix="badinput.")
    try:
        fixtures = os.path.join(root, "fixtures")
        os.makedirs(fixtures)
        make_fixtures(bin_dir, fixtures)
        rows = os.path.join(root, "rows")
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(lambda c: run_case(c, bin_dir, fixtures, rows), cases))
        passed = failed = still_known = 0
        where = lambda case: "%s:%d" % (os.path.basename(args.cases), case.line_no)
        for case, (failures, status, first) in zip(cases, results):
            if args.show:
                print("%s\t%s\t%s" % (case.id, status, first))
            defect = known.get(case.id)
            if defect and failures:
                still_known += 1
                print("KNOWN %s: %s (still failing) [issue %d; %s: %s]"
                      % (case.id, defect.reason, defect.issue, where(case), "; ".join(failures)))
            elif defect:
                failed += 1
                print("FAIL %s (%s): passes now, yet %s:%d lists it as a known defect (issue %d): "
                      "remove it from the list" % (case.id, where(case), os.path.basename(known_path),
                                                   defect.line_no, defect.issue))
            elif failures:
                failed += 1
                print("FAIL %s (%s): %s" % (case.id, where(case), "; ".join(failures)))
            else:
                passed += 1
        print("%d passed, %d failed, %d known" % (passed, failed, still_known))
        return 1 if failed else 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
