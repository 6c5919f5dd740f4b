"""Floors, ceilings, light, swept spheres, placement, character controllers and edits: each against
an independent reference (closed forms, brute force in numpy, the CLI, a terrain built afresh)."""

import pickle

import numpy as np
import pytest

import landfall

OBJ = "v 0 0 0\nv 10 0 0\nv 10 10 0\nv 0 10 0\nv 2 2 5\nv 8 2 5\nv 8 8 5\nv 2 8 5\nf 1 2 3 4\nf 5 6 7 8\n"


@pytest.fixture
def bridge(tmp_path):
    """A floor (z = 0 on [0, 10]²) under a roof (z = 5 on [2, 8]²)."""
    obj = tmp_path / "bridge.obj"
    obj.write_text(OBJ)
    return obj


def test_floor_ceiling_contains(bridge, tmp_path, cli):
    t = landfall.open(bridge)
    rng = np.random.default_rng(3)
    x, y, z = rng.uniform(-1, 11, 500), rng.uniform(-1, 11, 500), rng.uniform(-2, 7, 500)
    under_roof = (x > 2) & (x < 8) & (y > 2) & (y < 8)
    on_floor = (x > 0) & (x < 10) & (y > 0) & (y < 10)
    fp, fn = t.floor(x, y, z)
    want_floor = np.where(on_floor & (z >= 0), np.where(under_roof & (z >= 5), 5.0, 0.0), np.nan)
    want_floor = np.where(on_floor & (z < 0), np.nan, want_floor)
    assert np.array_equal(fp[:, 2], want_floor, equal_nan=True)
    cp, _ = t.ceiling(x, y, z)
    want_ceiling = np.where(on_floor & (z <= 0), 0.0, np.where(under_roof & (z <= 5), 5.0, np.nan))
    assert np.array_equal(cp[:, 2], want_ceiling, equal_nan=True)
    assert np.array_equal(t.contains(x, y, z), under_roof & (z >= 0) & (z <= 5))
    # The floor query is the CLI's `height` with x,y,z.
    pts = tmp_path / "p.csv"
    pts.write_text("x,y,z\n" + "".join(f"{float(a)!r},{float(b)!r},{float(c)!r}\n" for a, b, c in zip(x, y, z)))
    cli("height", bridge, "--points", pts, "--out", tmp_path / "o.csv")
    rows = [r.split(",") for r in (tmp_path / "o.csv").read_text().splitlines()[1:]]
    cli_z = np.array([float(r[2]) if r[2] else np.nan for r in rows])
    assert np.array_equal(cli_z, fp[:, 2], equal_nan=True)
    assert np.all(fn[on_floor & (z >= 0), 2] == 1.0)


def test_is_lit_behind_a_ridge():
    # A ridge of height H along the column at x = 10 (spacing 1): a tent from x = 9 to 11, constant
    # in y, so every diagonal pattern gives the same surface. The sun to the west at elevation a: a
    # ground point at x > 11 is in shadow exactly when (x - 10)·tan a < H.
    H = 4.0
    h = np.zeros((21, 31))
    h[:, 10] = H
    t = landfall.Heightfield.from_array(h)
    rng = np.random.default_rng(4)
    for a in (0.2, 0.5, 1.0):
        x = rng.uniform(11.5, 29.5, 400)
        y = rng.uniform(2, 18, 400)
        keep = np.abs((x - 10) * np.tan(a) - H) > 1e-6
        x, y = x[keep], y[keep]
        p = np.stack([x, y, np.zeros_like(x)], axis=1)
        lit = t.is_lit(p, [-np.cos(a), 0.0, np.sin(a)])
        assert np.array_equal(lit, (x - 10) * np.tan(a) > H)
    # The sun overhead lights everything; one direction per point works as well.
    p = np.array([[5.0, 5.0, 0.0], [20.0, 5.0, 0.0]])
    assert t.is_lit(p, [[0, 0, 1], [0, 0, 1]]).all()
    with pytest.raises(ValueError, match="zero direction"):
        t.is_lit(p, [0, 0, 0])


def closest_on_triangles(p, tris):
    """Distances from point p to each triangle (k, 3, 3): Ericson's closest-point regions."""
    a, b, c = tris[:, 0], tris[:, 1], tris[:, 2]
    ab, ac, ap = b - a, c - a, p - a
    d1, d2 = (ab * ap).sum(1), (ac * ap).sum(1)
    bp, cp = p - b, p - c
    d3, d4 = (ab * bp).sum(1), (ac * bp).sum(1)
    d5, d6 = (ab * cp).sum(1), (ac * cp).sum(1)
    va, vb, vc = d3 * d6 - d5 * d4, d5 * d2 - d1 * d6, d1 * d4 - d3 * d2
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = 1.0 / (va + vb + vc)
        q = a + ab * (vb * denom)[:, None] + ac * (vc * denom)[:, None]
        cases = [
            ((d1 <= 0) & (d2 <= 0), a),
            ((d3 >= 0) & (d4 <= d3), b),
            ((d6 >= 0) & (d5 <= d6), c),
            ((vc <= 0) & (d1 >= 0) & (d3 <= 0), a + ab * (d1 / (d1 - d3))[:, None]),
            ((vb <= 0) & (d2 >= 0) & (d6 <= 0), a + ac * (d2 / (d2 - d6))[:, None]),
            ((va <= 0) & (d4 - d3 >= 0) & (d5 - d6 >= 0), b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)))[:, None]),
        ]
    for mask, point in reversed(cases):
        q = np.where(mask[:, None], point, q)
    return np.linalg.norm(q - p, axis=1)


