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

import builtins as _builtins
import os as _os
import warnings as _warnings

import numpy as _np

from ._landfall import Heightfield as _NativeHeightfield
from ._landfall import World as _NativeWorld
from ._landfall import __version__
from ._landfall import _open

__all__ = [
    "__version__",
    "open",
    "Terrain",
    "Heightfield",
    "CharacterController",
    "World",
    "RaycastResult",
    "SweepResult",
    "Placement",
    "MoveResult",
    "PathResult",
]

_DIAGONALS = ("alternating", "sw-ne", "se-nw")


def _contiguous(a):
    """``a`` C-contiguous and aligned, as the native side reads it (an array unpickled from
    out-of-band buffers, as Dask sends them, may be unaligned: then it is copied)."""
    return _np.require(a, requirements=("C", "A"))


def _flat(name, *arrays):
    """Broadcast to one shape; return that shape and each array as a contiguous 1-D float64 view."""
    converted = []
    for k, a in enumerate(arrays):
        try:
            converted.append(_np.asarray(a, dtype=_np.float64))
        except (TypeError, ValueError):
            raise ValueError(f"{name}: argument {k + 1} is not numbers: {a!r:.60}") from None
    try:
        arrays = _np.broadcast_arrays(*converted)
    except ValueError as e:
        raise ValueError(f"{name}: shapes do not match: {e}") from None
    shape = arrays[0].shape
    return shape, [_contiguous(a).reshape(-1) for a in arrays]


def _points3(name, a, width=3):
    a = _np.asarray(a, dtype=_np.float64)
    if a.ndim == 1 and a.shape[0] == width:
        a = a[None, :]
    if a.ndim != 2 or a.shape[1] != width:
        raise ValueError(f"{name}: expected an array of shape (n, {width}), got {a.shape}")
    return _contiguous(a).reshape(-1), a.shape[0]


class _Result:
    """Columns of a batch answer, one array per field (first axis: the batch)."""

    __slots__ = ()

    def __init__(self, **fields):
        for k in self.__slots__:
            setattr(self, k, fields[k])

    def __repr__(self):
        return f"{type(self).__name__}({self._summary()})"


class RaycastResult(_Result):
    """First hits of a batch of rays: ``hit`` (bool, n), ``t`` (n), ``point`` and ``normal`` (n, 3);
    NaN where the ray missed."""

    __slots__ = ("hit", "t", "point", "normal")

    def __init__(self, hit, t, point, normal):
        _Result.__init__(self, hit=hit, t=t, point=point, normal=normal)

    def _summary(self):
        return f"{int(self.hit.sum())} of {self.hit.size} rays hit"


class SweepResult(_Result):
    """First contacts of a batch of swept spheres: ``hit`` (bool, n); ``t`` (n), the fraction of the
    motion travelled when the sphere touches; ``point`` (n, 3) the contact on the terrain;
    ``normal`` (n, 3) from the contact toward the sphere's centre; ``center`` (n, 3) the centre at
    contact. NaN where the sphere moves its whole way freely."""

    __slots__ = ("hit", "t", "point", "normal", "center")

    def _summary(self):
        return f"{int(self.hit.sum())} of {self.hit.size} spheres touch"


class Placement(_Result):
    """Bodies set on the ground: ``ok`` (bool, n); ``reason`` (str, n: "" where placed, else "no
    ground", "blocked", "edge of world", "too steep" or "bad input"); ``position`` (n, 3) on the
    ground plane; ``up``, ``forward`` (n, 3) unit axes; ``rotation`` (n, 4) the quaternion (x, y, z,
    w) from body axes (x forward, y left, z up) to world; ``pitch`` (nose up), ``roll`` (right side
    down) and ``slope`` (n), radians. NaN where refused."""

    __slots__ = ("ok", "reason", "position", "up", "forward", "rotation", "pitch", "roll", "slope")

    def _summary(self):
        return f"{int(self.ok.sum())} of {self.ok.size} placed"


class MoveResult(_Result):
    """One move of a batch of characters: ``position`` (n, 3) the new centres; ``grounded`` (bool,
    n) on walkable ground after the move; ``ground_normal`` (n, 3), NaN where not grounded;
    ``stepped`` (bool, n) climbed a step; ``contacts`` (int, n) touches during the move."""

    __slots__ = ("position", "grounded", "ground_normal", "stepped", "contacts")

    def _summary(self):
        return f"{int(self.grounded.sum())} of {self.grounded.size} grounded"


