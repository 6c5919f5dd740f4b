//! Writing meshes: glTF binary (`.glb`) and Wavefront OBJ, each part with its own origin so that
//! far from the world origin the vertices keep their precision (f32 relative to an f64 origin).

use crate::{extension, IoError, OutputFile};
use landfall::world::World;
use serde_json::json;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

/// A triangle mesh positioned at `origin`: vertices relative to it, triangles counter-clockwise
/// seen from above (+Z).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshPart {
    /// Name shown by viewers.
    pub name: String,
    /// World position of the part's origin (Z up).
    pub origin: [f64; 3],
    /// Vertices relative to `origin`.
    pub positions: Vec<[f32; 3]>,
    /// Three indices per triangle.
    pub indices: Vec<u32>,
    /// Unit normals per vertex (written as glTF `NORMAL`, OBJ `vn`); empty for none.
    pub normals: Vec<[f32; 3]>,
    /// Linear RGB colours per vertex (glTF `COLOR_0`, OBJ `v x y z r g b`); empty for none.
    pub colors: Vec<[f32; 3]>,
    /// Written as the glTF node's `extras` (and an OBJ comment) when not null: e.g. the geodetic and
    /// ECEF origin of a geographic terrain's east-north-up frame ([`geo_part`]).
    pub extras: serde_json::Value,
}

impl MeshPart {
    /// Sets the part's normals (from its triangles) and colours (from `map` by each vertex's world
    /// height and normal).
    pub fn paint(&mut self, map: &landfall::support::ColourMap) {
        self.normals = landfall::support::vertex_normals(&self.positions, &self.indices);
        self.colors = self
            .positions
            .iter()
            .zip(&self.normals)
            .map(|(p, n)| map.colour(self.origin[2] + p[2] as f64, n[2] as f64))
            .collect();
    }
}

/// The drawn mesh of a world, one part per layer (its regions merged), at the drawn (morphed)
/// heights, each relative to its layer's origin, with normals and the colours of one map for every
/// layer (the generator's height range), so the layers meet in the same colours.
pub fn world_parts(world: &World) -> Vec<MeshPart> {
    let top = world.generator().max_abs_height();
    let map = landfall::support::ColourMap::for_range(-top, top);
    let mut parts: Vec<MeshPart> = world
        .meshes()
        .map(|m| {
            let mut part = MeshPart {
                name: format!("layer {}", m.level),
                origin: [m.origin.x, m.origin.y, 0.0],
                ..MeshPart::default()
            };
            for r in m.regions() {
                let base = part.positions.len() as u32;
                part.positions.extend(r.vertices.iter().map(|v| [v.pos[0], v.pos[1], v.drawn_z()]));
                part.indices.extend(r.indices.iter().map(|i| base + i));
            }
            part
        })
        .collect();
    for p in &mut parts {
        p.paint(&map);
    }
    parts
}

/// Most triangles a terrain's mesh export takes (about 100 bytes a triangle in memory).
pub const MAX_EXPORT_TRIANGLES: usize = 50_000_000;

/// The mesh of any terrain (a heightfield, a polygon terrain, an index file): every triangle its
/// [`Terrain::triangles_in`](landfall::Terrain::triangles_in) gives over its bounds, vertices shared
/// where triangles meet at the same position, relative to the bounds' south-west corner, painted
/// with the terrain's height range. `None` when it has more than [`MAX_EXPORT_TRIANGLES`].
pub fn terrain_part(terrain: &dyn landfall::Terrain, name: &str) -> Option<MeshPart> {
    let b = terrain.bounds();
    let origin = [b.min.x, b.min.y, 0.0];
    let mut part = MeshPart { name: name.to_string(), origin, ..MeshPart::default() };
    let mut at: std::collections::HashMap<[u64; 3], u32> = std::collections::HashMap::new();
    let mut too_many = false;
    terrain.triangles_in(&b, &mut |_, tri| {
        if too_many || part.indices.len() / 3 >= MAX_EXPORT_TRIANGLES {
            too_many = true;
            return;
        }
        for v in tri {
            let key = [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()];
            let next = part.positions.len() as u32;
            let i = *at.entry(key).or_insert_with(|| {
                part.positions.push([(v.x - origin[0]) as f32, (v.y - origin[1]) as f32, v.z as f32]);
                next
            });
            part.indices.push(i);
        }
    });
    if too_many {
        return None;
    }
    part.paint(&landfall::support::ColourMap::for_range(b.min.z, b.max.z));
    Some(part)
}

