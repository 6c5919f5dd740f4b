//! Polygon meshes in: Wavefront `.obj` (each face one polygon, exactly as written) and glTF 2.0
//! (`.gltf` with external or embedded buffers, `.glb`), node transforms applied.
//!
//! OBJ is read by a small parser of our own rather than `tobj`: QOTA needs each face as written (no
//! triangulation, any vertex count), coordinates in f64 (UTM eastings lose metres in f32), and a
//! user needs the line number of a bad face — `tobj` gives none of the three by default.

use crate::input::{read_regular, MAX_WHOLE_FILE_BYTES};
use crate::IoError;
use glam::{DMat4, DVec3};
use landfall::PolygonSoup;
use std::path::{Path, PathBuf};

/// Reads a polygon mesh by extension: `.obj`, `.gltf`, `.glb`.
pub fn read_mesh(path: &Path) -> Result<PolygonSoup, IoError> {
    match crate::extension(path).as_str() {
        "obj" => read_obj(path),
        "gltf" | "glb" => read_gltf(path),
        other => Err(IoError::format(path, format!("'.{other}' is not a mesh format (use .obj, .gltf or .glb)"))),
    }
}

/// True when the extension names a mesh format.
pub fn is_mesh(path: &Path) -> bool {
    matches!(crate::extension(path).as_str(), "obj" | "gltf" | "glb")
}

/// Reads the `v` and `f` statements of a Wavefront OBJ file; other statements are ignored. Face
/// entries may be `v`, `v/vt`, `v//vn` or `v/vt/vn`, with 1-based or negative (relative) indices.
pub fn read_obj(path: &Path) -> Result<PolygonSoup, IoError> {
    let text = read_regular(path, MAX_WHOLE_FILE_BYTES, "the mesh file limit")?;
    let text = String::from_utf8_lossy(&text);
    let mut vertices: Vec<DVec3> = Vec::new();
    let mut soup = PolygonSoup::new();
    let mut face = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let mut words = raw.split('#').next().unwrap_or("").split_whitespace();
        match words.next() {
            Some("v") => {
                let mut c = [0.0; 3];
                for (a, slot) in c.iter_mut().enumerate() {
                    let w = words.next().ok_or_else(|| IoError::line(path, line, "vertex needs x y z"))?;
                    *slot = w.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| {
                        IoError::line(path, line, format!("vertex {} '{w}' is not a finite number", ["x", "y", "z"][a]))
                    })?;
                }
                vertices.push(DVec3::from_array(c));
            }
            Some("f") => {
                face.clear();
                for w in words {
                    let first = w.split('/').next().unwrap_or("");
                    let idx: i64 = first
                        .parse()
                        .map_err(|_| IoError::line(path, line, format!("face index '{w}' is not an integer")))?;
                    let n = vertices.len() as i64;
                    let at = if idx > 0 { idx - 1 } else { n + idx };
                    if idx == 0 || at < 0 || at >= n {
                        return Err(IoError::line(
                            path,
                            line,
                            format!("face index {idx} refers to no vertex ({n} defined so far)"),
                        ));
                    }
                    face.push(vertices[at as usize]);
                }
                if face.len() < 3 {
                    return Err(IoError::line(path, line, format!("a face needs 3 vertices, got {}", face.len())));
                }
                soup.push(&face);
            }
            _ => {}
        }
    }
    if soup.is_empty() {
        return Err(IoError::format(path, "no faces ('f' lines) in the file"));
    }
    Ok(soup)
}

