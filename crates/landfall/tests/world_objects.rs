//! Objects in the endless world: the same cells give the same objects whatever the path, objects
//! exist exactly for the cells in the cache, they stand on the drawn ground (brute force, after
//! any moves), the broad phase's pairs equal brute force, they are solid to walkers and rays, and
//! roaming entities never exist twice.

use glam::{DVec2, DVec3};
use landfall::collide::{CharacterController, ControllerParams, TerrainSweep};
use landfall::support::SplitMix64;
use landfall::world::{corner_height, fan_height};
use landfall::world::{CacheParams, LodTerrain, Objects, World, WorldParams};
use landfall::world::{Form, ObjectParams, Roaming, Shape};
use landfall::{Ray, Terrain, TriangleId};
use proptest::prelude::*;
use std::collections::BTreeSet;

fn cache() -> CacheParams {
    CacheParams::default()
        .with_layers(10)
        .with_inner_radius(4)
        .with_mesh_finest(1)
        .with_mesh_coarsest(8)
        .with_lod_height(4.0)
}

fn params(seed: u64) -> WorldParams {
    WorldParams::default().with_seed(seed).with_levels(12).with_relief(80.0)
}

fn world_at(seed: u64, p: DVec3) -> World {
    World::new(params(seed), cache(), p).unwrap()
}

/// A viewer just above the ground at (x, y).
fn low(w: &World, x: f64, y: f64) -> DVec3 {
    let g = w.far().height_at(x, y).unwrap_or(0.0);
    DVec3::new(x, y, g + 2.0)
}

/// A world whose viewer stands just above the ground at (x, y) (found from a world seen from high
/// up, whose far landscape is the same).
fn world_on_ground(seed: u64, x: f64, y: f64) -> World {
    let above = world_at(seed, DVec3::new(0.0, 0.0, 100.0));
    world_at(seed, low(&above, x, y))
}

/// An object as a comparable record: kind, level, cell, the bits of its shape.
type Record = (u16, u8, (i64, i64), Vec<u64>);

/// The objects as comparable records.
fn records(o: &Objects) -> BTreeSet<Record> {
    o.iter()
        .map(|(_, o)| {
            let bits: Vec<u64> = match o.shape {
                Shape::Sphere { c, r } => [c.x, c.y, c.z, r].iter().map(|v| v.to_bits()).collect(),
                Shape::Column { a, b, r } => [a.x, a.y, a.z, b.z, r].iter().map(|v| v.to_bits()).collect(),
                Shape::Box { c, half, yaw } => {
                    [c.x, c.y, c.z, half.x, half.y, half.z, yaw].iter().map(|v| v.to_bits()).collect()
                }
            };
            (o.kind, o.level, o.cell, bits)
        })
        .collect()
}

#[test]
fn the_same_cells_give_the_same_objects_whatever_the_path() {
    let start = world_at(3, DVec3::new(0.0, 0.0, 100.0));
    let v0 = low(&start, 0.3, 0.2);
    let mut w = world_at(3, v0);
    let mut o = Objects::new(&w, ObjectParams::default()).unwrap();
    assert!(o.len() > 100, "{} objects", o.len());
    // Walk a loop out and teleport back and forth, syncing each frame.
    let mut rng = SplitMix64::new(9);
    let mut p = v0;
    for f in 0..400 {
        let step = if f % 100 == 99 {
            DVec3::new(rng.range(-3e3, 3e3), rng.range(-3e3, 3e3), 0.0)
        } else {
            DVec3::new(1.7, 0.9, 0.0)
        };
        p = low(&w, p.x + step.x, p.y + step.y);
        w.update(p).unwrap();
        o.sync(&w);
        // Exactly the cells in the cache hold objects.
        for (_, ob) in o.iter() {
            assert!(w.cell(ob.level, ob.cell.0, ob.cell.1).is_some(), "object of a cell not in the cache");
        }
    }
    // A fresh world and fresh objects at the final place agree, bit for bit.
    let fresh_world = world_at(3, p);
    let fresh = Objects::new(&fresh_world, ObjectParams::default()).unwrap();
    // The two caches may differ by hysteresis-free equal windows only: compare cell by cell for the
    // windows both hold.
    let both = |r: &Record| w.cell(r.1, r.2 .0, r.2 .1).is_some() && fresh_world.cell(r.1, r.2 .0, r.2 .1).is_some();
    let a: BTreeSet<_> = records(&o).into_iter().filter(|r| both(r)).collect();
    let b: BTreeSet<_> = records(&fresh).into_iter().filter(|r| both(r)).collect();
    assert!(!a.is_empty());
    assert_eq!(a, b);
}

