//! The examples at the end of each command's `--help` (each is parsed by a test, so none goes stale).

/// `landfall info`.
pub const INFO: &str = "\
Examples:
  landfall info data/topobathy.npz
  landfall info topobathy.lfh                         # an index from `landfall build`: checked, mapped
  landfall info city.obj --gravity 0,-1,0             # a Y-up mesh";

/// `landfall height`.
pub const HEIGHT: &str = "\
Examples:
  landfall height data/topobathy.npz --points data/points.csv -o heights.csv
  landfall height data/volcano.asc --points data/volcano_points.csv -o h.csv   # a DEM in metres
  landfall height city.lfq --points pts.csv -o all.csv --all      # every surface on each line";

/// `landfall raycast`.
pub const RAYCAST: &str = "\
Examples:
  landfall raycast data/topobathy.npz --rays data/rays.csv -o hits.csv
  landfall raycast city.lfq --rays rays.csv -o hits.csv
  landfall raycast dem.asc --spacing 10 --origin 500000,4000000 --rays rays.csv -o hits.csv";

/// `landfall build`.
pub const BUILD: &str = "\
Examples:
  landfall build data/topobathy.npz -o topobathy.lfh  # a heightfield index (any size, streamed)
  landfall build coast.obj -o coast.lfq               # a polygon index (QOTA quadtree)
  landfall build tiles.txt -o national.lfh            # GeoTIFF tiles listed one a line: one mosaic";

/// `landfall mesh`.
pub const MESH: &str = "\
Examples:
  landfall mesh data/topobathy.npz -o coast.glb
  landfall mesh city.lfq -o city.obj                  # OBJ keeps landfall's coordinates, Z up";

/// `landfall serve`.
pub const SERVE: &str = "\
Examples:
  landfall serve data/topobathy.npz                   # then open the address it prints
  landfall serve --world                              # the endless procedural world, W A S D to walk
  landfall serve national.lfh --port 9000 --host 0.0.0.0   # to other machines too";

/// `landfall demo`.
pub const DEMO: &str = "\
Examples:
  landfall demo                                       # → landfall-out/demo.png
  landfall demo --size 513 --queries 100000 --walkers 200 -o quick-demo";

/// `landfall world`.
pub const WORLD: &str = "\
Examples:
  landfall world --path fly --frames 600 --east 1e7 --export far.glb   # 10,000 km out
  landfall world --objects --path walk --frames 300                    # trees, houses, entities
  landfall world --path teleport --frames 100 -o world-pictures";

/// `landfall world path`.
pub const WORLD_PATH: &str = "\
Examples:
  landfall world path --from 0,0 --to 1200,300 --radius 0.5 --out path.csv
  landfall world path --from -500,0 --to 800,0 --radius 3 --max-slope 30 -o ogre.csv
  landfall world path --from -500,0 --to 500,0 --radius 20 --no-objects -o giant.csv";

/// `landfall proximity`.
pub const PROXIMITY: &str = "\
Examples:
  landfall proximity --objects data/spheres.csv -o pairs.csv
  landfall proximity --objects crowd.csv --out pairs.csv       # ids may be any 64-bit integers";

/// `landfall viewshed`.
pub const VIEWSHED: &str = "\
Examples:
  landfall viewshed data/volcano.asc --observer 195,305 --observer-height 2 -o vis.tif --png vis.png
  landfall viewshed dem.tif --observers towers.csv -o count.tif --png count.png   # how many see each
  landfall viewshed data/volcano.asc --observer 195,305 --mode ground -o need.tif --max-distance 500";

/// `landfall events line`.
pub const EVENTS_LINE: &str = "\
Examples:
  landfall events line --balls data/balls.csv --walls 0,100 --until 60 -o events.csv
  landfall events line --balls data/balls.csv --walls 0,100 --until 60 -o events.csv --final final.csv";

/// `landfall events terrain`.
pub const EVENTS_TERRAIN: &str = "\
Examples:
  landfall events terrain data/topobathy.npz --balls 1000 --until 20 -o events.png
  landfall events terrain world --walk 5,0 --viewer -100,0 --range 40 --until 40   # level of detail; the ground follows the walking viewer
  landfall events terrain dem.tif --balls 200 --restitution 0.5 --rest-speed 1";

