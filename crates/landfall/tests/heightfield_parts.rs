//! A heightfield stored as parts and loaded back answers exactly as the one built in memory, and the
//! pyramid accumulated from rows streaming past in any order is the one the builder makes.

use glam::DVec3;
use landfall::support::SplitMix64;
use landfall::support::{Flat, StableBytes};
use landfall::support::{HeightfieldParts, LeafRanges};
use landfall::{Diagonal, Heightfield, Ray, Terrain};
use std::sync::Arc;

fn random(nx: usize, ny: usize, seed: u64, holes: bool) -> Vec<f32> {
    let mut rng = SplitMix64::new(seed);
    (0..nx * ny).map(|_| if holes && rng.uniform() < 0.03 { f32::NAN } else { rng.range(-5.0, 20.0) as f32 }).collect()
}

#[test]
fn streamed_leaf_ranges_equal_the_builders_pyramid() {
    for (nx, ny, leaf) in [(37, 23, 8), (2, 2, 1), (65, 9, 16), (100, 101, 7)] {
        let h = random(nx, ny, nx as u64, true);
        let hf = Heightfield::builder(nx, ny, h.clone()).leaf_size(leaf).build().unwrap();
        let mut acc = LeafRanges::new(nx, ny, leaf);
        // North first, as a raster file gives them.
        for j in (0..ny).rev() {
            acc.add_row(j, &h[j * nx..(j + 1) * nx]);
        }
        let (nodes, quantum, exact) = acc.finish();
        let parts = hf.to_parts();
        assert_eq!(&*parts.nodes, &nodes[..], "{nx}×{ny} leaf {leaf}");
        assert_eq!(parts.quantum, quantum);
        assert_eq!(parts.exact.map(f32::to_bits), exact.map(f32::to_bits));
    }
}

/// Bytes held for a test, standing in for a memory-mapped file.
struct Bytes(Box<[u64]>);

// SAFETY: the boxed slice is never mutated after being shared.
unsafe impl StableBytes for Bytes {
    fn stable_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.0)
    }
}

#[test]
fn parts_from_shared_bytes_answer_bit_for_bit() {
    let (nx, ny) = (57, 41);
    let h = random(nx, ny, 9, true);
    let hf = Heightfield::builder(nx, ny, h)
        .origin(-300.5, 1234.25)
        .spacing(2.5, 3.0)
        .diagonal(Diagonal::Alternating)
        .build()
        .unwrap();
    let p = hf.to_parts();
    // The samples copied into shared bytes, as a mapped file would hold them.
    let mut words = vec![0u64; (nx * ny).div_ceil(2)];
    bytemuck::cast_slice_mut::<u64, f32>(&mut words)[..nx * ny].copy_from_slice(&p.heights);
    let owner: Arc<dyn StableBytes> = Arc::new(Bytes(words.into_boxed_slice()));
    let shared = Flat::<f32>::from_shared(owner, 0, (nx * ny) as u64).unwrap();
    let loaded = Heightfield::from_parts(HeightfieldParts { heights: shared, ..p.clone() }).unwrap();
    assert!(loaded.is_mapped() && !hf.is_mapped());
    let mut rng = SplitMix64::new(1);
    for _ in 0..5000 {
        let (x, y) = (rng.range(-310.0, -300.5 + 2.5 * 57.0), rng.range(1230.0, 1234.25 + 3.0 * 41.0));
        let a = hf.top_surface(DVec3::new(x, y, 0.0));
        let b = loaded.top_surface(DVec3::new(x, y, 0.0));
        assert_eq!(a, b);
        let ray = Ray::new(DVec3::new(x, y, 40.0), DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), -0.3));
        assert_eq!(hf.raycast(&ray, 1e3), loaded.raycast(&ray, 1e3));
    }
    // Sizes that do not fit the grid are refused.
    let short: Flat<f32> = vec![0.0f32; 10].into();
    assert!(Heightfield::from_parts(HeightfieldParts { heights: short, ..p.clone() }).is_err());
    let nodes: Flat<[u16; 2]> = vec![[0, 0]; 3].into();
    assert!(Heightfield::from_parts(HeightfieldParts { nodes, ..p.clone() }).is_err());
    assert!(Heightfield::from_parts(HeightfieldParts { leaf_size: 0, ..p }).is_err());
}
