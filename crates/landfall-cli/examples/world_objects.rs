//! The figure of the `world::objects` documentation (`docs/world-objects.png`): the procedural world around a viewer standing at
//! the origin, from above (600 m across): the ground shaded by height, the objects of the cells in
//! the cache (stones, trees, boulders, houses, halls in their colours), the dual cells of the owner
//! level (128 m; thin lines) with each roaming entity's range (circle) inside its owner (bold
//! square), and the entities alive (red dots) after a minute of walking.
//!
//! `cargo run --release -p landfall-cli --example world_objects` → `landfall-out/world-objects.png`

use landfall::glam::{DVec2, DVec3};
use landfall::world::{CacheParams, LodTerrain, ObjectParams, Objects, World, WorldParams};
use landfall::world::{Roaming, Shape};
use landfall::Terrain;
use rayon::prelude::*;
use std::path::Path;

const SIDE: u32 = 900;
const HALF: f64 = 300.0;

fn main() -> anyhow::Result<()> {
    let params = WorldParams::default();
    let far = LodTerrain::new(landfall::world::Generator::new(params.clone())?, 4, 16);
    let ground = far.height_at(0.0, 0.0).unwrap_or(0.0);
    let world: World = World::new(params, CacheParams::default(), DVec3::new(0.0, 0.0, ground + 2.0))?;
    let roaming = Roaming::default().with_chance(0.8).with_spawn_chance(1.0);
    let mut objects = Objects::new(&world, ObjectParams::default().with_roaming(Some(roaming.clone())))?;
    for _ in 0..600 {
        objects.step(&world, 0.1);
    }
    let scale = SIDE as f64 / (2.0 * HALF);
    let unit = 1.0 / scale;
    let to_world = |px: u32, py: u32| DVec2::new((px as f64 + 0.5) * unit - HALF, HALF - (py as f64 + 0.5) * unit);
    // The ground: height shading with a light from the north-west.
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    let heights: Vec<Option<(f64, DVec3)>> = (0..SIDE * SIDE)
        .into_par_iter()
        .map(|k| {
            let p = to_world(k % SIDE, k / SIDE);
            world.top_surface(p.extend(0.0)).map(|s| (s.point.z, s.normal))
        })
        .collect();
    for (z, _) in heights.iter().flatten() {
        lo = lo.min(*z);
        hi = hi.max(*z);
    }
    let light = DVec3::new(-0.5, 0.5, 0.7).normalize();
    let mut px: Vec<[f64; 3]> = heights
        .iter()
        .map(|h| match h {
            None => [1.0, 1.0, 1.0],
            Some((z, n)) => {
                let t = (z - lo) / (hi - lo).max(1e-9);
                let base = DVec3::new(0.62, 0.70, 0.52).lerp(DVec3::new(0.80, 0.76, 0.70), t);
                (base * (0.55 + 0.45 * n.dot(light).max(0.0))).to_array()
            }
        })
        .collect();
    let mut put = |p: DVec2, c: [f64; 3]| {
        let (x, y) = (((p.x + HALF) * scale) as i64, ((HALF - p.y) * scale) as i64);
        if (0..SIDE as i64).contains(&x) && (0..SIDE as i64).contains(&y) {
            px[(y as u32 * SIDE + x as u32) as usize] = c;
        }
    };
    // Dual cells of the owner level: boundaries at odd multiples of half their width.
    let w = (roaming.owner_level as f64).exp2();
    let mut t = -HALF;
    while t <= HALF {
        let f = t / w + 0.5;
        if (f - f.round()).abs() * w < unit * 0.5 {
            let mut s = -HALF;
            while s <= HALF {
                put(DVec2::new(t, s), [0.35, 0.35, 0.45]);
                put(DVec2::new(s, t), [0.35, 0.35, 0.45]);
                s += unit * 0.5;
            }
        }
        t += unit * 0.5;
    }
    // Objects: footprints in their kinds' colours.
    let colour = |k: u16| match k {
        0 => [0.45, 0.42, 0.40],
        1 => [0.08, 0.38, 0.12],
        2 => [0.30, 0.28, 0.27],
        3 => [0.80, 0.35, 0.22],
        _ => [0.50, 0.42, 0.75],
    };
    for (_, ob) in objects.iter() {
        let c = colour(ob.kind);
        match ob.shape {
            Shape::Sphere { c: centre, r } => disc(&mut put, centre.truncate(), r.max(unit), c),
            Shape::Column { a, .. } => disc(&mut put, a.truncate(), 1.5, c),
            Shape::Box { c: centre, half, yaw } => {
                let (sn, cs) = yaw.sin_cos();
                let mut u = -half.x;
                while u <= half.x {
                    let mut v = -half.y;
                    while v <= half.y {
                        put(centre.truncate() + DVec2::new(u * cs - v * sn, u * sn + v * cs), c);
                        v += unit * 0.5;
                    }
                    u += unit * 0.5;
                }
            }
        }
    }
    // Entities: range, owner cell, position.
    for e in objects.entities() {
        let mut a = 0.0;
        while a < std::f64::consts::TAU {
            put(e.home + DVec2::new(a.cos(), a.sin()) * e.range, [0.85, 0.15, 0.15]);
            a += unit / e.range * 0.5;
        }
        let (ci, cj) = (e.owner.0 as f64 * w, e.owner.1 as f64 * w);
        for k in 0..(w / unit * 2.0) as i64 {
            let s = k as f64 * unit * 0.5 - 0.5 * w;
            for d in [-0.5 * w, 0.5 * w] {
                put(DVec2::new(ci + s, cj + d), [0.70, 0.10, 0.10]);
                put(DVec2::new(ci + d, cj + s), [0.70, 0.10, 0.10]);
            }
        }
        disc(&mut put, e.position.truncate(), 4.0, [0.9, 0.05, 0.05]);
    }
    disc(&mut put, DVec2::ZERO, 5.0, [0.1, 0.1, 0.9]);
    let rgb: Vec<u8> = px.iter().flat_map(|c| c.map(|v| (v.clamp(0.0, 1.0) * 255.0) as u8)).collect();
    std::fs::create_dir_all("landfall-out")?;
    let path = Path::new("landfall-out/world-objects.png");
    landfall_io::write_png_rgb(path, SIDE, SIDE, &rgb)?;
    println!("{} objects, {} entities alive; wrote {}", objects.len(), objects.entities().count(), path.display());
    Ok(())
}

fn disc(put: &mut impl FnMut(DVec2, [f64; 3]), c: DVec2, r: f64, col: [f64; 3]) {
    let step = (r / 6.0).max(0.2);
    let mut y = -r;
    while y <= r {
        let mut x = -r;
        while x <= r {
            if x * x + y * y <= r * r {
                put(c + DVec2::new(x, y), col);
            }
            x += step;
        }
        y += step;
    }
}