/// `landfall behave dance`.
pub const BEHAVE_DANCE: &str = "\
Examples:
  landfall behave dance -o dance            # the 5-minute dance, 100 couples
  landfall behave dance --seconds 30 --stills 8 -o dance-short";

/// `landfall behave monsters`.
pub const BEHAVE_MONSTERS: &str = "\
Examples:
  landfall behave monsters --seconds 600 -o monsters   # the 10-minute walk
  landfall behave monsters --per-room 10 --seconds 60 -o monsters-crowded";

#[cfg(test)]
mod tests {
    use crate::terrain_args::{TERRAIN_PLACEMENT, TERRAIN_TUNING};
    use crate::Cli;
    use clap::{CommandFactory, Parser};

    /// Every command that runs (not a group of commands), with its name as typed.
    fn commands(cmd: &mut clap::Command, prefix: &str, out: &mut Vec<(String, String)>) {
        for sub in cmd.get_subcommands_mut().filter(|s| s.get_name() != "help") {
            let name = format!("{prefix} {}", sub.get_name());
            if sub.has_subcommands() {
                // A command that also runs by itself (`landfall world`) is checked too.
                if sub.is_args_conflicts_with_subcommands_set() {
                    out.push((name.clone(), sub.render_long_help().to_string()));
                }
                commands(sub, &name, out);
            } else {
                out.push((name, sub.render_long_help().to_string()));
            }
        }
    }

    /// Every command's long help, built as `landfall` builds it.
    fn all_helps() -> Vec<(String, String)> {
        let mut cli = Cli::command();
        cli.build();
        let mut all = Vec::new();
        commands(&mut cli, "landfall", &mut all);
        all
    }

    /// `--help` of every command: its own options first, then the terrain's placement and tuning
    /// options under their headings, then two or three examples, each of which parses.
    #[test]
    fn every_help_puts_own_options_first_and_ends_with_examples_that_parse() {
        let all = all_helps();
        assert!(all.len() >= 12, "{} commands", all.len());
        for (name, help) in all {
            let at = |h: &str| help.find(&format!("\n{h}:\n"));
            let examples = at("Examples").unwrap_or_else(|| panic!("{name}: no examples:\n{help}"));
            let options = at("Options").unwrap_or_else(|| panic!("{name}: no options:\n{help}"));
            assert!(options < examples, "{name}");
            if let Some(place) = at(TERRAIN_PLACEMENT) {
                let tune = at(TERRAIN_TUNING).unwrap_or_else(|| panic!("{name}: placement without tuning"));
                assert!(options < place && place < tune && tune < examples, "{name}: headings out of order");
                // The command's own options are all in the first section, the terrain's after it.
                let own = &help[options..place];
                for terrain_option in ["--spacing", "--origin", "--z-scale", "--leaf-size", "--max-polys", "--min-gain"]
                {
                    assert!(!own.contains(terrain_option), "{name}: {terrain_option} among the command's own options");
                }
            }
            let lines: Vec<&str> = help[examples..].lines().skip(2).map(str::trim).filter(|l| !l.is_empty()).collect();
            assert!((2..=3).contains(&lines.len()), "{name}: {} examples", lines.len());
            for line in lines {
                let words: Vec<&str> = line.split(" # ").next().unwrap().split_whitespace().collect();
                assert_eq!(words[..name.split(' ').count()].join(" "), name, "{name}: example of another command");
                if let Err(e) = Cli::try_parse_from(&words) {
                    panic!("{name}: example `{line}` does not parse: {e}");
                }
            }
        }
    }

    /// Every command that writes a file takes `-o` and `--out` for it.
    #[test]
    fn every_output_is_spelled_o_and_out() {
        for (name, help) in all_helps() {
            if name == "landfall info" || name == "landfall serve" {
                continue;
            }
            assert!(help.contains("-o, --out <"), "{name}: no -o, --out");
        }
    }
}
