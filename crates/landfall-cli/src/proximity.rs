//! `landfall proximity`: every pair of spheres that overlap or touch, found by the broad phase
//! (`BroadPhase`: the thesis' dual levels as sorted arrays).
//!
//! Pairs are streamed: kept as row numbers in a buffer of [`RUN`] pairs, each full buffer sorted
//! by ids and spilled to an anonymous temporary file beside the output, the runs merged into the
//! output at the end. Memory is the spheres and one buffer, whatever the number of pairs.

use anyhow::{bail, Context, Result};
use landfall::broad::{BroadPhase, BroadPhaseError};
use landfall_io::{Batch, BatchReader, OutputFile, Query};
use std::collections::{BinaryHeap, HashMap};
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::Path;

/// Rows read per chunk.
const CHUNK: usize = 1 << 16;

/// Pairs sorted in memory before they are spilled to a temporary file (8 bytes each: 32 MiB).
const RUN: usize = 1 << 22;

/// `landfall proximity --objects IN.csv --out PAIRS.csv [--max-pairs N]`.
pub fn run(objects: &Path, out: &Path, max_pairs: Option<u64>) -> Result<()> {
    landfall_io::refuse_overwriting_inputs(out, &[objects])?;
    let mut output = OutputFile::create(out)?;
    let mut reader = BatchReader::open(objects, Batch::Spheres)?;
    let step = crate::progress::Step::bar("objects", reader.len(), "{bytes}/{total_bytes} {wide_bar} {eta}");
    let mut grid = BroadPhase::new(1.0);
    // Row k's id, and the line each id came from (for the error on a repeated id).
    let mut ids: Vec<i128> = Vec::new();
    let mut line_of: HashMap<i128, u64> = HashMap::new();
    let mut rows = Vec::with_capacity(CHUNK);
    while reader.next_chunk(&mut rows, CHUNK)? > 0 {
        for (q, &line) in rows.iter().zip(reader.lines()) {
            let Query::Sphere { id, center, radius } = *q else { continue };
            if let Some(&earlier) = line_of.get(&id) {
                bail!("{}: line {line}: field 'id': {id} is also the id on line {earlier}", objects.display());
            }
            line_of.insert(id, line);
            if ids.len() >= u32::MAX as usize {
                bail!("{}: line {line}: more than {} spheres", objects.display(), u32::MAX);
            }
            match grid.insert(center, radius) {
                // Nothing is removed, so proxies are handed out in order: a sphere's proxy is its row.
                Ok(proxy) => debug_assert_eq!(proxy as usize, ids.len()),
                Err(BroadPhaseError::BadSphere { why, .. }) => bail!("{}: line {line}: {why}", objects.display()),
                Err(e) => bail!("{}: line {line}: {e}", objects.display()),
            }
            ids.push(id);
        }
        step.set_position(reader.position());
    }
    drop(line_of);
    let dir = out.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut runs =
        Runs { ids: &ids, buffer: Vec::with_capacity(RUN.min(1 << 16)), spilled: Vec::new(), dir, error: None };
    let (mut found, limit) = (0u64, max_pairs.unwrap_or(u64::MAX));
    grid.for_each_pair(|a, b| {
        found += 1;
        if found <= limit {
            runs.push(a, b);
        }
    });
    let kept = found.min(limit);
    step.done(format!("{} objects, {kept} pairs", ids.len()));
    let mut w = BufWriter::new(&mut output);
    let cannot = || format!("{}: cannot write", out.display());
    writeln!(w, "a,b").with_context(cannot)?;
    runs.merge_into(&mut w).with_context(cannot)?;
    w.flush().with_context(cannot)?;
    drop(w);
    output.commit()?;
    say!("{} objects, {kept} pairs that overlap or touch → {}", ids.len(), out.display());
    if found > kept {
        eprintln!(
            "landfall: note: stopped at --max-pairs {limit}: {} more pairs overlap or touch; the output holds the first \
             {kept} found, sorted",
            found - kept
        );
    }
    Ok(())
}

/// Pairs of rows in sorted runs: one in memory, the others spilled to temporary files.
struct Runs<'a> {
    ids: &'a [i128],
    buffer: Vec<(u32, u32)>,
    spilled: Vec<std::fs::File>,
    dir: &'a Path,
    /// The first failure to spill (reported by `merge_into`).
    error: Option<std::io::Error>,
}

impl Runs<'_> {
    /// A pair of rows, ordered by their ids.
    fn push(&mut self, a: u32, b: u32) {
        let pair = if self.ids[a as usize] < self.ids[b as usize] { (a, b) } else { (b, a) };
        self.buffer.push(pair);
        if self.buffer.len() >= RUN && self.error.is_none() {
            if let Err(e) = self.spill() {
                self.error = Some(e);
            }
            self.buffer.clear();
        }
    }

    /// The buffer's pairs by ids.
    fn sort(&mut self) {
        let ids = self.ids;
        self.buffer.sort_unstable_by_key(|&(a, b)| (ids[a as usize], ids[b as usize]));
    }

    /// Sorts the buffer and writes it to a new temporary file (anonymous: gone when closed).
    fn spill(&mut self) -> std::io::Result<()> {
        self.sort();
        let mut f = tempfile::tempfile_in(self.dir)?;
        {
            let mut w = BufWriter::new(&mut f);
            for &(a, b) in &self.buffer {
                w.write_all(&a.to_le_bytes())?;
                w.write_all(&b.to_le_bytes())?;
            }
            w.flush()?;
        }
        f.rewind()?;
        self.spilled.push(f);
        Ok(())
    }

    /// Writes every pair as `a,b` (ids), sorted: the runs merged.
    fn merge_into(mut self, w: &mut impl Write) -> std::io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if !self.spilled.is_empty() && !self.buffer.is_empty() {
            self.spill()?;
            self.buffer.clear();
        }
        let ids = self.ids;
        if self.spilled.is_empty() {
            self.sort();
            for &(a, b) in &self.buffer {
                writeln!(w, "{},{}", ids[a as usize], ids[b as usize])?;
            }
            return Ok(());
        }
        let mut readers: Vec<BufReader<std::fs::File>> = self.spilled.into_iter().map(BufReader::new).collect();
        let next = |r: &mut BufReader<std::fs::File>| -> std::io::Result<Option<(u32, u32)>> {
            let mut b = [0u8; 8];
            match r.read_exact(&mut b) {
                Ok(()) => Ok(Some((
                    u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                    u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
                ))),
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
                Err(e) => Err(e),
            }
        };
        // A min-heap of each run's next pair, by ids.
        let mut heap = BinaryHeap::new();
        for (k, r) in readers.iter_mut().enumerate() {
            if let Some((a, b)) = next(r)? {
                heap.push(std::cmp::Reverse((ids[a as usize], ids[b as usize], k)));
            }
        }
        while let Some(std::cmp::Reverse((a, b, k))) = heap.pop() {
            writeln!(w, "{a},{b}")?;
            if let Some((a, b)) = next(&mut readers[k])? {
                heap.push(std::cmp::Reverse((ids[a as usize], ids[b as usize], k)));
            }
        }
        Ok(())
    }
}
