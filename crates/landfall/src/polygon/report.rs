//! What a build did with its input.

/// What the build did with the input: triangulated, vertical, degenerate and duplicate polygons.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BuildReport {
    /// Input polygons.
    pub polygons: usize,
    /// Convex faces after triangulation.
    pub faces: usize,
    /// Polygons that were non-convex, self-overlapping or not planar, and were triangulated.
    pub triangulated: usize,
    /// Faces with zero area seen along gravity (ray casts only).
    pub vertical: usize,
    /// Polygons skipped: fewer than 3 distinct vertices or zero area.
    pub degenerate: usize,
    /// Polygons skipped because an identical polygon came earlier.
    pub duplicates: usize,
    /// The lowest (up to 8) input indices of skipped polygons, for the error message a user reads.
    pub examples: Vec<usize>,
}

impl BuildReport {
    /// Keeps `k` among the examples if it is one of the 8 lowest indices seen (polygons are not
    /// visited in input order).
    fn note_example(&mut self, k: u32) {
        let at = self.examples.partition_point(|&e| e < k as usize);
        if at < 8 {
            self.examples.insert(at, k as usize);
            self.examples.truncate(8);
        }
    }
    pub(crate) fn note_degenerate(&mut self, k: u32) {
        self.degenerate += 1;
        self.note_example(k);
    }
    pub(crate) fn note_triangulated(&mut self, _k: u32) {
        self.triangulated += 1;
    }
    pub(crate) fn note_duplicate(&mut self, k: u32) {
        self.duplicates += 1;
        self.note_example(k);
    }
    /// Adds the counts and examples of `other` (a report of later polygons).
    pub(crate) fn absorb(&mut self, other: BuildReport) {
        self.degenerate += other.degenerate;
        self.duplicates += other.duplicates;
        self.triangulated += other.triangulated;
        for k in other.examples {
            self.note_example(k as u32);
        }
    }

    /// One line per kind of trouble, empty when the input was clean.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if self.degenerate > 0 {
            w.push(format!(
                "{} degenerate polygon(s) skipped (fewer than 3 distinct vertices or no area)",
                self.degenerate
            ));
        }
        if self.duplicates > 0 {
            w.push(format!("{} duplicate polygon(s) skipped", self.duplicates));
        }
        if !w.is_empty() {
            w.push(format!("first skipped polygon indices: {:?}", self.examples));
        }
        w
    }
}
