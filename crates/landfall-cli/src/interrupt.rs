//! Ctrl-C as a request to stop: long library calls take a cancel flag, and the first Ctrl-C sets
//! it; a second one ends the program at once, as usual.

use std::sync::atomic::{AtomicBool, Ordering};

/// The flag the handler sets.
static STOP: AtomicBool = AtomicBool::new(false);

/// While alive, Ctrl-C sets the flag instead of ending the program (once).
pub struct Stop {
    previous: libc::sighandler_t,
}

extern "C" fn on_sigint(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
    // SAFETY: `signal` is async-signal-safe; the next Ctrl-C takes the default action.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}

impl Stop {
    /// Installs the handler until the returned guard is dropped.
    pub fn on_ctrl_c() -> Self {
        STOP.store(false, Ordering::SeqCst);
        // SAFETY: the handler only stores to an atomic and resets the disposition.
        let previous =
            unsafe { libc::signal(libc::SIGINT, on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t) };
        Self { previous }
    }

    /// The cancel flag for the library's hooks.
    pub fn flag(&self) -> &'static AtomicBool {
        &STOP
    }
}

impl Drop for Stop {
    fn drop(&mut self) {
        // SAFETY: restores the disposition found at install.
        unsafe {
            libc::signal(libc::SIGINT, self.previous);
        }
    }
}
