//! Edits: overwrite a rectangle of samples and update only the affected pyramid branches (the
//! 2017 paper's future work).

use super::{Heightfield, HeightfieldError, Samples};

impl Heightfield {
    /// Overwrites the `w × h` samples starting at column `i0`, row `j0` with `values` (row-major, row
    /// `j0` first). NaN makes a hole; infinities are refused. Only the pyramid leaves that contain a
    /// changed sample, and their ancestors, are recomputed. A tiled heightfield (an index file's) is
    /// read-only: [`HeightfieldError::TiledEdit`].
    pub fn set_samples(
        &mut self,
        i0: usize,
        j0: usize,
        w: usize,
        h: usize,
        values: &[f32],
    ) -> Result<(), HeightfieldError> {
        let fits = i0.checked_add(w).is_some_and(|e| e <= self.nx)
            && j0.checked_add(h).is_some_and(|e| e <= self.ny)
            && w.checked_mul(h) == Some(values.len());
        if !fits {
            return Err(HeightfieldError::BadEdit { i0, j0, w, h, nx: self.nx, ny: self.ny });
        }
        if let Some(k) = values.iter().position(|v| v.is_infinite()) {
            return Err(HeightfieldError::InfiniteSample { i: i0 + k % w, j: j0 + k / w });
        }
        let Samples::Rows(heights) = &mut self.samples else { return Err(HeightfieldError::TiledEdit) };
        let range = |v: &[f32]| v.iter().fold([f32::INFINITY, f32::NEG_INFINITY], |r, &x| [r[0].min(x), r[1].max(x)]);
        let (mut old_range, new_range) = ([f32::INFINITY, f32::NEG_INFINITY], range(values));
        for (r, row) in values.chunks_exact(w.max(1)).enumerate() {
            let start = (j0 + r) * self.nx + i0;
            let old = &mut heights.make_mut()[start..start + w];
            let nan = |v: &[f32]| v.iter().filter(|x| x.is_nan()).count();
            self.nodata = self.nodata + nan(row) - nan(old);
            let o = range(old);
            old_range = [old_range[0].min(o[0]), old_range[1].max(o[1])];
            old.copy_from_slice(row);
        }
        self.pyramid.update_samples(heights, self.nx, i0, i0 + w, j0, j0 + h, old_range, new_range);
        Ok(())
    }

    /// Rebuilds the whole pyramid (e.g. with another leaf size); not for a tiled heightfield
    /// ([`HeightfieldError::TiledEdit`]).
    pub fn rebuild_pyramid(&mut self, leaf_size: usize) -> Result<(), HeightfieldError> {
        if !(1..=super::MAX_LEAF_SIZE).contains(&leaf_size) {
            return Err(HeightfieldError::BadLeafSize);
        }
        let Samples::Rows(heights) = &self.samples else { return Err(HeightfieldError::TiledEdit) };
        self.pyramid = super::Pyramid::build(heights, self.nx, self.ny, leaf_size);
        Ok(())
    }
}
