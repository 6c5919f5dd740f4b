//! Profiling aid: vertical queries with hits on the DEM TIN (`N` triangles, `REPS` passes), or
//! oblique ray casts (`RAYS=1`).
use landfall::{PolygonTerrain, QuadtreeParams};
use landfall_bench::terrains::dem_tin;
use std::time::Instant;
fn main() {
    let n: usize = std::env::var("N").ok().and_then(|s| s.parse().ok()).unwrap_or(13000);
    let reps: usize = std::env::var("REPS").ok().and_then(|s| s.parse().ok()).unwrap_or(200);
    let tin = dem_tin(n);
    let t = PolygonTerrain::builder()
        .triangles(&tin.vertices, &tin.triangles)
        .params(QuadtreeParams::default())
        .build()
        .unwrap();
    // INDEX=path: write the index file (to check that a build change keeps it byte for byte).
    if let Ok(path) = std::env::var("INDEX") {
        landfall_io::write_index(&t, std::path::Path::new(&path)).unwrap();
    }
    if std::env::var("RAYS").is_ok() {
        // NRAYS=k: fewer rays, repeated more often (16: the data they touch stays in cache).
        let nrays: usize = std::env::var("NRAYS").ok().and_then(|s| s.parse().ok()).unwrap_or(4096);
        let rays = tin.oblique_rays(nrays, 43);
        let reps = (reps * 4096 / nrays).max(4);
        let s = Instant::now();
        let mut acc = 0.0;
        for _ in 0..reps / 4 {
            for (r, m) in &rays {
                acc += t.raycast(r, *m).map_or(0.0, |h| h.t);
            }
        }
        let ns = s.elapsed().as_nanos() as f64 / ((reps / 4) * rays.len()) as f64;
        println!("{ns:.1} ns per oblique ray ({acc})");
        return;
    }
    let npts: usize = std::env::var("PTS").ok().and_then(|s| s.parse().ok()).unwrap_or(4096);
    let pts = tin.hit_points(npts, 41);
    let reps = (reps * 4096 / npts).max(1);
    let s = Instant::now();
    let mut acc = 0.0;
    for _ in 0..reps {
        acc += hit_pass(&t, &pts);
    }
    let ns = s.elapsed().as_nanos() as f64 / (reps * pts.len()) as f64;
    println!("{ns:.1} ns per hit query ({acc})");
    // SINGLE=1: only the single queries (for `valgrind --toggle-collect='*hit_pass*'`).
    if std::env::var("SINGLE").is_ok() {
        return;
    }
    let s = Instant::now();
    let mut acc = 0.0;
    for _ in 0..reps {
        acc += t.top_surfaces(&pts).iter().map(|s| s.map_or(0.0, |s| s.point.z)).sum::<f64>();
    }
    let ns = s.elapsed().as_nanos() as f64 / (reps * pts.len()) as f64;
    println!("{ns:.1} ns per hit query in top_surfaces ({acc})");
    let s = Instant::now();
    let mut acc = 0usize;
    for _ in 0..reps {
        for p in &pts {
            let l = *p - t.header().center;
            acc += t.leaf_at(l.x, l.y).map_or(0, |r| r.len() + r.first().copied().unwrap_or(0) as usize);
        }
    }
    let ns = s.elapsed().as_nanos() as f64 / (reps * pts.len()) as f64;
    println!("{ns:.1} ns per leaf lookup ({acc})");
}

/// One pass of single top-surface queries over `pts`, out of line so that a profiler can count
/// exactly its instructions (`--toggle-collect='*hit_pass*'`).
#[inline(never)]
fn hit_pass(t: &PolygonTerrain, pts: &[glam::DVec3]) -> f64 {
    let mut acc = 0.0;
    for p in pts {
        // The whole answer (point, normal, polygon), so that none of it is optimised away.
        acc += std::hint::black_box(t.top_surface(*p)).map_or(0.0, |s| s.point.z);
    }
    acc
}
