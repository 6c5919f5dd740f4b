//! Tiles in the view (the 2004 collision paper, 3.1–3.2) on a heightfield index file: a walker
//! crosses the terrain with the character controller while the view keeps only the tiles within
//! 300 m of it — each tile's sphere tree built when it enters, dropped with the tile's pages when it
//! leaves — and prints what the view holds as it goes.
//!
//! `cargo run --release -p landfall-io --example tiles_in_view [DEM.lfh]` (without a file: a
//! generated 4097² DEM, 10 m cells, built into a temporary index first).

use glam::{DVec2, DVec3};
use landfall::collide::{CharacterController, ControllerParams, TileView, TileViewParams};
use landfall_io::{build_heightfield_index, open_heightfield_index, LoadOptions};
use std::sync::Arc;

fn resident_file_mib() -> f64 {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = text.lines().find(|l| l.starts_with("RssFile:")).and_then(|l| l.split_whitespace().nth(1));
    kb.and_then(|k| k.parse::<f64>().ok()).unwrap_or(f64::NAN) / 1024.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let path = match std::env::args_os().nth(1) {
        Some(p) => p.into(),
        None => {
            // A generated DEM: ridges and valleys, 4097² samples 10 m apart, as a .npy.
            let n = 4097usize;
            let v: Vec<f32> = (0..n * n)
                .map(|k| {
                    let (x, y) = ((k % n) as f32 * 10.0, (k / n) as f32 * 10.0);
                    120.0 * (x / 900.0).sin() * (y / 1300.0).cos() + 15.0 * ((x + 2.0 * y) / 170.0).sin()
                })
                .collect();
            let npy = dir.path().join("dem.npy");
            landfall_io::write_npy(&npy, n, n, &v)?;
            let lfh = dir.path().join("dem.lfh");
            let opts = LoadOptions { spacing: Some((10.0, 10.0)), ..LoadOptions::default() };
            build_heightfield_index(&npy, &lfh, &opts, landfall::Frame::z_up(), &mut |_, _| {})?;
            lfh
        }
    };
    let hf = Arc::new(open_heightfield_index(&path)?);
    let b = hf.bounds();
    println!(
        "{}: {} × {} samples, mapped; resident file maps {:.1} MiB",
        path.display(),
        hf.nx(),
        hf.ny(),
        resident_file_mib()
    );
    let mut view = TileView::new(hf.clone(), TileViewParams::default())?;
    let (ntx, nty) = view.tile_counts();
    println!("{ntx} × {nty} tiles of 256 cells; the view keeps those within 300 m of the walker");
    let controller =
        CharacterController::new(ControllerParams::default(), DVec3::Z).expect("valid controller parameters");
    // From the south-west corner toward the north-east one, 2 m a frame.
    let from = DVec2::new(b.min.x, b.min.y) + (b.max - b.min).truncate() * 0.05;
    let dir = ((b.max - b.min).truncate()).normalize();
    let mut p = from.extend(hf.height_at(from.x, from.y).unwrap_or(0.0) + 1.0);
    let mut grounded = false;
    let frames = ((b.max - b.min).truncate().length() * 0.9 / 2.0) as usize;
    let mut built = 0;
    for frame in 0..frames {
        let change = view.update(p.truncate(), 300.0);
        built += change.added.len();
        let m = controller.move_by(&view, p, (dir * 2.0).extend(-1.0), grounded);
        (p, grounded) = (m.position, m.grounded);
        if frame % (frames / 10).max(1) == 0 || !change.added.is_empty() && frame < 3 {
            println!(
                "frame {frame:>5}: walker ({:.0}, {:.0}, {:.1}){} · {} tiles in view (+{} −{}), trees {:.1} MiB, \
                 resident file maps {:.1} MiB",
                p.x,
                p.y,
                p.z,
                if grounded { " on the ground" } else { "" },
                view.tiles().count(),
                change.added.len(),
                change.dropped.len(),
                view.memory_bytes() as f64 / (1 << 20) as f64,
                resident_file_mib()
            );
        }
    }
    println!(
        "{frames} frames, {built} trees built (each tile's once per visit), {} in view at the end",
        view.tiles().count()
    );
    Ok(())
}
