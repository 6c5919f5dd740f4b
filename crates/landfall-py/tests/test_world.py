"""The endless world from Python: its objects and entities, pairs and proximity in batches against
brute force in numpy over the spheres it reports, its ground by two independent queries, bad input."""

import numpy as np
import pytest

import landfall


@pytest.fixture(scope="module")
def world():
    """A world whose viewer has walked a few steps and whose entities have walked a second (seed 5:
    14 entities alive, 2,377 objects, ~500 pairs)."""
    w = landfall.World(viewer=(0.0, 0.0, 100.0), seed=5)
    for k in range(1, 4):
        w.update((10.0 * k, 3.0 * k, 100.0))
        for _ in range(10):
            w.step(0.1)
    return w


def spheres(w):
    """Every bounding sphere: ids, centres (n, 3), radii."""
    o, e = w.objects(), w.entities()
    ids = np.concatenate([o["id"], e["id"]])
    centres = np.concatenate([o["center"], e["position"]])
    radii = np.concatenate([o["radius"], np.full(len(e["id"]), e["radius"])])
    return ids, centres, radii


def test_objects_and_entities_are_reported(world):
    o, e = world.objects(), world.entities()
    assert len(o["id"]) > 100 and len(np.unique(o["id"])) == len(o["id"])
    assert o["center"].shape == (len(o["id"]), 3) and np.all(o["radius"] > 0)
    assert set(np.unique(o["kind"])) <= set(range(len(world.kinds)))
    assert "tree" in world.kinds
    assert len(e["id"]) > 0 and np.all(e["id"] >= 2**40), "the default world has entities near the viewer"
    assert world.viewer == (30.0, 9.0, 100.0)


def test_pairs_equal_brute_force(world):
    ids, c, r = spheres(world)
    got = {tuple(p) for p in world.pairs().tolist()}
    assert len(got) == len(world.pairs()), "each pair once"
    d = np.linalg.norm(c[:, None, :] - c[None, :, :], axis=2)
    a, b = np.nonzero(np.triu(d <= r[:, None] + r[None, :], k=1))
    want = {(min(int(ids[i]), int(ids[j])), max(int(ids[i]), int(ids[j]))) for i, j in zip(a, b)}
    assert want and got == want


def test_within_equals_brute_force(world):
    ids, c, r = spheres(world)
    rng = np.random.default_rng(5)
    # Around the objects and entities, a few metres off, and far from everything.
    pts = c[rng.integers(0, len(c), 200)] + rng.uniform(-6, 6, (200, 3))
    pts = np.vstack([pts, [[1e6, 1e6, 0.0]]])
    radius = rng.uniform(0, 8, len(pts))
    got = world.within(pts, radius)
    found = 0
    for k, p in enumerate(pts):
        want = np.sort(ids[np.linalg.norm(c - p, axis=1) <= radius[k] + r])
        assert np.array_equal(np.sort(got[k]), want), k
        found += len(want)
    assert found > 0 and len(got[-1]) == 0
    # One radius for every point.
    assert [len(g) for g in world.within(pts[:5], 3.0)] == [
        int(np.sum(np.linalg.norm(c - p, axis=1) <= 3.0 + r)) for p in pts[:5]
    ]


def test_height_is_where_a_ray_from_above_lands(world):
    rng = np.random.default_rng(6)
    x, y = 30.0 + rng.uniform(-200, 200, 300), 9.0 + rng.uniform(-200, 200, 300)
    h = world.height(x, y)
    assert np.all(np.isfinite(h))
    down = world.raycast(np.column_stack([x, y, np.full_like(x, 5000.0)]), [[0.0, 0.0, -1.0]] * len(x))
    assert np.all(down.hit)
    assert np.allclose(down.point[:, 2], h, rtol=0, atol=1e-6)
    # Far beyond the drawn mesh: the far landscape, generated on demand, for both.
    far = world.height(1e6, 2e6)
    down = world.raycast([[1e6, 2e6, 5000.0]], [[0.0, 0.0, -1.0]])
    assert np.isfinite(far) and down.hit[0] and abs(down.point[0, 2] - far) < 1e-6


def test_the_viewer_s_moves_bring_and_drop_objects():
    w = landfall.World(viewer=(0.0, 0.0, 100.0), seed=2)
    before = w.objects()
    w.update((400.0, 0.0, 100.0))
    assert set(map(tuple, w.objects()["center"].tolist())) != set(map(tuple, before["center"].tolist()))
    w.update((0.0, 0.0, 100.0))
    # Back where it started: the same cells give the same objects, bit for bit (the windows may
    # sit a little differently after the round trip: the cache's hysteresis).
    fresh = {tuple(c) for c in landfall.World(viewer=(0.0, 0.0, 100.0), seed=2).objects()["center"].tolist()}
    back = {tuple(c) for c in w.objects()["center"].tolist()}
    assert len(fresh & back) >= 0.9 * len(fresh), (len(fresh & back), len(fresh))


def segment_distance(p, q, c):
    """Distance from each point c (m, 2) to the segment p–q (2,), brute force."""
    d = q - p
    t = np.clip(((c - p) @ d) / max(d @ d, 1e-300), 0.0, 1.0)
    return np.linalg.norm(c - (p + t[:, None] * d), axis=1)


