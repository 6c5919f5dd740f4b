//! The building: rooms in a grid with a door in every shared wall, monsters roaming the rooms, the
//! viewer walking through the doors. What the viewer sees is exact 2-D line of sight through the
//! door openings (portals): a room is seen when some line from the viewer reaches into it through
//! the doors between them.

use super::draw::{Map, Picture};
use super::run::Stage;
use anyhow::{bail, Result};
use landfall::behave::{CrowdParams, Entity, ImportanceParams, Route, Scene, Viewer};
use landfall::glam::DVec2;
use landfall::support::SplitMix64;

/// Rooms across and down.
const GRID: (usize, usize) = (3, 3);
/// A room's size, m.
const ROOM: DVec2 = DVec2::new(10.0, 8.0);
/// Width of a door, m.
const DOOR: f64 = 1.6;
/// A monster's radius, m.
const RADIUS: f64 = 0.35;
/// Loops a room's monsters walk: insets from the walls, m (1.2 m apart: two monsters on
/// neighbouring loops never touch).
const LOOPS: [f64; 2] = [1.0, 2.2];
/// The viewer's speed, m/s.
const WALK: f64 = 1.4;

/// A door: its two rooms and its opening.
struct Door {
    rooms: [usize; 2],
    a: DVec2,
    b: DVec2,
}

/// The building and its monsters.
pub struct Building {
    entities: Vec<Entity>,
    doors: Vec<Door>,
    /// Wall segments (the door openings left out).
    walls: Vec<[DVec2; 2]>,
    /// The viewer's walk (there and back).
    path: Vec<DVec2>,
}

fn room_lo(r: usize) -> DVec2 {
    DVec2::new((r % GRID.0) as f64, (r / GRID.0) as f64) * ROOM
}

fn room_centre(r: usize) -> DVec2 {
    room_lo(r) + ROOM / 2.0
}