#[test]
fn kinds_live_on_their_levels_and_stand_on_their_ground() {
    let w = world_on_ground(5, 0.0, 0.0);
    let o = Objects::new(&w, ObjectParams::default()).unwrap();
    let kinds = o.kinds().to_vec();
    let (smallest, largest) = kinds.iter().fold((f64::INFINITY, 0.0f64), |a, k| (a.0.min(k.size.0), a.1.max(k.size.1)));
    assert!(smallest <= 0.1 && largest >= 100.0);
    let mut seen = vec![0usize; kinds.len()];
    for (_, ob) in o.iter() {
        let k = &kinds[ob.kind as usize];
        seen[ob.kind as usize] += 1;
        assert_eq!(ob.level, k.level(1.0));
        let s = (ob.level as f64).exp2();
        let ground = LodTerrain::new(w.generator().clone(), *w.drawn_layers().start(), 4);
        match (k.form, ob.shape) {
            (Form::Ball, Shape::Sphere { c, r }) => {
                assert!(2.0 * r >= k.size.0 - 1e-12 && 2.0 * r <= k.size.1 + 1e-12);
                let g = ground.height_at(c.x, c.y).unwrap();
                assert!((c.z - 0.6 * r - g).abs() < 1e-9, "a ball not on its ground");
            }
            (Form::Trunk, Shape::Column { a, b, .. }) => {
                let g = ground.height_at(a.x, a.y).unwrap();
                assert!(a.z <= g && b.z > g + k.height.0 - 1e-9, "a trunk not standing on its ground");
            }
            (Form::Building, Shape::Box { c, half, yaw }) => {
                // Its base is below the ground at every corner of its footprint, its top above.
                let (sn, cs) = yaw.sin_cos();
                for (dx, dy) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
                    let (lx, ly) = (dx * half.x, dy * half.y);
                    let (x, y) = (c.x + lx * cs - ly * sn, c.y + lx * sn + ly * cs);
                    if let Some(g) = ground.height_at(x, y) {
                        assert!(c.z - half.z <= g + 1e-6, "a building floats above its ground");
                        assert!(c.z + half.z > g);
                    }
                }
            }
            (f, s) => panic!("{f:?} with shape {s:?}"),
        }
        // Inside its own cell.
        let (x, y) = match ob.shape {
            Shape::Sphere { c, .. } | Shape::Box { c, .. } => (c.x, c.y),
            Shape::Column { a, .. } => (a.x, a.y),
        };
        assert_eq!(((x / s).floor() as i64, (y / s).floor() as i64), ob.cell);
    }
    assert!(seen.iter().filter(|&&n| n > 0).count() >= 4, "kinds seen: {seen:?}");
}

/// Every pair the objects report, and every pair of bounding spheres by brute force: objects by
/// slot, entities by their pair ids (slot + 2⁴⁰).
type Pairs = BTreeSet<(u64, u64)>;

fn pairs_both_ways(o: &mut Objects, entity_radius: f64) -> (Pairs, Pairs, usize) {
    let mut got = BTreeSet::new();
    o.pairs(|a, b| {
        assert!(a < b && got.insert((a, b)), "pair ({a}, {b}) out of order or twice");
    });
    let mut spheres: Vec<(u64, DVec3, f64)> = o
        .iter()
        .map(|(slot, ob)| {
            let (c, r) = ob.shape.bounding_sphere();
            (slot as u64, c, r)
        })
        .collect();
    let objects = spheres.len();
    let ids = (1u64 << 40)..(1u64 << 40) + 4096;
    spheres.extend(ids.filter_map(|id| o.entity(id).map(|e| (id, e.position, entity_radius))));
    assert_eq!(spheres.len() - objects, o.entities().count(), "every entity found by its id");
    let mut want = BTreeSet::new();
    for (k, a) in spheres.iter().enumerate() {
        for b in &spheres[k + 1..] {
            if (a.1 - b.1).length() <= a.2 + b.2 {
                want.insert((a.0.min(b.0), a.0.max(b.0)));
            }
        }
    }
    (got, want, spheres.len() - objects)
}

/// `Objects::within_radius` around points near the viewer, against every object's and entity's
/// sphere.
fn within_radius_equals_brute_force(o: &Objects, entity_radius: f64, seed: u64) {
    let mut rng = SplitMix64::new(seed);
    // Around the entities and the objects, a few metres off.
    let mut near: Vec<DVec3> = o.entities().map(|e| e.position).collect();
    near.extend(o.iter().step_by(97).map(|(_, ob)| ob.shape.bounding_sphere().0));
    let mut found = 0;
    for k in 0..40 {
        let v = near[k % near.len()];
        let p = v + DVec3::new(rng.range(-6.0, 6.0), rng.range(-6.0, 6.0), rng.range(-3.0, 3.0));
        let r = rng.range(0.0, 8.0);
        let mut got = Vec::new();
        o.within_radius(p, r, |id| got.push(id));
        got.sort_unstable();
        let mut want: Vec<u64> = o
            .iter()
            .filter(|(_, ob)| {
                let (c, rr) = ob.shape.bounding_sphere();
                (c - p).length() <= r + rr
            })
            .map(|(s, _)| s as u64)
            .collect();
        let ids = (1u64 << 40)..(1u64 << 40) + 4096;
        want.extend(ids.filter(|&id| o.entity(id).is_some_and(|e| (e.position - p).length() <= r + entity_radius)));
        assert_eq!(got, want, "around {p} within {r}");
        found += got.len();
    }
    assert!(found > 0, "nothing found");
}

