//! The figure of the `broad` module's documentation (`docs/dual-quadtree.png`): the same objects in Mirtich's hierarchical
//! hash (left: every level's boundaries meet at the origin) and in the dual quad-tree (right: no two
//! levels share a boundary, the origin is a cell's centre at every level). Lines are the cell
//! boundaries of levels 2–5 (4–32 units, darker for coarser); each object is drawn in the colour of
//! its base level; the orange box is a region across the origin, and the green square the smallest
//! cell that holds it (the dual layout only: the primal has none).
//!
//! `cargo run --release -p landfall-cli --example dual_cells` → `landfall-out/dual-quadtree.png`

use landfall::broad::{Layout, ProximityGrid};
use landfall::glam::{DVec2, DVec3};
use std::io::Write as _;
use std::path::Path;

const SIDE: u32 = 520;
const HALF: f64 = 40.0;

fn main() -> anyhow::Result<()> {
    let objects = [
        (1, DVec2::new(-0.6, 0.4), 0.45),
        (2, DVec2::new(9.5, -3.0), 1.6),
        (3, DVec2::new(-17.0, 14.0), 3.5),
        (4, DVec2::new(22.0, 23.0), 1.0),
        (5, DVec2::new(-5.0, -20.0), 0.9),
        (6, DVec2::new(1.2, 1.1), 0.3),
    ];
    let region = (DVec2::new(-2.5, -1.5), DVec2::new(2.0, 2.5));
    let (w, h) = (2 * SIDE + 20, SIDE);
    let mut px = vec![255u8; (w * h * 3) as usize];
    for (panel, layout) in [Layout::Primal, Layout::Dual].into_iter().enumerate() {
        let mut grid = ProximityGrid::with_layout(layout, 1.0, None).unwrap();
        for &(id, c, r) in &objects {
            grid.insert(id, DVec3::new(c.x, c.y, 0.0), r)?;
        }
        let x0 = panel as u32 * (SIDE + 20);
        let owner = grid.containing_cell(region.0, region.1);
        for py in 0..h {
            for pxl in 0..SIDE {
                // World point of the pixel (y up), and the size of a pixel in units.
                let p = DVec2::new(
                    (pxl as f64 + 0.5) / SIDE as f64 * 2.0 * HALF - HALF,
                    HALF - (py as f64 + 0.5) / SIDE as f64 * 2.0 * HALF,
                );
                let unit = 2.0 * HALF / SIDE as f64;
                let mut c = [255.0f64, 255.0, 255.0];
                // Cell boundaries of levels 2..=5.
                for level in 2..=5 {
                    let width = (level as f64).exp2();
                    let off = if layout == Layout::Dual { 0.5 } else { 0.0 };
                    let near = |v: f64| {
                        let f = v / width + off;
                        (f - f.round()).abs() * width < unit * 0.6
                    };
                    if near(p.x) || near(p.y) {
                        let shade = 215.0 - 35.0 * (level - 2) as f64;
                        c = [shade, shade, shade + 10.0];
                    }
                }
                // The region and its smallest containing cell.
                let edge = |lo: DVec2, hi: DVec2, t: f64| {
                    let inside = p.x >= lo.x - t && p.x <= hi.x + t && p.y >= lo.y - t && p.y <= hi.y + t;
                    let interior = p.x > lo.x + t && p.x < hi.x - t && p.y > lo.y + t && p.y < hi.y - t;
                    inside && !interior
                };
                if let Some(cell) = owner {
                    if edge(cell.min, cell.max, unit) {
                        c = [40.0, 170.0, 70.0];
                    }
                }
                if edge(region.0, region.1, unit * 0.8) {
                    c = [240.0, 140.0, 20.0];
                }
                // Objects, coloured by base level.
                for &(_, center, r) in &objects {
                    let level = grid.base_level(r);
                    let hue = [[200.0, 40.0, 40.0], [40.0, 90.0, 210.0], [150.0, 50.0, 170.0], [20.0, 150.0, 150.0]]
                        [level.rem_euclid(4) as usize];
                    if p.distance(center) <= r {
                        c = hue;
                    }
                }
                let k = ((py * w + x0 + pxl) * 3) as usize;
                px[k..k + 3].copy_from_slice(&c.map(|v| v.clamp(0.0, 255.0) as u8));
            }
        }
        println!(
            "{layout:?}: smallest cell around the region {:?}",
            owner.map(|c| (c.level, c.i, c.j, c.min.to_array(), c.max.to_array()))
        );
    }
    std::fs::create_dir_all("landfall-out")?;
    let path = Path::new("landfall-out/dual-quadtree.png");
    landfall_io::write_png_rgb(path, w, h, &px)?;
    let _ = std::io::stdout().flush();
    println!("wrote {}", path.display());
    Ok(())
}
