"""What a new user meets first: the version, landfall.dask without Dask, float32 storage said
aloud, errors that name the terrain's extent, the example writing where it runs, and the
docstrings' examples running as written."""

import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import landfall

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def test_version_is_the_crates():
    cargo = (pathlib.Path(__file__).resolve().parents[3] / "Cargo.toml").read_text()
    want = re.search(r'^version = "([^"]+)"', cargo, re.M).group(1)
    assert landfall.__version__ == want


def test_dask_module_without_dask_says_what_to_install():
    code = "import sys; sys.modules['dask'] = None\ntry:\n import landfall.dask\nexcept ImportError as e:\n print(e)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "landfall.dask needs Dask" in r.stdout and "[dask]" in r.stdout, r.stdout + r.stderr


def test_float64_heights_become_float32_and_say_by_how_much():
    h = np.array([[0.1, 1000.123456789], [-2.5, 1e7 + 0.3]])
    t = landfall.Heightfield.from_array(h)
    info = t.info()
    assert info["dtype"] == "float32"
    want = float(np.max(np.abs(h - h.astype(np.float32))))
    assert info["rounding_error"] == want and want > 0
    assert info["rounding_bound"] == 1e7 * 2.0 ** -24 >= want
    # An edit's rounding counts too; exact float32 values change nothing.
    t.set_heights(np.array([[2.0 ** 30 + 1.0]]), row=0, col=0)
    assert t.info()["rounding_error"] == 1.0
    assert landfall.Heightfield.from_array(np.array([[1.5, 2.0], [3.0, 4.0]])).info()["rounding_error"] == 0.0
    # A terrain read from a file: its bound, no measurement.
    assert "rounding_error" in landfall.open(pathlib.Path(__file__).resolve().parents[3] / "data" / "topobathy.npz").info()
    assert "float32" in landfall.Heightfield.from_array.__doc__


def test_an_observer_off_the_terrain_is_told_the_extent():
    t = landfall.Heightfield.from_array(np.zeros((3, 4)), spacing=10, origin=(1000, 2000))
    with pytest.raises(ValueError, match=r"outside the terrain \(the terrain covers x 1000 … 1030, y 2000 … 2020\)"):
        t.viewshed(0, 0)


def test_profile_example_writes_into_the_working_directory(tmp_path):
    pytest.importorskip("rioxarray")
    pytest.importorskip("matplotlib")
    r = subprocess.run([sys.executable, str(EXAMPLES / "profile.py")], cwd=tmp_path, capture_output=True, text=True,
                       env={**os.environ, "MPLBACKEND": "Agg"})
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["python-profile.png", "topobathy.tif"]


def test_the_docstrings_examples_run():
    import doctest

    r = doctest.testmod(landfall)
    assert r.attempted >= 10 and r.failed == 0, r


def test_open_warns_what_the_cli_notes(tmp_path):
    # Degrees taken for metres (no CRS): the heights span 1995 units over 0.8 — warned, as the CLI notes.
    p = tmp_path / "hill.asc"
    rows = "\n".join(" ".join(str(5 + (i * 97 + j * 31) % 1996) for i in range(100)) for j in range(100))
    p.write_text("ncols 100\nnrows 100\nxllcorner 10\nyllcorner 46\ncellsize 0.00833\n" + rows + "\n")
    with pytest.warns(UserWarning, match=r"hill\.asc: the heights span .* units disagree"):
        t = landfall.open(p)
    assert any("disagree" in n for n in t.info()["notes"])
    # A raster in degrees: the model is noted in info(), not warned.
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = landfall.open(pathlib.Path(__file__).resolve().parents[3] / "data" / "topobathy.npz")
    said = [str(w.message) for w in caught]
    assert not any("WGS84" in m or "georeferenced by arrays" in m for m in said), said
    assert any("not evenly spaced" in str(w.message) for w in caught)  # the file's own note, as the CLI's
    assert any("WGS84 ellipsoid" in n for n in g.info()["notes"])
