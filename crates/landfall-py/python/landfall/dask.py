"""landfall's queries over Dask arrays: the same answers as the single-process calls, computed by
chunk on any Dask scheduler — threads, local processes or a cluster.

Each query takes a terrain as a *path* (with :func:`landfall.open`'s options) or as a terrain that
came from a file. Tasks carry only the path and options; each worker process opens the terrain
once, memory-maps it when it is an index file (``landfall build``), and keeps it in a small cache
for every later chunk. A heightfield built from an array (no file) is sent to each worker once, as
one shared piece of the graph, never once per task.

Partitioning: points and rays are split along their first axis by the input's chunks (rays and
point pairs must have their 3 coordinates in one chunk; they are rechunked so); each chunk is one
task, answered in parallel inside the worker with the GIL released. Observers of a cumulative
viewshed are split into groups; each group is one task, whose counts the cluster sums.

>>> import dask.array as da, landfall.dask
>>> x = da.linspace(0, 100, 1_000_000, chunks=100_000)          # doctest: +SKIP
>>> z = landfall.dask.height("dem.tif", x, x * 0 + 50.0)        # doctest: +SKIP
>>> z.compute()                                                 # doctest: +SKIP
"""

from __future__ import annotations

import functools

try:
    import dask
    import dask.array as da
except ImportError as e:  # the package installed without its [dask] extra
    raise ImportError(
        f"landfall.dask needs Dask ({e.name or 'dask'} is not installed): "
        'pip install "dask[array]" distributed, or install landfall with its extra: '
        'pip install "./crates/landfall-py[dask]"'
    ) from e
import numpy as np

import landfall

__all__ = ["cumulative_viewshed", "height", "raycast", "visible"]


@functools.lru_cache(maxsize=8)
def _open_cached(path, options):
    return landfall.open(path, **dict(options))


def _spec(path_or_terrain, open_options):
    """What a task needs to find the terrain: ("path", path, options) or ("value", delayed)."""
    if isinstance(path_or_terrain, landfall.Terrain):
        if open_options:
            raise ValueError("open options apply to a path, not to an opened terrain")
        t = path_or_terrain
        if t.path is not None and not t.edited:
            return ("path", t.path, tuple(sorted(t._options.items())))
        return ("value", dask.delayed(t, pure=True))
    import os

    opts = dict(open_options)
    for k in ("spacing", "origin", "gravity"):
        if isinstance(opts.get(k), list):
            opts[k] = tuple(opts[k])
    # Open once here, so that a bad path or option fails now, with the message the workers would give.
    _open_cached(os.fspath(path_or_terrain), tuple(sorted(opts.items())))
    return ("path", os.fspath(path_or_terrain), tuple(sorted(opts.items())))


def _terrain(spec, value):
    return value if spec[0] == "value" else _open_cached(spec[1], spec[2])


def _as_dask(a, name):
    if isinstance(a, da.Array):
        return a.astype(np.float64)
    return da.from_array(np.asarray(a, dtype=np.float64), chunks="auto", name=False)


def _args(spec):
    """blockwise arguments for the terrain: the shared value (if any) as a graph dependency."""
    if spec[0] == "value":
        return (spec[1], None), ("value",)
    return (None, None), spec


def _height_block(x, y, value, spec):
    return _terrain(spec, value).height(x, y)


def height(path_or_terrain, x, y, **open_options):
    """:meth:`landfall.Terrain.height` over Dask arrays x and y (broadcast together): a float64
    Dask array of their shape, NaN where there is no surface."""
    spec = _spec(path_or_terrain, open_options)
    x, y = da.broadcast_arrays(_as_dask(x, "x"), _as_dask(y, "y"))
    y = y.rechunk(x.chunks)
    ind = tuple(range(x.ndim))
    (value, vind), spec = _args(spec)
    return da.blockwise(_height_block, ind, x, ind, y, ind, value, vind, spec=spec, dtype=np.float64,
                        meta=np.empty((0,) * x.ndim, dtype=np.float64))


def _ray_block(o, d, m, value, spec):
    r = _terrain(spec, value).raycast(o, d, m)
    out = np.empty((o.shape[0], 8))
    out[:, 0] = r.hit
    out[:, 1] = r.t
    out[:, 2:5] = r.point
    out[:, 5:8] = r.normal
    return out


def _rows3(a, name, like=None):
    a = _as_dask(a, name)
    if a.ndim != 2 or a.shape[1] != 3:
        raise ValueError(f"{name}: expected an array of shape (n, 3), got {a.shape}")
    return a.rechunk({0: like.chunks[0] if like is not None else a.chunks[0], 1: 3})


