//! Writes a generated DEM as a GeoTIFF (f32, 10 m cells, 1,500 m relief), the benchmarks' data.
//!
//! `cargo run --release -p landfall-bench --example synth_dem -- 4097 out.tif`

use landfall::bench::synth::{generate, SynthParams};
use landfall_io::{write_geotiff, Band, GeoRef};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(4097);
    let out = args.get(2).map(String::as_str).unwrap_or("synth.tif");
    let h = generate(n, n, &SynthParams { relief: 1500.0, ..Default::default() });
    let geo = GeoRef { origin: (500_000.0, 4_000_000.0), spacing: (10.0, 10.0) };
    write_geotiff(std::path::Path::new(out), n, n, Band::F32(&h), &geo, None, None).expect("writes");
    let (k, top) = h.iter().enumerate().fold((0, f32::MIN), |a, (k, &v)| if v > a.1 { (k, v) } else { a });
    println!(
        "{out}: {n}×{n}, summit {top} m at x {} y {}",
        500_000.0 + (k % n) as f64 * 10.0,
        4_000_000.0 + (k / n) as f64 * 10.0
    );
}
