import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
DEM = ROOT / "data" / "topobathy.npz"


def _cli():
    """The landfall binary: $LANDFALL_BIN, else the workspace's build (debug or release)."""
    env = os.environ.get("LANDFALL_BIN")
    if env:
        return env
    for profile in ("debug", "release"):
        p = ROOT / "target" / profile / "landfall"
        if p.exists():
            return str(p)
    return shutil.which("landfall")


@pytest.fixture(scope="session")
def cli():
    path = _cli()
    if path is None:
        pytest.skip("the landfall binary is not built (cargo build -p landfall-cli)")

    def run(*args):
        r = subprocess.run([path, *map(str, args)], capture_output=True, text=True)
        if r.returncode != 0:
            raise AssertionError(f"landfall {' '.join(map(str, args))} failed: {r.stderr}")
        return r.stdout

    return run


@pytest.fixture(scope="session")
def dem_path():
    return DEM
