//! CSV batches of queries: points (`x,y` or `x,y,z`), rays (`ox,oy,oz,dx,dy,dz[,max_t]`),
//! spheres (`id,x,y,z,radius`), balls on a line (`x,v,r,m`) and observers (`x,y[,h]`), read in
//! chunks so that memory stays bounded whatever the file size, every bad row an error that names
//! the file, the line (the header is line 1) and the field.
//!
//! Columns are found by name in any order (case-insensitive; a name twice is an error); other
//! columns are ignored. A row with more fields than the header is an error (a field meant for a
//! column the header lacks, such as a ray's `max_t`, must not be dropped silently). Every field must be a finite number; a ray's direction must not be zero
//! and its `max_t` (optional, empty = unbounded) not negative.

use crate::{quote, IoError};
use glam::DVec3;
use landfall::Ray;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// What a batch holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Batch {
    /// Points: columns `x,y`, optionally `z`.
    Points,
    /// Rays: columns `ox,oy,oz,dx,dy,dz`, optionally `max_t`.
    Rays,
    /// Spheres: columns `id,x,y,z,radius` (an integer id, a radius ≥ 0).
    Spheres,
    /// Balls on a line: columns `x,v,r,m` (centre, velocity, radius ≥ 0, mass > 0).
    LineBalls,
    /// Viewshed observers: columns `x,y`, optionally `h` (the eye's height above the ground, ≥ 0).
    Observers,
}

/// One row of a batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Query {
    /// A point; `z` is 0 when the batch has no `z` column.
    Point(DVec3),
    /// A ray and its `max_t` (infinite when absent or empty).
    Ray(Ray, f64),
    /// A sphere with its id.
    Sphere {
        /// The id as written: any integer that fits in 128 bits (every i64 and every u64).
        id: i128,
        /// Centre.
        center: DVec3,
        /// Radius (≥ 0).
        radius: f64,
    },
    /// A viewshed observer.
    Observer {
        /// World x.
        x: f64,
        /// World y.
        y: f64,
        /// Eye height above the ground, when the batch has an `h` column.
        h: Option<f64>,
    },
    /// A ball on a line.
    LineBall {
        /// Centre.
        x: f64,
        /// Velocity.
        v: f64,
        /// Radius (≥ 0).
        r: f64,
        /// Mass (> 0).
        m: f64,
    },
}

/// A reader that notes where its newlines are, so a record's byte offset maps to its true line
/// number (the csv crate does not count blank lines).
struct LineIndex<R> {
    inner: R,
    offset: u64,
    newlines: Rc<RefCell<VecDeque<u64>>>,
    /// Offset of the last newline seen (or the start).
    line_start: u64,
}

/// Longest line a batch may hold: a row of numbers is far shorter, and the csv reader buffers a
/// whole record, so a stream without newlines (`/dev/zero`, a binary file) must stop here.
pub const MAX_LINE_BYTES: u64 = 1 << 20;

impl<R: Read> Read for LineIndex<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut nl = self.newlines.borrow_mut();
        for (k, _) in buf[..n].iter().enumerate().filter(|(_, &b)| b == b'\n') {
            nl.push_back(self.offset + k as u64);
            self.line_start = self.offset + k as u64;
        }
        self.offset += n as u64;
        if self.offset - self.line_start > MAX_LINE_BYTES {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("a line longer than {MAX_LINE_BYTES} bytes (not a CSV batch?)"),
            ));
        }
        Ok(n)
    }
}

