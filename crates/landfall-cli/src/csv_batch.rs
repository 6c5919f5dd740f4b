//! `height` and `raycast`: stream a CSV of queries through the terrain, answers in input order.
//!
//! Rows are read in chunks, each chunk answered in parallel and written before the next is read, so
//! memory stays bounded whatever the file size. A progress bar (bytes read) shows on a terminal.

use crate::terrain_args::TerrainArgs;
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use landfall::glam::DVec3;
use landfall::{Ray, SurfacePoint};
use rayon::prelude::*;
use std::cell::RefCell;
use std::collections::VecDeque;
use landfall_io::{quote, OutputFile};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::rc::Rc;

/// Parses one CSV row into a query (the header has been matched already).
type RowParser<Q> = Box<dyn Fn(&csv::StringRecord) -> Result<Q>>;

/// Rows answered per parallel chunk.
const CHUNK: usize = 1 << 16;

/// A reader that notes where its newlines are, so a record's byte offset maps to its true line
/// number (the csv crate does not count blank lines).
struct LineIndex<R> {
    inner: R,
    offset: u64,
    newlines: Rc<RefCell<VecDeque<u64>>>,
}

impl<R: Read> Read for LineIndex<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut nl = self.newlines.borrow_mut();
        for (k, _) in buf[..n].iter().enumerate().filter(|(_, &b)| b == b'\n') {
            nl.push_back(self.offset + k as u64);
        }
        self.offset += n as u64;
        Ok(n)
    }
}

/// 1-based line of the byte at `byte`, given newlines not yet passed and the count already passed.
fn line_at(newlines: &RefCell<VecDeque<u64>>, passed: &mut u64, byte: u64) -> u64 {
    let mut nl = newlines.borrow_mut();
    while nl.front().is_some_and(|&o| o < byte) {
        nl.pop_front();
        *passed += 1;
    }
    *passed + 1
}

/// Reads `input` in chunks, answers each row with `answer`, writes with `write`, in order.
fn stream<Q: Send + Sync, R: Send>(
    input: &Path,
    output: &Path,
    out_header: &str,
    columns: impl FnOnce(&csv::StringRecord) -> Result<RowParser<Q>>,
    answer: impl Fn(&Q) -> R + Sync,
    mut write: impl FnMut(&mut dyn Write, usize, &R) -> std::io::Result<()>,
) -> Result<usize> {
    let name = input.display().to_string();
    let file = File::open(input).with_context(|| format!("{name}: cannot open"))?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let newlines = Rc::new(RefCell::new(VecDeque::new()));
    let counted = LineIndex { inner: BufReader::new(file), offset: 0, newlines: newlines.clone() };
    let mut rdr = csv::ReaderBuilder::new().flexible(true).trim(csv::Trim::All).from_reader(counted);
    let mut passed = 0;
    let header = rdr.headers().with_context(|| format!("{name}: line 1: cannot read the header"))?.clone();
    let parse = columns(&header).with_context(|| format!("{name}: line 1 (header)"))?;
    let mut w = BufWriter::new(OutputFile::create(output)?);
    writeln!(w, "{out_header}")?;
    let bar = ProgressBar::new(len).with_style(
        ProgressStyle::with_template("{spinner} {bytes}/{total_bytes} {wide_bar} {eta}").expect("valid template"),
    );
    let mut rec = csv::StringRecord::new();
    let (mut done, mut queries) = (0usize, Vec::with_capacity(CHUNK));
    loop {
        queries.clear();
        while queries.len() < CHUNK {
            let more = rdr.read_record(&mut rec).with_context(|| format!("{name}: malformed CSV"))?;
            if !more {
                break;
            }
            // The reader now stands just past this record's line ending: its line is the one
            // holding the byte before that.
            let line = line_at(&newlines, &mut passed, rdr.position().byte().saturating_sub(1));
            queries.push(parse(&rec).with_context(|| format!("{name}: line {line}"))?);
        }
        if queries.is_empty() {
            break;
        }
        let answers: Vec<R> = queries.par_iter().with_min_len(1024).map(&answer).collect();
        for (k, a) in answers.iter().enumerate() {
            write(&mut w, done + k, a).with_context(|| format!("{}: cannot write", output.display()))?;
        }
        done += queries.len();
        bar.set_position(rdr.position().byte());
    }
    let out = w.into_inner().map_err(|e| e.into_error()).with_context(|| format!("{}: cannot write", output.display()))?;
    out.commit()?;
    bar.finish_and_clear();
    Ok(done)
}

