//! `landfall serve` under a flood, as a stranger would send it: hundreds of concurrent viewsheds
//! (half of them abandoned at once), hundreds of half-sent requests, more connections than the
//! server takes. Throughout, height queries are answered within 100 ms; the heavy requests beyond
//! the queue get 503 with Retry-After; abandoned work does not run; half-sent requests are closed
//! after the header timeout; Ctrl-C stops the server even with connections open.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A smooth 1025² raster (a viewshed on it takes a good fraction of a second).
fn raster(path: &Path) {
    let n = 1025;
    common::npy_raster(path, n, |i, j| {
        let (x, y) = (i as f32 * 20.0 / n as f32, j as f32 * 26.0 / n as f32);
        x.sin() * y.cos() * 50.0 + x * 3.0
    });
}

struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_landfall"))
            .arg("serve")
            .args(args)
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let addr = line.split("http://").nth(1).unwrap().split('/').next().unwrap().to_string();
        Self { child, addr }
    }

    /// CPU time the server has used so far (user + system), from /proc.
    fn cpu(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        let fields: Vec<&str> = stat.rsplit(')').next().unwrap().split_whitespace().collect();
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        Duration::from_millis(ticks * 10)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// GET `path` on a new connection: (status, head, time taken).
fn get(addr: &str, path: &str) -> std::io::Result<(u16, String, Duration)> {
    let start = Instant::now();
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(120)))?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    let head = String::from_utf8_lossy(&raw[..raw.len().min(512)]).to_string();
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    Ok((status, head, start.elapsed()))
}