#[test]
fn pairs_equal_brute_force() {
    let w = world_on_ground(7, 10.0, -20.0);
    let mut o = Objects::new(&w, ObjectParams::default().with_roaming(None)).unwrap();
    let (got, want, _) = pairs_both_ways(&mut o, 0.0);
    assert!(o.len() > 100 && !want.is_empty(), "{} objects, {} pairs", o.len(), want.len());
    assert_eq!(got, want);
}

/// With entities walking among the objects, frame after frame while the viewer walks: the pairs
/// among the objects (found again only when they changed), among the entities and between both.
#[test]
fn pairs_with_walking_entities_equal_brute_force() {
    let roaming = Roaming::default().with_chance(1.0).with_spawn_chance(1.0);
    let radius = roaming.radius + roaming.half_height;
    let mut w = world_on_ground(13, 0.0, 0.0);
    let mut o = Objects::new(&w, ObjectParams::default().with_roaming(Some(roaming))).unwrap();
    let (mut entities, mut entity_pairs) = (0, 0);
    for frame in 0..40 {
        if frame % 10 == 9 {
            let p = w.viewer() + DVec3::new(25.0, 5.0, 0.0);
            w.update(low(&w, p.x, p.y)).unwrap();
            o.sync(&w);
        }
        o.step(&w, 0.1);
        let (got, want, n) = pairs_both_ways(&mut o, radius);
        assert_eq!(got, want, "frame {frame}");
        entities = entities.max(n);
        within_radius_equals_brute_force(&o, radius, frame);
        entity_pairs += got.iter().filter(|p| p.1 >= 1 << 40).count();
    }
    assert!(entities > 0 && entity_pairs > 0, "{entities} entities, {entity_pairs} pairs with one");
}

#[test]
fn walkers_stop_at_trees_and_rays_hit_houses() {
    let w = world_on_ground(11, 0.0, 0.0);
    let o = Objects::new(&w, ObjectParams::default()).unwrap();
    let solids = o.solids(&w);
    let target = TerrainSweep(&solids);
    // Trees near the viewer (in the drawn mesh): walk at each from 6 m away.
    let ctl = CharacterController::new(ControllerParams::default().with_radius(0.4), DVec3::Z)
        .expect("valid controller parameters");
    let mut tried = 0;
    for (_, ob) in o.iter() {
        let Shape::Column { a, b, r } = ob.shape else { continue };
        if a.truncate().length() > 40.0 || tried >= 10 {
            continue;
        }
        let Some(g) = solids.top_surface(DVec3::new(a.x - 6.0, a.y, 0.0)) else { continue };
        if g.point.z > b.z - 2.0 {
            continue;
        }
        tried += 1;
        let mut p = g.point + DVec3::Z * 0.42;
        let mut grounded = false;
        for _ in 0..120 {
            let m = ctl.move_by(&target, p, DVec3::new(0.1, 0.0, -0.05), grounded);
            p = m.position;
            grounded = m.grounded;
            let d = (p.truncate() - a.truncate()).length();
            assert!(
                d >= r * (std::f64::consts::PI / 8.0).cos() + 0.4 - 1e-6 || p.z > b.z + 0.4,
                "the walker went into the trunk: {d} from its axis"
            );
        }
    }
    assert!(tried > 0, "no tree near the viewer");
    // Rays from above at the centre of every house near the viewer hit it, on an object triangle.
    let mut houses = 0;
    for (slot, ob) in o.iter() {
        let Shape::Box { c, half, .. } = ob.shape else { continue };
        if c.truncate().length() > 300.0 {
            continue;
        }
        houses += 1;
        let ray = Ray::new(c + DVec3::Z * (half.z + 50.0), DVec3::new(0.0, 0.0, -1.0));
        let h = solids.raycast(&ray, 1e4).expect("a ray down at a house hits something");
        let TriangleId::Object { object, .. } = h.triangle else {
            panic!("the ray hit {:?}, not the house", h.triangle)
        };
        // The roof of this house or of one standing over it.
        assert!(object == slot || o.get(object).is_some());
        assert!((h.point.z - (c.z + half.z)).abs() < 1e-6 || object != slot);
        // The vertical query sees the roof too.
        let top = solids.top_surface(c).unwrap();
        assert!(top.point.z >= c.z + half.z - 1e-6);
    }
    assert!(houses > 0, "no house near the viewer");
}

