"""landfall.dask on a real Dask cluster of two worker processes: bit-for-bit the single-process
answers."""

import pathlib

import numpy as np
import pytest

import landfall

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
import landfall.dask as ldask  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_distributed_equals_single_process(client, dem_path):
    t = landfall.open(dem_path)
    (x0, y0), (x1, y1) = t.info()["extent"]  # lon, lat: the DEM is in degrees
    rng = np.random.default_rng(7)
    n = 200_000
    x, y = rng.uniform(x0, x1, n), rng.uniform(y0, y1, n)
    z = ldask.height(str(dem_path), da.from_array(x, chunks=25_000), da.from_array(y, chunks=25_000)).compute()
    assert np.array_equal(z, t.height(x, y), equal_nan=True)
    assert np.isfinite(z).mean() > 0.99
    # Both workers did some of it.
    assert len(client.scheduler_info()["workers"]) == 2

    o = np.c_[x[:20_000], y[:20_000], np.full(20_000, 3000.0)]
    d = np.c_[rng.normal(size=(20_000, 2)) * 0.05, -np.ones(20_000)]  # east, north, up
    r = ldask.raycast(t, da.from_array(o, chunks=(4000, 3)), da.from_array(d, chunks=(4000, 3)), max_t=1e4)
    hit, tt, point = r.hit.compute(), r.t.compute(), r.point.compute()
    want = t.raycast(o, d, 1e4)
    assert np.array_equal(hit, want.hit) and np.array_equal(tt, want.t, equal_nan=True)
    assert np.array_equal(point, want.point, equal_nan=True)
    assert want.hit.mean() > 0.99

    a = o.copy()
    b = np.c_[x[20_000:40_000], y[20_000:40_000], np.full(20_000, 3000.0)]
    vis = ldask.visible(t, da.from_array(a, chunks=(5000, 3)), da.from_array(b, chunks=(5000, 3))).compute()
    assert np.array_equal(vis, t.visible(a, b))
    assert vis.any() and (~vis).any()


def test_a_terrain_without_a_file_goes_to_each_worker_once(client):
    h = np.random.default_rng(1).uniform(0, 50, (300, 400))
    t = landfall.Heightfield.from_array(h, spacing=10.0)
    x = np.random.default_rng(2).uniform(0, 3990, 50_000)
    y = np.random.default_rng(3).uniform(0, 2990, 50_000)
    z = ldask.height(t, da.from_array(x, chunks=5000), da.from_array(y, chunks=5000))
    # The graph holds the terrain once (960 kB of heights), not once per task (10 tasks).
    import pickle

    graph_bytes = len(pickle.dumps(dict(z.__dask_graph__())))
    assert graph_bytes < 2 * h.nbytes, graph_bytes
    assert np.array_equal(z.compute(), t.height(x, y), equal_nan=True)


def test_bad_path_fails_before_the_cluster(tmp_path):
    with pytest.raises(ValueError, match="missing.tif"):
        ldask.height(tmp_path / "missing.tif", da.zeros(10), da.zeros(10))


VOLCANO = pathlib.Path(__file__).resolve().parents[3] / "data" / "volcano.asc"


def test_cumulative_viewshed_on_the_cluster_equals_the_single_process_counts(client):
    t = landfall.open(VOLCANO)
    (x0, y0, _), (x1, y1, _) = t.info()["bounds"]
    rng = np.random.default_rng(11)
    n = 23
    obs = np.c_[rng.uniform(x0, x1, n), rng.uniform(y0, y1, n)]
    want = t.cumulative_viewshed(obs, observer_height=1.75)
    # The counts are the sum of the observers' own viewsheds.
    singles = sum((t.viewshed(x, y, observer_height=1.75) == 1).astype(np.int64) for x, y in obs)
    assert np.array_equal(want, singles.astype(np.float64))
    assert 0 < np.nanmax(want) <= n
    got = ldask.cumulative_viewshed(str(VOLCANO), obs, observers_per_task=4, observer_height=1.75)
    assert got.shape == want.shape and got.dtype == np.float64
    with distributed.get_task_stream(client) as ts:
        assert np.array_equal(got.compute(), want, equal_nan=True)
    # Six tasks of observers (4, 4, 4, 4, 4, 3), run by both worker processes.
    tasks = [t for t in ts.data if "counts_block" in str(t["key"])]
    assert len(tasks) == 6
    assert len({t["worker"] for t in tasks}) == 2

    # Per-observer eye heights, curvature, a distance limit, observers as a Dask array.
    obs3 = np.c_[obs, rng.uniform(0.0, 30.0, n)]
    obs3[::5, 2] = np.nan  # NaN: the default height
    kw = dict(observer_height=2.0, curvature=True, refraction=0.13, max_distance=100.0)
    want = t.cumulative_viewshed(obs3, **kw)
    assert np.isnan(want).any() and (want > 0).any()  # some samples beyond 100 m of every observer
    got = ldask.cumulative_viewshed(VOLCANO, da.from_array(obs3, chunks=(5, 3)), **kw).compute()
    assert np.array_equal(got, want, equal_nan=True)


def test_cumulative_viewshed_rejects_bad_observers():
    with pytest.raises(ValueError, match="observers"):
        ldask.cumulative_viewshed(VOLCANO, np.zeros((4, 5)))
    with pytest.raises(ValueError, match="observers"):
        ldask.cumulative_viewshed(VOLCANO, np.zeros((0, 2)))
    with pytest.raises(ValueError, match="observers"):
        landfall.open(VOLCANO).cumulative_viewshed(np.zeros(3))
