//! The raster in memory as every format reader returns it: samples flipped to row 0 south, with the
//! file's georeferencing.

use crate::IoError;
use std::path::Path;

/// World placement of a raster's samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeoRef {
    /// World (x, y) of the south-west sample (its centre, where the value stands).
    pub origin: (f64, f64),
    /// Distance between samples along x and y (both > 0).
    pub spacing: (f64, f64),
}

/// A grid of samples as read from a file, already flipped so that row 0 is the south row.
#[derive(Clone, Debug, PartialEq)]
pub struct Raster {
    /// Columns.
    pub nx: usize,
    /// Rows.
    pub ny: usize,
    /// `values[j·nx + i]`, row 0 south; NaN for nodata.
    pub values: Vec<f32>,
    /// Placement from the file, when it has one.
    pub georef: Option<GeoRef>,
    /// Remarks a user should see (approximations made while reading).
    pub notes: Vec<String>,
    /// The GeoTIFF coordinate reference system, when the file had one (copied into outputs).
    pub geokeys: Option<GeoKeys>,
}

/// A GeoTIFF's coordinate reference system as its three GeoKey tags hold it, kept verbatim so that
/// an output raster carries the input's CRS.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GeoKeys {
    /// GeoKeyDirectoryTag (34735).
    pub directory: Vec<u16>,
    /// GeoDoubleParamsTag (34736).
    pub doubles: Vec<f64>,
    /// GeoAsciiParamsTag (34737).
    pub ascii: String,
}

impl GeoKeys {
    /// The EPSG code of the projected (key 3072) or else geographic (key 2048) CRS, when the keys
    /// give one directly.
    ///
    /// ```
    /// use landfall_io::GeoKeys;
    /// // Version 1.1.0, 1 key: ProjectedCSTypeGeoKey = 32610 (UTM zone 10N).
    /// let keys = GeoKeys { directory: vec![1, 1, 0, 1, 3072, 0, 1, 32610], ..GeoKeys::default() };
    /// assert_eq!(keys.epsg(), Some(32610));
    /// ```
    pub fn epsg(&self) -> Option<u16> {
        self.key(3072).or_else(|| self.key(2048)).filter(|&c| c != 0 && c != 32767)
    }

    /// Whether two sets of keys name the same CRS: the same EPSG code and model type (files from
    /// different writers spell the same CRS with different keys: citations, units, raster type),
    /// or, without a code, the same keys.
    ///
    /// ```
    /// use landfall_io::GeoKeys;
    /// let gdal = GeoKeys { directory: vec![1, 1, 0, 2, 1024, 0, 1, 1, 3072, 0, 1, 32760], ..GeoKeys::default() };
    /// let other = GeoKeys { directory: vec![1, 1, 0, 3, 1024, 0, 1, 1, 3072, 0, 1, 32760, 3076, 0, 1, 9001], ..GeoKeys::default() };
    /// assert!(gdal.same_crs(&other));
    /// ```
    pub fn same_crs(&self, other: &GeoKeys) -> bool {
        match (self.epsg(), other.epsg()) {
            (Some(a), Some(b)) => a == b && self.is_geographic() == other.is_geographic(),
            _ => self == other,
        }
    }

    /// The value of key `id` when it is stored in the directory itself (location 0).
    fn key(&self, id: u16) -> Option<u16> {
        let entries = self.directory.get(4..)?;
        entries.chunks_exact(4).find(|e| e[0] == id && e[1] == 0).map(|e| e[3])
    }

    /// True when the keys describe a geographic CRS: GTModelTypeGeoKey (1024) = 2
    /// (ModelTypeGeographic), or no model type and no projected CRS but a geographic one (2048).
    /// Its angular unit is [`angular_unit`](Self::angular_unit).
    ///
    /// ```
    /// use landfall_io::GeoKeys;
    /// assert!(GeoKeys::wgs84().is_geographic());
    /// let utm = GeoKeys { directory: vec![1, 1, 0, 2, 1024, 0, 1, 1, 3072, 0, 1, 32610], ..GeoKeys::default() };
    /// assert!(!utm.is_geographic());
    /// ```
    pub fn is_geographic(&self) -> bool {
        match self.key(1024) {
            Some(m) => m == 2,
            None => self.key(3072).is_none() && self.key(2048).is_some(),
        }
    }

    /// The geographic CRS's angular unit (GeogAngularUnitsGeoKey, 2054): `Ok` for the degree (EPSG
    /// 9102, or 9122 "degree (supplier to define representation)", which the EPSG database gives
    /// EPSG:4326) or when the key is absent (the degree is the default), otherwise `Err` with the
    /// unit's code (radians 9101, grads 9105, …), which landfall does not read.
    ///
    /// ```
    /// use landfall_io::GeoKeys;
    /// assert_eq!(GeoKeys::wgs84().angular_unit(), Ok(()));
    /// let rad = GeoKeys { directory: vec![1, 1, 0, 2, 1024, 0, 1, 2, 2054, 0, 1, 9101], ..GeoKeys::default() };
    /// assert_eq!(rad.angular_unit(), Err(9101));
    /// ```
    pub fn angular_unit(&self) -> Result<(), u16> {
        match self.key(2054) {
            None | Some(9102) | Some(9122) => Ok(()),
            Some(u) => Err(u),
        }
    }

