//! `landfall behave`: the demonstrations run, write their outputs together and see nothing in view
//! overlap or jump.

use crate::common::{entries, fails, ok, rows, s};

/// The summary's number after `label` (e.g. "overlaps ").
fn count_after(summary: &str, label: &str) -> Vec<u64> {
    summary
        .match_indices(label)
        .map(|(k, _)| summary[k + label.len()..].split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn a_short_dance_writes_its_outputs_and_sees_no_overlap_or_jump() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("dance");
    let printed = ok(&["behave", "dance", "--seconds", "40", "--stills", "2", "-o", s(&out)]);
    let mut names: Vec<String> = entries(&out).into_iter().map(|n| n.into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["dance-000200.png", "dance-000400.png", "stats.csv", "summary.txt"]);
    let csv = rows(&out.join("stats.csv"));
    assert_eq!(
        csv[0],
        "frame,t,full,approximate,dormant,events,in_view,snaps,withheld,seconds,events_all_full,seconds_all_full"
    );
    assert_eq!(csv.len(), 1 + 401);
    // Every frame accounts for the 100 couples; some are at each level of detail at some time.
    let mut seen = [0usize; 3];
    for row in &csv[1..] {
        let v: Vec<f64> = row.split(',').map(|x| x.parse().unwrap()).collect();
        assert_eq!(v[2] + v[3] + v[4], 100.0, "{row}");
        for k in 0..3 {
            seen[k] += usize::from(v[2 + k] > 0.0);
        }
    }
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    assert!(printed.contains(summary.trim_end()));
    assert_eq!(count_after(&summary, "overlaps "), [0, 0], "{summary}");
    assert_eq!(count_after(&summary, "teleports "), [0, 0], "{summary}");
    assert!(count_after(&summary, "snaps into view: ")[0] > 0, "{summary}");
    assert!(std::fs::metadata(out.join("dance-000400.png")).unwrap().len() > 10_000);
}

#[test]
fn bad_options_are_refused_by_name() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("x");
    for (args, want) in [
        (vec!["--seconds=-1"], "--seconds"),
        (vec!["--seconds", "nan"], "--seconds"),
        (vec!["--fps", "0"], "--fps"),
        (vec!["--couples", "0"], "--couples"),
        (vec!["--stills", "5000"], "--stills"),
    ] {
        let mut all = vec!["behave", "dance", "-o", s(&out)];
        all.extend(args);
        let err = fails(&all);
        assert!(err.contains(want), "{all:?}: {err}");
    }
    assert!(!out.join("stats.csv").exists());
}

#[test]
fn monsters_behind_doors_are_checked_the_same_way() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("monsters");
    ok(&["behave", "monsters", "--seconds", "60", "--stills", "1", "-o", s(&out)]);
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    assert!(summary.starts_with("behave monsters: 54 entities"), "{summary}");
    assert_eq!(count_after(&summary, "overlaps "), [0, 0], "{summary}");
    assert_eq!(count_after(&summary, "teleports "), [0, 0], "{summary}");
    assert!(count_after(&summary, "snaps into view: ")[0] > 0, "{summary}");
    assert!(out.join("monsters-000600.png").exists());
    // Monsters out of sight: never all at full detail.
    let csv = rows(&out.join("stats.csv"));
    assert!(csv[1..].iter().all(|r| r.split(',').nth(2).unwrap().parse::<usize>().unwrap() < 54));
}
