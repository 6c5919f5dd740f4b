//! A chunk's decompressed bytes to native samples: the file's byte order to the machine's, and the
//! TIFF predictors undone row by row, as libtiff undoes them (`tif_predict.c`).

/// Predictor tag (317) values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Predictor {
    /// 1: samples stored as they are.
    None,
    /// 2: each sample stored as its difference from the previous one in the row, as unsigned
    /// integers of the sample's width (for floats too: their bit patterns).
    Horizontal,
    /// 3: each row's bytes split into planes, most significant first, then differenced bytewise.
    Float,
}

/// Undoes `predictor` on `bytes` — rows of `row_len` samples of `width` bytes, in the file's byte
/// order (`big_endian`) — leaving native-order samples. `bytes` is aligned for `width`-byte values;
/// `scratch` is one row's room, reused.
pub(crate) fn undo(
    bytes: &mut [u8],
    row_len: usize,
    width: usize,
    big_endian: bool,
    predictor: Predictor,
    scratch: &mut Vec<u8>,
) {
    if predictor == Predictor::Float {
        // The planes are most significant first whatever the file's byte order.
        return floating(bytes, row_len, width, scratch);
    }
    macro_rules! each {
        ($t:ty) => {{
            let v: &mut [$t] = bytemuck::cast_slice_mut(bytes);
            if big_endian != cfg!(target_endian = "big") {
                v.iter_mut().for_each(|x| *x = x.swap_bytes());
            }
            if predictor == Predictor::Horizontal {
                for row in v.chunks_exact_mut(row_len) {
                    for i in 1..row.len() {
                        row[i] = row[i].wrapping_add(row[i - 1]);
                    }
                }
            }
        }};
    }
    match width {
        1 => each!(u8),
        2 => each!(u16),
        4 => each!(u32),
        _ => each!(u64),
    }
}

/// The floating-point predictor undone on each row: bytes summed along the row, then the planes
/// gathered back into values in native order.
fn floating(bytes: &mut [u8], row_len: usize, width: usize, scratch: &mut Vec<u8>) {
    for row in bytes.chunks_exact_mut(row_len * width) {
        for i in 1..row.len() {
            row[i] = row[i].wrapping_add(row[i - 1]);
        }
        scratch.clear();
        scratch.extend_from_slice(row);
        for b in 0..width {
            // Byte b of a native value: plane width − 1 − b (little-endian) or b (big-endian).
            let plane = if cfg!(target_endian = "big") { b } else { width - 1 - b };
            let src = &scratch[plane * row_len..(plane + 1) * row_len];
            for (i, &x) in src.iter().enumerate() {
                row[i * width + b] = x;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Differences made the way libtiff's encoder makes them (`fpDiff`, `horDiff`) come back.
    #[test]
    fn predictors_round_trip() {
        let vals: Vec<f32> = (0..37).map(|k| (k as f32 * 0.37).sin() * 1000.0 - 3.5).collect();
        let row_len = 37;
        // Floating point: planes most significant first, then bytewise differences.
        let mut planes = vec![0u8; row_len * 4];
        for (i, v) in vals.iter().enumerate() {
            for (p, b) in v.to_bits().to_be_bytes().iter().enumerate() {
                planes[p * row_len + i] = *b;
            }
        }
        for i in (1..planes.len()).rev() {
            planes[i] = planes[i].wrapping_sub(planes[i - 1]);
        }
        let mut words = vec![0u32; row_len];
        bytemuck::cast_slice_mut::<u32, u8>(&mut words).copy_from_slice(&planes);
        undo(bytemuck::cast_slice_mut(&mut words), row_len, 4, false, Predictor::Float, &mut Vec::new());
        assert_eq!(words, vals.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
        // Horizontal, big-endian file: differences of the bit patterns, stored big-endian.
        let bits: Vec<u32> = vals.iter().map(|v| v.to_bits()).collect();
        let mut stored: Vec<u32> = (0..row_len)
            .map(|i| if i == 0 { bits[0] } else { bits[i].wrapping_sub(bits[i - 1]) })
            .map(|d| u32::from_ne_bytes(d.to_be_bytes()))
            .collect();
        undo(bytemuck::cast_slice_mut(&mut stored), row_len, 4, true, Predictor::Horizontal, &mut Vec::new());
        assert_eq!(stored, bits);
    }
}
