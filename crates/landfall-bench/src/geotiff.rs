//! Generated DEMs written as GeoTIFFs for the benchmarks that read files.

use std::path::Path;

/// Writes the `n × n` raster `sample(column, row)` (row 0 north) as an uncompressed f32 GeoTIFF in
/// strips of 16 rows, `pixel` units a sample from (0, n · pixel) at the north-west corner, with
/// GDAL's nodata tag when `nodata` is given; a BigTIFF past 4 GB, as GDAL writes it then.
pub fn write_strips(path: &Path, n: usize, pixel: f64, nodata: Option<&str>, sample: impl Fn(u64, u64) -> f32) {
    fn write<W: std::io::Write + std::io::Seek, K: tiff::encoder::TiffKind>(
        mut enc: tiff::encoder::TiffEncoder<W, K>,
        n: usize,
        pixel: f64,
        nodata: Option<&str>,
        sample: impl Fn(u64, u64) -> f32,
    ) {
        use tiff::tags::Tag;
        let mut img = enc.new_image::<tiff::encoder::colortype::Gray32Float>(n as u32, n as u32).unwrap();
        img.rows_per_strip(16).unwrap();
        img.encoder().write_tag(Tag::ModelPixelScaleTag, &[pixel, pixel, 0.0][..]).unwrap();
        img.encoder().write_tag(Tag::ModelTiepointTag, &[0.0, 0.0, 0.0, 0.0, pixel * n as f64, 0.0][..]).unwrap();
        if let Some(v) = nodata {
            img.encoder().write_tag(Tag::GdalNodata, v).unwrap();
        }
        let mut strip = Vec::with_capacity(16 * n);
        for r0 in (0..n).step_by(16) {
            strip.clear();
            for r in r0..(r0 + 16).min(n) {
                strip.extend((0..n).map(|i| sample(i as u64, r as u64)));
            }
            img.write_strip(&strip).unwrap();
        }
        img.finish().unwrap();
    }
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    if n * n * 4 > 4_000_000_000 {
        write(tiff::encoder::TiffEncoder::new_big(file).unwrap(), n, pixel, nodata, sample);
    } else {
        write(tiff::encoder::TiffEncoder::new(file).unwrap(), n, pixel, nodata, sample);
    }
}
