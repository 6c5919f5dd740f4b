//! Jolt Physics 5.0's `BroadPhaseQuadTree` as a broad-phase peer: a `BodyManager` holding one
//! dynamic, active sphere body per object (f32), each frame every body moved
//! (`SetPositionAndRotationInternal`, bounds recomputed), `NotifyBodiesAABBChanged` on all of them,
//! the tree updated as `PhysicsSystem::Update` does (`UpdatePrepare`/`UpdateFinalize`), then
//! `FindCollidingPairs` over every body, and the exact f64 sphere test on the pairs in Rust. Only
//! with the `jolt` feature (`scripts/fetch-jolt.sh`; the C interface is `jolt/shim.cpp`).
//!
//! Jolt is f32: each box is widened (Jolt's speculative contact distance) by four units in the last
//! place of the largest coordinate, beyond the rounding of centres and radii, so that no touching
//! pair is lost; the exact test removes the rest. The axes are passed as they are (a broad phase has
//! no up).

use crate::broad_peers::touch;
use glam::DVec3;
use std::ffi::{c_char, c_void, CStr};

extern "C" {
    fn lf_jolt_broad_new(xyzr: *const f32, n: u32, error: *mut c_char, error_len: usize) -> *mut c_void;
    fn lf_jolt_broad_free(broad: *mut c_void);
    fn lf_jolt_broad_frame(broad: *mut c_void, xyz: *const f32, margin: f32, pairs: *mut *const u32) -> usize;
}

/// Jolt's `BroadPhaseQuadTree` over one sphere body per object.
pub struct JoltBroadPhase {
    broad: *mut c_void,
    xyz: Vec<f32>,
    /// Bodies, and the largest radius.
    n: usize,
    radius: f64,
}

impl JoltBroadPhase {
    /// One body per sphere (body k is sphere k). An error for no spheres, a radius that is not
    /// positive (Jolt's spheres need one), or what Jolt reports.
    pub fn new(spheres: &[(DVec3, f64)]) -> Result<Self, String> {
        if let Some((c, r)) = spheres.iter().find(|s| !(s.1 > 0.0 && s.0.is_finite() && s.1.is_finite())) {
            return Err(format!("Jolt's spheres need a finite centre and a positive radius, not {c} and {r}"));
        }
        let xyzr: Vec<f32> =
            spheres.iter().flat_map(|&(c, r)| [c.x as f32, c.y as f32, c.z as f32, r as f32]).collect();
        let mut error = [0 as c_char; 256];
        // SAFETY: four floats per sphere and 256 bytes for the message, as the shim reads and writes.
        let broad = unsafe { lf_jolt_broad_new(xyzr.as_ptr(), spheres.len() as u32, error.as_mut_ptr(), 256) };
        if broad.is_null() {
            // SAFETY: the shim wrote a NUL-terminated message.
            return Err(unsafe { CStr::from_ptr(error.as_ptr()) }.to_string_lossy().into_owned());
        }
        let radius = spheres.iter().map(|s| s.1).fold(0.0, f64::max);
        Ok(Self { broad, xyz: Vec::with_capacity(3 * spheres.len()), n: spheres.len(), radius })
    }

    /// Moves the bodies to `spheres`' centres (the spheres given to [`Self::new`], in the same
    /// order, radii unchanged), runs Jolt's frame, and reports each pair of spheres that overlap or
    /// touch once (lower index first).
    pub fn pairs(&mut self, spheres: &[(DVec3, f64)], mut visit: impl FnMut(u32, u32)) {
        assert_eq!(spheres.len(), self.n, "the spheres given to JoltBroadPhase::new");
        self.xyz.clear();
        let mut far = self.radius;
        for &(c, _) in spheres {
            far = far.max(c.abs().max_element() + self.radius);
            self.xyz.extend([c.x as f32, c.y as f32, c.z as f32]);
        }
        let far = far as f32;
        let margin = 4.0 * (far.next_up() - far);
        let mut out: *const u32 = std::ptr::null();
        // SAFETY: a live broad phase and three floats per body; the pairs stay valid until the next
        // frame, and are read before it.
        let n = unsafe { lf_jolt_broad_frame(self.broad, self.xyz.as_ptr(), margin, &mut out) };
        let found = if n == 0 {
            &[][..]
        } else {
            // SAFETY: the shim's 2n indices at `out`, alive until the next frame.
            unsafe { std::slice::from_raw_parts(out, 2 * n) }
        };
        for p in found.chunks_exact(2) {
            let (a, b) = (p[0].min(p[1]), p[0].max(p[1]));
            if touch(spheres[a as usize], spheres[b as usize]) {
                visit(a, b);
            }
        }
    }
}

impl Drop for JoltBroadPhase {
    fn drop(&mut self) {
        // SAFETY: the broad phase made in `new`, freed once.
        unsafe { lf_jolt_broad_free(self.broad) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broad_peers::tests::brute_force;
    use landfall::support::SplitMix64;
    use std::collections::BTreeSet;

    /// Jolt's pairs, filtered by the exact test, are brute force's on every frame of spheres of
    /// 0.01–100 m moving by up to their own size, near the origin and 200 km out.
    #[test]
    fn jolt_equals_brute_force_over_frames() {
        for (seed, offset) in [(7, DVec3::ZERO), (8, DVec3::new(2e5, -2e5, 0.0))] {
            let mut rng = SplitMix64::new(seed);
            let mut spheres: Vec<(DVec3, f64)> = (0..1500)
                .map(|_| {
                    let r = 10f64.powf(rng.range(-2.0, 2.0)) / 2.0;
                    let c = DVec3::new(rng.range(-200.0, 200.0), rng.range(-200.0, 200.0), rng.range(0.0, 5.0));
                    (offset + c, r)
                })
                .collect();
            let mut jolt = JoltBroadPhase::new(&spheres).unwrap();
            for frame in 0..6 {
                let want = brute_force(&spheres);
                let mut got = BTreeSet::new();
                jolt.pairs(&spheres, |a, b| assert!(got.insert((a, b)), "pair twice"));
                assert!(!want.is_empty());
                assert_eq!(got, want, "seed {seed}, frame {frame}");
                for s in &mut spheres {
                    s.0 += DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-0.1, 0.1)) * s.1;
                }
            }
        }
        assert!(JoltBroadPhase::new(&[(DVec3::ZERO, 0.0)]).is_err());
    }
}
