//! Casts one ray set many times, for a profiler: `cargo run --release -p landfall-bench --example
//! profile_rays -- [oblique|los|vertical|diagonal|up|plain] [size]`. `up` and `plain` guard changes
//! to the walk of rays that start near the ground: `up` leaves the ground 0.5–10° upward from 2 m
//! above it; `plain` crosses 80 % of a gently undulating plain (±1 m, one 800 m peak in a corner so
//! that 2 m counts as near the ground) level at 2 m. Env: `REPS` passes over the set, `HOT=k`
//! the first k rays only (data in cache), `LEAF=n` the pyramid's leaf size, `DUMP=path` writes every
//! hit (t, point, triangle) to a file, to compare two builds ray by ray. Prints the time per ray
//! and a digest of every hit, to check that a change to the walk left the answers bit for bit.

use glam::DVec3;
use landfall::support::workload as sets;
use landfall::Ray;
use landfall_bench::terrains;
use std::f64::consts::TAU;
use std::time::Instant;

/// The golden angle in radians, π (3 − √5).
const GOLDEN_ANGLE: f64 = 2.399_963_229_728_653;

/// The `plain` set's terrain: ±1 m of undulation with one 800 m peak near the south-west corner.
fn plain(n: usize) -> terrains::Terrain {
    let wave = |k: usize, f: f32| (k as f32 * f).sin() * 0.5;
    let mut h: Vec<f32> = (0..n * n).map(|k| wave(k % n, 0.05) + wave(k / n, 0.07)).collect();
    h[n + 1] = 800.0;
    let hf = landfall::Heightfield::builder(n, n, h).build().expect("valid terrain");
    terrains::Terrain { name: format!("plain{n}"), hf }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = args.get(1).map_or("oblique", String::as_str);
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1025);
    let mut t = if kind == "plain" { plain(n) } else { terrains::generated(n) };
    if let Some(l) = std::env::var("LEAF").ok().and_then(|s| s.parse().ok()) {
        t.hf.rebuild_pyramid(l).unwrap();
    }
    let set = match kind {
        "los" => sets::line_of_sight(&t.hf, 4096, 23),
        "vertical" => sets::vertical(&t.hf, 4096, 21),
        "diagonal" => sets::diagonal(&t.hf),
        "up" => {
            let mut rng = landfall::support::SplitMix64::new(24);
            let starts = sets::line_of_sight(&t.hf, 4096, 23);
            let dir = |a: f64, e: f64| DVec3::new(a.cos() * e.cos(), a.sin() * e.cos(), e.sin());
            let up =
                |rng: &mut landfall::support::SplitMix64| dir(rng.range(0.0, TAU), rng.range(0.5, 10.0).to_radians());
            starts.into_iter().map(|(r, _)| (Ray::new(r.origin, up(&mut rng)), f64::INFINITY)).collect()
        }
        "plain" => {
            let c = n as f64 / 2.0;
            let ray = |a: f64| {
                let o = DVec3::new(c - 0.4 * c * a.cos(), c - 0.4 * c * a.sin(), 2.0);
                (Ray::new(o, DVec3::new(a.cos(), a.sin(), 0.0)), 0.8 * c)
            };
            // Azimuths a golden angle apart: evenly spread, none repeated.
            (0..4096).map(|k| ray(k as f64 * GOLDEN_ANGLE)).collect()
        }
        _ => sets::oblique(&t.hf, 4096, 22),
    };
    let hot: usize = std::env::var("HOT").ok().and_then(|s| s.parse().ok()).unwrap_or(set.len());
    let set = &set[..hot.min(set.len())];
    let reps = std::env::var("REPS").ok().and_then(|s| s.parse().ok()).unwrap_or(2_000_000 / set.len());
    let start = Instant::now();
    let mut hits = 0;
    // A digest of every hit (t, point, normal and triangle, bit for bit): a change to the walk that
    // should not change results must leave it unchanged.
    let mut digest = 0u64;
    let id_hash = |id: &landfall::TriangleId| {
        use std::hash::{BuildHasher, BuildHasherDefault};
        BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(id)
    };
    for _ in 0..reps {
        digest = 0;
        for (r, m) in set {
            let h = t.hf.raycast(r, *m);
            hits += usize::from(h.is_some());
            if let Some(h) = h {
                let bits = [h.t, h.point.x, h.point.y, h.point.z, h.normal.x, h.normal.y, h.normal.z];
                for b in bits {
                    digest = (digest ^ b.to_bits()).wrapping_mul(0x100_0000_01b3).rotate_left(7);
                }
                digest ^= id_hash(&h.triangle);
            }
        }
    }
    if let Ok(path) = std::env::var("DUMP") {
        let lines: Vec<String> = set
            .iter()
            .map(|(r, m)| {
                t.hf.raycast(r, *m).map_or("-".into(), |h| format!("{:?} {:?} {:?}", h.t, h.point, h.triangle))
            })
            .collect();
        std::fs::write(path, lines.join("\n")).unwrap();
    }
    let per = start.elapsed().as_secs_f64() / (reps * set.len()) as f64;
    #[cfg(feature = "stats")]
    {
        let c = landfall::support::take_stats();
        let k = (reps * set.len()) as f64;
        println!(
            "per ray: {:.1} node steps, {:.1} leaves walked, {:.1} cells, {:.1} exact cell tests",
            c[0] as f64 / k,
            c[1] as f64 / k,
            c[2] as f64 / k,
            c[3] as f64 / k
        );
    }
    println!(
        "{kind} on {n}²: {:.1} ns per ray, {:.1}% hit, digest {digest:016x}",
        per * 1e9,
        100.0 * hits as f64 / (reps * set.len()) as f64
    );
}
