"""What the Python scripts share: finding the Coalesce tool they drive (torch_peers.py stores its
rows and ncu_summary.py its profiles through coalesce-tune, which holds the database's writer
lease)."""
import os
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def find_tune(given, error):
    """The coalesce-tune binary: `given` (a script's --tune), else the packed one (dist/bin, as on
    the GPU host), the built one (build/bin), or the one on PATH. Raises `error` with one sentence
    when there is none."""
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise error(f"--tune {given} is not an executable")
        return given
    for candidate in (REPO / "dist" / "bin" / "coalesce-tune", REPO / "build" / "bin" / "coalesce-tune"):
        if os.access(candidate, os.X_OK):
            return str(candidate)
    on_path = shutil.which("coalesce-tune")
    if on_path:
        return on_path
    raise error("coalesce-tune is not in dist/bin, build/bin or on PATH: build it "
                "(docs/working.md) or pass --tune PATH")
