//! The `landfall` Python package's native module (`landfall._landfall`): terrains and their batch
//! queries on flat float64 arrays. The Python layer (`python/landfall/`) shapes arguments and
//! results (broadcasting, dtypes, xarray, Dask); every query here releases the GIL and runs in
//! parallel. The work is done in one module per concept: `queries` (heights, floors, ceilings,
//! rays, sight, light), `motion` (swept spheres, placement, character controllers), `edit`,
//! `viewshed` and `world` (the endless world, its objects and entities).

mod args;
mod edit;
mod geo;
mod interrupt;
mod motion;
mod queries;
mod viewshed;
mod world;

use args::{all_finite, columns, err, in_range, pyarray, same_len, same_points, slice};
use landfall::glam::DVec3;
use landfall::viewshed::{ViewshedError, ViewshedMode, ViewshedParams};
use landfall::{Diagonal, FollowParams, Frame};
use landfall_io::AnyTerrain;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use queries::Pick;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

type Array<'py> = Bound<'py, PyArray1<f64>>;
type In<'py> = PyReadonlyArray1<'py, f64>;

/// A terrain: a heightfield or a polygon terrain.
#[pyclass(module = "landfall._landfall", frozen, subclass)]
pub struct Terrain {
    /// The terrain; queries take a clone of the `Arc` and run without the lock, edits copy it
    /// first when a query still holds it.
    inner: RwLock<Arc<AnyTerrain>>,
    /// Where it came from (for `info` and pickling): a file path, if any.
    #[pyo3(get)]
    path: Option<String>,
    /// The EPSG code of the file's CRS (a GeoTIFF's, or the GeoTIFF's an index was built from).
    epsg: Option<u16>,
    /// The largest change float64 heights given from Python (`from_array`, `set_heights`) took
    /// on becoming the stored float32 samples, as f64 bits; NaN when none were given.
    rounding: AtomicU64,
    /// What the file's opening noted (as the CLI prints them): `info()["notes"]`.
    notes: Vec<String>,
    /// The notes `landfall.open` raises as warnings (`landfall_io::is_caution`).
    #[pyo3(get)]
    warnings: Vec<String>,
}

/// The largest |v − f32(v)| over the finite values of `values`.
fn f32_rounding(values: impl Iterator<Item = f64>) -> f64 {
    values.filter(|v| v.is_finite()).map(|v| (v - v as f32 as f64).abs()).fold(0.0, f64::max)
}

/// A heightfield (a raster's grid of samples, two triangles a cell).
#[pyclass(module = "landfall._landfall", frozen, extends = Terrain)]
pub struct Heightfield {}

impl Terrain {
    fn new(t: AnyTerrain, path: Option<String>) -> Self {
        Self {
            inner: RwLock::new(Arc::new(t)),
            path,
            epsg: None,
            rounding: AtomicU64::new(f64::NAN.to_bits()),
            notes: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The terrain as it is now.
    fn get(&self) -> Arc<AnyTerrain> {
        self.inner.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Changes the terrain (copying it first if a query is still running on it).
    fn edit<R: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut AnyTerrain) -> R + Send) -> R {
        py.detach(|| {
            let mut guard = self.inner.write().unwrap_or_else(|e| e.into_inner());
            f(Arc::make_mut(&mut guard))
        })
    }

    /// The answers for items `0..n`: `f(terrain, range)` answers a range of them, run with the
    /// GIL released on chunks of about 25–50 ms (a chunk doubles while it takes under 25 ms), between which Python's signal handlers run (Ctrl-C
    /// raises `KeyboardInterrupt` within a chunk's time) and a mapped index is checked for a change
    /// under it. The answers are allocated up front, fallibly (`MemoryError`).
    fn batch<T: Send>(
        &self,
        py: Python<'_>,
        n: usize,
        f: impl Fn(&dyn landfall::Terrain, std::ops::Range<usize>) -> Vec<T> + Sync,
    ) -> PyResult<Vec<T>> {
        self.batch_any(py, n, |t, r| f(t.as_dyn(), r))
    }

    /// [`batch`](Self::batch) on the terrain itself (for what depends on its kind).
    fn batch_any<T: Send>(
        &self,
        py: Python<'_>,
        n: usize,
        f: impl Fn(&AnyTerrain, std::ops::Range<usize>) -> Vec<T> + Sync,
    ) -> PyResult<Vec<T>> {
        let t = self.get();
        let mut out = args::fallible(n)?;
        let (mut at, mut chunk) = (0, 1024);
        while at < n {
            let end = (at + chunk).min(n);
            let start = std::time::Instant::now();
            let part = py.detach(|| f(&t, at..end));
            out.extend(part);
            py.check_signals()?;
            if let Some(path) = &self.path {
                landfall_io::check_mapped(std::path::Path::new(path))
                    .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))?;
            }
            if start.elapsed() < std::time::Duration::from_millis(25) {
                chunk = (chunk * 2).min(1 << 22);
            }
            at = end;
        }
        Ok(out)
    }
}

