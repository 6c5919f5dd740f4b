//! Paths for agents of every size across the world (the thesis' 5.2.2: multi-scale path planning
//! on the quad-tree of chapter 3).
//!
//! An [`Agent`] of radius r (0.3 m to 30 m) and a slope limit asks a [`Planner`] for a path from A
//! to B over a square region of any [`Terrain`](crate::Terrain) — the world, a heightfield — with
//! disc obstacles (the world's objects through [`obstacles`]: their footprints, but for those the
//! agent steps over, no taller than [`Agent::step`] radii).
//!
//! **Levels follow the agent.** The planner's finest cells are the largest power of two metres
//! not above r/2 (0.25 m for a 0.5 m walker, 8 m for a 20 m giant), so a big agent plans on a coarse tree
//! and a small one on a fine tree; the quad-tree is cut only where inflated obstacles (footprint
//! radius + r) or ground steeper than the limit meet a cell, down to those finest cells. A leaf is
//! *free* (nothing meets its closed box), *full* (inside one inflated disc, or all steep) or
//! *partial* (a finest cell, neither). **Steep ground is read at the agent's scale**
//! ([`Agent::slope_scale`]: `slope_step`, by default the radius, at least 1 m) on slope cells
//! (the finest cell times the power of two nearest that scale from below: 1 m for a 0.5 m walker,
//! 16 m for a 20 m giant). A cell of 1 m or less is blocked when any terrain triangle steeper than
//! the limit meets it, or when there is no ground at its centre (exact: every triangle). A wider
//! cell is blocked when the ground through the heights at its four corners (two triangles, split
//! as the heightfields' `Alternating` diagonal splits the global cell) is steeper than the limit,
//! or when there is no ground at a corner or its centre: roughness below the agent's scale is not
//! its concern, and a giant steps over a steep metre. Prefix sums count blocked cells in any box in
//! O(1).
//!
//! **Queries** ([`Planner::find_path`]) go through a cluster–portal graph (HPA*-style, `hier.rs`,
//! `abstract_search.rs`): clusters are the tree's nodes at a fixed level (about 32 a side, 8 to
//! 128 finest cells wide); a portal is a point on a side two clusters share, at the middle of each
//! run where free leaves meet across it (one every 32 finest cells on longer runs). The start and
//! the goal join the portals of their clusters, and weighted A* (1.1 × the straight distance to
//! the goal: it stays near the straight line; paths at most 10 % longer than the whole-tree
//! search's in the tests) runs portal to portal; an edge is queued
//! at its straight length and its stretch (the leaf search kept inside the cluster, pulled
//! straight) is found only when it comes off the heap, then cached per cluster. The stretches along
//! the way, joined, are pulled straight again. Ends fewer than 8 clusters apart, or that the graph
//! joins nowhere, go to the leaf search over the whole tree (so "no path" is exact).
//!
//! The leaf search (`search.rs`) is Lazy Theta* over free leaves, centre to centre across shared
//! sides (leaves of any sizes), a node's parent any earlier node that sees it; joined to the start
//! and goal by the free leaves near them that see them; where those do not join the ends, again
//! with the partial cells whose centre the agent may stand on (gaps narrower than a free cell). String pulling, then each corner pulled
//! taut onto the tangents of the discs that block its neighbours' straight line (`smooth.rs`: a
//! few line-of-sight walks a corner; steep cells by bisection), finish every path. Line of sight
//! (`sight.rs`) tests the inflated discs of the buckets of a coarse grid (32 a side) the segment
//! crosses (f64 segment–disc distance against the inflated radius); where a bucket is near steep
//! ground it walks the segment through the leaves instead (`los.rs`): free clears, full blocks,
//! partial is tested exactly (the same disc test, segment–box against steep cells). Corners are set on the
//! ground (z from the terrain).
//!
//! **Snapping.** A start or goal inside an inflated obstacle or on steep ground is moved to the
//! nearest point where the agent may stand, found exactly ([`Planner::nearest_walkable`]), if one
//! is within the agent's [`snap_reach`](Agent::snap_reach) (by default 5 m or two radii, whichever is more); the route says how far
//! ([`Route::moved`]). Beyond it, the error says which end and why.
//!
//! **Repair.** [`Planner::add_obstacle`] and [`Planner::remove_obstacle`] re-cut only the leaves
//! the obstacle's inflated box meets (a node whose four children became alike is cut afresh) and
//! drop the cached portals of the clusters the box meets and the stretches of those clusters and
//! their neighbours; [`Planner::repair`] replans
//! only the stretch of a path near the change, between the last clear corners before and after it.

mod abstract_search;
mod agent;
mod clusters;
mod footprint;
mod geom;
mod hier;
mod los;
mod marks;
mod obstacles;
mod planner;
mod repair;
mod search;
mod sight;
mod slope;
mod smooth;
mod snap;
mod tree;

#[cfg(test)]
mod tests;

pub use agent::Agent;
pub use footprint::{footprint, obstacle, obstacles};
pub use geom::Disc;
pub use planner::{ObstacleId, PathError, Planner, PlannerStats, Route};