#[test]
fn roaming_entities_never_exist_twice_and_come_back_the_same() {
    let roaming = Roaming::default().with_chance(1.0).with_spawn_chance(0.7);
    let params = ObjectParams::default().with_roaming(Some(roaming));
    let run = |seed: u64| {
        let mut w = world_on_ground(13, 0.0, 0.0);
        let mut o = Objects::new(&w, params.clone()).unwrap();
        let mut rng = SplitMix64::new(seed);
        let mut p = w.viewer();
        let mut alive_max = 0;
        let mut total = landfall::world::RoamingStats::default();
        let mut log = Vec::new();
        for f in 0..300 {
            let step = match f % 60 {
                59 => {
                    DVec2::new(rng.range(-400.0, 400.0), rng.range(-400.0, 400.0)) * if f == 179 { 20.0 } else { 1.0 }
                }
                _ => DVec2::new(rng.range(-1.0, 3.0), rng.range(-1.0, 3.0)),
            };
            p = low(&w, p.x + step.x, p.y + step.y);
            w.update(p).unwrap();
            let s = o.sync(&w);
            o.step(&w, 1.0 / 10.0);
            assert_eq!(o.duplicates(), 0, "frame {f}: an entity alive twice");
            alive_max = alive_max.max(s.roaming.alive);
            total.spawned += s.roaming.spawned;
            total.resumed += s.roaming.resumed;
            total.vanished += s.roaming.vanished;
            total.forgotten += s.roaming.forgotten;
            for e in o.entities() {
                assert!(e.position.is_finite());
                log.push((f, e.owner));
            }
        }
        (alive_max, log, total)
    };
    let (alive, log, total) = run(21);
    assert!(alive > 0, "no entity ever alive");
    // Every part of the life cycle happened: born, gone with the cell, back from the owner's
    // state, forgotten with the owner.
    assert!(total.spawned > 0 && total.vanished > 0 && total.resumed > 0 && total.forgotten > 0, "{total:?}");
    // The same path gives the same entities.
    assert_eq!(run(21).1, log);
}

#[test]
fn owners_go_with_the_quad_cells_they_hang_off() {
    // Small owners (16 m) in a narrow window (16 cells): the viewer's walk moves the owner level's
    // window often, past owners that keep the state of entities left behind.
    let roaming = Roaming::default().with_owner_level(4).with_cell_level(1).with_chance(1.0).with_spawn_chance(1.0);
    let params = ObjectParams::default().with_roaming(Some(roaming));
    let mut w = world_on_ground(5, 0.0, 0.0);
    let mut o = Objects::new(&w, params).unwrap();
    let mut rng = SplitMix64::new(8);
    let (mut p, mut forgotten, mut kept_max) = (w.viewer(), 0, 0);
    for f in 0..600 {
        let heading = if (f / 150) % 2 == 0 { DVec2::new(1.0, 0.4) } else { DVec2::new(-0.3, 1.0) };
        let step = heading * 3.0 + DVec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
        p = low(&w, p.x + step.x, p.y + step.y);
        w.update(p).unwrap();
        let s = o.sync(&w);
        forgotten += s.roaming.forgotten;
        let alive: BTreeSet<(i64, i64)> = o.entities().map(|e| e.owner).collect();
        let mut known = 0;
        for (oi, oj) in o.owners() {
            known += 1;
            let quads = [(oi - 1, oj - 1), (oi, oj - 1), (oi - 1, oj), (oi, oj)];
            assert!(
                quads.iter().all(|&(i, j)| w.cell(4, i, j).is_some()),
                "frame {f}: owner ({oi}, {oj}) outlived its cells"
            );
        }
        assert!(alive.iter().all(|a| o.owners().any(|k| k == *a)), "frame {f}: an entity without its owner");
        kept_max = kept_max.max(known - alive.len());
    }
    assert!(forgotten > 0 && kept_max > 0, "forgotten {forgotten}, kept at most {kept_max}");
}

