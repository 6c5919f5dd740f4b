//! The limit on open files.

/// The process's limit on open files, raised to its hard limit: a mosaic keeps each of its tiles
/// open, a server each connection (the usual soft limit of 1,024 stops both early).
pub(crate) fn limit() -> usize {
    #[cfg(unix)]
    {
        let mut l = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit and setrlimit only read and write the struct passed.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) != 0 {
                return 1024;
            }
            if l.rlim_cur < l.rlim_max {
                let raised = libc::rlimit { rlim_cur: l.rlim_max, rlim_max: l.rlim_max };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                    l = raised;
                }
            }
        }
        usize::try_from(l.rlim_cur).unwrap_or(usize::MAX)
    }
    #[cfg(not(unix))]
    {
        usize::MAX
    }
}
