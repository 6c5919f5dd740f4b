//! NumPy `.npy` arrays and `.npz` archives.

use crate::input::{open_regular, Limits};
use crate::raster::{to_height_row, GeoKeys, GeoRef, Nodata, Raster};
use crate::IoError;
use std::io::{Read, Write};
use std::path::Path;

/// A parsed `.npy` array: shape and values as f64 (row-major, C order).
struct Array {
    shape: Vec<usize>,
    values: Vec<f64>,
}

/// What a `.npy` header says: element type, order, shape, and where the data starts.
struct NpyHeader {
    big: bool,
    kind: String,
    size: usize,
    fortran: bool,
    shape: Vec<usize>,
    data_start: usize,
}

impl NpyHeader {
    /// Number of elements (the shape's product, checked).
    fn count(&self) -> Option<usize> {
        self.shape.iter().try_fold(1usize, |a, &b| a.checked_mul(b))
    }
}

/// Bytes enough for any `.npy` header a reader accepts (magic, version, length, 64 KiB of text).
const MAX_HEADER_BYTES: usize = 12 + (1 << 16);

/// Parses the header at the start of `bytes`; `name` is what errors call the array.
fn parse_header(path: &Path, name: &str, bytes: &[u8]) -> Result<NpyHeader, IoError> {
    let fld = |f: &str, m: String| IoError::field(path, format!("{name}{f}").trim_start(), m);
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(fld("", "not a .npy array (bad magic)".into()));
    }
    let (hlen, hstart) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12),
        v => return Err(fld("", format!("unsupported .npy version {v}"))),
    };
    if hlen > MAX_HEADER_BYTES - 12 {
        return Err(fld("", format!("header of {hlen} bytes is longer than 64 KiB")));
    }
    let header = bytes
        .get(hstart..hstart + hlen)
        .ok_or_else(|| fld("", "truncated header".into()))
        .and_then(|h| std::str::from_utf8(h).map_err(|_| fld(" header", "not text".into())))?;
    if !header.is_ascii() {
        return Err(fld(" header", "holds non-ASCII characters".into()));
    }
    // ASCII from here on: every byte offset below is a character boundary.
    let value_of = |key: &str| -> Result<&str, IoError> {
        let quoted = format!("'{key}'");
        let k = header.find(&quoted).ok_or_else(|| fld(&format!(" header '{key}'"), "missing".into()))?;
        // NumPy would take the last of two; a file that says it twice is refused, not guessed.
        if header[k + quoted.len()..].contains(&quoted) {
            return Err(fld(&format!(" header '{key}'"), "given twice".into()));
        }
        let rest = &header[k + key.len() + 2..];
        let colon = rest.find(':').ok_or_else(|| fld(&format!(" header '{key}'"), "malformed".into()))?;
        Ok(rest[colon + 1..].trim_start())
    };
    let descr_txt = value_of("descr")?;
    let descr = descr_txt.get(1..).and_then(|d| d.split(['\'', '"']).next()).unwrap_or("");
    let fortran = value_of("fortran_order")?.starts_with("True");
    let shape_txt = value_of("shape")?;
    let inner = shape_txt
        .strip_prefix('(')
        .and_then(|t| t.find(')').map(|close| &t[..close]))
        .ok_or_else(|| fld(" header 'shape'", "malformed (expected a tuple such as (rows, columns))".into()))?;
    let shape: Vec<usize> = inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| fld(" header 'shape'", format!("'{}' is not a size", crate::quote(s)))))
        .collect::<Result<_, _>>()?;
    let (endian, kind) = descr.split_at(descr.len().min(1));
    let big = match endian {
        "<" | "|" | "=" => false,
        ">" => true,
        _ => return Err(fld(" header 'descr'", format!("unsupported dtype '{}'", crate::quote(descr)))),
    };
    let size = match kind {
        "f4" | "i4" | "u4" => 4,
        "f8" => 8,
        "i2" | "u2" => 2,
        "i1" | "u1" | "b1" => 1,
        _ => {
            return Err(fld(
                " header 'descr'",
                format!(
                    "unsupported dtype '{}' (expected f4, f8, i2, u2, i4, u4, i1, u1, b1 (booleans as 0 and 1))",
                    crate::quote(descr)
                ),
            ))
        }
    };
    Ok(NpyHeader { big, kind: kind.to_string(), size, fortran, shape, data_start: hstart + hlen })
}

