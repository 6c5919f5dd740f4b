"""Type stubs of the landfall package."""

from os import PathLike
from typing import Any, Literal, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

ArrayLike = npt.ArrayLike
Pair = Union[float, Tuple[float, float], Sequence[float]]
Diagonal = Literal["alternating", "sw-ne", "se-nw"]

__version__: str

class RaycastResult:
    """First hits of a batch of rays; NaN where a ray missed."""

    hit: npt.NDArray[np.bool_]
    t: npt.NDArray[np.float64]
    point: npt.NDArray[np.float64]
    normal: npt.NDArray[np.float64]
    def __init__(self, hit: Any, t: Any, point: Any, normal: Any) -> None: ...

class SweepResult:
    """First contacts of swept spheres; NaN where a sphere moves freely."""

    hit: npt.NDArray[np.bool_]
    t: npt.NDArray[np.float64]
    point: npt.NDArray[np.float64]
    normal: npt.NDArray[np.float64]
    center: npt.NDArray[np.float64]

class Placement:
    """Bodies set on the ground; NaN where refused (``reason`` says why)."""

    ok: npt.NDArray[np.bool_]
    reason: npt.NDArray[np.object_]
    position: npt.NDArray[np.float64]
    up: npt.NDArray[np.float64]
    forward: npt.NDArray[np.float64]
    rotation: npt.NDArray[np.float64]
    pitch: npt.NDArray[np.float64]
    roll: npt.NDArray[np.float64]
    slope: npt.NDArray[np.float64]

class MoveResult:
    """One move of a batch of characters."""

    position: npt.NDArray[np.float64]
    grounded: npt.NDArray[np.bool_]
    ground_normal: npt.NDArray[np.float64]
    stepped: npt.NDArray[np.bool_]
    contacts: npt.NDArray[np.int64]

