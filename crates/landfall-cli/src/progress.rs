//! Progress of long work. On a terminal: a bar (or a spinner with the time spent) on standard
//! error while a step runs, cleared when it ends. Elsewhere (a log, a pipe): nothing while it runs,
//! then one line per step that took longer than two seconds.

use indicatif::{ProgressBar, ProgressStyle};
use std::fmt::Display;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Steps shorter than this print no line when standard error is not a terminal
/// (`LANDFALL_PROGRESS_AFTER`, in seconds, changes it; tests set 0).
fn quiet_below() -> Duration {
    std::env::var("LANDFALL_PROGRESS_AFTER")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map_or(Duration::from_secs(2), Duration::from_secs_f64)
}

/// One step of long work, shown while it runs.
pub struct Step {
    bar: ProgressBar,
    name: String,
    start: Instant,
}

impl Step {
    /// A step of `len` units, drawn with `template` (indicatif's: `{pos}`, `{len}`, `{wide_bar}`,
    /// `{msg}`, …) after its name.
    pub fn bar(name: &str, len: u64, template: &str) -> Self {
        let style = ProgressStyle::with_template(&format!("{{spinner}} {name}: {template} {{elapsed}}"))
            .expect("valid template");
        Self::with(ProgressBar::new(len).with_style(style), name)
    }

    /// A step of unknown length: a spinner with its name and the time spent.
    pub fn spinner(name: &str) -> Self {
        let style = ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("valid template");
        let bar = ProgressBar::new_spinner().with_style(style).with_message(format!("{name}…"));
        bar.enable_steady_tick(Duration::from_millis(120));
        Self::with(bar, name)
    }

    fn with(bar: ProgressBar, name: &str) -> Self {
        Self { bar, name: name.to_string(), start: Instant::now() }
    }

    /// Advances by `n` units.
    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
    }

    /// Sets the units done.
    pub fn set_position(&self, n: u64) {
        self.bar.set_position(n);
    }

    /// Sets the units in all.
    pub fn set_length(&self, n: u64) {
        self.bar.set_length(n);
    }

    /// Ends the step: clears its bar; off a terminal, prints `name: what (seconds)` when it was
    /// long. (A step dropped without `done`, on an error, just clears its bar.)
    pub fn done(self, what: impl Display) {
        self.bar.finish_and_clear();
        let took = self.start.elapsed();
        if !std::io::stderr().is_terminal() && took >= quiet_below() {
            eprintln!("landfall: {}: {what} ({:.1} s)", self.name, took.as_secs_f64());
        }
    }
}

impl Drop for Step {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
