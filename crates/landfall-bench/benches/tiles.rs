//! Terrains larger than memory: a generated DEM written as a GeoTIFF (strips of 16 rows, f32) by the
//! benchmark itself, streamed into a heightfield index (`landfall_io::build_heightfield_index`), then
//! queried through the memory-mapped index beside the in-memory heightfield of the same samples
//! (the whole raster up to 16385², else its south-west 16385² piece, the queries inside it).
//!
//! Printed: the build's time, samples per second beside the GeoTIFF decoder's own on the same file,
//! the peak resident memory of the process during the build, and the index's bytes per sample; the
//! time of a batch of queries on a cold cache (the index's pages evicted with `posix_fadvise`).
//! Measured by criterion: a million vertical queries and 100,000 oblique rays, warm, on the index
//! and in memory; a tile entering a view (`TileView`) with its sphere tree from the index
//! (`with_trees`: a page-in) beside one whose tree is built as it enters (`new`), both on the index.
//!
//! `cargo bench -p landfall-bench --bench tiles` (4097²; `LANDFALL_BENCH_TILES=32769` for the 4 GiB
//! raster of the docs: 8 GiB of disk in the target directory).

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use glam::DVec3;
use landfall::support::SplitMix64;
use landfall::{Heightfield, Ray, Terrain};
use landfall_bench::report::print_ratios;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// A deterministic landscape sample at (i, j): ridges and valleys over ~1,500 m plus detail.
fn sample(i: u64, j: u64) -> f32 {
    let (x, y) = (i as f64, j as f64);
    let base = 600.0 * (x / 2300.0).sin() * (y / 1700.0).cos() + 300.0 * ((x + y) / 900.0).sin();
    let detail = 40.0 * (x / 97.0).sin() * (y / 83.0).cos();
    let noise = (landfall::support::mix(i << 32 | j) >> 40) as f64 / (1u64 << 24) as f64 * 4.0;
    (base + detail + noise) as f32
}

