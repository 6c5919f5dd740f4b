"""scripts/run_docs.py finds every block, runs sh and python blocks, fails on a failing block, and
refuses a block without a language or a "not run" marker without a reason."""

import importlib.util
import pathlib
import sys

_spec = importlib.util.spec_from_file_location("run_docs", pathlib.Path(__file__).with_name("run_docs.py"))
run_docs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_docs)


def _doc(tmp_path, text):
    p = tmp_path / "doc.md"
    p.write_text(text, encoding="utf-8")
    return p


def test_blocks_run_in_order_in_one_directory(tmp_path, capsys):
    p = _doc(tmp_path, "# t\n\n```sh\necho 41 > n.txt\ntest -d data\n```\n\ntext\n\n```python\n"
                       "print(int(open('n.txt').read()) + 1)\n```\n\n```text\nnot code\n```\n")
    assert run_docs.main([str(p), "--python", sys.executable]) == 0
    out = capsys.readouterr().out
    assert out.count("ok ") == 2 and "2 blocks run, 0 failed" in out


def test_a_failing_block_fails_the_run_and_shows_itself(tmp_path, capsys):
    p = _doc(tmp_path, "```sh\ntrue\n```\n\n```sh\nfalse\necho never\n```\n")
    assert run_docs.main([str(p)]) == 1
    cap = capsys.readouterr()
    assert "FAILED" in cap.out and "doc.md:5" in cap.err


def test_not_run_blocks_need_a_reason_and_are_listed(tmp_path, capsys):
    p = _doc(tmp_path, "<!-- not run: takes an hour -->\n```sh\nfalse\n```\n")
    assert run_docs.main([str(p)]) == 0
    assert "doc.md:2: takes an hour" in capsys.readouterr().out
    p = _doc(tmp_path, "<!-- not run -->\n```sh\nfalse\n```\n")
    assert run_docs.main([str(p)]) == 2


def test_every_block_needs_a_language(tmp_path, capsys):
    p = _doc(tmp_path, "```\nls\n```\n")
    assert run_docs.main([str(p)]) == 2
    assert "without a language" in capsys.readouterr().err


def test_rust_blocks_must_be_doctests(tmp_path, capsys):
    p = _doc(tmp_path, "```rust\nfn main() {}\n```\n")
    assert run_docs.main([str(p)]) == 1
    assert "not among the library's doctests" in capsys.readouterr().err
    # The README's are.
    assert run_docs.doctested(run_docs.ROOT / "README.md")
