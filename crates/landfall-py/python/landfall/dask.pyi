"""Type stubs of landfall.dask."""

from os import PathLike
from typing import Any, Optional, Union

from . import RaycastResult, Terrain

TerrainLike = Union[str, PathLike, Terrain]

def height(path_or_terrain: TerrainLike, x: Any, y: Any, **open_options: Any) -> Any:
    """Terrain.height over Dask arrays."""

def raycast(path_or_terrain: TerrainLike, origins: Any, dirs: Any, max_t: Any = None, **open_options: Any) -> RaycastResult:
    """Terrain.raycast over Dask arrays of rays (n, 3)."""

def visible(path_or_terrain: TerrainLike, a: Any, b: Any, **open_options: Any) -> Any:
    """Terrain.visible over Dask arrays of point pairs (n, 3)."""

def cumulative_viewshed(
    path_or_terrain: TerrainLike,
    observers: Any,
    observers_per_task: int = 32,
    observer_height: float = 1.75,
    target_height: float = 0.0,
    max_distance: Optional[float] = None,
    curvature: bool = False,
    refraction: float = 1.0 / 7.0,
    start_angle: Optional[float] = None,
    end_angle: Optional[float] = None,
    low_pitch: Optional[float] = None,
    high_pitch: Optional[float] = None,
    split_every: int = 8,
    **open_options: Any,
) -> Any:
    """Heightfield.cumulative_viewshed over a Dask cluster: observers split into tasks, counts summed."""