class Terrain:
    """A terrain: its queries take and return numpy arrays. Open one with :func:`open`; a raster
    gives a :class:`Heightfield`."""

    def __init__(self, native, path=None, options=None):
        self._native = native
        self.path = path
        self._options = options or {}
        self.edited = False
        # Pickles name the file absolutely (unpickled elsewhere, a relative path names another).
        self._abspath = None if path is None else _os.path.abspath(path)

    def height(self, x, y):
        """Topmost surface height at each (x, y): float64 array of the broadcast shape, NaN where
        there is no surface (outside, over a hole). For a raster in degrees (a geographic CRS) x, y
        are longitude and latitude and the height is metres above the WGS84 ellipsoid, along its
        normal, on the surface's triangles (``info()["geographic"]``)."""
        shape, (x, y) = _flat("height", x, y)
        return self._native._height(x, y).reshape(shape)

    def surface(self, x, y, z=None):
        """Surface points and upward unit normals: ``(points (..., 3), normals (..., 3))``, NaN rows
        where there is none. Without ``z`` the topmost surface on the vertical line through (x, y);
        with ``z`` the nearest surface at or below (x, y, z) along gravity (a floor query). For a
        raster in degrees, as :meth:`floor`."""
        return self._surface("top" if z is None else "floor", x, y, z)

    def floor(self, x, y, z):
        """The nearest surface at or below each point (x, y, z) along gravity: ``(points, normals)``
        (..., 3), NaN rows where there is none (QOTA's floor query). For a raster in degrees the
        points are (lon, lat, h), the answers too (h along the ellipsoid normal)."""
        return self._surface("floor", x, y, z)

    def ceiling(self, x, y, z):
        """The nearest surface at or above each point (x, y, z) against gravity: ``(points,
        normals)`` (..., 3), NaN rows where there is none (a roof, an overhang, a cave's top). A
        raster in degrees has one surface on each ellipsoid normal: ``ValueError``."""
        return self._surface("ceiling", x, y, z)

    def contains(self, x, y, z):
        """QOTA's locale test: True where the point has a floor below it and a ceiling above it (it
        is inside the terrain's enclosed space: a cave, a building, under an overhang)."""
        shape, (x, y, z) = _flat("contains", x, y, z)
        return (self._native._contains(x, y, z) == 1.0).reshape(shape)

    def _surface(self, pick, x, y, z):
        if z is None:
            shape, (x, y) = _flat("surface", x, y)
        else:
            shape, (x, y, z) = _flat("surface", x, y, z)
        p, n = self._native._surface(x, y, z, pick)
        return p.reshape(shape + (3,)), n.reshape(shape + (3,))

    def raycast(self, origins, dirs, max_t=None):
        """First crossing of each ray origin + t·dir (t ≥ 0 in units of |dir|, up to ``max_t``: a
        number, an array (n) or None for unbounded) with the terrain, from either side; origins and
        dirs are arrays (n, 3). For a raster in degrees the origins are (lon, lat, h), the directions
        (east, north, up) at each origin, t in metres for unit directions, and the points (lon, lat,
        h)."""
        return _raycast(self._native, origins, dirs, max_t)

    def visible(self, a, b):
        """Line of sight: True where the segment a→b (arrays (n, 3)) crosses no terrain strictly
        between its ends (touching the ground at either end does not block). For a raster in
        degrees the points are (lon, lat, h) and the segment is straight in space (the Earth's
        curvature hides what is far)."""
        a, n = _points3("a", a)
        b, m = _points3("b", b)
        if m != n:
            raise ValueError(f"b: {m} points, expected {n} like a")
        return self._native._visible(a, b) == 1.0

    def to_enu(self, points):
        """A raster in degrees: (lon, lat, h) points (n, 3) → (x east, y north, z up) in metres in
        the surface's east-north-up frame (``info()["enu_origin"]``), where :meth:`sweep`,
        :meth:`place`, :meth:`is_lit` and walkers work; heights, floors, rays and lines of sight take
        (lon, lat, h)."""
        p, n = _points3("points", points)
        return self._native._convert(p, True).reshape(n, 3)

    def to_geodetic(self, points):
        """A raster in degrees: points (n, 3) of its east-north-up frame → (lon, lat, h)."""
        p, n = _points3("points", points)
        return self._native._convert(p, False).reshape(n, 3)

    def is_lit(self, points, to_light, bias=1e-6):
        """Shadows by shadow rays: True where the ray from each point (n, 3) toward the light
        (``to_light``: one direction (3,) for a sun, or one per point (n, 3)) meets no terrain
        farther than ``bias`` (world units) along it. Points on the ground need a small bias (the
        default suits metres). For a raster in degrees, points and directions are in metres in its
        east-north-up frame (:meth:`to_enu`)."""
        p, n = _points3("points", points)
        d = _np.broadcast_to(_np.asarray(to_light, dtype=_np.float64), (n, 3)) if n else _np.zeros((0, 3))
        return self._native._is_lit(p, _contiguous(d).reshape(-1), float(bias)) == 1.0

    def sweep(self, centers, radius, motions):
        """Spheres of ``radius`` (a number or (n)) moving from ``centers`` by ``motions`` (n, 3):
        where each first touches the terrain (the exact swept sphere against the triangles, faces,
        edges and corners). Returns a :class:`SweepResult`. For a raster in degrees, in metres in
        its east-north-up frame (:meth:`to_enu`)."""
        c, n = _points3("centers", centers)
        v, m = _points3("motions", motions)
        if m != n:
            raise ValueError(f"motions: {m} rows, expected {n} like centers")
        r = _per_row("radius", radius, n)
        d = self._native._sweep(c, r, v)
        return SweepResult(hit=d["hit"] == 1.0, t=d["t"], point=d["point"].reshape(n, 3),
                           normal=d["normal"].reshape(n, 3), center=d["center"].reshape(n, 3))

    def place(self, x, y, heading=0.0, z=None, length=4.0, width=2.0, contacts="three", max_slope=0.6108652381980153,
              probe_up=1.0):
        """Sets bodies on the ground (QOTA's terrain following): a ``length`` × ``width`` footprint
        at (x, y) facing ``heading`` (radians from +x toward +y), its ground plane through three
        contacts (front centre, rear corners; ``contacts="three"``) or four wheels (``"four"``).
        The ground is looked for below ``z + probe_up`` (``z`` defaults to above the whole terrain:
        the topmost ground); a contact over a hole, ground rising more than ``probe_up`` or steeper
        than ``max_slope`` (radians, default 35°) refuses the body. Arguments broadcast together.
        Returns a :class:`Placement`. For a raster in degrees, (x, y, z) are metres in its
        east-north-up frame (:meth:`to_enu`)."""
        if z is None:
            if self.info()["gravity"] != (0.0, 0.0, -1.0):
                raise ValueError("z: with a gravity other than (0, 0, -1) the positions need z")
            z = self.info()["bounds"][1][2]
        shape, (x, y, z, h) = _flat("place", x, y, z, heading)
        p = _contiguous(_np.stack([x, y, z], axis=1)).reshape(-1)
        d = self._native._place(p, h, float(length), float(width), str(contacts), float(max_slope), float(probe_up))
        code = d["code"].astype(_np.int64)
        reasons = _np.array(d["reasons"], dtype=object)
        v = lambda k, w: d[k].reshape(shape + (w,))
        return Placement(ok=(code == 0).reshape(shape), reason=reasons[code].reshape(shape), position=v("position", 3),
                         up=v("up", 3), forward=v("forward", 3), rotation=v("rotation", 4),
                         pitch=d["pitch"].reshape(shape), roll=d["roll"].reshape(shape), slope=d["slope"].reshape(shape))

    def insert_polygon(self, vertices):
        """Adds a planar polygon (vertices (k, 3), world coordinates, in order) to a polygon
        terrain; returns its id. Only the quadtree leaves it overlaps change."""
        v, _ = _points3("vertices", vertices)
        pid = self._native._insert_polygon(v)
        self.edited = True
        return pid

    def remove_polygon(self, polygon_id):
        """Removes polygon ``polygon_id`` (from the file's order, or from :meth:`insert_polygon`)
        from a polygon terrain; returns how many faces it had (0 for an unknown id)."""
        faces = self._native._remove_polygon(int(polygon_id))
        self.edited = True
        return faces

    def info(self):
        """What ``landfall info`` says, as a dict (kind, size, bounds, height range, holes, memory).

        ``"bounds"`` is the box of the terrain as queries answer it: for a raster in degrees
        (``"kind": "geographic"``) metres in its east-north-up frame (``"enu_origin"``). A raster's
        ``"extent"`` is ``((x0, y0), (x1, y1))`` in its own coordinates: longitude and latitude for
        one in degrees, where :meth:`height` and :meth:`raycast` take their positions.

        A heightfield's samples are float32 (``"dtype"``): a height h is kept to within
        |h|·2⁻²⁴, at most ``"rounding_bound"`` over its height range. ``"rounding_error"`` is the
        largest change measured on float64 heights given from Python (:meth:`Heightfield.from_array`,
        :meth:`Heightfield.set_heights`), None for a terrain read from a file."""
        return self._native.info()

    def __reduce__(self):
        if self.path is not None and not self.edited:
            return (_reopen, (self._abspath, self._options, _checksum(self._abspath)))
        if self.edited:
            raise TypeError("an edited polygon terrain cannot be pickled (its file no longer describes it)")
        raise TypeError("this terrain did not come from a file and cannot be pickled")

    def __repr__(self):
        i = self.info()
        where = f" from {self.path}" if self.path else ""
        if i["kind"] == "polygons":
            return f"<landfall.Terrain {i['polygons']} polygons{where}>"
        degrees = " in degrees (WGS84)" if i["kind"] == "geographic" else ""
        return f"<landfall.Heightfield {i['nx']}×{i['ny']}{degrees}{where}>"


