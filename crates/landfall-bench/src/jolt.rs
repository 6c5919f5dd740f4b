//! Jolt Physics 5.0 as a peer: a `HeightFieldShape` at Jolt's defaults (blocks of 2 × 2 cells,
//! heights stored in 8 bits per sample relative to their block, so lossy), cast one ray per call
//! with the hit's normal, and its vertical projection (`ProjectOntoSurface`, Jolt's O(1) height
//! lookup). Only with the `jolt` feature, which compiles Jolt from source (see
//! `scripts/fetch-jolt.sh`) with the C interface in `jolt/shim.cpp`.
//!
//! Jolt is Y up and f32: landfall's (x, y, z) is Jolt's (x, z, y), in a frame centred on the grid.
//! Jolt splits every cell by its (i, j)–(i+1, j+1) diagonal, landfall's `SouthWestNorthEast`;
//! with that diagonal and Jolt's height error allowed for, both find the same hits (tested below).

use crate::peers::{center, y_up};
use glam::DVec3;
use landfall::{Heightfield, Ray};
use std::ffi::{c_char, c_void, CStr};

extern "C" {
    fn lf_jolt_new(
        samples: *const f32,
        n: u32,
        offset: *const f32,
        scale: *const f32,
        error: *mut c_char,
        error_len: usize,
    ) -> *mut c_void;
    fn lf_jolt_free(shape: *mut c_void);
    fn lf_jolt_memory(shape: *const c_void) -> usize;
    fn lf_jolt_cast(
        shape: *const c_void,
        origin: *const f32,
        dir: *const f32,
        fraction: *mut f32,
        normal: *mut f32,
    ) -> bool;
    fn lf_jolt_height(shape: *const c_void, x: f32, z: f32, y: *mut f32) -> bool;
}

/// A Jolt `HeightFieldShape` of a square heightfield's samples.
pub struct Jolt {
    shape: *mut c_void,
    center: DVec3,
    /// Length of the diagonal of the terrain's box: a ray from distance r of the centre has left
    /// the box after r + this.
    box_diagonal: f64,
}

// SAFETY: a built shape is read-only; Jolt's queries on it are thread-safe.
unsafe impl Send for Jolt {}
// SAFETY: as above.
unsafe impl Sync for Jolt {}

impl Jolt {
    /// Whether Jolt takes `hf`'s grid by its shape: square, with at least two of Jolt's blocks
    /// (3 × 3 samples). Jolt may still refuse a huge one ([`new`](Self::new) gives its reason).
    pub fn accepts(hf: &Heightfield) -> bool {
        hf.nx() == hf.ny() && hf.nx() >= 3
    }

    /// Jolt's heightfield of `hf`'s samples (NaN samples become Jolt's holes). An error for a grid
    /// Jolt does not take (see [`accepts`](Self::accepts)) and for any error Jolt reports.
    pub fn new(hf: &Heightfield) -> Result<Self, String> {
        let n = hf.nx();
        if !Self::accepts(hf) {
            return Err(format!("Jolt takes square grids of at least 3 × 3 samples, not {} × {}", hf.nx(), hf.ny()));
        }
        let c = center(hf);
        // Row y of Jolt's samples runs along its x at z = y: landfall's row j (south first).
        let samples: Vec<f32> = hf.heights().unwrap().iter().map(|&h| if h.is_nan() { f32::MAX } else { h }).collect();
        let (o, s) = (hf.origin(), hf.spacing());
        let offset = y_up(DVec3::new(o.x, o.y, 0.0), c);
        let scale = [s.x as f32, 1.0, s.y as f32];
        let mut error = [0 as c_char; 256];
        // SAFETY: the pointers are valid for the lengths Jolt reads (n² samples, three floats each,
        // `error.len()` bytes); Jolt copies the samples.
        let shape = unsafe {
            lf_jolt_new(samples.as_ptr(), n as u32, offset.as_ptr(), scale.as_ptr(), error.as_mut_ptr(), 256)
        };
        if shape.is_null() {
            // SAFETY: the shim wrote a NUL-terminated message.
            return Err(unsafe { CStr::from_ptr(error.as_ptr()) }.to_string_lossy().into_owned());
        }
        let b = hf.bounds();
        Ok(Jolt { shape, center: c, box_diagonal: (b.max - b.min).length() })
    }

