"""landfall: exact terrain queries from Python.

Open any terrain the ``landfall`` command line reads (GeoTIFF, ESRI ASCII grid, PNG, NumPy rasters;
OBJ and glTF meshes; index files from ``landfall build``) with :func:`open`, or build a heightfield
from an array with :meth:`Heightfield.from_array` / :meth:`Heightfield.from_xarray`; then query it
in batches of numpy arrays. Every query releases the GIL and runs in parallel; answers are the CLI's,
bit for bit.

>>> import numpy as np, landfall
>>> t = landfall.Heightfield.from_array(np.array([[0.0, 0.0], [2.0, 2.0]]), spacing=(1.0, 1.0), origin=(0.0, 0.0))
>>> float(t.height(0.5, 0.0))   # the south row is the array's last: heights 2 there
2.0
"""

from __future__ import annotations

import numpy as _np

from ._landfall import Heightfield as _NativeHeightfield
from ._landfall import _open

__all__ = ["open", "Terrain", "Heightfield", "RaycastResult"]

_DIAGONALS = ("alternating", "sw-ne", "se-nw")


def _flat(name, *arrays):
    """Broadcast to one shape; return that shape and each array as a contiguous 1-D float64 view."""
    try:
        arrays = _np.broadcast_arrays(*[_np.asarray(a, dtype=_np.float64) for a in arrays])
    except ValueError as e:
        raise ValueError(f"{name}: shapes do not match: {e}") from None
    shape = arrays[0].shape
    return shape, [_np.ascontiguousarray(a).reshape(-1) for a in arrays]


def _points3(name, a):
    a = _np.asarray(a, dtype=_np.float64)
    if a.ndim == 1 and a.shape[0] == 3:
        a = a[None, :]
    if a.ndim != 2 or a.shape[1] != 3:
        raise ValueError(f"{name}: expected an array of shape (n, 3), got {a.shape}")
    return _np.ascontiguousarray(a).reshape(-1), a.shape[0]


class RaycastResult:
    """First hits of a batch of rays: ``hit`` (bool, n), ``t`` (n), ``point`` and ``normal`` (n, 3);
    NaN where the ray missed."""

    __slots__ = ("hit", "t", "point", "normal")

    def __init__(self, hit, t, point, normal):
        self.hit, self.t, self.point, self.normal = hit, t, point, normal

    def __repr__(self):
        return f"RaycastResult({int(self.hit.sum())} of {self.hit.size} rays hit)"


class Terrain:
    """A terrain: its queries take and return numpy arrays. Open one with :func:`open`; a raster
    gives a :class:`Heightfield`."""

    def __init__(self, native, path=None, options=None):
        self._native = native
        self.path = path
        self._options = options or {}

    def height(self, x, y):
        """Topmost surface height at each (x, y): float64 array of the broadcast shape, NaN where
        there is no surface (outside, over a hole)."""
        shape, (x, y) = _flat("height", x, y)
        return self._native._height(x, y).reshape(shape)

    def surface(self, x, y, z=None):
        """Surface points and upward unit normals: ``(points (..., 3), normals (..., 3))``, NaN rows
        where there is none. Without ``z`` the topmost surface on the vertical line through (x, y);
        with ``z`` the nearest surface at or below (x, y, z) along gravity (a floor query)."""
        if z is None:
            shape, (x, y) = _flat("surface", x, y)
            p, n = self._native._surface(x, y)
        else:
            shape, (x, y, z) = _flat("surface", x, y, z)
            p, n = self._native._surface(x, y, z)
        return p.reshape(shape + (3,)), n.reshape(shape + (3,))

    def raycast(self, origins, dirs, max_t=None):
        """First crossing of each ray origin + t·dir (t ≥ 0 in units of |dir|, up to ``max_t``: a
        number, an array (n) or None for unbounded) with the terrain, from either side; origins and
        dirs are arrays (n, 3)."""
        o, n = _points3("origins", origins)
        d, m = _points3("dirs", dirs)
        if m != n:
            raise ValueError(f"dirs: {m} rays, expected {n} like origins")
        if max_t is None:
            mt = _np.full(n, _np.inf)
        else:
            try:
                mt = _np.broadcast_to(_np.asarray(max_t, dtype=_np.float64), (n,))
            except ValueError:
                raise ValueError(f"max_t: expected a number or {n} values") from None
        r = self._native._raycast(o, d, _np.ascontiguousarray(mt))
        return RaycastResult(r["hit"] == 1.0, r["t"], r["point"].reshape(n, 3), r["normal"].reshape(n, 3))

    def visible(self, a, b):
        """Line of sight: True where the segment a→b (arrays (n, 3)) crosses no terrain strictly
        between its ends (touching the ground at either end does not block)."""
        a, n = _points3("a", a)
        b, m = _points3("b", b)
        if m != n:
            raise ValueError(f"b: {m} points, expected {n} like a")
        return self._native._visible(a, b) == 1.0

    def info(self):
        """What ``landfall info`` says, as a dict (kind, size, bounds, height range, holes, memory)."""
        return self._native.info()

    def __reduce__(self):
        if self.path is not None:
            return (_reopen, (self.path, self._options))
        raise TypeError("this terrain did not come from a file and cannot be pickled")

    def __repr__(self):
        i = self.info()
        where = f" from {self.path}" if self.path else ""
        if i["kind"] == "heightfield":
            return f"<landfall.Heightfield {i['nx']}×{i['ny']}{where}>"
        return f"<landfall.Terrain {i['polygons']} polygons{where}>"


