use std::path::{Path, PathBuf};

/// Why a file could not be read or written. Every variant names the file. Each message is whole:
/// it includes the underlying error's, so no variant also returns it as its `source()` (an error
/// reporter that walks the chain, like `anyhow`'s `{:#}`, would print it twice).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IoError {
    /// The operating system refused (missing file, permissions, …).
    #[error("{}: {error}", path.display())]
    Os {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// A problem at a known line of a text file (1-based).
    #[error("{}: line {line}: {msg}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        msg: String,
    },
    /// A problem with a named field, header key, tag or array.
    #[error("{}: {field}: {msg}", path.display())]
    Field {
        /// The file.
        path: PathBuf,
        /// The field, key, tag or array name.
        field: String,
        /// What is wrong.
        msg: String,
    },
    /// The file's format is not supported or not recognised.
    #[error("{}: {msg}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        msg: String,
    },
    /// The raster is valid but does not make a heightfield (e.g. too small).
    #[error("{}: {error}", path.display())]
    Heightfield {
        /// The file.
        path: PathBuf,
        /// The heightfield's complaint.
        error: landfall::HeightfieldError,
    },
}

impl IoError {
    pub(crate) fn os(path: &Path, error: std::io::Error) -> Self {
        IoError::Os { path: path.to_owned(), error }
    }
    pub(crate) fn line(path: &Path, line: usize, msg: impl Into<String>) -> Self {
        IoError::Line { path: path.to_owned(), line, msg: msg.into() }
    }
    /// An error in `field`; without a field name (a plain `.npy`'s own data), an error of the file.
    pub(crate) fn field(path: &Path, field: impl Into<String>, msg: impl Into<String>) -> Self {
        let field: String = field.into();
        if field.trim().is_empty() {
            return IoError::Format { path: path.to_owned(), msg: msg.into() };
        }
        IoError::Field { path: path.to_owned(), field, msg: msg.into() }
    }
    pub(crate) fn format(path: &Path, msg: impl Into<String>) -> Self {
        IoError::Format { path: path.to_owned(), msg: msg.into() }
    }
}

/// At most 40 characters of `s` from a file, for an error message: control characters escaped (a
/// terminal shows them as text), the rest cut off with an ellipsis.
///
/// ```
/// assert_eq!(landfall_io::quote("abc\u{1b}[2J"), "abc\\u{1b}[2J");
/// assert_eq!(landfall_io::quote(&"9".repeat(100)).chars().count(), 41);
/// ```
pub fn quote(s: &str) -> String {
    quote_n(s, 40)
}

/// [`quote`] with room for `n` characters.
pub(crate) fn quote_n(s: &str, n: usize) -> String {
    let mut out = String::new();
    for (k, c) in s.chars().enumerate() {
        if k == n {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}
