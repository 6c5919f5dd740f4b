"""Type stubs of landfall.dask."""

from os import PathLike
from typing import Any, Union

from . import RaycastResult, Terrain

TerrainLike = Union[str, PathLike, Terrain]

def height(path_or_terrain: TerrainLike, x: Any, y: Any, **open_options: Any) -> Any:
    """Terrain.height over Dask arrays."""

def raycast(path_or_terrain: TerrainLike, origins: Any, dirs: Any, max_t: Any = None, **open_options: Any) -> RaycastResult:
    """Terrain.raycast over Dask arrays of rays (n, 3)."""

def visible(path_or_terrain: TerrainLike, a: Any, b: Any, **open_options: Any) -> Any:
    """Terrain.visible over Dask arrays of point pairs (n, 3)."""
