//! What each fuzz target does with its input, shared by the `cargo fuzz` targets (`fuzz/`) and by
//! the stable-Rust test that replays their corpora (`tests/fuzz_corpus.rs`). Every function must
//! return (an error is fine) and never panic, hang or allocate without bound.

#![allow(dead_code)]

use landfall::glam::DVec3;
use landfall::{Heightfield, PolygonTerrain, Ray, Terrain};
use std::path::{Path, PathBuf};

/// The scratch directory of this process and thread (tmpfs where there is one).
pub fn scratch() -> PathBuf {
    let base = if Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() };
    let thread = format!("{:?}", std::thread::current().id()).replace(|c: char| !c.is_ascii_alphanumeric(), "");
    base.join(format!("landfall-fuzz-{}-{thread}", std::process::id()))
}

/// A file named `name` holding `data` in the [`scratch`] directory.
fn file(name: &str, data: &[u8]) -> PathBuf {
    let dir = scratch();
    let _ = std::fs::create_dir_all(&dir);
    let p = dir.join(name);
    std::fs::write(&p, data).expect("write the fuzz input");
    p
}

/// Small limits, so that a declared size cannot make a fuzz run allocate gigabytes.
fn limits() -> landfall_io::Limits {
    landfall_io::Limits { max_samples: 1 << 20 }
}

/// A few queries on whatever loaded: they must answer or miss, never panic.
fn probe(t: &dyn Terrain, data: &[u8]) {
    let b = t.bounds();
    let mid = (b.min + b.max) * 0.5;
    let seed = data.iter().fold(0u64, |a, &x| a.wrapping_mul(31).wrapping_add(x as u64));
    let mut rng = landfall::support::SplitMix64::new(seed);
    for _ in 0..8 {
        let lerp = |a: f64, c: f64, f: f64| if a.is_finite() && c.is_finite() { a + (c - a) * f } else { f };
        let p = DVec3::new(
            lerp(b.min.x, b.max.x, rng.uniform()),
            lerp(b.min.y, b.max.y, rng.uniform()),
            lerp(b.min.z, b.max.z, rng.uniform()),
        );
        let _ = t.top_surface(p);
        let _ = t.floor_below(p);
        let dir = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 0.1));
        let _ = t.raycast(&Ray::new(p, dir), f64::INFINITY);
        let _ = t.raycast(&Ray::new(p, mid - p), 1.0);
    }
}

/// A raster file with extension `ext`.
pub fn raster(ext: &str, data: &[u8]) {
    let p = file(&format!("in.{ext}"), data);
    let opts = landfall_io::LoadOptions { limits: limits(), ..Default::default() };
    if let Ok(l) = landfall_io::load_heightfield(&p, &opts) {
        probe(&l.heightfield, data);
    }
}

/// A mesh file with extension `ext` (`obj`, `gltf`, `glb`); an external buffer `b.bin` holds the
/// same bytes.
pub fn mesh(ext: &str, data: &[u8]) {
    let p = file(&format!("in.{ext}"), data);
    file("b.bin", data);
    if let Ok(soup) = landfall_io::read_mesh(&p) {
        if soup.len() <= 10_000 {
            if let Ok(t) = PolygonTerrain::from_soup(&soup, landfall::Frame::z_up(), Default::default()) {
                probe(&t, data);
            }
        }
    }
}

/// A polygon index file: checked open, and the unchecked open's queries (wrong answers at worst).
pub fn index(data: &[u8]) {
    let p = file("in.lfq", data);
    if let Ok(t) = landfall_io::open_index_verified(&p) {
        probe(&t, data);
    }
    if let Ok(t) = landfall_io::open_index(&p) {
        probe(&t, data);
    }
}

/// A heightfield index file (`.lfh`): the checked open (CRS included), then queries, and a tile
/// view's sweeps over it.
pub fn hf_index(data: &[u8]) {
    let p = file("in.lfh", data);
    if let Ok((hf, _crs)) = landfall_io::open_heightfield_index_with_crs(&p) {
        probe(&hf, data);
        let hf = std::sync::Arc::new(hf);
        let params = landfall::collide::TileViewParams::default().with_tile_cells(16);
        if let Ok(mut view) = landfall::collide::TileView::new(hf.clone(), params) {
            let b = hf.bounds();
            let mid = (b.min + b.max) * 0.5;
            view.update(mid.truncate(), 40.0);
            let _ = landfall::collide::SweepTarget::sweep(&view, mid + DVec3::Z * 10.0, 0.5, DVec3::NEG_Z * 100.0);
        }
    }
}

