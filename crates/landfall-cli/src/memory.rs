//! The process's memory as the kernel counts it (Linux `/proc/self/status`; `None` elsewhere).

/// A field of `/proc/self/status` in bytes (`VmRSS`, `VmHWM`).
fn status(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Resident memory now, bytes.
pub fn resident() -> Option<u64> {
    status("VmRSS:")
}

/// Resident memory of file maps now (an index file's pages, the program's own code), bytes.
pub fn resident_file() -> Option<u64> {
    status("RssFile:")
}

/// Peak resident memory so far, bytes.
pub fn peak() -> Option<u64> {
    status("VmHWM:")
}
