//! LZW (TIFF compression 5), decoded by `weezl`: codes most significant bit first with TIFF's early
//! change of code width, or — for files written before TIFF 5.0, recognised as libtiff recognises
//! them by their first two bytes — least significant bit first without it.

use weezl::{decode::Decoder, BitOrder, LzwStatus};

/// Decodes the LZW stream `input` into `out`, stopping when `out` is full; returns the bytes written
/// (fewer than `out.len()` when the stream ends first).
pub(crate) fn decode(input: &[u8], out: &mut [u8]) -> Result<usize, String> {
    let old_style = input.len() >= 2 && input[0] == 0 && input[1] & 1 == 1;
    let mut d =
        if old_style { Decoder::new(BitOrder::Lsb, 8) } else { Decoder::with_tiff_size_switch(BitOrder::Msb, 8) };
    let (mut read, mut written) = (0, 0);
    while written < out.len() {
        let r = d.decode_bytes(&input[read..], &mut out[written..]);
        read += r.consumed_in;
        written += r.consumed_out;
        match r.status {
            Ok(LzwStatus::Done | LzwStatus::NoProgress) => break,
            Ok(LzwStatus::Ok) if r.consumed_in == 0 && r.consumed_out == 0 => break,
            Ok(LzwStatus::Ok) => {}
            Err(e) => return Err(format!("LZW data is corrupt ({e})")),
        }
    }
    Ok(written)
}
