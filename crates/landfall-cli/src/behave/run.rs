//! Runs a demonstration twice (levels of detail, then everything at full detail), checks what the
//! viewer sees, and writes the statistics, the summary and the pictures together.

use super::draw::{Map, Picture};
use super::RunArgs;
use crate::progress::Step;
use anyhow::{bail, Context, Result};
use landfall::behave::{Behaviours, Checker, CrowdParams, Entity, Scene, Viewer};
use landfall::glam::DVec2;
use landfall_io::Outputs;
use std::fmt::Write as _;
use std::io::Write;
use std::time::Instant;

/// A demonstration: its entities, how the viewer moves and sees, and what to draw under them.
pub trait Stage {
    /// What the viewer sees through.
    type View: Scene;
    /// Name of the command and of the pictures.
    fn name(&self) -> &'static str;
    /// The entities at the start.
    fn entities(&self) -> Vec<Entity>;
    /// The crowd's parameters.
    fn params(&self) -> CrowdParams;
    /// The viewer and its view at time `t`.
    fn view(&self, t: f64) -> (Viewer, Self::View);
    /// The part of the world the pictures show.
    fn extent(&self) -> (DVec2, DVec2);
    /// The scene under the entities (floor, walls, what the viewer sees).
    fn draw_scene(&self, pic: &mut Picture, map: &Map, viewer: &Viewer, view: &Self::View);
}

/// One frame of one run.
#[derive(Clone, Copy, Default)]
struct Row {
    full: usize,
    approximate: usize,
    dormant: usize,
    events: u64,
    in_view: usize,
    snaps: usize,
    withheld: usize,
    seconds: f64,
}

/// What a run saw.
#[derive(Default)]
struct Totals {
    rows: Vec<Row>,
    overlaps: usize,
    teleports: usize,
}

impl Totals {
    fn seconds(&self) -> f64 {
        self.rows.iter().map(|r| r.seconds).sum()
    }
    fn events(&self) -> u64 {
        self.rows.iter().map(|r| r.events).sum()
    }
    fn sum(&self, f: impl Fn(&Row) -> usize) -> usize {
        self.rows.iter().map(f).sum()
    }
}

