//! Pictures made with landfall's own batch ray casts: a perspective camera, shading from the hit
//! normals, sun shadows by shadow rays, aerial haze.

use anyhow::{Context, Result};
use landfall::glam::DVec3;
use landfall::{Hit, Ray, Terrain};
use rayon::prelude::*;
use std::path::Path;

/// A pinhole camera.
pub struct Camera {
    pub eye: DVec3,
    pub target: DVec3,
    /// Vertical field of view, degrees.
    pub fov_deg: f64,
}

impl Camera {
    /// A view across the terrain from above its south-west quarter, toward the north-east.
    pub fn overview(hf: &dyn Terrain) -> Self {
        Self::over(hf, hf.bounds())
    }

    /// [`overview`](Self::overview) of the part of the terrain inside `b`.
    pub fn over(hf: &dyn Terrain, b: landfall::Aabb) -> Self {
        let size = b.max - b.min;
        let relief = size.z.max(1e-9);
        let (ex, ey) = (b.min.x + 0.12 * size.x, b.min.y + 0.08 * size.y);
        let ground = hf.top_surface(DVec3::new(ex, ey, 0.0)).map_or(b.min.z, |s| s.point.z);
        Camera {
            eye: DVec3::new(ex, ey, ground.max(b.min.z + 0.3 * relief) + 0.45 * relief),
            target: DVec3::new(b.min.x + 0.62 * size.x, b.min.y + 0.7 * size.y, b.min.z + 0.25 * relief),
            fov_deg: 55.0,
        }
    }

    /// The primary ray through the centre of pixel (px, py) of a `w × h` image (row 0 at the top).
    pub fn ray(&self, px: u32, py: u32, w: u32, h: u32) -> Ray {
        let fwd = (self.target - self.eye).normalize();
        let right = fwd.cross(DVec3::Z).normalize();
        let up = right.cross(fwd);
        let tan = (self.fov_deg.to_radians() * 0.5).tan();
        let aspect = w as f64 / h as f64;
        let sx = ((px as f64 + 0.5) / w as f64 * 2.0 - 1.0) * tan * aspect;
        let sy = (1.0 - (py as f64 + 0.5) / h as f64 * 2.0) * tan;
        Ray::new(self.eye, fwd + right * sx + up * sy)
    }
}

impl Camera {
    /// The pixel (column, row) where world point `p` appears in a `w × h` image, if in front.
    pub fn project(&self, p: DVec3, w: u32, h: u32) -> Option<(f64, f64)> {
        let fwd = (self.target - self.eye).normalize();
        let right = fwd.cross(DVec3::Z).normalize();
        let up = right.cross(fwd);
        let d = p - self.eye;
        let z = d.dot(fwd);
        if z <= 0.0 {
            return None;
        }
        let tan = (self.fov_deg.to_radians() * 0.5).tan();
        let aspect = w as f64 / h as f64;
        let (sx, sy) = (d.dot(right) / z / (tan * aspect), d.dot(up) / z / tan);
        Some(((sx + 1.0) * 0.5 * w as f64, (1.0 - sy) * 0.5 * h as f64))
    }
}

/// First hits of a batch of rays on any terrain, in parallel.
pub fn cast_all(t: &dyn Terrain, rays: &[(Ray, f64)]) -> Vec<Option<Hit>> {
    rays.par_iter().with_min_len(256).map(|(r, m)| t.raycast(r, *m)).collect()
}

/// Paints the visible points of `paths` (unoccluded from the camera) into `px` as small dots.
pub fn draw_paths(hf: &dyn Terrain, cam: &Camera, paths: &[Vec<DVec3>], w: u32, h: u32, px: &mut [u8]) -> usize {
    let points: Vec<(usize, DVec3)> =
        paths.iter().enumerate().flat_map(|(k, p)| p.iter().map(move |&q| (k, q))).collect();
    let sight: Vec<(Ray, f64)> = points.iter().map(|&(_, q)| (Ray::new(cam.eye, q - cam.eye), 0.999)).collect();
    let blocked = cast_all(hf, &sight);
    let mut drawn = 0;
    for (&(k, q), b) in points.iter().zip(&blocked) {
        let Some((x, y)) = cam.project(q, w, h).filter(|_| b.is_none()) else { continue };
        // A warm colour per walker.
        let hue = (k as f64 * 0.618_034).fract();
        let col = [255u8, (30.0 + 90.0 * hue) as u8, (20.0 + 60.0 * (1.0 - hue)) as u8];
        for (dx, dy) in [(0i64, 0i64), (1, 0), (0, 1), (1, 1)] {
            let (cx, cy) = (x as i64 + dx, y as i64 + dy);
            if cx >= 0 && cy >= 0 && (cx as u32) < w && (cy as u32) < h {
                let at = 3 * (cy as usize * w as usize + cx as usize);
                px[at..at + 3].copy_from_slice(&col);
            }
        }
        drawn += 1;
    }
    drawn
}

