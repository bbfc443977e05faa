"""Issue 30's reader repros: files that crashed the process, hung, raised a
raw exception, claimed terabytes, or were accepted or loaded wrong."""

import bz2
import gzip
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import bitgraph as bg
from bitgraph.errors import FormatError
from bitgraph.io import read, read_edgelist, read_mtx, write_mtx
from testdata import data_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


def coo(A):
    r, c, v = A.to_coo()
    return np.asarray(r).tolist(), np.asarray(c).tolist(), (None if A.iso else np.asarray(v).tolist())


def run_child(code):
    """Run ``code`` in a fresh interpreter: a crash (signal) shows as a
    negative return code instead of killing the test run."""
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=300)


# ------------------------------------------------ repro 1: process killed

CRASHERS = {
    # a last line ending in a blank, no final newline: scipy SIGSEGV
    "blank_eof.mtx": ("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1.0 ",
                      ([0], [0], [1.0]), (1, 1)),
    "tab_eof.mtx": ("%%MatrixMarket matrix coordinate real general\n2 2 1\n2 1 -3\t",
                    ([1], [0], [-3.0]), (2, 2)),
    "pattern_blank_eof.mtx": ("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 2  ",
                              ([1], [1], None), (2, 2)),
    # an array of 0 rows: scipy SIGFPE
    "array0.mtx": ("%%MatrixMarket matrix array real general\n0 3\n", ([], [], []), (0, 3)),
    "array0_int.mtx": ("%%MatrixMarket matrix array integer general\n4 0\n", ([], [], []), (4, 0)),
}


@pytest.mark.parametrize("name", sorted(CRASHERS))
def test_scipy_crashers_load_in_a_child(tmp_path, name):
    text, want, shape = CRASHERS[name]
    p = write(tmp_path, name, text)
    r = run_child(f"""
        import bitgraph as bg
        A = bg.io.read_mtx({str(p)!r})
        r, c, v = A.to_coo()
        print(A.shape, r.tolist(), c.tolist(), None if A.iso else v.tolist())
    """)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert r.stdout.strip() == f"{shape} {want[0]} {want[1]} {want[2]}"


# ------------------------------------------- repro 6: linear tokenising

@pytest.mark.parametrize("line", [
    "0 1 " + "1" * 200_000 + "x\n",          # a weight that is almost a number
    "0 1 " + "1" * 100_000 + "." + "1" * 100_000 + "e\n",
    "0 " + "1" * 200_000 + "x 2\n",          # an id
])
def test_long_bad_token_is_rejected_fast(tmp_path, line):
    p = write(tmp_path, "r.el", "0 1 1.0\n" + line)
    with pytest.raises(FormatError):  # warm: numba compiled
        read_edgelist(write(tmp_path, "w.el", "0 1 1.0\n0 x 2\n"))
    t = time.perf_counter()
    with pytest.raises(FormatError) as e:
        read_edgelist(p)
    assert time.perf_counter() - t < 2.0
    assert "line 2" in str(e.value) or ":2:" in str(e.value)
    assert len(str(e.value)) < 400  # the token is quoted cut short


def test_real_re_is_linear():
    from bitgraph.io.scan import REAL_RE

    t = time.perf_counter()
    assert not REAL_RE.match(b"1" * 100_000 + b"x")
    assert REAL_RE.match(b"1" * 1000 + b".5e-3") and REAL_RE.match(b"-.5") and REAL_RE.match(b"7.")
    assert time.perf_counter() - t < 1.0


def test_long_lines_quoted_short(tmp_path):
    p = write(tmp_path, "a.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 "
              + "9" * 50_000 + "q\n")
    with pytest.raises(FormatError) as e:
        read_mtx(p)
    assert len(str(e.value)) < 400
    p = write(tmp_path, "b.mtx", "%%MatrixMarket matrix coordinate real " + "x" * 50_000 + "\n")
    with pytest.raises(FormatError) as e:
        read_mtx(p)
    assert len(str(e.value)) < 400
