"""Embree 4 through its Python binding, one ray per call: how Python users call it (trimesh's ray API).

Reads what `cargo run --release -p landfall-bench --example export_peer_data -- <size>` writes
(the generated terrain's triangles and the vertical, oblique and line-of-sight ray sets, with
landfall's answers), builds an `embreex` scene of exactly those triangles, checks that Embree
answers as landfall does, then times `scene.run` called with one ray at a time and prints the
median time per ray over the rounds.

    python3 -m venv target/embreex-venv
    target/embreex-venv/bin/pip install embreex==4.4.0.post1 numpy
    target/embreex-venv/bin/python crates/landfall-bench/scripts/embree_python.py [dir] [terrain] [rounds]

Defaults: `target/peer-data`, `gen4097`, 5 rounds over each set.
"""

import statistics
import sys
import time

import numpy as np
from embreex import rtcore_scene as rtcs
from embreex.mesh_construction import TriangleMesh


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "target/peer-data"
    name = sys.argv[2] if len(sys.argv) > 2 else "gen4097"
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    vertices = np.load(f"{folder}/{name}_vertices.npy")
    indices = np.load(f"{folder}/{name}_indices.npy")
    start = time.perf_counter()
    scene = rtcs.EmbreeScene()
    TriangleMesh(scene, vertices, indices)
    # The scene is committed on the first query.
    scene.run(np.zeros((1, 3), np.float32), np.array([[0, 0, -1]], np.float32), query="DISTANCE")
    print(f"{name}: embreex scene built in {time.perf_counter() - start:.1f} s")
    for ray_set in ["vertical", "oblique", "line_of_sight"]:
        rays = np.load(f"{folder}/{name}_{ray_set}.npy")
        # One ray per call: each ray's arrays are made before the timing, as a caller holding its
        # rays would have them. Embree writes the hit distance into `dists` (max_t, or none for an
        # unbounded ray), so each round gets fresh copies, made before its timing.
        calls = [(r[0:3].astype(np.float32)[None], r[3:6].astype(np.float32)[None]) for r in rays]
        bounds = [np.array([r[6]], np.float32) if np.isfinite(r[6]) else None for r in rays]

        def fresh():
            return [None if m is None else m.copy() for m in bounds]

        t = np.array([scene.run(o, d, dists=m, query="DISTANCE")[0] for (o, d), m in zip(calls, fresh())])
        # Embree reports a miss as its initial distance (max_t, or 1e37 unbounded).
        embree_hit = t < np.minimum(rays[:, 6], 1e30)
        landfall_hit = ~np.isnan(rays[:, 7])
        agree = (embree_hit == landfall_hit) & (
            ~landfall_hit | (np.abs(t - rays[:, 7]) <= 1e-3 * np.maximum(1.0, np.abs(rays[:, 7])))
        )
        times = []
        for _ in range(rounds):
            dists = fresh()
            start = time.perf_counter()
            for (o, d), m in zip(calls, dists):
                scene.run(o, d, dists=m, query="DISTANCE")
            times.append((time.perf_counter() - start) / len(calls))
        print(
            f"{name} {ray_set}: {statistics.median(times) * 1e9:.0f} ns per ray (median of {rounds} rounds, "
            f"{min(times) * 1e9:.0f}-{max(times) * 1e9:.0f}); {int((~agree).sum())} of {len(rays)} rays "
            f"answered differently from landfall, {int(embree_hit.sum())} hits"
        )


if __name__ == "__main__":
    main()