/// Points `r` of a flat n·3 array.
fn r3(r: &std::ops::Range<usize>) -> std::ops::Range<usize> {
    3 * r.start..3 * r.end
}

fn surface_pair<'py>(py: Python<'py>, rows: &[[f64; 6]]) -> PyResult<(Array<'py>, Array<'py>)> {
    let d = columns(py, rows, &[("p", 3), ("n", 3)])?;
    Ok((d.get_item("p")?.unwrap().cast_into()?, d.get_item("n")?.unwrap().cast_into()?))
}

#[pymethods]
impl Terrain {
    /// Topmost surface height at each (x, y); NaN where there is none.
    fn _height<'py>(&self, py: Python<'py>, x: In<'py>, y: In<'py>) -> PyResult<Array<'py>> {
        let (x, y) = (slice(&x, "x")?, slice(&y, "y")?);
        same_len(&[(x, "x"), (y, "y")])?;
        Ok(pyarray(
            py,
            self.batch_any(py, x.len(), |t, r| match t {
                AnyTerrain::Geographic(g) => geo::heights(g, &x[r.clone()], &y[r]),
                t => queries::heights(t.as_dyn(), &x[r.clone()], &y[r]),
            })?,
        ))
    }

    /// Surface points and normals, flat (n·3 each): `pick` "top" at (x, y), "floor" the nearest at
    /// or below (x, y, z) along gravity, "ceiling" the nearest at or above; NaN rows where there is
    /// none.
    #[pyo3(signature = (x, y, z, pick))]
    fn _surface<'py>(
        &self,
        py: Python<'py>,
        x: In<'py>,
        y: In<'py>,
        z: Option<In<'py>>,
        pick: &str,
    ) -> PyResult<(Array<'py>, Array<'py>)> {
        let (x, y) = (slice(&x, "x")?, slice(&y, "y")?);
        let z = z.as_ref().map(|z| slice(z, "z")).transpose()?;
        let mut parts = vec![(x, "x"), (y, "y")];
        parts.extend(z.map(|z| (z, "z")));
        same_len(&parts)?;
        let pick = match (pick, z.is_some()) {
            ("top", _) => Pick::Top,
            ("floor", true) => Pick::Floor,
            ("ceiling", true) => Pick::Ceiling,
            (p, _) => return Err(err(format!("z: the {p} query needs z"))),
        };
        if let AnyTerrain::Geographic(g) = &*self.get() {
            if matches!(pick, Pick::Ceiling) {
                return Err(err("ceiling: a terrain in degrees has one surface on each ellipsoid normal"));
            }
            let rows = py.detach(|| geo::surfaces(g, x, y, z));
            return surface_pair(py, &rows);
        }
        if matches!(pick, Pick::Top) && !self.get().as_dyn().frame().is_z_up() {
            return Err(err("z: with a gravity other than (0, 0, -1) the points need z"));
        }
        let rows =
            self.batch(py, x.len(), |t, r| queries::surfaces(t, &x[r.clone()], &y[r.clone()], z.map(|z| &z[r]), pick))?;
        surface_pair(py, &rows)
    }

    /// 1.0 where a point has a floor at or below it and a ceiling at or above it (QOTA's locale
    /// test), else 0.0.
    fn _contains<'py>(&self, py: Python<'py>, x: In<'py>, y: In<'py>, z: In<'py>) -> PyResult<Array<'py>> {
        let (x, y, z) = (slice(&x, "x")?, slice(&y, "y")?, slice(&z, "z")?);
        same_len(&[(x, "x"), (y, "y"), (z, "z")])?;
        Ok(pyarray(py, self.batch(py, x.len(), |t, r| queries::contains(t, &x[r.clone()], &y[r.clone()], &z[r]))?))
    }

    /// First hits of rays (origins and directions flat n·3, max_t n): dict of hit (0/1), t, point
    /// n·3, normal n·3, NaN where missed.
    fn _raycast<'py>(
        &self,
        py: Python<'py>,
        origins: In<'py>,
        dirs: In<'py>,
        max_t: In<'py>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let args::Rays { o, d, m, n } = args::rays(&origins, &dirs, &max_t)?;
        let rows = self.batch_any(py, n, |t, r| match t {
            AnyTerrain::Geographic(g) => geo::raycast(g, &o[r3(&r)], &d[r3(&r)], &m[r]),
            t => queries::raycast(t.as_dyn(), &o[r3(&r)], &d[r3(&r)], &m[r]),
        })?;
        args::hits(py, &rows)
    }

    /// Line of sight between point pairs (flat n·3 each): 1.0 where the segment a→b crosses no
    /// terrain strictly between its ends, else 0.0.
    fn _visible<'py>(&self, py: Python<'py>, a: In<'py>, b: In<'py>) -> PyResult<Array<'py>> {
        let (a, b) = (slice(&a, "a")?, slice(&b, "b")?);
        let n = same_points(&[(a, "a"), (b, "b")])?;
        for p in [a, b] {
            all_finite(p, 3, "point pair")?;
            in_range(p, 3, "point pair")?;
        }
        Ok(pyarray(
            py,
            self.batch_any(py, n, |t, r| match t {
                AnyTerrain::Geographic(g) => geo::visible(g, &a[r3(&r)], &b[r3(&r)]),
                t => queries::visible(t.as_dyn(), &a[r3(&r)], &b[r3(&r)]),
            })?,
        ))
    }

    /// A terrain in degrees: (lon, lat, h) points (flat n·3) → its east-north-up frame (metres), or
    /// back with `to_enu` false.
    fn _convert<'py>(&self, py: Python<'py>, points: In<'py>, to_enu: bool) -> PyResult<Array<'py>> {
        let p = slice(&points, "points")?;
        let AnyTerrain::Geographic(g) = &*self.get() else {
            return Err(err("the terrain is not in degrees (no geographic CRS): it has no east-north-up frame"));
        };
        Ok(pyarray(py, py.detach(|| geo::convert(g, p, to_enu))))
    }

    /// Shadows: 1.0 where the ray from each point (flat n·3) toward the light (`to_light` flat n·3)
    /// meets no terrain farther than `bias` along it.
    fn _is_lit<'py>(&self, py: Python<'py>, points: In<'py>, to_light: In<'py>, bias: f64) -> PyResult<Array<'py>> {
        let (p, l) = (slice(&points, "points")?, slice(&to_light, "to_light")?);
        let n = same_points(&[(p, "points"), (l, "to_light")])?;
        all_finite(p, 3, "point")?;
        all_finite(l, 3, "light direction")?;
        if let Some(k) = l.chunks_exact(3).position(|d| d == [0.0; 3]) {
            return Err(err(format!("to_light {k}: a zero direction")));
        }
        if !(bias.is_finite() && bias >= 0.0) {
            return Err(err(format!("bias: {bias} is not a finite distance ≥ 0")));
        }
        Ok(pyarray(py, self.batch(py, n, |t, r| queries::lit(t, &p[r3(&r)], &l[r3(&r)], bias))?))
    }

    /// Swept spheres (centres and motions flat n·3, radii n): dict of hit, t (fraction of the
    /// motion), point, normal, center at contact.
    fn _sweep<'py>(
        &self,
        py: Python<'py>,
        centers: In<'py>,
        radii: In<'py>,
        motions: In<'py>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (c, r, v) = (slice(&centers, "centers")?, slice(&radii, "radius")?, slice(&motions, "motions")?);
        let n = same_points(&[(c, "centers"), (v, "motions")])?;
        args::one_each(r, n, "radius", "spheres")?;
        all_finite(c, 3, "center")?;
        all_finite(v, 3, "motion")?;
        if let Some(k) = r.iter().position(|&r| !(r.is_finite() && r > 0.0)) {
            return Err(err(format!("radius {k}: {} is not a finite radius > 0", r[k])));
        }
        let rows = self.batch(py, n, |t, k| motion::sweep(t, &c[r3(&k)], &r[k.clone()], &v[r3(&k)]))?;
        columns(py, &rows, &[("hit", 1), ("t", 1), ("point", 3), ("normal", 3), ("center", 3)])
    }

    /// Bodies placed on the ground (positions flat n·3, headings n): dict of refusal code, position,
    /// up, forward, rotation (x, y, z, w), pitch, roll, slope.
    #[pyo3(signature = (positions, headings, length, width, contacts, max_slope, probe_up))]
    #[allow(clippy::too_many_arguments)]
    fn _place<'py>(
        &self,
        py: Python<'py>,
        positions: In<'py>,
        headings: In<'py>,
        length: f64,
        width: f64,
        contacts: &str,
        max_slope: f64,
        probe_up: f64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (p, h) = (slice(&positions, "positions")?, slice(&headings, "heading")?);
        if p.len() != 3 * h.len() {
            return Err(err(format!("heading: {} values for {} positions", h.len(), p.len() / 3)));
        }
        all_finite(p, 3, "position")?;
        all_finite(h, 1, "heading")?;
        let params = FollowParams::default()
            .with_length(length)
            .with_width(width)
            .with_contacts(motion::contacts(contacts).map_err(err)?)
            .with_max_slope(max_slope)
            .with_probe_up(probe_up);
        params.validate().map_err(|e| err(e.to_string()))?;
        let rows = self.batch(py, h.len(), |t, r| motion::place_all(t, &p[r3(&r)], &h[r], &params))?;
        let out = columns(
            py,
            &rows,
            &[
                ("code", 1),
                ("position", 3),
                ("up", 3),
                ("forward", 3),
                ("rotation", 4),
                ("pitch", 1),
                ("roll", 1),
                ("slope", 1),
            ],
        )?;
        out.set_item("reasons", landfall::Refusal::NAMES.to_vec())?;
        Ok(out)
    }

    /// One move of each character controller (positions and desired motions flat n·3, grounded n
    /// as 0/1): dict of position, grounded, ground_normal, stepped, contacts.
    fn _move<'py>(
        &self,
        py: Python<'py>,
        positions: In<'py>,
        desired: In<'py>,
        grounded: In<'py>,
        options: motion::ControllerOptions,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (p, d, g) = (slice(&positions, "positions")?, slice(&desired, "motions")?, slice(&grounded, "grounded")?);
        let n = same_points(&[(p, "positions"), (d, "motions")])?;
        args::one_each(g, n, "grounded", "characters")?;
        all_finite(p, 3, "position")?;
        all_finite(d, 3, "motion")?;
        let t = self.get();
        let ctl = motion::controller(t.as_dyn(), &options).map_err(err)?;
        let rows = self.batch(py, n, |t, r| motion::move_all(t, &ctl, &p[r3(&r)], &d[r3(&r)], &g[r]))?;
        columns(py, &rows, &[("position", 3), ("grounded", 1), ("ground_normal", 3), ("stepped", 1), ("contacts", 1)])
    }

    /// Adds a polygon (vertices flat k·3) to a polygon terrain; its id.
    fn _insert_polygon(&self, py: Python<'_>, vertices: In<'_>) -> PyResult<u32> {
        let v = slice(&vertices, "vertices")?;
        self.edit(py, |t| match t {
            AnyTerrain::Polygons(p) => edit::insert_polygon(p, v),
            AnyTerrain::Heightfield(_) | AnyTerrain::Geographic(_) => {
                Err("a heightfield is edited with set_heights".into())
            }
        })
        .map_err(err)
    }

    /// Removes polygon `id` from a polygon terrain; how many faces it had.
    fn _remove_polygon(&self, py: Python<'_>, id: u32) -> PyResult<usize> {
        self.edit(py, |t| match t {
            AnyTerrain::Polygons(p) => p.remove_polygon(id).map_err(|e| e.to_string()),
            AnyTerrain::Heightfield(_) | AnyTerrain::Geographic(_) => {
                Err("a heightfield is edited with set_heights".into())
            }
        })
        .map_err(err)
    }

    /// What `landfall info` says, as a dict.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("path", self.path.clone())?;
        let inner = self.get();
        let t = inner.as_dyn();
        let b = t.bounds();
        d.set_item("bounds", ((b.min.x, b.min.y, b.min.z), (b.max.x, b.max.y, b.max.z)))?;
        let g = t.frame().down();
        d.set_item("gravity", (g.x, g.y, g.z))?;
        d.set_item("notes", self.notes.clone())?;
        if let AnyTerrain::Geographic(g) = &*inner {
            let (o, e) = (g.frame().origin(), g.frame().origin_ecef());
            let origin = PyDict::new(py);
            origin.set_item("lon", o.lon)?;
            origin.set_item("lat", o.lat)?;
            origin.set_item("h", o.h)?;
            origin.set_item("ecef", (e.x, e.y, e.z))?;
            d.set_item("enu_origin", origin)?;
            d.set_item("geographic", true)?;
        }
        match &*inner {
            AnyTerrain::Heightfield(_) | AnyTerrain::Geographic(_) => {
                let hf = inner.heightfield().expect("a raster");
                d.set_item(
                    "kind",
                    if matches!(&*inner, AnyTerrain::Geographic(_)) { "geographic" } else { "heightfield" },
                )?;
                d.set_item("diagonal", hf.diagonal().name())?;
                d.set_item("nx", hf.nx())?;
                d.set_item("ny", hf.ny())?;
                d.set_item("spacing", (hf.spacing().x, hf.spacing().y))?;
                d.set_item("origin", (hf.origin().x, hf.origin().y))?;
                // The grid's own coordinates (lon, lat in degrees for a geographic raster, whose
                // "bounds" are metres in its east-north-up frame).
                let e = hf.bounds();
                d.set_item("extent", ((e.min.x, e.min.y), (e.max.x, e.max.y)))?;
                d.set_item("triangles", hf.triangle_count())?;
                d.set_item("height_range", hf.height_range().map(|(a, b)| (a as f64, b as f64)))?;
                d.set_item("nodata_samples", hf.nodata_count())?;
                d.set_item("masked_cells", hf.masked_cell_count())?;
                d.set_item("memory_bytes", hf.memory_bytes())?;
                d.set_item("mapped", hf.is_mapped())?;
                d.set_item("crs", self.epsg.map(|c| format!("EPSG:{c}")))?;
                // Samples are float32: a height h is kept to within |h|·2⁻²⁴.
                d.set_item("dtype", "float32")?;
                let top = hf.height_range().map_or(0.0, |(a, b)| a.abs().max(b.abs()) as f64);
                d.set_item("rounding_bound", top * 2f64.powi(-24))?;
                let measured = f64::from_bits(self.rounding.load(Ordering::Relaxed));
                d.set_item("rounding_error", (!measured.is_nan()).then_some(measured))?;
            }
            AnyTerrain::Polygons(p) => {
                d.set_item("kind", "polygons")?;
                let r = p.report();
                d.set_item("polygons", r.polygons)?;
                d.set_item("faces", r.faces)?;
                d.set_item("memory_bytes", p.stats().total_bytes())?;
            }
        }
        Ok(d)
    }
}

