"""The Python package against the CLI on the same files, and its own contract."""

import csv
import pickle
import re
import threading

import numpy as np
import pytest

import landfall


def read_csv(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def num(s):
    return float(s) if s != "" else np.nan


@pytest.fixture(scope="module")
def dem(dem_path):
    return landfall.open(dem_path)


@pytest.fixture(scope="module")
def raster(raster_path):
    return landfall.open(raster_path)


def random_points(t, n, seed=1):
    """Points over a raster's extent in its own coordinates (lon, lat for one in degrees), a few
    outside to see NaN."""
    (x0, y0), (x1, y1) = t.info()["extent"]
    rng = np.random.default_rng(seed)
    x = rng.uniform(x0 - 0.1 * (x1 - x0), x1 + 0.1 * (x1 - x0), n)
    y = rng.uniform(y0 - 0.1 * (y1 - y0), y1 + 0.1 * (y1 - y0), n)
    return x, y


def geographic(t):
    return t.info()["kind"] == "geographic"


def enu_axes(lon, lat):
    """The east, north, up unit vectors in ECEF at each (lon, lat) (degrees), as the columns of
    (..., 3, 3) matrices."""
    lo, la = np.radians(lon), np.radians(lat)
    sl, cl, sp, cp = np.sin(lo), np.cos(lo), np.sin(la), np.cos(la)
    e = np.stack([-sl, cl, np.zeros_like(sl)], -1)
    n = np.stack([-sp * cl, -sp * sl, cp], -1)
    u = np.stack([cp * cl, cp * sl, sp], -1)
    return np.stack([e, n, u], -1)


def test_height_equals_the_cli(tmp_path, cli, raster, raster_path):
    x, y = random_points(raster, 2000)
    pts = tmp_path / "p.csv"
    np.savetxt(pts, np.c_[x, y], delimiter=",", header="x,y", comments="", fmt="%.17g")
    out = tmp_path / "h.csv"
    cli("height", raster_path, "--points", pts, "--out", out)
    header, rows = read_csv(out)
    z_cli = np.array([num(r[2]) for r in rows])
    z = raster.height(x, y)
    assert z.shape == (2000,)
    assert np.array_equal(z, z_cli, equal_nan=True)
    assert np.isnan(z).any() and (~np.isnan(z)).any()
    p, n = raster.surface(x, y)
    assert np.array_equal(p[:, 2], z, equal_nan=True)
    assert np.array_equal(p, np.array([[num(v) for v in r[0:3]] for r in rows]), equal_nan=True)
    if geographic(raster):
        # lon, lat, h, the point in ECEF, the normal in ECEF; Python's normal is in the surface's
        # east-north-up frame.
        assert header == ["lon", "lat", "h", "ecef_x", "ecef_y", "ecef_z", "nx", "ny", "nz"]
        o = raster.info()["enu_origin"]
        n_cli = np.array([[num(v) for v in r[6:9]] for r in rows])
        assert np.allclose(n @ enu_axes(o["lon"], o["lat"]).T, n_cli, rtol=0, atol=1e-12, equal_nan=True)
        ecef = np.array([[num(v) for v in r[3:6]] for r in rows])
        ok = ~np.isnan(z)
        want = raster.to_enu(p[ok]) @ enu_axes(o["lon"], o["lat"]).T + o["ecef"]
        assert np.allclose(want, ecef[ok], rtol=0, atol=1e-6)
    else:
        assert header == ["x", "y", "z", "nx", "ny", "nz"]
        n_cli = np.array([[num(v) for v in r[3:6]] for r in rows])
        assert np.array_equal(n, n_cli, equal_nan=True)


def test_raycast_equals_the_cli(tmp_path, cli, raster, raster_path):
    x, y = random_points(raster, 500, seed=2)
    rng = np.random.default_rng(3)
    lo, hi = raster.info()["height_range"]
    # From above the highest ground, down and a little aside (metres east, north, up for a raster
    # in degrees), with a reach that ends above the ground for some rays and below it for others.
    o = np.c_[x, y, np.full(500, hi + (hi - lo))]
    d = np.c_[rng.normal(size=(500, 2)) * 0.05, -np.ones(500)]
    max_t = rng.uniform(0.5, 2.5, 500) * (hi - lo)
    rays = tmp_path / "r.csv"
    np.savetxt(rays, np.c_[o, d, max_t], delimiter=",", header="ox,oy,oz,dx,dy,dz,max_t", comments="", fmt="%.17g")
    out = tmp_path / "hits.csv"
    cli("raycast", raster_path, "--rays", rays, "--out", out)
    header, rows = read_csv(out)
    assert header[:5] == (["hit", "t", "lon", "lat", "h"] if geographic(raster) else ["hit", "t", "x", "y", "z"])
    r = raster.raycast(o, d, max_t)
    assert np.array_equal(r.hit, np.array([row[0] == "1" for row in rows]))
    assert np.array_equal(r.t, np.array([num(row[1]) for row in rows]), equal_nan=True)
    assert np.array_equal(r.point, np.array([[num(v) for v in row[2:5]] for row in rows]), equal_nan=True)
    assert 0.2 < r.hit.mean() < 0.9, r.hit.mean()
    # A hit is on the ground under it, t along the ray.
    h = r.hit
    assert np.allclose(raster.height(r.point[h, 0], r.point[h, 1]), r.point[h, 2], rtol=0, atol=1e-6)
    if not geographic(raster):
        assert np.allclose(o[h] + r.t[h, None] * d[h], r.point[h], rtol=0, atol=1e-9)
    # float32 input is converted; a scalar max_t applies to every ray.
    r32 = raster.raycast(o.astype(np.float32), d.astype(np.float32), 1e9)
    assert r32.hit.shape == (500,)


def test_visible_matches_raycast(raster):
    x, y = random_points(raster, 300, seed=4)
    z = raster.height(x, y)
    ok = ~np.isnan(z)
    a = np.c_[x[ok], y[ok], z[ok] + 10.0]
    b = a[::-1].copy()
    vis = raster.visible(a, b)
    if geographic(raster):
        # The segment a→b is straight in space: its direction in ECEF, then in the east-north-up
        # frame at each a, where a ray from (lon, lat, h) takes its direction.
        o = raster.info()["enu_origin"]
        d_ecef = (raster.to_enu(b) - raster.to_enu(a)) @ enu_axes(o["lon"], o["lat"]).T
        d = np.einsum("kji,kj->ki", enu_axes(a[:, 0], a[:, 1]), d_ecef)
    else:
        d = b - a
    hits = raster.raycast(a, d, 1.0)
    # Blocked lines hit the terrain before b; clear ones do not, short of touching at the ends.
    assert not np.any(vis & hits.hit & (hits.t < 1 - 1e-6))
    assert np.all(vis | hits.hit)
    assert vis.any() and (~vis).any()


def test_from_array_layout_holes_and_diagonals():
    h = np.array([[10.0, 11.0, 12.0], [0.0, np.nan, 2.0], [0.0, 1.0, 2.0]])  # first row north
    t = landfall.Heightfield.from_array(h, spacing=(2.0, 5.0), origin=(100.0, 200.0))
    # South-west sample is h[-1, 0]; north-east is h[0, -1] at (104, 210).
    assert t.height(100.0, 200.0) == 0.0
    assert t.height(104.0, 210.0) == 12.0
    assert np.isnan(t.height(102.0, 205.0))  # the hole
    assert np.isnan(t.height(99.0, 200.0))  # outside
    assert t.info()["nodata_samples"] == 1
    assert np.array_equal(t.heights(), h, equal_nan=True)
    for d in ("alternating", "sw-ne", "se-nw"):
        landfall.Heightfield.from_array(h, diagonal=d)
    # Shapes broadcast; results keep them.
    assert t.height([[100.0, 102.0]], 200.0).shape == (1, 2)


def test_bad_inputs_are_value_errors(tmp_path, dem):
    with pytest.raises(ValueError, match="diagonal"):
        landfall.Heightfield.from_array(np.zeros((3, 3)), diagonal="zigzag")
    with pytest.raises(ValueError, match="heights"):
        landfall.Heightfield.from_array(np.zeros(9))
    with pytest.raises(ValueError, match="spacing"):
        landfall.Heightfield.from_array(np.zeros((3, 3)), spacing=0.0)
    with pytest.raises(ValueError, match="heights"):
        landfall.Heightfield.from_array(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="not a finite height"):
        landfall.Heightfield.from_array(np.array([[0.0, np.inf], [0.0, 0.0]]))
    with pytest.raises(ValueError, match="shapes"):
        dem.height(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match="origins"):
        dem.raycast(np.zeros((3, 2)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="ray 1"):
        dem.raycast([[0, 0, 0], [0, 0, 0]], [[0, 0, -1], [0, 0, 0]])
    with pytest.raises(ValueError, match="max_t"):
        dem.raycast([[0, 0, 0]], [[0, 0, -1]], -1.0)
    # Beyond ±1e150 a line's answer keeps none of the terrain's digits: refused, naming the row.
    with pytest.raises(ValueError, match=r"ray 0: .*1e150"):
        dem.raycast([[-4e307, -4e307, -4e307]], [[1, 1, 1]])
    with pytest.raises(ValueError, match=r"point pair 1: .*1e150"):
        dem.visible([[0, 0, 9], [0, 0, 9]], [[1, 1, 9], [9e307, 0, 9]])
    missing = tmp_path / "nope.tif"
    with pytest.raises(ValueError, match="nope.tif"):
        landfall.open(missing)
    bad = tmp_path / "bad.asc"
    bad.write_text("ncols 2\nnrows 2\ncellsize 1\nxllcorner 0\nyllcorner 0\n1 2\n3 x\n")
    with pytest.raises(ValueError, match="bad.asc"):
        landfall.open(bad)
    with pytest.raises(ValueError, match="gravity"):
        landfall.open(bad, gravity=(0, 0, 0))
    with pytest.raises(ValueError, match="spacing"):
        landfall.Heightfield.from_array(np.zeros((3, 3)), spacing=(1, 2, 3))
    with pytest.raises(ValueError, match="argument 1 is not numbers"):
        dem.height("a", 1)
    # The size limit, as --max-samples: named in the error, raised by max_samples=.
    good = tmp_path / "good.asc"
    good.write_text("ncols 3\nnrows 2\ncellsize 1\nxllcorner 0\nyllcorner 0\n1 2 3\n3 4 5\n")
    with pytest.raises(ValueError, match="max_samples"):
        landfall.open(good, max_samples=5)
    assert landfall.open(good, max_samples=6).info()["nx"] == 3
    with pytest.raises(ValueError, match="max_samples"):
        landfall.open(good, max_samples=0)


def test_threads_release_the_gil_and_agree(dem):
    x, y = random_points(dem, 200_000, seed=5)
    want = dem.height(x, y)
    got = [None] * 4

    def work(k):
        got[k] = dem.height(x, y)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for g in got:
        assert np.array_equal(g, want, equal_nan=True)


def test_pickling(dem):
    t = pickle.loads(pickle.dumps(dem))
    assert t.path == dem.path
    x, y = random_points(dem, 100, seed=6)
    assert np.array_equal(t.height(x, y), dem.height(x, y), equal_nan=True)
    a = landfall.Heightfield.from_array(np.arange(12.0).reshape(3, 4), spacing=2.0)
    b = pickle.loads(pickle.dumps(a))
    assert np.array_equal(b.heights(), a.heights())


def test_polygon_mesh(tmp_path, cli):
    obj = tmp_path / "two.obj"
    # A bridge over a floor: two squares.
    obj.write_text("v 0 0 0\nv 10 0 0\nv 10 10 0\nv 0 10 0\nv 2 2 5\nv 8 2 5\nv 8 8 5\nv 2 8 5\nf 1 2 3 4\nf 5 6 7 8\n")
    t = landfall.open(obj)
    assert isinstance(t, landfall.Terrain) and not isinstance(t, landfall.Heightfield)
    assert t.height(5, 5) == 5.0 and t.height(1, 1) == 0.0
    p, n = t.surface([5.0], [5.0], [4.0])  # the floor below (5, 5, 4)
    assert p[0, 2] == 0.0 and n[0, 2] == 1.0
    assert t.info()["kind"] == "polygons"


def test_viewshed_equals_the_cli(tmp_path, cli, metric_path):
    dem = landfall.open(metric_path)
    info = dem.info()
    h = dem.heights()
    j, i = np.unravel_index(np.nanargmax(h), h.shape)
    ox = info["origin"][0] + i * info["spacing"][0]
    oy = info["origin"][1] + (info["ny"] - 1 - j) * info["spacing"][1]
    v = dem.viewshed(ox, oy, observer_height=10.0)
    assert v.dtype == np.uint8 and v.shape == h.shape
    out = tmp_path / "v.tif"
    cli("viewshed", metric_path, "--observer", f"{float(ox)!r},{float(oy)!r}", "--observer-height", 10, "--out", out)
    r = landfall.open(out).heights()  # 255 is nodata → NaN
    assert np.array_equal(np.where(np.isnan(r), 255, r).astype(np.uint8), v)


def test_viewshed_modes_agree(metric_path):
    """The ground mode gives the least target height that is seen (an infimum): a visible sample
    needs 0 m, a sample that needs more is hidden, and a sample hidden at 0 m that needs 0 m is a
    tie (its sight line touches the terrain; volcano.asc's whole-metre heights make many), seen as
    soon as the target is raised at all."""
    dem = landfall.open(metric_path)
    info, h = dem.info(), dem.heights()
    j, i = np.unravel_index(np.nanargmax(h), h.shape)
    ox = info["origin"][0] + i * info["spacing"][0]
    oy = info["origin"][1] + (info["ny"] - 1 - j) * info["spacing"][1]
    v = dem.viewshed(ox, oy, observer_height=10.0)
    need = dem.viewshed(ox, oy, observer_height=10.0, mode="ground")
    assert np.all(need[v == 1] == 0)
    assert np.all(v[need > 0] == 0)
    ties = (need == 0) & (v == 0)
    raised = dem.viewshed(ox, oy, observer_height=10.0, target_height=1e-3)
    assert np.all(raised[ties] == 1)
    assert (v == 1).any() and (need > 0).any()


def test_viewshed_limits_are_checked_by_the_library():
    """start_angle and end_angle go together, and every limit is checked, by the library (the
    binding passes them through): each error names the parameter."""
    t = landfall.Heightfield.from_array(np.zeros((5, 5)))
    for kw, named in [
        (dict(start_angle=10.0), "start_angle and end_angle go together (start_angle 10 given alone)"),
        (dict(end_angle=20.0), "start_angle and end_angle go together (end_angle 20 given alone)"),
        (dict(start_angle=float("nan"), end_angle=20.0), "angles: NaN, 20: not finite"),
        (dict(low_pitch=10.0, high_pitch=-10.0), "pitch"),
        (dict(high_pitch=91.0), "pitch"),
        (dict(observer_height=-1.0), "observer height"),
    ]:
        with pytest.raises(ValueError, match=re.escape(named)):
            t.viewshed(2.0, 2.0, **kw)
        with pytest.raises(ValueError, match=re.escape(named)):
            t.cumulative_viewshed(np.array([[2.0, 2.0]]), **kw)
    v = t.viewshed(2.0, 2.0, start_angle=0.0, end_angle=90.0, low_pitch=-45.0)
    assert v[0, 4] == 1 and v[4, 0] == 255  # north-east seen, south-west outside the angles


def test_from_xarray():
    xr = pytest.importorskip("xarray")
    h = np.array([[5.0, 6.0, -9999.0], [1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    da = xr.DataArray(h, dims=("y", "x"), coords={"y": [30.0, 20.0, 10.0], "x": [0.0, 1.0, 2.0]}, attrs={"_FillValue": -9999.0})
    t = landfall.Heightfield.from_xarray(da)
    assert t.height(0.0, 30.0) == 5.0 and t.height(2.0, 20.0) == 3.0
    assert np.isnan(t.height(2.0, 30.0))
    # y ascending gives the same terrain.
    t2 = landfall.Heightfield.from_xarray(da.isel(y=slice(None, None, -1)))
    assert np.array_equal(t2.heights(), t.heights(), equal_nan=True)
    v = t.viewshed(0.0, 30.0)
    assert isinstance(v, xr.DataArray) and v.dims == ("y", "x") and v.sel(x=0.0, y=30.0) == 1
    assert v.sel(x=2.0, y=30.0) == 255


def test_from_xarray_spacing_follows_the_npz_rule():
    xr = pytest.importorskip("xarray")
    h = np.zeros((3, 4))
    y = [30.0, 20.0, 10.0]

    def da(x):
        return xr.DataArray(h, dims=("y", "x"), coords={"y": y, "x": x})

    # Coordinates stored as f32 (as many files store them) round: accepted without a word.
    x32 = np.array([500000.1, 500000.2, 500000.3, 500000.4], dtype=np.float32)
    t = landfall.Heightfield.from_xarray(da(x32))
    assert t.info()["extent"][0][0] == pytest.approx(float(x32[0]))
    # A step 1 % off: the mean is used, with a warning naming the coordinate.
    with pytest.warns(UserWarning, match="coordinate x is not evenly spaced"):
        landfall.Heightfield.from_xarray(da([0.0, 1.0, 2.02, 3.0]))
    # 10 % off, repeated or turning back: errors naming the coordinate.
    for x, why in [([0.0, 1.0, 2.2, 3.0], "not evenly spaced"), ([0.0, 1.0, 1.0, 3.0], "steadily"),
                   ([0.0, 1.0, np.nan, 3.0], "finite")]:
        with pytest.raises(ValueError, match=f"coordinate x .*{why}|coordinate x must be {why}"):
            landfall.Heightfield.from_xarray(da(x))


def test_heightfield_index_equals_the_raster(tmp_path, cli, raster, raster_path):
    lfh = tmp_path / "dem.lfh"
    cli("build", raster_path, "-o", lfh)
    t = landfall.open(lfh)
    assert isinstance(t, landfall.Heightfield)
    # The index keeps what the raster is: in degrees (EPSG:4326, the .npz's longitude and latitude
    # arrays) or in metres without a CRS (the .asc).
    assert t.info()["kind"] == raster.info()["kind"]
    assert t.info()["crs"] == raster.info()["crs"] == ("EPSG:4326" if geographic(raster) else None)
    assert t.info()["extent"] == raster.info()["extent"]
    assert t.info()["mapped"] and not raster.info()["mapped"]
    x, y = random_points(raster, 5000, seed=9)
    z = raster.height(x, y)
    assert np.array_equal(t.height(x, y), z, equal_nan=True)
    assert np.isnan(z).any() and (~np.isnan(z)).any()
    assert np.array_equal(t.heights(), raster.heights(), equal_nan=True)
    u = pickle.loads(pickle.dumps(t))  # by path: the index is mapped again
    assert np.array_equal(u.height(x, y), t.height(x, y), equal_nan=True)


def test_from_array_in_degrees_equals_the_file(dem):
    i = dem.info()
    t = landfall.Heightfield.from_array(dem.heights(), spacing=i["spacing"], origin=i["origin"], geographic=True)
    assert t.info()["kind"] == "geographic" and t.info()["crs"] == "EPSG:4326"
    x, y = random_points(dem, 3000, seed=10)
    assert np.array_equal(t.height(x, y), dem.height(x, y), equal_nan=True)
    u = pickle.loads(pickle.dumps(t))
    assert u.info()["kind"] == "geographic" and np.array_equal(u.height(x, y), t.height(x, y), equal_nan=True)
    plain = landfall.Heightfield.from_array(dem.heights(), spacing=i["spacing"], origin=i["origin"])
    assert plain.info()["kind"] == "heightfield"
    with pytest.raises(ValueError, match="origin, spacing"):
        landfall.Heightfield.from_array(np.zeros((3, 3)), spacing=50.0, origin=(0.0, 0.0), geographic=True)


def test_repr_names_the_kind(raster, tmp_path):
    i = raster.info()
    assert repr(raster) == (
        f"<landfall.Heightfield {i['nx']}×{i['ny']}{' in degrees (WGS84)' if geographic(raster) else ''} from {raster.path}>"
    )
    obj = tmp_path / "one.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    assert repr(landfall.open(obj)) == f"<landfall.Terrain 1 polygons from {obj}>"
    assert repr(landfall.Heightfield.from_array(np.zeros((2, 3)))) == "<landfall.Heightfield 3×2>"


def test_info_names_the_crs_of_a_geotiff_and_of_its_index(tmp_path, cli, metric_path):
    import shutil
    import subprocess

    if shutil.which("gdal_translate") is None:
        pytest.skip("gdal_translate is not installed (apt-get install gdal-bin)")
    plain, tagged = tmp_path / "v.tif", tmp_path / "utm.tif"
    cli("viewshed", metric_path, "--observer", "195,305", "--out", plain)
    subprocess.run(["gdal_translate", "-q", "-a_srs", "EPSG:32610", plain, tagged], check=True)
    assert landfall.open(tagged).info()["crs"] == "EPSG:32610"
    lfh = tmp_path / "utm.lfh"
    cli("build", tagged, "-o", lfh)
    assert landfall.open(lfh).info()["crs"] == "EPSG:32610"


def test_viewshed_in_degrees_is_in_metres(dem):
    # topobathy.npz is in degrees: (x, y) are lon, lat and max_distance is metres on the ellipsoid.
    assert dem.info()["geographic"]
    v = dem.viewshed(236.0, 49.0, max_distance=20000.0)
    near = v != 255
    # A 20 km disc on 2.4 km × 2.4 km cells: about π·20²/2.4² ≈ 220 samples, not the whole raster.
    assert 150 < near.sum() < 300, near.sum()