#[test]
fn rays_through_the_objects_equal_brute_force() {
    let w = world_on_ground(17, 0.0, 0.0);
    let o = Objects::new(&w, ObjectParams::default().with_roaming(None)).unwrap();
    let solids = o.solids(&w);
    let mut rng = SplitMix64::new(3);
    let mut objects_hit = 0;
    let near: Vec<DVec3> = o
        .iter()
        .map(|(_, ob)| ob.shape.bounding_sphere())
        .filter(|(c, _)| c.truncate().length() < 250.0)
        .map(|(c, r)| c + DVec3::Z * (0.3 * r))
        .collect();
    assert!(!near.is_empty());
    for k in 0..400 {
        let origin =
            DVec3::new(rng.range(-200.0, 200.0), rng.range(-200.0, 200.0), w.viewer().z + rng.range(5.0, 60.0));
        let dir = if k % 2 == 0 {
            DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-0.6, -0.05))
        } else {
            // Aimed at an object, from anywhere.
            near[(rng.uniform() * near.len() as f64) as usize % near.len()] - origin
        };
        let ray = Ray::new(origin, dir);
        let got = solids.raycast(&ray, 1e4);
        // Brute force: the terrain, then every triangle of every object.
        let mut want = w.raycast(&ray, 1e4).map(|h| (h.t, None));
        for (slot, ob) in o.iter() {
            for k in 0..ob.shape.triangle_count() {
                let t = ob.shape.triangle(k);
                if let Some(tt) = landfall::support::moller_trumbore_grown(origin, dir, &t, 1e-9) {
                    if (0.0..=1e4).contains(&tt) && want.is_none_or(|w: (f64, Option<u32>)| tt < w.0) {
                        want = Some((tt, Some(slot)));
                    }
                }
            }
        }
        match (got, want) {
            (None, None) => {}
            (Some(h), Some((t, slot))) => {
                assert!((h.t - t).abs() <= 1e-9 * t.max(1.0), "t {} vs {t}", h.t);
                if let Some(s) = slot {
                    objects_hit += 1;
                    let TriangleId::Object { object, .. } = h.triangle else { panic!("missed object {s}") };
                    // The same object, or another touching it at the same t.
                    assert!(object == s || (h.t - t).abs() <= 1e-12 * t);
                }
            }
            (g, w) => panic!("{g:?} vs {w:?}"),
        }
    }
    assert!(objects_hit > 5, "only {objects_hit} rays hit objects");
}

/// Objects refuse kinds and roaming parameters out of range, naming the kind and the field.
#[test]
fn invalid_object_params_are_refused_naming_the_field() {
    use landfall::world::{default_kinds, Kind};
    let w = world_on_ground(3, 0.0, 0.0);
    let stone = || default_kinds()[0].clone();
    let kind = |f: &dyn Fn(&mut Kind)| {
        let mut k = stone();
        f(&mut k);
        k
    };
    let nan = f64::NAN;
    let inf = f64::INFINITY;
    let bad_kinds: Vec<(Kind, &str)> = vec![
        (kind(&|k| k.size = (0.0, 1.0)), "size"),
        (kind(&|k| k.size = (2.0, 1.0)), "size"),
        (kind(&|k| k.size = (0.1, inf)), "size"),
        (kind(&|k| k.size = (nan, 1.0)), "size"),
        (kind(&|k| k.height = (-1.0, 1.0)), "height"),
        (kind(&|k| k.height = (0.0, nan)), "height"),
        (kind(&|k| k.trunk = -0.1), "trunk"),
        (kind(&|k| k.trunk = inf), "trunk"),
        (kind(&|k| k.per_cell = nan), "per_cell"),
        (kind(&|k| k.per_cell = -1.0), "per_cell"),
        (kind(&|k| k.per_cell = Kind::MAX_PER_CELL * 2.0), "per_cell"),
        (kind(&|k| k.max_slope = 2.0), "max_slope"),
        (kind(&|k| k.max_slope = nan), "max_slope"),
        (kind(&|k| k.heights = (0.5, 0.2)), "heights"),
        (kind(&|k| k.heights = (nan, 1.0)), "heights"),
        (kind(&|k| k.rough = inf), "rough"),
        (kind(&|k| k.rough = nan), "rough"),
    ];
    for (k, field) in bad_kinds {
        assert_eq!(k.validate().unwrap_err().field, field, "{k:?}");
        let params = ObjectParams::default().with_kinds(vec![stone(), k.clone()]);
        let e = Objects::new(&w, params).err().expect("refused");
        assert_eq!(e.field, "kinds");
        assert!(e.why.starts_with(&format!("kind 1 (stone): {field}: ")), "{e}");
    }
    let r = Roaming::default();
    let mut bad_roaming = vec![
        (r.clone().with_owner_level(41), "owner_level"),
        (r.clone().with_cell_level(r.owner_level + 1), "cell_level"),
        (r.clone().with_range(0.0), "range"),
        (r.clone().with_range(0.3), "range"),
        (r.clone().with_radius(0.0), "radius"),
    ];
    for v in [nan, -0.1, 1.5, inf] {
        bad_roaming.push((r.clone().with_chance(v), "chance"));
        bad_roaming.push((r.clone().with_spawn_chance(v), "spawn_chance"));
        bad_roaming.push((r.clone().with_range(v), "range"));
    }
    for v in [nan, -1.0, inf] {
        bad_roaming.push((r.clone().with_speed(v), "speed"));
        bad_roaming.push((r.clone().with_radius(v), "radius"));
        bad_roaming.push((r.clone().with_half_height(v), "half_height"));
    }
    for (roaming, field) in bad_roaming {
        assert_eq!(roaming.validate().unwrap_err().field, field, "{roaming:?}");
        let e = Objects::new(&w, ObjectParams::default().with_roaming(Some(roaming))).err().expect("refused");
        assert_eq!(e.field, "roaming");
        assert!(e.why.starts_with(&format!("{field}: ")), "{e}");
    }
    // The edges of each range are accepted.
    let edge = Roaming::default().with_range(0.01).with_chance(0.0).with_speed(0.0).with_cell_level(r.owner_level);
    let kinds = vec![kind(&|k| {
        k.per_cell = Kind::MAX_PER_CELL;
        k.max_slope = std::f64::consts::FRAC_PI_2;
        k.heights = (0.3, 0.3);
        k.size = (0.5, 0.5);
    })];
    assert!(ObjectParams::default().with_kinds(kinds).with_roaming(Some(edge)).validate().is_ok());
    assert!(Roaming::default().with_range(0.25).with_owner_level(40).validate().is_ok());
}

