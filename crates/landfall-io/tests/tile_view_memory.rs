//! Tiles in the view over a memory-mapped heightfield index: a tile that leaves the view lets go of
//! its pages (the process's resident file memory falls back), and the view's sweeps on the mapped
//! file are those on the raster in memory. Its own test binary: resident memory is the process's.

mod common;
use glam::{DVec2, DVec3};
use landfall::collide::{CharacterController, ControllerParams, SweepTarget, TileView, TileViewParams};
use landfall::Heightfield;
use landfall_io::{build_heightfield_index, load_heightfield, open_heightfield_index, LoadOptions};
use std::sync::Arc;

/// Resident memory of file maps (`RssFile` of `/proc/self/status`), MiB; `None` off Linux.
fn rss_file_mib() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("RssFile:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<f64>().ok()? / 1024.0)
}

#[test]
fn tiles_leaving_the_view_let_go_of_their_pages() {
    let d = tempfile::tempdir().unwrap();
    let npy = d.path().join("dem.npy");
    let n = 2049usize;
    let v: Vec<f32> = (0..n * n)
        .map(|k| {
            let (i, j) = ((k % n) as f32, (k / n) as f32);
            30.0 * (i / 71.0).sin() * (j / 53.0).cos()
        })
        .collect();
    std::fs::write(&npy, common::npy_bytes("<f4", &format!("({n}, {n})"), bytemuck::cast_slice(&v))).unwrap();
    let lfh = d.path().join("dem.lfh");
    let opts = LoadOptions::default();
    build_heightfield_index(&npy, &lfh, &opts, landfall::Frame::z_up(), &mut |_, _| {}).unwrap();
    let mapped = Arc::new(open_heightfield_index(&lfh).unwrap());
    assert!(mapped.is_mapped());
    let Some(before) = rss_file_mib() else {
        common::skip::missing("RssFile in /proc/self/status", "Linux ≥ 4.5 measures a file map's resident pages");
        return;
    };
    let mut view = TileView::new(mapped.clone(), TileViewParams::default()).unwrap();
    // Every tile in the view: the whole 16 MiB of samples brought in.
    let all = view.update(DVec2::splat(1024.0), 1e6);
    assert_eq!(all.added.len(), 64);
    let full = rss_file_mib().unwrap();
    // Back to the tiles around one corner: the rest of the map leaves the process.
    let change = view.update(DVec2::new(10.0, 10.0), 50.0);
    assert_eq!((change.dropped.len(), view.tiles().count()), (63, 1));
    let corner = rss_file_mib().unwrap();
    eprintln!("resident file maps: {before:.1} MiB, all tiles {full:.1} MiB, one tile {corner:.1} MiB");
    assert!(full - before > 12.0, "the view's tiles were not brought in: {before} → {full} MiB");
    assert!(full - corner > 12.0, "the dropped tiles' pages stayed: {full} → {corner} MiB");
    // A view that moves tile by tile along the diagonal keeps about one tile's pages (the kernel
    // maps pages around each one read; the view lets go of those beside its tiles too).
    for k in 0..8 {
        let at = DVec2::splat(128.0 + 256.0 * k as f64);
        view.update(at, 20.0);
        let now = rss_file_mib().unwrap();
        assert!(now - before < 4.0, "tile {k} of the diagonal: {before} → {now} MiB resident");
    }

    // A walker on the mapped view moves exactly as on the raster in memory.
    let whole: Heightfield = load_heightfield(&npy, &opts).unwrap().heightfield;
    let mut in_memory = TileView::new(Arc::new(whole), TileViewParams::default()).unwrap();
    let c = CharacterController::new(ControllerParams::default(), DVec3::Z).expect("valid controller parameters");
    let start = DVec3::new(250.0, 240.0, mapped.height_at(250.0, 240.0).unwrap() + 1.0);
    let (mut a, mut b, mut g) = (start, start, false);
    for _ in 0..300 {
        view.update(a.truncate(), 8.0);
        in_memory.update(b.truncate(), 8.0);
        let step = DVec3::new(0.04, 0.03, -0.3);
        let (ma, mb) = (c.move_by(&view, a, step, g), c.move_by(&in_memory, b, step, g));
        assert_eq!(ma.position, mb.position);
        (a, b, g) = (ma.position, mb.position, ma.grounded);
    }
    assert!(a.x > 256.0, "the walker crossed into the next tile: {a}");
    assert!(view.sweep(a + DVec3::Z * 5.0, 0.5, DVec3::Z * -20.0).is_some());
}