/// The heightfield behind a `Heightfield`.
fn heightfield_of(t: &AnyTerrain) -> &landfall::Heightfield {
    t.heightfield().expect("a Heightfield holds a heightfield")
}

#[pymethods]
impl Heightfield {
    /// A heightfield from a 2-D array laid out as a raster (first row north), NaN = hole.
    #[staticmethod]
    #[pyo3(signature = (heights, spacing, origin, diagonal, geographic))]
    fn _from_array(
        py: Python<'_>,
        heights: numpy::PyReadonlyArray2<'_, f64>,
        spacing: (f64, f64),
        origin: (f64, f64),
        diagonal: &str,
        geographic: bool,
    ) -> PyResult<Py<Heightfield>> {
        let a = heights.as_array();
        let (ny, nx) = a.dim();
        let diagonal: Diagonal = diagonal.parse().map_err(|e: String| err(format!("diagonal: {e}")))?;
        for v in [spacing.0, spacing.1] {
            if !(v.is_finite() && v > 0.0) {
                return Err(err(format!("spacing: {v} is not a finite spacing > 0")));
            }
        }
        let mut values = Vec::with_capacity(nx * ny);
        for j in 0..ny {
            // Row 0 south: the array's last row.
            for i in 0..nx {
                let v = a[[ny - 1 - j, i]];
                if v.is_infinite() || (v.is_finite() && (v as f32).is_infinite()) {
                    return Err(err(format!("heights: row {}, column {i}: {v} is not a finite height", ny - 1 - j)));
                }
                values.push(v as f32);
            }
        }
        let hf = py
            .detach(|| {
                landfall::Heightfield::builder(nx, ny, values)
                    .spacing(spacing.0, spacing.1)
                    .origin(origin.0, origin.1)
                    .diagonal(diagonal)
                    .build()
            })
            .map_err(|e| err(format!("heights: {e}")))?;
        let t = if geographic {
            // Longitude and latitude in degrees: the surface on the WGS84 ellipsoid, as a file in
            // EPSG:4326 opens.
            let g =
                py.detach(|| landfall::geo::GeoSurface::new(hf)).map_err(|e| err(format!("origin, spacing: {e}")))?;
            Terrain { epsg: Some(4326), ..Terrain::new(AnyTerrain::Geographic(g), None) }
        } else {
            Terrain::new(AnyTerrain::Heightfield(hf), None)
        };
        t.rounding.store(f32_rounding(a.iter().copied()).to_bits(), Ordering::Relaxed);
        let init = PyClassInitializer::from(t).add_subclass(Heightfield {});
        Py::new(py, init)
    }

