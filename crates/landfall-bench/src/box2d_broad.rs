//! Box2D v3.1's dynamic tree (`b2DynamicTree`, the tree of its broad phase) as a broad-phase peer,
//! through the raw interface of the `boxdd` 0.6.0 binding (`boxdd-sys`, Box2D's C sources vendored
//! and compiled by cargo). Box2D is 2-D: the tree holds each sphere's **horizontal** extent (x, y),
//! and the exact 3-D sphere test removes the pairs apart in z.
//!
//! A frame does what Box2D's own step does with its dynamic bodies' shapes: each proxy's box (the
//! f64 box rounded outward to f32) is compared with its fat box; where it has left it, the fat box
//! becomes the box widened by Box2D's margin for a circle (⅛ of its radius, at most 0.05 m:
//! `b2ComputeShapeMargin`) and the proxy is enlarged (`b2DynamicTree_EnlargeProxy`, as
//! `b2BroadPhase_EnlargeProxy` does); then the tree's enlarged nodes are rebuilt
//! (`b2DynamicTree_Rebuild(tree, false)`, as `b2UpdateTreesTask` does); then every proxy, all of them
//! having moved, queries the tree with its fat box (`b2DynamicTree_Query`, as
//! `b2UpdateBroadPhasePairs` does for the moved proxies), keeping the partners of higher index (Box2D's
//! de-duplication of two moved proxies). Box2D's pair set and contact creation are not timed: the
//! pairs go to the exact test instead. The safe `boxdd::DynamicTree` resolves every hit through a
//! map of live proxy identities; the raw calls time Box2D's tree alone.

use crate::broad_peers::touch;
use boxdd_sys::ffi;
use glam::DVec3;
use landfall::bench::{f32_down, f32_up};
use std::ffi::c_void;

/// Box2D's dynamic tree over the spheres' horizontal extents.
pub struct Box2dTree {
    tree: ffi::b2DynamicTree,
    /// Proxy ids and fat boxes, by sphere index.
    proxies: Vec<i32>,
    fat: Vec<ffi::b2AABB>,
}

/// The f64 box of a sphere in x and y, rounded outward to f32, widened by `margin` first.
fn aabb(c: DVec3, r: f64, margin: f64) -> ffi::b2AABB {
    let h = r + margin;
    ffi::b2AABB {
        lowerBound: ffi::b2Vec2 { x: f32_down(c.x - h), y: f32_down(c.y - h) },
        upperBound: ffi::b2Vec2 { x: f32_up(c.x + h), y: f32_up(c.y + h) },
    }
}

/// Box2D's fat-box margin of a circle of radius `r` (`b2ComputeShapeMargin`).
fn margin(r: f64) -> f64 {
    (0.125 * r).min(0.05)
}

/// Whether `outer` contains `inner` (`b2AABB_Contains`).
fn contains(outer: &ffi::b2AABB, inner: &ffi::b2AABB) -> bool {
    outer.lowerBound.x <= inner.lowerBound.x
        && outer.lowerBound.y <= inner.lowerBound.y
        && inner.upperBound.x <= outer.upperBound.x
        && inner.upperBound.y <= outer.upperBound.y
}

/// What the query callback reads and writes.
struct Query<'a, F> {
    spheres: &'a [(DVec3, f64)],
    me: u32,
    visit: &'a mut F,
}

