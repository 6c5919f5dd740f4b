#!/usr/bin/env python3
"""Runs the code blocks of README.md and docs/*.md as a reader would paste them.

Every fenced block needs a language. ``sh`` blocks run in bash (``set -euo pipefail``) and
``python`` blocks in the given Python, one file's blocks in order in one scratch directory that
holds links to the repository's ``data``, ``crates``, ``scripts`` and ``docs`` (so a block's
relative paths resolve as from the repository's root, and its outputs land in the scratch
directory). ``landfall`` is on the PATH (``--bin``). ``rust`` blocks are compiled and run by
``cargo test`` as doctests of the library (``crates/landfall/src/lib.rs`` includes each file that
has one); this script checks that every such file is included. Other languages (``text``,
``toml``, ...) are not code to run.

A block that must not run (it takes hours, it is the test suite itself, it serves until Ctrl-C)
says so on the line before its fence, with the reason: ``<!-- not run: reason -->``. The summary
lists every such block.

    python3 scripts/run_docs.py --bin target/debug --python .venv/bin/python
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
RUN = {"sh", "python"}
DOCTEST = "rust"
FENCE = re.compile(r"^(\s*)(```+)(.*)$")
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(.*?)\s*-->$")
LINKED = ("data", "crates", "scripts", "docs", "Cargo.toml", "Cargo.lock", "README.md")


class Block:
    def __init__(self, path, line, lang, code, not_run):
        self.path, self.line, self.lang, self.code, self.not_run = path, line, lang, code, not_run

    def where(self):
        return f"{self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path}:{self.line}"


def blocks(path: pathlib.Path):
    """The fenced blocks of a Markdown file; raises ValueError on a block without a language or a
    marker without a reason."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out, k = [], 0
    while k < len(lines):
        m = FENCE.match(lines[k])
        if not m:
            k += 1
            continue
        indent, fence, lang = len(m.group(1)), m.group(2), m.group(3).strip().split(" ")[0]
        start = k + 1
        end = start
        while end < len(lines) and lines[end].strip() != fence:
            end += 1
        if end == len(lines):
            raise ValueError(f"{path}:{k + 1}: the block opened here is never closed")
        if not lang:
            raise ValueError(f"{path}:{k + 1}: a block without a language (```sh, ```python, ```rust, or ```text "
                             "for output and trees)")
        prev = next((lines[j].strip() for j in range(k - 1, -1, -1) if lines[j].strip()), "")
        not_run = None
        if prev.startswith("<!--") and "not run" in prev:
            mm = NOT_RUN.match(prev)
            if not mm or not mm.group(1):
                raise ValueError(f"{path}:{k}: write the marker as <!-- not run: the reason -->")
            not_run = mm.group(1)
        code = "\n".join(line[indent:] if line[:indent].strip() == "" else line.lstrip() for line in lines[start:end])
        out.append(Block(path, k + 1, lang, code + "\n", not_run))
        k = end + 1
    return out


def doctested(path: pathlib.Path) -> bool:
    """Whether the library's doctests include `path` (its rust blocks then run under cargo test)."""
    lib = (ROOT / "crates" / "landfall" / "src" / "lib.rs").read_text(encoding="utf-8")
    rel = os.path.relpath(path, ROOT / "crates" / "landfall" / "src")
    return f'include_str!("{rel}")' in lib


def scratch_dir(tmp: pathlib.Path) -> pathlib.Path:
    for name in LINKED:
        (tmp / name).symlink_to(ROOT / name)
    return tmp


def run_block(b: Block, cwd: pathlib.Path, env: dict, python: str, timeout: float):
    if b.lang == "sh":
        cmd = ["bash", "-c", "set -euo pipefail\n" + b.code]
    else:
        cmd = [python, "-c", b.code]
    start = time.monotonic()
    try:
        r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        code, out, err = r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:
        code, out, err = "timeout", e.stdout or "", e.stderr or ""
        if isinstance(out, bytes):
            out, err = out.decode(errors="replace"), (err or b"").decode(errors="replace")
    return code, out, err, time.monotonic() - start


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=pathlib.Path, help="Markdown files [README.md docs/*.md]")
    ap.add_argument("--bin", type=pathlib.Path, help="directory holding the `landfall` binary to put first on PATH")
    ap.add_argument("--python", default=sys.executable, help="the Python that runs python blocks and whose "
                    "directory (a venv's bin) goes on PATH for pip")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds a block may take")
    ap.add_argument("--list", action="store_true", help="list the blocks, run nothing")
    a = ap.parse_args(argv)
    files = a.files or [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    try:
        found = [b for f in files for b in blocks(f.resolve())]
    except ValueError as e:
        print(f"run_docs: {e}", file=sys.stderr)
        return 2
    problems = [f"{b.where()}: a rust block, but {b.path.name} is not among the library's doctests "
                f"(crates/landfall/src/lib.rs)" for b in found if b.lang == DOCTEST and not b.not_run
                and not doctested(b.path)]
    if a.list:
        for b in found:
            print(f"{b.where()}  {b.lang:7} {'not run: ' + b.not_run if b.not_run else ''}")
        return 0
    if os.sep in a.python:
        a.python = str(pathlib.Path(a.python).absolute())
    env = dict(os.environ)
    path = [str(a.bin.resolve()) if a.bin else None,
            str(pathlib.Path(a.python).parent) if os.sep in a.python else None, env.get("PATH", "")]
    env["PATH"] = os.pathsep.join(p for p in path if p)
    # Builds from the scratch directory's links share the repository's target directory.
    env.setdefault("CARGO_TARGET_DIR", str(target_dir()))
    env.pop("VIRTUAL_ENV", None)
    ran, skipped, failed = 0, [], []
    for f in files:
        mine = [b for b in found if b.path == f.resolve()]
        if not any(b.lang in RUN and not b.not_run for b in mine):
            skipped += [b for b in mine if b.not_run]
            continue
        with tempfile.TemporaryDirectory(prefix="landfall-docs-") as tmp:
            cwd = scratch_dir(pathlib.Path(tmp))
            for b in mine:
                if b.not_run:
                    skipped.append(b)
                    continue
                if b.lang not in RUN:
                    continue
                code, out, err, secs = run_block(b, cwd, env, a.python, a.timeout)
                ran += 1
                if code == 0:
                    print(f"ok      {b.where():24} {b.lang:6} {secs:6.1f} s", flush=True)
                else:
                    print(f"FAILED  {b.where():24} {b.lang:6} {secs:6.1f} s (exit {code})", flush=True)
                    failed.append((b, code, out, err))
    for b, code, out, err in failed:
        print(f"\n--- {b.where()} ({b.lang}) exited {code}:\n{b.code}--- stdout:\n{out[-4000:]}--- stderr:\n"
              f"{err[-4000:]}", file=sys.stderr)
    for p in problems:
        print(f"run_docs: {p}", file=sys.stderr)
    print(f"\n{ran} blocks run, {len(failed)} failed; rust blocks run as doctests under cargo test; "
          f"{len(skipped)} not run:")
    for b in skipped:
        print(f"  {b.where()}: {b.not_run}")
    return 1 if failed or problems else 0


def target_dir() -> pathlib.Path:
    """Cargo's target directory for the repository (CARGO_TARGET_DIR or the workspace's)."""
    import json

    r = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=ROOT,
                       capture_output=True, text=True, check=True)
    return pathlib.Path(json.loads(r.stdout)["target_directory"])


if __name__ == "__main__":
    sys.exit(main())