/// The landscape of `level` at (x, y), by brute force: the nine cells around, generated from the
/// top level, and the fan through their midpoint and corner means.
fn brute_ground(w: &World, level: u8, x: f64, y: f64) -> f64 {
    let s = w.generator().cell_width(level);
    let (i, j) = ((x / s).floor() as i64, (y / s).floor() as i64);
    let c = w.generator().patch(level, i - 1, j - 1, 3, 3);
    let h = |a: usize, b: usize| c[b * 3 + a].h;
    let corner = |a: usize, b: usize| corner_height(h(a, b), h(a + 1, b), h(a, b + 1), h(a + 1, b + 1)) as f64;
    let z = [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)];
    fan_height(z, h(1, 1) as f64, x / s - i as f64, y / s - j as f64)
}

/// Checks every object against the brute-force ground of the finest drawn level: a ball's bottom
/// on it, a trunk from below it to its height above it, a building's base 0.1 m below the lowest
/// of its centre and corners and its roof its height above the centre. Where that level is drawn
/// without morphing (within `inner_radius − 3` of its cells from its window's middle), the drawn
/// mesh is that ground too. Returns the objects checked against the drawn mesh.
fn objects_on_the_drawn_ground(w: &World, o: &Objects) -> usize {
    let level = *w.drawn_layers().start();
    let g = |x: f64, y: f64| brute_ground(w, level, x, y);
    let near = |a: f64, b: f64| (a - b).abs() <= 1e-7 * (1.0 + a.abs());
    let s = w.generator().cell_width(level);
    let (o0, half) = (w.window_origin(level), w.width() as f64 / 2.0);
    let middle = DVec2::new((o0[0] as f64 + half) * s, (o0[1] as f64 + half) * s);
    let unmorphed = (w.cache_params().inner_radius as f64 - 3.0) * s;
    let mut on_mesh = 0;
    for (_, ob) in o.iter() {
        let k = &o.kinds()[ob.kind as usize];
        let (x, y, base) = match ob.shape {
            Shape::Sphere { c, r } => {
                assert!(near(c.z - 0.6 * r, g(c.x, c.y)), "a ball off the drawn ground");
                (c.x, c.y, g(c.x, c.y))
            }
            Shape::Column { a, b, r } => {
                let z = g(a.x, a.y);
                assert!(a.z <= z - r + 1e-7 && b.z >= z + k.height.0 - 1e-7 && b.z <= z + k.height.1 + 1e-7);
                (a.x, a.y, z)
            }
            Shape::Box { c, half, yaw } => {
                let (sn, cs) = yaw.sin_cos();
                let lowest =
                    [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)].iter().fold(g(c.x, c.y), |m, (dx, dy)| {
                        let (lx, ly) = (dx * half.x, dy * half.y);
                        m.min(g(c.x + lx * cs - ly * sn, c.y + lx * sn + ly * cs))
                    });
                assert!(near(c.z - half.z, lowest - 0.1), "a building's base not below its footprint");
                let roof = c.z + half.z - g(c.x, c.y);
                assert!(roof >= k.height.0 - 1e-7 && roof <= k.height.1 + 1e-7);
                (c.x, c.y, g(c.x, c.y))
            }
        };
        if (DVec2::new(x, y) - middle).abs().max_element() < unmorphed {
            let drawn = w.height_at(x, y).expect("over the drawn mesh");
            assert!((drawn - base).abs() < 1e-3, "drawn {drawn} vs {base} at ({x}, {y})");
            on_mesh += 1;
        }
    }
    on_mesh
}

/// An object without its height: kind, level, cell, and where it stands in x and y.
type Footprint = (u16, u8, (i64, i64), [u64; 2]);