/// Parses one `.npy` byte stream; `name` is what errors call it (file, or file + member).
fn parse(path: &Path, name: &str, bytes: &[u8], limits: &Limits) -> Result<Array, IoError> {
    let fld = |f: &str, m: String| IoError::field(path, format!("{name}{f}").trim_start(), m);
    let h = parse_header(path, name, bytes)?;
    check_shape(path, name, &h, limits)?;
    let NpyHeader { big, ref kind, size, fortran, ref shape, data_start } = h;
    let count = h.count().ok_or_else(|| fld(" header 'shape'", "too large".into()))?;
    let data = &bytes[data_start..];
    let need = count.checked_mul(size).ok_or_else(|| fld(" header 'shape'", "too large".into()))?;
    if data.len() < need {
        return Err(fld("", format!("truncated: {} data bytes, shape {:?} needs {need}", data.len(), shape)));
    }
    let mut values: Vec<f64> = data[..need]
        .chunks_exact(size)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..size].copy_from_slice(c);
            if big {
                b[..size].reverse();
            }
            match kind.as_str() {
                "f4" => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
                "f8" => f64::from_le_bytes(b),
                "i4" => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
                "u4" => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
                "i2" => i16::from_le_bytes([b[0], b[1]]) as f64,
                "u2" => u16::from_le_bytes([b[0], b[1]]) as f64,
                "i1" => b[0] as i8 as f64,
                _ => b[0] as f64,
            }
        })
        .collect();
    if fortran && shape.len() == 2 {
        let (r, c) = (shape[0], shape[1]);
        let mut t = vec![0.0; values.len()];
        for i in 0..r {
            for j in 0..c {
                t[i * c + j] = values[j * r + i];
            }
        }
        values = t;
    }
    Ok(Array { shape: h.shape, values })
}

fn to_raster(path: &Path, name: &str, a: Array) -> Result<Raster, IoError> {
    if a.shape.len() != 2 {
        return Err(IoError::field(
            path,
            format!("{name} header 'shape'"),
            format!("expected a 2-D array, got shape {:?}", a.shape),
        ));
    }
    let (ny, nx) = (a.shape[0], a.shape[1]);
    let mut values = landfall::support::sample_buffer(a.values.len());
    to_height_row(path, &a.values, &mut values, &Nodata::new(None), |k| {
        format!("{name} element [{}, {}]", k / nx, k % nx)
    })?;
    Ok(Raster { nx, ny, values, georef: None, notes: vec![], geokeys: None })
}

/// Checks an array's element count against the sample limit before its data is read.
fn check_shape(path: &Path, name: &str, h: &NpyHeader, limits: &Limits) -> Result<(), IoError> {
    let field = format!("{name} header 'shape'");
    match h.shape.as_slice() {
        [] => Ok(()),
        [n] => limits.check_samples(path, &field, *n as u64, 1),
        [r, rest @ ..] => {
            let c = rest.iter().try_fold(1u64, |a, &b| a.checked_mul(b as u64)).unwrap_or(u64::MAX);
            limits.check_samples(path, &field, c, *r as u64)
        }
    }
}

/// Reads one array from `input`: its header first (at most 64 KiB), whose shape is checked against
/// the sample limit, then exactly the data bytes that shape needs; `len` is what the input holds at
/// most (its file or member length). Returns the parsed array and its element count.
fn read_array(path: &Path, name: &str, input: impl Read, len: u64, limits: &Limits) -> Result<Array, IoError> {
    let mut input = input.take(len);
    let mut bytes = Vec::new();
    let err = |e: std::io::Error| IoError::field(path, name.trim_end(), format!("cannot read: {e}"));
    (&mut input).take(MAX_HEADER_BYTES as u64).read_to_end(&mut bytes).map_err(err)?;
    let h = parse_header(path, name, &bytes)?;
    check_shape(path, name, &h, limits)?;
    let need = h.count().and_then(|c| c.checked_mul(h.size)).unwrap_or(usize::MAX);
    let total = h.data_start.saturating_add(need);
    if total as u64 > len {
        let have = (len as usize).saturating_sub(h.data_start);
        let msg = format!("truncated: {have} data bytes, shape {:?} needs {need}", h.shape);
        return Err(IoError::field(path, name.trim_end(), msg));
    }
    // Room for what is certainly there only: an archive member's length is what it declares, so
    // beyond 64 MiB the buffer grows as the bytes actually arrive.
    bytes.reserve_exact(total.saturating_sub(bytes.len()).min(64 << 20));
    input.take(total.saturating_sub(bytes.len()) as u64).read_to_end(&mut bytes).map_err(err)?;
    parse(path, name, &bytes, limits)
}

