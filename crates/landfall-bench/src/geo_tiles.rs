//! The `geo` benchmark's tiles and workloads, shared with the `geoprof` profiling example: a
//! generated 1° tile as a `GeoSurface` on the WGS84 ellipsoid beside the same samples treated as a
//! projected heightfield in metres (the tile's cell size at its centre).

use glam::DVec3;
use landfall::bench::synth::{generate, SynthParams};
use landfall::geo::{GeoSurface, DEFAULT_GEO_LEAF};
use landfall::support::workload as sets;
use landfall::support::SplitMix64;
use landfall::{Heightfield, Ray};

/// Longitude of the tiles' south-west sample, degrees.
pub const LON0: f64 = 7.0;
/// Latitude of the tiles' south-west sample, degrees.
pub const LAT0: f64 = 46.0;

/// One tile in both forms.
pub struct GeoTile {
    /// Benchmark id, `tile{n}`.
    pub name: String,
    /// The surface on the ellipsoid.
    pub geo: GeoSurface,
    /// The same samples in metres: spacing = the tile's cell at its centre.
    pub projected: Heightfield,
    /// Metres per degree of longitude and latitude at the centre.
    pub m: (f64, f64),
}

impl GeoTile {
    /// A 1° tile of `n × n` samples (1,500 m relief) at 7–8° E, 46–47° N, with a box-tree leaf of
    /// `leaf` cells.
    pub fn new(n: usize, leaf: usize) -> Self {
        let h = generate(n, n, &SynthParams { relief: 1500.0, feature: n as f64 / 16.0, ..SynthParams::default() });
        let step = 1.0 / (n - 1) as f64;
        let hf = Heightfield::builder(n, n, h.clone()).origin(LON0, LAT0).spacing(step, step).build().unwrap();
        let geo = GeoSurface::with_leaf(hf, leaf).unwrap();
        let f = geo.frame();
        let c = (LON0 + 0.5, LAT0 + 0.5);
        let mx = (f.geodetic_to_enu(c.0 + 0.001, c.1, 0.0).x - f.geodetic_to_enu(c.0 - 0.001, c.1, 0.0).x) / 0.002;
        let my = (f.geodetic_to_enu(c.0, c.1 + 0.001, 0.0).y - f.geodetic_to_enu(c.0, c.1 - 0.001, 0.0).y) / 0.002;
        let projected = Heightfield::builder(n, n, h).spacing(step * mx, step * my).build().unwrap();
        Self { name: format!("tile{n}"), geo, projected, m: (mx, my) }
    }

    /// The box-tree leaf from `LANDFALL_GEO_LEAF` (another leaf: the measurement behind the default).
    pub fn leaf_from_env() -> usize {
        std::env::var("LANDFALL_GEO_LEAF").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_GEO_LEAF)
    }

    /// A projected point (metres from the south-west sample) → (lon, lat).
    pub fn lon_lat(&self, x: f64, y: f64) -> (f64, f64) {
        (LON0 + x / self.m.0, LAT0 + y / self.m.1)
    }

    /// `n` random points: projected (x, y) and the same points as (lon, lat).
    pub fn points(&self, n: usize, seed: u64) -> (Vec<[f64; 2]>, Vec<[f64; 2]>) {
        let pts = sets::points(&self.projected, n, seed);
        let geo = pts.iter().map(|p| self.lon_lat(p[0], p[1]).into()).collect();
        (pts, geo)
    }

    /// Oblique rays from above: the projected workload's and the same rays moved to the geographic
    /// tile's ENU frame (the same start above the same (lon, lat) at the same height, the same
    /// direction).
    pub fn oblique(&self, n: usize, seed: u64) -> (sets::RaySet, sets::RaySet) {
        let flat = sets::oblique(&self.projected, n, seed);
        let f = self.geo.frame();
        let geo = flat
            .iter()
            .map(|(r, m)| {
                let (lon, lat) = self.lon_lat(r.origin.x, r.origin.y);
                (Ray::new(f.geodetic_to_enu(lon, lat, r.origin.z), r.dir), *m)
            })
            .collect();
        (flat, geo)
    }

    /// Lines of sight between random points 2 m above the ground (max_t = 1): projected, and on the
    /// geographic surface.
    pub fn line_of_sight(&self, n: usize, seed: u64) -> (sets::RaySet, sets::RaySet) {
        let mut rng = SplitMix64::new(seed);
        let f = self.geo.frame();
        let mut above = || loop {
            let (lon, lat) = (LON0 + rng.range(0.0, 1.0), LAT0 + rng.range(0.0, 1.0));
            if let Some(h) = self.geo.height_at(lon, lat) {
                break f.geodetic_to_enu(lon, lat, h + 2.0);
            }
        };
        let geo = (0..n).map(|_| (above(), above())).map(|(a, b): (DVec3, DVec3)| (Ray::new(a, b - a), 1.0)).collect();
        (sets::line_of_sight(&self.projected, n, seed), geo)
    }
}