def raycast(path_or_terrain, origins, dirs, max_t=None, **open_options):
    """:meth:`landfall.Terrain.raycast` over Dask arrays of rays (origins, dirs: (n, 3); max_t a
    number, an array (n) or None): a :class:`landfall.RaycastResult` of Dask arrays."""
    spec = _spec(path_or_terrain, open_options)
    o = _rows3(origins, "origins")
    d = _rows3(dirs, "dirs", like=o)
    if d.shape[0] != o.shape[0]:
        raise ValueError(f"dirs: {d.shape[0]} rays, expected {o.shape[0]} like origins")
    n = o.shape[0]
    if max_t is None:
        m = da.full((n,), np.inf, chunks=(o.chunks[0],))
    elif np.isscalar(max_t):
        m = da.full((n,), float(max_t), chunks=(o.chunks[0],))
    else:
        m = _as_dask(max_t, "max_t").rechunk((o.chunks[0],))
    (value, vind), spec = _args(spec)
    out = da.blockwise(_ray_block, "ij", o, "ij", d, "ij", m, "i", value, vind, spec=spec, dtype=np.float64,
                       adjust_chunks={"j": 8}, meta=np.empty((0, 0), dtype=np.float64))
    return landfall.RaycastResult(out[:, 0] == 1.0, out[:, 1], out[:, 2:5], out[:, 5:8])


def _visible_block(a, b, value, spec):
    return _terrain(spec, value).visible(a, b)


def visible(path_or_terrain, a, b, **open_options):
    """:meth:`landfall.Terrain.visible` over Dask arrays of point pairs ((n, 3) each): a boolean Dask
    array (n)."""
    spec = _spec(path_or_terrain, open_options)
    a = _rows3(a, "a")
    b = _rows3(b, "b", like=a)
    (value, vind), spec = _args(spec)
    return da.blockwise(_visible_block, "i", a, "ij", b, "ij", value, vind, spec=spec, dtype=bool, concatenate=True,
                        meta=np.empty((0,), dtype=bool))


def _counts_block(observers, value, spec, options):
    c, t = _terrain(spec, value)._cumulative_counts(observers, **options)
    return np.stack([c, t.astype(np.uint32)])[None]


def cumulative_viewshed(path_or_terrain, observers, observers_per_task=32, observer_height=1.75, target_height=0.0,
                        max_distance=None, curvature=False, refraction=1.0 / 7.0, start_angle=None, end_angle=None,
                        low_pitch=None, high_pitch=None, split_every=8, **open_options):
    """:meth:`landfall.Heightfield.cumulative_viewshed` over a Dask cluster: a float64 Dask array
    (ny, nx) in raster order, how many of the ``observers`` see each sample, NaN where the sample
    is no observer's target. ``observers``: (n, 2) or (n, 3) (x, y[, eye height]), a NumPy or a
    Dask array; split into tasks of ``observers_per_task`` (a Dask array keeps its own chunks).
    Each task opens the heightfield by path on its worker and counts its observers (all the
    worker's cores); the counts are summed in a tree, ``split_every`` at a time. Equal to the
    single-process counts."""
    spec = _spec(path_or_terrain, open_options)
    terrain = path_or_terrain if spec[0] == "value" else _open_cached(spec[1], spec[2])
    if not isinstance(terrain, landfall.Heightfield):
        raise ValueError("cumulative_viewshed: the terrain is not a heightfield (a raster DEM)")
    info = terrain.info()
    ny, nx = info["ny"], info["nx"]
    o = _as_dask(observers, "observers")
    if o.ndim != 2 or o.shape[1] not in (2, 3) or o.shape[0] == 0:
        raise ValueError(f"observers: expected a non-empty array of shape (n, 2) or (n, 3), got {o.shape}")
    if not isinstance(observers, da.Array):
        if int(observers_per_task) < 1:
            raise ValueError(f"observers_per_task: {observers_per_task} must be ≥ 1")
        o = o.rechunk((int(observers_per_task), o.shape[1]))
    o = o.rechunk({1: o.shape[1]})
    options = dict(observer_height=observer_height, target_height=target_height, max_distance=max_distance,
                   curvature=curvature, refraction=refraction, start_angle=start_angle, end_angle=end_angle,
                   low_pitch=low_pitch, high_pitch=high_pitch)
    (value, vind), spec = _args(spec)
    # One (2, ny, nx) block per task: the counts and whether each sample is a target; the task
    # axis is then summed away.
    per_task = da.blockwise(_counts_block, "kcyx", o, "kj", value, vind, spec=spec, options=options,
                            new_axes={"c": 2, "y": ny, "x": nx}, concatenate=True, dtype=np.uint32,
                            meta=np.empty((0, 0, 0), dtype=np.uint32), adjust_chunks={"k": 1})
    total = per_task.sum(axis=0, dtype=np.uint64, split_every=split_every)
    return da.where(total[1] > 0, total[0].astype(np.float64), np.nan)