/// The mesh of a raster in degrees in its east-north-up frame (metres, Z up; the frame's origin is
/// the part's origin, so positions are exact to f32 relative to it), every `step`-th sample (1: the
/// surface's own triangles, its diagonal pattern and holes; more: two triangles per `step × step`
/// block, blocks touching a hole left out), coloured by geodetic height. `extras` holds the frame:
/// `{"enu_origin": {"lon", "lat", "h", "ecef": [x, y, z]}, "crs": "EPSG:4326 (WGS 84 ellipsoid)"}`.
/// `None` beyond [`MAX_EXPORT_TRIANGLES`].
pub fn geo_part(g: &landfall::geo::GeoSurface, name: &str, step: usize) -> Option<MeshPart> {
    use landfall::Half;
    let hf = g.heightfield();
    let k = step.max(1);
    let (cols, rows) = ((hf.nx() - 1) / k + 1, (hf.ny() - 1) / k + 1);
    if 2 * (cols - 1) * (rows - 1) > MAX_EXPORT_TRIANGLES {
        return None;
    }
    let f = g.frame();
    let (o, e) = (f.origin(), f.origin_ecef());
    let extras = serde_json::json!({
        "enu_origin": {"lon": o.lon, "lat": o.lat, "h": o.h, "ecef": [e.x, e.y, e.z]},
        "crs": "EPSG:4326 (WGS 84 ellipsoid); metres in the east-north-up frame at enu_origin, written Y-up: (x, y, z) = (east, up, -north)",
    });
    let mut part = MeshPart { name: name.to_string(), extras, ..MeshPart::default() };
    // Vertex of sample (c·k, r·k), made on first use; heights kept for the colours.
    let mut id = vec![u32::MAX; cols * rows];
    let mut heights = Vec::new();
    let mut vertex = |part: &mut MeshPart, c: usize, r: usize| -> u32 {
        let slot = &mut id[r * cols + c];
        if *slot == u32::MAX {
            *slot = part.positions.len() as u32;
            part.positions.push(g.sample_enu(c * k, r * k).as_vec3().to_array());
            heights.push(hf.sample(c * k, r * k) as f64);
        }
        *slot
    };
    for r in 0..rows - 1 {
        for c in 0..cols - 1 {
            if k == 1 {
                for half in [Half::South, Half::North] {
                    if g.cell_triangle(c, r, half).is_some() {
                        for (i, j) in g.triangle_samples(c, r, half) {
                            let v = vertex(&mut part, i, j);
                            part.indices.push(v);
                        }
                    }
                }
                continue;
            }
            let hole = |c: usize, r: usize| hf.sample(c * k, r * k).is_nan();
            if hole(c, r) || hole(c + 1, r) || hole(c, r + 1) || hole(c + 1, r + 1) {
                continue;
            }
            for (dc, dr) in [(0, 0), (1, 0), (1, 1), (0, 0), (1, 1), (0, 1)] {
                let v = vertex(&mut part, c + dc, r + dr);
                part.indices.push(v);
            }
        }
    }
    part.normals = landfall::support::vertex_normals(&part.positions, &part.indices);
    let (lo, hi) = hf.height_range().map_or((0.0, 1.0), |(a, b)| (a as f64, b as f64));
    let map = landfall::support::ColourMap::for_range(lo, hi);
    part.colors = heights.iter().zip(&part.normals).map(|(&h, n)| map.colour(h, n[2] as f64)).collect();
    Some(part)
}

/// Checks that every index points at a vertex and that every position is finite.
fn check(path: &Path, parts: &[MeshPart]) -> Result<(), IoError> {
    for (n, p) in parts.iter().enumerate() {
        if !p.indices.len().is_multiple_of(3) {
            return Err(IoError::field(path, format!("parts[{n}].indices"), "length is not a multiple of 3"));
        }
        if let Some(i) = p.indices.iter().find(|&&i| i as usize >= p.positions.len()) {
            return Err(IoError::field(
                path,
                format!("parts[{n}].indices"),
                format!("index {i} beyond {} vertices", p.positions.len()),
            ));
        }
        for (what, len) in [("normals", p.normals.len()), ("colors", p.colors.len())] {
            if len != 0 && len != p.positions.len() {
                return Err(IoError::field(
                    path,
                    format!("parts[{n}].{what}"),
                    format!("{len} for {} vertices", p.positions.len()),
                ));
            }
        }
        if p.positions.iter().flatten().chain(&p.origin.map(|v| v as f32)).any(|v| !v.is_finite()) {
            return Err(IoError::field(path, format!("parts[{n}].positions"), "not finite"));
        }
    }
    Ok(())
}

