//! The navigation-mesh baseline: `landmass` (a maintained Rust navigation system for game
//! characters: A* over a mesh's convex polygons, then string pulling through their portals, as
//! Detour does) on a mesh of the same free space — the square minus each inflated disc, the disc
//! replaced by the 16-gon around it (so the mesh holds no point closer to an obstacle than the
//! agent's radius) — triangulated by `spade` (constrained Delaunay, crossing polygon sides split
//! where they meet), the triangles outside every 16-gon kept. landmass builds no mesh from
//! geometry (that is Recast's job, which has no maintained Rust port): this file is that step.

use glam::{DVec2, Vec2};
use landfall::world::Disc;
use landmass::{
    Archipelago, ArchipelagoOptions, FromAgentRadius, Island, NavigationMesh, PathStep, PermittedAnimationLinks,
    Transform, XY,
};
use spade::handles::FixedVertexHandle;
use spade::{ConstrainedDelaunayTriangulation, Point2, Triangulation};
use std::collections::HashMap;
use std::f64::consts::{PI, TAU};
use std::sync::Arc;

/// Sides of the polygon around each inflated disc.
const SIDES: usize = 16;

/// A landmass archipelago of one island: the free space's triangles.
pub struct NavMesh {
    archipelago: Archipelago<XY>,
    /// Triangles of the mesh.
    pub triangles: usize,
}

impl NavMesh {
    /// The mesh of the square [0, `side`]² minus the 16-gons around `discs` grown by `r`.
    pub fn new(discs: &[Disc], r: f64, side: f64) -> Self {
        let mut cdt = ConstrainedDelaunayTriangulation::<Point2<f64>>::new();
        let ring = |cdt: &mut ConstrainedDelaunayTriangulation<Point2<f64>>, pts: &[DVec2]| {
            let vs: Vec<FixedVertexHandle> = pts
                .iter()
                .map(|p| {
                    let p = p.clamp(DVec2::ZERO, DVec2::splat(side));
                    cdt.insert(Point2::new(p.x, p.y)).expect("finite points")
                })
                .collect();
            for k in 0..vs.len() {
                let (u, v) = (vs[k], vs[(k + 1) % vs.len()]);
                if u != v {
                    cdt.add_constraint_and_split(u, v, |p| p);
                }
            }
        };
        ring(&mut cdt, &[DVec2::ZERO, DVec2::new(side, 0.0), DVec2::splat(side), DVec2::new(0.0, side)]);
        // Each 16-gon's corners at the circumradius: its sides touch the inflated disc.
        let outer = 1.0 / (PI / SIDES as f64).cos();
        for d in discs {
            let rr = d.radius + r;
            let pts: Vec<DVec2> =
                (0..SIDES).map(|k| d.center + DVec2::from_angle(TAU * k as f64 / SIDES as f64) * rr * outer).collect();
            ring(&mut cdt, &pts);
        }
        // Inside a 16-gon: within its apothem (the inflated radius) along every side's normal.
        let inside = |q: DVec2, d: &Disc| {
            let rr = d.radius + r;
            q.distance(d.center) < rr * outer
                && (0..SIDES).all(|k| {
                    let n = DVec2::from_angle(TAU * (k as f64 + 0.5) / SIDES as f64);
                    (q - d.center).dot(n) < rr
                })
        };
        let vertices: Vec<Vec2> =
            cdt.vertices().map(|v| Vec2::new(v.position().x as f32, v.position().y as f32)).collect();
        let polygons: Vec<Vec<usize>> = cdt
            .inner_faces()
            .filter(|f| {
                let [a, b, c] = f.positions();
                let m = DVec2::new(a.x + b.x + c.x, a.y + b.y + c.y) / 3.0;
                !discs.iter().any(|d| inside(m, d))
            })
            .map(|f| f.vertices().iter().map(|v| v.fix().index()).collect())
            .collect();
        let triangles = polygons.len();
        let mesh = NavigationMesh::<XY> {
            vertices,
            polygon_type_indices: vec![0; polygons.len()],
            polygons,
            height_mesh: None,
        };
        let mesh = mesh.validate().expect("a valid navigation mesh");
        let mut archipelago = Archipelago::<XY>::new(ArchipelagoOptions::from_agent_radius(r as f32));
        archipelago.add_island(Island::new(Transform { translation: Vec2::ZERO, rotation: 0.0 }, Arc::new(mesh)));
        archipelago.update(0.0);
        Self { archipelago, triangles }
    }

    /// The path's corners from `a` to `b` (their nearest points on the mesh), or `None`.
    pub fn path(&self, a: DVec2, b: DVec2) -> Option<Vec<DVec2>> {
        let near = 1.0f32;
        let s = self.archipelago.sample_point(a.as_vec2(), &near).ok()?;
        let e = self.archipelago.sample_point(b.as_vec2(), &near).ok()?;
        let steps = self.archipelago.find_path(&s, &e, &HashMap::new(), PermittedAnimationLinks::All).ok()?;
        let mut pts = vec![s.point().as_dvec2()];
        for step in steps {
            if let PathStep::Waypoint(p) = step {
                pts.push(p.as_dvec2());
            }
        }
        Some(pts)
    }
}
