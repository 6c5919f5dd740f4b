"""Hostile use from Python (issue 70): Ctrl-C during a long call, allocation failure, a mapped
index changed under a query, pickles that would open another file. Each risky case runs in a
child interpreter, so a crash fails the test instead of killing the test run."""

import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import landfall


def _child(code, timeout=120):
    """Runs ``code`` in a fresh interpreter; its return code, stdout and stderr."""
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def test_ctrl_c_stops_a_long_call_within_half_a_second():
    # The first array-returning call of the process (once a PanicException about NumPy's capsule).
    code = """
        import os, signal, threading, time
        # A shell's background job inherits SIGINT ignored, and Python then leaves it ignored:
        # Ctrl-C's KeyboardInterrupt is what is tested, whatever started the test.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import numpy as np, landfall
        t = landfall.Heightfield.from_array(np.random.default_rng(1).random((513, 513)) * 50)
        n = 4_000_000
        o = np.column_stack([np.random.default_rng(2).random(n) * 500, np.full(n, 256.0), np.full(n, 100.0)])
        d = np.tile([0.001, 1.0, -0.02], (n, 1))
        sent = []
        def interrupt():
            time.sleep(0.3)
            sent.append(time.perf_counter())
            os.kill(os.getpid(), signal.SIGINT)
        threading.Thread(target=interrupt).start()
        start = time.perf_counter()
        try:
            for _ in range(1000):
                t.raycast(o, d)
            print("finished", time.perf_counter() - start)
        except KeyboardInterrupt:
            print("interrupted", time.perf_counter() - sent[0])
    """
    rc, out, err = _child(code)
    assert rc == 0, err
    word, secs = out.split()
    assert word == "interrupted", out
    assert float(secs) < 0.5, out


def test_ctrl_c_stops_world_paths_and_steps():
    # A batch of paths stops between paths; a long step between its half-second steps (a single
    # step of 1,000 s once ran for minutes without looking at signals).
    code = """
        import os, signal, threading, time
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import numpy as np, landfall
        w = landfall.World(viewer=(0.0, 0.0, 100.0), seed=1)
        a = np.random.default_rng(3).uniform(-300.0, 300.0, (5000, 2))
        for name, run in [("paths", lambda: w.paths(a, a[::-1])), ("step", lambda: w.step(1e6))]:
            sent = []
            def interrupt():
                time.sleep(1.0)
                sent.append(time.perf_counter())
                os.kill(os.getpid(), signal.SIGINT)
            threading.Thread(target=interrupt).start()
            start = time.perf_counter()
            try:
                run()
                print(name, "finished", time.perf_counter() - start)
            except KeyboardInterrupt:
                print(name, "interrupted", time.perf_counter() - sent[0])
    """
    rc, out, err = _child(code, timeout=300)
    assert rc == 0, err
    for line, name in zip(out.splitlines(), ["paths", "step"]):
        got, word, secs = line.split()
        assert (got, word) == (name, "interrupted"), out
        assert float(secs) < 5.0, out


def test_allocation_failure_raises_memory_error():
    code = """
        import resource
        import numpy as np, landfall
        t = landfall.Heightfield.from_array(np.zeros((64, 64)))
        t.raycast([[1.0, 1.0, 5.0]], [[0.0, 0.0, -1.0]])  # worker threads start before the limit
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # the answers need 2.6 GB more
        n = 20_000_000
        try:
            o = np.zeros((n, 3)); o[:, 2] = 10.0
            d = np.zeros((n, 3)); d[:, 2] = 1.0  # straight up: every ray misses at once
            m = np.full(n, np.inf)
        except MemoryError:
            print("inputs")  # the test needs the inputs to fit
            raise SystemExit
        try:
            r = t.raycast(o, d, m)
            print("answered", r.hit.sum())
        except MemoryError as e:
            print("MemoryError")
    """
    rc, out, err = _child(code, timeout=300)
    assert rc == 0, f"exit {rc}: {err[-2000:]}"
    assert out.strip() == "MemoryError", out


def _lfh(cli, tmp_path, n, name):
    """A heightfield index of an n × n raster, built by the CLI."""
    raster = tmp_path / f"{name}.npy"
    h = (np.sin(np.arange(n * n).reshape(n, n) * 0.01) * 10).astype("<f4")
    np.save(raster, h)
    out = tmp_path / f"{name}.lfh"
    cli("build", raster, "-o", out)
    return out


def test_an_index_replaced_in_place_is_an_error_not_sigbus(cli, tmp_path):
    big, small = _lfh(cli, tmp_path, 700, "big"), _lfh(cli, tmp_path, 20, "small")
    code = f"""
        import numpy as np, landfall
        t = landfall.open({str(big)!r})
        x = np.arange(20000) % 699.0
        t.height(x, x[::-1])
        open({str(big)!r}, "wb").write(open({str(small)!r}, "rb").read())  # cp small.lfh big.lfh
        try:
            t.height(x, x[::-1])
            print("answered")
        except OSError as e:
            print("OSError", e)
    """
    rc, out, err = _child(code)
    assert rc == 0, f"exit {rc}: {err[-2000:]}"
    assert out.startswith("OSError") and "big.lfh" in out, out


def test_a_pickle_names_the_file_absolutely_and_refuses_another(cli, tmp_path, monkeypatch):
    a = _lfh(cli, tmp_path, 20, "a")
    monkeypatch.chdir(tmp_path)
    t = landfall.open("a.lfh")
    blob = pickle.dumps(t)
    # Unpickled elsewhere: the same file, not ./a.lfh there.
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.chdir(other)
    np.save(other / "a.npy", np.zeros((3, 3), dtype="<f4"))
    u = pickle.loads(blob)
    assert u.info()["nx"] == 20
    # The file replaced by another: refused.
    b = _lfh(cli, tmp_path, 30, "b")
    os.replace(b, a)
    with pytest.raises(ValueError, match="not the file that was pickled"):
        pickle.loads(blob)


def test_polygons_at_extreme_scales_answer_or_refuse(tmp_path):
    obj = tmp_path / "t.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n")
    t = landfall.open(obj)
    # A flat triangle at 1e100 is ground, not a wall (once NaN).
    t.insert_polygon(np.array([[0, 0, 1], [1e100, 0, 1], [0, 1e100, 1]], float))
    assert t.height(0.25, 0.25) == 1.0
    assert t.height(1e99, 1e99) == 1.0
    # Beyond ±1e150: refused, naming why.
    with pytest.raises(ValueError, match="1e150"):
        t.insert_polygon(np.array([[0, 0, 2], [1e300, 0, 2], [0, 1e300, 2]], float))
    # A 1e-160 triangle is degenerate, as the CLI says when building: refused, nothing added.
    with pytest.raises(ValueError, match="degenerate"):
        t.insert_polygon(np.array([[0, 0, 3], [1e-160, 0, 3], [0, 1e-160, 3]], float))
    assert t.height(0.0, 0.0) == 1.0
