//! The layering, as `docs/architecture.md` states it: no import circles between sibling modules (at
//! any depth) in any crate of the workspace; in the library, no arrow from the ground floor (`geom`,
//! `frame`, `flat`, `rng`, `pages`, `params`, `groups`) to anything else, nor from `terrain.rs` to a
//! terrain, nor from `terrain_set.rs` to the collision code. Edges come from `use` paths and
//! inline `crate::`/`super::` paths in non-test code, re-exports of a parent resolved to the child
//! that defines the item.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Module = Vec<String>;

/// Every module of `src/` (a file, or a folder's `mod.rs`) with its code, test modules left out.
fn modules(src: &Path) -> BTreeMap<Module, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if !name.ends_with(".rs") || name == "tests.rs" {
                continue;
            }
            let rel = p.strip_prefix(src).unwrap().with_extension("");
            let mut m: Module = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
            if matches!(m.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                m.pop();
            }
            let text = std::fs::read_to_string(&p).unwrap();
            let code: String = text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
            let code = match code.find("#[cfg(test)]\nmod tests") {
                Some(i) => code[..i].to_string(),
                None => code,
            };
            out.insert(m, code);
        }
    }
    out
}

/// `a::b::{c, d::{e, f}}` as the paths it names.
fn expand(path: &str) -> Vec<String> {
    let Some(open) = path.find('{').filter(|_| path.ends_with('}')) else { return vec![path.to_string()] };
    let (base, inner) = (&path[..open], &path[open + 1..path.len() - 1]);
    let (mut parts, mut depth, mut cur) = (Vec::new(), 0, String::new());
    for ch in inner.chars() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if ch == ',' && depth == 0 {
            parts.push(std::mem::take(&mut cur));
        } else {
            cur.push(ch);
        }
    }
    parts.push(cur);
    parts.iter().filter(|p| !p.trim().is_empty()).flat_map(|p| expand(&format!("{base}{}", p.trim()))).collect()
}

/// Paths a module's code names (from `use` items and inline `crate::`/`super::` paths).
fn paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in code.split_inclusive('\n') {
        let t = line.trim_start();
        let t = ["pub(crate) ", "pub(super) ", "pub "].iter().fold(t, |t, p| t.strip_prefix(p).unwrap_or(t));
        if let Some(rest) = t.strip_prefix("use ") {
            let start = offset + (line.len() - rest.len());
            if let Some(end) = code[start..].find(';') {
                let p: String = code[start..start + end].chars().filter(|c| !c.is_whitespace()).collect();
                out.extend(expand(&p));
            }
        }
        offset += line.len();
    }
    for start in ["crate::", "super::"] {
        let mut rest = code;
        while let Some(i) = rest.find(start) {
            let tail = &rest[i..];
            let len = tail.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(tail.len());
            out.push(tail[..len].trim_end_matches(':').to_string());
            rest = &tail[len..];
        }
    }
    out
}

/// The import edges between sibling modules of the crate whose sources are in `src` (a module's
/// edge is recorded at the first level where it and its target part).
fn edges(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let mods = modules(src);
    let known: BTreeSet<&Module> = mods.keys().collect();
    // Re-exports: (parent, name) → the child module it comes from.
    let mut reexports: BTreeMap<(Module, String), Module> = BTreeMap::new();
    for (m, code) in &mods {
        for line in code.split(';') {
            let line = line.trim();
            let Some(p) = line.strip_prefix("pub use ").or_else(|| line.strip_prefix("pub(crate) use ")) else {
                continue;
            };
            for path in expand(&p.chars().filter(|c| !c.is_whitespace()).collect::<String>()) {
                let segs: Vec<&str> = path.split("::").collect();
                if segs.len() >= 2 && known.contains(&[m.clone(), vec![segs[0].to_string()]].concat()) {
                    let child = [m.clone(), vec![segs[0].to_string()]].concat();
                    reexports.insert((m.clone(), segs[segs.len() - 1].to_string()), child);
                }
            }
        }
    }
    let resolve = |m: &Module, path: &str| -> Option<Module> {
        let mut segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
        let mut cur: Module = match segs.first()? {
            &"crate" => Vec::new(),
            &"super" | &"self" => m.clone(),
            _ => return None,
        };
        if segs[0] == "crate" || segs[0] == "self" {
            segs.remove(0);
        }
        while segs.first() == Some(&"super") {
            cur.pop();
            segs.remove(0);
        }
        while let Some(s) = segs.first() {
            let next = [cur.clone(), vec![s.to_string()]].concat();
            if !known.contains(&next) {
                break;
            }
            cur = next;
            segs.remove(0);
        }
        if let Some(child) = segs.first().and_then(|s| reexports.get(&(cur.clone(), s.to_string()))) {
            cur = child.clone();
        }
        Some(cur)
    };
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (m, code) in &mods {
        for p in paths(code) {
            let Some(t) = resolve(m, &p) else { continue };
            let k = m.iter().zip(&t).take_while(|(a, b)| a == b).count();
            if k == m.len() || k == t.len() {
                continue; // a module and its own ancestor or descendant
            }
            edges.entry(m[..=k].to_vec()).or_default().insert(t[..=k].to_vec());
        }
    }
    edges
}

#[test]
fn no_import_circles_and_the_ground_floor_imports_no_terrain() {
    let edges = edges(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(edges.len() > 20, "the scan found too few edges to mean anything: {edges:?}");
    // The ground floor and the trait.
    let floor = ["geom", "frame", "flat", "rng", "pages", "params", "groups"];
    for (from, tos) in &edges {
        let f = from[0].as_str();
        if floor.contains(&f) {
            assert!(tos.iter().all(|t| floor.contains(&t[0].as_str())), "{f} imports {tos:?}");
        }
        if f == "terrain" {
            assert!(tos.iter().all(|t| floor.contains(&t[0].as_str())), "terrain.rs imports {tos:?}");
        }
        // A terrain set holds terrains: it knows no collision code.
        if f == "terrain_set" {
            assert!(tos.iter().all(|t| t[0] != "collide"), "terrain_set.rs imports {tos:?}");
        }
    }
    assert_no_circles(&edges);
}

/// Every crate of the workspace: no import circle between sibling modules at any depth.
#[test]
fn no_import_circles_in_any_crate() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut seen = 0;
    for entry in std::fs::read_dir(&crates).unwrap() {
        let src = entry.unwrap().path().join("src");
        if src.is_dir() {
            let e = edges(&src);
            assert!(!e.is_empty() || modules(&src).len() < 3, "{}: no edges found", src.display());
            assert_no_circles(&e);
            seen += 1;
        }
    }
    assert!(seen >= 5, "found {seen} crates under {}", crates.display());
}

fn assert_no_circles(edges: &BTreeMap<Module, BTreeSet<Module>>) {
    // Depth-first search with colours.
    fn visit<'a>(
        u: &'a Module,
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        colour: &mut BTreeMap<&'a Module, u8>,
        stack: &mut Vec<&'a Module>,
    ) {
        colour.insert(u, 1);
        stack.push(u);
        for v in edges.get(u).into_iter().flatten() {
            match colour.get(v) {
                Some(1) => panic!("import circle: {:?} → {v:?}", stack),
                Some(_) => {}
                None => visit(v, edges, colour, stack),
            }
        }
        stack.pop();
        colour.insert(u, 2);
    }
    let mut colour = BTreeMap::new();
    for u in edges.keys() {
        if !colour.contains_key(u) {
            visit(u, edges, &mut colour, &mut Vec::new());
        }
    }
}
