//! Long work run with the GIL released and stopped by Ctrl-C (KeyboardInterrupt) or any other
//! pending signal: viewsheds, batches of paths.

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Runs `f` with the GIL released, on its own thread, checking for Ctrl-C (and any other pending
/// signal) every 50 ms; a signal sets the cancel flag, and once `f` has stopped the signal's
/// exception (KeyboardInterrupt for Ctrl-C) is raised.
pub fn interruptible<T: Send>(py: Python<'_>, f: impl FnOnce(&AtomicBool) -> T + Send) -> PyResult<T> {
    let cancel = AtomicBool::new(false);
    let (out, signal) = py.detach(|| {
        std::thread::scope(|s| {
            let worker = s.spawn(|| f(&cancel));
            let mut signal = None;
            while !worker.is_finished() {
                std::thread::sleep(Duration::from_millis(50));
                if signal.is_none() {
                    if let Err(e) = Python::attach(|py| py.check_signals()) {
                        cancel.store(true, Ordering::Relaxed);
                        signal = Some(e);
                    }
                }
            }
            (worker.join(), signal)
        })
    });
    if let Some(e) = signal {
        return Err(e);
    }
    out.map_err(|_| PyKeyboardInterrupt::new_err("the computation stopped abnormally"))
}