/// Reads a 2-D `.npy` array; the first row is north.
pub(crate) fn read_npy(path: &Path, limits: &Limits) -> Result<Raster, IoError> {
    let (file, len) = open_regular(path)?;
    let mut r = to_raster(path, "", read_array(path, "", file, len, limits)?)?;
    r.flip_rows();
    Ok(r)
}

/// Names tried, in order, for the height array and the coordinate arrays of an `.npz`.
const HEIGHT_NAMES: [&str; 8] = ["topo", "elevation", "height", "heights", "z", "dem", "data", "arr_0"];
const Y_NAMES: [&str; 4] = ["latitude", "lat", "y", "northing"];
const X_NAMES: [&str; 4] = ["longitude", "lon", "x", "easting"];

/// Reads an `.npz`: the height array (by name, or the only 2-D array) and, when present, 1-D
/// coordinate arrays matching its shape. Those give the origin, the mean spacing and the row order
/// (an ascending y array means row 0 is already south). Without them the first row is north.
pub(crate) fn read_npz(path: &Path, limits: &Limits) -> Result<Raster, IoError> {
    let (file, _) = open_regular(path)?;
    let mut zip = zip::ZipArchive::new(file)
        .map_err(|e| IoError::format(path, format!("not a valid .npz (zip) archive: {e}")))?;
    let mut arrays = Vec::new();
    let mut samples = 0u64;
    for k in 0..zip.len() {
        let mut f = zip.by_index(k).map_err(|e| IoError::format(path, format!("member {k}: {e}")))?;
        let name = f.name().trim_end_matches(".npy").to_string();
        // Read header first: a small archive can hold a member that decompresses to gigabytes,
        // whatever size it declares, so nothing past its header is read before the shape is checked.
        let len = f.size();
        let a = read_array(path, &format!("array '{name}'"), &mut f, len, limits)?;
        // The members together, too: many arrays each within the limit are not.
        samples = samples.saturating_add(a.values.len() as u64);
        if samples > limits.max_samples.saturating_mul(2) {
            let msg =
                format!("the arrays hold more than twice the limit of {} samples (--max-samples)", limits.max_samples);
            return Err(IoError::format(path, msg));
        }
        arrays.push((name, a));
    }
    let pick = |names: &[&str], dims: usize| -> Option<usize> {
        names.iter().find_map(|n| arrays.iter().position(|(m, a)| m.eq_ignore_ascii_case(n) && a.shape.len() == dims))
    };
    let hk = pick(&HEIGHT_NAMES, 2)
        .or_else(|| {
            let two: Vec<usize> = (0..arrays.len()).filter(|&k| arrays[k].1.shape.len() == 2).collect();
            (two.len() == 1).then(|| two[0])
        })
        .ok_or_else(|| {
            IoError::format(path, "no 2-D height array found (named topo, elevation, z, …, or the only 2-D array)")
        })?;
    let (ny, nx) = (arrays[hk].1.shape[0], arrays[hk].1.shape[1]);
    let mut notes = Vec::new();
    // Coordinate arrays by name: 1-D of the heights' length on their axis, or an error naming them.
    let mut coords = |names: &[&str], len: usize, axis: &str| -> Result<Option<usize>, IoError> {
        let Some(k) =
            arrays.iter().position(|(m, a)| a.shape.len() != 2 && names.iter().any(|n| m.eq_ignore_ascii_case(n)))
        else {
            if let Some((m, _)) = arrays
                .iter()
                .enumerate()
                .find(|&(k, (m, _))| k != hk && names.iter().any(|n| m.eq_ignore_ascii_case(n)))
                .map(|(_, a)| a)
            {
                notes.push(format!(
                    "array '{m}' is 2-D (a curvilinear grid's coordinates): not read; the raster is placed by \
                     --origin/--spacing"
                ));
            }
            return Ok(None);
        };
        let (m, a) = &arrays[k];
        if a.shape.len() != 1 || a.shape[0] != len {
            return Err(IoError::field(
                path,
                format!("array '{m}'"),
                format!("shape {:?}: the {axis} coordinates of a {ny} × {nx} height array hold {len} values", a.shape),
            ));
        }
        Ok(Some(k))
    };
    let ys = coords(&Y_NAMES, ny, "y (row)")?;
    let xs = coords(&X_NAMES, nx, "x (column)")?;
    // One axis' coordinates alone would leave the raster placed at 0, 0 by 1 without a word.
    if let (Some(k), None, names) | (None, Some(k), names) = (xs, ys, if xs.is_some() { &Y_NAMES } else { &X_NAMES }) {
        return Err(IoError::field(
            path,
            format!("array '{}'", arrays[k].0),
            format!("coordinates of one axis alone: name the other's array one of {}", names.join(", ")),
        ));
    }
    let mut georef = None;
    let mut geokeys = None;
    let mut ascending = false;
    if let (Some(yk), Some(xk)) = (ys, xs) {
        let (y, x) = (&arrays[yk].1.values, &arrays[xk].1.values);
        let spacing = |v: &[f64], name: &str, notes: &mut Vec<String>| -> Result<f64, IoError> {
            let n = v.len();
            let d = (v[n - 1] - v[0]) / (n - 1).max(1) as f64;
            if !(d.is_finite() && d != 0.0) {
                return Err(IoError::field(
                    path,
                    format!("array '{name}'"),
                    "coordinates must be finite and change along the axis",
                ));
            }
            if v.windows(2).any(|w| ((w[1] - w[0]) * d.signum()).partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater))
            {
                return Err(IoError::field(
                    path,
                    format!("array '{name}'"),
                    "coordinates must increase or decrease steadily along the axis",
                ));
            }
            let worst = v.windows(2).map(|w| ((w[1] - w[0]) - d).abs()).fold(0.0, f64::max);
            // Coordinates stored as f32 (often) round by a few units in their last place.
            let rounding = 8.0 * f32::EPSILON as f64 * v.iter().fold(0.0f64, |m, c| m.max(c.abs()));
            if worst > 0.05 * d.abs() + rounding {
                return Err(IoError::field(
                    path,
                    format!("array '{name}'"),
                    format!(
                        "not evenly spaced: steps differ from the mean {:.6} by up to {:.1}% (a raster is a regular \
                         grid; resample it first, e.g. xarray's interp or gdalwarp)",
                        d.abs(),
                        100.0 * worst / d.abs()
                    ),
                ));
            }
            if worst > 1e-3 * d.abs() + rounding {
                notes.push(format!(
                    "'{name}' is not evenly spaced (steps differ from the mean {:.6} by up to {:.2}%); the mean is used",
                    d.abs(),
                    100.0 * worst / d.abs()
                ));
            }
            Ok(d)
        };
        let (yn, xn) = (arrays[yk].0.clone(), arrays[xk].0.clone());
        let dy = spacing(y, &yn, &mut notes)?;
        let dx = spacing(x, &xn, &mut notes)?;
        if dx < 0.0 {
            return Err(IoError::field(path, format!("array '{xn}'"), "x coordinates must increase"));
        }
        ascending = dy > 0.0;
        let south = if ascending { y[0] } else { y[ny - 1] };
        georef = Some(GeoRef { origin: (x[0], south), spacing: (dx, dy.abs()) });
        notes.push(format!("georeferenced by arrays '{xn}' (x) and '{yn}' (y)"));
        // Arrays named for longitude and latitude, within their ranges: degrees on WGS 84.
        let named = |n: &str, names: &[&str]| names.iter().any(|m| n.eq_ignore_ascii_case(m));
        let within = |v: &[f64], lim: f64| v.iter().all(|c| c.abs() <= lim);
        if named(&xn, &["longitude", "lon"]) && named(&yn, &["latitude", "lat"]) {
            if !(within(y, 90.0) && within(x, 540.0)) {
                return Err(IoError::field(
                    path,
                    format!("arrays '{xn}', '{yn}'"),
                    "longitude beyond ±540° or latitude beyond ±90°: not degrees (name projected coordinates x, y)",
                ));
            }
            geokeys = Some(GeoKeys::wgs84());
        }
    }
    let (name, a) = arrays.swap_remove(hk);
    let mut r = to_raster(path, &format!("array '{name}' "), a)?;
    if !ascending {
        r.flip_rows();
    }
    r.georef = georef;
    r.notes = notes;
    r.geokeys = geokeys;
    Ok(r)
}

