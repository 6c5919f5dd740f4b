//! Arguments in, results out: flat float64 arrays checked and named, rows of results turned into
//! the dict of arrays the Python layer reshapes.

use landfall::glam::DVec3;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A `ValueError` with `e`'s message.
pub fn err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A flat array's slice, or an error naming the argument.
pub fn slice<'a>(a: &'a PyReadonlyArray1<'_, f64>, name: &str) -> PyResult<&'a [f64]> {
    a.as_slice().map_err(|_| PyValueError::new_err(format!("{name}: expected a contiguous float64 array")))
}

/// Flat arrays of equal length, or an error naming the one that differs.
pub fn same_len(parts: &[(&[f64], &str)]) -> PyResult<usize> {
    let n = parts[0].0.len();
    for (p, name) in parts {
        if p.len() != n {
            return Err(PyValueError::new_err(format!("{name}: {} values, expected {n} like {}", p.len(), parts[0].1)));
        }
    }
    Ok(n)
}

/// Flat n·3 arrays of equal length: n, or an error naming the argument.
pub fn same_points(parts: &[(&[f64], &str)]) -> PyResult<usize> {
    same_len(parts)?;
    Ok(parts[0].0.len() / 3)
}

/// One value of `values` (argument `name`) for each of `n` items (`what`), or an error saying so.
pub fn one_each(values: &[f64], n: usize, name: &str, what: &str) -> PyResult<()> {
    if values.len() == n {
        Ok(())
    } else {
        Err(PyValueError::new_err(format!("{name}: {} values for {n} {what}", values.len())))
    }
}

/// A batch of rays as given: origins and directions flat n·3, `max_t` n.
pub struct Rays<'a> {
    pub o: &'a [f64],
    pub d: &'a [f64],
    pub m: &'a [f64],
    pub n: usize,
}

/// The rays, each checked, or an error naming the argument or the ray.
pub fn rays<'a>(
    origins: &'a PyReadonlyArray1<'_, f64>,
    dirs: &'a PyReadonlyArray1<'_, f64>,
    max_t: &'a PyReadonlyArray1<'_, f64>,
) -> PyResult<Rays<'a>> {
    let (o, d, m) = (slice(origins, "origins")?, slice(dirs, "dirs")?, slice(max_t, "max_t")?);
    let n = same_points(&[(o, "origins"), (d, "dirs")])?;
    one_each(m, n, "max_t", "rays")?;
    for (k, &mk) in m.iter().enumerate() {
        landfall::Ray::new(vec3(o, k), vec3(d, k)).validate(mk).map_err(|e| err(format!("ray {k}: {e}")))?;
    }
    Ok(Rays { o, d, m, n })
}

/// The columns of a batch of ray hits (`queries::raycast`'s rows) as the dict the Python layer
/// reads.
pub fn hits<'py>(py: Python<'py>, rows: &[[f64; 8]]) -> PyResult<Bound<'py, PyDict>> {
    columns(py, rows, &[("hit", 1), ("t", 1), ("point", 3), ("normal", 3)])
}

/// The k-th point of a flat n·3 array.
pub fn vec3(flat: &[f64], k: usize) -> DVec3 {
    DVec3::new(flat[3 * k], flat[3 * k + 1], flat[3 * k + 2])
}

/// The first point of a flat array whose fields are not all finite, named `what` in the error.
pub fn all_finite(flat: &[f64], width: usize, what: &str) -> PyResult<()> {
    match flat.iter().position(|v| !v.is_finite()) {
        Some(k) => Err(PyValueError::new_err(format!("{what} {}: not finite", k / width))),
        None => Ok(()),
    }
}

/// Every coordinate within ±1e150 (landfall's coordinate range: from farther a line's answer keeps
/// none of the terrain's digits), else `ValueError` naming the row.
pub fn in_range(flat: &[f64], width: usize, what: &str) -> PyResult<()> {
    match flat.iter().position(|v| v.abs() > landfall::PolygonTerrain::MAX_COORDINATE) {
        Some(k) => Err(PyValueError::new_err(format!(
            "{what} {}: a coordinate beyond ±1e150 (landfall's coordinate range)",
            k / width
        ))),
        None => Ok(()),
    }
}

/// An empty vector with room for `n` items, or `MemoryError` (never an abort).
pub fn fallible<T>(n: usize) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        pyo3::exceptions::PyMemoryError::new_err(format!(
            "cannot allocate the answers: {n} items of {} bytes",
            std::mem::size_of::<T>()
        ))
    })?;
    Ok(v)
}

/// A numpy array owning `v`.
pub fn pyarray<'py>(py: Python<'py>, v: Vec<f64>) -> Bound<'py, PyArray1<f64>> {
    PyArray1::from_vec(py, v)
}

/// The columns of `rows` as a dict of flat arrays: `fields` names each run of columns, in order
/// (a field of width 3 gives n·3 values, row by row).
pub fn columns<'py, const K: usize>(
    py: Python<'py>,
    rows: &[[f64; K]],
    fields: &[(&str, usize)],
) -> PyResult<Bound<'py, PyDict>> {
    debug_assert_eq!(fields.iter().map(|f| f.1).sum::<usize>(), K);
    let out = PyDict::new(py);
    let mut at = 0;
    for &(name, width) in fields {
        let mut v = fallible(rows.len() * width)?;
        v.extend(rows.iter().flat_map(|r| r[at..at + width].iter().copied()));
        out.set_item(name, pyarray(py, v))?;
        at += width;
    }
    Ok(out)
}

/// 1.0 or 0.0.
pub fn flag(b: bool) -> f64 {
    f64::from(u8::from(b))
}
