"""A height profile along a track over a real DEM: the GeoTIFF read with rioxarray, the heights
from landfall (exact, on the DEM's triangles), the picture with matplotlib.

    pip install ./crates/landfall-py rioxarray matplotlib
    python crates/landfall-py/examples/profile.py      # → python-profile.png in the working directory

The DEM is `data/topobathy.npz` (the Strait of Georgia, degrees and metres), written once as a
GeoTIFF (`topobathy.tif`, in the working directory too) so that the example reads a GeoTIFF as a
GIS user would. `docs/python-profile.png` is its picture.
"""

import pathlib

import numpy as np

import landfall

root = pathlib.Path(__file__).resolve().parents[3]
tif = pathlib.Path("topobathy.tif")
out = pathlib.Path("python-profile.png")

import rioxarray  # noqa: E402  (after the docstring's instructions)
import xarray as xr  # noqa: E402

if not tif.exists():
    z = np.load(root / "data" / "topobathy.npz")
    lat, lon = z["latitude"], z["longitude"]
    name = [k for k in z.files if k not in ("latitude", "longitude")][0]
    # Even coordinates (the file's steps vary by 2 %; landfall uses the mean step too).
    y = np.linspace(lat[0], lat[-1], lat.size)
    x = np.linspace(lon[0], lon[-1], lon.size)
    da = xr.DataArray(z[name].astype("float32"), dims=("y", "x"), coords={"y": y, "x": x})
    da = da.isel(y=slice(None, None, -1))  # north-up, as GIS writes rasters
    da.rio.write_crs("EPSG:4326").rio.to_raster(tif)

dem = rioxarray.open_rasterio(tif).squeeze("band", drop=True)
t = landfall.Heightfield.from_xarray(dem)

# A track from Vancouver Island across the strait to the Coast Mountains.
n = 2000
lon = np.linspace(235.3, 237.6, n)
lat = np.linspace(48.6, 49.7, n)
h = t.height(lon, lat)

# The same numbers as the file opened directly (and as `landfall height` on it).
assert np.array_equal(h, landfall.open(tif).height(lon, lat), equal_nan=True)

# Distance along the track in km (degrees → km on the sphere, good enough for a picture).
k = np.cos(np.radians(lat.mean()))
d = np.r_[0, np.cumsum(np.hypot(np.diff(lon) * k, np.diff(lat)))] * 111.2

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots(figsize=(9, 3.6), dpi=110)
ax.fill_between(d, h, np.nanmin(h) - 100, where=h >= 0, color="#8a7a5a", lw=0)
ax.fill_between(d, h, np.nanmin(h) - 100, where=h < 0, color="#6b8fb3", lw=0)
ax.fill_between(d, 0, h, where=h < 0, color="#bcd4ea", lw=0)
ax.plot(d, h, color="black", lw=0.8)
ax.axhline(0, color="#4a78a8", lw=0.6)
ax.set_xlim(0, d[-1])
ax.set_xlabel("distance along the track (km)")
ax.set_ylabel("height (m)")
ax.set_title("Vancouver Island → Strait of Georgia → Coast Mountains (landfall, exact on the DEM's triangles)")
fig.tight_layout()
fig.savefig(out)
print(f"{n} heights, {np.nanmin(h):.0f} … {np.nanmax(h):.0f} m → {out}")
