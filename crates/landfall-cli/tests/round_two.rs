//! Hostile input, round two (issue 70): each case as a user met it — a clear error or a bounded
//! run (never a hang, a panic or a signal), and the user's files intact.

use crate::common;

use common::{gltf, landfall, ok, refused, s};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `landfall` with `args`, failing the test if it takes longer than `limit`.
fn bounded(args: &[&str], limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_landfall"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("landfall {args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn terrain(dir: &Path) -> PathBuf {
    let p = dir.join("t.asc");
    std::fs::write(&p, "ncols 3\nnrows 3\nxllcenter 0\nyllcenter 0\ncellsize 1\n1 2 3\n4 5 6\n7 8 9\n").unwrap();
    p
}

#[test]
fn a_row_with_more_fields_than_its_header_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let rays = d.path().join("r.csv");
    // A 7th field (meant as max_t) without a max_t column: once dropped, the ray hit at t = 3001.
    std::fs::write(&rays, "ox,oy,oz,dx,dy,dz\n1,1,3000,0,0,-1,5\n").unwrap();
    let out = d.path().join("o.csv");
    let e = refused(&["raycast", s(&t), "--rays", s(&rays), "--out", s(&out)]);
    assert!(e.contains("line 2") && e.contains("7 fields") && e.contains("6 columns"), "{e}");
    assert!(!out.exists());
    std::fs::write(&rays, "ox,oy,oz,dx,dy,dz,max_t\n1,1,3000,0,0,-1,5\n").unwrap();
    ok(&["raycast", s(&t), "--rays", s(&rays), "--out", s(&out)]);
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().nth(1).unwrap(), "0,,,,,,,");
}

#[test]
fn a_model_reads_only_its_own_folder() {
    let d = tempfile::tempdir().unwrap();
    let models = d.path().join("models");
    std::fs::create_dir(&models).unwrap();
    // A secret beside the folder, 36 bytes like the buffer.
    let secret = d.path().join("secret.bin");
    std::fs::copy(gltf(d.path(), "", "", "tri.bin").with_file_name("tri.bin"), &secret).unwrap();
    let out = d.path().join("o.glb");
    for uri in
        [secret.to_str().unwrap(), "../secret.bin", "..%2Fsecret.bin", "file:///etc/passwd", "sub/../../secret.bin"]
    {
        let m = gltf(&models, "", "", uri);
        let e = refused(&["mesh", s(&m), "-o", s(&out)]);
        assert!(e.contains("buffers[0]") && e.contains("model's folder"), "{uri}: {e}");
        // The server opens it the same way: it refuses to start.
        let o = bounded(&["serve", s(&m), "--port", "0"], Duration::from_secs(20));
        assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&secret, models.join("link.bin")).unwrap();
        let m = gltf(&models, "", "", "link.bin");
        assert!(refused(&["mesh", s(&m), "-o", s(&out)]).contains("outside the model's folder"));
    }
    let m = gltf(&models, "", "", "tri.bin");
    ok(&["mesh", s(&m), "-o", s(&out)]);
    // The model's buffer is one of its inputs: no output may replace it.
    let buffer = models.join("tri.bin");
    let before = std::fs::read(&buffer).unwrap();
    let e = refused(&["build", s(&m), "-o", s(&buffer)]);
    assert!(e.contains("is also an input"), "{e}");
    let pts = d.path().join("p.csv");
    std::fs::write(&pts, "x,y\n0.1,0.1\n").unwrap();
    refused(&["height", s(&m), "--points", s(&pts), "--out", s(&buffer)]);
    assert_eq!(std::fs::read(&buffer).unwrap(), before);
}