unsafe extern "C" fn on_hit<F: FnMut(u32, u32)>(_proxy: i32, user: u64, context: *mut c_void) -> bool {
    // SAFETY: `context` is the `Query` that `Box2dTree::pairs` passes to this query.
    let q = unsafe { &mut *(context as *mut Query<'_, F>) };
    let other = user as u32;
    if other > q.me && touch(q.spheres[q.me as usize], q.spheres[other as usize]) {
        (q.visit)(q.me, other);
    }
    true
}

/// The tree's proxies whose boxes meet `aabb`, each passed to `on_hit` with `q`.
fn query<F: FnMut(u32, u32)>(tree: &ffi::b2DynamicTree, aabb: ffi::b2AABB, q: &mut Query<'_, F>) {
    // SAFETY: the callback reads `q` as the `Query<F>` it is, and only during this call.
    unsafe { ffi::b2DynamicTree_Query(tree, aabb, u64::MAX, Some(on_hit::<F>), q as *mut Query<'_, F> as *mut c_void) };
}

impl Box2dTree {
    /// One proxy per sphere (its user data the sphere's index), in a tree built as Box2D builds a
    /// world's first step. An error for a centre or radius that is not finite or a negative radius.
    pub fn new(spheres: &[(DVec3, f64)]) -> Result<Self, String> {
        if let Some((c, r)) = spheres.iter().find(|s| !(s.1 >= 0.0 && s.0.is_finite() && s.1.is_finite())) {
            return Err(format!("Box2D's proxies need a finite centre and radius ≥ 0, not {c} and {r}"));
        }
        let capacity = i32::try_from(spheres.len()).map_err(|_| "too many spheres for Box2D".to_string())?;
        // SAFETY: plain constructor; the tree is destroyed in `drop`.
        let mut tree = unsafe { ffi::b2DynamicTree_Create(capacity.max(16)) };
        let mut proxies = Vec::with_capacity(spheres.len());
        let mut fat = Vec::with_capacity(spheres.len());
        for (k, &(c, r)) in spheres.iter().enumerate() {
            let b = aabb(c, r, margin(r));
            // SAFETY: a valid tree and a valid, finite box.
            proxies.push(unsafe { ffi::b2DynamicTree_CreateProxy(&mut tree, b, 1, k as u64) });
            fat.push(b);
        }
        // SAFETY: a valid tree.
        unsafe { ffi::b2DynamicTree_Rebuild(&mut tree, true) };
        Ok(Self { tree, proxies, fat })
    }

    /// Moves the proxies to `spheres` (the spheres given to [`Self::new`], in the same order),
    /// rebuilds the enlarged part of the tree, and reports each pair of spheres that overlap or touch
    /// once (lower index first).
    pub fn pairs(&mut self, spheres: &[(DVec3, f64)], mut visit: impl FnMut(u32, u32)) {
        assert_eq!(spheres.len(), self.proxies.len(), "the spheres given to Box2dTree::new");
        for (k, &(c, r)) in spheres.iter().enumerate() {
            let tight = aabb(c, r, 0.0);
            if !contains(&self.fat[k], &tight) {
                let b = aabb(c, r, margin(r));
                self.fat[k] = b;
                // SAFETY: a live proxy of this tree, enlarged to a box its old one does not contain.
                unsafe { ffi::b2DynamicTree_EnlargeProxy(&mut self.tree, self.proxies[k], b) };
            }
        }
        // SAFETY: a valid tree.
        unsafe { ffi::b2DynamicTree_Rebuild(&mut self.tree, false) };
        for (k, fat) in self.fat.iter().enumerate() {
            query(&self.tree, *fat, &mut Query { spheres, me: k as u32, visit: &mut visit });
        }
    }
}

impl Drop for Box2dTree {
    fn drop(&mut self) {
        // SAFETY: created by `b2DynamicTree_Create`, destroyed once.
        unsafe { ffi::b2DynamicTree_Destroy(&mut self.tree) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broad_peers::tests::brute_force;
    use landfall::support::SplitMix64;
    use std::collections::BTreeSet;

    /// On a small multi-scale scene moving over several frames (some objects jumping far, some
    /// stacked in z), the tree's pairs equal brute force's.
    #[test]
    fn box2d_equals_brute_force_over_frames() {
        let mut rng = SplitMix64::new(9);
        let mut spheres: Vec<(DVec3, f64)> = (0..600)
            .map(|_| {
                let r = 10f64.powf(rng.range(-2.0, 1.5)) / 2.0;
                (DVec3::new(rng.range(-100.0, 100.0), rng.range(-100.0, 100.0), rng.range(0.0, 40.0)), r)
            })
            .collect();
        spheres.push((DVec3::new(1.0, 2.0, 3.0), 0.0));
        spheres.push((DVec3::new(1.0, 2.0, 3.0), 0.0)); // two points at one place touch
        spheres.push((DVec3::new(10.0, 0.0, 0.0), 1.0));
        spheres.push((DVec3::new(12.0, 0.0, 0.0), 1.0)); // touching exactly
        let mut tree = Box2dTree::new(&spheres).unwrap();
        for frame in 0..6 {
            let mut got = BTreeSet::new();
            tree.pairs(&spheres, |a, b| assert!(got.insert((a, b)), "{a}, {b} twice"));
            let want = brute_force(&spheres);
            assert!(!want.is_empty());
            assert_eq!(got, want, "frame {frame}");
            for (k, s) in spheres.iter_mut().enumerate().skip(4) {
                if k % 50 == 0 {
                    s.0 = DVec3::new(rng.range(-100.0, 100.0), rng.range(-100.0, 100.0), s.0.z);
                } else {
                    s.0 += DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.0) * (0.1 * s.1);
                }
            }
        }
    }

    /// Far from the origin (f32's steps of 0.06 m), the rounding outward loses no pair.
    #[test]
    fn box2d_far_out_equals_brute_force() {
        let mut rng = SplitMix64::new(4);
        let spheres: Vec<(DVec3, f64)> = (0..400)
            .map(|_| (DVec3::new(rng.range(5e5, 5e5 + 50.0), rng.range(-5e5, -5e5 + 50.0), 0.0), rng.range(0.01, 2.0)))
            .collect();
        let mut tree = Box2dTree::new(&spheres).unwrap();
        let mut got = BTreeSet::new();
        tree.pairs(&spheres, |a, b| {
            got.insert((a, b));
        });
        assert_eq!(got, brute_force(&spheres));
        assert!(Box2dTree::new(&[(DVec3::ZERO, f64::NAN)]).is_err());
    }
}
