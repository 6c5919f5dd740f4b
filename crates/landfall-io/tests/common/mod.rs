//! Helpers shared by the loader tests.

/// A `.npy` file: version 1 header for `descr` and `shape` (Python tuple syntax), then `data`.
#[allow(dead_code)] // not every test file reads .npy
pub fn npy_bytes(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend((header.len() as u16).to_le_bytes());
    b.extend(header.as_bytes());
    b.extend(data);
    b
}

/// The index files' checksum, restated from the documentation (4 lanes of multiply–rotate): for
/// tests that forge headers the way a hostile writer would.
#[allow(dead_code)] // not every test file forges headers
pub fn index_checksum(bytes: &[u8]) -> u64 {
    const P: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = [P, P ^ 1, P ^ 2, P ^ 3];
    let mut words = bytes.chunks_exact(32);
    for c in &mut words {
        for (k, lane) in h.iter_mut().enumerate() {
            let w = u64::from_le_bytes(c[8 * k..8 * k + 8].try_into().unwrap());
            *lane = (*lane ^ w).wrapping_mul(P).rotate_left(29);
        }
    }
    let mut tail = [0u8; 32];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    for (k, lane) in h.iter_mut().enumerate() {
        *lane = (*lane ^ u64::from_le_bytes(tail[8 * k..8 * k + 8].try_into().unwrap())).wrapping_mul(P);
    }
    h.iter().fold(bytes.len() as u64, |a, &b| (a ^ b).wrapping_mul(P).rotate_left(31))
}

pub mod skip;