fn footprints(o: &Objects) -> BTreeSet<Footprint> {
    o.iter()
        .map(|(_, ob)| {
            let p = match ob.shape {
                Shape::Sphere { c, .. } | Shape::Box { c, .. } => c,
                Shape::Column { a, .. } => a,
            };
            (ob.kind, ob.level, ob.cell, [p.x.to_bits(), p.y.to_bits()])
        })
        .collect()
}

/// Moves the viewer (kind: walk, climb or come down, jump, hover; a direction; a height fraction),
/// syncing the objects and checking them against the drawn ground after each move; then compares
/// them with a fresh world's at the same place. Returns the objects checked on the drawn mesh.
fn moves_keep_objects_on_the_drawn_ground(seed: u64, moves: &[(u8, f64, f64, f64)]) -> usize {
    let cache = cache().with_inner_radius(8);
    let start: World = World::new(params(seed), cache.clone(), DVec3::new(0.0, 0.0, 100.0)).unwrap();
    let ground = |x: f64, y: f64| start.far().height_at(x, y).unwrap_or(0.0);
    let mut w: World = World::new(params(seed), cache.clone(), DVec3::new(0.0, 0.0, ground(0.0, 0.0) + 2.0)).unwrap();
    let mut o = Objects::new(&w, ObjectParams::default().with_roaming(None)).unwrap();
    let mut p = w.viewer();
    let mut checked = objects_on_the_drawn_ground(&w, &o);
    for &(kind, dx, dy, up) in moves {
        let (step, above) = match kind {
            0 => (3.0, 2.0),               // walk
            1 => (20.0, 1.0 + 500.0 * up), // climb or come down
            2 => (2e3, 2.0 + 60.0 * up),   // jump
            _ => (0.0, 1.0 + 200.0 * up),  // hover
        };
        let (x, y) = (p.x + step * dx, p.y + step * dy);
        p = DVec3::new(x, y, ground(x, y) + above);
        w.update(p).unwrap();
        o.sync(&w);
        checked += objects_on_the_drawn_ground(&w, &o);
    }
    let fresh: World = World::new(params(seed), cache, p).unwrap();
    let f = Objects::new(&fresh, ObjectParams::default().with_roaming(None)).unwrap();
    let both = |level: u8, (i, j): (i64, i64)| w.cell(level, i, j).is_some() && fresh.cell(level, i, j).is_some();
    let a: BTreeSet<_> = footprints(&o).into_iter().filter(|r| both(r.1, r.2)).collect();
    let b: BTreeSet<_> = footprints(&f).into_iter().filter(|r| both(r.1, r.2)).collect();
    assert!(!a.is_empty());
    assert_eq!(a, b, "not the same objects as a fresh world's");
    if w.drawn_layers().start() == fresh.drawn_layers().start() {
        let a: BTreeSet<_> = records(&o).into_iter().filter(|r| both(r.1, r.2)).collect();
        let b: BTreeSet<_> = records(&f).into_iter().filter(|r| both(r.1, r.2)).collect();
        assert_eq!(a, b, "not standing as a fresh world's");
    }
    checked
}

/// A walk, a climb to 500 m and back down, a jump: objects on the drawn mesh are checked on it.
#[test]
fn objects_stand_on_the_drawn_ground_climbing_and_coming_down() {
    let moves: Vec<_> = (0..30)
        .map(|k| match k {
            0..=9 => (0, 0.8, 0.6, 0.0),
            10..=14 => (1, 0.1, 0.0, k as f64 / 15.0),
            15..=19 => (1, -0.1, 0.0, (20 - k) as f64 / 15.0),
            20 => (2, 0.5, -0.5, 0.0),
            _ => (0, -0.6, 0.8, 0.0),
        })
        .collect();
    assert!(moves_keep_objects_on_the_drawn_ground(4, &moves) > 50);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// After any sequence of moves — walking, climbing, coming down, jumping — every object
    /// stands on the drawn ground (brute force), and the objects are those of a fresh world at the
    /// same place: the same set wherever both caches hold the cells, bit for bit where the same
    /// level is drawn.
    #[test]
    fn objects_stand_on_the_drawn_ground_after_any_moves(
        seed in 0u64..1000,
        moves in prop::collection::vec((0u8..4, -1.0f64..1.0, -1.0f64..1.0, 0.0f64..1.0), 1..24),
    ) {
        moves_keep_objects_on_the_drawn_ground(seed, &moves);
    }
}