    /// The viewshed from (x, y): flat values in raster order (first row north), u8 as float
    /// (1 visible, 0 hidden, 255 nodata) for mode "visible", else least target heights (NaN
    /// nodata). Ctrl-C stops it (KeyboardInterrupt).
    #[pyo3(signature = (x, y, observer_height, target_height, max_distance, curvature, refraction, start_angle, end_angle, low_pitch, high_pitch, mode))]
    #[allow(clippy::too_many_arguments)]
    fn _viewshed<'py>(
        slf: PyRef<'py, Self>,
        py: Python<'py>,
        x: f64,
        y: f64,
        observer_height: f64,
        target_height: f64,
        max_distance: Option<f64>,
        curvature: bool,
        refraction: f64,
        start_angle: Option<f64>,
        end_angle: Option<f64>,
        low_pitch: Option<f64>,
        high_pitch: Option<f64>,
        mode: &str,
    ) -> PyResult<Array<'py>> {
        let inner = slf.as_super().get();
        let params = viewshed_params(
            observer_height,
            target_height,
            max_distance,
            curvature,
            refraction,
            start_angle,
            end_angle,
            low_pitch,
            high_pitch,
        )?;
        let mode = ViewshedMode::from_name(mode).map_err(err)?;
        if mode == ViewshedMode::Count {
            return Err(err("mode: 'count' takes many observers: use cumulative_viewshed"));
        }
        let hf = heightfield_of(&inner);
        let values = interrupt::interruptible(py, |cancel| viewshed::single(&inner, [x, y], &params, mode, cancel))?;
        let values = values.map_err(|e| match e {
            ViewshedError::ObserverOutside { .. } | ViewshedError::ObserverOverHole { .. } => {
                err(format!("{e} (the terrain covers {})", hf.bounds().xy_extent()))
            }
            e => err(e),
        })?;
        Ok(pyarray(py, values))
    }

    /// How many of the observers (flat x, y, eye heights; NaN for `observer_height`) see each
    /// sample, in raster order: (counts as float, 1.0 where the sample is some observer's target).
    #[pyo3(signature = (x, y, heights, observer_height, target_height, max_distance, curvature, refraction, start_angle, end_angle, low_pitch, high_pitch))]
    #[allow(clippy::too_many_arguments)]
    fn _cumulative_viewshed<'py>(
        slf: PyRef<'py, Self>,
        py: Python<'py>,
        x: In<'py>,
        y: In<'py>,
        heights: In<'py>,
        observer_height: f64,
        target_height: f64,
        max_distance: Option<f64>,
        curvature: bool,
        refraction: f64,
        start_angle: Option<f64>,
        end_angle: Option<f64>,
        low_pitch: Option<f64>,
        high_pitch: Option<f64>,
    ) -> PyResult<(Array<'py>, Array<'py>)> {
        let inner = slf.as_super().get();
        let params = viewshed_params(
            observer_height,
            target_height,
            max_distance,
            curvature,
            refraction,
            start_angle,
            end_angle,
            low_pitch,
            high_pitch,
        )?;
        let (x, y, h) = (slice(&x, "x")?, slice(&y, "y")?, slice(&heights, "heights")?);
        if x.len() != y.len() || x.len() != h.len() {
            return Err(err(format!("x, y, heights: lengths {}, {}, {} differ", x.len(), y.len(), h.len())));
        }
        let observers: Vec<[f64; 3]> = (0..x.len()).map(|k| [x[k], y[k], h[k]]).collect();
        let (counts, targets) =
            interrupt::interruptible(py, |cancel| viewshed::counts(&inner, &observers, &params, cancel))?
                .map_err(err)?;
        Ok((
            pyarray(py, counts.into_iter().map(f64::from).collect()),
            pyarray(py, targets.into_iter().map(|t| f64::from(u8::from(t))).collect()),
        ))
    }

    /// The samples as a 2-D array in raster order (first row north), NaN = hole.
    fn _heights<'py>(slf: PyRef<'py, Self>, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
        let inner = slf.as_super().get();
        let hf = heightfield_of(&inner);
        let (nx, ny) = (hf.nx(), hf.ny());
        let rows: Vec<Vec<f64>> = (0..ny).rev().map(|j| (0..nx).map(|i| hf.sample(i, j) as f64).collect()).collect();
        numpy::PyArray2::from_vec2(py, &rows).map_err(err)
    }

    /// Overwrites the block of samples (2-D, raster order) whose north-west corner is raster row
    /// `row`, column `col`; NaN makes a hole.
    fn _set_heights(
        slf: PyRef<'_, Self>,
        py: Python<'_>,
        values: numpy::PyReadonlyArray2<'_, f64>,
        row: usize,
        col: usize,
    ) -> PyResult<()> {
        let (h, w) = values.as_array().dim();
        let flat: Vec<f64> = values.as_array().iter().copied().collect();
        let base = slf.as_super();
        base.edit(py, |t| match t {
            AnyTerrain::Heightfield(hf) => edit::set_block(hf, row, col, h, w, &flat),
            // In degrees: the grid edited, then its surface (positions and box tree) rebuilt.
            AnyTerrain::Geographic(g) => {
                let mut hf = g.heightfield().clone();
                edit::set_block(&mut hf, row, col, h, w, &flat)?;
                *g = landfall::geo::GeoSurface::new(hf).map_err(|e| e.to_string())?;
                Ok(())
            }
            AnyTerrain::Polygons(_) => unreachable!("a Heightfield holds a heightfield"),
        })
        .map_err(err)?;
        let this = f32_rounding(flat.iter().copied());
        let before = f64::from_bits(base.rounding.load(Ordering::Relaxed));
        base.rounding.store((if before.is_nan() { this } else { before.max(this) }).to_bits(), Ordering::Relaxed);
        Ok(())
    }
}