def _reopen(path, options, checksum=None):
    """Unpickles a terrain: the file at ``path`` (absolute), refused unless it is the one pickled."""
    if checksum is not None and _checksum(path) != checksum:
        raise ValueError(f"{path}: is not the file that was pickled (its checksum differs): it was changed or replaced")
    return open(path, **options)


_CHECKSUMS = {}


def _checksum(path):
    """BLAKE2b of a file's bytes, remembered per (device, inode, size, modification time) so that a
    terrain pickled or unpickled many times (Dask) is read once per process."""
    st = _os.stat(path)
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if key not in _CHECKSUMS:
        import hashlib

        h = hashlib.blake2b(digest_size=16)
        with _builtins.open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _CHECKSUMS[key] = h.hexdigest()
    return _CHECKSUMS[key]


class Heightfield(Terrain):
    """A heightfield: a raster's samples, two triangles a cell (exact between samples, never
    bilinear)."""

    @staticmethod
    def from_array(heights, spacing=(1.0, 1.0), origin=(0.0, 0.0), diagonal="alternating", geographic=False):
        """A heightfield from a 2-D array laid out as a raster file (first row north); ``origin``
        is the world position of the south-west sample; ``spacing`` a number or ``(dx, dy)``;
        NaN = hole. With ``geographic=True`` origin and spacing are longitude and latitude in
        degrees and the heights metres above the WGS84 ellipsoid: the same surface as a raster file
        in EPSG:4326 opens (``info()["kind"] == "geographic"``).

        The heights are stored as float32 (4 bytes a sample, as from a file): float64 values are
        rounded to the nearest float32, each by at most |h|·2⁻²⁴ (about 0.06 mm at 1,000 m, 0.5 m at
        10⁷). ``info()["rounding_error"]`` is the largest change this array took,
        ``info()["rounding_bound"]`` the bound over the height range; queries answer on the stored
        heights, exactly."""
        h = _np.asarray(heights, dtype=_np.float64)
        if h.ndim != 2:
            raise ValueError(f"heights: expected a 2-D array, got {h.ndim} dimensions")
        spacing = _pair("spacing", spacing)
        origin = _pair("origin", origin)
        if str(diagonal) not in _DIAGONALS:
            raise ValueError(f"diagonal: {diagonal!r} (expected one of {', '.join(_DIAGONALS)})")
        native = _NativeHeightfield._from_array(_contiguous(h), spacing, origin, str(diagonal), bool(geographic))
        return Heightfield(native)

    @staticmethod
    def from_xarray(da, diagonal="alternating"):
        """A heightfield from an xarray DataArray with ``x`` and ``y`` coordinates (evenly spaced;
        ``y`` ascending or descending), as rioxarray reads a GeoTIFF; nodata (rioxarray's
        ``rio.nodata``, or a ``_FillValue`` / ``nodata`` attribute) and NaN become holes. A
        geographic CRS (rioxarray's ``rio.crs``, in degrees) gives the surface on the WGS84
        ellipsoid, as the file opened directly does."""
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
        nodata, geographic = None, False
        try:
            nodata = da.rio.nodata
            geographic = bool(da.rio.crs is not None and da.rio.crs.is_geographic)
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
        t = Heightfield.from_array(h, spacing=(abs(dx), abs(dy)), origin=(float(x.min()), float(y.min())), diagonal=diagonal,
                                   geographic=geographic)
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
        nodata). A DataArray on the input's coordinates when the heightfield came from one.

        A raster in degrees (a geographic CRS) is a surface on the WGS84 ellipsoid: (x, y) are
        longitude and latitude, ``max_distance`` is in metres, lines of sight are straight in
        Earth-centred coordinates (the Earth's curvature is always in; ``curvature`` is not read)
        and ``refraction`` raises every sample by K·d²/(2R) (see ``docs/conventions.md``)."""
        f, opt = _number, _optional
        v = self._native._viewshed(f("x", x), f("y", y), f("observer_height", observer_height),
                                   f("target_height", target_height), opt("max_distance", max_distance),
                                   bool(curvature), f("refraction", refraction), opt("start_angle", start_angle),
                                   opt("end_angle", end_angle), opt("low_pitch", low_pitch),
                                   opt("high_pitch", high_pitch), str(mode))
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

    def cumulative_viewshed(self, observers, observer_height=1.75, target_height=0.0, max_distance=None,
                            curvature=False, refraction=1.0 / 7.0, start_angle=None, end_angle=None, low_pitch=None,
                            high_pitch=None):
        """How many of the ``observers`` see each sample (the options as :meth:`viewshed`'s): a 2-D
        float64 array in raster order (first row north), NaN where the sample is no observer's
        target (a hole, beyond ``max_distance``, outside the angles). ``observers``: an (n, 2)
        array of (x, y), or (n, 3) with each observer's own eye height (NaN: ``observer_height``).
        :func:`landfall.dask.cumulative_viewshed` splits the observers over a Dask cluster."""
        counts, targets = self._cumulative_counts(observers, observer_height, target_height, max_distance, curvature,
                                                  refraction, start_angle, end_angle, low_pitch, high_pitch)
        return _np.where(targets, counts.astype(_np.float64), _np.nan)

    def _cumulative_counts(self, observers, observer_height, target_height, max_distance, curvature, refraction,
                           start_angle, end_angle, low_pitch, high_pitch):
        """(counts as uint32, whether each sample is some observer's target), 2-D in raster order."""
        o = _np.asarray(observers, dtype=_np.float64)
        if o.ndim != 2 or o.shape[1] not in (2, 3):
            raise ValueError(f"observers: expected an array of shape (n, 2) or (n, 3), got {o.shape}")
        h = o[:, 2] if o.shape[1] == 3 else _np.full(o.shape[0], _np.nan)
        f, opt = _number, _optional
        c, t = self._native._cumulative_viewshed(
            _contiguous(o[:, 0]), _contiguous(o[:, 1]), _contiguous(h),
            f("observer_height", observer_height), f("target_height", target_height),
            opt("max_distance", max_distance), bool(curvature), f("refraction", refraction),
            opt("start_angle", start_angle), opt("end_angle", end_angle), opt("low_pitch", low_pitch),
            opt("high_pitch", high_pitch))
        info = self.info()
        shape = (info["ny"], info["nx"])
        return c.astype(_np.uint32).reshape(shape), (t == 1.0).reshape(shape)

    def set_heights(self, values, row=0, col=0):
        """Overwrites a block of samples: ``values`` a 2-D array in raster order (first row north)
        whose north-west sample goes to raster row ``row``, column ``col`` (the indices of
        :meth:`heights`); NaN makes a hole. Only the pyramid branches over the block are
        recomputed."""
        v = _np.asarray(values, dtype=_np.float64)
        if v.ndim != 2:
            raise ValueError(f"values: expected a 2-D array, got {v.ndim} dimensions")
        if int(row) < 0 or int(col) < 0:
            raise ValueError(f"row, col: ({row}, {col}) must be ≥ 0")
        self._native._set_heights(_contiguous(v), int(row), int(col))
        self.edited = True

    def __reduce__(self):
        if self.edited or self.path is None:
            i = self.info()
            if i["gravity"] != (0.0, 0.0, -1.0):
                raise TypeError("an edited heightfield with a gravity other than (0, 0, -1) cannot be pickled")
            value = {"heights": self.heights(), "spacing": i["spacing"], "origin": i["origin"], "diagonal": i["diagonal"],
                     "geographic": i["kind"] == "geographic"}
            return (_from_value, (value,))
        return Terrain.__reduce__(self)


class PathResult(_Result):
    """Paths of a batch: ``found`` (bool, n), ``length`` (n, horizontal metres, NaN where none),
    ``points`` (a list of n arrays (k, 3): the corners on the ground, start to goal), ``moved``
    (n, 2: how far the start and the goal were moved to walkable ground, metres; 0 where they were
    not, NaN where no path) and ``error`` (a list: None, or why there is no path)."""

    __slots__ = ("found", "length", "points", "moved", "error")

    def _summary(self):
        return f"{int(self.found.sum())} of {self.found.size} paths found"


class CharacterController:
    """A kinematic character controller on the exact swept shape (rapier's and Jolt's option set):
    ``shape`` ``"sphere"`` (of ``radius``), ``"capsule"`` (upright, its axis ``2·half_height``
    long, swept by ``radius``) or ``"ellipsoid"`` (semi-axes ``radii`` along x, y, z); ``skin`` the
    gap kept to the ground; it walks up slopes up to ``max_climb`` and slides down those steeper
    than ``min_slide`` (radians); climbs steps up to ``step_height``; snaps down to the ground by
    up to ``snap`` when walking downhill.

    >>> import numpy as np, landfall
    >>> t = landfall.Heightfield.from_array(np.zeros((3, 3)))
    >>> c = landfall.CharacterController(radius=0.5)
    >>> m = c.move(t, [[1.0, 1.0, 0.6]], [[0.5, 0.0, -0.2]])
    >>> bool(m.grounded[0]), round(float(m.position[0, 2]), 2)
    (True, 0.51)
    """

    def __init__(self, shape="sphere", radius=0.5, half_height=0.0, radii=None, skin=0.01,
                 max_climb=0.7853981633974483, min_slide=0.5235987755982988, step_height=0.3, snap=0.3,
                 max_iterations=6):
        self.shape, self.radius, self.half_height = str(shape), float(radius), float(half_height)
        self.radii = (self.radius,) * 3 if radii is None else tuple(float(r) for r in radii)
        if len(self.radii) != 3:
            raise ValueError(f"radii: expected (rx, ry, rz), got {radii!r}")
        self.skin, self.max_climb, self.min_slide = float(skin), float(max_climb), float(min_slide)
        self.step_height, self.snap, self.max_iterations = float(step_height), float(snap), int(max_iterations)

    def move(self, terrain, positions, motions, grounded=False):
        """One frame for a crowd: each character at ``positions`` (n, 3, the shape's centre) tries
        to move by ``motions`` (n, 3: walking plus gravity); ``grounded`` (a bool or (n)) whether it
        stood on the ground before (from the last :class:`MoveResult`). Returns a
        :class:`MoveResult`."""
        p, n = _points3("positions", positions)
        d, m = _points3("motions", motions)
        if m != n:
            raise ValueError(f"motions: {m} rows, expected {n} like positions")
        g = _per_row("grounded", _np.asarray(grounded, dtype=_np.float64), n)
        r = terrain._native._move(p, d, g, self)  # the options are read from this object's attributes
        return MoveResult(position=r["position"].reshape(n, 3), grounded=r["grounded"] == 1.0,
                          ground_normal=r["ground_normal"].reshape(n, 3), stepped=r["stepped"] == 1.0,
                          contacts=r["contacts"].astype(_np.int64))

    def __repr__(self):
        return f"CharacterController(shape={self.shape!r}, radius={self.radius})"


class World:
    """The endless procedural world around a moving viewer (the CLI's ``landfall world``): terrain
    generated on the fly and kept in a nested level-of-detail cache around ``viewer``, with the
    objects of the cells in it (stones, trees, boulders, houses, halls) and roaming entities that
    walk among them (``objects=True``). Queries answer on the ground that is drawn now, with the
    objects standing on it; proximity is by bounding spheres, as ids: an object's id, or an
    entity's (2**40 and up).

    >>> import landfall
    >>> w = landfall.World(viewer=(0.0, 0.0, 100.0), seed=1)
    >>> w.update((30.0, 0.0, 100.0))        # the viewer moves: cells and their objects follow
    >>> w.step(1 / 60)                       # the entities walk
    >>> objects = w.objects()                # ids, kinds, bounding spheres
    >>> near = w.within([[30.0, 0.0, 0.0]], radius=50.0)[0]   # ids within 50 m of a point
    >>> bool(set(near) <= set(objects["id"]) | set(w.entities()["id"]))
    True
    """

    def __init__(self, viewer=(0.0, 0.0, 100.0), seed=0, objects=True):
        self._native = _NativeWorld(tuple(float(v) for v in viewer), int(seed), bool(objects))

    @property
    def viewer(self):
        """The viewer's position (x, y, z)."""
        return self._native.viewer

    @property
    def kinds(self):
        """The objects' kinds' names, by the index ``objects()["kind"]`` gives."""
        return self._native.kinds

    def update(self, viewer):
        """Moves the viewer to ``viewer`` (x, y, z): the cache follows (a jump beyond its reach
        rebuilds it), the cells that came bring their objects and those that went drop theirs."""
        self._native.update(tuple(float(v) for v in viewer))

    def step(self, dt):
        """Moves the roaming entities by ``dt`` seconds (each walks its range with a character
        controller on the ground and around the objects), in steps of at most 0.5 s; Ctrl-C stops
        it between them."""
        self._native.step(float(dt))

    def height(self, x, y):
        """The height of the drawn ground, or the object standing there (a roof, a boulder), at each
        (x, y): float64 array of the broadcast shape. Beyond the drawn mesh, the far landscape's
        (its coarse level, generated on demand), as ``raycast`` continues there."""
        shape, (x, y) = _flat("height", x, y)
        return self._native._height(x, y).reshape(shape)

    def raycast(self, origins, dirs, max_t=None):
        """First hit of each ray (origins, dirs: arrays (n, 3); ``max_t`` a number, (n) or None) on
        the drawn ground and the objects' shapes: a :class:`RaycastResult`."""
        return _raycast(self._native, origins, dirs, max_t)

    def objects(self):
        """The objects now: a dict of ``id`` (uint64, n), ``kind`` (int64, index into
        :attr:`kinds`), ``center`` (n, 3) and ``radius`` (n) of each bounding sphere, ``height`` (n)
        of each shape (its vertical extent) and ``footprint`` (n, 3: x, y, radius) of the disc on
        the ground that :meth:`paths` go around, unless the agent steps over the object (no taller
        than 0.15 of its radius)."""
        o = self._native._objects()
        return {"id": o["id"], "kind": o["kind"], "center": o["center"].reshape(-1, 3), "radius": o["radius"],
                "height": o["height"], "footprint": o["footprint"].reshape(-1, 3)}

    def entities(self):
        """The roaming entities alive: a dict of ``id`` (uint64, n), ``position`` (n, 3) and
        ``radius``, their bounding spheres' (a number: every entity's)."""
        e = self._native._entities()
        return {"id": e["id"], "position": e["position"].reshape(-1, 3), "radius": e["radius"]}

    def pairs(self):
        """Every pair of objects or entities whose bounding spheres overlap or touch: uint64 array
        (m, 2), each pair once, the lower id first."""
        return self._native._pairs().reshape(-1, 2)

    def paths(self, starts, goals, radius=0.5, max_slope=0.6108652381980153, snap=None):
        """Paths for an agent of ``radius`` (metres, 0.3–30) that climbs at most ``max_slope``
        (radians, 35° by default) from each start to its goal ((n, 2) each, x and y), as
        ``landfall world path`` plans them: around the footprints of the objects held now, but for
        those it steps over, no taller than ``0.15 × radius`` (a planner over the square around each
        pair, its quad-tree levels fitted to the radius), the corners on the ground (its finest
        level, as the CLI writes them; :meth:`height` reads the drawn ground, coarser away from the
        viewer, so the two can differ by metres there). A start or goal inside a footprint grown by the radius, or on
        ground steeper than ``max_slope``, is moved to the nearest point where the agent can
        stand if one is within ``snap`` metres (0: never moved; by default 5 m or two radii, whichever
        is more); ``moved`` says how far. Returns a
        :class:`PathResult`; a path that cannot be found has ``found`` False, NaN length, no
        points and its reason in ``error``. Ctrl-C stops the batch between paths."""
        a, n = _points3("starts", starts, 2)
        b, m = _points3("goals", goals, 2)
        if m != n:
            raise ValueError(f"goals: {m} points, expected {n} like starts")
        radius, max_slope = (_number(k, v) for k, v in (("radius", radius), ("max_slope", max_slope)))
        snap = None if snap is None else _number("snap", snap)
        offsets, points, lengths, moved, errors = self._native._paths(a, b, radius, max_slope, snap)
        points = points.reshape(-1, 3)
        return PathResult(found=_np.isfinite(lengths), length=lengths,
                          points=[points[offsets[k]:offsets[k + 1]] for k in range(n)], moved=moved.reshape(-1, 2),
                          error=errors)

    def within(self, points, radius):
        """The ids of the objects and entities whose bounding spheres meet the sphere of ``radius``
        (a number or (n)) around each point (n, 3), touching included: a list of n uint64 arrays."""
        p, n = _points3("points", points)
        r = _per_row("radius", radius, n)
        offsets, ids = self._native._within(p, r)
        return [ids[offsets[k]:offsets[k + 1]] for k in range(n)]

    def __repr__(self):
        x, y, z = self.viewer
        return f"World(viewer=({x:g}, {y:g}, {z:g}))"


def _raycast(native, origins, dirs, max_t):
    """A batch of rays through ``native._raycast``, shaped as a :class:`RaycastResult`."""
    o, n = _points3("origins", origins)
    d, m = _points3("dirs", dirs)
    if m != n:
        raise ValueError(f"dirs: {m} rays, expected {n} like origins")
    mt = _per_row("max_t", _np.inf if max_t is None else max_t, n)
    r = native._raycast(o, d, mt)
    return RaycastResult(r["hit"] == 1.0, r["t"], r["point"].reshape(n, 3), r["normal"].reshape(n, 3))


def _from_value(v):
    return Heightfield.from_array(v["heights"], spacing=v["spacing"], origin=v["origin"], diagonal=v["diagonal"],
                                  geographic=v.get("geographic", False))


def _per_row(name, v, n):
    """A number or n numbers as a contiguous float64 array (n)."""
    try:
        return _contiguous(_np.broadcast_to(_np.asarray(v, dtype=_np.float64), (n,)))
    except ValueError:
        raise ValueError(f"{name}: expected a number or {n} values") from None


def _number(name, v):
    """One number as a float, or a ValueError naming ``name``."""
    try:
        return float(v)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a number, got {v!r}") from None


def _optional(name, v):
    """None, or one number as a float (a ValueError naming ``name`` otherwise)."""
    return None if v is None else _number(name, v)


def _pair(name, v):
    if _np.isscalar(v):
        v = (v, v)
    try:
        if len(v) != 2:
            raise ValueError
        a, b = (float(v[0]), float(v[1]))
    except (TypeError, IndexError, ValueError):
        raise ValueError(f"{name}: expected a number or a pair of numbers, got {v!r}") from None
    return (a, b)


def _even(name, c):
    """The step of an axis's coordinates, by the rule of the CLI's ``.npz`` reader: the mean step
    from end to end; steps more than 5 % off it (beyond f32 rounding of the coordinates) are an
    error, more than 0.1 % a warning."""
    if not _np.all(_np.isfinite(c)):
        raise ValueError(f"da: coordinate {name} must be finite")
    step = float(c[-1] - c[0]) / (c.size - 1)
    d = _np.diff(c)
    if step == 0 or not _np.all(d * _np.sign(step) > 0):
        raise ValueError(f"da: coordinate {name} must increase or decrease steadily along the axis")
    worst = float(_np.abs(d - step).max())
    rounding = 8.0 * float(_np.finfo(_np.float32).eps) * float(_np.abs(c).max())
    off = f"steps differ from the mean {abs(step):.6g} by up to {100.0 * worst / abs(step):.2f}%"
    if worst > 0.05 * abs(step) + rounding:
        raise ValueError(f"da: coordinate {name} is not evenly spaced: {off} (a raster is a regular grid; "
                         "resample it first, e.g. with xarray's interp)")
    if worst > 1e-3 * abs(step) + rounding:
        _warnings.warn(f"da: coordinate {name} is not evenly spaced ({off}); the mean is used", stacklevel=3)
    return step


def open(path, spacing=None, origin=None, z_scale=1.0, z_offset=0.0, diagonal="alternating", gravity=None,
         max_samples=None):
    """Opens any terrain file the CLI reads, with the CLI's meaning of each option: ``spacing`` a
    number or ``(dx, dy)``, ``origin`` ``(x, y)`` of the south-west sample, heights ``v·z_scale +
    z_offset``, ``diagonal`` ``"alternating"``, ``"sw-ne"`` or ``"se-nw"``, ``gravity``
    ``(gx, gy, gz)``, ``max_samples`` the largest raster read (``--max-samples``; default 2²⁹).
    Rasters give a :class:`Heightfield`, meshes and index files a :class:`Terrain`. The cautions the
    CLI notes on opening (units that disagree, uneven coordinates, a glTF's axes, polygons
    skipped) are raised as warnings (``UserWarning``) naming the file; every note, the
    georeferencing used too, is in ``info()["notes"]``."""
    sp = None if spacing is None else _pair("spacing", spacing)
    org = None if origin is None else _pair("origin", origin)
    g = None if gravity is None else tuple(float(v) for v in gravity)
    if g is not None and len(g) != 3:
        raise ValueError(f"gravity: expected (gx, gy, gz), got {gravity!r}")
    path = _os.fspath(path)
    if max_samples is not None and (not isinstance(max_samples, (int, _np.integer)) or max_samples < 1):
        raise ValueError(f"max_samples: expected a whole number ≥ 1, got {max_samples!r}")
    native = _open(path, sp, org, float(z_scale), float(z_offset), str(diagonal), g,
                   None if max_samples is None else int(max_samples))
    options = {"spacing": sp, "origin": org, "z_scale": z_scale, "z_offset": z_offset, "diagonal": diagonal, "gravity": g}
    for note in native.warnings:
        _warnings.warn(f"{path}: {note}", stacklevel=2)
    cls = Heightfield if isinstance(native, _NativeHeightfield) else Terrain
    return cls(native, path=path, options=options)
