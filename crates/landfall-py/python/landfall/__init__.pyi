"""Type stubs of the landfall package."""

from os import PathLike
from typing import Any, Literal, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

ArrayLike = npt.ArrayLike
Pair = Union[float, Tuple[float, float], Sequence[float]]
Diagonal = Literal["alternating", "sw-ne", "se-nw"]

class RaycastResult:
    """First hits of a batch of rays; NaN where a ray missed."""

    hit: npt.NDArray[np.bool_]
    t: npt.NDArray[np.float64]
    point: npt.NDArray[np.float64]
    normal: npt.NDArray[np.float64]
    def __init__(self, hit: Any, t: Any, point: Any, normal: Any) -> None: ...

class Terrain:
    """A terrain; its queries take and return numpy arrays."""

    path: Optional[str]
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
    def info(self) -> dict:
        """What `landfall info` says, as a dict."""

class Heightfield(Terrain):
    """A heightfield: a raster's samples, two triangles a cell."""

    @staticmethod
    def from_array(
        heights: ArrayLike, spacing: Pair = (1.0, 1.0), origin: Pair = (0.0, 0.0), diagonal: Diagonal = "alternating"
    ) -> "Heightfield":
        """From a 2-D array laid out as a raster (first row north); NaN = hole."""
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
