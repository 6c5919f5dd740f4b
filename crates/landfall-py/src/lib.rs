//! The `landfall` Python package's native module (`landfall._landfall`): terrains and their batch
//! queries on flat float64 arrays. The Python layer (`python/landfall/`) shapes arguments and
//! results (broadcasting, dtypes, xarray, Dask); every query here releases the GIL and runs in
//! parallel.

use landfall::glam::DVec3;
use landfall::viewshed::ViewshedParams;
use landfall::{Diagonal, Frame, Ray};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;
use std::sync::Arc;

use landfall_io::AnyTerrain;

/// A terrain: a heightfield or a polygon terrain.
#[pyclass(module = "landfall._landfall", frozen, subclass)]
pub struct Terrain {
    inner: Arc<AnyTerrain>,
    /// Where it came from (for `info` and pickling): a file path, if any.
    #[pyo3(get)]
    path: Option<String>,
}

/// A heightfield (a raster's grid of samples, two triangles a cell).
#[pyclass(module = "landfall._landfall", frozen, extends = Terrain)]
pub struct Heightfield {}

fn err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A flat array's slice, or an error naming the argument.
fn slice<'a>(a: &'a PyReadonlyArray1<'_, f64>, name: &str) -> PyResult<&'a [f64]> {
    a.as_slice().map_err(|_| PyValueError::new_err(format!("{name}: expected a contiguous float64 array")))
}

/// Three flat arrays of equal length, or an error naming the one that differs.
fn same_len(parts: &[(&[f64], &str)]) -> PyResult<usize> {
    let n = parts[0].0.len();
    for (p, name) in parts {
        if p.len() != n {
            return Err(PyValueError::new_err(format!("{name}: {} values, expected {n} like {}", p.len(), parts[0].1)));
        }
    }
    Ok(n)
}

fn vec3(flat: &[f64], k: usize) -> DVec3 {
    DVec3::new(flat[3 * k], flat[3 * k + 1], flat[3 * k + 2])
}

/// Two flat arrays returned together (points and normals).
type Pair<'py> = (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>);

fn pyarray<'py>(py: Python<'py>, v: Vec<f64>) -> Bound<'py, PyArray1<f64>> {
    PyArray1::from_vec(py, v)
}