/// A CSV batch of points (`x,y[,z]`), rays (`ox,oy,oz,dx,dy,dz[,max_t]`) or spheres
/// (`id,x,y,z,radius`), as `height`, `raycast` and `proximity` read it; the first byte picks which.
pub fn csv(data: &[u8]) {
    let Some((&kind, rest)) = data.split_first() else { return };
    let p = file("in.csv", rest);
    let what = [landfall_io::Batch::Points, landfall_io::Batch::Rays, landfall_io::Batch::Spheres][kind as usize % 3];
    if let Ok(mut r) = landfall_io::BatchReader::open(&p, what) {
        let mut rows = Vec::new();
        let mut grid = landfall::broad::ProximityGrid::new(1.0).unwrap();
        while let Ok(n) = r.next_chunk(&mut rows, 64) {
            if n == 0 {
                break;
            }
            for (k, q) in rows.iter().enumerate() {
                if let landfall_io::Query::Sphere { center, radius, .. } = *q {
                    let _ = grid.insert(k as u64 + grid.len() as u64 * 64, center, radius);
                }
            }
        }
        grid.pairs(|_, _| {});
    }
}

/// f64 values from bytes, 8 at a time (any bit pattern: NaN, infinities, subnormals, 1e308).
fn numbers(data: &[u8]) -> Vec<f64> {
    data.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect()
}

/// The heightfield builder fed arbitrary numbers: size, spacing, origin, heights, then queries.
pub fn heightfield(data: &[u8]) {
    let Some((head, rest)) = data.split_at_checked(6) else { return };
    let (nx, ny) = (head[0] as usize % 40, head[1] as usize % 40);
    let v = numbers(rest);
    let get = |k: usize| v.get(k).copied().unwrap_or(1.0);
    let heights: Vec<f32> = (0..nx * ny).map(|k| get(4 + k) as f32).collect();
    let diagonal = [landfall::Diagonal::Alternating, landfall::Diagonal::SouthWestNorthEast][head[2] as usize % 2];
    let b = Heightfield::builder(nx, ny, heights)
        .spacing(get(0), get(1))
        .origin(get(2), get(3))
        .diagonal(diagonal)
        .leaf_size(1 + head[3] as usize % 9);
    if let Ok(hf) = b.build() {
        probe(&hf, data);
        let k = 4 + nx * ny;
        let p = DVec3::new(get(k), get(k + 1), get(k + 2));
        let d = DVec3::new(get(k + 3), get(k + 4), get(k + 5));
        let _ = hf.height_at(p.x, p.y);
        let _ = hf.raycast(&Ray::new(p, d), get(k + 6));
        let mut n = 0;
        hf.triangles_in(&landfall::Aabb::new(p, p + d.abs()), &mut |_, _| n += 1);
    }
}

/// The polygon builder fed arbitrary numbers: polygons of 3–6 vertices, a gravity, then queries.
pub fn polygons(data: &[u8]) {
    let Some((head, rest)) = data.split_at_checked(4) else { return };
    let v = numbers(rest);
    let gravity = DVec3::new(
        v.first().copied().unwrap_or(0.0),
        v.get(1).copied().unwrap_or(0.0),
        v.get(2).copied().unwrap_or(-1.0),
    );
    let Ok(frame) = landfall::Frame::from_gravity(gravity) else { return };
    let n = 3 + head[0] as usize % 4;
    let polys: Vec<Vec<DVec3>> = v
        .get(3..)
        .unwrap_or(&[])
        .chunks_exact(3 * n)
        .take(200)
        .map(|c| c.chunks_exact(3).map(|p| DVec3::new(p[0], p[1], p[2])).collect())
        .collect();
    let params = landfall::QuadtreeParams::default()
        .with_max_polys(1 + head[1] as usize % 8)
        .with_max_depth(head[2] as usize % 12);
    if let Ok(mut t) = PolygonTerrain::builder().polygons(&polys).frame(frame).params(params).build() {
        probe(&t, data);
        if let Some(p) = polys.first() {
            if let Ok(id) = t.insert_polygon(p) {
                let _ = t.remove_polygon(id);
            }
        }
    }
}

