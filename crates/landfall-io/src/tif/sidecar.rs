//! Placement from files beside a TIFF that has none inside, as GDAL reads them: its PAM file
//! (`NAME.tif.aux.xml`: `<GeoTransform>`, the CRS's EPSG code from `<SRS>`, the band's
//! `<NoDataValue>`), else a world file (`NAME.tfw`, `NAME.tifw` or `NAME.wld`: six lines, the pixel
//! size, two rotation terms and the centre of the north-west pixel). Rotated placements are refused.
//! Each file is read only up to 64 KiB.

use crate::raster::{GeoKeys, GeoRef};
use crate::IoError;
use std::io::Read;
use std::path::{Path, PathBuf};

/// What a sidecar gave, and the file it came from.
pub(crate) struct Sidecar {
    pub georef: GeoRef,
    pub geokeys: Option<GeoKeys>,
    pub nodata: Option<f64>,
    pub from: PathBuf,
}

/// The largest sidecar read, bytes.
const MAX_BYTES: u64 = 64 << 10;

/// The placement beside `path` (a raster of `ny` rows), if a sidecar gives one.
pub(crate) fn read(path: &Path, ny: usize) -> Result<Option<Sidecar>, IoError> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let pam = path.with_file_name(format!("{name}.aux.xml"));
    if let Some(text) = small_text(&pam)? {
        if let Some(s) = from_pam(&pam, &text, ny)? {
            return Ok(Some(s));
        }
    }
    for ext in ["tfw", "tifw", "wld", "TFW"] {
        let world = path.with_extension(ext);
        if let Some(text) = small_text(&world)? {
            let v = numbers(&world, text.split_whitespace(), 6)?;
            // A, D, B, E, C, F: x size, two rotations, y size (negative), the north-west centre.
            let gt = [v[4] - 0.5 * v[0], v[0], v[2], v[5] - 0.5 * v[3], v[1], v[3]];
            let georef = placement(&world, gt, ny)?;
            return Ok(Some(Sidecar { georef, geokeys: None, nodata: None, from: world }));
        }
    }
    Ok(None)
}

/// A sidecar's text, when the file exists (at most [`MAX_BYTES`]).
fn small_text(path: &Path) -> Result<Option<String>, IoError> {
    let Ok(f) = std::fs::File::open(path) else { return Ok(None) };
    if !f.metadata().is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    let mut text = String::new();
    f.take(MAX_BYTES).read_to_string(&mut text).map_err(|e| IoError::format(path, format!("not text: {e}")))?;
    Ok(Some(text))
}

/// `n` numbers from `words`, or an error naming the file.
fn numbers<'a>(path: &Path, words: impl Iterator<Item = &'a str>, n: usize) -> Result<Vec<f64>, IoError> {
    let v: Vec<f64> = words
        .take(n)
        .map(|w| w.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| IoError::format(path, format!("expected {n} numbers (a GDAL geotransform or world file)")))?;
    if v.len() < n || v.iter().any(|x| !x.is_finite()) {
        return Err(IoError::format(path, format!("expected {n} finite numbers (a GDAL geotransform or world file)")));
    }
    Ok(v)
}

/// GDAL's geotransform (x of the west edge, pixel width, row rotation, y of the north edge, column
/// rotation, pixel height < 0) → the south-west sample's centre and the spacing.
fn placement(path: &Path, gt: [f64; 6], ny: usize) -> Result<GeoRef, IoError> {
    if gt[2] != 0.0 || gt[4] != 0.0 {
        return Err(IoError::format(path, "rotated rasters are not supported (gdalwarp makes them north-up)"));
    }
    if !(gt[1] > 0.0 && gt[5] < 0.0) {
        return Err(IoError::format(path, "pixel size must be > 0 east and < 0 north (north-up rasters only)"));
    }
    let origin = (gt[0] + 0.5 * gt[1], gt[3] + (ny as f64 - 0.5) * gt[5]);
    Ok(GeoRef { origin, spacing: (gt[1], -gt[5]) })
}

/// The text of the first `<tag ...>…</tag>` element.
fn element<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let start = text.find(&format!("<{tag}"))?;
    let body = start + text[start..].find('>')? + 1;
    let end = body + text[body..].find(&format!("</{tag}>"))?;
    Some(&text[body..end])
}

/// A PAM file's placement, CRS (by its EPSG code) and nodata; `None` without a `<GeoTransform>`.
fn from_pam(path: &Path, text: &str, ny: usize) -> Result<Option<Sidecar>, IoError> {
    let Some(gt) = element(text, "GeoTransform") else { return Ok(None) };
    let v = numbers(path, gt.split(','), 6)?;
    let georef = placement(path, [v[0], v[1], v[2], v[3], v[4], v[5]], ny)?;
    let geokeys = element(text, "SRS").and_then(|wkt| {
        // The CRS's own code is its last AUTHORITY (WKT1) or ID (WKT2).
        let code = ["AUTHORITY[\"EPSG\",", "ID[\"EPSG\","]
            .iter()
            .filter_map(|k| wkt.rfind(k).map(|at| &wkt[at + k.len()..]))
            .filter_map(|rest| rest.trim_start_matches('"').split(['"', ']']).next()?.parse::<u16>().ok())
            .next()?;
        let geographic = wkt.trim_start().starts_with("GEOG");
        let (model, key) = if geographic { (2, 2048) } else { (1, 3072) };
        Some(GeoKeys { directory: vec![1, 1, 0, 2, 1024, 0, 1, model, key, 0, 1, code], ..GeoKeys::default() })
    });
    let nodata = element(text, "NoDataValue").and_then(|v| v.trim().parse().ok());
    Ok(Some(Sidecar { georef, geokeys, nodata, from: path.to_owned() }))
}
