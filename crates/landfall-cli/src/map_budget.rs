//! `--cache-mb`: how much of a memory-mapped heightfield index a batch command keeps in the
//! process's memory. The queries go in smaller chunks; after a chunk that leaves more of the map
//! resident than the budget, the whole map is let go (its pages are read again when used).

use anyhow::{bail, Result};

/// Rows a batch command answers per parallel chunk (without a budget; a budget makes them smaller).
pub(crate) const CHUNK: usize = 1 << 16;

/// `--cache-mb`: how much of a mapped heightfield index may stay in the process's memory.
pub(crate) struct MapBudget<'a> {
    hf: &'a landfall::Heightfield,
    bytes: u64,
    /// Resident file maps before the queries (the program's code; the index's checks read it
    /// through a buffer, not the map).
    baseline: u64,
    releases: usize,
}

impl<'a> MapBudget<'a> {
    /// The budget for `terrain`, or `None` (with a note when the option cannot apply).
    pub(crate) fn new(terrain: &'a crate::terrain_args::LoadedTerrain, cache_mb: Option<u64>) -> Result<Option<Self>> {
        let Some(mb) = cache_mb else { return Ok(None) };
        if mb == 0 {
            bail!("--cache-mb: must be at least 1");
        }
        match terrain.terrain.heightfield() {
            Some(hf) if hf.is_mapped() => Ok(Some({
                // A query's touch maps one small page, not 2 MiB.
                hf.set_huge_pages(false);
                Self {
                    hf,
                    bytes: mb.saturating_mul(1 << 20),
                    baseline: crate::memory::resident_file().unwrap_or(0),
                    releases: 0,
                }
            })),
            _ => {
                eprintln!(
                    "landfall: note: --cache-mb applies to heightfield index files (.lfh); this terrain is in memory"
                );
                Ok(None)
            }
        }
    }

    /// Queries per chunk: a query touches a few pages, and the kernel maps up to 64 KiB around
    /// each page it faults in (fault-around): 256 KiB a query.
    pub(crate) fn chunk(&self) -> usize {
        (self.bytes / (256 << 10)).clamp(16, CHUNK as u64) as usize
    }

    /// After a chunk: lets go of the map when more than the budget of it is resident.
    pub(crate) fn after_chunk(&mut self) {
        if crate::memory::resident_file().is_some_and(|r| r.saturating_sub(self.baseline) > self.bytes) {
            self.hf.release_all();
            self.releases += 1;
            // What stays resident after letting go of the map is not the map (the program's code
            // pages that the queries brought in): the budget counts from there.
            self.baseline = self.baseline.max(crate::memory::resident_file().unwrap_or(0));
        }
    }
}

impl Drop for MapBudget<'_> {
    fn drop(&mut self) {
        let mb = |b: u64| b as f64 / (1 << 20) as f64;
        eprintln!(
            "landfall: --cache-mb {:.0}: peak resident memory {:.1} MiB, of which file maps now {:.1} MiB; the map let go {} times",
            mb(self.bytes),
            mb(crate::memory::peak().unwrap_or(0)),
            mb(crate::memory::resident_file().unwrap_or(0)),
            self.releases
        );
    }
}