/// Distance from `p` to the segment `a`–`b`.
fn to_segment(p: DVec2, a: DVec2, b: DVec2) -> f64 {
    let ab = b - a;
    let f = if ab.length_squared() > 0.0 { ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
    p.distance(a + ab * f)
}

impl Building {
    /// `per_room` monsters in every room, on its loops.
    pub fn new(per_room: usize, seed: u64) -> Result<Self> {
        if !(1..=12).contains(&per_room) {
            bail!("--per-room: {per_room} (expected 1 to 12)");
        }
        let rooms = GRID.0 * GRID.1;
        let mut doors = Vec::new();
        let mut walls = Vec::new();
        for r in 0..rooms {
            let (c, lo) = (r % GRID.0, room_lo(r));
            // The wall on the room's right, and the one above it: a door in each shared one.
            for (right, next) in
                [(true, (c + 1 < GRID.0).then_some(r + 1)), (false, (r + GRID.0 < rooms).then_some(r + GRID.0))]
            {
                let (start, along, len) = if right {
                    (lo + DVec2::new(ROOM.x, 0.0), DVec2::Y, ROOM.y)
                } else {
                    (lo + DVec2::new(0.0, ROOM.y), DVec2::X, ROOM.x)
                };
                let end = start + along * len;
                match next {
                    Some(n) => {
                        // Doors a third or two thirds along their walls, alternately: few lines of
                        // sight run straight through the building.
                        let centre = len * if (r + usize::from(right)) % 2 == 0 { 1.0 / 3.0 } else { 2.0 / 3.0 };
                        let (a, b) = (start + along * (centre - DOOR / 2.0), start + along * (centre + DOOR / 2.0));
                        walls.push([start, a]);
                        walls.push([b, end]);
                        doors.push(Door { rooms: [r, n], a, b });
                    }
                    None => walls.push([start, end]),
                }
            }
        }
        let size = DVec2::new(GRID.0 as f64, GRID.1 as f64) * ROOM;
        walls.push([DVec2::ZERO, DVec2::new(size.x, 0.0)]);
        walls.push([DVec2::ZERO, DVec2::new(0.0, size.y)]);

        let mut rng = SplitMix64::new(seed);
        let mut entities = Vec::new();
        for r in 0..rooms {
            for k in 0..per_room {
                let inset = LOOPS[k % LOOPS.len()];
                let (lo, hi) = (room_lo(r) + inset, room_lo(r) + ROOM - inset);
                let route = Route::closed(vec![lo, DVec2::new(hi.x, lo.y), hi, DVec2::new(lo.x, hi.y)])?;
                entities.push(Entity { seed: rng.next_u64(), route, radius: RADIUS, speed: rng.range(0.5, 1.5) });
            }
        }
        // The walk: room to room through the doors, snaking through the grid, then back.
        let order: Vec<usize> = (0..GRID.1)
            .flat_map(|row| {
                let cols: Vec<usize> = if row % 2 == 0 { (0..GRID.0).collect() } else { (0..GRID.0).rev().collect() };
                cols.into_iter().map(move |c| row * GRID.0 + c)
            })
            .collect();
        let mut path = vec![room_centre(order[0])];
        for w in order.windows(2) {
            let door = doors.iter().find(|d| d.rooms.contains(&w[0]) && d.rooms.contains(&w[1])).expect("neighbours");
            path.push((door.a + door.b) / 2.0);
            path.push(room_centre(w[1]));
        }
        let back: Vec<DVec2> = path.iter().rev().skip(1).copied().collect();
        path.extend(back);
        Ok(Self { entities, doors, walls, path })
    }

    /// The room holding `p` (clamped into the building).
    fn room_of(p: DVec2) -> usize {
        let c = ((p.x / ROOM.x).floor().max(0.0) as usize).min(GRID.0 - 1);
        let r = ((p.y / ROOM.y).floor().max(0.0) as usize).min(GRID.1 - 1);
        r * GRID.0 + c
    }

    /// What `p` sees of each room: its own room whole (`None`), and for every other room the
    /// wedges from `p` through which some chain of door openings reaches into it (each door clipped
    /// to the wedge of the doors before it). Rooms are convex, so a point of a room is seen exactly
    /// when it lies in one of its wedges.
    fn seen_from(&self, p: DVec2) -> Vec<Vec<Wedge>> {
        let mut seen = vec![Vec::new(); GRID.0 * GRID.1];
        let mut from = p;
        // On a door's line (in its opening), look from a micrometre into the room.
        let home = Self::room_of(p);
        if self.doors.iter().any(|d| to_segment(p, d.a, d.b) < 1e-6) {
            from = p + (room_centre(home) - p).normalize_or_zero() * 1e-6;
        }
        seen[home].push(None);
        let mut path = vec![home];
        self.through(from, home, None, &mut path, &mut seen);
        seen
    }

    /// From room `room`, reached within `wedge` (counter-clockwise from `.0` to `.1`, `None` for
    /// the whole plane), marks every room a door opening leads to within the wedge.
    fn through(&self, p: DVec2, room: usize, wedge: Wedge, path: &mut Vec<usize>, seen: &mut [Vec<Wedge>]) {
        for d in &self.doors {
            let Some(k) = d.rooms.iter().position(|&r| r == room) else { continue };
            let next = d.rooms[1 - k];
            if path.contains(&next) {
                continue;
            }
            // The part of the opening inside the wedge: each side of the wedge is a half-plane,
            // linear along the door.
            let (mut s0, mut s1) = (0.0f64, 1.0f64);
            if let Some((lo, hi)) = wedge {
                for f in
                    [|q: DVec2, lo: DVec2, _: DVec2| lo.perp_dot(q), |q: DVec2, _: DVec2, hi: DVec2| q.perp_dot(hi)]
                {
                    let (fa, fb) = (f(d.a - p, lo, hi), f(d.b - p, lo, hi));
                    if fa < 0.0 && fb < 0.0 {
                        s1 = -1.0;
                    } else if fa < 0.0 {
                        s0 = s0.max(fa / (fa - fb));
                    } else if fb < 0.0 {
                        s1 = s1.min(fa / (fa - fb));
                    }
                }
            }
            if s0 >= s1 {
                continue;
            }
            let (qa, qb) = (d.a + (d.b - d.a) * s0 - p, d.a + (d.b - d.a) * s1 - p);
            if qa.perp_dot(qb).abs() <= 1e-12 * qa.length() * qb.length() {
                continue; // seen edge-on: no line passes through
            }
            let w = if qa.perp_dot(qb) > 0.0 { (qa, qb) } else { (qb, qa) };
            seen[next].push(Some(w));
            path.push(next);
            self.through(p, next, Some(w), path, seen);
            path.pop();
        }
    }
}

/// A wedge from the viewer, counter-clockwise from `.0` to `.1` (less than half a turn); `None`:
/// the whole plane.
type Wedge = Option<(DVec2, DVec2)>;

/// Whether the disc of `radius` at `v` (from the wedge's apex) meets the wedge.
fn meets(wedge: Wedge, v: DVec2, radius: f64) -> bool {
    let Some((lo, hi)) = wedge else { return true };
    let near_ray = |d: DVec2| {
        let t = (v.dot(d) / d.length_squared()).max(0.0);
        v.distance(d * t) <= radius
    };
    (lo.perp_dot(v) >= 0.0 && v.perp_dot(hi) >= 0.0) || near_ray(lo) || near_ray(hi)
}

/// What the viewer sees this frame: the wedges into each room, and the walls for solids.
pub struct Rooms<'a> {
    from: DVec2,
    seen: Vec<Vec<Wedge>>,
    building: &'a Building,
}