/// Reads every triangle primitive of a glTF scene (the default scene, else all), each node's
/// transform applied (in f64). Buffers may be the GLB binary chunk, external files or base64 `data:`
/// URIs. Coordinates are kept as they are: glTF is Y-up by convention, so pass gravity (0, −1, 0)
/// for a file that follows it.
pub fn read_gltf(path: &Path) -> Result<PolygonSoup, IoError> {
    let bytes = read_regular(path, MAX_WHOLE_FILE_BYTES, "the mesh file limit")?;
    let invalid = |e: gltf::Error| IoError::format(path, format!("not valid glTF: {e}"));
    let unchecked = gltf::Gltf::from_slice_without_validation(&bytes).map_err(invalid)?;
    check_position_accessors(path, unchecked.document.as_json())?;
    let blob = unchecked.blob;
    let document = gltf::Document::from_json(unchecked.document.into_json()).map_err(invalid)?;
    let gltf = gltf::Gltf { document, blob };
    let base = path.parent().unwrap_or(Path::new("."));
    let mut blob = gltf.blob.clone();
    let mut buffers = Vec::new();
    for b in gltf.document.buffers() {
        let field = format!("buffers[{}]", b.index());
        let data = match b.source() {
            gltf::buffer::Source::Bin => {
                blob.take().ok_or_else(|| IoError::field(path, &field, "refers to a missing GLB binary chunk"))?
            }
            gltf::buffer::Source::Uri(uri) => load_uri(path, base, uri, &field)?,
        };
        if data.len() < b.length() {
            return Err(IoError::field(path, field, format!("holds {} bytes, needs {}", data.len(), b.length())));
        }
        buffers.push(data);
    }
    let doc = &gltf.document;
    let parents = node_parents(path, doc)?;
    let roots: Vec<gltf::Node> = match doc.default_scene().or_else(|| doc.scenes().next()) {
        Some(scene) => {
            if let Some((n, p)) = scene.nodes().find_map(|n| parents[n.index()].map(|p| (n.index(), p))) {
                return Err(IoError::field(
                    path,
                    format!("scenes[{}].nodes", scene.index()),
                    format!("lists nodes[{n}], a child of nodes[{p}]: a scene's nodes must be roots"),
                ));
            }
            scene.nodes().collect()
        }
        None => doc.nodes().filter(|n| parents[n.index()].is_none()).collect(),
    };
    let mut soup = PolygonSoup::new();
    let mut triangles = 0usize;
    // The hierarchy is a set of trees (checked): each node is visited once per time its root is listed.
    let mut stack: Vec<(gltf::Node, DMat4)> = roots.into_iter().map(|n| (n, DMat4::IDENTITY)).collect();
    while let Some((node, parent)) = stack.pop() {
        let m = parent * DMat4::from_cols_array_2d(&node.transform().matrix().map(|c| c.map(f64::from)));
        if let Some(mesh) = node.mesh() {
            for prim in mesh.primitives() {
                let field = format!("meshes[{}].primitives[{}]", mesh.index(), prim.index());
                if prim.mode() != gltf::mesh::Mode::Triangles {
                    return Err(IoError::field(
                        path,
                        field,
                        format!("mode {:?}: only triangles are read", prim.mode()),
                    ));
                }
                let positions: Vec<DVec3> = {
                    let acc = prim
                        .get(&gltf::Semantic::Positions)
                        .ok_or_else(|| IoError::field(path, &field, "has no POSITION attribute"))?;
                    let f = format!("{field} POSITION (accessors[{}])", acc.index());
                    if acc.dimensions() != gltf::accessor::Dimensions::Vec3
                        || acc.data_type() != gltf::accessor::DataType::F32
                    {
                        let msg = format!(
                            "is {:?} of {:?}; positions must be VEC3 of f32",
                            acc.dimensions(),
                            acc.data_type()
                        );
                        return Err(IoError::field(path, f, msg));
                    }
                    let bytes = accessor_bytes(path, &f, &acc, &buffers)?;
                    bytes
                        .map(|e| {
                            let c = |k: usize| f32::from_le_bytes([e[4 * k], e[4 * k + 1], e[4 * k + 2], e[4 * k + 3]]);
                            m.transform_point3(DVec3::new(c(0) as f64, c(1) as f64, c(2) as f64))
                        })
                        .collect()
                };
                if let Some(k) = positions.iter().position(|p| !p.is_finite()) {
                    return Err(IoError::field(
                        path,
                        &field,
                        format!("position {k} is not finite (after the node transforms)"),
                    ));
                }
                let indices: Vec<u32> = match prim.indices() {
                    Some(acc) => {
                        use gltf::accessor::DataType;
                        let f = format!("{field} indices (accessors[{}])", acc.index());
                        let size = match acc.data_type() {
                            DataType::U8 => 1,
                            DataType::U16 => 2,
                            DataType::U32 => 4,
                            t => {
                                return Err(IoError::field(
                                    path,
                                    f,
                                    format!("component type {t:?}: indices must be u8, u16 or u32"),
                                ))
                            }
                        };
                        if acc.dimensions() != gltf::accessor::Dimensions::Scalar {
                            return Err(IoError::field(
                                path,
                                f,
                                format!("is {:?}; indices must be SCALAR", acc.dimensions()),
                            ));
                        }
                        accessor_bytes(path, &f, &acc, &buffers)?
                            .map(|e| match size {
                                1 => e[0] as u32,
                                2 => u16::from_le_bytes([e[0], e[1]]) as u32,
                                _ => u32::from_le_bytes([e[0], e[1], e[2], e[3]]),
                            })
                            .collect()
                    }
                    None => (0..positions.len() as u32).collect(),
                };
                triangles += indices.len() / 3;
                if triangles > MAX_TRIANGLES {
                    return Err(IoError::field(
                        path,
                        format!("nodes[{}]", node.index()),
                        format!(
                            "the scene's meshes, placed by its nodes, make more than {MAX_TRIANGLES} triangles \
                             (the limit of a glTF scene)"
                        ),
                    ));
                }
                for tri in indices.chunks_exact(3) {
                    let get = |k: u32| {
                        positions.get(k as usize).copied().ok_or_else(|| {
                            IoError::field(path, &field, format!("index {k} is past the {} positions", positions.len()))
                        })
                    };
                    soup.push(&[get(tri[0])?, get(tri[1])?, get(tri[2])?]);
                }
            }
        }
        stack.extend(node.children().map(|c| (c, m)));
    }
    if soup.is_empty() {
        return Err(IoError::format(path, "no triangles in the scene"));
    }
    Ok(soup)
}

