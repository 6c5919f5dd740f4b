//! Things that move on the terrain: swept spheres, bodies placed on the ground, character
//! controllers, in batches.

use crate::args::{flag, vec3};
use landfall::collide::Shape;
use landfall::collide::{CharacterController, ControllerParams};
use landfall::collide::{SweepTarget, TerrainSweep};
use landfall::glam::DVec3;
use landfall::{place, Contacts, FollowParams, Refusal, Terrain};
use pyo3::FromPyObject;
use rayon::prelude::*;

const NAN3: [f64; 3] = [f64::NAN; 3];

fn xyz(v: DVec3) -> [f64; 3] {
    v.to_array()
}

/// Swept spheres (centres and motions flat n·3, radii n): rows hit, t (fraction of the motion),
/// contact point, contact normal, centre at contact; NaN where the sphere moves freely.
pub fn sweep(t: &dyn Terrain, c: &[f64], r: &[f64], v: &[f64]) -> Vec<[f64; 11]> {
    let target = TerrainSweep(t);
    (0..r.len())
        .into_par_iter()
        .with_min_len(256)
        .map(|k| {
            let (c, v) = (vec3(c, k), vec3(v, k));
            match target.sweep(c, r[k], v) {
                Some(h) => {
                    let x = h.contact;
                    let mut row = [0.0; 11];
                    row[0] = 1.0;
                    row[1] = x.t;
                    row[2..5].copy_from_slice(&xyz(x.point));
                    row[5..8].copy_from_slice(&xyz(x.normal));
                    row[8..11].copy_from_slice(&xyz(c + v * x.t));
                    row
                }
                None => {
                    let mut row = [f64::NAN; 11];
                    row[0] = 0.0;
                    row
                }
            }
        })
        .collect()
}

/// Why a body could not be placed, as a short code (0: placed).
pub fn refusal_code(r: &Refusal) -> f64 {
    r.code() as f64
}

/// Parses `"three"` or `"four"`.
pub fn contacts(s: &str) -> Result<Contacts, String> {
    match s {
        "three" => Ok(Contacts::ThreePoints),
        "four" => Ok(Contacts::FourWheels),
        _ => Err(format!("contacts: {s:?} (expected \"three\" or \"four\")")),
    }
}

/// Bodies placed on the ground: rows refusal code, position, up, forward, rotation (x, y, z, w),
/// pitch, roll, slope; NaN (code ≠ 0) where refused.
pub fn place_all(t: &dyn Terrain, p: &[f64], heading: &[f64], params: &FollowParams) -> Vec<[f64; 17]> {
    (0..heading.len())
        .into_par_iter()
        .with_min_len(256)
        .map(|k| match place(t, vec3(p, k), heading[k], params) {
            Ok(pl) => {
                let mut row = [0.0; 17];
                row[1..4].copy_from_slice(&xyz(pl.position));
                row[4..7].copy_from_slice(&xyz(pl.up));
                row[7..10].copy_from_slice(&xyz(pl.forward));
                row[10..14].copy_from_slice(&pl.rotation.to_array());
                row[14] = pl.pitch();
                row[15] = pl.roll();
                row[16] = pl.slope();
                row
            }
            Err(e) => {
                let mut row = [f64::NAN; 17];
                row[0] = refusal_code(&e);
                row
            }
        })
        .collect()
}

/// A character controller's options as the Python `CharacterController` holds them (read from its
/// attributes).
#[derive(FromPyObject)]
pub struct ControllerOptions {
    shape: String,
    radius: f64,
    half_height: f64,
    radii: [f64; 3],
    skin: f64,
    max_climb: f64,
    min_slide: f64,
    step_height: f64,
    snap: f64,
    max_iterations: usize,
}

/// A controller from the Python options: `shape` "sphere", "capsule" (with `half_height`) or
/// "ellipsoid" (with `radii`); every option checked by the library, the first bad one named.
pub fn controller(t: &dyn Terrain, o: &ControllerOptions) -> Result<CharacterController, String> {
    let ControllerOptions {
        ref shape,
        radius,
        half_height,
        radii,
        skin,
        max_climb,
        min_slide,
        step_height,
        snap,
        max_iterations,
    } = *o;
    let shape = match shape.as_str() {
        "sphere" => Shape::Sphere,
        "capsule" => Shape::Capsule { half_height },
        "ellipsoid" => Shape::Ellipsoid { radii: DVec3::from_array(radii) },
        s => return Err(format!("shape: {s:?} (expected \"sphere\", \"capsule\" or \"ellipsoid\")")),
    };
    let params = ControllerParams::default()
        .with_shape(shape)
        .with_radius(radius)
        .with_skin(skin)
        .with_max_climb(max_climb)
        .with_min_slide(min_slide)
        .with_step_height(step_height)
        .with_snap(snap)
        .with_max_iterations(max_iterations);
    CharacterController::new(params, t.frame().up()).map_err(|e| e.to_string())
}

/// One move of each character: rows new centre, grounded (0/1), ground normal (NaN when not
/// grounded), stepped (0/1), contacts during the move.
pub fn move_all(
    t: &dyn Terrain,
    ctl: &CharacterController,
    p: &[f64],
    desired: &[f64],
    grounded: &[f64],
) -> Vec<[f64; 9]> {
    let target = TerrainSweep(t);
    (0..grounded.len())
        .into_par_iter()
        .with_min_len(64)
        .map(|k| {
            let m = ctl.move_by(&target, vec3(p, k), vec3(desired, k), grounded[k] != 0.0);
            let mut row = [0.0; 9];
            row[..3].copy_from_slice(&xyz(m.position));
            row[3] = flag(m.grounded);
            row[4..7].copy_from_slice(&m.ground_normal.map_or(NAN3, xyz));
            row[7] = flag(m.stepped);
            row[8] = m.contact_count as f64;
            row
        })
        .collect()
}
