//! The planner: an agent's occupancy quad-tree over a square region of the ground with its
//! obstacles, answering path queries and keeping itself current as obstacles come and go.

use super::agent::Agent;
use super::clusters::Clusters;
use super::geom::Disc;
use super::marks::Search;
use super::obstacles::Obstacles;
use super::sight::Sight;
use super::slope::SlopeGrid;
use super::tree::Tree;
use crate::params::ParamError;
use crate::terrain::Terrain;
use glam::{DVec2, DVec3};

/// Why there is no path.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// An agent parameter is out of range.
    #[error("agent: {0}")]
    Agent(#[from] ParamError),
    /// A coordinate is not finite.
    #[error("{0}: ({1}, {2}) is not a finite point")]
    NotFinite(&'static str, f64, f64),
    /// The start or the goal is outside the planned region.
    #[error("{what} ({x}, {y}) is outside the planned region [{x0}, {x1}] × [{y0}, {y1}]")]
    Outside {
        /// `start` or `goal`.
        what: &'static str,
        /// The point.
        x: f64,
        /// The point.
        y: f64,
        /// The region.
        x0: f64,
        /// The region.
        x1: f64,
        /// The region.
        y0: f64,
        /// The region.
        y1: f64,
    },
    /// The start or the goal is closer to an obstacle than the agent's radius.
    #[error("{0} ({1}, {2}) is inside an obstacle (closer to it than the agent's radius)")]
    InObstacle(&'static str, f64, f64),
    /// The start or the goal stands on ground steeper than the agent's limit, or on none.
    #[error("{0} ({1}, {2}) is on ground steeper than the agent's limit, or off the ground")]
    Steep(&'static str, f64, f64),
    /// The region asked for is too large for the slope cells (raise `slope_step`).
    #[error("region {side} m wide needs {cells} slope cells per side (at most {max}): raise the agent's slope_step")]
    TooLarge {
        /// Side of the region, metres.
        side: f64,
        /// Slope cells per side it would need.
        cells: f64,
        /// The most allowed.
        max: usize,
    },
    /// The region's side is not a finite positive length.
    #[error("side: {0} is not a finite length > 0")]
    Side(f64),
    /// An obstacle's centre is not finite or its radius not a finite length ≥ 0.
    #[error("obstacle {index}: centre ({x}, {y}), radius {radius} (a finite centre and a finite radius ≥ 0)")]
    Obstacle {
        /// Its index in the list given.
        index: usize,
        /// Its centre.
        x: f64,
        /// Its centre.
        y: f64,
        /// Its radius.
        radius: f64,
    },
    /// No free way connects the start and the goal.
    #[error("no path from ({0}, {1}) to ({2}, {3}) for this agent")]
    NoPath(f64, f64, f64, f64),
}

/// A path on the ground: corners from the start to the goal, each on the ground (z from the
/// terrain), the straight segments between them clear of every inflated obstacle and over ground
/// within the slope limit.
#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    /// The corners, start first, goal last.
    pub points: Vec<DVec3>,
    /// How far the start and the goal asked for were moved to walkable ground, metres (0 when
    /// they were not: see [`Planner::nearest_walkable`]).
    pub moved: [f64; 2],
}

impl Route {
    /// Horizontal length, metres.
    pub fn length(&self) -> f64 {
        self.points.windows(2).map(|w| w[0].truncate().distance(w[1].truncate())).sum()
    }

    /// The corners' horizontal positions.
    pub fn xy(&self) -> Vec<DVec2> {
        self.points.iter().map(|p| p.truncate()).collect()
    }
}

/// An id of an obstacle in a [`Planner`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ObstacleId(pub(crate) u32);

/// What a planner holds, for memory accounting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlannerStats {
    /// Leaves of the quad-tree.
    pub leaves: usize,
    /// Bytes of the tree, obstacles and slope cells together.
    pub bytes: usize,
    /// Area of the region, square metres.
    pub area: u64,
}

/// A finite centre and a finite radius ≥ 0.
fn valid(d: &Disc) -> bool {
    d.center.is_finite() && d.radius.is_finite() && d.radius >= 0.0
}

/// Slope cells per side at most (the slope grid and its sums then take about 84 MB).
const MAX_SLOPE_CELLS: usize = 4096;

/// Paths for one agent over a square region of a terrain with disc obstacles.
///
/// ```
/// use landfall::glam::{DVec2, DVec3};
/// use landfall::world::{Agent, Disc, Planner};
/// use landfall::Heightfield;
///
/// let ground = Heightfield::builder(201, 201, vec![0.0; 201 * 201]).build()?;
/// let tree = Disc { center: DVec2::new(100.0, 100.0), radius: 5.0 };
/// let mut planner = Planner::around(&ground, &[tree], Agent::default(), DVec2::new(80.0, 100.0), DVec2::new(120.0, 100.0))?;
/// let path = planner.find_path(DVec2::new(80.0, 100.0), DVec2::new(120.0, 100.0))?;
/// assert!(path.length() > 40.0 && path.length() < 42.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Planner<'a> {
    pub(crate) ground: &'a dyn Terrain,
    pub(crate) agent: Agent,
    pub(crate) obstacles: Obstacles,
    /// The inflated discs again, on a coarse grid for quick line of sight.
    pub(crate) sight: Sight,
    pub(crate) slope: SlopeGrid,
    pub(crate) tree: Tree,
    pub(crate) search: Search,
    pub(crate) clusters: Clusters,
    /// The portal graph search's maps and heap, kept for their capacity between queries.
    pub(crate) portal_search: super::clusters::PortalSearch,
}

