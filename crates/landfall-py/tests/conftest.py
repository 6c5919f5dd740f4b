import os
import pathlib
import shutil
import subprocess

import pytest

# Under LANDFALL_CI (set by .ci/run) nothing may be skipped: a skipped test or module fails. Elsewhere
# each skip is listed by pytest's summary (-rs) and again at the end of scripts/test.sh.
_CI = os.environ.get("LANDFALL_CI", "") not in ("", "0")


def _skip_reason(rep):
    r = rep.longrepr
    return r[2] if isinstance(r, tuple) and len(r) == 3 else str(r)


def _judge_skip(rep, what):
    if not rep.skipped or hasattr(rep, "wasxfail"):
        return
    reason = _skip_reason(rep)
    if _CI:
        rep.outcome = "failed"
        rep.longrepr = f"{what} skipped under LANDFALL_CI: {reason}"
        return
    skips = os.environ.get("LANDFALL_SKIPS")
    if skips:
        with open(skips, "a", encoding="utf-8") as f:
            f.write(f"skipped: {what}: {reason}\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _judge_skip(outcome.get_result(), item.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _judge_skip(outcome.get_result(), collector.nodeid)

ROOT = pathlib.Path(__file__).resolve().parents[3]
DEM = ROOT / "data" / "topobathy.npz"  # in degrees (geographic)


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


@pytest.fixture(scope="session")
def metric_path():
    """The real DEM in metres (a projected grid)."""
    return ROOT / "data" / "volcano.asc"


@pytest.fixture(scope="session", params=["topobathy.npz", "volcano.asc"], ids=["degrees", "metres"])
def raster_path(request):
    """Each real DEM: in degrees (geographic, EPSG:4326) and in metres."""
    return ROOT / "data" / request.param
