//! Balls on ground that moves, and a viewer who walks: a moving world's cache update (or an edit)
//! changes the triangles under some balls, and the level of detail of behaviour follows the viewer.
//! Only the balls concerned are predicted again.
//!
//! **A change of ground** comes with the box it may have changed ([`World::changed_region`](crate::world::World::changed_region)
//! for the world). A ball whose window (the box its arc sweeps until its predicted event, or a
//! resting ball's own box) misses that box stands on the same triangles as before: its prediction
//! holds. Each ball whose window meets it is looked at, at the current time:
//! * ground that rose into it lifts it straight up to where the ground first touches it: it is
//!   dropped from above every triangle under it along the vertical, as a sphere [`TOLERANCE`] fatter
//!   than itself, so it ends that far clear;
//! * a resting ball whose support fell away (no ground, fixed sphere or ball within 10⁻⁶ under
//!   its surface) is woken with no speed and falls to the new ground;
//! * every flying ball in the box is predicted again on the new ground, and so is every flying
//!   ball whose window meets a resting ball that was lifted.
//!
//! This is the level of detail of the ground (5.2.2): far from the viewer the world's cache holds
//! coarse cells, and balls there bounce off the coarse ground; as the viewer comes, the fine cells
//! replace them and the balls settle on what is now drawn.
//!
//! **A walking viewer** ([`Simulation::move_viewer`]): a ball whose window comes into the range is
//! predicted again (and lifted out of any near ball it overlaps, as when its flight brings it into
//! range); one that leaves it stops predicting contacts with other balls.

use super::TerrainBalls;
use crate::collide::{closest_point, SweepTarget, TerrainSweep};
use crate::events::ballistic::TOLERANCE;
use crate::events::{ObjectId, Simulation};
use crate::geom::Aabb;
use crate::params::ParamError;
use crate::terrain::Terrain;
use glam::DVec3;

/// A resting ball is supported while something lies within this of its surface.
const SUPPORT_GAP: f64 = 1e-6;

/// What a change of ground did to the balls ([`Simulation::change_ground`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Regrounded {
    /// Balls whose windows meet the changed box (looked at).
    pub looked_at: usize,
    /// Balls predicted again.
    pub predicted: usize,
    /// Balls lifted out of ground that rose into them.
    pub lifted: usize,
    /// Resting balls whose support fell away: they fall to the new ground.
    pub woken: usize,
}

impl std::ops::AddAssign for Regrounded {
    /// Adds another change's counts (totals over a run).
    fn add_assign(&mut self, o: Self) {
        self.looked_at += o.looked_at;
        self.predicted += o.predicted;
        self.lifted += o.lifted;
        self.woken += o.woken;
    }
}

impl<T: Terrain> Simulation<TerrainBalls<T>> {
    /// Changes the ground under the balls at the current time ([`now`](Self::now): call it between
    /// [`advance_to`](Self::advance_to)s). `edit` changes the terrain and answers the box whose
    /// ground it may have changed (`None`: nothing changed; a box with a NaN: anywhere); the balls whose windows meet it are
    /// lifted out of risen ground, woken where their support fell away and predicted again (see
    /// the module's docs). Lifting needs gravity straight down (−z); with any other gravity the
    /// balls are predicted again where they are.
    ///
    /// ```
    /// use landfall::events::{Ball, BallParams, Simulation, TerrainBalls};
    /// use landfall::glam::DVec3;
    /// use landfall::world::{CacheParams, World, WorldParams};
    ///
    /// let params = WorldParams::default().with_levels(8).with_cell_size(2.0).with_relief(20.0);
    /// let cache = CacheParams::default().with_layers(5).with_inner_radius(4).with_mesh_coarsest(4);
    /// let world: World = World::new(params, cache, DVec3::new(0.0, 0.0, 30.0))?;
    /// let ground = world.height_at(0.0, 0.0).unwrap();
    /// let ball = Ball { p: DVec3::new(0.0, 0.0, ground + 5.0), v: DVec3::X, r: 0.5, m: 1.0 };
    /// let mut sim = Simulation::new(TerrainBalls::new(world, vec![], &[ball], BallParams::default())?, 0.0);
    /// for frame in 1..=60 {
    ///     let t = frame as f64 / 30.0;
    ///     sim.advance_to(t, |_, _| {});
    ///     // The viewer walks east; the world's cache follows, and the ball meets what is drawn.
    ///     let viewer = DVec3::new(4.0 * t, 0.0, 30.0);
    ///     sim.change_ground(|w: &mut World| w.update(viewer).map(|_| w.changed_region()))?;
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn change_ground<E>(&mut self, edit: impl FnOnce(&mut T) -> Result<Option<Aabb>, E>) -> Result<Regrounded, E> {
        let now = self.now();
        let m = self.model_mut();
        let Some(mut region) = edit(&mut m.terrain)? else { return Ok(Regrounded::default()) };
        if region.min.is_nan() || region.max.is_nan() {
            // A box that says nothing: the ground may have changed anywhere.
            region = Aabb { min: DVec3::NEG_INFINITY, max: DVec3::INFINITY };
        }
        let mut out = Regrounded::default();
        let (mut first, mut then) = (Vec::new(), Vec::new());
        for k in 0..m.p.len() {
            let (lo, hi) = m.windows[k];
            if !(m.alive[k] && lo.cmple(region.max).all() && region.min.cmple(hi).all()) {
                continue;
            }
            out.looked_at += 1;
            m.rebase(k, now);
            let lifted = m.lift_out(k);
            out.lifted += usize::from(lifted);
            if !m.resting[k] {
                then.push(k);
            } else if lifted {
                // Flying balls whose windows meet it predict their contact with it again.
                first.push(k);
                m.neighbours(k, (m.p[k] - DVec3::splat(m.r[k]), m.p[k] + DVec3::splat(m.r[k])));
                then.extend(m.found.iter().map(|&j| j as usize).filter(|&j| !m.resting[j]));
            } else if !m.supported(k) {
                m.resting[k] = false;
                m.v[k] = DVec3::ZERO;
                out.woken += 1;
                then.push(k);
            }
        }
        // Resting balls first: their boxes are where flying balls look for them.
        then.sort_unstable();
        then.dedup();
        for k in first.into_iter().chain(then) {
            self.changed(k as ObjectId);
            out.predicted += 1;
        }
        Ok(out)
    }