/// The most triangles a glTF scene may place (its meshes as often as its nodes use them): 2²⁶,
/// about 5 GB as a polygon soup, so a small file whose nodes reuse a large mesh cannot claim more.
pub const MAX_TRIANGLES: usize = 1 << 26;

/// Each node's parent, after checking that the node hierarchy is a set of trees as glTF requires:
/// no node the child of two nodes or of itself, and none below a cycle (such a file would be
/// walked without end, or reuse its meshes without bound).
fn node_parents(path: &Path, doc: &gltf::Document) -> Result<Vec<Option<usize>>, IoError> {
    let n = doc.nodes().len();
    let mut parent: Vec<Option<usize>> = vec![None; n];
    for node in doc.nodes() {
        for c in node.children() {
            let field = format!("nodes[{}]", c.index());
            if c.index() == node.index() {
                return Err(IoError::field(path, field, "is its own child: glTF's nodes form trees"));
            }
            if let Some(p) = parent[c.index()] {
                let why = format!("is a child of both nodes[{p}] and nodes[{}]: glTF's nodes form trees", node.index());
                return Err(IoError::field(path, field, why));
            }
            parent[c.index()] = Some(node.index());
        }
    }
    // With one parent at most, a node no root reaches lies on or below a cycle.
    let mut reached = vec![false; n];
    let mut stack: Vec<gltf::Node> = doc.nodes().filter(|d| parent[d.index()].is_none()).collect();
    while let Some(d) = stack.pop() {
        reached[d.index()] = true;
        stack.extend(d.children());
    }
    if let Some(k) = reached.iter().position(|r| !r) {
        let why = "is on a cycle of the node hierarchy (or below one): glTF's nodes form trees";
        return Err(IoError::field(path, format!("nodes[{k}]"), why));
    }
    Ok(parent)
}

