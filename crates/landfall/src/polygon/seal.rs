//! Sealed faces: ground faces each of whose edges is cancelled by the ground faces around it.
//!
//! Walk every ground face's boundary counter-clockwise seen along gravity. Then at any point that is
//! on no edge, the number of faces covering it equals the winding number, around that point, of
//! the sum of all those boundaries — in which an edge walked once each way cancels. What is left
//! (the *open* edges: a mesh's rim, the rims of holes, folds, cracks, T-junctions, edges where two
//! surfaces meet at different heights) is all that can change the count. So over a leaf rectangle
//! that no open edge reaches, the count is the same everywhere, and one point covered by at most one
//! face shows that the leaf's faces are one layer (see `layer.rs`).
//!
//! The walks are summed per chunk of faces (a run in the build's spatial order, so neighbours are
//! nearly always in the same chunk; chunks run in parallel), and the walks of edges left open in
//! their chunk are then summed over all chunks. A face is *sealed* unless one of its edges is open
//! in its chunk and still open when the open walks of all chunks are summed. So every edge open
//! overall is an edge of some unsealed face (its walks do not cancel in some chunk, and they are
//! summed again there), and a leaf whose faces are all sealed has no open edge reaching it: the
//! build puts every face that touches a leaf's closed rectangle in the leaf. Edges cancel only
//! between identical vertices, bit for bit in all three coordinates, so faces that meet along a
//! cancelled edge have the same height there.

use super::face::Face;
use bytemuck::Zeroable;
use rayon::prelude::*;

/// Faces per chunk: enough that few neighbours fall into another chunk, few enough that a chunk's
/// table of edges stays in cache.
const CHUNK: usize = 2048;

/// Faces of more corners than this are left unsealed (a fixed buffer of vertex hashes).
const MAX_CORNERS: usize = 16;

/// One walk of an edge by a face: a hash of the edge, its end vertices (indices into the vertex
/// array) in the order of their hashes, the face, and the direction (+1 from `lo` to `hi`, −1 back).
#[derive(Clone, Copy)]
struct Walk {
    key: u64,
    lo: u32,
    hi: u32,
    face: u32,
    turn: i32,
}

/// For every face, whether it is sealed (see the module doc); `true` for faces that are not ground
/// faces, which take no part in vertical queries. `verts` are the faces' vertices (local frame).
///
/// Each chunk of faces sums its own walks; the walks of edges left open in their chunk (a chunk's
/// rim, nearly all of them cancelled by the next chunk) are then summed over all chunks.
pub(crate) fn sealed_faces(faces: &[Face], verts: &[[f64; 3]]) -> Vec<bool> {
    let mut sealed = vec![true; faces.len()];
    // One table per thread's run of chunks, emptied slot by slot after each chunk (a zeroed table
    // per chunk took 2M instructions of memset per 13k-face build).
    let per_thread = faces.len().div_ceil(CHUNK).div_ceil(rayon::current_num_threads()).max(1);
    let pending: Vec<Walk> = sealed
        .par_chunks_mut(CHUNK)
        .zip(faces.par_chunks(CHUNK))
        .enumerate()
        .with_min_len(per_thread)
        .map_init(
            || EdgeTable::new(3 * CHUNK),
            |table, (c, (out, chunk))| seal_chunk(chunk, verts, c * CHUNK, out, table),
        )
        .flatten_iter()
        .collect();
    let mut table = EdgeTable::new(pending.len());
    let slots: Vec<usize> = pending.iter().map(|w| table.add(w, verts)).collect();
    for (w, at) in pending.iter().zip(slots) {
        if table.net(at) != 0 {
            sealed[w.face as usize] = false;
        }
    }
    sealed
}

/// Seals the faces of one chunk (faces `base..` of the terrain) as far as the chunk can tell:
/// marks the faces it cannot walk, and returns the walks of the edges left open in the chunk.
fn seal_chunk(faces: &[Face], verts: &[[f64; 3]], base: usize, out: &mut [bool], table: &mut EdgeTable) -> Vec<Walk> {
    let mut walks = Vec::with_capacity(3 * faces.len());
    for (i, face) in faces.iter().enumerate() {
        if face.is_ground() && !walk(face, verts, (base + i) as u32, &mut walks) {
            out[i] = false;
        }
    }
    table.reserve(walks.len());
    let slots: Vec<u32> = walks.iter().map(|w| table.add(w, verts) as u32).collect();
    let open = walks.iter().zip(&slots).filter(|&(_, &at)| table.net(at as usize) != 0).map(|(w, _)| *w).collect();
    table.clear(&slots);
    open
}