/// Writes `parts` as a binary glTF 2.0 file: one node per part, translated to its origin, with
/// `NORMAL` and `COLOR_0` when the parts have them. glTF is Y-up, so landfall's (x, y, z) is written
/// as (x, z, −y); read it back with gravity (0, −1, 0).
/// Crash-safe (temporary file, then rename).
pub fn write_glb(path: &Path, parts: &[MeshPart]) -> Result<(), IoError> {
    let mut out = OutputFile::create(path)?;
    glb_into(&mut out, parts)?;
    out.commit()
}

/// [`write_glb`] into an output that its caller commits.
fn glb_into(out: &mut OutputFile, parts: &[MeshPart]) -> Result<(), IoError> {
    let path = &out.path().to_path_buf();
    check(path, parts)?;
    let mut bin: Vec<u8> = Vec::new();
    let (mut views, mut accessors, mut meshes, mut nodes) = (vec![], vec![], vec![], vec![]);
    for p in parts {
        let mut node = json!({"name": p.name, "translation": [p.origin[0], p.origin[2], -p.origin[1]]});
        if !p.extras.is_null() {
            node["extras"] = p.extras.clone();
        }
        if p.indices.is_empty() {
            // No triangles (every sample a hole): a node without a mesh, since glTF allows no
            // empty accessor or buffer.
            nodes.push(node);
            continue;
        }
        let yup = |v: [f32; 3]| [v[0], v[2], -v[1]];
        let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        let start = bin.len();
        for v in &p.positions {
            let v = yup(*v);
            for a in 0..3 {
                lo[a] = lo[a].min(v[a]);
                hi[a] = hi[a].max(v[a]);
                bin.extend_from_slice(&v[a].to_le_bytes());
            }
        }
        views.push(json!({"buffer": 0, "byteOffset": start, "byteLength": bin.len() - start, "target": 34962}));
        if p.positions.is_empty() {
            (lo, hi) = ([0.0; 3], [0.0; 3]);
        }
        accessors.push(json!({"bufferView": views.len() - 1, "componentType": 5126, "count": p.positions.len(), "type": "VEC3", "min": lo, "max": hi}));
        let start = bin.len();
        for i in &p.indices {
            bin.extend_from_slice(&i.to_le_bytes());
        }
        views.push(json!({"buffer": 0, "byteOffset": start, "byteLength": bin.len() - start, "target": 34963}));
        accessors.push(
            json!({"bufferView": views.len() - 1, "componentType": 5125, "count": p.indices.len(), "type": "SCALAR"}),
        );
        let indices = accessors.len() - 1;
        let mut attributes = json!({"POSITION": accessors.len() - 2});
        for (key, values) in [("NORMAL", &p.normals), ("COLOR_0", &p.colors)] {
            if values.is_empty() {
                continue;
            }
            let start = bin.len();
            for v in values {
                // Normals turn with the axes; colours do not.
                let v = if key == "NORMAL" { yup(*v) } else { *v };
                for c in v {
                    bin.extend_from_slice(&c.to_le_bytes());
                }
            }
            views.push(json!({"buffer": 0, "byteOffset": start, "byteLength": bin.len() - start, "target": 34962}));
            accessors.push(
                json!({"bufferView": views.len() - 1, "componentType": 5126, "count": values.len(), "type": "VEC3"}),
            );
            attributes[key] = json!(accessors.len() - 1);
        }
        meshes.push(json!({"name": p.name, "primitives": [{"attributes": attributes, "indices": indices, "mode": 4}]}));
        node["mesh"] = json!(meshes.len() - 1);
        nodes.push(node);
    }
    let mut doc = json!({
        "asset": {"version": "2.0", "generator": "landfall"},
        "scene": 0,
        "scenes": [{"nodes": (0..nodes.len()).collect::<Vec<_>>()}],
        "nodes": nodes,
    });
    // glTF's arrays hold at least one item when present.
    if !meshes.is_empty() {
        doc["meshes"] = json!(meshes);
        doc["accessors"] = json!(accessors);
        doc["bufferViews"] = json!(views);
        doc["buffers"] = json!([{"byteLength": bin.len()}]);
    }
    let mut text = serde_json::to_vec(&doc).map_err(|e| IoError::format(path, e.to_string()))?;
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let bin_chunk = if bin.is_empty() { 0 } else { 8 + bin.len() };
    let total = 12 + 8 + text.len() + bin_chunk;
    let total = u32::try_from(total).map_err(|_| IoError::format(path, "mesh too large for a GLB file (4 GiB)"))?;
    let mut head = Vec::with_capacity(28);
    head.extend_from_slice(b"glTF");
    head.extend_from_slice(&2u32.to_le_bytes());
    head.extend_from_slice(&total.to_le_bytes());
    head.extend_from_slice(&(text.len() as u32).to_le_bytes());
    head.extend_from_slice(b"JSON");
    let mut bin_head = Vec::with_capacity(8);
    bin_head.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    bin_head.extend_from_slice(b"BIN\0");
    let chunks: &[&[u8]] = if bin.is_empty() { &[&head, &text] } else { &[&head, &text, &bin_head, &bin] };
    chunks.iter().try_for_each(|c| out.write_all(c).map_err(|e| IoError::os(path, e)))
}