impl Scene for Rooms<'_> {
    /// Seen when the disc meets a wedge into a room it reaches into (exact line of sight through
    /// the doors, up to the disc straddling two rooms, where it counts as seen if it meets a wedge
    /// of either).
    fn visible(&self, _from: DVec2, at: DVec2, radius: f64) -> bool {
        (0..self.seen.len()).any(|r| {
            let lo = room_lo(r);
            at.clamp(lo, lo + ROOM).distance(at) <= radius
                && self.seen[r].iter().any(|&w| meets(w, at - self.from, radius))
        })
    }

    fn blocked(&self, at: DVec2, radius: f64) -> bool {
        self.building.walls.iter().any(|w| to_segment(at, w[0], w[1]) < radius)
    }
}

impl<'a> Stage for &'a Building {
    type View = Rooms<'a>;

    fn name(&self) -> &'static str {
        "monsters"
    }

    fn entities(&self) -> Vec<Entity> {
        self.entities.clone()
    }

    fn params(&self) -> CrowdParams {
        // Behind walls a monster counts a twentieth: approximate within about 10 m, dormant beyond.
        CrowdParams::default().with_importance(ImportanceParams::default().with_hidden_weight(0.05))
    }

    fn view(&self, t: f64) -> (Viewer, Rooms<'a>) {
        let total: f64 = self.path.windows(2).map(|w| w[0].distance(w[1])).sum();
        let mut s = (t * WALK).rem_euclid(total);
        let mut viewer = Viewer { position: self.path[0], velocity: DVec2::ZERO };
        for w in self.path.windows(2) {
            let len = w[0].distance(w[1]);
            if s <= len {
                let dir = (w[1] - w[0]) / len;
                viewer = Viewer { position: w[0] + dir * s, velocity: dir * WALK };
                break;
            }
            s -= len;
        }
        (viewer, Rooms { from: viewer.position, seen: self.seen_from(viewer.position), building: self })
    }

    fn extent(&self) -> (DVec2, DVec2) {
        (DVec2::splat(-1.0), DVec2::new(GRID.0 as f64, GRID.1 as f64) * ROOM + 1.0)
    }

    fn draw_scene(&self, pic: &mut Picture, map: &Map, viewer: &Viewer, view: &Rooms<'a>) {
        for (r, seen) in view.seen.iter().enumerate() {
            if !seen.is_empty() {
                let (x0, y1) = map.px(room_lo(r));
                let (x1, y0) = map.px(room_lo(r) + ROOM);
                pic.canvas.rect(x0 as i64, y0 as i64, (x1 - x0) as i64, (y1 - y0) as i64, [250, 236, 180]);
            }
        }
        for w in &self.walls {
            pic.wall(map, w[0], w[1]);
        }
        pic.viewer(map, viewer.position);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the segment from `a` to `q` crosses no wall (the brute-force line of sight).
    fn clear(b: &Building, a: DVec2, q: DVec2) -> bool {
        !b.walls.iter().any(|w| {
            let (d, e) = (q - a, w[1] - w[0]);
            let den = d.perp_dot(e);
            if den.abs() < 1e-12 {
                return false;
            }
            let t = (w[0] - a).perp_dot(e) / den;
            let u = (w[0] - a).perp_dot(d) / den;
            (1e-9..=1.0 - 1e-9).contains(&t) && (0.0..=1.0).contains(&u)
        })
    }

    /// Line of sight by brute force: a room is seen if some segment from `p` to one of many points
    /// of it crosses no wall.
    fn seen_by_sampling(b: &Building, p: DVec2) -> Vec<bool> {
        (0..GRID.0 * GRID.1)
            .map(|r| {
                let lo = room_lo(r);
                (1..200).any(|i| {
                    (1..160).any(|j| {
                        let q = lo + DVec2::new(i as f64 / 200.0 * ROOM.x, j as f64 / 160.0 * ROOM.y);
                        clear(b, p, q)
                    })
                })
            })
            .collect()
    }

    #[test]
    fn rooms_seen_through_doors_match_brute_force_line_of_sight() {
        let b = Building::new(2, 1).unwrap();
        let mut rng = SplitMix64::new(5);
        let mut differ = 0;
        for _ in 0..40 {
            let p = DVec2::new(rng.range(0.3, 29.7), rng.range(0.3, 23.7));
            let exact: Vec<bool> = b.seen_from(p).iter().map(|w| !w.is_empty()).collect();
            let sampled = seen_by_sampling(&b, p);
            // Sampling can only miss a room seen through a sliver; it never sees one the portals
            // do not.
            for r in 0..exact.len() {
                assert!(exact[r] || !sampled[r], "room {r} from {p:?}: sampled sees it, portals do not");
                differ += usize::from(exact[r] != sampled[r]);
            }
        }
        assert!(differ <= 4, "{differ} rooms seen only through slivers?");
    }

    #[test]
    fn monsters_seen_match_brute_force_line_of_sight() {
        let b = Building::new(2, 1).unwrap();
        let mut rng = SplitMix64::new(9);
        let (mut seen, mut only_portals) = (0, 0);
        for _ in 0..3000 {
            let p = DVec2::new(rng.range(0.3, 29.7), rng.range(0.3, 23.7));
            let at = DVec2::new(rng.range(0.4, 29.6), rng.range(0.4, 23.6));
            let rooms = Rooms { from: p, seen: b.seen_from(p), building: &b };
            let exact = rooms.visible(p, at, RADIUS);
            // Lines to the centre and to 64 points round the rim.
            let sampled = std::iter::once(at)
                .chain((0..64).map(|k| at + DVec2::from_angle(k as f64 * std::f64::consts::TAU / 64.0) * RADIUS))
                .any(|q| clear(&b, p, q));
            assert!(exact || !sampled, "{at:?} seen from {p:?} by sampling, not by the portals");
            seen += usize::from(exact);
            only_portals += usize::from(exact && !sampled);
        }
        assert!(seen > 300 && only_portals * 50 < seen, "{only_portals} of {seen} seen only by the portals");
    }

    #[test]
    fn routes_keep_clear_of_the_walls() {
        let b = Building::new(4, 1).unwrap();
        let rooms = Rooms { from: DVec2::ZERO, seen: vec![vec![None]; 9], building: &b };
        for e in &b.entities {
            for k in 0..400 {
                let p = e.route.point_at(k as f64 / 400.0 * e.route.length());
                assert!(!rooms.blocked(p, e.radius), "{p:?}");
            }
        }
    }
}
