"""The GPU runs' raw logs as the tests of the lab scripts read them: since the size rule
(docs/working.md, "What goes into results/") they are out of the tree, and the last commit that
held them, ARCHIVE, keeps them in the history every clone carries. `archived(path)` extracts a
file or folder of that commit into one temporary directory per test process and returns where it
landed, so a test compares a script's output with the figures a run committed then."""
import atexit
import shutil
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
#: The last commit with results/logs/, results/README.md's run table and the 66 MB lab database.
ARCHIVE = "51cc3d398c4fd23bee4fcf5d3bbd66be6868fbe4"

_root = Path(tempfile.mkdtemp(prefix="coalesce-archive-"))
atexit.register(shutil.rmtree, _root, ignore_errors=True)


def archived(path: str) -> Path:
    """`path` (relative to the repository) as ARCHIVE holds it, extracted once."""
    target = _root / path
    if not target.exists():
        archive = subprocess.run(["git", "-C", str(REPO), "archive", ARCHIVE, path], capture_output=True)
        if archive.returncode != 0:
            raise RuntimeError(f"git archive {ARCHIVE[:7]} {path}: {archive.stderr.decode().strip()} "
                               "(the tests of the lab scripts need the repository's history: a full clone)")
        subprocess.run(["tar", "-x", "-C", str(_root)], input=archive.stdout, check=True)
    return target