#[test]
fn several_outputs_are_committed_together_or_not_at_all() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let vis = d.path().join("vis.tif");
    std::fs::write(&vis, "old").unwrap();
    // The picture's folder is missing: nothing is written, the old GeoTIFF stays.
    let missing = d.path().join("missing/dir.png");
    let e = refused(&["viewshed", s(&t), "--observer", "1,1", "--out", s(&vis), "--png", s(&missing)]);
    assert!(e.contains("dir.png"), "{e}");
    assert_eq!(std::fs::read_to_string(&vis).unwrap(), "old");
    // Two names for one file (the picture's named .png, through a link to the GeoTIFF).
    let same = d.path().join("same.png");
    std::os::unix::fs::symlink(&vis, &same).unwrap();
    let e = refused(&["viewshed", s(&t), "--observer", "1,1", "--out", s(&vis), "--png", s(&same)]);
    assert!(e.contains("name the same file"), "{e}");
    assert_eq!(std::fs::read_to_string(&vis).unwrap(), "old");
    let png = d.path().join("vis.png");
    ok(&["viewshed", s(&t), "--observer", "1,1", "--out", s(&vis), "--png", s(&png)]);
    assert!(std::fs::read(&vis).unwrap().starts_with(b"II") && png.exists());

    let balls = d.path().join("b.csv");
    std::fs::write(&balls, "x,v,r,m\n0,1,0.1,1\n").unwrap();
    let ev = d.path().join("ev.csv");
    let e = refused(&[
        "events",
        "line",
        "--balls",
        s(&balls),
        "--walls",
        "-1,1",
        "--until",
        "3",
        "--out",
        s(&ev),
        "--final",
        s(&d.path().join(".").join("ev.csv")),
    ]);
    assert!(e.contains("--final and --out name the same file"), "{e}");
    assert!(!ev.exists());
    let e = refused(&[
        "events",
        "line",
        "--balls",
        s(&balls),
        "--walls",
        "-1,1",
        "--until",
        "3",
        "--out",
        s(&ev),
        "--final",
        s(&missing),
    ]);
    assert!(e.contains("dir.png"), "{e}");
    assert!(!ev.exists());
}

/// Runs `events line` on `balls` (CSV text) and returns (stdout, stderr, events file rows).
fn line(balls: &str, walls: &str, until: &str, extra: &[&str]) -> (String, String, Vec<String>) {
    let d = tempfile::tempdir().unwrap();
    let (b, out, fin) = (d.path().join("b.csv"), d.path().join("e.csv"), d.path().join("f.csv"));
    std::fs::write(&b, balls).unwrap();
    let mut args = vec!["events", "line", "--balls", s(&b), "--walls", walls, "--until", until];
    args.extend(["--out", s(&out), "--final", s(&fin)]);
    args.extend(extra);
    let o = bounded(&args, Duration::from_secs(60));
    let (so, se) = (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned());
    assert!(o.status.success(), "{so}{se}");
    let rows = std::fs::read_to_string(&out).unwrap().lines().map(str::to_string).collect();
    (so, se, rows)
}

#[test]
fn events_on_a_line_always_end() {
    // A ball touching both walls: joined to a wall after a burst at t = 0, even with --until 0.
    for until in ["0", "5"] {
        let (so, _, rows) = line("x,v,r,m\n0,1,1,1\n", "-1,1", until, &[]);
        assert!(so.contains("1 put in resting contact"), "{so}");
        assert!(rows.len() < 20 && rows[1..].iter().all(|r| r.starts_with("0,")), "{rows:?}");
    }
    // A huge --until: stopped at --max-events, which it says, everything up to then written.
    let (_, se, rows) = line("x,v,r,m\n0,1,0.1,1\n0.5,-1,0.1,2\n", "-1,1", "1e300", &["--max-events", "1000"]);
    assert!(se.contains("stopped after --max-events 1000") && se.contains("before --until 1e300"), "{se}");
    assert_eq!(rows.len(), 1001);
    // A mass ratio of 1e328: the light ball is squeezed against a wall, joined to it, and the
    // heavy one bounces off; the run ends at --until.
    let (so, se, _) = line("x,v,r,m\n-0.5,0,0.1,1e-28\n0.5,-1,0.1,1e300\n", "-1,1", "10", &[]);
    assert!(so.contains("until t = 10 ") && so.contains("1 put in resting contact") && se.is_empty(), "{so}{se}");
    // Velocities of ±1e308: refused, naming the line (a collision could triple them past f64).
    let d = tempfile::tempdir().unwrap();
    let b = d.path().join("b.csv");
    std::fs::write(&b, "x,v,r,m\n-0.5,1e308,0.1,1\n0.5,-1e308,0.1,1\n").unwrap();
    let e = refused(&[
        "events",
        "line",
        "--balls",
        s(&b),
        "--walls",
        "-1,1",
        "--until",
        "1",
        "--out",
        s(&d.path().join("o.csv")),
    ]);
    assert!(e.contains("line 2") && e.contains("1e300"), "{e}");
}