def _reopen(path, options):
    return open(path, **options)


class Heightfield(Terrain):
    """A heightfield: a raster's samples, two triangles a cell (exact between samples, never
    bilinear)."""

    @staticmethod
    def from_array(heights, spacing=(1.0, 1.0), origin=(0.0, 0.0), diagonal="alternating"):
        """A heightfield from a 2-D array laid out as a raster file (first row north); ``origin``
        is the world position of the south-west sample; ``spacing`` a number or ``(dx, dy)``;
        NaN = hole."""
        h = _np.asarray(heights, dtype=_np.float64)
        if h.ndim != 2:
            raise ValueError(f"heights: expected a 2-D array, got {h.ndim} dimensions")
        spacing = _pair("spacing", spacing)
        origin = _pair("origin", origin)
        if str(diagonal) not in _DIAGONALS:
            raise ValueError(f"diagonal: {diagonal!r} (expected one of {', '.join(_DIAGONALS)})")
        native = _NativeHeightfield._from_array(_np.ascontiguousarray(h), spacing, origin, str(diagonal))
        t = Heightfield(native)
        t._by_value = {"heights": h, "spacing": spacing, "origin": origin, "diagonal": str(diagonal)}
        return t

    @staticmethod
    def from_xarray(da, diagonal="alternating"):
        """A heightfield from an xarray DataArray with ``x`` and ``y`` coordinates (evenly spaced;
        ``y`` ascending or descending), as rioxarray reads a GeoTIFF; nodata (rioxarray's
        ``rio.nodata``, or a ``_FillValue`` / ``nodata`` attribute) and NaN become holes."""
        if "x" not in da.dims or "y" not in da.dims:
            raise ValueError(f"da: needs dimensions x and y, has {tuple(da.dims)}")
        da = da.squeeze(drop=True)
        if da.ndim != 2:
            raise ValueError(f"da: expected 2-D after dropping single bands, got dims {tuple(da.dims)}")
        da = da.transpose("y", "x")
        x = _np.asarray(da["x"], dtype=_np.float64)
        y = _np.asarray(da["y"], dtype=_np.float64)
        if x.size < 2 or y.size < 2:
            raise ValueError("da: needs at least 2 × 2 samples")
        dx, dy = _even("x", x), _even("y", y)
        h = _np.asarray(da.values, dtype=_np.float64).copy()
        nodata = None
        try:
            nodata = da.rio.nodata
        except AttributeError:
            pass
        for key in ("_FillValue", "nodata", "nodatavals"):
            if nodata is None and key in da.attrs:
                v = da.attrs[key]
                nodata = v[0] if isinstance(v, (tuple, list)) else v
        if nodata is not None and not _np.isnan(nodata):
            h[h == nodata] = _np.nan
        if dy > 0:  # y ascending: rows south first; a raster array is north first
            h = h[::-1]
        if dx < 0:
            h = h[:, ::-1]
        t = Heightfield.from_array(h, spacing=(abs(dx), abs(dy)), origin=(float(x.min()), float(y.min())), diagonal=diagonal)
        t._xarray = da
        return t

    def heights(self):
        """The samples as a 2-D array in raster order (first row north), NaN = hole."""
        return self._native._heights()

    def viewshed(self, x, y, observer_height=1.75, target_height=0.0, max_distance=None, curvature=False,
                 refraction=1.0 / 7.0, start_angle=None, end_angle=None, low_pitch=None, high_pitch=None,
                 mode="visible"):
        """What an observer at world (x, y) sees, exactly (as ``landfall viewshed``): a 2-D array in
        raster order (first row north). ``mode="visible"``: uint8, 1 visible, 0 not, 255 nodata
        (holes, beyond ``max_distance``, outside the angles). ``"ground"``: the least target height
        above the ground that would be seen; ``"dem"``: that height plus the ground (float64, NaN
        nodata). A DataArray on the input's coordinates when the heightfield came from one."""
        opt = lambda v: None if v is None else float(v)
        v = self._native._viewshed(float(x), float(y), float(observer_height), float(target_height), opt(max_distance),
                                   bool(curvature), float(refraction), opt(start_angle), opt(end_angle),
                                   opt(low_pitch), opt(high_pitch), str(mode))
        info = self.info()
        v = v.reshape(info["ny"], info["nx"])
        if str(mode).lower() == "visible":
            v = v.astype(_np.uint8)
        da = getattr(self, "_xarray", None)
        if da is None:
            return v
        import xarray as xr

        ya, xa = _np.asarray(da["y"]), _np.asarray(da["x"])
        if ya[0] < ya[-1]:
            v = v[::-1]
        if xa[0] > xa[-1]:
            v = v[:, ::-1]
        return xr.DataArray(v, coords={"y": da["y"], "x": da["x"]}, dims=("y", "x"), name="viewshed")

    def __reduce__(self):
        by_value = getattr(self, "_by_value", None)
        if by_value is not None and self.path is None:
            return (_from_value, (by_value,))
        return Terrain.__reduce__(self)


