//! The world's objects as the page draws them: trees (trunk and crown), houses and halls (walls
//! and a gable roof), rocks, and the roaming entities, as numbers per instance, not triangles. The
//! shapes are the collision shapes' (what rays and the walker hit), dressed: a crown around a
//! trunk's top, a roof inside a box's top.

use landfall::glam::DVec3;
use landfall::world::Objects;
use landfall::world::Shape;
use serde_json::{json, Value};

/// Every object and entity, positions relative to `origin` (f32 precision near it): `trees`
/// `[x, y, z, height, trunk radius, crown radius]` from the trunk's foot; `buildings` `[x, y, z,
/// half length, half width, half height, yaw]` of the box's centre; `rocks` `[x, y, z, radius]`;
/// `entities` `[x, y, z]`; each instance's kind index (into `kinds`) in the matching `*_kind`.
pub fn instances(objects: &Objects, origin: DVec3) -> Value {
    let kinds = objects.kinds();
    let (mut trees, mut buildings, mut rocks) = (Vec::new(), Vec::new(), Vec::new());
    let (mut tree_kind, mut building_kind, mut rock_kind) = (Vec::new(), Vec::new(), Vec::new());
    let rel = |p: DVec3| (p - origin).to_array();
    for (_, o) in objects.iter() {
        let kind = o.kind as usize;
        match o.shape {
            Shape::Column { a, b, r } => {
                let [x, y, z] = rel(a);
                // The crown is the kind's size across; the trunk a fraction of it.
                let crown = 0.5 * r / kinds.get(kind).map_or(0.1, |k| k.trunk.max(1e-3));
                trees.push([x, y, z, b.z - a.z, r, crown]);
                tree_kind.push(kind);
            }
            Shape::Box { c, half, yaw } => {
                let [x, y, z] = rel(c);
                buildings.push([x, y, z, half.x, half.y, half.z, yaw]);
                building_kind.push(kind);
            }
            Shape::Sphere { c, r } => {
                let [x, y, z] = rel(c);
                rocks.push([x, y, z, r]);
                rock_kind.push(kind);
            }
        }
    }
    let entities: Vec<[f64; 3]> = objects.entities().map(|e| rel(e.position)).collect();
    json!({
        "origin": origin.to_array(),
        "kinds": kinds.iter().map(|k| k.name).collect::<Vec<_>>(),
        "trees": trees, "tree_kind": tree_kind,
        "buildings": buildings, "building_kind": building_kind,
        "rocks": rocks, "rock_kind": rock_kind,
        "entities": entities,
    })
}