/// Writes `parts` as a Wavefront OBJ file in landfall's coordinates (Z up), one object per part,
/// vertices in world coordinates printed exactly (shortest round-trip decimal of the f64 sum), with
/// vertex colours and normals when the parts have them.
/// Crash-safe (temporary file, then rename).
pub fn write_obj(path: &Path, parts: &[MeshPart]) -> Result<(), IoError> {
    let mut out = OutputFile::create(path)?;
    obj_into(&mut out, parts)?;
    out.commit()
}

/// [`write_obj`] into an output that its caller commits.
fn obj_into(file: &mut OutputFile, parts: &[MeshPart]) -> Result<(), IoError> {
    let path = &file.path().to_path_buf();
    check(path, parts)?;
    let mut out = String::from("# written by landfall\n");
    let mut base = 1usize;
    for p in parts {
        if !p.extras.is_null() {
            let _ = writeln!(out, "# extras {}", p.extras);
        }
        let _ = writeln!(out, "o {}", p.name.replace(char::is_whitespace, "_"));
        for (k, v) in p.positions.iter().enumerate() {
            let w = [p.origin[0] + v[0] as f64, p.origin[1] + v[1] as f64, p.origin[2] + v[2] as f64];
            match p.colors.get(k) {
                // Vertex colours after the position: read by Blender, MeshLab and most tools.
                Some(c) => _ = writeln!(out, "v {} {} {} {} {} {}", w[0], w[1], w[2], c[0], c[1], c[2]),
                None => _ = writeln!(out, "v {} {} {}", w[0], w[1], w[2]),
            }
        }
        for n in &p.normals {
            let _ = writeln!(out, "vn {} {} {}", n[0], n[1], n[2]);
        }
        for t in p.indices.chunks_exact(3) {
            let [a, b, c] = [0, 1, 2].map(|k| base + t[k] as usize);
            if p.normals.is_empty() {
                let _ = writeln!(out, "f {a} {b} {c}");
            } else {
                let _ = writeln!(out, "f {a}//{a} {b}//{b} {c}//{c}");
            }
        }
        base += p.positions.len();
    }
    file.write_all(out.as_bytes()).map_err(|e| IoError::os(path, e))
}

/// Writes `parts` as glTF binary or OBJ, by the file's extension (`.glb` or `.obj`).
pub fn write_mesh(path: &Path, parts: &[MeshPart]) -> Result<(), IoError> {
    let mut out = OutputFile::create(path)?;
    write_mesh_into(&mut out, parts)?;
    out.commit()
}

/// [`write_mesh`] into an output of an [`Outputs`](crate::Outputs) group, by its file's extension.
pub fn write_mesh_into(out: &mut OutputFile, parts: &[MeshPart]) -> Result<(), IoError> {
    match extension(out.path()).as_str() {
        "glb" => glb_into(out, parts),
        "obj" => obj_into(out, parts),
        other => Err(IoError::format(out.path(), format!("cannot write meshes as `.{other}`: use .glb or .obj"))),
    }
}
