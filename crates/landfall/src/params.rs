//! The error every parameter struct's `validate` returns: which field, and why.

/// A parameter out of its valid range: the field's name and what it must be.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {why}")]
#[non_exhaustive]
pub struct ParamError {
    /// The field, as the struct names it.
    pub field: &'static str,
    /// What is wrong, with the value given.
    pub why: String,
}

impl ParamError {
    /// An error for `field`.
    pub fn new(field: &'static str, why: impl Into<String>) -> Self {
        Self { field, why: why.into() }
    }
}

/// A number as messages print it: plain between 1e-5 and 1e16 (as `{}` prints it), in exponent
/// form beyond (`1e300`, not 301 digits).
///
/// ```
/// use landfall::support::Num;
/// assert_eq!(Num(2.5).to_string(), "2.5");
/// assert_eq!(Num(1e300).to_string(), "1e300");
/// assert_eq!(Num(-3e-300).to_string(), "-3e-300");
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Num(pub f64);

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let a = self.0.abs();
        if a == 0.0 || !a.is_finite() || (1e-5..1e16).contains(&a) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{:e}", self.0)
        }
    }
}

/// A number to `.1` decimal places, as reports print coordinates: trailing zeros and a negative
/// zero's sign dropped (rounding noise prints as 0), in exponent form (six digits) where plain
/// digits would run to 17 or more before the point.
///
/// ```
/// use landfall::support::Fixed;
/// assert_eq!(Fixed(2.50, 3).to_string(), "2.5");
/// assert_eq!(Fixed(-0.0001, 2).to_string(), "0");
/// assert_eq!(Fixed(1e300, 0).to_string(), "1e300");
/// assert_eq!(Fixed(2.0 / 3.0 * 1e20, 0).to_string(), "6.66667e19");
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fixed(pub f64, pub usize);

impl std::fmt::Display for Fixed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (v, places) = (self.0, self.1.min(300));
        let trim = |s: &str| -> String {
            let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { s };
            if s == "-0" {
                "0".into()
            } else {
                s.into()
            }
        };
        let a = v.abs();
        if a.is_finite() && a >= 1e16 {
            let s = format!("{v:.5e}");
            let (m, e) = s.split_at(s.find('e').unwrap_or(s.len()));
            return write!(f, "{}{e}", trim(m));
        }
        f.write_str(&trim(&format!("{v:.places$}")))
    }
}

/// `v` finite and ≥ 0 (and > 0 when `positive`).
pub(crate) fn length(field: &'static str, v: f64, positive: bool) -> Result<(), ParamError> {
    if v.is_finite() && v >= 0.0 && !(positive && v == 0.0) {
        return Ok(());
    }
    Err(ParamError::new(field, format!("{} is not a finite length {}", Num(v), if positive { "> 0" } else { "≥ 0" })))
}

/// `v` an angle in [0, π/2] radians.
pub(crate) fn right_angle(field: &'static str, v: f64) -> Result<(), ParamError> {
    if (0.0..=std::f64::consts::FRAC_PI_2).contains(&v) {
        return Ok(());
    }
    Err(ParamError::new(field, format!("{} is not an angle in [0, π/2] radians", Num(v))))
}

/// `v` a fraction in [0, 1].
pub(crate) fn fraction(field: &'static str, v: f64) -> Result<(), ParamError> {
    if (0.0..=1.0).contains(&v) {
        return Ok(());
    }
    Err(ParamError::new(field, format!("{} is not a fraction in [0, 1]", Num(v))))
}

/// `v` a count in `range`.
pub(crate) fn count(field: &'static str, v: usize, range: std::ops::RangeInclusive<usize>) -> Result<(), ParamError> {
    if range.contains(&v) {
        return Ok(());
    }
    Err(ParamError::new(field, format!("{v} (expected {} to {})", range.start(), range.end())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_and_angles() {
        assert!(length("a", 0.0, false).is_ok());
        assert_eq!(length("a", 0.0, true).unwrap_err().to_string(), "a: 0 is not a finite length > 0");
        for bad in [f64::NAN, f64::INFINITY, -1.0] {
            assert!(length("a", bad, false).is_err());
            assert!(right_angle("b", bad).is_err());
        }
        assert!(right_angle("b", std::f64::consts::FRAC_PI_2).is_ok());
        assert!(right_angle("b", 1.6).is_err());
        assert!(fraction("c", 0.0).is_ok() && fraction("c", 1.0).is_ok());
        for bad in [f64::NAN, f64::INFINITY, -0.1, 1.1] {
            assert!(fraction("c", bad).is_err());
        }
        assert!(count("d", 1, 1..=8).is_ok());
        assert_eq!(count("d", 9, 1..=8).unwrap_err().to_string(), "d: 9 (expected 1 to 8)");
        assert!(count("d", 0, 1..=8).is_err());
    }
}