/// Reads a CSV batch in chunks.
///
/// ```
/// use landfall_io::{Batch, BatchReader, Query};
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("p.csv");
/// std::fs::write(&path, "x,y\n1,2\n3,4\n").unwrap();
/// let mut r = BatchReader::open(&path, Batch::Points).unwrap();
/// let mut rows = Vec::new();
/// assert_eq!(r.next_chunk(&mut rows, 1000).unwrap(), 2);
/// assert_eq!(rows[1], Query::Point(landfall::glam::DVec3::new(3.0, 4.0, 0.0)));
/// assert_eq!(r.next_chunk(&mut rows, 1000).unwrap(), 0); // the end
/// ```
pub struct BatchReader {
    path: PathBuf,
    rdr: csv::Reader<LineIndex<BufReader<Box<dyn Read + Send>>>>,
    newlines: Rc<RefCell<VecDeque<u64>>>,
    passed: u64,
    rec: csv::StringRecord,
    kind: Batch,
    /// Fields in the header: no row may have more.
    columns: usize,
    /// Column of each required field, then of the optional one.
    cols: Vec<usize>,
    optional: Option<usize>,
    len: u64,
    /// The file line of each row of the last chunk.
    lines: Vec<u64>,
}

const POINT_COLUMNS: [&str; 2] = ["x", "y"];
const RAY_COLUMNS: [&str; 6] = ["ox", "oy", "oz", "dx", "dy", "dz"];
const SPHERE_COLUMNS: [&str; 5] = ["id", "x", "y", "z", "radius"];
const LINE_BALL_COLUMNS: [&str; 4] = ["x", "v", "r", "m"];

impl BatchReader {
    /// Opens `path` and reads its header. The file may be a pipe (it is read once, in order); `-`
    /// is standard input.
    pub fn open(path: &Path, kind: Batch) -> Result<Self, IoError> {
        if path.as_os_str() == "-" {
            return Self::from_reader(path, Box::new(std::io::stdin()), 0, kind);
        }
        let file = std::fs::File::open(path).map_err(|e| IoError::os(path, e))?;
        let meta = file.metadata().map_err(|e| IoError::os(path, e))?;
        if meta.is_dir() {
            return Err(IoError::format(path, "is a directory, not a CSV file"));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            let t = meta.file_type();
            if t.is_char_device() || t.is_block_device() || t.is_socket() {
                return Err(IoError::format(path, "is a device or a socket; a CSV batch is a regular file or a pipe"));
            }
        }
        let len = if meta.is_file() { meta.len() } else { 0 };
        Self::from_reader(path, Box::new(file), len, kind)
    }

    fn from_reader(path: &Path, input: Box<dyn Read + Send>, len: u64, kind: Batch) -> Result<Self, IoError> {
        let newlines = Rc::new(RefCell::new(VecDeque::new()));
        let counted = LineIndex { inner: BufReader::new(input), offset: 0, newlines: newlines.clone(), line_start: 0 };
        let mut rdr = csv::ReaderBuilder::new().flexible(true).trim(csv::Trim::All).from_reader(counted);
        let header = rdr
            .headers()
            .map_err(|e| IoError::line(path, 1, format!("cannot read the header: {}", csv_error(&e))))?
            .clone();
        let (required, optional): (&[&str], &str) = match kind {
            Batch::Points => (&POINT_COLUMNS, "z"),
            Batch::Rays => (&RAY_COLUMNS, "max_t"),
            Batch::Spheres => (&SPHERE_COLUMNS, ""),
            Batch::LineBalls => (&LINE_BALL_COLUMNS, ""),
            Batch::Observers => (&POINT_COLUMNS, "h"),
        };
        let (cols, optional) =
            find_columns(&header, required, optional).map_err(|m| IoError::line(path, 1, format!("header: {m}")))?;
        if kind == Batch::Observers && optional.is_none() {
            // `x,y,z` is a common export; its z is not the eye's height above the ground.
            if let Some(z) = header.iter().find(|h| h.eq_ignore_ascii_case("z")) {
                return Err(IoError::line(
                    path,
                    1,
                    format!(
                        "header: column '{}': an observer's eye height above the ground is column h (x,y,h); \
                         rename it h if that is what it holds, or drop it for --observer-height",
                        quote(z)
                    ),
                ));
            }
        }
        Ok(Self {
            path: path.to_owned(),
            rdr,
            newlines,
            passed: 0,
            rec: csv::StringRecord::new(),
            kind,
            columns: header.len(),
            cols,
            optional,
            len,
            lines: Vec::new(),
        })
    }