/// Writes the magic, version 1.0 and header of a C-order 2-D `.npy` of `rows` × `cols` values of
/// numpy type `descr` (the header padded with spaces to a multiple of 64 bytes, ended by a newline).
fn write_header(w: &mut impl Write, descr: &str, rows: usize, cols: usize) -> std::io::Result<()> {
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({rows}, {cols}), }}");
    let unpadded = 10 + dict.len() + 1;
    let header = format!("{dict}{}\n", " ".repeat(unpadded.next_multiple_of(64) - unpadded));
    w.write_all(b"\x93NUMPY\x01\x00")?;
    w.write_all(&(header.len() as u16).to_le_bytes())?;
    w.write_all(header.as_bytes())
}

/// Writes a 2-D little-endian f32 `.npy` with the north row first (`values` row 0 south).
pub fn write_npy(path: &Path, nx: usize, ny: usize, values: &[f32]) -> Result<(), IoError> {
    let err = |e| IoError::os(path, e);
    let mut w = std::io::BufWriter::new(crate::OutputFile::create(path)?);
    write_header(&mut w, "<f4", ny, nx).map_err(err)?;
    for j in (0..ny).rev() {
        for v in &values[j * nx..(j + 1) * nx] {
            w.write_all(&v.to_le_bytes()).map_err(err)?;
        }
    }
    w.into_inner().map_err(|e| IoError::os(path, e.into_error()))?.commit()
}

