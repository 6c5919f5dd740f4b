//! The endless procedural world from Python: the viewer's moves, the objects and roaming entities
//! in the cells around it, batch queries on its drawn ground with the objects standing on it, and
//! proximity in batches.

use crate::args::{self, all_finite, err, pyarray, same_len, slice};
use crate::queries;
use crate::{Array, In};
use landfall::glam::DVec2;
use landfall::glam::DVec3;
use landfall::world::{footprint, obstacles, Agent, CacheParams, LodTerrain, ObjectParams, Objects, Planner, Roaming};
use landfall::world::{World as LfWorld, WorldParams};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;
use std::sync::Mutex;

/// An array of ids (objects' slots, entities' from 2⁴⁰).
type Ids<'py> = Bound<'py, PyArray1<u64>>;

/// A world and its objects: the viewer's world, with the objects of the cells in its cache.
struct State {
    world: LfWorld,
    objects: Option<Objects>,
}

/// The endless world around a moving viewer (see `landfall.World`).
#[pyclass(module = "landfall._landfall", frozen)]
pub struct World {
    state: Mutex<State>,
}

/// The longest step the entities take at once, seconds.
const MAX_STEP: f64 = 0.5;

impl World {
    /// Runs `f` on the state with the GIL released.
    fn with<R: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut State) -> R + Send) -> R {
        py.detach(|| f(&mut self.state.lock().unwrap_or_else(|e| e.into_inner())))
    }
}

fn point(name: &str, p: (f64, f64, f64)) -> PyResult<DVec3> {
    let p = DVec3::new(p.0, p.1, p.2);
    if p.is_finite() {
        Ok(p)
    } else {
        Err(err(format!("{name}: {p} is not finite")))
    }
}

#[pymethods]
impl World {
    /// A world of `seed` around `viewer`, with the default kinds of objects and roaming entities
    /// when `objects`.
    #[new]
    #[pyo3(signature = (viewer, seed, objects))]
    fn new(py: Python<'_>, viewer: (f64, f64, f64), seed: u64, objects: bool) -> PyResult<Self> {
        let viewer = point("viewer", viewer)?;
        let state = py
            .detach(|| -> Result<State, String> {
                let world = LfWorld::new(WorldParams::default().with_seed(seed), CacheParams::default(), viewer)
                    .map_err(|e| e.to_string())?;
                let objects = objects.then(|| Objects::new(&world, ObjectParams::default())).transpose();
                Ok(State { objects: objects.map_err(|e| e.to_string())?, world })
            })
            .map_err(err)?;
        Ok(Self { state: Mutex::new(state) })
    }

    /// Moves the viewer (the cache follows; a jump farther than the cache reaches rebuilds it) and
    /// brings the objects of the cells that came and drops those of the cells that went.
    fn update(&self, py: Python<'_>, viewer: (f64, f64, f64)) -> PyResult<()> {
        let viewer = point("viewer", viewer)?;
        self.with(py, |s| {
            s.world.update(viewer).map_err(|e| e.to_string())?;
            if let Some(o) = &mut s.objects {
                o.sync(&s.world);
            }
            Ok::<(), String>(())
        })
        .map_err(err)
    }

