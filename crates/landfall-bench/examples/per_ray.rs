use glam::DVec3;
use landfall::Ray;
use landfall_bench::terrains;
use std::time::Instant;
fn time(name: &str, f: impl Fn() -> bool) {
    let s = Instant::now();
    let mut n = 0;
    for _ in 0..2_000_000 {
        n += std::hint::black_box(f()) as usize;
    }
    println!("{name:<30} {:.1} ns ({n})", s.elapsed().as_secs_f64() * 1e9 / 2e6);
}
fn main() {
    let t = terrains::generated(1025);
    let hf = &t.hf;
    let top = hf.bounds().max.z;
    time("outside the grid", || {
        hf.raycast(&Ray::new(DVec3::new(-10.0, -10.0, 0.0), DVec3::new(-1.0, 0.0, 0.0)), f64::INFINITY).is_some()
    });
    time("above everything (root prune)", || {
        hf.raycast(&Ray::new(DVec3::new(10.0, 10.0, top + 5.0), DVec3::new(1.0, 0.3, 0.0)), f64::INFINITY).is_some()
    });
    time("vertical", || {
        hf.raycast(&Ray::new(DVec3::new(500.3, 600.7, top + 5.0), DVec3::NEG_Z), f64::INFINITY).is_some()
    });
    time("height_at", || hf.height_at(std::hint::black_box(500.3), 600.7).is_some());
    let p = hf.sample_position(500, 600);
    time("steep short (near vertical)", || {
        hf.raycast(&Ray::new(p + DVec3::new(0.3, 0.2, 3.0), DVec3::new(-0.1, -0.07, -1.0)), f64::INFINITY).is_some()
    });
    time("45 deg from 3 m", || {
        hf.raycast(&Ray::new(p + DVec3::new(0.3, 0.2, 3.0), DVec3::new(1.0, 0.0, -1.0)), f64::INFINITY).is_some()
    });
    time("45 deg from 50 m above top", || {
        hf.raycast(&Ray::new(DVec3::new(p.x, p.y, top + 50.0), DVec3::new(1.0, 0.0, -1.0)), f64::INFINITY).is_some()
    });
}