@pytest.mark.parametrize("radius", [0.5, 3.0])
def test_paths_go_around_every_object_on_the_ground(world, radius):
    rng = np.random.default_rng(7)
    o = world.objects()
    # The obstacles to this agent: every object taller than 0.15 of its radius (it steps over
    # the others).
    feet = o["footprint"][o["height"] > 0.15 * radius]
    assert len(feet) > 50 and (radius < 1 or len(feet) < len(o["footprint"]))
    v = np.array(world.viewer[:2])
    # Starts and goals near the viewer, 60–150 m apart, off the objects.
    starts, goals = [], []
    while len(starts) < 6:
        a = v + rng.uniform(-60, 60, 2)
        b = a + rng.uniform(60, 150) * np.array([np.cos(t := rng.uniform(0, 2 * np.pi)), np.sin(t)])
        clear = lambda p: np.all(np.linalg.norm(feet[:, :2] - p, axis=1) > feet[:, 2] + radius + 0.5)
        if clear(a) and clear(b):
            starts.append(a)
            goals.append(b)
    r = world.paths(starts, goals, radius=radius)
    assert r.found.sum() >= 4, r.error
    for k in np.nonzero(r.found)[0]:
        pts = r.points[k]
        # An end on steep ground is moved to the nearest walkable point, at most 5 m, and says so.
        ends = np.linalg.norm(pts[[0, -1], :2] - [starts[k], goals[k]], axis=1)
        assert np.allclose(ends, r.moved[k], atol=1e-9) and np.all(r.moved[k] <= 5.0), (ends, r.moved[k])
        legs = np.linalg.norm(np.diff(pts[:, :2], axis=0), axis=1)
        assert abs(legs.sum() - r.length[k]) < 1e-6
        assert r.length[k] >= np.linalg.norm(pts[-1, :2] - pts[0, :2]) - 1e-9
        # Clear of every obstacle's footprint grown by the agent's radius, brute force over every leg.
        for p, q in zip(pts[:-1, :2], pts[1:, :2]):
            gap = segment_distance(p, q, feet[:, :2]) - (feet[:, 2] + radius)
            assert gap.min() >= -1e-9, (k, gap.min())
        # The corners stand on the ground the objects stand on (the finest drawn level's landscape),
        # which the drawn mesh follows within the coarser layers' offsets away from the viewer.
        down = world.raycast(np.column_stack([pts[:, :2], np.full(len(pts), 5000.0)]), [[0, 0, -1.0]] * len(pts))
        assert np.all(np.abs(down.point[:, 2] - pts[:, 2]) < 2.0), np.abs(down.point[:, 2] - pts[:, 2]).max()
    for k in np.nonzero(~r.found)[0]:
        assert r.error[k] and np.isnan(r.length[k]) and len(r.points[k]) == 0


def test_a_path_that_cannot_be_is_said_why(world):
    o = world.objects()
    big = o["footprint"][np.argmax(o["footprint"][:, 2])]
    r = world.paths([big[:2]], [big[:2] + [200.0, 0.0]], snap=0.0)
    assert not r.found[0] and "inside an obstacle" in r.error[0] and np.all(np.isnan(r.moved[0]))
    # Moved out when the snap distance reaches beyond the footprint grown by the radius.
    r = world.paths([big[:2]], [big[:2] + [200.0, 0.0]], snap=big[2] + 2.0)
    if r.found[0]:
        assert big[2] + 0.5 - 1e-6 <= r.moved[0, 0] <= big[2] + 2.0, r.moved
    else:
        assert any(w in r.error[0] for w in ("steeper", "no path", "inside an obstacle")), r.error
    with pytest.raises(ValueError, match="radius"):
        world.paths([[0.0, 0.0]], [[10.0, 0.0]], radius=-1.0)
    with pytest.raises(ValueError, match="snap"):
        world.paths([[0.0, 0.0]], [[10.0, 0.0]], snap=-1.0)
    with pytest.raises(ValueError, match="goals"):
        world.paths([[0.0, 0.0]], [[10.0, 0.0], [1.0, 1.0]])


def test_without_objects():
    w = landfall.World(viewer=(0.0, 0.0, 100.0), objects=False)
    assert len(w.objects()["id"]) == 0 and len(w.entities()["id"]) == 0 and w.pairs().shape == (0, 2)
    assert np.isfinite(w.height(0.0, 0.0))


def test_bad_input_is_refused_by_name(world):
    with pytest.raises(ValueError, match="viewer"):
        landfall.World(viewer=(np.nan, 0.0, 0.0))
    with pytest.raises(ValueError, match="viewer"):
        world.update((0.0, np.inf, 0.0))
    with pytest.raises(ValueError, match="dt"):
        world.step(-1.0)
    with pytest.raises(ValueError, match="radius 1"):
        world.within([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]], [1.0, -2.0])
    with pytest.raises(ValueError, match="point 0"):
        world.within([[np.nan, 0.0, 0.0]], 1.0)
    with pytest.raises(ValueError, match="ray 0"):
        world.raycast([[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]])
