//! 8- and 16-bit greyscale PNG heightmaps (the value is the raw sample, 0–255 or 0–65535).

use crate::input::{open_regular, Limits};
use crate::raster::Raster;
use crate::IoError;
use std::path::Path;

pub(crate) fn read(path: &Path, limits: &Limits) -> Result<Raster, IoError> {
    let (file, len) = open_regular(path)?;
    let decoded = png::Limits { bytes: usize::try_from(limits.max_bytes(2)).unwrap_or(usize::MAX) };
    let mut dec = png::Decoder::new_with_limits(std::io::BufReader::new(std::io::Read::take(file, len)), decoded);
    dec.set_transformations(png::Transformations::IDENTITY);
    let mut reader = dec.read_info().map_err(|e| IoError::format(path, format!("not a readable PNG: {e}")))?;
    let info = reader.info();
    limits.check_samples(path, "IHDR width × height", info.width as u64, info.height as u64)?;
    let (ct, depth) = reader.output_color_type();
    if ct != png::ColorType::Grayscale {
        return Err(IoError::field(path, "color type", format!("{ct:?}: heightmaps must be greyscale (8- or 16-bit)")));
    }
    let size = reader.output_buffer_size().ok_or_else(|| IoError::format(path, "image too large"))?;
    let mut buf = vec![0u8; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| IoError::format(path, format!("corrupt or truncated image data: {e}")))?;
    let (nx, ny) = (info.width as usize, info.height as usize);
    let stride = info.line_size;
    let mut values = Vec::with_capacity(nx * ny);
    for row in buf[..stride * ny].chunks_exact(stride) {
        match depth {
            png::BitDepth::Eight => values.extend(row[..nx].iter().map(|&b| b as f32)),
            png::BitDepth::Sixteen => {
                values.extend(row[..2 * nx].chunks_exact(2).map(|b| u16::from_be_bytes([b[0], b[1]]) as f32))
            }
            d => {
                return Err(IoError::field(
                    path,
                    "bit depth",
                    format!("{d:?}: only 8- and 16-bit greyscale are supported"),
                ))
            }
        }
    }
    let mut r = Raster { nx, ny, values, georef: None, notes: vec![], geokeys: None };
    r.flip_rows();
    Ok(r)
}

/// Writes an 8-bit RGB picture (`rgb` row after row from the top, 3 bytes a pixel) as a PNG,
/// through [`OutputFile`](crate::OutputFile): the file appears only when complete.
pub fn write_png_rgb(path: &Path, width: u32, height: u32, rgb: &[u8]) -> Result<(), IoError> {
    let mut file = crate::OutputFile::create(path)?;
    write_png_rgb_into(&mut file, width, height, rgb)?;
    file.commit()
}

/// [`write_png_rgb`] into an output not yet committed (one of several [`Outputs`](crate::Outputs)).
pub fn write_png_rgb_into(file: &mut crate::OutputFile, width: u32, height: u32, rgb: &[u8]) -> Result<(), IoError> {
    let path = &file.path().to_path_buf();
    if rgb.len() as u64 != width as u64 * height as u64 * 3 {
        return Err(IoError::format(path, format!("{} bytes do not make a {width}×{height} RGB picture", rgb.len())));
    }
    let err = |e: png::EncodingError| IoError::format(path, format!("cannot write: {e}"));
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(err)?;
    w.write_image_data(rgb).map_err(err)?;
    w.finish().map_err(err)
}
