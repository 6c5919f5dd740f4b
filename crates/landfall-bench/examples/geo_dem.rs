//! Rasters in degrees (EPSG:4326 GeoTIFF) for the geographic viewshed's measurements.
//!
//! `cargo run --release -p landfall-bench --example geo_dem -- tile 3601 tile.tif`: a generated
//! 1° × 1° tile (7°–8° E, 46°–47° N, 1,500 m relief over 500 m), N × N samples, Copernicus-style.
//! `cargo run --release -p landfall-bench --example geo_dem -- convert data/topobathy.npz topo.tif`:
//! any raster landfall reads, written as a GeoTIFF with its placement and CRS.
//! `… -- compare vis.tif other.tif`: on samples both call visible (1) or hidden (0), how often they
//! agree (same grid; anything else is nodata).

use landfall::bench::synth::{generate, SynthParams};
use landfall_io::{load_heightfield, write_geotiff, Band, GeoKeys, GeoRef, LoadOptions};
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("tile") => {
            let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3601);
            let out = args.get(3).map(String::as_str).unwrap_or("tile.tif");
            let h: Vec<f32> = generate(n, n, &SynthParams { relief: 1500.0, ..Default::default() })
                .iter()
                .map(|v| v + 500.0)
                .collect();
            let step = 1.0 / (n - 1) as f64;
            let geo = GeoRef { origin: (7.0, 46.0), spacing: (step, step) };
            write_geotiff(Path::new(out), n, n, Band::F32(&h), &geo, None, Some(&GeoKeys::wgs84())).expect("writes");
            let (k, top) = h.iter().enumerate().fold((0, f32::MIN), |a, (k, &v)| if v > a.1 { (k, v) } else { a });
            println!(
                "{out}: {n}×{n}, summit {top} m at lon {} lat {}",
                7.0 + (k % n) as f64 * step,
                46.0 + (k / n) as f64 * step
            );
        }
        Some("convert") => {
            let (src, out) = (&args[2], &args[3]);
            let l = load_heightfield(Path::new(src), &LoadOptions::default()).expect("reads");
            let hf = &l.heightfield;
            let (o, s) = (hf.origin(), hf.spacing());
            let geo = GeoRef { origin: (o.x, o.y), spacing: (s.x, s.y) };
            let h: Vec<f32> = hf.samples().collect();
            write_geotiff(Path::new(out), hf.nx(), hf.ny(), Band::F32(&h), &geo, Some(f64::NAN), l.geokeys.as_ref())
                .expect("writes");
            println!("{out}: {}×{}", hf.nx(), hf.ny());
        }
        Some("compare") => {
            let read = |p: &str| load_heightfield(Path::new(p), &LoadOptions::default()).expect("reads").heightfield;
            let (a, b) = (read(&args[2]), read(&args[3]));
            assert_eq!((a.nx(), a.ny()), (b.nx(), b.ny()), "the grids differ");
            let (mut both, mut agree, mut a_only, mut b_only) = (0u64, 0u64, 0u64, 0u64);
            for (x, y) in a.samples().zip(b.samples()) {
                if (x == 0.0 || x == 1.0) && (y == 0.0 || y == 1.0) {
                    both += 1;
                    agree += u64::from(x == y);
                    a_only += u64::from(x == 1.0 && y == 0.0);
                    b_only += u64::from(x == 0.0 && y == 1.0);
                }
            }
            println!(
                "{both} samples decided by both: agree on {agree} ({:.2} %); visible only in the first {a_only}, only in the second {b_only}",
                100.0 * agree as f64 / both.max(1) as f64
            );
        }
        _ => eprintln!("usage: geo_dem tile N OUT.tif | geo_dem convert IN OUT.tif | geo_dem compare A.tif B.tif"),
    }
}
