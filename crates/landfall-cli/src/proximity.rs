//! `landfall proximity`: every pair of spheres that overlap or touch, found with the dual quad-tree.

use anyhow::{bail, Context, Result};
use landfall::broad::{Layout, ProximityError, ProximityGrid};
use landfall_io::{Batch, BatchReader, OutputFile, Query};
use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Rows read per chunk.
const CHUNK: usize = 1 << 16;

/// `landfall proximity --objects IN.csv --out PAIRS.csv`.
pub fn run(objects: &Path, out: &Path) -> Result<()> {
    landfall_io::refuse_overwriting_inputs(out, &[objects])?;
    let mut reader = BatchReader::open(objects, Batch::Spheres)?;
    let step = crate::progress::Step::bar("objects", reader.len(), "{bytes}/{total_bytes} {wide_bar} {eta}");
    let mut grid = ProximityGrid::new(Layout::Dual, 1.0);
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
            let row = ids.len() as u64;
            if let Err(e) = grid.insert(row, center, radius) {
                let why = match e {
                    ProximityError::BadObject { why, .. } => why,
                    e => e.to_string(),
                };
                bail!("{}: line {line}: {why}", objects.display());
            }
            ids.push(id);
        }
        step.set_position(reader.position());
    }
    let mut pairs: Vec<(i128, i128)> = Vec::new();
    grid.pairs(|a, b| {
        let (a, b) = (ids[a as usize], ids[b as usize]);
        pairs.push((a.min(b), a.max(b)));
    });
    pairs.sort_unstable();
    step.done(format!("{} objects, {} pairs", ids.len(), pairs.len()));
    let mut w = BufWriter::new(OutputFile::create(out)?);
    writeln!(w, "a,b")?;
    for (a, b) in &pairs {
        writeln!(w, "{a},{b}")?;
    }
    let file =
        w.into_inner().map_err(|e| e.into_error()).with_context(|| format!("{}: cannot write", out.display()))?;
    file.commit()?;
    say!("{} objects, {} pairs that overlap or touch → {}", ids.len(), pairs.len(), out.display());
    Ok(())
}
