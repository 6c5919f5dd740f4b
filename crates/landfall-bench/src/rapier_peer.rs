//! rapier3d 0.36 on the same triangles: a static `TriMesh` collider (f32, centred; Z up is kept and
//! given to the controller as `up`), its query pipeline, ball shape casts and
//! `KinematicCharacterController` moves.

use glam::DVec3;
use rapier3d::control::{CharacterAutostep, CharacterLength, KinematicCharacterController};
use rapier3d::parry::query::ShapeCastOptions;
use rapier3d::prelude::*;

/// A rapier scene holding one static triangle mesh.
pub struct RapierScene {
    bodies: RigidBodySet,
    colliders: ColliderSet,
    broad_phase: BroadPhaseBvh,
    narrow_phase: NarrowPhase,
    center: DVec3,
}

impl RapierScene {
    /// The mesh of `triangles` over `vertices` (world coordinates).
    pub fn new(vertices: &[DVec3], triangles: &[[u32; 3]]) -> Self {
        let b = vertices.iter().fold(landfall::Aabb::EMPTY, |b, &v| b.grown(v));
        let center = DVec3::new((b.min.x + b.max.x) * 0.5, (b.min.y + b.max.y) * 0.5, 0.0);
        let verts: Vec<Vector> = vertices.iter().map(|&v| to_f32(v - center)).collect();
        let mut colliders = ColliderSet::new();
        colliders.insert(ColliderBuilder::trimesh(verts, triangles.to_vec()).expect("valid mesh").build());
        let mut bodies = RigidBodySet::new();
        let (mut broad_phase, mut narrow_phase) = (BroadPhaseBvh::new(), NarrowPhase::new());
        // One empty step puts the collider into the broad phase.
        PhysicsPipeline::new().step(
            Vector::ZERO,
            &IntegrationParameters::default(),
            &mut IslandManager::new(),
            &mut broad_phase,
            &mut narrow_phase,
            &mut bodies,
            &mut colliders,
            &mut ImpulseJointSet::new(),
            &mut MultibodyJointSet::new(),
            &mut SoftBodySet::new(),
            &mut CCDSolver::new(),
            &(),
            &(),
        );
        Self { bodies, colliders, broad_phase, narrow_phase, center }
    }

    fn pipeline(&self) -> QueryPipeline<'_> {
        self.broad_phase.as_query_pipeline(
            self.narrow_phase.query_dispatcher(),
            &self.bodies,
            &self.colliders,
            QueryFilter::default(),
        )
    }

    /// Fraction of `motion` at which a ball of radius `r` at `c` first touches the mesh.
    pub fn cast_ball(&self, c: DVec3, r: f64, motion: DVec3) -> Option<f32> {
        let pose = Pose::from_translation(to_f32(c - self.center));
        let opts =
            ShapeCastOptions { max_time_of_impact: 1.0, stop_at_penetration: true, ..ShapeCastOptions::default() };
        self.pipeline().cast_shape(&pose, to_f32(motion), &Ball::new(r as f32), opts).map(|(_, hit)| hit.time_of_impact)
    }

    /// One `KinematicCharacterController` move of a ball of radius `r` at `c` (new center,
    /// grounded).
    pub fn move_ball(&self, kcc: &KinematicCharacterController, c: DVec3, r: f64, desired: DVec3) -> (DVec3, bool) {
        let pose = Pose::from_translation(to_f32(c - self.center));
        let m = kcc.move_shape(1.0 / 60.0, &self.pipeline(), &Ball::new(r as f32), &pose, to_f32(desired), |_| {});
        (c + DVec3::new(m.translation.x as f64, m.translation.y as f64, m.translation.z as f64), m.grounded)
    }
}

/// rapier's controller with the options of landfall's default `ControllerParams` (Z up, 1 cm offset,
/// 45° climb, 30° slide, 0.3 m steps, 0.3 m snap).
pub fn controller() -> KinematicCharacterController {
    KinematicCharacterController {
        up: Vector::Z,
        offset: CharacterLength::Absolute(0.01),
        slide: true,
        autostep: Some(CharacterAutostep {
            max_height: CharacterLength::Absolute(0.3),
            min_width: CharacterLength::Absolute(0.1),
            include_dynamic_bodies: false,
        }),
        max_slope_climb_angle: 45f32.to_radians(),
        min_slope_slide_angle: 30f32.to_radians(),
        snap_to_ground: Some(CharacterLength::Absolute(0.3)),
        ..KinematicCharacterController::default()
    }
}

fn to_f32(v: DVec3) -> Vector {
    Vector::new(v.x as f32, v.y as f32, v.z as f32)
}