fn sky(dir: DVec3) -> DVec3 {
    let d = dir.normalize();
    DVec3::new(0.70, 0.80, 0.95).lerp(DVec3::new(0.32, 0.50, 0.85), d.z.clamp(0.0, 1.0).sqrt())
}

/// Renders terrain `hf` from `cam` into an RGB8 buffer, haze thickening over `haze` metres (0: from
/// the terrain's size); returns (pixels, primary hits, shadowed pixels).
pub fn render(hf: &dyn Terrain, cam: &Camera, w: u32, h: u32, haze: f64) -> (Vec<u8>, usize, usize) {
    render_tinted(hf, cam, w, h, haze, &|_| None)
}

/// [`render`] with `tint` choosing the colour of what a ray hit (the ground's colour map where it
/// says `None`).
pub fn render_tinted(
    hf: &dyn Terrain,
    cam: &Camera,
    w: u32,
    h: u32,
    haze: f64,
    tint: &(dyn Fn(&Hit) -> Option<DVec3> + Sync),
) -> (Vec<u8>, usize, usize) {
    let sun = DVec3::new(-0.8, 0.5, 0.33).normalize();
    let rays: Vec<(Ray, f64)> =
        (0..h).flat_map(|y| (0..w).map(move |x| (x, y))).map(|(x, y)| (cam.ray(x, y, w, h), f64::INFINITY)).collect();
    let hits = cast_all(hf, &rays);
    let b = hf.bounds();
    // The landscape's colour map (the meshes' and the viewer's), over the heights in view.
    let (zlo, zhi) =
        hits.iter().flatten().fold((f64::INFINITY, f64::NEG_INFINITY), |a, h| (a.0.min(h.point.z), a.1.max(h.point.z)));
    let colours = if zlo <= zhi {
        landfall::support::ColourMap::for_range(zlo, zhi)
    } else {
        landfall::support::ColourMap::for_range(b.min.z, b.max.z)
    };
    let relief = (b.max.z - b.min.z).max(1e-9);
    let span = (b.max - b.min).truncate().length();
    let haze = if haze > 0.0 { haze } else { 2.5 * span };
    // Shadow rays from just above each hit, toward the sun.
    let shadow_rays: Vec<(Ray, f64)> = hits
        .iter()
        .flatten()
        .map(|hit| {
            let lift = 1e-3 * relief.max(span * 1e-3);
            (Ray::new(hit.point + hit.normal * lift, sun), f64::INFINITY)
        })
        .collect();
    let shadow = cast_all(hf, &shadow_rays);
    let mut shadow_iter = shadow.iter();
    let mut px = Vec::with_capacity((w * h * 3) as usize);
    let (mut n_hit, mut n_shadow) = (0, 0);
    for ((ray, _), hit) in rays.iter().zip(&hits) {
        let c = match hit {
            None => sky(ray.dir),
            Some(hit) => {
                n_hit += 1;
                let lit = shadow_iter.next().is_some_and(|s| s.is_none());
                n_shadow += usize::from(!lit);
                let n = hit.normal;
                let base = tint(hit).unwrap_or_else(|| {
                    let [r, g, bl] = colours.colour(hit.point.z, n.z);
                    DVec3::new(r as f64, g as f64, bl as f64)
                });
                let diffuse = if lit { n.dot(sun).max(0.0) } else { 0.0 };
                let ambient = 0.22 + 0.12 * n.z;
                let col = base * (ambient + 1.1 * diffuse);
                let dist = hit.t * ray.dir.length();
                let fog = 1.0 - (-dist / haze).exp();
                col.lerp(sky(DVec3::new(ray.dir.x, ray.dir.y, 0.05)), fog * 0.6)
            }
        };
        for v in [c.x, c.y, c.z] {
            px.push((v.clamp(0.0, 1.0).powf(1.0 / 2.2) * 255.0 + 0.5) as u8);
        }
    }
    (px, n_hit, n_shadow)
}

/// Writes an RGB8 PNG, creating its directory.
pub fn write_png(path: &Path, w: u32, h: u32, rgb: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    }
    Ok(landfall_io::write_png_rgb(path, w, h, rgb)?)
}