    /// Whether the points have a `z` column (rays: whether they have `max_t`).
    pub fn has_optional_column(&self) -> bool {
        self.optional.is_some()
    }

    /// The file's length in bytes (0 for a pipe), for progress.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file is empty as far as its length says (a pipe always says so).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The file line (1-based, the header being line 1) of each row of the last chunk.
    pub fn lines(&self) -> &[u64] {
        &self.lines
    }

    /// Bytes read so far.
    pub fn position(&self) -> u64 {
        self.rdr.position().byte()
    }

    /// Appends up to `max` rows to `out` (cleared first); returns how many, 0 at the end.
    pub fn next_chunk(&mut self, out: &mut Vec<Query>, max: usize) -> Result<usize, IoError> {
        out.clear();
        self.lines.clear();
        while out.len() < max {
            let more = self
                .rdr
                .read_record(&mut self.rec)
                .map_err(|e| IoError::format(&self.path, format!("malformed CSV: {}", csv_error(&e))))?;
            if !more {
                break;
            }
            // The reader now stands just past this record's line ending: its line is the one
            // holding the byte before that.
            let line = self.line_at(self.rdr.position().byte().saturating_sub(1));
            if self.rec.len() > self.columns {
                let msg = format!(
                    "{} fields, but the header names {} columns (a field without a column would be ignored)",
                    self.rec.len(),
                    self.columns
                );
                return Err(IoError::line(&self.path, line as usize, msg));
            }
            let q = self.parse().map_err(|m| IoError::line(&self.path, line as usize, m))?;
            out.push(q);
            self.lines.push(line);
        }
        Ok(out.len())
    }

    /// 1-based line of the byte at `byte`.
    fn line_at(&mut self, byte: u64) -> u64 {
        let mut nl = self.newlines.borrow_mut();
        while nl.front().is_some_and(|&o| o < byte) {
            nl.pop_front();
            self.passed += 1;
        }
        self.passed + 1
    }

    fn parse(&self) -> Result<Query, String> {
        let r = &self.rec;
        match self.kind {
            Batch::Points => {
                let z = self.optional.map(|c| field(r, c, "z")).transpose()?;
                Ok(Query::Point(DVec3::new(
                    field(r, self.cols[0], "x")?,
                    field(r, self.cols[1], "y")?,
                    z.unwrap_or(0.0),
                )))
            }
            Batch::Rays => {
                let mut v = [0.0; 6];
                for k in 0..6 {
                    v[k] = field(r, self.cols[k], RAY_COLUMNS[k])?;
                }
                let ray = Ray::new(DVec3::new(v[0], v[1], v[2]), DVec3::new(v[3], v[4], v[5]));
                if ray.dir == DVec3::ZERO {
                    return Err("fields 'dx','dy','dz': the direction is zero".into());
                }
                let max_t = match self.optional.map(|c| (c, r.get(c))) {
                    Some((_, None)) => return Err("field 'max_t': missing (leave it empty for no limit)".into()),
                    Some((c, Some(t))) if !t.is_empty() => {
                        let m = field(r, c, "max_t")?;
                        if m < 0.0 {
                            return Err(format!("field 'max_t': {m} is negative"));
                        }
                        m
                    }
                    _ => f64::INFINITY,
                };
                if let Err(landfall::RayError::OriginOutOfRange) = ray.validate(max_t) {
                    return Err(format!("fields 'ox','oy','oz': {}", landfall::RayError::OriginOutOfRange));
                }
                Ok(Query::Ray(ray, max_t))
            }
            Batch::Spheres => {
                let text = r.get(self.cols[0]).unwrap_or("");
                let id = text.parse::<i128>().map_err(|e| match e.kind() {
                    std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
                        format!("field 'id': '{}' is beyond ±2¹²⁷", quote(text))
                    }
                    _ => format!("field 'id': '{}' is not an integer", quote(text)),
                })?;
                let v: Vec<f64> =
                    (1..5).map(|k| field(r, self.cols[k], SPHERE_COLUMNS[k])).collect::<Result<_, _>>()?;
                if v[3] < 0.0 {
                    return Err(format!("field 'radius': {} is negative", v[3]));
                }
                Ok(Query::Sphere { id, center: DVec3::new(v[0], v[1], v[2]), radius: v[3] })
            }
            Batch::Observers => {
                let h = self.optional.map(|c| field(r, c, "h")).transpose()?;
                if let Some(h) = h.filter(|&h| h < 0.0) {
                    return Err(format!("field 'h': {h} is negative"));
                }
                Ok(Query::Observer { x: field(r, self.cols[0], "x")?, y: field(r, self.cols[1], "y")?, h })
            }
            Batch::LineBalls => {
                let mut v = [0.0; 4];
                for k in 0..4 {
                    v[k] = field(r, self.cols[k], LINE_BALL_COLUMNS[k])?;
                }
                if v[2] < 0.0 {
                    return Err(format!("field 'r': {} is negative", v[2]));
                }
                if v[3] <= 0.0 {
                    return Err(format!("field 'm': {} is not positive", v[3]));
                }
                Ok(Query::LineBall { x: v[0], v: v[1], r: v[2], m: v[3] })
            }
        }
    }
}