    /// Moves the level of detail's viewer ([`BallParams::lod`](super::BallParams::lod)) at the current
    /// time: the balls whose windows come into its range or leave it are predicted again; returns how
    /// many. Without a level of detail there is no viewer and nothing changes (0). Refuses a viewer
    /// that is not finite (field `lod.viewer`).
    pub fn move_viewer(&mut self, viewer: DVec3) -> Result<usize, ParamError> {
        let m = self.model_mut();
        let Some(lod) = m.params.lod else { return Ok(0) };
        let params = m.params.with_lod(Some(super::BehaviourLod { viewer, ..lod }));
        params.validate()?;
        m.params = params;
        let mut changed: Vec<usize> = (0..m.p.len())
            .filter(|&k| m.alive[k] && (m.params.ball_collisions && m.in_range(m.windows[k])) != m.near[k])
            .collect();
        // Resting balls first: their boxes are where flying balls look for them.
        changed.sort_by_key(|&k| !m.resting[k]);
        for &k in &changed {
            self.changed(k as ObjectId);
        }
        Ok(changed.len())
    }
}

impl<T: Terrain> TerrainBalls<T> {
    /// Lifts ball k (rebased to now) out of the ground if the ground is in it: dropped along −z
    /// from above every triangle under it, as a sphere [`TOLERANCE`] fatter, to its first touch.
    /// Returns whether it moved.
    fn lift_out(&mut self, k: usize) -> bool {
        let g = self.params.gravity;
        if !(g.x == 0.0 && g.y == 0.0 && g.z < 0.0) {
            return false;
        }
        let (p, r) = (self.p[k], self.r[k]);
        // The column over the ball: every triangle that can touch it on its way down from above.
        let column = Aabb::new(p - DVec3::splat(r), DVec3::new(p.x + r, p.y + r, f64::MAX));
        let mut top = f64::NEG_INFINITY;
        self.terrain.triangles_in(&column, &mut |_, t| top = top.max(t[0].z.max(t[1].z).max(t[2].z)));
        let start = top + r + 1.0;
        if start <= p.z {
            return false;
        }
        let from = DVec3::new(p.x, p.y, start);
        let down = p - from;
        let Some(hit) = TerrainSweep(&self.terrain).sweep(from, r + TOLERANCE, down) else { return false };
        let at = from + down * hit.contact.t;
        // Touching (the fat sphere's touch is TOLERANCE above a ball that touches): left alone.
        if at.z - p.z <= 2.0 * TOLERANCE {
            return false;
        }
        self.p[k] = at;
        true
    }

    /// Whether resting ball k still touches (within [`SUPPORT_GAP`]) the ground, a fixed sphere or
    /// a resting near ball.
    fn supported(&mut self, k: usize) -> bool {
        let (p, r) = (self.p[k], self.r[k]);
        let reach = r + SUPPORT_GAP;
        if self.spheres.iter().any(|&(c, rs)| (c - p).length() <= reach + rs) {
            return true;
        }
        let mut ground = false;
        let region = Aabb::new(p - DVec3::splat(reach), p + DVec3::splat(reach));
        self.terrain.triangles_in(&region, &mut |_, t| ground |= (closest_point(&t, p) - p).length() <= reach);
        if ground {
            return true;
        }
        if !self.near[k] {
            return false;
        }
        self.neighbours(k, (region.min, region.max));
        let found = std::mem::take(&mut self.found);
        let on_ball = found.iter().any(|&j| {
            let j = j as usize;
            self.alive[j] && self.resting[j] && (self.p[j] - p).length() <= reach + self.r[j]
        });
        self.found = found;
        on_ball
    }
}