    /// Jolt's first hit t in [0, `max_t`], in landfall's units of |dir| (f32). Jolt casts segments:
    /// the ray is cast to `max_t` or to where it has left the terrain's box, whichever is nearer.
    #[inline]
    pub fn raycast(&self, ray: &Ray, max_t: f64) -> Option<f32> {
        // Past this t the ray has left the terrain's box: nothing further can be hit.
        let len = max_t.min(((ray.origin - self.center).length() + self.box_diagonal) / ray.dir.length());
        let (origin, dir) = (y_up(ray.origin, self.center), y_up(ray.dir * len, DVec3::ZERO));
        let (mut fraction, mut normal) = (0.0f32, [0.0f32; 3]);
        // SAFETY: a live shape; three floats at each pointer.
        let hit =
            unsafe { lf_jolt_cast(self.shape, origin.as_ptr(), dir.as_ptr(), &mut fraction, normal.as_mut_ptr()) };
        hit.then(|| (f64::from(fraction) * len) as f32)
    }

    /// The surface's height under (x, y), `None` outside the grid or over a hole.
    #[inline]
    pub fn height_at(&self, x: f64, y: f64) -> Option<f32> {
        let mut z = 0.0f32;
        // SAFETY: a live shape; one float written.
        let found =
            unsafe { lf_jolt_height(self.shape, (x - self.center.x) as f32, (y - self.center.y) as f32, &mut z) };
        found.then_some(z)
    }

    /// Bytes the shape holds (Jolt's count).
    pub fn memory_bytes(&self) -> usize {
        // SAFETY: a live shape.
        unsafe { lf_jolt_memory(self.shape) }
    }
}

impl Drop for Jolt {
    fn drop(&mut self) {
        // SAFETY: the reference taken in `new`, released once.
        unsafe { lf_jolt_free(self.shape) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrains;
    use landfall::support::workload as sets;
    use landfall::Diagonal;

    /// Jolt's heightfield, on landfall's terrain split as Jolt splits it, finds the hits landfall
    /// finds, with t within Jolt's height error, and heights within it; non-square grids are refused.
    #[test]
    fn jolt_hits_what_landfall_hits() {
        let g = terrains::generated(257).hf;
        let hf = Heightfield::builder(g.nx(), g.ny(), g.heights().unwrap().to_vec())
            .origin(g.origin().x, g.origin().y)
            .spacing(g.spacing().x, g.spacing().y)
            .diagonal(Diagonal::SouthWestNorthEast)
            .build()
            .unwrap();
        let jolt = Jolt::new(&hf).unwrap();
        // Jolt's 8-bit samples are off by up to half a step of their block's range: measured at the
        // samples, then allowed for between them (a triangle's error is at most its corners').
        let n = hf.nx();
        let err = (0..n - 1)
            .flat_map(|j| (0..n - 1).map(move |i| (i, j)))
            .map(|(i, j)| {
                let p = hf.sample_position(i, j);
                let z = jolt.height_at(p.x, p.y).expect("a height at every sample");
                (f64::from(z) - p.z).abs()
            })
            .fold(0.0, f64::max);
        assert!(err > 0.0 && err < 0.2, "Jolt's height error {err} m");
        let pts = sets::points(&hf, 2000, 3);
        let mut found = 0;
        for p in &pts {
            if let (Some(a), Some(b)) = (hf.height_at(p[0], p[1]), jolt.height_at(p[0], p[1])) {
                assert!((a - f64::from(b)).abs() <= err + 1e-3, "height at {p:?}: landfall {a}, Jolt {b}");
                found += 1;
            }
        }
        assert!(found > 1900, "{found} heights found by both");
        let mut set = sets::oblique(&hf, 500, 5);
        set.extend(sets::line_of_sight(&hf, 500, 6));
        let (mut both, mut differ) = (0, 0);
        for (r, m) in &set {
            match (hf.raycast(r, *m), jolt.raycast(r, *m)) {
                (Some(a), Some(b)) => {
                    // A height error moves the hit along a ray that does not graze the surface by a
                    // few times the error over the ray's slope; grazing rays count as differing.
                    let tol = 10.0 * err / r.dir.z.abs().max(1e-3 * r.dir.length());
                    differ += usize::from((a.t - f64::from(b)).abs() > tol);
                    both += 1;
                }
                (None, None) => {}
                _ => differ += 1,
            }
        }
        assert!(both > 300, "{both} hits found by both");
        assert!(differ <= set.len() / 100, "{differ} of {} rays answered differently", set.len());
        let odd = Heightfield::builder(3, 2, vec![0.0; 6]).build().unwrap();
        assert!(Jolt::new(&odd).is_err());
        assert!(jolt.memory_bytes() > 257 * 257);
    }
}
