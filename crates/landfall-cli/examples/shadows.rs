//! QOTA's shadow use: the real DEM as a polygon terrain, a second quadtree of the same polygons
//! built with the sun's direction as "gravity", and a top-down picture where each ground point is
//! lit or not by one vertical query on that second quadtree (no shadow rays).
//!
//! `cargo run --release -p landfall-cli --example shadows` → `landfall-out/shadows.png`

use landfall::glam::DVec3;
use landfall::PolygonSoup;
use landfall::{Frame, PolygonTerrain, QuadtreeParams};
use rayon::prelude::*;
use std::path::Path;

fn main() -> anyhow::Result<()> {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/topobathy.npz");
    // Cells of ≈ 2434 m; heights exaggerated 8× so the low sun casts visible shadows.
    let opts = landfall_io::LoadOptions {
        spacing: Some((2434.0, 2434.0)),
        origin: Some((0.0, 0.0)),
        z_scale: 8.0,
        ..Default::default()
    };
    let hf = landfall_io::load_heightfield(&data, &opts)?.heightfield;
    let soup = PolygonSoup::from_heightfield(&hf);
    let ground = PolygonTerrain::from_soup(&soup, Frame::z_up(), QuadtreeParams::default())?;
    let sun = DVec3::new(-1.0, 0.6, -0.45).normalize(); // the direction sunlight travels
    let light = PolygonTerrain::from_soup(&soup, Frame::from_gravity(sun)?, QuadtreeParams::default())?;
    let b = ground.bounds();
    let (w, h) = (960u32, (960.0 * (b.max.y - b.min.y) / (b.max.x - b.min.x)) as u32);
    let pixels: Vec<[u8; 3]> = (0..w * h)
        .into_par_iter()
        .map(|k| {
            let (px, py) = ((k % w) as f64 + 0.5, (k / w) as f64 + 0.5);
            let x = b.min.x + px / w as f64 * (b.max.x - b.min.x);
            let y = b.max.y - py / h as f64 * (b.max.y - b.min.y);
            let Some(s) = ground.top_surface(DVec3::new(x, y, 0.0)) else { return [0, 0, 0] };
            let z = s.point.z / 8.0;
            let base = if z < 0.0 {
                let d = (-z / 1500.0).min(1.0);
                DVec3::new(0.15, 0.35, 0.65) * (1.0 - 0.5 * d)
            } else {
                let u = (z / 2200.0).min(1.0);
                DVec3::new(0.35, 0.55, 0.25).lerp(DVec3::new(0.75, 0.7, 0.6), u)
            };
            let diffuse = s.normal.dot(-sun).max(0.0);
            let lit = light.is_lit(s.point, 1e-6 * (1.0 + s.point.z.abs()));
            // Shadows in a cool violet tint, so they read apart from slopes turned away from the sun.
            let c = if lit { base * (0.45 + 0.75 * diffuse) } else { base * 0.3 + DVec3::new(0.12, 0.05, 0.22) };
            (c * 255.0).to_array().map(|c| c.clamp(0.0, 255.0) as u8)
        })
        .collect();
    std::fs::create_dir_all("landfall-out")?;
    let path = Path::new("landfall-out/shadows.png");
    landfall_io::write_png_rgb(path, w, h, pixels.as_flattened())?;
    println!("wrote {} ({w}×{h} pixels, {} faces, sun travelling along {sun:.2})", path.display(), ground.face_count());
    Ok(())
}
