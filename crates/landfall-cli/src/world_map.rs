//! A top-down picture of the world's drawn mesh, like the thesis' figures 3.9–3.10: each layer in
//! its own hue, its outer ring dark, its inner region light, its seam pale, triangle edges drawn
//! where they are large enough to see, shaded by height; the viewer as a red dot.

use landfall::glam::{DVec2, DVec3};
use landfall::world::Shape;
use landfall::world::{Objects, World};

/// Draws a `size × size` picture centred on the viewer, wide enough for the five finest drawn
/// layers, with the objects' footprints (each kind its colour, [`kind_colour`]) and the roaming
/// entities (red rings) when given; returns (width, height, RGB8 pixels).
pub fn draw(world: &World, size: u32, objects: Option<&Objects>) -> (u32, u32, Vec<u8>) {
    let first = *world.drawn_layers().start();
    let last = *world.drawn_layers().end();
    let span_layer = (first + 4).min(last);
    let half = world.generator().cell_width(span_layer) * world.width() as f64 * 0.5;
    let v = world.viewer().truncate();
    let lo = v - DVec2::splat(half);
    let scale = size as f64 / (2.0 * half);
    let to_px = |p: DVec3| DVec2::new((p.x - lo.x) * scale, size as f64 - (p.y - lo.y) * scale);
    let mut px = vec![255u8; (size * size * 3) as usize];
    let (zmin, zmax) = world
        .meshes()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |a, m| (a.0.min(m.z_range[0] as f64), a.1.max(m.z_range[1] as f64)));
    let mut edges = Vec::new();
    for m in world.meshes() {
        let hue = (m.level as f64 * 0.618_034).fract();
        for (r, region) in m.regions().iter().enumerate() {
            let (sat, val) = [(0.75, 0.55), (0.55, 0.85), (0.18, 0.97)][r];
            let base = hsv(hue, sat, val);
            for t in region.indices.chunks_exact(3) {
                let w = [t[0], t[1], t[2]].map(|i| {
                    let v = region.vertices[i as usize];
                    DVec3::new(m.origin.x + v.pos[0] as f64, m.origin.y + v.pos[1] as f64, v.drawn_z() as f64)
                });
                let p = w.map(to_px);
                let z = (w[0].z + w[1].z + w[2].z) / 3.0;
                let shade = 0.7 + 0.3 * ((z - zmin) / (zmax - zmin).max(1e-9));
                fill(&mut px, size, p, base * shade);
                if (p[1] - p[0]).length() > 5.0 {
                    edges.push(p);
                }
            }
        }
    }
    for p in edges {
        for e in 0..3 {
            line(&mut px, size, p[e], p[(e + 1) % 3], [40, 40, 40]);
        }
    }
    if let Some(o) = objects {
        for (_, ob) in o.iter() {
            let (c, r) = match ob.shape {
                Shape::Sphere { c, r } => (c, r),
                Shape::Column { a, r, .. } => (a, r.max(0.15 * o.kinds()[ob.kind as usize].size.0)),
                Shape::Box { c, half, .. } => (c, half.truncate().length()),
            };
            let (p, rp) = (to_px(c), (r * scale).max(0.8));
            let col = (kind_colour(ob.kind as usize) * 255.0).to_array().map(|v| v as u8);
            disc(&mut px, size, p, rp, col);
        }
        for e in o.entities() {
            let p = to_px(e.position);
            disc(&mut px, size, p, 4.0, [200, 30, 30]);
            disc(&mut px, size, p, 2.0, [255, 240, 200]);
        }
    }
    let c = to_px(world.viewer());
    for dy in -4..=4 {
        for dx in -4..=4 {
            if dx * dx + dy * dy <= 16 {
                put(&mut px, size, c.x as i64 + dx, c.y as i64 + dy, [230, 20, 20]);
            }
        }
    }
    (size, size, px)
}

/// The colour of object kind `k` (stones, trees, boulders, houses, halls, then by hue).
pub fn kind_colour(k: usize) -> DVec3 {
    match k {
        0 => DVec3::new(0.45, 0.42, 0.40),
        1 => DVec3::new(0.10, 0.35, 0.12),
        2 => DVec3::new(0.35, 0.33, 0.31),
        3 => DVec3::new(0.75, 0.35, 0.25),
        4 => DVec3::new(0.55, 0.50, 0.70),
        _ => hsv((k as f64 * 0.618_034).fract(), 0.6, 0.7),
    }
}

/// A filled disc of radius `r` pixels at `c`.
fn disc(px: &mut [u8], size: u32, c: DVec2, r: f64, col: [u8; 3]) {
    let n = r.ceil() as i64;
    for dy in -n..=n {
        for dx in -n..=n {
            if ((dx * dx + dy * dy) as f64) <= r * r + 0.5 {
                put(px, size, c.x as i64 + dx, c.y as i64 + dy, col);
            }
        }
    }
}

fn hsv(h: f64, s: f64, v: f64) -> DVec3 {
    let k = |n: f64| {
        let k = (n + h * 6.0) % 6.0;
        v - v * s * k.min(4.0 - k).clamp(0.0, 1.0)
    };
    DVec3::new(k(5.0), k(3.0), k(1.0))
}

fn put(px: &mut [u8], size: u32, x: i64, y: i64, c: [u8; 3]) {
    if x >= 0 && y >= 0 && x < size as i64 && y < size as i64 {
        let at = 3 * (y as usize * size as usize + x as usize);
        px[at..at + 3].copy_from_slice(&c);
    }
}

/// Fills the pixels whose centres lie in triangle `p`.
fn fill(px: &mut [u8], size: u32, p: [DVec2; 3], col: DVec3) {
    let lo = p[0].min(p[1]).min(p[2]).max(DVec2::ZERO);
    let hi = p[0].max(p[1]).max(p[2]).min(DVec2::splat(size as f64 - 1.0));
    if lo.x > hi.x || lo.y > hi.y {
        return;
    }
    let c = [col.x, col.y, col.z].map(|v| (v.clamp(0.0, 1.0) * 255.0) as u8);
    let area = (p[1] - p[0]).perp_dot(p[2] - p[0]);
    if area == 0.0 {
        return;
    }
    for y in lo.y.floor() as i64..=hi.y.ceil() as i64 {
        for x in lo.x.floor() as i64..=hi.x.ceil() as i64 {
            let q = DVec2::new(x as f64 + 0.5, y as f64 + 0.5);
            let s =
                [(p[1] - p[0]).perp_dot(q - p[0]), (p[2] - p[1]).perp_dot(q - p[1]), (p[0] - p[2]).perp_dot(q - p[2])];
            if s.iter().all(|&v| v * area >= 0.0) {
                put(px, size, x, y, c);
            }
        }
    }
}

fn line(px: &mut [u8], size: u32, a: DVec2, b: DVec2, c: [u8; 3]) {
    let n = (b - a).abs().max_element().ceil().max(1.0) as usize;
    if n > 4 * size as usize {
        return;
    }
    for k in 0..=n {
        let p = a.lerp(b, k as f64 / n as f64);
        put(px, size, p.x as i64, p.y as i64, c);
    }
}
