"""Rays per second through Python: landfall beside trimesh's ray API (with embreex when installed,
and its pure-numpy intersector) and Open3D's RaycastingScene, on the same terrain and the same
rays, in one run; and the per-call overhead for one ray and for a million.

    pip install ./crates/landfall-py trimesh embreex rtree open3d   # the peers are optional
    python crates/landfall-py/bench/rays.py [N]                      # N × N samples, default 1025

A peer that is not installed is skipped with a message. Every peer's hits are compared with
landfall's (share of rays on which hit/miss differs, largest distance between hit points).
"""

import sys
import time

import numpy as np

import landfall


def terrain(n, seed=1):
    """Smooth random heights (sums of sines), 1 m spacing, 150 m of relief."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:n, 0:n].astype(np.float64)
    h = np.zeros((n, n))
    for k in range(6):
        f = 2 ** k / n * 2 * np.pi
        a, b, p = rng.uniform(-1, 1, 3)
        h += 60 / 2 ** k * np.sin(f * (a * x + b * y) + 6 * p)
    return h


def triangles(h):
    """The heightfield's own triangles (alternating diagonals, row 0 north as in the array)."""
    n = h.shape[0]
    ny = n
    j, i = np.mgrid[0 : n - 1, 0 : n - 1]
    # World position of array element (r, c): x = c, y = (ny - 1 - r).
    vid = lambda r, c: r * n + c
    verts = np.c_[np.tile(np.arange(n), n), np.repeat(ny - 1 - np.arange(n), n), h.reshape(-1)].astype(np.float64)
    # Cell (ci, cj) with cj counted from the south: array rows r = ny-1-cj (south) and r-1 (north).
    ci, cj = i.reshape(-1), j.reshape(-1)
    rs, rn = ny - 1 - cj, ny - 2 - cj
    v00, v10, v01, v11 = vid(rs, ci), vid(rs, ci + 1), vid(rn, ci), vid(rn, ci + 1)
    anti = (ci + cj) % 2 == 0
    t1 = np.where(anti[:, None], np.c_[v00, v10, v01], np.c_[v00, v10, v11])
    t2 = np.where(anti[:, None], np.c_[v10, v11, v01], np.c_[v00, v11, v01])
    return verts, np.r_[t1, t2]


def rays(n, count, seed=2):
    rng = np.random.default_rng(seed)
    o = np.c_[rng.uniform(0, n - 1, count), rng.uniform(0, n - 1, count), np.full(count, 200.0)]
    d = np.c_[rng.normal(0, 0.6, (count, 2)), -np.ones(count)]
    return o, d / np.linalg.norm(d, axis=1)[:, None]


def best(f, repeat=3):
    t = []
    for _ in range(repeat):
        s = time.perf_counter()
        out = f()
        t.append(time.perf_counter() - s)
    return out, min(t)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1025
    count = 1_000_000
    h = terrain(n)
    hf = landfall.Heightfield.from_array(h, spacing=1.0)
    o, d = rays(n, count)
    ref, t_lf = best(lambda: hf.raycast(o, d))
    one_o, one_d = o[:1].copy(), d[:1].copy()
    _, t_one = best(lambda: [hf.raycast(one_o, one_d) for _ in range(10_000)], repeat=3)
    print(f"terrain {n}×{n} ({2 * (n - 1) ** 2:,} triangles), {count:,} rays, {int(ref.hit.sum()):,} hit")
    print(f"{'':34} {'rays/s':>12} {'time':>9} {'÷ landfall':>11}  agreement")
    print(f"{'landfall':34} {count / t_lf:12,.0f} {t_lf:9.3f} {1.0:11.1f}")
    print(f"{'landfall, one ray per call':34} {10_000 / t_one:12,.0f} {t_one / 10_000 * 1e6:8.2f}µ (per call)")

    def report(name, hit, loc, t, rays_done=count):
        k = rays_done
        differ = np.mean(hit != ref.hit[:k]) * 100
        both = hit & ref.hit[:k]
        dist = np.max(np.linalg.norm(loc[both] - ref.point[:k][both], axis=1)) if both.any() else 0.0
        rate = k / t
        print(f"{name:34} {rate:12,.0f} {t * count / k:9.3f} {count / t_lf / rate:11.1f}  hit/miss differ on {differ:.3f} %, points within {dist:.2g}")

    verts, faces = triangles(h)
    try:
        import trimesh
    except ImportError:
        print("trimesh: not installed (pip install trimesh embreex rtree): skipped")
    else:
        mesh = trimesh.Trimesh(verts, faces, process=False)
        try:
            from trimesh.ray.ray_pyembree import RayMeshIntersector as Embree

            ix = Embree(mesh)
            (idx, loc), t = best(lambda: first_hits(ix, o, d), repeat=2)
            report("trimesh + embreex", idx >= 0, loc, t)
        except ImportError as e:
            print(f"trimesh + embreex: not available ({e}): skipped")
        if len(faces) <= 600_000:
            from trimesh.ray.ray_triangle import RayMeshIntersector as Numpy

            k = 2_000  # the pure-numpy intersector is slow: a sample of the rays
            ix = Numpy(mesh)
            (idx, loc), t = best(lambda: first_hits(ix, o[:k], d[:k]), repeat=1)
            report("trimesh (numpy, 2k rays)", idx >= 0, loc, t, rays_done=k)
        else:
            print("trimesh (numpy): skipped above 600k triangles (its r-tree build alone takes minutes)")
    try:
        import open3d as o3d
    except ImportError as e:
        print(f"open3d: not importable ({e}; pip install open3d, and on Debian apt-get install libusb-1.0-0): skipped")
    else:
        scene = o3d.t.geometry.RaycastingScene()
        scene.add_triangles(o3d.core.Tensor(verts.astype(np.float32)), o3d.core.Tensor(faces.astype(np.uint32)))
        r = o3d.core.Tensor(np.c_[o, d].astype(np.float32))
        out, t = best(lambda: scene.cast_rays(r))
        th = out["t_hit"].numpy().astype(np.float64)
        hit = np.isfinite(th)
        loc = o + d * np.where(hit, th, 0)[:, None]
        report("Open3D RaycastingScene", hit, loc, t)


def first_hits(ix, o, d):
    idx = ix.intersects_first(o, d)
    loc = np.full((len(o), 3), np.nan)
    hit = idx >= 0
    if hit.any():
        tri = ix.mesh.triangles[idx[hit]]
        nrm = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        t = np.einsum("ij,ij->i", tri[:, 0] - o[hit], nrm) / np.einsum("ij,ij->i", d[hit], nrm)
        loc[hit] = o[hit] + d[hit] * t[:, None]
    return idx, loc


if __name__ == "__main__":
    main()