#[test]
fn balls_on_a_terrain_always_end() {
    let d = tempfile::tempdir().unwrap();
    // A bowl: balls roll to its bottom and bounce ever lower there.
    let mut text = String::from("ncols 9\nnrows 9\nxllcenter 0\nyllcenter 0\ncellsize 10\n");
    for j in 0..9 {
        let row: Vec<String> =
            (0..9).map(|i| format!("{}", ((i as f64 - 4.0).powi(2) + (j as f64 - 4.0).powi(2)) * 2.0)).collect();
        text += &(row.join(" ") + "\n");
    }
    let t = d.path().join("bowl.asc");
    std::fs::write(&t, text).unwrap();
    let png = d.path().join("e.png");
    for extra in
        [&["--until", "1e300"][..], &["--until", "60", "--rest-speed", "0"], &["--until", "60", "--rest-speed", "1e-9"]]
    {
        let mut args = vec!["events", "terrain", s(&t), "--balls", "20", "--png", s(&png)];
        args.extend(extra);
        let o = bounded(&args, Duration::from_secs(120));
        let so = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{extra:?}: {so}{}", String::from_utf8_lossy(&o.stderr));
        assert!(so.contains("came to rest"), "{so}");
    }
    // Stopped at --max-events: it says when (the last event's time, before --until), and the
    // summary and the final state are at that time, not carried on to --until without events.
    let o = bounded(
        &["events", "terrain", s(&t), "--balls", "20", "--until", "60", "--max-events", "50"],
        Duration::from_secs(60),
    );
    let (so, se) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{so}{se}");
    let at: f64 = se.split("events at t = ").nth(1).and_then(|r| r.split(',').next()).unwrap().parse().unwrap();
    assert!(at > 0.0 && at < 60.0 && se.contains("before --until 60"), "{se}");
    assert!(so.contains(&format!("{at:.1} simulated seconds")) && so.contains("events        50 "), "{so}");
}

#[test]
fn proximity_streams_its_pairs() {
    let d = tempfile::tempdir().unwrap();
    // 2,900 identical spheres: 4,203,550 pairs, more than one sorted run in memory. Held in memory
    // they took 130 MB and more; streamed, the run fits in 100 MB of data (`ulimit -d`).
    let objects = d.path().join("o.csv");
    let mut text = String::from("id,x,y,z,radius\n");
    for k in 0..2900 {
        text += &format!("{},0,0,0,1\n", 2900 - k);
    }
    std::fs::write(&objects, text).unwrap();
    let pairs = d.path().join("p.csv");
    let cmd = format!(
        "ulimit -d 100000 && exec '{}' proximity --objects '{}' --out '{}'",
        env!("CARGO_BIN_EXE_landfall"),
        s(&objects),
        s(&pairs)
    );
    let o = Command::new("sh").args(["-c", &cmd]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&pairs).unwrap();
    let rows: Vec<(u32, u32)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let (a, b) = l.split_once(',').unwrap();
            (a.parse().unwrap(), b.parse().unwrap())
        })
        .collect();
    assert_eq!(rows.len(), 2900 * 2899 / 2);
    assert!(rows.windows(2).all(|w| w[0] < w[1]) && rows.iter().all(|p| p.0 < p.1));
    assert_eq!((rows[0], *rows.last().unwrap()), ((1, 2), (2899, 2900)));
    // --max-pairs: the first found, sorted, and a note of how many more.
    let o = landfall(&["proximity", "--objects", s(&objects), "--out", s(&pairs), "--max-pairs", "1000"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && err.contains("stopped at --max-pairs 1000: 4202550 more pairs"), "{err}");
    assert_eq!(std::fs::read_to_string(&pairs).unwrap().lines().count(), 1001);
}

/// An index replaced in place (`cp small.lfh big.lfh`) while `height` has it mapped: a clear error
/// naming the file, not a death by SIGBUS. The points come through a FIFO, so the file is replaced
/// exactly between the open and the queries.
#[cfg(target_os = "linux")]
#[test]
fn an_index_replaced_in_place_while_mapped_is_an_error_not_sigbus() {
    use std::io::Write;
    let d = tempfile::tempdir().unwrap();
    let (big_lfh, small_lfh) = common::big_and_small_index(d.path());
    let fifo = d.path().join("points.fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success(), "mkfifo");
    let out = d.path().join("h.csv");
    let child = Command::new(env!("CARGO_BIN_EXE_landfall"))
        .args(["height", s(&big_lfh), "--points", s(&fifo), "--out", s(&out)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Opening the FIFO waits for the command to open it: after it has mapped the index.
    let mut points = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    std::fs::write(&big_lfh, std::fs::read(&small_lfh).unwrap()).unwrap(); // cp small.lfh big.lfh
    let mut text = String::from("x,y\n");
    for k in 0..20_000 {
        text += &format!("{},{}\n", (k * 7) % 699, (k * 13) % 699);
    }
    points.write_all(text.as_bytes()).unwrap();
    drop(points);
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("big.lfh") && (err.contains("truncated") || err.contains("changed")), "{err}");
    assert!(!out.exists());
}