def triangles(h):
    """The triangles of a heightfield array (raster order, spacing 1, origin 0, samples stored as
    float32) as the alternating pattern cuts them: cell (i, j) (j from the south) along SE–NW when
    i + j is even, else SW–NE."""
    ny, nx = h.shape
    h = h.astype(np.float32).astype(np.float64)
    z = lambda i, j: h[ny - 1 - j, i]
    out = []
    for j in range(ny - 1):
        for i in range(nx - 1):
            sw, se = (i, j, z(i, j)), (i + 1, j, z(i + 1, j))
            nw, ne = (i, j + 1, z(i, j + 1)), (i + 1, j + 1, z(i + 1, j + 1))
            if (i + j) % 2 == 1:
                out += [(sw, se, ne), (sw, ne, nw)]
            else:
                out += [(sw, se, nw), (se, ne, nw)]
    return np.array(out, dtype=np.float64)


def test_sweep_against_brute_force_distances():
    rng = np.random.default_rng(5)
    h = rng.uniform(0, 3, (9, 9))
    t = landfall.Heightfield.from_array(h)
    tris = triangles(h)
    n = 200
    c = np.stack([rng.uniform(1, 7, n), rng.uniform(1, 7, n), rng.uniform(4.5, 6, n)], axis=1)
    v = np.stack([rng.uniform(-2, 2, n), rng.uniform(-2, 2, n), rng.uniform(-6, -2, n)], axis=1)
    r = rng.uniform(0.2, 1.0, n)
    s = t.sweep(c, r, v)
    assert s.hit.sum() > n // 2
    for k in range(n):
        # Never inside before the contact (or along the whole motion on a miss).
        end = s.t[k] if s.hit[k] else 1.0
        for f in np.linspace(0, end, 40)[:-1]:
            assert closest_on_triangles(c[k] + f * v[k], tris).min() >= r[k] - 1e-9
        if s.hit[k]:
            d = closest_on_triangles(s.center[k], tris)
            assert abs(d.min() - r[k]) < 1e-7
            assert np.allclose(s.center[k], c[k] + s.t[k] * v[k])
            assert abs(np.linalg.norm(s.center[k] - s.point[k]) - r[k]) < 1e-7
            assert abs(np.linalg.norm(s.normal[k]) - 1) < 1e-12
        else:
            assert closest_on_triangles(c[k] + v[k], tris).min() >= r[k] - 1e-9 or not (
                (c[k] + v[k])[:2].min() > 0 and (c[k] + v[k])[:2].max() < 8)
    with pytest.raises(ValueError, match="radius"):
        t.sweep(c[:2], -1.0, v[:2])


def test_place_on_planes():
    # A plane z = a·x + b·y is exact on any triangulation: the placement's plane is it.
    for a, b in [(0.0, 0.0), (0.1, -0.2), (0.3, 0.25)]:
        x, y = np.meshgrid(np.arange(20.0), np.arange(20.0)[::-1])
        t = landfall.Heightfield.from_array(a * x + b * y)
        heading = np.linspace(0, 6, 7)
        p = t.place(10.0, 9.0, heading, length=3.0, width=1.5)
        assert p.ok.all()
        assert np.allclose(p.position[:, 2], a * 10 + b * 9, atol=1e-12)
        up = np.array([-a, -b, 1.0]) / np.hypot(np.hypot(a, b), 1.0)
        assert np.allclose(p.up, up, atol=1e-12)
        assert np.allclose(p.slope, np.arctan(np.hypot(a, b)), atol=1e-12)
        rise = a * np.cos(heading) + b * np.sin(heading)
        assert np.allclose(p.pitch, np.arctan(rise), atol=1e-12)
        assert np.allclose(np.linalg.norm(p.rotation, axis=1), 1.0)
    steep = t.place(10.0, 9.0, 0.0, max_slope=0.1)
    assert not steep.ok and steep.reason == "too steep" and np.isnan(steep.position).all()
    out = t.place(-5.0, 9.0)
    assert out.reason == "edge of world"
    with pytest.raises(ValueError, match="contacts"):
        t.place(1.0, 1.0, contacts="five")