/// Appends the walks of `face`'s edges, counter-clockwise seen along gravity; false (and nothing
/// appended) when its corners are out of bounds, too many, or too nearly in a line for their
/// turning direction to be sure.
fn walk(face: &Face, verts: &[[f64; 3]], id: u32, walks: &mut Vec<Walk>) -> bool {
    let (first, n) = (face.first as usize, usize::from(face.count));
    let Some(corners) = verts.get(first..first + n).filter(|c| c.len() <= MAX_CORNERS) else { return false };
    // A triangle (nearly every face) through the same code with its vertex count known: the loops
    // unroll and the next corner's index needs no test.
    match <&[[f64; 3]; 3]>::try_from(corners) {
        Ok(triangle) => walk_corners(triangle, first, id, walks),
        Err(_) => walk_corners(corners, first, id, walks),
    }
}

/// [`walk`] of a face whose corners `corners` are vertices `first..` of the terrain.
#[inline(always)]
fn walk_corners(corners: &[[f64; 3]], first: usize, id: u32, walks: &mut Vec<Walk>) -> bool {
    let n = corners.len();
    let Some(ccw) = counter_clockwise(corners) else { return false };
    let bits = |k: usize| corners[k].map(f64::to_bits);
    let mut hashes = [0u64; MAX_CORNERS];
    for (k, h) in hashes[..n].iter_mut().enumerate() {
        *h = vertex_hash(bits(k));
    }
    for k in 0..n {
        let next = if k + 1 == n { 0 } else { k + 1 };
        let (a, b) = if ccw { (k, next) } else { (next, k) };
        // The two ends in the order of their hashes, of their bits when the hashes tie.
        let forward = if hashes[a] != hashes[b] { hashes[a] < hashes[b] } else { bits(a) < bits(b) };
        let (lo, hi, turn) = if forward { (a, b, 1) } else { (b, a, -1) };
        let key = (hashes[lo] ^ hashes[hi].rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        walks.push(Walk { key, lo: (first + lo) as u32, hi: (first + hi) as u32, face: id, turn });
    }
    true
}

/// Net walks per edge: an open-addressing table (linear probing, at most half full).
struct EdgeTable {
    slots: Vec<EdgeSlot>,
    mask: usize,
}

/// An edge in an [`EdgeTable`]: its key (0: a free slot), the end vertices of its first walk (`lo`,
/// `hi`), and its net walks from the first to the second.
#[derive(Clone, Copy, Zeroable)]
#[repr(C)]
struct EdgeSlot {
    key: u64,
    ends: [u32; 2],
    net: i32,
}

/// The net of a slot that two different edges share (their keys collide): far enough from zero
/// that no number of walks brings it back, so their faces stay unsealed (never wrong, only slower).
const CLASH: i32 = i32::MIN / 2;

impl EdgeTable {
    /// A table for up to `walks` walks.
    fn new(walks: usize) -> Self {
        let size = (2 * walks).next_power_of_two().max(16);
        Self { slots: bytemuck::zeroed_vec(size), mask: size - 1 }
    }

    /// Makes an empty table large enough for `walks` walks.
    fn reserve(&mut self, walks: usize) {
        if 2 * walks > self.slots.len() {
            *self = Self::new(walks);
        }
    }

    /// Empties the slots `used` (all the table's used slots).
    fn clear(&mut self, used: &[u32]) {
        used.iter().for_each(|&at| self.slots[at as usize] = EdgeSlot::zeroed());
    }

    /// Adds walk `w` (its ends' coordinates in `verts`) and returns its edge's slot.
    fn add(&mut self, w: &Walk, verts: &[[f64; 3]]) -> usize {
        let bits = |v: u32| verts[v as usize].map(f64::to_bits);
        let mut at = (w.key >> 32) as usize & self.mask;
        loop {
            let slot = &mut self.slots[at];
            if slot.key == 0 {
                *slot = EdgeSlot { key: w.key, ends: [w.lo, w.hi], net: w.turn };
                return at;
            }
            if slot.key == w.key {
                let [lo, hi] = slot.ends;
                let same = bits(lo) == bits(w.lo) && bits(hi) == bits(w.hi);
                slot.net = if !same || slot.net <= CLASH / 2 { CLASH } else { slot.net + w.turn };
                return at;
            }
            at = (at + 1) & self.mask;
        }
    }

    /// The net walks of the edge in slot `at`.
    fn net(&self, at: usize) -> i32 {
        self.slots[at].net
    }
}

/// Whether a face's corners run counter-clockwise seen along gravity; `None` when its area seen
/// that way is too small for the sign to be sure (such a face is left unsealed).
fn counter_clockwise(corners: &[[f64; 3]]) -> Option<bool> {
    if let [a, b, c] = corners {
        let (ux, uy, vx, vy) = (b[0] - a[0], b[1] - a[1], c[0] - a[0], c[1] - a[1]);
        let area2 = ux * vy - vx * uy;
        let extent = ux.abs().max(uy.abs()).max(vx.abs()).max(vy.abs());
        return (area2.abs() > 1e-9 * extent * extent).then_some(area2 > 0.0);
    }
    // Relative to the first corner, so that the terrain's offset from the origin costs no precision.
    let o = corners[0];
    let (mut area2, mut extent) = (0.0f64, 0.0f64);
    for (p, q) in corners.iter().zip(corners.iter().cycle().skip(1)) {
        let (px, py, qx, qy) = (p[0] - o[0], p[1] - o[1], q[0] - o[0], q[1] - o[1]);
        area2 += px * qy - qx * py;
        extent = extent.max(px.abs()).max(py.abs());
    }
    (area2.abs() > 1e-9 * extent * extent).then_some(area2 > 0.0)
}

/// A hash of a vertex's bits (also the duplicate check's, see `mod.rs`).
pub(crate) fn vertex_hash(v: [u64; 3]) -> u64 {
    let mut h = 0x243F_6A88_85A3_08D3u64;
    for c in v {
        h = (h ^ c).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 31;
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::polygon::face::{push_face, FaceSet};
    use glam::DVec3;

    fn faces_of(polys: &[Vec<DVec3>]) -> FaceSet {
        let mut set = FaceSet::default();
        for (k, p) in polys.iter().enumerate() {
            push_face(k as u32, p, 0.0, &mut set);
        }
        set
    }

    /// An n × n grid of unit squares, each two triangles, the given winding per square.
    fn grid(n: usize, flip: impl Fn(usize, usize) -> bool, z: impl Fn(f64, f64) -> f64) -> Vec<Vec<DVec3>> {
        let v = |x: usize, y: usize| DVec3::new(x as f64, y as f64, z(x as f64, y as f64));
        let mut polys = Vec::new();
        for j in 0..n {
            for i in 0..n {
                let mut a = vec![v(i, j), v(i + 1, j), v(i + 1, j + 1)];
                let mut b = vec![v(i, j), v(i + 1, j + 1), v(i, j + 1)];
                if flip(i, j) {
                    a.reverse();
                    b.reverse();
                }
                polys.extend([a, b]);
            }
        }
        polys
    }

    /// The triangles with no edge on the grid's rim are sealed, whatever their winding (a square's
    /// first triangle has its south and east edges on the square's sides, the second its north and
    /// west ones): on a grid of one chunk, and on one of 3,200 triangles stored row by row, whose
    /// rows the chunks cut (their shared edges cancel only when the chunks' open edges are summed).
    #[test]
    fn a_mesh_is_sealed_inside_its_rim_whatever_the_winding() {
        for n in [3, 40] {
            let polys = grid(n, |i, j| (i + 2 * j) % 3 == 0, |x, y| 0.5 * x - 0.25 * y);
            let set = faces_of(&polys);
            assert!((set.faces.len() > CHUNK) == (n == 40));
            let sealed = sealed_faces(&set.faces, &set.verts);
            let want: Vec<bool> = (0..2 * n * n)
                .map(|f| {
                    let (i, j) = (f / 2 % n, f / (2 * n));
                    if f % 2 == 0 {
                        j > 0 && i < n - 1
                    } else {
                        j < n - 1 && i > 0
                    }
                })
                .collect();
            assert_eq!(sealed, want, "{n} × {n}");
            assert_eq!(sealed.iter().filter(|&&s| s).count(), 2 * (n - 1) * (n - 1));
        }
    }

    /// The indices of the sealed faces.
    fn sealed_ids(polys: &[Vec<DVec3>]) -> Vec<usize> {
        let set = faces_of(polys);
        sealed_faces(&set.faces, &set.verts).iter().enumerate().filter(|(_, &s)| s).map(|(f, _)| f).collect()
    }

    /// Edges do not cancel between different surfaces: the middle square lifted off its neighbours
    /// (a step: its triangles and the four across its sides are open), a copy of the mesh one metre
    /// up (each copy cancels its own edges, so the leaf's cover count has to catch the double
    /// layer), and a fold (a triangle turned over onto its neighbour).
    #[test]
    fn steps_and_folds_are_open() {
        assert_eq!(sealed_ids(&grid(3, |_, _| false, |_, _| 0.0)), [3, 5, 6, 8, 9, 11, 12, 14]);
        let mut lifted = grid(3, |_, _| false, |_, _| 0.0);
        lifted[8..10].iter_mut().flatten().for_each(|v| v.z += 1.0);
        assert_eq!(sealed_ids(&lifted), [5, 12], "a step opens every edge around it");

        let mut doubled = grid(3, |_, _| false, |_, _| 0.0);
        doubled.extend(grid(3, |_, _| false, |_, _| 1.0));
        assert_eq!(sealed_ids(&doubled), [3, 5, 6, 8, 9, 11, 12, 14, 21, 23, 24, 26, 27, 29, 30, 32]);

        let mut folded = grid(3, |_, _| false, |_, _| 0.0);
        let p = |x: f64, y: f64| DVec3::new(x, y, 0.0);
        // The middle square's first triangle folded over, onto the square to its left (triangle 6).
        folded[8] = vec![p(1.0, 1.0), p(0.0, 1.5), p(1.0, 2.0)];
        // The edge it shares with 6 and 9 is walked twice one way and once the other; its other
        // edges, and those 3, 9 and 11 shared with the triangle it replaced, once.
        assert_eq!(sealed_ids(&folded), [5, 12, 14]);
    }
}