#[test]
fn the_server_answers_heights_while_flooded() {
    if !Path::new("/proc/self/stat").exists() {
        eprintln!("skipped: the flood test reads the server's CPU time from /proc (Linux only)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let dem = dir.path().join("big.npy");
    raster(&dem);
    let server = Server::start(&[
        dem.to_str().unwrap(),
        "--jobs",
        "1",
        "--queue",
        "4",
        "--timeout",
        "2",
        "--max-connections",
        "400",
    ]);
    let addr = server.addr.clone();
    let (status, _, _) = get(&addr, "/api/height?x=500&y=500").unwrap();
    assert_eq!(status, 200);

    // 300 half-sent requests; with the flood, more than the server's 400 connections (the
    // longest idle are closed to make room).
    let mut half_open = Vec::new();
    for _ in 0..300 {
        if let Ok(mut s) = TcpStream::connect(&addr) {
            let _ = s.write_all(b"GET /api/height?x=1&y=1 HTTP/1.1\r\nHost: x\r\n");
            half_open.push(s);
        }
    }
    let half_sent_at = Instant::now();

    // 300 concurrent viewsheds; every other client leaves as soon as it has asked.
    let flood: Vec<_> = (0..300)
        .map(|k| {
            let addr = addr.clone();
            std::thread::spawn(move || -> Option<(u16, bool)> {
                let path = format!("/api/viewshed?x={}&y=500&h=2", 400 + k);
                if k % 2 == 0 {
                    let mut s = TcpStream::connect(&addr).ok()?;
                    let _ = write!(s, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n");
                    return None; // dropped: the connection closes
                }
                let (status, head, _) = get(&addr, &path).ok()?;
                Some((status, head.to_ascii_lowercase().contains("retry-after: 1")))
            })
        })
        .collect();

    // Height queries throughout, each on a new connection.
    let mut latencies = Vec::new();
    let probing = Instant::now();
    while probing.elapsed() < Duration::from_secs(4) {
        let (status, _, took) = get(&addr, "/api/height?x=500&y=500").expect("a height query is answered");
        assert_eq!(status, 200, "a height query during the flood");
        latencies.push(took);
        std::thread::sleep(Duration::from_millis(20));
    }
    let answers: Vec<(u16, bool)> = flood.into_iter().filter_map(|h| h.join().unwrap()).collect();
    latencies.sort();
    let pick = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    eprintln!(
        "{} height queries during the flood: median {:?}, 95th percentile {:?}, slowest {:?}",
        latencies.len(),
        pick(0.5),
        pick(0.95),
        pick(1.0)
    );
    assert!(latencies.len() >= 50, "too few height queries answered: {}", latencies.len());
    assert!(pick(0.95) < Duration::from_millis(100), "95th percentile {:?}", pick(0.95));
    assert!(pick(1.0) < Duration::from_secs(1), "slowest {:?}", pick(1.0));

    // The heavy requests beyond the queue were refused at once, with Retry-After; some were done
    // (a flood client may also find its connection closed to make room: status 0 here).
    let done = answers.iter().filter(|a| a.0 == 200).count();
    let busy = answers.iter().filter(|a| a.0 == 503).count();
    assert!(answers.iter().all(|a| a.0 == 200 || a.0 == 0 || (a.0 == 503 && a.1)), "{answers:?}");
    assert!(done >= 1 && busy >= 100, "{done} viewsheds done, {busy} refused");

    // The half-sent requests were closed by the header timeout (2 s) or to make room.
    for mut s in half_open {
        s.set_read_timeout(Some(
            Duration::from_secs(5).saturating_sub(half_sent_at.elapsed()).max(Duration::from_millis(1)),
        ))
        .unwrap();
        // Closed: the read ends (an answer such as a 408, or nothing); open: it times out.
        match s.read_to_end(&mut Vec::new()) {
            Ok(_) => {}
            Err(e) => assert!(
                !matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut),
                "a half-sent request still open after {:?}",
                half_sent_at.elapsed()
            ),
        }
    }

    // Every client that waited has its answer; the abandoned viewsheds do not run: the server idles.
    std::thread::sleep(Duration::from_millis(500));
    let before = server.cpu();
    std::thread::sleep(Duration::from_secs(2));
    let used = server.cpu() - before;
    assert!(used < Duration::from_millis(400), "the server used {used:?} of CPU in 2 s with no client left");

    // Still up: a viewshed is answered.
    assert_eq!(get(&addr, "/api/viewshed?x=500&y=500").unwrap().0, 200);
    // This raster is in metres: an observer at lon, lat is refused.
    let (status, body, _) = get(&addr, "/api/viewshed?lon=1&lat=1").unwrap();
    assert!(status == 400 && body.contains("not in degrees"), "{status} {body}");
}

#[test]
fn ctrl_c_stops_the_server_with_connections_open() {
    let dir = tempfile::tempdir().unwrap();
    let dem = dir.path().join("small.npz");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/topobathy.npz"), &dem).unwrap();
    let mut server = Server::start(&[dem.to_str().unwrap(), "--timeout", "60"]);
    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.write_all(b"GET /api/height?x=1&y=1 HTTP/1.1\r\n").unwrap();
    let kill = |sig: &str, pid: u32| Command::new("kill").args([sig, &pid.to_string()]).status().unwrap();
    let start = Instant::now();
    assert!(kill("-INT", server.child.id()).success());
    loop {
        if server.child.try_wait().unwrap().is_some() {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(3), "still running 3 s after Ctrl-C");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An index replaced in place (`cp small.lfh big.lfh`) under the server: the next answer is a 500
/// naming the file and saying its answers are void, not a death by SIGBUS; the server stays up.
#[cfg(target_os = "linux")]
#[test]
fn an_index_replaced_in_place_under_the_server_is_an_error_not_sigbus() {
    let d = tempfile::tempdir().unwrap();
    let (big_lfh, small_lfh) = common::big_and_small_index(d.path());
    let mut server = Server::start(&[common::s(&big_lfh)]);
    let (status, head, _) = get(&server.addr, "/api/height?x=100&y=100").unwrap();
    assert_eq!(status, 200, "{head}");
    std::fs::write(&big_lfh, std::fs::read(&small_lfh).unwrap()).unwrap(); // cp small.lfh big.lfh
    let (status, head, _) = get(&server.addr, "/api/height?x=650&y=650").unwrap();
    assert!(status == 500 && head.contains("big.lfh") && head.contains("void"), "{status} {head}");
    assert!(server.child.try_wait().unwrap().is_none(), "the server died");
}