/// A csv error, cut and escaped like any text from a file.
fn csv_error(e: &csv::Error) -> String {
    crate::error::quote_n(&e.to_string(), 200)
}

/// Index of each required column in the header, and of the optional one.
fn find_columns(
    header: &csv::StringRecord,
    required: &[&str],
    optional: &str,
) -> Result<(Vec<usize>, Option<usize>), String> {
    for (k, h) in header.iter().enumerate() {
        if header.iter().take(k).any(|g| g.eq_ignore_ascii_case(h)) {
            return Err(format!("column '{}' appears twice", quote(h)));
        }
    }
    // Each column by its name or, for terrains in degrees, its geographic name (`lon,lat,h`; rays
    // `lon,lat,h,de,dn,du`: the direction in the east-north-up frame at the origin).
    let aliases = |n: &str| -> &[&str] {
        match n {
            "x" | "ox" => &["lon", "longitude"],
            "y" | "oy" => &["lat", "latitude"],
            "z" | "oz" => &["h"],
            "dx" => &["de"],
            "dy" => &["dn"],
            "dz" => &["du"],
            _ => &[],
        }
    };
    let pos = |n: &str| {
        std::iter::once(n)
            .chain(aliases(n).iter().copied())
            .find_map(|m| header.iter().position(|h| h.eq_ignore_ascii_case(m)))
    };
    let mut cols = Vec::new();
    for n in required {
        let Some(p) = pos(n) else {
            let got: Vec<&str> = header.iter().collect();
            return Err(format!(
                "missing column '{n}' (header is '{}'; expected {})",
                quote(&got.join(",")),
                required.join(",")
            ));
        };
        cols.push(p);
    }
    Ok((cols, if optional.is_empty() { None } else { pos(optional) }))
}

/// The finite number in column `col` (named `name`) of a row.
fn field(rec: &csv::StringRecord, col: usize, name: &str) -> Result<f64, String> {
    let text = rec.get(col).ok_or_else(|| format!("field '{name}': missing"))?;
    if text.is_empty() {
        return Err(format!("field '{name}': empty"));
    }
    let v: f64 = text.parse().map_err(|_| format!("field '{name}': '{}' is not a number", quote(text)))?;
    if !v.is_finite() {
        return Err(format!("field '{name}': '{}' is not a finite number", quote(text)));
    }
    Ok(v)
}