/// Checks that every primitive's POSITION names an existing accessor: the glTF crate's validation
/// indexes the accessors by it unchecked (a panic inside `gltf-json` 1.4, found by fuzzing). The
/// rest of the document's references are checked by that validation itself.
fn check_position_accessors(path: &Path, root: &gltf::json::Root) -> Result<(), IoError> {
    use gltf::json::validation::Checked;
    let accessors = root.accessors.len();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (k, prim) in mesh.primitives.iter().enumerate() {
            if let Some(pos) = prim.attributes.get(&Checked::Valid(gltf::Semantic::Positions)) {
                if pos.value() >= accessors {
                    return Err(IoError::field(
                        path,
                        format!("meshes[{m}].primitives[{k}] POSITION"),
                        format!("{} names no accessor (there are {accessors})", pos.value()),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The elements of an accessor, each as its bytes, after checking everything the file declares:
/// a buffer view, no sparse storage, no normalisation, a stride at least one element long, and every
/// element inside the view and the view inside its buffer. The glTF crate's own reader panics on
/// some of these (a stride shorter than an element); this one never does.
fn accessor_bytes<'b>(
    path: &Path,
    field: &str,
    acc: &gltf::Accessor,
    buffers: &'b [Vec<u8>],
) -> Result<impl Iterator<Item = &'b [u8]> + 'b, IoError> {
    let err = |msg: String| IoError::field(path, field, msg);
    if acc.sparse().is_some() {
        return Err(err("sparse accessors are not supported".into()));
    }
    if acc.normalized() {
        return Err(err("normalized accessors are not supported".into()));
    }
    let view = acc.view().ok_or_else(|| err("has no bufferView".into()))?;
    let elem = acc.size();
    let stride = view.stride().unwrap_or(elem);
    if stride < elem {
        return Err(err(format!(
            "bufferViews[{}] byteStride {stride} is shorter than one element ({elem} bytes)",
            view.index()
        )));
    }
    let buffer = buffers.get(view.buffer().index()).ok_or_else(|| err("refers to a missing buffer".into()))?;
    let view_end = view.offset().checked_add(view.length()).filter(|&e| e <= buffer.len()).ok_or_else(|| {
        err(format!(
            "bufferViews[{}] (bytes {}..+{}) runs past its buffer of {} bytes",
            view.index(),
            view.offset(),
            view.length(),
            buffer.len()
        ))
    })?;
    let count = acc.count();
    let start = view.offset().checked_add(acc.offset());
    let end = match count {
        0 => start,
        n => start
            .and_then(|s| stride.checked_mul(n - 1).and_then(|d| s.checked_add(d)))
            .and_then(|s| s.checked_add(elem)),
    };
    let (start, end) = match (start, end) {
        (Some(s), Some(e)) if e <= view_end => (s, e),
        _ => {
            return Err(err(format!(
                "{count} elements from byte {} run past bufferViews[{}]",
                acc.offset(),
                view.index()
            )))
        }
    };
    let data = &buffer[start..end.max(start)];
    Ok((0..count).map(move |k| &data[k * stride..k * stride + elem]))
}

/// Bytes of a buffer URI: `data:…;base64,…` or a file inside the model's folder ([`buffer_file`]).
fn load_uri(path: &Path, base: &Path, uri: &str, field: &str) -> Result<Vec<u8>, IoError> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (_, data) =
            rest.split_once(";base64,").ok_or_else(|| IoError::field(path, field, "data URI is not base64"))?;
        return base64_decode(data).ok_or_else(|| IoError::field(path, field, "data URI holds invalid base64"));
    }
    let file = buffer_file(base, uri).map_err(|why| IoError::field(path, field, why))?;
    read_regular(&file, MAX_WHOLE_FILE_BYTES, "the mesh file limit")
        .map_err(|e| IoError::field(path, field, e.to_string()))
}

/// The file an external buffer `uri` names, resolved inside the model's folder `base`: a model is
/// data, not a set of paths, so a URI with a scheme (`file:`, `http://`), an absolute path, a `..`
/// component, or a name whose real path (symbolic links followed) leaves the folder is refused.
fn buffer_file(base: &Path, uri: &str) -> Result<PathBuf, String> {
    let shown = crate::quote(uri);
    let scheme = uri.split_once(':').is_some_and(|(s, _)| {
        s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if scheme {
        return Err(format!(
            "URI '{shown}' is not a file in the model's folder (only relative paths and data: URIs are read)"
        ));
    }
    let name = percent_decode(uri);
    let parts: Vec<&str> = name.split(['/', '\\']).collect();
    if name.is_empty() || name.contains('\0') || name.starts_with(['/', '\\']) || parts.contains(&"..") {
        return Err(format!(
            "URI '{shown}' leaves the model's folder (absolute paths and '..' are refused; put the buffer beside the model)"
        ));
    }
    let file = base.join(parts.iter().filter(|p| !p.is_empty() && **p != ".").collect::<PathBuf>());
    let folder = std::fs::canonicalize(if base.as_os_str().is_empty() { Path::new(".") } else { base })
        .map_err(|e| format!("the model's folder: {e}"))?;
    match std::fs::canonicalize(&file) {
        Ok(real) if !real.starts_with(&folder) => Err(format!(
            "URI '{shown}' is a link to {} outside the model's folder",
            crate::quote(&real.display().to_string())
        )),
        _ => Ok(file),
    }
}

/// The files a model at `path` reads besides itself: its external glTF buffers (those that resolve
/// inside its folder). Empty for other files, and for a model that cannot be parsed (reading it
/// reports why).
pub fn model_buffers(path: &Path) -> Vec<PathBuf> {
    let ext = crate::extension(path);
    if ext != "gltf" && ext != "glb" {
        return Vec::new();
    }
    let Ok((file, len)) = crate::input::open_regular(path) else { return Vec::new() };
    // The JSON alone: all of a .gltf, the first chunk of a .glb (bounded, whatever it declares).
    let mut head = Vec::new();
    if std::io::Read::read_to_end(&mut std::io::Read::take(file, len.min(64 << 20)), &mut head).is_err() {
        return Vec::new();
    }
    let json = if head.starts_with(b"glTF") && head.len() >= 20 {
        let n = u32::from_le_bytes([head[12], head[13], head[14], head[15]]) as usize;
        &head[20..(20 + n).min(head.len())]
    } else {
        &head[..]
    };
    let Ok(root) = gltf::json::deserialize::from_slice::<gltf::json::Root>(json) else { return Vec::new() };
    let base = path.parent().unwrap_or(Path::new(""));
    root.buffers
        .iter()
        .filter_map(|b| b.uri.as_deref())
        .filter(|u| !u.starts_with("data:"))
        .filter_map(|u| buffer_file(base, u).ok())
        .collect()
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut k = 0;
    while k < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[k] == b'%' && k + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[k + 1]), hex(b[k + 2])) {
                out.push((h * 16 + l) as u8);
                k += 3;
                continue;
            }
        }
        out.push(b[k]);
        k += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let clean: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b'=').collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let mut acc = 0u32;
        for (k, &c) in chunk.iter().enumerate() {
            acc |= val(c)? << (18 - 6 * k);
        }
        let n = match chunk.len() {
            4 => 3,
            3 => 2,
            2 => 1,
            _ => return None,
        };
        out.extend_from_slice(&acc.to_be_bytes()[1..1 + n]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_numbers() {
        assert_eq!(base64_decode("TWFu").unwrap(), b"Man");
        assert_eq!(base64_decode("TWE=").unwrap(), b"Ma");
        assert_eq!(base64_decode("TQ==").unwrap(), b"M");
        assert!(base64_decode("T").is_none());
        assert!(base64_decode("T!==").is_none());
        assert_eq!(percent_decode("a%20b.bin"), "a b.bin");
        assert_eq!(percent_decode("a%2"), "a%2");
    }

    /// Buffer URIs stay inside the model's folder: no scheme, no absolute path, no `..`, no link out.
    #[test]
    fn buffer_uris_stay_in_the_models_folder() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        std::fs::write(d.path().join("sub/a.bin"), b"x").unwrap();
        assert_eq!(buffer_file(d.path(), "sub/a.bin").unwrap(), d.path().join("sub/a.bin"));
        assert_eq!(buffer_file(d.path(), "./sub/%61.bin").unwrap(), d.path().join("sub/a.bin"));
        for bad in [
            "/etc/passwd",
            "../../../../etc/passwd",
            "sub/../../x",
            "%2Fetc%2Fpasswd",
            "..%2Fx",
            "file:/etc/passwd",
            "file:///etc/passwd",
            "http://example.com/a.bin",
            "C:/x",
            "\\\\server\\x",
            "",
        ] {
            assert!(buffer_file(d.path(), bad).is_err(), "{bad}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc/passwd", d.path().join("link.bin")).unwrap();
            assert!(buffer_file(d.path(), "link.bin").unwrap_err().contains("outside"));
        }
    }
}