/// Index of each wanted column in the header (`None` for optional ones that are absent).
fn find_columns(header: &csv::StringRecord, required: &[&str], optional: &[&str]) -> Result<Vec<Option<usize>>> {
    let pos = |n: &str| header.iter().position(|h| h.eq_ignore_ascii_case(n));
    for (k, h) in header.iter().enumerate() {
        if header.iter().take(k).any(|g| g.eq_ignore_ascii_case(h)) {
            bail!("column '{}' appears twice in the header", quote(h));
        }
    }
    let mut out = Vec::new();
    for n in required {
        let Some(p) = pos(n) else {
            let got: Vec<&str> = header.iter().collect();
            bail!("missing column '{n}' (header is '{}'; expected {})", quote(&got.join(",")), required.join(","));
        };
        out.push(Some(p));
    }
    out.extend(optional.iter().map(|n| pos(n)));
    Ok(out)
}

/// The finite number in column `col` (named `name`) of a row.
fn field(rec: &csv::StringRecord, col: usize, name: &str) -> Result<f64> {
    let text = rec.get(col).with_context(|| format!("field '{name}': missing"))?;
    if text.is_empty() {
        bail!("field '{name}': empty");
    }
    let v: f64 = text.parse().map_err(|_| anyhow::anyhow!("field '{name}': '{}' is not a number", quote(text)))?;
    if !v.is_finite() {
        bail!("field '{name}': '{}' is not a finite number", quote(text));
    }
    Ok(v)
}

/// `v` as CSV prints it: the shortest decimal that reads back as the same f64, without a negative
/// zero (flat ground prints `0,0,1`, not `-0,-0,1`), in exponent form outside [1e-5, 1e16) so that
/// no number takes hundreds of digits (`1e300`, not 1 and 300 zeros).
fn nz(v: f64) -> Num {
    Num(v + 0.0)
}

/// An f64 printed as [`nz`] says.
struct Num(f64);

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let a = self.0.abs();
        if a == 0.0 || (1e-5..1e16).contains(&a) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{:e}", self.0)
        }
    }
}

fn fmt_opt(w: &mut dyn Write, s: Option<&SurfacePoint>) -> std::io::Result<()> {
    match s {
        Some(s) => {
            let (p, n) = (s.point, s.normal);
            writeln!(w, "{},{},{},{},{},{}", nz(p.x), nz(p.y), nz(p.z), nz(n.x), nz(n.y), nz(n.z))
        }
        None => writeln!(w, ",,,,,"),
    }
}