/// The objects' queries after each of `moves` (kind: walk, fly 500 m up, jump, hover; a direction):
/// spheres and boxes (`Objects::within_radius`, `Solids::triangles_in`) give exactly the objects
/// whose bounding spheres meet them, each once, and rays their first hit, against a test of every
/// object. Returns the objects found.
fn queries_follow_the_objects(seed: u64, moves: &[(u8, f64, f64, f64)]) -> usize {
    let start = world_at(seed, DVec3::new(0.0, 0.0, 100.0));
    let ground = |x: f64, y: f64| start.far().height_at(x, y).unwrap_or(0.0);
    let mut w = world_at(seed, DVec3::new(0.0, 0.0, ground(0.0, 0.0) + 2.0));
    let mut o = Objects::new(&w, ObjectParams::default().with_roaming(None)).unwrap();
    let mut rng = SplitMix64::new(seed);
    let (mut p, mut found) = (w.viewer(), 0);
    for &(kind, dx, dy, up) in moves {
        let (step, above) = match kind {
            0 => (3.0, 2.0),
            1 => (5.0 + 60.0 * up, 500.0),
            2 => (2e3, 2.0 + 60.0 * up),
            _ => (0.0, 1.0 + 200.0 * up),
        };
        let (x, y) = (p.x + step * dx, p.y + step * dy);
        p = DVec3::new(x, y, ground(x, y) + above);
        w.update(p).unwrap();
        o.sync(&w);
        let spheres: Vec<(u32, DVec3, f64)> = o
            .iter()
            .map(|(s, ob)| {
                let (c, r) = ob.shape.bounding_sphere();
                (s, c, r)
            })
            .collect();
        if spheres.is_empty() {
            continue;
        }
        let solids = o.solids(&w);
        for k in 0..12 {
            let (_, c, _) = spheres[(rng.uniform() * spheres.len() as f64) as usize % spheres.len()];
            let scale = if k % 4 == 0 { 300.0 } else { 10.0 };
            let q = c + DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-0.3, 0.3)) * scale;
            let r = rng.range(0.0, scale);
            let mut got = Vec::new();
            o.within_radius(q, r, |id| got.push(id as u32));
            let n = got.len();
            got.sort_unstable();
            got.dedup();
            assert_eq!(got.len(), n, "an object found twice");
            let want: Vec<u32> = spheres.iter().filter(|(_, c, rr)| (*c - q).length() <= r + rr).map(|s| s.0).collect();
            assert_eq!(got, want, "around {q} within {r}");
            found += n;
            // A box: the objects with a triangle in it are those whose spheres meet it.
            let half = DVec3::new(rng.range(0.0, scale), rng.range(0.0, scale), rng.range(0.0, 2.0 * scale));
            let region = landfall::Aabb { min: q - half, max: q + half };
            let mut tris: BTreeSet<u32> = BTreeSet::new();
            solids.triangles_in(&region, &mut |id, _| {
                if let TriangleId::Object { object, .. } = id {
                    tris.insert(object);
                }
            });
            let want: BTreeSet<u32> = spheres
                .iter()
                .filter(|(_, c, rr)| (c.clamp(region.min, region.max) - *c).length() <= *rr)
                .map(|s| s.0)
                .collect();
            assert_eq!(tris, want, "in {region:?}");
            // A ray from above the objects, towards one of them or anywhere.
            let origin = q + DVec3::new(0.0, 0.0, 50.0 + scale);
            let dir =
                if k % 2 == 0 { c - origin } else { DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), -0.2) };
            let ray = Ray::new(origin, dir);
            let got = solids.raycast(&ray, 3e3).map(|h| h.t);
            let mut want = Terrain::raycast(&w, &ray, 3e3).map(|h| h.t); // the mesh, then the far landscape
            for (_, ob) in o.iter() {
                for k in 0..ob.shape.triangle_count() {
                    let t = ob.shape.triangle(k);
                    if let Some(tt) = landfall::support::moller_trumbore_grown(origin, dir, &t, 1e-9) {
                        if (0.0..=3e3).contains(&tt) && want.is_none_or(|w| tt < w) {
                            want = Some(tt);
                        }
                    }
                }
            }
            match (got, want) {
                (None, None) => {}
                (Some(a), Some(b)) => assert!((a - b).abs() <= 1e-9 * b.max(1.0), "ray t {a} vs {b}"),
                (a, b) => panic!("ray {a:?} vs {b:?}"),
            }
        }
    }
    found
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// Objects added and dropped over many syncs (walking, flying, jumping, hovering): every
    /// sphere, box and ray query equals a test of every live object, and finds none twice.
    #[test]
    fn queries_follow_the_objects_over_many_syncs(
        seed in 0u64..1000,
        moves in prop::collection::vec((0u8..4, -1.0f64..1.0, -1.0f64..1.0, 0.0f64..1.0), 1..16),
    ) {
        queries_follow_the_objects(seed, &moves);
    }
}

/// A long flight, a jump and a walk back: the queries follow the objects that came and went.
#[test]
fn queries_follow_the_objects_on_a_flight() {
    let moves: Vec<_> = (0..40)
        .map(|k| match k {
            0..=29 => (1, 0.8, 0.6, 1.0),
            30 => (2, -0.5, 0.5, 0.0),
            _ => (0, 0.6, -0.8, 0.0),
        })
        .collect();
    assert!(queries_follow_the_objects(5, &moves) > 100);
}
