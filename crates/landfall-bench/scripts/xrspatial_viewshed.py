"""xarray-spatial's viewshed as a peer of the viewshed benchmark (benches/viewshed.rs).

    python xrspatial_viewshed.py DEM.f32 NX NY X0 Y0 DX DY OX OY OBSERVER_ELEV OUT.u8

DEM.f32: NX × NY little-endian float32 samples in landfall's order (row 0 south), sample (i, j) at
(X0 + i·DX, Y0 + j·DY). The DataArray gets those positions as its x and y coordinates (y ascending,
so the array's rows are landfall's rows). xarray-spatial puts the eye on the sample nearest to
(OX, OY), OBSERVER_ELEV above that sample's height, and targets on the samples (target_elev 0),
which is landfall's observer standing on a sample. Its answer is -1 for a hidden sample, else the
vertical angle; OUT.u8 gets 1 visible, 0 hidden, in the same order.

Prints one JSON line: the seconds of the viewshed call alone. Not timed: the imports, reading the
DEM, and numba's compilation (a 64 × 64 viewshed runs first).
"""

import json
import sys
import time

import numpy as np
import xarray as xr
import xrspatial


def grid(z, x0, y0, dx, dy):
    ny, nx = z.shape
    return xr.DataArray(z, dims=("y", "x"), coords={"y": y0 + dy * np.arange(ny), "x": x0 + dx * np.arange(nx)})


def main():
    dem, nx, ny, x0, y0, dx, dy, ox, oy, elev, out = sys.argv[1:]
    nx, ny = int(nx), int(ny)
    x0, y0, dx, dy, ox, oy, elev = map(float, (x0, y0, dx, dy, ox, oy, elev))
    warm = np.random.default_rng(1).uniform(0, 10, (64, 64))
    xrspatial.viewshed(grid(warm, 0.0, 0.0, 1.0, 1.0), 31.0, 31.0, observer_elev=1.0)
    z = np.fromfile(dem, dtype="<f4").reshape(ny, nx).astype(np.float64)
    raster = grid(z, x0, y0, dx, dy)
    start = time.perf_counter()
    v = xrspatial.viewshed(raster, ox, oy, observer_elev=elev, target_elev=0.0)
    seconds = time.perf_counter() - start
    (np.asarray(v.values) != -1).astype(np.uint8).tofile(out)
    print(json.dumps({"seconds": seconds, "version": getattr(xrspatial, "__version__", "?")}))


if __name__ == "__main__":
    main()