    /// The linear units given that are not the metre (EPSG 9001): ProjLinearUnitsGeoKey (3076, the
    /// horizontal axes of a projected CRS) and VerticalUnitsGeoKey (4099, the heights), each with
    /// its unit's EPSG code (9002 foot, 9003 US survey foot, …). landfall takes coordinates and
    /// heights as they are; this is for telling the user so.
    pub fn non_metre_units(&self) -> Vec<(&'static str, u16)> {
        [(3076, "horizontal"), (4099, "vertical")]
            .into_iter()
            .filter_map(|(id, what)| self.key(id).filter(|&u| u != 9001).map(|u| (what, u)))
            .collect()
    }

    /// The keys of WGS 84 in degrees (EPSG:4326): what a NumPy archive with `latitude` and
    /// `longitude` arrays is taken to be, and carried into outputs.
    pub fn wgs84() -> Self {
        // Version 1.1.0, 3 keys: model type geographic, PixelIsArea, GeographicTypeGeoKey 4326.
        GeoKeys { directory: vec![1, 1, 0, 3, 1024, 0, 1, 2, 1025, 0, 1, 1, 2048, 0, 1, 4326], ..GeoKeys::default() }
    }

    /// Whether the raster type key (1025) says PixelIsPoint.
    pub fn is_pixel_is_point(&self) -> bool {
        self.directory.get(4..).is_some_and(|k| k.chunks_exact(4).any(|e| e[0] == 1025 && e[1] == 0 && e[3] == 2))
    }
}

impl Raster {
    /// Reverses the row order (file order north-first → south-first).
    pub(crate) fn flip_rows(&mut self) {
        let nx = self.nx;
        for j in 0..self.ny / 2 {
            let (a, b) = self.values.split_at_mut((self.ny - 1 - j) * nx);
            a[j * nx..(j + 1) * nx].swap_with_slice(&mut b[..nx]);
        }
    }
}

/// Which samples are holes: NaN, and the nodata value as f64 or once rounded to f32. A nodata
/// value within a hundred-thousandth of ±`f32::MAX` (as "-3.40282e+38", GDAL's float32 nodata
/// written to six digits) stands for every sample that near it, as in GDAL, whose float
/// comparison takes such samples as equal.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Nodata {
    n: f64,
    nf: f32,
    /// The samples in `lo..=hi` are holes too (an empty range unless near ±`f32::MAX`).
    lo: f32,
    hi: f32,
}

impl Nodata {
    pub(crate) fn new(nodata: Option<f64>) -> Self {
        // Without nodata, NaN compares unequal to every sample.
        let n = nodata.unwrap_or(f64::NAN);
        let near = f32::MAX * (1.0 - 1e-5);
        let (lo, hi) = match n {
            n if n <= -near as f64 => (-f32::MAX, -near),
            n if n >= near as f64 => (near, f32::MAX),
            _ => (f32::INFINITY, f32::NEG_INFINITY),
        };
        Self { n, nf: n as f32, lo, hi }
    }

    /// Whether the sample `v` (as read, in f64) is a hole; branch-free.
    #[inline]
    pub(crate) fn is_hole(&self, v: f64) -> bool {
        let f = v as f32;
        v.is_nan() | (v == self.n) | (f == self.nf) | ((f >= self.lo) & (f <= self.hi))
    }
}

/// Samples read as f64 (a row, or a whole array) → heights in `out` (the same length): NaN and the
/// nodata value ([`Nodata`]) become holes (NaN); a value that is infinite as an f32 is an error
/// naming the sample with `name(index)`.
pub(crate) fn to_height_row(
    path: &Path,
    row: &[f64],
    out: &mut [f32],
    nodata: &Nodata,
    name: impl Fn(usize) -> String,
) -> Result<(), IoError> {
    let mut infinite = false;
    for (h, &v) in out.iter_mut().zip(row) {
        let (f, hole) = (v as f32, nodata.is_hole(v));
        infinite |= f.is_infinite() & !hole;
        *h = if hole { f32::NAN } else { f };
    }
    if infinite {
        // The rare case: find the first again, with its message.
        for (k, &v) in row.iter().enumerate() {
            to_height(path, v, nodata, || name(k))?;
        }
    }
    Ok(())
}

/// One sample read as f64 → its height, as [`to_height_row`] converts each.
pub(crate) fn to_height(path: &Path, v: f64, nodata: &Nodata, name: impl FnOnce() -> String) -> Result<f32, IoError> {
    let f = v as f32;
    if nodata.is_hole(v) {
        Ok(f32::NAN)
    } else if f.is_infinite() {
        Err(IoError::field(path, name(), format!("{} is not a finite height", landfall::support::Num(v))))
    } else {
        Ok(f)
    }
}
