"""landfall.dask on a real Dask cluster of two worker processes: bit-for-bit the single-process
answers."""

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