    /// Moves the roaming entities by `dt` seconds, in steps of at most [`MAX_STEP`] (a walk's cost
    /// grows faster than its length), with Ctrl-C honoured between them.
    fn step(&self, py: Python<'_>, dt: f64) -> PyResult<()> {
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(err(format!("dt: {} is not a finite time ≥ 0", landfall::support::Num(dt))));
        }
        let mut left = dt;
        while left > 0.0 {
            let h = left.min(MAX_STEP);
            self.with(py, |s| {
                if let Some(o) = &mut s.objects {
                    o.step(&s.world, h);
                }
            });
            py.check_signals()?;
            left -= h;
        }
        Ok(())
    }

    /// The viewer's position.
    #[getter]
    fn viewer(&self, py: Python<'_>) -> (f64, f64, f64) {
        let v = self.with(py, |s| s.world.viewer());
        (v.x, v.y, v.z)
    }

    /// Heights of the drawn ground with the objects on it (roofs, boulders) at each (x, y); beyond
    /// the drawn mesh, of the far landscape (generated on demand).
    fn _height<'py>(&self, py: Python<'py>, x: In<'py>, y: In<'py>) -> PyResult<Array<'py>> {
        let (x, y) = (slice(&x, "x")?, slice(&y, "y")?);
        same_len(&[(x, "x"), (y, "y")])?;
        let h = self.with(py, |s| match &s.objects {
            Some(o) => queries::heights(&o.solids(&s.world), x, y),
            None => queries::heights(&s.world, x, y),
        });
        Ok(pyarray(py, h))
    }

    /// First hits of rays on the drawn ground and the objects: dict of hit, t, point, normal (flat).
    fn _raycast<'py>(
        &self,
        py: Python<'py>,
        origins: In<'py>,
        dirs: In<'py>,
        max_t: In<'py>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let args::Rays { o, d, m, .. } = args::rays(&origins, &dirs, &max_t)?;
        let rows = self.with(py, |s| match &s.objects {
            Some(ob) => queries::raycast(&ob.solids(&s.world), o, d, m),
            None => queries::raycast(&s.world, o, d, m),
        });
        args::hits(py, &rows)
    }

    /// The objects now: dict of id (uint64), kind (index into `kinds`), centre (flat n·3) and
    /// radius of each bounding sphere, height (the shape's vertical extent) and footprint (flat
    /// n·3: x, y, radius of the disc paths go around unless the agent steps over the object).
    fn _objects<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (ids, kinds, centres, radii, heights, feet) = self.with(py, |s| {
            let (mut ids, mut kinds, mut centres, mut radii, mut heights, mut feet) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for (slot, ob) in s.objects.iter().flat_map(|o| o.iter()) {
                let (c, r) = ob.shape.bounding_sphere();
                let f = footprint(&ob.shape);
                ids.push(u64::from(slot));
                kinds.push(i64::from(ob.kind));
                centres.extend(c.to_array());
                radii.push(r);
                heights.push(ob.shape.height());
                feet.extend([f.center.x, f.center.y, f.radius]);
            }
            (ids, kinds, centres, radii, heights, feet)
        });
        let out = PyDict::new(py);
        out.set_item("id", PyArray1::from_vec(py, ids))?;
        out.set_item("kind", PyArray1::from_vec(py, kinds))?;
        out.set_item("center", pyarray(py, centres))?;
        out.set_item("radius", pyarray(py, radii))?;
        out.set_item("height", pyarray(py, heights))?;
        out.set_item("footprint", pyarray(py, feet))?;
        Ok(out)
    }

    /// The names of the objects' kinds, by index.
    #[getter]
    fn kinds(&self, py: Python<'_>) -> Vec<String> {
        self.with(py, |s| s.objects.iter().flat_map(|o| o.kinds().iter().map(|k| k.name.to_string())).collect())
    }

    /// The roaming entities alive: dict of id (uint64, as `pairs` gives them), position (flat) and
    /// the radius of their bounding spheres (the default roaming entities' capsule: radius plus
    /// half height).
    fn _entities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (ids, pos) = self.with(py, |s| {
            let (mut ids, mut pos) = (Vec::new(), Vec::new());
            if let Some(o) = &s.objects {
                // Entity ids are their slots plus 2⁴⁰; slots are reused, so they stay few.
                let mut left = o.entities().count();
                let mut id = 1u64 << 40;
                while left > 0 {
                    if let Some(e) = o.entity(id) {
                        ids.push(id);
                        pos.extend(e.position.to_array());
                        left -= 1;
                    }
                    id += 1;
                }
            }
            (ids, pos)
        });
        let out = PyDict::new(py);
        out.set_item("id", PyArray1::from_vec(py, ids))?;
        out.set_item("position", pyarray(py, pos))?;
        let r = Roaming::default();
        out.set_item("radius", r.radius + r.half_height)?;
        Ok(out)
    }

    /// Every pair of objects or entities whose bounding spheres overlap or touch: flat (a, b) ids.
    fn _pairs<'py>(&self, py: Python<'py>) -> Ids<'py> {
        let v = self.with(py, |s| {
            let mut v = Vec::new();
            if let Some(o) = &mut s.objects {
                o.pairs(|a, b| v.extend([a, b]));
            }
            v
        });
        PyArray1::from_vec(py, v)
    }

    /// Paths for an agent of `radius`, `max_slope` (radians) and `snap` (metres; `None`: the agent's default, `Agent::snap_reach`) from each start
    /// to its goal (flat n·2 each) around the footprints of the objects held now (but for those it
    /// steps over, no taller than 0.15 of its radius: `landfall::world::obstacle`), on the
    /// ground they stand on, its slope read at the agent's scale (`Agent::slope_scale`): offsets (n + 1) into the waypoints (flat m·3), horizontal lengths (NaN where
    /// none), how far each start and goal was moved (flat n·2, NaN where none) and each path's
    /// error (None where found).
    #[allow(clippy::type_complexity)]
    fn _paths<'py>(
        &self,
        py: Python<'py>,
        starts: In<'py>,
        goals: In<'py>,
        radius: f64,
        max_slope: f64,
        snap: Option<f64>,
    ) -> PyResult<(Ids<'py>, Array<'py>, Array<'py>, Array<'py>, Vec<Option<String>>)> {
        let (a, b) = (slice(&starts, "starts")?, slice(&goals, "goals")?);
        same_len(&[(a, "starts"), (b, "goals")])?;
        let mut agent = Agent::default().with_radius(radius).with_max_slope(max_slope);
        if let Some(m) = snap {
            agent = agent.with_snap(m);
        }
        agent.validate().map_err(|e| err(format!("{}: {}", e.field, e.why)))?;
        let n = a.len() / 2;
        // Ctrl-C stops the batch between paths (one path is not cut short).
        let found: Vec<Result<landfall::world::Route, String>> = crate::interrupt::interruptible(py, |cancel| {
            let s = &mut *self.state.lock().unwrap_or_else(|e| e.into_inner());
            let gen = s.world.generator().clone();
            let ground = LodTerrain::new(gen, s.world.cache_params().mesh_finest, 1024);
            let discs = s.objects.as_ref().map(|o| obstacles(o, &agent)).unwrap_or_default();
            (0..n)
                .into_par_iter()
                .map(|k| {
                    if cancel.load(std::sync::atomic::Ordering::Relaxed) {
                        return Err("stopped".to_string());
                    }
                    let (p, q) = (DVec2::new(a[2 * k], a[2 * k + 1]), DVec2::new(b[2 * k], b[2 * k + 1]));
                    let mut planner = Planner::around(&ground, &discs, agent, p, q).map_err(|e| e.to_string())?;
                    planner.find_path(p, q).map_err(|e| e.to_string())
                })
                .collect()
        })?;
        let (mut offsets, mut points, mut lengths, mut errors) = (vec![0u64], Vec::new(), Vec::new(), Vec::new());
        let mut moved = Vec::new();
        for f in found {
            match f {
                Ok(route) => {
                    lengths.push(route.length());
                    moved.extend(route.moved);
                    points.extend(route.points.iter().flat_map(|p| p.to_array()));
                    errors.push(None);
                }
                Err(e) => {
                    lengths.push(f64::NAN);
                    moved.extend([f64::NAN; 2]);
                    errors.push(Some(e));
                }
            }
            offsets.push((points.len() / 3) as u64);
        }
        Ok((PyArray1::from_vec(py, offsets), pyarray(py, points), pyarray(py, lengths), pyarray(py, moved), errors))
    }

    /// The ids within `radius[k]` of each point (flat n·3): offsets (n + 1) and ids, point k's
    /// ids being `ids[offsets[k]:offsets[k + 1]]`.
    fn _within<'py>(&self, py: Python<'py>, points: In<'py>, radius: In<'py>) -> PyResult<(Ids<'py>, Ids<'py>)> {
        let (p, r) = (slice(&points, "points")?, slice(&radius, "radius")?);
        let n = p.len() / 3;
        args::one_each(r, n, "radius", "points")?;
        all_finite(p, 3, "point")?;
        if let Some(k) = r.iter().position(|r| !(r.is_finite() && *r >= 0.0)) {
            return Err(err(format!("radius {k}: {} is not a finite length ≥ 0", r[k])));
        }
        let (offsets, ids) = self.with(py, |s| {
            let (mut offsets, mut ids) = (vec![0u64], Vec::new());
            for (k, &rk) in r.iter().enumerate() {
                if let Some(o) = &s.objects {
                    o.within_radius(args::vec3(p, k), rk, |id| ids.push(id));
                }
                offsets.push(ids.len() as u64);
            }
            (offsets, ids)
        });
        Ok((PyArray1::from_vec(py, offsets), PyArray1::from_vec(py, ids)))
    }
}
