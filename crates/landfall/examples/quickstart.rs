//! The heightfield API in one page: build, vertical queries, ray casts, all crossings, an edit.
//!
//! `cargo run --release -p landfall --example quickstart`

use landfall::glam::DVec3;
use landfall::{Diagonal, Heightfield, Ray, Terrain};
use std::ops::ControlFlow;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A 65 × 33 grid of samples, 2 m × 3 m spacing, south-west sample at (1000, 5000): a ridge.
    let (nx, ny) = (65, 33);
    let heights: Vec<f32> = (0..nx * ny)
        .map(|k| {
            let (i, j) = ((k % nx) as f32, (k / nx) as f32);
            20.0 * (-((i - 32.0) / 10.0).powi(2)).exp() + 0.2 * j
        })
        .collect();
    let mut hf = Heightfield::builder(nx, ny, heights)
        .origin(1000.0, 5000.0)
        .spacing(2.0, 3.0)
        .diagonal(Diagonal::Alternating)
        .build()?;
    println!("bounds {:?}, {} bytes", hf.bounds(), hf.memory_bytes());

    // Vertical queries: exact on the triangles, O(1).
    let s = hf.surface_at(1064.5, 5040.0).expect("on the grid");
    println!("ground at {:?}, normal {:?}, triangle {:?}", s.point, s.normal, s.triangle);
    assert_eq!(hf.height_at(0.0, 0.0), None, "outside the grid");

    // A ray: first crossing, from either side, watertight.
    let ray = Ray::new(DVec3::new(1010.0, 5010.0, 100.0), DVec3::new(1.0, 0.5, -2.0));
    if let Some(hit) = hf.raycast(&ray, f64::INFINITY) {
        println!("hit at t = {:.3}: {:?}", hit.t, hit.point);
    }

    // Every crossing along a line (through the ridge and out again).
    let level = Ray::new(DVec3::new(1000.0, 5048.0, 12.0), DVec3::X);
    hf.crossings(&level, 0.0, f64::INFINITY, |h| {
        println!("crossing at x = {:.3}", h.point.x);
        ControlFlow::Continue(())
    });

    // Dig a pit: only the touched pyramid branches are updated.
    hf.set_samples(30, 10, 4, 4, &[f32::NAN; 16])?;
    println!(
        "after the edit: {} nodata samples, ground at the pit: {:?}",
        hf.nodata_count(),
        hf.height_at(1063.0, 5036.0)
    );

    // The same answers through the Terrain trait, as followers and the CLI use it.
    let t: &dyn Terrain = &hf;
    println!("floor below (1010, 5010, 50): {:?}", t.floor_below(DVec3::new(1010.0, 5010.0, 50.0)).map(|s| s.point));
    Ok(())
}