/// Opens a terrain file with the CLI's options (see `landfall.open`).
#[pyfunction]
#[pyo3(signature = (path, spacing, origin, z_scale, z_offset, diagonal, gravity, max_samples))]
#[allow(clippy::too_many_arguments)]
fn _open(
    py: Python<'_>,
    path: std::path::PathBuf,
    spacing: Option<(f64, f64)>,
    origin: Option<(f64, f64)>,
    z_scale: f64,
    z_offset: f64,
    diagonal: &str,
    gravity: Option<(f64, f64, f64)>,
    max_samples: Option<u64>,
) -> PyResult<Py<PyAny>> {
    let diagonal: Diagonal = diagonal.parse().map_err(|e: String| err(format!("diagonal: {e}")))?;
    let frame = match gravity {
        None => None,
        Some((x, y, z)) => Some(Frame::from_gravity(DVec3::new(x, y, z)).map_err(|e| err(format!("gravity: {e}")))?),
    };
    let opts = landfall_io::TerrainOptions {
        raster: landfall_io::LoadOptions {
            spacing,
            origin,
            z_scale,
            z_offset,
            diagonal,
            limits: max_samples
                .map_or_else(landfall_io::Limits::default, |max_samples| landfall_io::Limits { max_samples }),
            ..Default::default()
        },
        frame,
        ..Default::default()
    };
    let opened = py.detach(|| landfall_io::open_terrain(&path, &opts)).map_err(err)?;
    let is_hf = opened.terrain.heightfield().is_some();
    let epsg = opened.geokeys.as_ref().and_then(landfall_io::GeoKeys::epsg);
    let warnings = opened.notes.iter().filter(|n| landfall_io::is_caution(n)).cloned().collect();
    let t = Terrain {
        epsg,
        notes: opened.notes.clone(),
        warnings,
        ..Terrain::new(opened.terrain, Some(path.display().to_string()))
    };
    if is_hf {
        Ok(Py::new(py, PyClassInitializer::from(t).add_subclass(Heightfield {}))?.into_any())
    } else {
        Ok(Py::new(py, t)?.into_any())
    }
}