/// Resident memory now and at peak, bytes (Linux).
fn memory() -> (u64, u64) {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |f: &str| {
        text.lines()
            .find(|l| l.starts_with(f))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
            .unwrap_or(0)
            * 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Drops the index's pages: from this process's map (`Heightfield::release_all`: they fault in
/// again from the file), then from the page cache.
fn evict(hf: &Heightfield, path: &Path) {
    use std::os::unix::io::AsRawFd;
    hf.release_all();
    if let Ok(f) = std::fs::File::open(path) {
        // SAFETY: a valid open descriptor; the call only advises the kernel.
        unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    }
}

/// Writes the `n × n` DEM in strips of 16 rows, georeferenced with 10 m pixels.
fn write_dem<W: std::io::Write + std::io::Seek, K: tiff::encoder::TiffKind>(
    mut enc: tiff::encoder::TiffEncoder<W, K>,
    n: usize,
) {
    use tiff::tags::Tag;
    let mut img = enc.new_image::<tiff::encoder::colortype::Gray32Float>(n as u32, n as u32).unwrap();
    img.rows_per_strip(16).unwrap();
    img.encoder().write_tag(Tag::ModelPixelScaleTag, &[10.0f64, 10.0, 0.0][..]).unwrap();
    img.encoder().write_tag(Tag::ModelTiepointTag, &[0.0f64, 0.0, 0.0, 0.0, 10.0 * n as f64, 0.0][..]).unwrap();
    let mut strip = Vec::with_capacity(16 * n);
    for r0 in (0..n).step_by(16) {
        strip.clear();
        for r in r0..(r0 + 16).min(n) {
            strip.extend((0..n).map(|i| sample(i as u64, r as u64)));
        }
        img.write_strip(&strip).unwrap();
    }
    img.finish().unwrap();
}

struct Setup {
    index: Arc<Heightfield>,
    trees: landfall::collide::TileTrees,
    memory: Heightfield,
    index_path: PathBuf,
    piece: usize,
}

fn setup() -> &'static Setup {
    static S: OnceLock<Setup> = OnceLock::new();
    S.get_or_init(|| {
        let n: usize = std::env::var("LANDFALL_BENCH_TILES").ok().and_then(|v| v.parse().ok()).unwrap_or(4097);
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-tiles");
        std::fs::create_dir_all(&dir).unwrap();
        let tif = dir.join(format!("dem{n}.tif"));
        let lfh = dir.join(format!("dem{n}.lfh"));
        if !tif.exists() {
            let start = Instant::now();
            let tmp = dir.join("writing.tif");
            let file = std::io::BufWriter::new(std::fs::File::create(&tmp).unwrap());
            // Past 4 GiB a classic TIFF's offsets overflow: BigTIFF, as GDAL writes it then.
            if n * n * 4 > 4_000_000_000 {
                write_dem(tiff::encoder::TiffEncoder::new_big(file).unwrap(), n);
            } else {
                write_dem(tiff::encoder::TiffEncoder::new(file).unwrap(), n);
            }
            std::fs::rename(&tmp, &tif).unwrap();
            println!("tiles: wrote {} ({n}² f32, strips of 16 rows) in {:.1} s", tif.display(), start.elapsed().as_secs_f64());
        }
        let bytes_in = std::fs::metadata(&tif).unwrap().len();
        // The decoder alone.
        let start = Instant::now();
        let mut sum = 0.0;
        landfall_io::stream_geotiff_rows(&tif, |_, row| {
            sum += row[0];
            Ok(())
        })
        .unwrap();
        black_box(sum);
        let decode = start.elapsed().as_secs_f64();
        // The build.
        let (rss0, _) = memory();
        let start = Instant::now();
        let r = landfall_io::build_heightfield_index(
            &tif,
            &lfh,
            &landfall_io::LoadOptions::default(),
            landfall::Frame::z_up(),
            &mut |_, _| {},
        )
        .unwrap();
        let build = start.elapsed().as_secs_f64();
        // The build ends by syncing the file to disk (crash safety); that share is the disk's.
        let (_, peak) = memory();
        let samples = (n * n) as f64;
        println!(
            "tiles: {n}² ({:.2} GiB of f32): decode alone {decode:.1} s ({:.1} M samples/s), build {build:.1} s ({:.1} M samples/s, {:.2}× the decoder's time), \
             peak resident {:.0} MiB (process before: {:.0} MiB), index {:.3} bytes/sample",
            bytes_in as f64 / (1u64 << 30) as f64,
            samples / decode / 1e6,
            samples / build / 1e6,
            build / decode,
            peak as f64 / (1 << 20) as f64,
            rss0 as f64 / (1 << 20) as f64,
            r.bytes as f64 / samples
        );
        let start = Instant::now();
        let opened = landfall_io::open_heightfield_index_with_trees(&lfh).unwrap();
        let (index, trees) = (Arc::new(opened.heightfield), opened.trees);
        println!("tiles: open (checked) {:.1} s, resident after {:.0} MiB", start.elapsed().as_secs_f64(), memory().0 as f64 / (1 << 20) as f64);
        // The in-memory heightfield of the south-west piece.
        let piece = n.min(16385);
        let mut h = landfall::support::sample_buffer(piece * piece);
        for j in 0..piece {
            for i in 0..piece { h[j * piece + i] = index.sample(i, j); }
        }
        let memory = Heightfield::builder(piece, piece, h).origin(index.origin().x, index.origin().y).spacing(10.0, 10.0).build().unwrap();
        Setup { index, trees, memory, index_path: lfh, piece }
    })
}

fn points(s: &Setup, count: usize) -> Vec<DVec3> {
    let mut rng = SplitMix64::new(5);
    let (o, w) = (s.memory.origin(), 10.0 * (s.piece - 1) as f64);
    (0..count).map(|_| DVec3::new(o.x + rng.range(0.0, w), o.y + rng.range(0.0, w), 0.0)).collect()
}

fn rays(s: &Setup, count: usize) -> Vec<Ray> {
    let mut rng = SplitMix64::new(6);
    let (o, w) = (s.memory.origin(), 10.0 * (s.piece - 1) as f64);
    (0..count)
        .map(|_| {
            let p = DVec3::new(o.x + rng.range(0.1, 0.9) * w, o.y + rng.range(0.1, 0.9) * w, 2500.0);
            let a = rng.range(0.0, std::f64::consts::TAU);
            Ray::new(p, DVec3::new(a.cos(), a.sin(), -0.15))
        })
        .collect()
}

fn vertical(t: &Heightfield, p: &[DVec3]) -> f64 {
    p.iter().map(|&q| t.top_surface(q).map_or(0.0, |s| s.point.z)).sum()
}

fn cast(t: &Heightfield, r: &[Ray]) -> usize {
    r.iter().filter(|ray| t.raycast(ray, 1e6).is_some()).count()
}

fn queries(c: &mut Criterion) {
    let s = setup();
    let (p, r) = (points(s, 1_000_000), rays(s, 100_000));
    // The same answers on both (the piece's samples are the index's).
    assert_eq!(vertical(&s.index, &p[..10_000]).to_bits(), vertical(&s.memory, &p[..10_000]).to_bits());
    // Cold: the index's pages evicted, one batch each.
    evict(&s.index, &s.index_path);
    let t0 = Instant::now();
    black_box(vertical(&s.index, &p[..100_000]));
    let cold_v = t0.elapsed().as_secs_f64();
    evict(&s.index, &s.index_path);
    let t0 = Instant::now();
    black_box(cast(&s.index, &r[..10_000]));
    let cold_r = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    black_box(vertical(&s.memory, &p[..100_000]));
    let mem_v = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    black_box(cast(&s.memory, &r[..10_000]));
    let mem_r = t0.elapsed().as_secs_f64();
    println!(
        "tiles: cold cache: 100,000 vertical queries {:.0} ms (in memory {:.0} ms, {:.1}×), 10,000 rays {:.0} ms (in memory {:.0} ms, {:.1}×)",
        cold_v * 1e3,
        mem_v * 1e3,
        cold_v / mem_v,
        cold_r * 1e3,
        mem_r * 1e3,
        cold_r / mem_r
    );
    let n = s.piece.to_string();
    let mut g = c.benchmark_group("tiles_vertical");
    g.throughput(Throughput::Elements(p.len() as u64));
    g.bench_function(BenchmarkId::new("landfall", &n), |b| b.iter(|| vertical(&s.index, &p)));
    g.bench_function(BenchmarkId::new("in-memory", &n), |b| b.iter(|| vertical(&s.memory, &p)));
    g.finish();
    let mut g = c.benchmark_group("tiles_rays");
    g.throughput(Throughput::Elements(r.len() as u64));
    g.bench_function(BenchmarkId::new("landfall", &n), |b| b.iter(|| cast(&s.index, &r)));
    g.bench_function(BenchmarkId::new("in-memory", &n), |b| b.iter(|| cast(&s.memory, &r)));
    g.finish();
}

/// A tile entering the view and leaving it again, tile after tile along the grid's tiles: with the
/// trees stored in the index against trees built as the tiles enter.
fn entering(c: &mut Criterion) {
    use landfall::collide::{TileView, TileViewParams};
    let s = setup();
    let tiling = s.index.tiling().expect("an index is tiled");
    let keys: Vec<(u32, u32)> =
        (0..tiling.nty.min(8)).flat_map(|ty| (0..tiling.ntx.min(8)).map(move |tx| (tx as u32, ty as u32))).collect();
    let mut stored = TileView::with_trees(s.index.clone(), s.trees.clone()).unwrap();
    let params = TileViewParams::default().with_tile_cells(tiling.cells);
    let mut built = TileView::new(s.index.clone(), params).unwrap();
    // The same trees either way.
    for &k in &keys[..4] {
        stored.add(k);
        built.add(k);
    }
    for (a, b) in stored.tiles().zip(built.tiles()) {
        assert_eq!(a.nodes(&stored), b.nodes(&built));
    }
    let n = tiling.cells.to_string();
    let mut g = c.benchmark_group("tiles_enter");
    g.throughput(Throughput::Elements(keys.len() as u64));
    let cycle = |view: &mut TileView| {
        for &k in &keys {
            view.add(k);
            view.remove(k);
        }
    };
    g.bench_function(BenchmarkId::new("landfall", &n), |b| b.iter(|| cycle(&mut stored)));
    g.bench_function(BenchmarkId::new("built", &n), |b| b.iter(|| cycle(&mut built)));
    g.finish();
    // Cold: the index's pages dropped first, one pass each.
    evict(&s.index, &s.index_path);
    let t0 = Instant::now();
    cycle(&mut stored);
    let cold_stored = t0.elapsed().as_secs_f64();
    evict(&s.index, &s.index_path);
    let t0 = Instant::now();
    cycle(&mut built);
    let cold_built = t0.elapsed().as_secs_f64();
    println!(
        "tiles: {} tiles entering, cold cache: stored trees {:.1} ms, built {:.1} ms ({:.1}×)",
        keys.len(),
        cold_stored * 1e3,
        cold_built * 1e3,
        cold_built / cold_stored
    );
}

criterion_group! {
    name = benches;
    config = landfall_bench::report::criterion().sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(4));
    targets = queries, entering
}

fn main() {
    benches();
    landfall_bench::report::criterion().configure_from_args().final_summary();
    let n = setup().piece.to_string();
    print_ratios("tiles_vertical", &["in-memory"], std::slice::from_ref(&n));
    print_ratios("tiles_rays", &["in-memory"], &[n]);
    let cells = setup().index.tiling().map_or(0, |t| t.cells).to_string();
    print_ratios("tiles_enter", &["built"], &[cells]);
}
