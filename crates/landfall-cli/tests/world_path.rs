//! `landfall world path`: the CSV's header, the start first and the goal last, every corner on the
//! world's ground (the landscape its objects stand on), the printed length that of the rows; bad
//! input refused by name, no output left behind; `landfall world [options]` still runs.

use crate::common::{entries, fails, ok, rows, s};
use landfall::glam::DVec2;
use landfall::world::{CacheParams, Generator, LodTerrain, WorldParams};

#[test]
fn writes_the_path_on_the_ground() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("path.csv");
    let said = ok(&["world", "path", "--from", "100,30", "--to", "160,52", "--radius", "0.5", "--out", s(&out)]);
    let lines = rows(&out);
    assert_eq!(lines[0], "x,y,z");
    let pts: Vec<[f64; 3]> = lines[1..]
        .iter()
        .map(|l| {
            let v: Vec<f64> = l.split(',').map(|f| f.parse().unwrap()).collect();
            [v[0], v[1], v[2]]
        })
        .collect();
    assert!(pts.len() >= 2);
    assert_eq!((pts[0][0], pts[0][1]), (100.0, 30.0));
    assert_eq!((pts[pts.len() - 1][0], pts[pts.len() - 1][1]), (160.0, 52.0));
    let ground =
        LodTerrain::new(Generator::new(WorldParams::default()).unwrap(), CacheParams::default().mesh_finest, 64);
    for p in &pts {
        let z = ground.height_at(p[0], p[1]).unwrap();
        assert!((p[2] - z).abs() < 1e-9, "corner {p:?} not on the ground {z}");
    }
    let length: f64 = pts.windows(2).map(|w| DVec2::new(w[0][0], w[0][1]).distance(DVec2::new(w[1][0], w[1][1]))).sum();
    assert!(length >= DVec2::new(100.0, 30.0).distance(DVec2::new(160.0, 52.0)) - 1e-9);
    assert!(said.contains(&format!("{length:.2} m long")), "{said}");
    assert!(said.contains("time ") && said.contains(" ms"), "{said}");
    assert_eq!(entries(dir.path()).len(), 1, "only the output is left");
}

/// A start on steep ground is moved to the nearest walkable point (within 5 m by default), and the
/// command says so and how far; the CSV starts there.
#[test]
fn a_start_on_steep_ground_is_moved() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("path.csv");
    let said = ok(&["world", "path", "--from", "0,0", "--to", "160,52", "--out", s(&out)]);
    let first: Vec<f64> = rows(&out)[1].split(',').map(|f| f.parse().unwrap()).collect();
    let moved = first[0].hypot(first[1]);
    assert!(moved > 0.0 && moved <= 5.0, "{first:?}");
    assert!(said.contains(&format!("the start was moved {moved:.2} m to walkable ground")), "{said}");
    assert!(!said.contains("the goal was moved"), "{said}");
}

#[test]
fn bad_input_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("path.csv");
    let o = s(&out);
    assert!(fails(&["world", "path", "--from", "100,30", "--to", "160,52", "--radius", "0.1", "-o", o])
        .contains("--radius"));
    assert!(fails(&["world", "path", "--from", "100", "--to", "160,52", "-o", o]).contains("X,Y"));
    assert!(fails(&["world", "path", "--from", "nan,1", "--to", "160,52", "-o", o]).contains("finite"));
    assert!(fails(&["world", "path", "--from", "100,30", "--to", "1e12,0", "-o", o]).contains("within"));
    assert!(fails(&["world", "path", "--from", "100,30", "--to", "160,52", "--max-slope", "0", "-o", o])
        .contains("(0, 90] degrees"));
    // Beyond one plan's region: said in metres, with the limit.
    let far = fails(&["world", "path", "--from", "100,30", "--to", "60000,100", "--no-objects", "-o", o]);
    assert!(far.contains("at most 4096 m"), "{far}");
    // The origin's ground is steeper than 35° at the finest level: refused, named, when the start
    // may not be moved (--snap 0) or there is no walkable ground within the snap distance.
    assert!(fails(&["world", "path", "--from", "0,0", "--to", "160,52", "--snap", "0", "-o", o]).contains("steeper"));
    assert!(
        fails(&["world", "path", "--from", "0,0", "--to", "160,52", "--max-slope", "3", "-o", o]).contains("steeper")
    );
    assert!(fails(&["world", "path", "--from", "100,30", "--to", "160,52", "--snap", "-1", "-o", o]).contains("--snap"));
    assert!(fails(&["world", "path", "--from", "100,30", "--to", "160,52", "--slope-step", "0", "-o", o])
        .contains("--slope-step: 0 is not a finite length > 0"));
    assert!(entries(dir.path()).is_empty(), "nothing written on failure");
    // Options of the flight are not options of `path`, and the flight runs as before.
    assert!(!fails(&["world", "--frames", "2", "path", "--from", "1,1", "--to", "2,2", "-o", o]).is_empty());
    let pics = dir.path().join("pics");
    ok(&[
        "world",
        "--inner-radius",
        "4",
        "--layers",
        "8",
        "--frames",
        "2",
        "--width",
        "16",
        "--height",
        "9",
        "-o",
        s(&pics),
    ]);
}