def _from_value(v):
    return Heightfield.from_array(v["heights"], spacing=v["spacing"], origin=v["origin"], diagonal=v["diagonal"])


def _pair(name, v):
    if _np.isscalar(v):
        v = (v, v)
    try:
        a, b = (float(v[0]), float(v[1]))
    except (TypeError, IndexError, ValueError):
        raise ValueError(f"{name}: expected a number or a pair of numbers, got {v!r}") from None
    return (a, b)


def _even(name, c):
    d = _np.diff(c)
    step = float(d.mean())
    if step == 0 or not _np.allclose(d, step, rtol=1e-6, atol=0):
        raise ValueError(f"da: coordinate {name} is not evenly spaced")
    return step


def open(path, spacing=None, origin=None, z_scale=1.0, z_offset=0.0, diagonal="alternating", gravity=None):
    """Opens any terrain file the CLI reads, with the CLI's meaning of each option: ``spacing`` a
    number or ``(dx, dy)``, ``origin`` ``(x, y)`` of the south-west sample, heights ``v·z_scale +
    z_offset``, ``diagonal`` ``"alternating"``, ``"sw-ne"`` or ``"se-nw"``, ``gravity``
    ``(gx, gy, gz)``. Rasters give a :class:`Heightfield`, meshes and index files a
    :class:`Terrain`."""
    import os

    sp = None if spacing is None else _pair("spacing", spacing)
    org = None if origin is None else _pair("origin", origin)
    g = None if gravity is None else tuple(float(v) for v in gravity)
    if g is not None and len(g) != 3:
        raise ValueError(f"gravity: expected (gx, gy, gz), got {gravity!r}")
    path = os.fspath(path)
    native = _open(path, sp, org, float(z_scale), float(z_offset), str(diagonal), g)
    options = {"spacing": sp, "origin": org, "z_scale": z_scale, "z_offset": z_offset, "diagonal": diagonal, "gravity": g}
    cls = Heightfield if isinstance(native, _NativeHeightfield) else Terrain
    return cls(native, path=path, options=options)