/// The grids of a planner over a square: the slope grid's origin, the finest cell and the slope
/// cell (metres), the slope cell in finest cells as a power of two (`shift`), the tree's depth, the
/// slope cells a side and the tree's side (metres).
struct Layout {
    origin: DVec2,
    cell: f64,
    g: f64,
    shift: i32,
    depth: u8,
    n: usize,
    extent: f64,
}

impl Layout {
    /// The grids over the square of side `side` at `corner` for `agent` (both finite), or
    /// [`PathError::TooLarge`].
    fn of(agent: &Agent, corner: DVec2, side: f64) -> Result<Self, PathError> {
        let cell = agent.cell();
        let g = agent.slope_cell();
        let shift = (g / cell).log2().round() as i32;
        let origin = (corner / g.max(cell)).floor() * g.max(cell);
        let need = ((corner.x + side - origin.x).max(corner.y + side - origin.y) / cell).ceil().max(1.0);
        let depth = (need.log2().ceil() as i32).max(shift).max(0) as u32;
        let cells = (depth as f64 - shift as f64).exp2();
        if depth > 24 || cells > MAX_SLOPE_CELLS as f64 {
            return Err(PathError::TooLarge { side, cells, max: MAX_SLOPE_CELLS });
        }
        let extent = (1u64 << depth) as f64 * cell;
        Ok(Self { origin, cell, g, shift, depth: depth as u8, n: cells as usize, extent })
    }
}

impl<'a> Planner<'a> {
    /// A planner over the square of side at least `side` metres whose lower-left corner is at
    /// `corner` (both rounded outward to the agent's cells), with `obstacles`.
    pub fn new(
        ground: &'a dyn Terrain,
        obstacles: &[Disc],
        agent: Agent,
        corner: DVec2,
        side: f64,
    ) -> Result<Self, PathError> {
        agent.validate()?;
        if !corner.is_finite() {
            return Err(PathError::NotFinite("corner", corner.x, corner.y));
        }
        if !(side.is_finite() && side > 0.0) {
            return Err(PathError::Side(side));
        }
        if let Some((index, d)) = obstacles.iter().enumerate().find(|(_, d)| !valid(d)) {
            return Err(PathError::Obstacle { index, x: d.center.x, y: d.center.y, radius: d.radius });
        }
        let Layout { origin, cell, g, shift, depth, n, extent } = Layout::of(&agent, corner, side)?;
        let nb = (1usize << depth).clamp(1, 256);
        let mut obs = Obstacles::new(origin, extent, nb, agent.radius);
        for d in obstacles {
            obs.add(*d);
        }
        let slope = SlopeGrid::new(ground, origin, g, n, shift, agent.max_slope);
        let mut sight = Sight::new(origin, extent, 1 << depth, &slope);
        for id in 0..obstacles.len() as u32 {
            sight.add(id, obs.inflated(id).expect("just added"));
        }
        let tree = Tree::new(origin, cell, depth, &obs, &slope);
        Ok(Self {
            ground,
            agent,
            obstacles: obs,
            sight,
            slope,
            tree,
            search: Search::default(),
            clusters: Clusters::default(),
            portal_search: Default::default(),
        })
    }

    /// A planner over the square around `a` and `b` with room to go around what lies between
    /// them: their box grown by a quarter of their distance, 8 agent radii and 32 metres.
    pub fn around(
        ground: &'a dyn Terrain,
        obstacles: &[Disc],
        agent: Agent,
        a: DVec2,
        b: DVec2,
    ) -> Result<Self, PathError> {
        let (lo, side) = Self::square_around(&agent, a, b)?;
        Self::new(ground, obstacles, agent, lo, side)
    }

    /// Whether [`around`](Self::around) can plan between `a` and `b` for `agent` (finite ends, a
    /// valid agent, a square of at most 4,096 slope cells a side), without building
    /// anything: to refuse a query before gathering its obstacles.
    ///
    /// ```
    /// use landfall::glam::DVec2;
    /// use landfall::world::{Agent, Planner};
    ///
    /// let walker = Agent::default();
    /// assert!(Planner::check_around(&walker, DVec2::ZERO, DVec2::new(1000.0, 0.0)).is_ok());
    /// assert!(Planner::check_around(&walker, DVec2::ZERO, DVec2::new(100_000.0, 0.0)).is_err());
    /// assert!(Planner::check_around(&walker, DVec2::ZERO, DVec2::new(1e300, 0.0)).is_err());
    /// ```
    pub fn check_around(agent: &Agent, a: DVec2, b: DVec2) -> Result<(), PathError> {
        agent.validate()?;
        let (lo, side) = Self::square_around(agent, a, b)?;
        Layout::of(agent, lo, side).map(|_| ())
    }