/// A value type that [`write_npy_matrix`] writes: `f32`, `f64` or `u32`, little-endian.
pub trait NpyElement: Copy {
    /// Its numpy type string (`<f4`, `<f8`, `<u4`).
    const DESCR: &'static str;
    /// Writes its little-endian bytes.
    fn write_le(self, w: &mut impl Write) -> std::io::Result<()>;
}

macro_rules! npy_element {
    ($t:ty, $descr:literal) => {
        impl NpyElement for $t {
            const DESCR: &'static str = $descr;
            fn write_le(self, w: &mut impl Write) -> std::io::Result<()> {
                w.write_all(&self.to_le_bytes())
            }
        }
    };
}
npy_element!(f32, "<f4");
npy_element!(f64, "<f8");
npy_element!(u32, "<u4");

/// Writes `values` as a 2-D `.npy` of `rows` × `cols`, row after row as given (C order; no
/// north-first flip, unlike [`write_npy`]): a table for other tools, such as NumPy. An error names
/// the file when `values` does not hold `rows · cols` values.
pub fn write_npy_matrix<T: NpyElement>(path: &Path, rows: usize, cols: usize, values: &[T]) -> Result<(), IoError> {
    if rows.checked_mul(cols) != Some(values.len()) {
        let msg = format!("{} values do not fill {rows} × {cols}", values.len());
        return Err(IoError::field(path, "shape", msg));
    }
    let err = |e| IoError::os(path, e);
    let mut w = std::io::BufWriter::new(crate::OutputFile::create(path)?);
    write_header(&mut w, T::DESCR, rows, cols).map_err(err)?;
    for &v in values {
        v.write_le(&mut w).map_err(err)?;
    }
    w.into_inner().map_err(|e| IoError::os(path, e.into_error()))?.commit()
}