/// The native module.
#[pymodule]
fn _landfall(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // NumPy's C API now, at import: fetched lazily by the first array made, an import that a
    // pending Ctrl-C interrupts, which the numpy crate turned into a PanicException.
    let _ = PyArray1::<f64>::zeros(m.py(), [0], false);
    m.add_class::<Terrain>()?;
    m.add_class::<Heightfield>()?;
    m.add_class::<world::World>()?;
    m.add_function(wrap_pyfunction!(_open, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// The viewshed's parameters from Python's keyword arguments, checked by the library.
#[allow(clippy::too_many_arguments)]
fn viewshed_params(
    observer_height: f64,
    target_height: f64,
    max_distance: Option<f64>,
    curvature: bool,
    refraction: f64,
    start_angle: Option<f64>,
    end_angle: Option<f64>,
    low_pitch: Option<f64>,
    high_pitch: Option<f64>,
) -> PyResult<ViewshedParams> {
    let params = ViewshedParams::default()
        .with_observer_height(observer_height)
        .with_target_height(target_height)
        .with_max_distance(max_distance.unwrap_or(f64::INFINITY))
        .with_curvature(curvature)
        .with_refraction(refraction)
        .with_limits(start_angle, end_angle, low_pitch, high_pitch)
        .map_err(err)?;
    params.validate().map_err(err)?;
    Ok(params)
}