/// Runs `frames` frames; `still(frame)` says whether to draw that one (the pictures are returned).
fn simulate<S: Stage>(
    stage: &S,
    params: CrowdParams,
    fps: f64,
    frames: usize,
    still: impl Fn(usize) -> bool,
    bar: &Step,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<(Totals, Vec<(usize, Picture)>)> {
    let mut b = Behaviours::new(stage.entities(), params)?;
    let mut checker = Checker::new();
    let mut totals = Totals::default();
    let mut pictures = Vec::new();
    for f in 0..frames {
        if stop.load(std::sync::atomic::Ordering::SeqCst) {
            bail!("interrupted; nothing written");
        }
        let t = f as f64 / fps;
        let (viewer, view) = stage.view(t);
        let start = Instant::now();
        let s = b.frame(t, &viewer, &view)?;
        let seconds = start.elapsed().as_secs_f64();
        let seen = checker.observe(&b, &viewer, &view);
        totals.overlaps += seen.overlaps;
        totals.teleports += seen.teleports;
        totals.rows.push(Row {
            full: s.full,
            approximate: s.approximate,
            dormant: s.dormant,
            events: s.events,
            in_view: seen.in_view,
            snaps: s.snaps,
            withheld: s.withheld,
            seconds,
        });
        if still(f) {
            let (mut pic, map) = Picture::new(stage.extent());
            stage.draw_scene(&mut pic, &map, &viewer, &view);
            pic.entities(&map, &b);
            pic.legend(&format!(
                "behave {}  t = {t:.1} s   full {}, approximate {}, dormant {}, in view {}",
                stage.name(),
                s.full,
                s.approximate,
                s.dormant,
                seen.in_view
            ));
            pictures.push((f, pic));
        }
        bar.inc(1);
    }
    Ok((totals, pictures))
}

/// Runs `stage` as `args` say and writes its outputs.
pub fn run<S: Stage>(stage: &S, args: &RunArgs) -> Result<()> {
    if !(args.seconds.is_finite() && args.seconds > 0.0 && args.seconds <= 1e6) {
        bail!("--seconds: {} (expected a time > 0 and at most 1e6)", landfall::support::Num(args.seconds));
    }
    if !(args.fps.is_finite() && args.fps > 0.0 && args.fps <= 1000.0) {
        bail!("--fps: {} (expected > 0 and at most 1000)", landfall::support::Num(args.fps));
    }
    let frames = (args.seconds * args.fps).floor() as usize + 1;
    if frames > 10_000_000 {
        bail!("--seconds × --fps: {frames} frames (at most 10,000,000)");
    }
    if args.stills > 1000 {
        bail!("--stills: {} (at most 1000)", args.stills);
    }
    if args.stills > frames - 1 {
        bail!(
            "--stills: {} stills of a run of {} frames after the first (--seconds × --fps): at most one a frame",
            args.stills,
            frames - 1
        );
    }
    std::fs::create_dir_all(&args.out).with_context(|| format!("{}: cannot create", args.out.display()))?;
    let name = stage.name();
    let mut outs = Outputs::new(&[]);
    let csv_id = outs.add(&args.out.join("stats.csv"), "stats.csv")?;
    let summary_id = outs.add(&args.out.join("summary.txt"), "summary.txt")?;
    // Stills at the ends of equal parts of the run, the last at its end.
    let at: Vec<usize> = (1..=args.stills).map(|k| k * (frames - 1) / args.stills).collect();
    let mut still_ids = Vec::new();
    for &f in &at {
        still_ids.push(outs.add(&args.out.join(format!("{name}-{f:06}.png")), "a still")?);
    }

    let stop = crate::interrupt::Stop::on_ctrl_c();
    let bar = Step::bar(&format!("behave {name}"), 2 * frames as u64, "frame {pos}/{len} {wide_bar} {eta}");
    let params = stage.params();
    let (lod, pictures) = simulate(stage, params, args.fps, frames, |f| at.contains(&f), &bar, stop.flag())?;
    let (full, _) = simulate(stage, params.with_all_full(true), args.fps, frames, |_| false, &bar, stop.flag())?;
    bar.done(format!("{frames} frames twice"));

    let csv = outs.file(csv_id);
    let cannot = |what: &str| format!("{}: cannot write", args.out.join(what).display());
    let mut text = String::from(
        "frame,t,full,approximate,dormant,events,in_view,snaps,withheld,seconds,events_all_full,seconds_all_full\n",
    );
    for (f, (r, a)) in lod.rows.iter().zip(&full.rows).enumerate() {
        let t = f as f64 / args.fps;
        writeln!(
            text,
            "{f},{t},{},{},{},{},{},{},{},{:.9},{},{:.9}",
            r.full, r.approximate, r.dormant, r.events, r.in_view, r.snaps, r.withheld, r.seconds, a.events, a.seconds
        )?;
    }
    csv.write_all(text.as_bytes()).with_context(|| cannot("stats.csv"))?;

    let n = stage.entities().len();
    let mean = |v: usize| v as f64 / frames as f64;
    let summary = format!(
        "behave {name}: {n} entities, {} s at {} frames/s ({frames} frames), seed {}\n\
         levels of detail: {:.3} s of frames, {} events; mean per frame: full {:.1}, approximate {:.1}, dormant {:.1}, in view {:.1}\n\
         every entity at full detail: {:.3} s of frames, {} events\n\
         all full against levels of detail (above 1: levels of detail cheaper): time {:.2}×, events {:.2}×\n\
         in view: overlaps {}, teleports {} (all full: overlaps {}, teleports {})\n\
         snaps into view: {}; withheld (in view with no free place, frames × entities): {}\n",
        args.seconds,
        args.fps,
        args.seed,
        lod.seconds(),
        lod.events(),
        mean(lod.sum(|r| r.full)),
        mean(lod.sum(|r| r.approximate)),
        mean(lod.sum(|r| r.dormant)),
        mean(lod.sum(|r| r.in_view)),
        full.seconds(),
        full.events(),
        full.seconds() / lod.seconds().max(1e-12),
        full.events() as f64 / lod.events().max(1) as f64,
        lod.overlaps,
        lod.teleports,
        full.overlaps,
        full.teleports,
        lod.sum(|r| r.snaps),
        lod.sum(|r| r.withheld),
    );
    outs.file(summary_id).write_all(summary.as_bytes()).with_context(|| cannot("summary.txt"))?;
    for ((_, pic), id) in pictures.into_iter().zip(still_ids) {
        let (w, h, rgb) = pic.into_rgb();
        landfall_io::write_png_rgb_into(outs.file(id), w, h, &rgb)?;
    }
    outs.commit()?;
    say!("{}", summary.trim_end());
    say!("wrote {} ({} stills)", args.out.display(), at.len());
    if lod.overlaps + lod.teleports + full.overlaps + full.teleports > 0 {
        bail!("entities in view overlapped or jumped (see {}); this is a bug", args.out.join("summary.txt").display());
    }
    Ok(())
}