class Terrain:
    """A terrain; its queries take and return numpy arrays."""

    path: Optional[str]
    edited: bool
    def height(self, x: ArrayLike, y: ArrayLike) -> npt.NDArray[np.float64]:
        """Topmost surface height at each (x, y), NaN where there is none."""
    def surface(
        self, x: ArrayLike, y: ArrayLike, z: Optional[ArrayLike] = None
    ) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Surface points and upward normals (..., 3); with z, the floor below (x, y, z)."""
    def raycast(
        self, origins: ArrayLike, dirs: ArrayLike, max_t: Union[None, float, ArrayLike] = None
    ) -> RaycastResult:
        """First crossing of each ray with the terrain, from either side."""
    def visible(self, a: ArrayLike, b: ArrayLike) -> npt.NDArray[np.bool_]:
        """True where the segment a→b crosses no terrain strictly between its ends."""
    def floor(
        self, x: ArrayLike, y: ArrayLike, z: ArrayLike
    ) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The nearest surface at or below each point along gravity (points, normals)."""
    def ceiling(
        self, x: ArrayLike, y: ArrayLike, z: ArrayLike
    ) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The nearest surface at or above each point against gravity (points, normals)."""
    def contains(self, x: ArrayLike, y: ArrayLike, z: ArrayLike) -> npt.NDArray[np.bool_]:
        """True where a point has a floor below and a ceiling above (QOTA's locale test)."""
    def to_enu(self, points: ArrayLike) -> npt.NDArray[np.float64]:
        """A raster in degrees: (lon, lat, h) points → its east-north-up frame, metres."""
    def to_geodetic(self, points: ArrayLike) -> npt.NDArray[np.float64]:
        """A raster in degrees: points of its east-north-up frame → (lon, lat, h)."""
    def is_lit(self, points: ArrayLike, to_light: ArrayLike, bias: float = 1e-6) -> npt.NDArray[np.bool_]:
        """True where the ray from each point toward the light meets no terrain past `bias`."""
    def sweep(self, centers: ArrayLike, radius: Union[float, ArrayLike], motions: ArrayLike) -> SweepResult:
        """Where spheres moving from `centers` by `motions` first touch the terrain."""
    def place(
        self,
        x: ArrayLike,
        y: ArrayLike,
        heading: ArrayLike = 0.0,
        z: Optional[ArrayLike] = None,
        length: float = 4.0,
        width: float = 2.0,
        contacts: Literal["three", "four"] = "three",
        max_slope: float = 0.6108652381980153,
        probe_up: float = 1.0,
    ) -> Placement:
        """Sets bodies of a footprint on the ground (terrain following)."""
    def insert_polygon(self, vertices: ArrayLike) -> int:
        """Adds a polygon to a polygon terrain; its id."""
    def remove_polygon(self, polygon_id: int) -> int:
        """Removes a polygon from a polygon terrain; how many faces it had."""
    def info(self) -> dict:
        """What `landfall info` says, as a dict. Heightfields also say whether they are `mapped`
        (an index file, used in place) and their `crs` ("EPSG:n" from the file's GeoKeys, else
        None)."""

class Heightfield(Terrain):
    """A heightfield: a raster's samples, two triangles a cell."""

    @staticmethod
    def from_array(
        heights: ArrayLike,
        spacing: Pair = (1.0, 1.0),
        origin: Pair = (0.0, 0.0),
        diagonal: Diagonal = "alternating",
        geographic: bool = False,
    ) -> "Heightfield":
        """From a 2-D array laid out as a raster (first row north); NaN = hole; geographic: lon, lat
        in degrees on the WGS84 ellipsoid."""
    @staticmethod
    def from_xarray(da: Any, diagonal: Diagonal = "alternating") -> "Heightfield":
        """From an xarray DataArray with x and y coordinates; nodata becomes holes."""
    def heights(self) -> npt.NDArray[np.float64]:
        """The samples in raster order (first row north)."""
    def viewshed(
        self,
        x: float,
        y: float,
        observer_height: float = 1.75,
        target_height: float = 0.0,
        max_distance: Optional[float] = None,
        curvature: bool = False,
        refraction: float = 1.0 / 7.0,
        start_angle: Optional[float] = None,
        end_angle: Optional[float] = None,
        low_pitch: Optional[float] = None,
        high_pitch: Optional[float] = None,
        mode: Literal["visible", "ground", "dem"] = "visible",
    ) -> Any:
        """The exact viewshed from (x, y): uint8 1/0/255, or least visible heights (NaN nodata)."""
    def cumulative_viewshed(
        self,
        observers: ArrayLike,
        observer_height: float = 1.75,
        target_height: float = 0.0,
        max_distance: Optional[float] = None,
        curvature: bool = False,
        refraction: float = 1.0 / 7.0,
        start_angle: Optional[float] = None,
        end_angle: Optional[float] = None,
        low_pitch: Optional[float] = None,
        high_pitch: Optional[float] = None,
    ) -> npt.NDArray[np.float64]:
        """How many observers ((n, 2) or (n, 3)) see each sample (raster order), NaN for no target."""
    def set_heights(self, values: ArrayLike, row: int = 0, col: int = 0) -> None:
        """Overwrites a block of samples (raster order) at raster row `row`, column `col`."""

class PathResult:
    """Paths of a batch: found, horizontal length (NaN where none), corners, error."""

    found: npt.NDArray[np.bool_]
    length: npt.NDArray[np.float64]
    points: list[npt.NDArray[np.float64]]
    error: list[Optional[str]]

class CharacterController:
    """A kinematic character controller on the exact swept shape."""

    def __init__(
        self,
        shape: Literal["sphere", "capsule", "ellipsoid"] = "sphere",
        radius: float = 0.5,
        half_height: float = 0.0,
        radii: Optional[Tuple[float, float, float]] = None,
        skin: float = 0.01,
        max_climb: float = 0.7853981633974483,
        min_slide: float = 0.5235987755982988,
        step_height: float = 0.3,
        snap: float = 0.3,
        max_iterations: int = 6,
    ) -> None: ...
    def move(
        self, terrain: Terrain, positions: ArrayLike, motions: ArrayLike, grounded: Union[bool, ArrayLike] = False
    ) -> MoveResult:
        """One frame for a crowd of characters."""

class World:
    """The endless procedural world around a moving viewer, with its objects and roaming entities."""

    def __init__(self, viewer: Tuple[float, float, float] = (0.0, 0.0, 100.0), seed: int = 0, objects: bool = True) -> None: ...
    @property
    def viewer(self) -> Tuple[float, float, float]: ...
    @property
    def kinds(self) -> list[str]: ...
    def update(self, viewer: Tuple[float, float, float]) -> None:
        """Moves the viewer; cells and their objects follow."""
    def step(self, dt: float) -> None:
        """Moves the roaming entities by dt seconds."""
    def height(self, x: ArrayLike, y: ArrayLike) -> npt.NDArray[np.float64]:
        """Height of the drawn ground or the object standing there; beyond it, the far landscape's."""
    def raycast(self, origins: ArrayLike, dirs: ArrayLike, max_t: Optional[ArrayLike] = None) -> RaycastResult:
        """First hits on the drawn ground and the objects."""
    def objects(self) -> dict[str, npt.NDArray[Any]]:
        """id, kind, center (n, 3), radius of each object's bounding sphere."""
    def entities(self) -> dict[str, npt.NDArray[Any]]:
        """id and position (n, 3) of each roaming entity alive."""
    def pairs(self) -> npt.NDArray[np.uint64]:
        """(m, 2) ids of the overlapping or touching bounding spheres, lower first."""
    def paths(
        self,
        starts: ArrayLike,
        goals: ArrayLike,
        radius: float = 0.5,
        max_slope: float = 0.6108652381980153,
        snap: Optional[float] = None,
    ) -> PathResult:
        """Paths around the objects held now for an agent of radius, start to goal ((n, 2) each)."""
    def within(self, points: ArrayLike, radius: ArrayLike) -> list[npt.NDArray[np.uint64]]:
        """The ids whose bounding spheres meet the sphere of radius around each point."""

def open(
    path: Union[str, PathLike],
    spacing: Optional[Pair] = None,
    origin: Optional[Pair] = None,
    z_scale: float = 1.0,
    z_offset: float = 0.0,
    diagonal: Diagonal = "alternating",
    gravity: Optional[Tuple[float, float, float]] = None,
) -> Terrain:
    """Opens any terrain file the CLI reads (a raster gives a Heightfield)."""
