//! Collision: groups and staged object-vs-object checks; the 2004 paper's bounding-sphere tree,
//! swept spheres (face, edges and vertices), the sliding response, and a kinematic character
//! controller.
//!
//! # How it works
//!
//! **Groups** (the terrain-following note, section 3.4): a membership and a filter bitmask per body; two
//! interact when each one's memberships meet the other's filter (rapier's rule; the note's single
//! bitfield is `Groups::shared`). `check(a, b)` runs the note's stages in order — groups, axis-aligned
//! boxes, oriented boxes (15-axis separating-axis test), then sphere/capsule proxies if both have one —
//! and names the stage that separated them; `colliding_pairs` pairs only bodies that share a group
//! (per-group lists). Terrain queries take a filter too: `TerrainSet` parts carry groups and
//! `surfaces_filtered` / `raycast_filtered` skip parts that do not interact.
//!
//! **Swept sphere** (`sweep_sphere_triangle`): the earliest t in [0, 1] at which a sphere moving along a
//! segment touches a triangle — the face (plane at distance r, contact inside), and, unlike the 2004
//! paper, the three edges (quadratic in t, foot within the edge) and the three vertices (quadratic), so a
//! sphere never snags on or slips through a crease. A sphere already within r touches at t = 0. The
//! contact carries the point, the normal toward the center (the sliding plane) and the touched face's
//! own normal; at a shared edge, ties go to the face most opposed to the motion (the tread under a
//! falling sphere, the riser before a walking one). Ellipsoids: scale space by 1/radii, sweep a unit
//! sphere, scale the contact back (Fauerby). Capsules, exactly: a capsule around a–b touches the
//! triangle when the sphere around a touches the prism the triangle sweeps moved by a − b, whose
//! boundary is two triangles and three parallelograms: the earliest of eight sphere–triangle sweeps.
//!
//! **Candidates** (`SweepTarget`): the 2004 paper's bounding-sphere tree (`SphereTree`: stop rule N = 20
//! triangles per leaf, M = 20 levels; median split on the longest axis; serialized depth-first into one
//! array where each node holds its sphere, child count, the index of what follows its subtree and, for
//! leaves, its triangle range, so the walk only moves forward; the global motion test compares the
//! sphere around start and end with node spheres by squared distances), or any terrain's own candidate
//! triangles for the box around the motion (`TerrainSweep`: a heightfield's grid, a polygon terrain's
//! quadtree). Measured, the terrain's candidates are as fast on long heightfield sweeps and faster for
//! TIN sweeps and controller moves, with no extra memory (`docs/benchmarks.md`), so they are
//! what the demo uses; the tree serves triangle soups and the tests.
//!
//! **What a sweep skips** (every loop over candidates shares `Earliest` in `target.rs`): a
//! triangle whose box stays more than r from the box of the center's path (`SweptBox`: a rounded box,
//! so its corners reject too); a triangle more than r on one side of its plane all along the motion;
//! contacts later than the earliest so far plus its tie window; and, once the earliest contact is at
//! the very start (a sphere resting on or embedded in the ground), every triangle whose contact could
//! not oppose the motion more — it could only win the tie at t = 0, and it cannot. A contact reports
//! the side of the triangle the center is on: where the motion cannot carry the center across the
//! triangle's plane before the tie window ends (with a margin far above rounding), that is the start's
//! side, and only it is compared; otherwise either side. Only the earliest contact's normal is
//! computed, once, at the end of the sweep.
//!
//! **Sliding** (`slide`): sweep; stop `skin` short of the contact, backing off along the motion (at
//! most as far as the sweep came); an embedded sphere, or one whose contact is grazing (motion under
//! 0.06° into the surface, where backing off along the motion gains next to nothing), is pushed out
//! along the normal instead — a grazing push only if a sweep of it meets nothing else (in a crease
//! narrower than the skin it would), an embedded one only if its center crosses no surface (a sweep of
//! a sphere of a hair's radius along it: wedged between a floor and a thin deck over it, a push out of
//! either would carry it through the other); project the rest of the motion, with what the back-off gave
//! back, onto the sliding plane; repeat up to `max_iterations`. The stop (`collide::slide::stop_short`)
//! is the character controller's. The sweep covers the whole motion, so a 1 km
//! step cannot tunnel. Every recorded piece from a clear start is either on a swept line or a checked
//! push, so the path between the positions is as clear as the positions: a property test sweeps a
//! slightly smaller sphere along every piece of every path. Three failure modes, each a test now:
//! the slide once backed off along the contact's normal, so a piece could leave the swept line by
//! up to the skin (the random case `slide_piece_off_the_swept_line` passed 0.38 mm inside a grid edge
//! that the motion only grazed); a grazing contact backed off nothing, so the sphere stayed touching,
//! met the surface again at once on the next sweep, and stalled for the rest of the move and every
//! later one (`grazing_a_wall_still_walks_along_it`); and the slide's check of an embedded push also
//! met the neighbours of the triangle it was embedded in, so it stayed embedded (embedded pushes went
//! unchecked, as in the controller). An embedded push is checked for crossing only: it may come closer to other triangles the shape is in (in a crease the next contacts
//! push it out of them; a check for any approach kept walkers embedded in every sharp crease of
//! gen1025), but its center may not pass through a surface
//! (`an_embedded_push_never_crosses_another_surface`, for `slide` and for all three controller
//! shapes; the property test `wedged_shapes_never_cross_a_surface` between random tilted floors and
//! decks). The check's sweep starts a few hairs along the push, so a center lying exactly on the
//! surface it is pushed out of is not blocked by it.
//!
//! **Character controller** (`CharacterController::move_by`): the candidate triangles of the whole
//! move (a box tall along "up" for a step, gravity and the snap, and across it as wide as twice the
//! walk plus the fall and the skin) are gathered once into `collide::Nearby` — an uninitialised array on
//! the stack, each triangle with its bounding box and unit normal (`PreparedTriangle`) — and every sweep
//! of the move is answered from it (one reaching outside the box, or a box holding more than 96
//! triangles, goes to the terrain itself). From the ground, the walk and the vertical part (gravity, jumps) are moved separately, so that a wall
//! the walk meets can trigger a step; off the ground (falling, sliding down a slope too steep to stand
//! on, jumping), where no step or snap is tried, they are swept as one motion, and at each contact each
//! part keeps its own response below — one slide a frame instead of two for a sliding character. After a
//! contact the character backs off along the motion to keep the skin (embedded or grazing, it is
//! pushed out along the normal instead, as in `slide`), and the part of that back-off
//! that lies along the surface is given back to the rest of the motion (otherwise a contact late in a
//! motion that starts within the skin undoes it all, and the character freezes against a slope). A
//! part pushed back into the plane it met just before follows the crease between the two planes
//! (Quake's `PM_SlideMove`), so a V too steep to stand in is slid down along its bottom instead of
//! bounced in until the sweeps run out. Walking, contacts steeper than `max_climb` are walls: their normal is
//! made horizontal, so they are slid along, never climbed; gentler ones are slid along (climbed). A wall
//! triggers a step: a lift straight up by `step_height` (one sweep, stopping the skin short of
//! anything overhead; no lift, no step), across, down — accepted when the landing contact is walkable and
//! the rise is within the step height (a sphere lands on a step's edge; the next walk rolls over it, and
//! gravity is not applied on the frame of the step). A shape whose flank meets the edge too steeply to
//! count as ground (a tall ellipsoid) lands on the edge when, a shape's width further on, it can move at
//! that height and finds walkable ground within the step height — rapier's `min_width` check. Falling onto ground gentler than `min_slide` stops
//! (no creeping downhill at rest: the back-off after a contact is along the motion, not the normal);
//! steeper ground is slid down. Walking downhill, the character snaps down by up to `snap` when it was
//! grounded. It reports grounded, the ground normal, whether it stepped, and the contacts.
//!
//! Against the option sets users expect:
//!
//! | rapier `KinematicCharacterController` / Jolt `CharacterVirtual` | landfall |
//! |---|---|
//! | `up` / up vector | `CharacterController::up` (take it from the terrain's frame) |
//! | `offset` / character padding | `skin` |
//! | `max_slope_climb_angle` / max slope angle | `max_climb` |
//! | `min_slope_slide_angle` | `min_slide` |
//! | `autostep { max_height, min_width }` / stair walking | `step_height`; the landing contact must be walkable, or (for shapes that meet the edge steeply) the tread a shape's width further on must be — the width is the shape's own |
//! | `snap_to_ground` / stick to floor | `snap` |
//! | `slide` | always on (a controller that stops dead at every contact is `max_iterations: 1` plus ignoring the rest) |
//! | `normal_nudge_factor` | not needed: the back-off after a contact is along the motion, so the character never creeps |
//! | pushing dynamic bodies, inheriting a platform's velocity | not here: landfall has no dynamic bodies, and a `TerrainSet` platform's motion is the caller's to add to the desired motion |
//! | capsule / cylinder / any shape | `ControllerParams::shape`: a sphere (default), an upright capsule (`Shape::Capsule { half_height }`, the usual character shape) or an axis-aligned ellipsoid (`Shape::Ellipsoid { radii }`, Fauerby's); no cylinder or convex hull (a capsule is what both rapier and Jolt users mostly pick) |

mod controller;
mod groups;
mod slide;
mod sphere_tree;
mod sphere_walk;
mod sweep;
mod target;
mod tile_view;

pub use controller::{CharacterController, CharacterMove, ControllerParams, Shape};
pub use groups::{check, colliding_pairs, obb_overlap, segment_closest, segment_distance, Body, Proxy, Stage};
pub use slide::{slide, SlideParams, SlideResult};
pub use sphere_tree::{SphereNode, SphereTree};
pub use sweep::{closest_point, segment_triangle_distance, sweep_capsule_triangle, sweep_sphere_triangle, Contact};
pub use target::{Nearby, SweepTarget, TerrainContact, TerrainSweep, NEARBY_CAPACITY};
pub use tile_view::{
    tile_tree, tile_tree_into, Tile, TileNode, TileSamples, TileTrees, TileView, TileViewError, TileViewParams,
    ViewChange,
};