/// `landfall height`.
pub fn height(args: &TerrainArgs, points: &Path, out: &Path, all: bool) -> Result<()> {
    landfall_io::refuse_overwriting_inputs(out, &[points, &args.path])?;
    let terrain = args.load()?;
    terrain.warn_notes(&args.path);
    let t = terrain.terrain.as_dyn();
    let z_up = t.frame().is_z_up();
    let columns = |h: &csv::StringRecord| -> Result<RowParser<(DVec3, bool)>> {
        let cols = find_columns(h, &["x", "y"], &["z"])?;
        let (cx, cy, cz) = (cols[0].unwrap(), cols[1].unwrap(), cols[2]);
        if cz.is_none() && !z_up {
            bail!("with a --gravity other than 0,0,-1 the input needs columns x,y,z (a point on the gravity line)");
        }
        Ok(Box::new(move |r| {
            let z = cz.map(|c| field(r, c, "z")).transpose()?;
            Ok((DVec3::new(field(r, cx, "x")?, field(r, cy, "y")?, z.unwrap_or(0.0)), z.is_some()))
        }))
    };
    if all {
        let answer = |&(p, _): &(DVec3, bool)| {
            let mut v = Vec::new();
            t.surfaces_on_line(p, &mut |s| v.push(s));
            v
        };
        stream(points, out, "index,x,y,z,nx,ny,nz", columns, answer, |w, k, v: &Vec<SurfacePoint>| {
            for s in v {
                write!(w, "{k},")?;
                fmt_opt(w, Some(s))?;
            }
            Ok(())
        })?;
    } else {
        let answer = |&(p, has_z): &(DVec3, bool)| {
            if has_z {
                t.floor_below(p)
            } else {
                t.top_surface(p)
            }
        };
        stream(points, out, "x,y,z,nx,ny,nz", columns, answer, |w, _, s: &Option<SurfacePoint>| {
            fmt_opt(w, s.as_ref())
        })?;
    }
    Ok(())
}

/// `landfall raycast`.
pub fn raycast(args: &TerrainArgs, rays: &Path, out: &Path) -> Result<()> {
    landfall_io::refuse_overwriting_inputs(out, &[rays, &args.path])?;
    let terrain = args.load()?;
    terrain.warn_notes(&args.path);
    let t = terrain.terrain.as_dyn();
    const NAMES: [&str; 6] = ["ox", "oy", "oz", "dx", "dy", "dz"];
    let columns = |h: &csv::StringRecord| -> Result<RowParser<(Ray, f64)>> {
        let cols = find_columns(h, &NAMES, &["max_t"])?;
        Ok(Box::new(move |r| {
            let mut v = [0.0; 6];
            for k in 0..6 {
                v[k] = field(r, cols[k].unwrap(), NAMES[k])?;
            }
            let ray = Ray::new(DVec3::new(v[0], v[1], v[2]), DVec3::new(v[3], v[4], v[5]));
            if ray.dir == DVec3::ZERO {
                bail!("fields 'dx','dy','dz': the direction is zero");
            }
            let max_t = match cols[6] {
                Some(c) if !r.get(c).unwrap_or("").is_empty() => {
                    let m = field(r, c, "max_t")?;
                    if m < 0.0 {
                        bail!("field 'max_t': {m} is negative");
                    }
                    m
                }
                _ => f64::INFINITY,
            };
            Ok((ray, max_t))
        }))
    };
    let answer = |(ray, max_t): &(Ray, f64)| t.raycast(ray, *max_t);
    stream(rays, out, "hit,t,x,y,z,nx,ny,nz", columns, answer, |w, _, h: &Option<landfall::Hit>| match h {
        Some(h) => {
            let (p, n) = (h.point, h.normal);
            writeln!(w, "1,{},{},{},{},{},{},{}", nz(h.t), nz(p.x), nz(p.y), nz(p.z), nz(n.x), nz(n.y), nz(n.z))
        }
        None => writeln!(w, "0,,,,,,,"),
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every printed number reads back as the same f64, and none is long.
    #[test]
    fn numbers_print_short_and_round_trip() {
        for v in [0.0, -0.0, 1.0, -2.5, 0.1, 1e-5, 9.99e-6, 1e16, 1e300, -1e-300, 5e-324, f64::MAX, 123456.789, 1e15 + 0.5] {
            let s = nz(v).to_string();
            assert_eq!(s.parse::<f64>().unwrap(), v + 0.0, "{s}");
            assert!(s.len() <= 24, "{s}");
        }
        assert_eq!(nz(-0.0).to_string(), "0");
        assert_eq!(nz(1e300).to_string(), "1e300");
    }
}