/// Whether the ground read at `g`-metre cells is within `max_deg` everywhere around `p`: every
/// cell of the global grid of side `g` whose closed box holds `p` has ground at its corners and
/// centre, and both its triangles through the corners' heights (split as `Alternating` splits the
/// cell) within the limit (brute force, written apart from the library's).
fn gentle_at_scale(ground: &LodTerrain, p: DVec2, g: f64, max_deg: f64) -> bool {
    let (lo, hi) = (((p - 1e-9) / g).floor(), ((p + 1e-9) / g).floor());
    let mut ok = true;
    for cj in lo.y as i64..=hi.y as i64 {
        for ci in lo.x as i64..=hi.x as i64 {
            let h = |di: i64, dj: i64| {
                let q = DVec2::new((ci + di) as f64, (cj + dj) as f64) * g;
                ground.height_at(q.x, q.y).map(|z| q.extend(z))
            };
            let centre = (DVec2::new(ci as f64, cj as f64) + 0.5) * g;
            let (Some(a), Some(b), Some(c), Some(d)) = (h(0, 0), h(1, 0), h(1, 1), h(0, 1)) else { return false };
            ok &= ground.height_at(centre.x, centre.y).is_some();
            let tris = if (ci + cj).rem_euclid(2) == 0 { [[a, b, d], [b, c, d]] } else { [[a, b, c], [a, c, d]] };
            for t in tris {
                let n = (t[1] - t[0]).cross(t[2] - t[0]);
                ok &= (n.z.abs() / n.length()).acos().to_degrees() <= max_deg + 1e-9;
            }
        }
    }
    ok
}

/// A 20 m giant across 1 km of the world's bare ground, where one steep metre used to block a
/// whole slope cell and no path was found: found, and every point of it (every metre) on ground
/// within 35° read at its 16 m slope cells.
#[test]
fn a_giant_reads_the_slope_at_its_scale() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("path.csv");
    let said =
        ok(&["world", "path", "--from=-500,0", "--to", "500,0", "--radius", "20", "--no-objects", "-o", s(&out)]);
    assert!(said.contains("m long"), "{said}");
    let pts: Vec<DVec2> = rows(&out)[1..]
        .iter()
        .map(|l| {
            let v: Vec<f64> = l.split(',').map(|f| f.parse().unwrap()).collect();
            DVec2::new(v[0], v[1])
        })
        .collect();
    assert!(pts[0] == DVec2::new(-500.0, 0.0) && pts[pts.len() - 1].distance(DVec2::new(500.0, 0.0)) <= 5.0);
    let ground =
        LodTerrain::new(Generator::new(WorldParams::default()).unwrap(), CacheParams::default().mesh_finest, 64);
    for w in pts.windows(2) {
        let n = w[0].distance(w[1]).ceil().max(1.0) as usize;
        for k in 0..=n {
            let p = w[0].lerp(w[1], k as f64 / n as f64);
            assert!(gentle_at_scale(&ground, p, 16.0, 35.0), "{p} on ground steeper than 35° at 16 m");
        }
    }
}
