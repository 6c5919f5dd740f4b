#!/usr/bin/env python3
"""The public API of a crate, one item per line, sorted: what `docs/api.txt` holds.

Reads the rustdoc JSON of a crate (`cargo +nightly rustdoc -p CRATE --lib -- -Z unstable-options
--output-format json`) and walks it from the crate root the way a user reaches items: public
modules, re-exports under the name they are exported as, fields, variants, inherent methods and
constants, trait methods, and the trait impls written in the crate (auto traits and blanket impls
left out). Hidden items (`#[doc(hidden)]`) are not in the JSON, so they are not listed. Types in
signatures are rendered by their last path segment, so moving a type between private modules does
not change the listing; changing a signature, a field or an attribute such as `#[non_exhaustive]`
does.

Usage: public_api.py target/doc/landfall.json > docs/api.txt
"""
import json
import sys


def main(path):
    doc = json.load(open(path))
    index = doc["index"]
    item = lambda i: index.get(str(i))
    lines = set()

    def ty(t):
        if t is None:
            return "()"
        (k, v), = t.items()
        if k == "resolved_path":
            return v["path"].split("::")[-1] + args(v.get("args"))
        if k in ("primitive", "generic"):
            return v
        if k == "borrowed_ref":
            life = v["lifetime"] + " " if v["lifetime"] else ""
            return "&" + life + ("mut " if v["is_mutable"] else "") + ty(v["type"])
        if k == "raw_pointer":
            return ("*mut " if v["is_mutable"] else "*const ") + ty(v["type"])
        if k == "slice":
            return "[" + ty(v) + "]"
        if k == "array":
            return "[" + ty(v["type"]) + "; " + v["len"] + "]"
        if k == "tuple":
            return "(" + ", ".join(ty(x) for x in v) + ")"
        if k in ("impl_trait", "dyn_trait"):
            bounds = v if k == "impl_trait" else v["traits"]
            names = [bound(b) for b in bounds]
            return ("impl " if k == "impl_trait" else "dyn ") + " + ".join(n for n in names if n)
        if k == "qualified_path":
            return "<" + ty(v["self_type"]) + ">::" + v["name"]
        if k == "function_pointer":
            s = v["sig"]
            return "fn(" + ", ".join(ty(t) for _, t in s["inputs"]) + ") -> " + ty(s["output"])
        return k

    def bound(b):
        if "trait_bound" in b:
            t = b["trait_bound"]["trait"]
            return ("?" if b["trait_bound"]["modifier"] == "maybe" else "") + t["path"].split("::")[-1] + args(t.get("args"))
        if "trait" in b:  # dyn_trait's entries
            return b["trait"]["path"].split("::")[-1] + args(b["trait"].get("args"))
        return b.get("outlives", "")

    def args(a):
        if not a:
            return ""
        if "angle_bracketed" in a:
            out = []
            for x in a["angle_bracketed"]["args"]:
                out.append(ty(x["type"]) if "type" in x else x.get("lifetime") or str(x.get("const", "")))
            for c in a["angle_bracketed"]["constraints"]:
                out.append(c["name"] + " = " + ty(c["binding"].get("equality", {}).get("type")))
            return "<" + ", ".join(out) + ">" if out else ""
        if "parenthesized" in a:
            p = a["parenthesized"]
            return "(" + ", ".join(ty(t) for t in p["inputs"]) + ") -> " + ty(p["output"])
        return ""

    def generics(g):
        ps = []
        for p in g["params"]:
            k = p["kind"]
            if "type" in k and k["type"].get("is_synthetic"):
                continue  # an argument's `impl Trait`, shown in the argument
            if "type" in k:
                bs = [bound(b) for b in k["type"]["bounds"]]
                ps.append(p["name"] + (": " + " + ".join(bs) if bs else ""))
            elif "const" in k:
                ps.append("const " + p["name"] + ": " + ty(k["const"]["type"]))
            elif "lifetime" in k and not p["name"].startswith("'_"):
                ps.append(p["name"])
        return "<" + ", ".join(ps) + ">" if ps else ""

    def attrs(it):
        out = []
        for a in it.get("attrs", []):
            text = a if isinstance(a, str) else next(iter(a)) if isinstance(a, dict) else str(a)
            if "non_exhaustive" in text:
                out.append("#[non_exhaustive] ")
            if "must_use" in text:
                out.append("#[must_use] ")
        return "".join(out)

    def fn(name, f):
        s = f["sig"]
        h = f["header"]
        q = ("const " if h["is_const"] else "") + ("unsafe " if h["is_unsafe"] else "") + ("async " if h["is_async"] else "")
        ins = ", ".join((n + ": " if n != "self" else "") + ty(t) for n, t in s["inputs"])
        out = "" if s["output"] is None else " -> " + ty(s["output"])
        return q + "fn " + name + generics(f["generics"]) + "(" + ins + ")" + out

    def assoc(prefix, ids, trait=False):
        for i in ids:
            it = item(i)
            if it is None or (not trait and it["visibility"] != "public"):
                continue
            (k, v), = it["inner"].items()
            name = prefix + "::" + it["name"]
            if k == "function":
                lines.add("pub " + fn(name, v))
            elif k == "assoc_const":
                lines.add("pub const " + name + ": " + ty(v["type"]))
            elif k == "assoc_type":
                lines.add("pub type " + name)

    def impls(path, ids):
        for i in ids:
            im = item(i)
            if im is None:
                continue
            v = im["inner"]["impl"]
            if v["is_synthetic"] or v["blanket_impl"] is not None or (v["trait"] or {}).get("path", "").endswith("StructuralPartialEq"):
                continue
            if v["trait"] is None:
                assoc(path, v["items"])
            elif im.get("crate_id", 0) == 0:
                t = v["trait"]
                lines.add("impl " + t["path"].split("::")[-1] + args(t.get("args")) + " for " + path)

    def walk(path, it, seen):
        if it is None or it["id"] in seen:
            return
        (k, v), = it["inner"].items()
        a = attrs(it)
        if k == "module":
            lines.add(a + "pub mod " + path)
            for i in v["items"]:
                child = item(i)
                if child is None or child["visibility"] != "public":
                    continue
                if "use" in child["inner"]:
                    u = child["inner"]["use"]
                    target = item(u["id"]) if u["id"] is not None else None
                    if u["is_glob"] or target is None:
                        lines.add("pub use " + path + "::" + u["name"] + (" (*)" if u["is_glob"] else "") + " = " + u["source"])
                        continue
                    walk(path + "::" + u["name"], target, seen | {it["id"]})
                else:
                    walk(path + "::" + child["name"], child, seen | {it["id"]})
        elif k == "struct":
            lines.add(a + "pub struct " + path + generics(v["generics"]))
            kind = v["kind"]
            if "plain" in kind:
                for f in kind["plain"]["fields"]:
                    fi = item(f)
                    lines.add("pub " + path + "::" + fi["name"] + ": " + ty(fi["inner"]["struct_field"]))
                if kind["plain"]["has_stripped_fields"]:
                    lines.add("pub " + path + " (private fields)")
            elif "tuple" in kind:
                fs = ["_" if f is None else ty(item(f)["inner"]["struct_field"]) for f in kind["tuple"]]
                lines.add("pub " + path + "(" + ", ".join(fs) + ")")
            impls(path, v["impls"])
        elif k == "enum":
            lines.add(a + "pub enum " + path + generics(v["generics"]))
            for var in v["variants"]:
                vi = item(var)
                vk = vi["inner"]["variant"]["kind"]
                desc = ""
                if isinstance(vk, dict) and "tuple" in vk:
                    desc = "(" + ", ".join("_" if f is None else ty(item(f)["inner"]["struct_field"]) for f in vk["tuple"]) + ")"
                elif isinstance(vk, dict) and "struct" in vk:
                    desc = " { " + ", ".join(item(f)["name"] + ": " + ty(item(f)["inner"]["struct_field"]) for f in vk["struct"]["fields"]) + " }"
                lines.add(attrs(vi) + "pub " + path + "::" + vi["name"] + desc)
            impls(path, v["impls"])
        elif k == "trait":
            lines.add(a + ("pub unsafe trait " if v["is_unsafe"] else "pub trait ") + path + generics(v["generics"]))
            assoc(path, v["items"], trait=True)
        elif k == "function":
            lines.add(a + "pub " + fn(path, v))
        elif k == "constant":
            lines.add("pub const " + path + ": " + ty(v["type"]))
        elif k == "static":
            lines.add("pub static " + path + ": " + ty(v["type"]))
        elif k == "type_alias":
            lines.add("pub type " + path + generics(v["generics"]) + " = " + ty(v["type"]))
        elif k == "macro":
            lines.add("pub macro " + path)
        elif k == "union":
            lines.add("pub union " + path)

    root = item(doc["root"])
    name = root["name"]
    walk(name, root, frozenset())
    # Grouped by item: a type's line, then its fields, variants, methods and impls.
    for line in sorted(lines, key=lambda l: (item_path(l, name), l)):
        print(line)


def item_path(line, name):
    """The item a line is about: the path it names (a member's line sorts under its type)."""
    word = next((w for w in line.split() if w == name or w.startswith(name + "::")), line)
    return word.split("(")[0].split("<")[0].rstrip(":").split("::")


if __name__ == "__main__":
    main(sys.argv[1])