    /// The lower-left corner and side of [`around`](Self::around)'s square.
    fn square_around(agent: &Agent, a: DVec2, b: DVec2) -> Result<(DVec2, f64), PathError> {
        for (what, p) in [("start", a), ("goal", b)] {
            if !p.is_finite() {
                return Err(PathError::NotFinite(what, p.x, p.y));
            }
        }
        let margin = (0.25 * a.distance(b)).max(8.0 * agent.radius).max(32.0);
        let (lo, hi) = (a.min(b) - margin, a.max(b) + margin);
        let side = (hi - lo).max_element();
        if !(lo.is_finite() && side.is_finite()) {
            // Ends ~1e308 apart: a square beyond f64, larger than any plan.
            return Err(PathError::TooLarge { side: f64::INFINITY, cells: f64::INFINITY, max: MAX_SLOPE_CELLS });
        }
        Ok((lo, side))
    }

    /// The agent.
    pub fn agent(&self) -> &Agent {
        &self.agent
    }

    /// The planned square: lower-left corner and upper-right corner.
    pub fn region(&self) -> (DVec2, DVec2) {
        (self.tree.origin, self.tree.origin + DVec2::splat(self.tree.side() as f64 * self.tree.cell))
    }

    /// Adds an obstacle; only the leaves its inflated box meets are re-cut. Refuses a centre that
    /// is not finite or a radius that is not a finite length ≥ 0 ([`PathError::Obstacle`], index 0).
    pub fn add_obstacle(&mut self, d: Disc) -> Result<ObstacleId, PathError> {
        if !valid(&d) {
            return Err(PathError::Obstacle { index: 0, x: d.center.x, y: d.center.y, radius: d.radius });
        }
        let id = self.obstacles.add(d);
        self.sight.add(id, self.obstacles.inflated(id).expect("just added"));
        self.refresh(d);
        Ok(ObstacleId(id))
    }

    /// Removes an obstacle (returned), re-cutting only the leaves its inflated box met.
    pub fn remove_obstacle(&mut self, id: ObstacleId) -> Option<Disc> {
        let d = self.obstacles.remove(id.0)?;
        self.sight.remove(id.0, Disc { center: d.center, radius: d.radius + self.obstacles.inflate });
        self.refresh(d);
        Some(d)
    }

    /// The obstacle `id`, if present.
    pub fn obstacle(&self, id: ObstacleId) -> Option<Disc> {
        self.obstacles.get(id.0)
    }

    /// Every obstacle present, its radius inflated by the agent's.
    pub fn inflated_obstacles(&self) -> impl Iterator<Item = Disc> + '_ {
        self.obstacles.iter_inflated()
    }

    fn refresh(&mut self, d: Disc) {
        let r = d.radius + self.agent.radius;
        self.tree.update(d.center - r, d.center + r, &self.obstacles, &self.slope);
        self.forget(d.center - r, d.center + r);
    }

    /// Leaves and memory.
    pub fn stats(&self) -> PlannerStats {
        let side = self.tree.side() as f64 * self.tree.cell;
        PlannerStats {
            leaves: self.tree.leaves(),
            bytes: self.tree.bytes()
                + self.obstacles.bytes()
                + self.sight.bytes()
                + self.slope.bytes()
                + self.search.bytes()
                + self.portal_search.bytes()
                + self.clusters.bytes(),
            area: (side * side) as u64,
        }
    }

    /// The point on the ground at (x, y).
    pub(crate) fn on_ground(&self, p: DVec2) -> DVec3 {
        let z = self.ground.top_surface(p.extend(0.0)).map_or(0.0, |s| s.point.z);
        p.extend(z)
    }

    /// `p`, or the nearest walkable point within the agent's snap distance: the errors of
    /// [`check_point`](Self::check_point) when there is none.
    pub(crate) fn place(&self, what: &'static str, p: DVec2) -> Result<DVec2, PathError> {
        self.check_inside(what, p)?;
        match self.nearest_walkable(p) {
            Some(q) => Ok(q),
            None => self.check_point(what, p).map(|()| p),
        }
    }

    /// Checks that `p` is a finite point of the region.
    fn check_inside(&self, what: &'static str, p: DVec2) -> Result<(), PathError> {
        if !p.is_finite() {
            return Err(PathError::NotFinite(what, p.x, p.y));
        }
        let (lo, hi) = self.region();
        if p.x < lo.x || p.y < lo.y || p.x > hi.x || p.y > hi.y {
            return Err(PathError::Outside { what, x: p.x, y: p.y, x0: lo.x, x1: hi.x, y0: lo.y, y1: hi.y });
        }
        Ok(())
    }

    /// Checks that `p` is a place the agent may stand.
    pub(crate) fn check_point(&self, what: &'static str, p: DVec2) -> Result<(), PathError> {
        self.check_inside(what, p)?;
        if !self.point_clear(p) {
            return Err(PathError::InObstacle(what, p.x, p.y));
        }
        if self.slope.blocks_point(p) {
            return Err(PathError::Steep(what, p.x, p.y));
        }
        Ok(())
    }
}