#[pymethods]
impl Terrain {
    /// Topmost surface height at each (x, y); NaN where there is none.
    fn _height<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray1<'py, f64>,
        y: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let (x, y) = (slice(&x, "x")?, slice(&y, "y")?);
        let n = same_len(&[(x, "x"), (y, "y")])?;
        let t = self.inner.clone();
        let out = py.detach(|| {
            let t = t.as_dyn();
            (0..n)
                .into_par_iter()
                .with_min_len(4096)
                .map(|k| t.top_surface(DVec3::new(x[k], y[k], 0.0)).map_or(f64::NAN, |s| s.point.z))
                .collect()
        });
        Ok(pyarray(py, out))
    }

    /// Surface points and normals, flat (n·3 each): the topmost at (x, y), or with z the nearest
    /// at or below (x, y, z) along gravity; NaN rows where there is none.
    #[pyo3(signature = (x, y, z=None))]
    fn _surface<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray1<'py, f64>,
        y: PyReadonlyArray1<'py, f64>,
        z: Option<PyReadonlyArray1<'py, f64>>,
    ) -> PyResult<Pair<'py>> {
        let (x, y) = (slice(&x, "x")?, slice(&y, "y")?);
        let z = z.as_ref().map(|z| slice(z, "z")).transpose()?;
        let mut parts = vec![(x, "x"), (y, "y")];
        parts.extend(z.map(|z| (z, "z")));
        let n = same_len(&parts)?;
        if z.is_none() && !self.inner.as_dyn().frame().is_z_up() {
            return Err(PyValueError::new_err("z: with a gravity other than (0, 0, -1) the points need z"));
        }
        let t = self.inner.clone();
        let (p, nrm) = py.detach(|| {
            let t = t.as_dyn();
            let rows: Vec<[f64; 6]> = (0..n)
                .into_par_iter()
                .with_min_len(4096)
                .map(|k| {
                    let s = match z {
                        Some(z) => t.floor_below(DVec3::new(x[k], y[k], z[k])),
                        None => t.top_surface(DVec3::new(x[k], y[k], 0.0)),
                    };
                    s.map_or([f64::NAN; 6], |s| [s.point.x, s.point.y, s.point.z, s.normal.x, s.normal.y, s.normal.z])
                })
                .collect();
            let p: Vec<f64> = rows.iter().flat_map(|r| r[..3].to_vec()).collect();
            let nrm: Vec<f64> = rows.iter().flat_map(|r| r[3..].to_vec()).collect();
            (p, nrm)
        });
        Ok((pyarray(py, p), pyarray(py, nrm)))
    }

    /// First hits of rays (origins and directions flat n·3, max_t n): (hit as 0/1, t, point n·3,
    /// normal n·3), NaN where missed.
    fn _raycast<'py>(
        &self,
        py: Python<'py>,
        origins: PyReadonlyArray1<'py, f64>,
        dirs: PyReadonlyArray1<'py, f64>,
        max_t: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (o, d, m) = (slice(&origins, "origins")?, slice(&dirs, "dirs")?, slice(&max_t, "max_t")?);
        let n = m.len();
        same_len(&[(o, "origins"), (d, "dirs")])?;
        if o.len() != 3 * n {
            return Err(PyValueError::new_err(format!("max_t: {n} values for {} rays", o.len() / 3)));
        }
        for (k, &mk) in m.iter().enumerate() {
            let ray = Ray::new(vec3(o, k), vec3(d, k));
            if let Err(e) = ray.validate(mk) {
                return Err(PyValueError::new_err(format!("ray {k}: {e}")));
            }
        }
        let t = self.inner.clone();
        let rows: Vec<[f64; 8]> = py.detach(|| {
            let t = t.as_dyn();
            (0..n)
                .into_par_iter()
                .with_min_len(1024)
                .map(|k| match t.raycast(&Ray::new(vec3(o, k), vec3(d, k)), m[k]) {
                    Some(h) => [1.0, h.t, h.point.x, h.point.y, h.point.z, h.normal.x, h.normal.y, h.normal.z],
                    None => [0.0, f64::NAN, f64::NAN, f64::NAN, f64::NAN, f64::NAN, f64::NAN, f64::NAN],
                })
                .collect()
        });
        let out = PyDict::new(py);
        out.set_item("hit", pyarray(py, rows.iter().map(|r| r[0]).collect()))?;
        out.set_item("t", pyarray(py, rows.iter().map(|r| r[1]).collect()))?;
        out.set_item("point", pyarray(py, rows.iter().flat_map(|r| r[2..5].to_vec()).collect()))?;
        out.set_item("normal", pyarray(py, rows.iter().flat_map(|r| r[5..8].to_vec()).collect()))?;
        Ok(out)
    }

    /// Line of sight between point pairs (flat n·3 each): 1.0 where the segment a→b crosses no
    /// terrain strictly between its ends, else 0.0.
    fn _visible<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray1<'py, f64>,
        b: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let (a, b) = (slice(&a, "a")?, slice(&b, "b")?);
        same_len(&[(a, "a"), (b, "b")])?;
        let n = a.len() / 3;
        if let Some(k) = (0..3 * n).find(|&k| !(a[k].is_finite() && b[k].is_finite())) {
            return Err(PyValueError::new_err(format!("point pair {}: not finite", k / 3)));
        }
        let t = self.inner.clone();
        let out = py.detach(|| {
            let t = t.as_dyn();
            (0..n)
                .into_par_iter()
                .with_min_len(1024)
                .map(|k| f64::from(u8::from(line_of_sight(t, vec3(a, k), vec3(b, k)))))
                .collect()
        });
        Ok(pyarray(py, out))
    }

    /// What `landfall info` says, as a dict.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("path", self.path.clone())?;
        let t = self.inner.as_dyn();
        let b = t.bounds();
        d.set_item("bounds", ((b.min.x, b.min.y, b.min.z), (b.max.x, b.max.y, b.max.z)))?;
        let g = t.frame().down();
        d.set_item("gravity", (g.x, g.y, g.z))?;
        match &*self.inner {
            AnyTerrain::Heightfield(hf) => {
                d.set_item("kind", "heightfield")?;
                d.set_item("diagonal", hf.diagonal().name())?;
                d.set_item("nx", hf.nx())?;
                d.set_item("ny", hf.ny())?;
                d.set_item("spacing", (hf.spacing().x, hf.spacing().y))?;
                d.set_item("origin", (hf.origin().x, hf.origin().y))?;
                d.set_item("triangles", hf.triangle_count())?;
                d.set_item("height_range", hf.height_range().map(|(a, b)| (a as f64, b as f64)))?;
                d.set_item("nodata_samples", hf.nodata_count())?;
                d.set_item("masked_cells", hf.masked_cell_count())?;
                d.set_item("memory_bytes", hf.memory_bytes())?;
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

/// Whether the segment a→b crosses no terrain strictly between its ends (a touch at either end,
/// within 10⁻⁹ of the segment's length, does not block).
fn line_of_sight(t: &dyn landfall::Terrain, a: DVec3, b: DVec3) -> bool {
    let d = b - a;
    if d == DVec3::ZERO {
        return true;
    }
    const END: f64 = 1e-9;
    let ray = Ray::new(a, d);
    let mut clear = true;
    // The first crossing past the start.
    let mut from = 0.0;
    while let Some(h) = t.raycast(&Ray::new(ray.at(from), d), 1.0 - from) {
        let tt = from + h.t;
        if tt >= 1.0 - END {
            break;
        }
        if tt > END {
            clear = false;
            break;
        }
        from = tt + END;
    }
    clear
}

#[pymethods]
impl Heightfield {
    /// A heightfield from a 2-D array laid out as a raster (first row north), NaN = hole.
    #[staticmethod]
    #[pyo3(signature = (heights, spacing, origin, diagonal))]
    fn _from_array(
        py: Python<'_>,
        heights: numpy::PyReadonlyArray2<'_, f64>,
        spacing: (f64, f64),
        origin: (f64, f64),
        diagonal: &str,
    ) -> PyResult<Py<Heightfield>> {
        let a = heights.as_array();
        let (ny, nx) = a.dim();
        let diagonal: Diagonal =
            diagonal.parse().map_err(|e: String| PyValueError::new_err(format!("diagonal: {e}")))?;
        for (v, name) in [(spacing.0, "spacing"), (spacing.1, "spacing")] {
            if !(v.is_finite() && v > 0.0) {
                return Err(PyValueError::new_err(format!("{name}: {v} is not a finite spacing > 0")));
            }
        }
        let mut values = Vec::with_capacity(nx * ny);
        for j in 0..ny {
            // Row 0 south: the array's last row.
            for i in 0..nx {
                let v = a[[ny - 1 - j, i]];
                if v.is_infinite() || (v.is_finite() && (v as f32).is_infinite()) {
                    return Err(PyValueError::new_err(format!(
                        "heights: row {}, column {i}: {v} is not a finite height",
                        ny - 1 - j
                    )));
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
            .map_err(|e| PyValueError::new_err(format!("heights: {e}")))?;
        let init = PyClassInitializer::from(Terrain { inner: Arc::new(AnyTerrain::Heightfield(hf)), path: None })
            .add_subclass(Heightfield {});
        Py::new(py, init)
    }

    /// The viewshed from (x, y): flat values in raster order (first row north), u8 as float
    /// (1 visible, 0 hidden, 255 nodata) for mode "visible", else least target heights (NaN
    /// nodata).
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
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let inner = slf.as_super().inner.clone();
        let AnyTerrain::Heightfield(_) = &*inner else { unreachable!("a Heightfield holds a heightfield") };
        if start_angle.is_some() != end_angle.is_some() {
            return Err(PyValueError::new_err("start_angle and end_angle go together"));
        }
        let params = ViewshedParams {
            observer_height,
            target_height,
            max_distance: max_distance.unwrap_or(f64::INFINITY),
            curvature,
            refraction,
            azimuths: start_angle.zip(end_angle),
            pitch: match (low_pitch, high_pitch) {
                (None, None) => None,
                (lo, hi) => Some((lo.unwrap_or(-90.0), hi.unwrap_or(90.0))),
            },
        };
        let mode = mode.to_ascii_lowercase();
        if !matches!(mode.as_str(), "visible" | "ground" | "dem") {
            return Err(PyValueError::new_err(format!("mode: '{mode}' (expected visible, ground or dem)")));
        }
        let values = py.detach(|| -> Result<Vec<f64>, landfall::viewshed::ViewshedError> {
            let AnyTerrain::Heightfield(hf) = &*inner else { unreachable!() };
            let (nx, ny) = (hf.nx(), hf.ny());
            let south_first: Vec<f64> = match mode.as_str() {
                "visible" => hf.viewshed([x, y], &params)?.values.into_iter().map(f64::from).collect(),
                m => {
                    let need = hf.viewshed_heights([x, y], &params)?;
                    need.values
                        .iter()
                        .zip(hf.heights())
                        .map(|(&n, &g)| if m == "dem" { n + g as f64 } else { n })
                        .collect()
                }
            };
            let mut out = Vec::with_capacity(nx * ny);
            for j in (0..ny).rev() {
                out.extend_from_slice(&south_first[j * nx..(j + 1) * nx]);
            }
            Ok(out)
        });
        Ok(pyarray(py, values.map_err(err)?))
    }

    /// The samples as a 2-D array in raster order (first row north), NaN = hole.
    fn _heights<'py>(slf: PyRef<'py, Self>, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
        let inner = slf.as_super().inner.clone();
        let AnyTerrain::Heightfield(hf) = &*inner else { unreachable!() };
        let (nx, ny) = (hf.nx(), hf.ny());
        let rows: Vec<Vec<f64>> = (0..ny).rev().map(|j| (0..nx).map(|i| hf.sample(i, j) as f64).collect()).collect();
        numpy::PyArray2::from_vec2(py, &rows).map_err(err)
    }
}

/// Opens a terrain file with the CLI's options (see `landfall.open`).
#[pyfunction]
#[pyo3(signature = (path, spacing, origin, z_scale, z_offset, diagonal, gravity))]
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
) -> PyResult<Py<PyAny>> {
    let diagonal: Diagonal = diagonal.parse().map_err(|e: String| PyValueError::new_err(format!("diagonal: {e}")))?;
    let frame = match gravity {
        None => None,
        Some((x, y, z)) => {
            Some(Frame::from_gravity(DVec3::new(x, y, z)).map_err(|e| PyValueError::new_err(format!("gravity: {e}")))?)
        }
    };
    let opts = landfall_io::TerrainOptions {
        raster: landfall_io::LoadOptions { spacing, origin, z_scale, z_offset, diagonal, ..Default::default() },
        frame,
        ..Default::default()
    };
    let opened = py.detach(|| landfall_io::open_terrain(&path, &opts)).map_err(err)?;
    let t = Terrain { inner: Arc::new(opened.terrain), path: Some(path.display().to_string()) };
    let is_hf = matches!(&*t.inner, AnyTerrain::Heightfield(_));
    if is_hf {
        Ok(Py::new(py, PyClassInitializer::from(t).add_subclass(Heightfield {}))?.into_any())
    } else {
        Ok(Py::new(py, t)?.into_any())
    }
}

/// The native module.
#[pymodule]
fn _landfall(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Terrain>()?;
    m.add_class::<Heightfield>()?;
    m.add_function(wrap_pyfunction!(_open, m)?)?;
    Ok(())
}
