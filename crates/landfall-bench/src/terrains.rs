//! The terrains the benchmarks run on.

use landfall::bench::synth::{generate, SynthParams};
use landfall::Heightfield;
use std::path::Path;

/// A named terrain.
pub struct Terrain {
    /// Short name used in benchmark ids.
    pub name: String,
    /// The heightfield (default triangulation and leaf size unless said).
    pub hf: Heightfield,
}

/// Generated `n × n` terrain, 1 m spacing, 800 m relief (the benchmark terrain).
pub fn generated(n: usize) -> Terrain {
    let h = generate(n, n, &SynthParams::default());
    Terrain { name: format!("gen{n}"), hf: Heightfield::builder(n, n, h).build().expect("valid terrain") }
}

/// The real DEM from `data/`, placed in metres: its cells are ≈ 2434 m on both axes (0.0333° of
/// longitude at 49° N, 0.0219° of latitude).
pub fn real_dem() -> Terrain {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/topobathy.npz");
    let opts =
        landfall_io::LoadOptions { spacing: Some((2434.0, 2434.0)), origin: Some((0.0, 0.0)), ..Default::default() };
    let hf = landfall_io::load_heightfield(&path, &opts).expect("data/topobathy.npz loads").heightfield;
    Terrain { name: "dem".into(), hf }
}

/// The worst case of the 2017 paper's Table 4.1: a plane rising along the diagonal with white
/// noise of 0…10 m on top (every leaf has a sample near the noise maximum close to its far corner),
/// and a ray parallel to the plane 1 cm above the noise. The ray crosses the height range of every
/// leaf along the diagonal, so no method can skip one by height, and it never hits: every method
/// must examine the whole hypotenuse.
pub fn tilted(n: usize, leaf: usize) -> (Heightfield, landfall::Ray) {
    let slope = 0.05;
    let mut rng = landfall::support::SplitMix64::new(7);
    let h: Vec<f32> = (0..n * n).map(|k| (10.0 * rng.uniform() + slope * ((k % n) + (k / n)) as f64) as f32).collect();
    let hf = Heightfield::builder(n, n, h).leaf_size(leaf).build().expect("valid terrain");
    let side = (n - 1) as f64;
    let origin = glam::DVec3::new(0.0, 0.0, 10.0 + 0.01);
    let dir = glam::DVec3::new(side, side, 2.0 * slope * side);
    (hf, landfall::Ray::new(origin, dir))
}

/// A triangulated irregular network: world vertices and triangles indexing them.
pub struct Tin {
    /// Short name used in benchmark ids.
    pub name: String,
    /// Vertices, world coordinates.
    pub vertices: Vec<glam::DVec3>,
    /// Triangles (counter-clockwise seen from above).
    pub triangles: Vec<[u32; 3]>,
}

impl Tin {
    /// Each triangle's three corners.
    pub fn corners(&self) -> Vec<[glam::DVec3; 3]> {
        self.triangles.iter().map(|t| t.map(|k| self.vertices[k as usize])).collect()
    }
}

/// A TIN of about `land_triangles` triangles made from the real DEM: random points (seeded) plus
/// the corners, Delaunay-triangulated (spade), heights exact on the DEM's triangles; triangles
/// with a corner below sea level are left out, so the coast and the sea are holes (QOTA's lakes).
pub fn dem_tin(land_triangles: usize) -> Tin {
    use spade::{DelaunayTriangulation, Point2, Triangulation};
    let dem = real_dem().hf;
    let b = dem.bounds();
    let mut rng = landfall::support::SplitMix64::new(land_triangles as u64);
    // About 2 triangles per point, 56% of the DEM above sea level.
    let points = (land_triangles as f64 / 2.0 / 0.56) as usize;
    let corners = [(b.min.x, b.min.y), (b.max.x, b.min.y), (b.min.x, b.max.y), (b.max.x, b.max.y)];
    let mut xy: Vec<(f64, f64)> = corners.to_vec();
    xy.extend((0..points).map(|_| (rng.range(b.min.x, b.max.x), rng.range(b.min.y, b.max.y))));
    let vertices: Vec<glam::DVec3> =
        xy.iter().map(|&(x, y)| glam::DVec3::new(x, y, dem.height_at(x, y).expect("inside the DEM"))).collect();
    let dt: DelaunayTriangulation<Point2<f64>> =
        DelaunayTriangulation::bulk_load_stable(xy.iter().map(|&(x, y)| Point2::new(x, y)).collect())
            .expect("finite points");
    // bulk_load_stable keeps vertex handles in input order.
    let triangles: Vec<[u32; 3]> = dt
        .inner_faces()
        .map(|f| f.vertices().map(|v| v.fix().index() as u32))
        .filter(|t| t.iter().all(|&k| vertices[k as usize].z >= 0.0))
        .collect();
    Tin { name: format!("tin{}k", triangles.len().div_ceil(1000)), vertices, triangles }
}

impl Tin {
    /// `n` points uniformly inside random triangles: every one has ground.
    pub fn hit_points(&self, n: usize, seed: u64) -> Vec<glam::DVec3> {
        let mut rng = landfall::support::SplitMix64::new(seed);
        (0..n)
            .map(|_| {
                let t = self.triangles[(rng.next_u64() % self.triangles.len() as u64) as usize];
                let (mut u, mut v) = (rng.uniform(), rng.uniform());
                if u + v > 1.0 {
                    (u, v) = (1.0 - u, 1.0 - v);
                }
                let [a, b, c] = t.map(|k| self.vertices[k as usize]);
                let p = a + (b - a) * u + (c - a) * v;
                glam::DVec3::new(p.x, p.y, 0.0)
            })
            .collect()
    }

    /// `n` points inside the TIN's bounding rectangle with no ground under them (the sea), as the
    /// naive scan of `tris` decides.
    pub fn miss_points(&self, n: usize, seed: u64, grid: &crate::grid::UniformGrid) -> Vec<glam::DVec3> {
        let b = self.vertices.iter().fold(landfall::Aabb::EMPTY, |b, &v| b.grown(v));
        let mut rng = landfall::support::SplitMix64::new(seed);
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let p = glam::DVec3::new(rng.range(b.min.x, b.max.x), rng.range(b.min.y, b.max.y), 0.0);
            if grid.top(p.x, p.y).is_none() {
                out.push(p);
            }
        }
        out
    }

    /// `n` oblique rays: aimed at a random point of the TIN from above its highest point, 10–80°
    /// downward, random azimuth (unbounded).
    pub fn oblique_rays(&self, n: usize, seed: u64) -> Vec<(landfall::Ray, f64)> {
        let top = self.vertices.iter().fold(f64::NEG_INFINITY, |m, v| m.max(v.z));
        let pts = self.hit_points(n, seed);
        let mut rng = landfall::support::SplitMix64::new(seed ^ 0xfeed);
        pts.into_iter()
            .map(|p| {
                let (az, el) = (rng.range(0.0, std::f64::consts::TAU), rng.range(10f64, 80.0).to_radians());
                let dir = glam::DVec3::new(az.cos() * el.cos(), az.sin() * el.cos(), -el.sin());
                let target = glam::DVec3::new(p.x, p.y, 0.0);
                let back = (top + 100.0 - target.z) / el.sin();
                (landfall::Ray::new(target - dir * back, dir), f64::INFINITY)
            })
            .collect()
    }
}