/// The event simulations fed hostile inputs (issue 70): the first byte picks the model. Balls on a
/// line: a CSV of balls (`x,v,r,m`) after 16 bytes of walls and end time (any f64 bit patterns);
/// balls over a small heightfield: heights, restitution, rest speed, end time and the balls' state
/// from numbers. Each run must end (a bound of events, the minimum-interval rule), never panic.
pub fn events(data: &[u8]) {
    use landfall::events::{Ball, BallParams, LineBalls, Simulation, TerrainBalls};
    let Some((&kind, rest)) = data.split_first() else { return };
    // Each run's bound of events. A line event costs a few predictions in closed form; a terrain
    // ball's costs ~60 sweeps of conservative advancement (~1 ms under AddressSanitizer), so its
    // bound is lower: 20,000 elastic bounces took 17–35 s, past the fuzzer's 10 s per input.
    const MAX_EVENTS: u64 = 20_000;
    const MAX_TERRAIN_EVENTS: u64 = 2_000;
    if kind % 2 == 0 {
        let Some((head, csv)) = rest.split_at_checked(24) else { return };
        let v = numbers(head);
        let p = file("balls.csv", csv);
        let Ok(mut r) = landfall_io::BatchReader::open(&p, landfall_io::Batch::LineBalls) else { return };
        let (mut balls, mut rows) = (Vec::new(), Vec::new());
        while let Ok(n) = r.next_chunk(&mut rows, 64) {
            if n == 0 || balls.len() > 256 {
                break;
            }
            for q in &rows {
                if let landfall_io::Query::LineBall { x, v, r, m } = *q {
                    balls.push(landfall::events::LineBall { x, v, r, m });
                }
            }
        }
        let Ok(model) = LineBalls::new(&balls, v[0], v[1]) else { return };
        let mut sim = Simulation::new(model, 0.0).with_max_events(MAX_EVENTS);
        let until = if v[2].is_nan() { 1.0 } else { v[2] };
        while let Some(e) = sim.step(until) {
            assert!(e.time.is_finite() || sim.model().overflowed(), "an event at time {}", e.time);
        }
        assert!(sim.fired() <= MAX_EVENTS);
    } else {
        let v = numbers(rest);
        if v.len() < 16 + 4 {
            return;
        }
        let heights: Vec<f32> =
            v[..16].iter().map(|&h| if h.is_finite() { (h % 1e3) as f32 } else { f32::NAN }).collect();
        let Ok(hf) = Heightfield::builder(4, 4, heights).build() else { return };
        let clamp = |x: f64, lo: f64, hi: f64| if x.is_finite() { x.clamp(lo, hi) } else { lo };
        let params = BallParams::default().with_restitution(clamp(v[16], 0.0, 1.0)).with_rest_speed(clamp(
            v[17].abs(),
            0.0,
            1e3,
        ));
        let until = clamp(v[18], 0.0, f64::MAX);
        let balls: Vec<Ball> = v[19..]
            .chunks_exact(4)
            .take(32)
            .map(|c| Ball {
                p: DVec3::new(clamp(c[0], 0.0, 3.0), clamp(c[1], 0.0, 3.0), 1e3 + clamp(c[2], 0.0, 10.0)),
                v: DVec3::new(clamp(c[3], -10.0, 10.0), 0.0, 0.0),
                r: 0.05,
                m: 1.0,
            })
            .collect();
        let Ok(model) = TerrainBalls::new(&hf, vec![], &balls, params) else { return };
        let mut sim = Simulation::new(model, 0.0).with_max_events(MAX_TERRAIN_EVENTS);
        sim.advance_to(until, |_, _| {});
        assert!(sim.fired() <= MAX_TERRAIN_EVENTS);
    }
}