def test_controller_walks_and_stops_at_a_wall():
    # Flat ground at 0 with a 3 m wall from x = 10 on.
    h = np.zeros((21, 21))
    h[:, 10:] = 3.0
    t = landfall.Heightfield.from_array(h)
    c = landfall.CharacterController(radius=0.5, skin=0.01, step_height=0.3)
    n = 8
    pos = np.stack([np.full(n, 2.0), np.linspace(3, 17, n), np.full(n, 0.51)], axis=1)
    grounded = np.zeros(n, dtype=bool)
    for _ in range(200):
        m = c.move(t, pos, np.tile([0.1, 0.0, -0.05], (n, 1)), grounded)
        pos, grounded = m.position, m.grounded
    # Every walker stands on the ground, skin above it, stopped before the wall's foot (x = 9, the
    # triangle face slopes up from 9 to 10) and never inside the terrain.
    assert grounded.all()
    assert np.all(pos[:, 0] < 9.0)
    assert np.all(np.abs(pos[:, 2] - 0.51) < 1e-6)
    tris = triangles(h)
    for p in pos:
        assert closest_on_triangles(p, tris).min() >= 0.5 - 1e-9
    for shape, kw in [("capsule", {"half_height": 0.5}), ("ellipsoid", {"radii": (0.5, 0.5, 1.0)})]:
        m = landfall.CharacterController(shape=shape, **kw).move(t, [[2.0, 5.0, 2.0]], [[0.0, 0.0, -3.0]])
        assert m.grounded[0] and m.position[0, 2] < 2.0
    with pytest.raises(ValueError, match="shape"):
        landfall.CharacterController(shape="cube").move(t, pos, pos)


def test_heightfield_edits_equal_a_fresh_build_and_pickle():
    rng = np.random.default_rng(7)
    h = rng.uniform(0, 10, (12, 15))
    t = landfall.Heightfield.from_array(h, spacing=2.0, origin=(100.0, 200.0))
    block = rng.uniform(-5, 5, (4, 6))
    block[1, 2] = np.nan
    t.set_heights(block, row=3, col=5)
    h2 = h.copy()
    h2[3:7, 5:11] = block
    fresh = landfall.Heightfield.from_array(h2, spacing=2.0, origin=(100.0, 200.0))
    assert np.array_equal(t.heights(), fresh.heights(), equal_nan=True)
    x, y = rng.uniform(98, 130, 3000), rng.uniform(198, 224, 3000)
    assert np.array_equal(t.height(x, y), fresh.height(x, y), equal_nan=True)
    o = np.stack([x, y, np.full_like(x, 30.0)], axis=1)
    d = np.tile([0.3, 0.1, -1.0], (x.size, 1))
    a, b = t.raycast(o, d), fresh.raycast(o, d)
    assert np.array_equal(a.t, b.t, equal_nan=True)
    assert t.edited
    u = pickle.loads(pickle.dumps(t))
    assert np.array_equal(u.heights(), fresh.heights(), equal_nan=True)
    with pytest.raises(ValueError, match="does not fit"):
        t.set_heights(block, row=10, col=0)
    with pytest.raises(ValueError, match="finite height"):
        t.set_heights([[np.inf]])


def test_an_edited_file_terrain_goes_by_value(dem_path):
    t = landfall.open(dem_path)
    h = t.heights()
    t.set_heights([[1234.5]], row=0, col=0)
    u = pickle.loads(pickle.dumps(t))
    assert u.heights()[0, 0] == 1234.5 and np.array_equal(u.heights()[1:], h[1:], equal_nan=True)


def test_polygon_edits_equal_a_fresh_build(bridge, tmp_path):
    t = landfall.open(bridge)
    roof = [[3.0, 3.0, 7.0], [9.0, 3.0, 7.0], [9.0, 9.0, 7.0], [3.0, 9.0, 7.0]]
    pid = t.insert_polygon(roof)
    assert pid == 2
    both = tmp_path / "both.obj"
    both.write_text(OBJ + "v 3 3 7\nv 9 3 7\nv 9 9 7\nv 3 9 7\nf 9 10 11 12\n")
    fresh = landfall.open(both)
    rng = np.random.default_rng(8)
    x, y, z = rng.uniform(-1, 11, 2000), rng.uniform(-1, 11, 2000), rng.uniform(-1, 9, 2000)
    assert np.array_equal(t.height(x, y), fresh.height(x, y), equal_nan=True)
    assert np.array_equal(t.ceiling(x, y, z)[0], fresh.ceiling(x, y, z)[0], equal_nan=True)
    assert t.remove_polygon(pid) > 0
    original = landfall.open(bridge)
    assert np.array_equal(t.height(x, y), original.height(x, y), equal_nan=True)
    assert t.remove_polygon(99) == 0
    with pytest.raises(TypeError, match="edited"):
        pickle.dumps(t)
    hf = landfall.Heightfield.from_array(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="set_heights"):
        hf.insert_polygon(roof)
