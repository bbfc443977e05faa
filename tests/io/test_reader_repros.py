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
from test_io import write  # noqa: E402  (the io tests' file helper)
from testdata import data_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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


# ------------------------------------------------ repro 7: raw exceptions

GOOD_MTX = b"%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1.0\n2 2 2.0\n3 3 3.0\n"


def _corruptions():
    gz = gzip.compress(GOOD_MTX)
    bz = bz2.compress(GOOD_MTX)
    flipped = bytearray(gz)
    flipped[len(gz) // 2] ^= 0xFF
    bad_header = bytearray(gz)
    bad_header[3] = 0xFF  # reserved flag bits
    return {
        "gz_truncated": gz[:len(gz) - 12],
        "gz_cut_short": gz[:12],
        "gz_flipped": bytes(flipped),
        "gz_bad_crc": gz[:-8] + b"\0\0\0\0" + gz[-4:],
        "gz_bad_header": bytes(bad_header),
        "bz2_truncated": bz[:len(bz) // 2],
        "bz2_flipped": bz[:20] + bytes(b ^ 0x55 for b in bz[20:30]) + bz[30:],
    }


@pytest.mark.parametrize("kind", sorted(_corruptions()))
@pytest.mark.parametrize("how", ["path_mtx", "path_el", "stream"])
def test_corrupt_compressed_is_format_error(tmp_path, kind, how):
    raw = _corruptions()[kind]
    ext = ".gz" if kind.startswith("gz") else ".bz2"
    p = write(tmp_path, ("a.mtx" if how == "path_mtx" else "a.el") + ext, raw)
    with pytest.raises(FormatError) as e:
        if how == "stream":
            with open(p, "rb") as f:
                read(f)
        else:
            read(p)
    assert e.value.line is not None and e.value.path is not None
    assert str(p.name) in str(e.value)


def test_text_file_starting_with_BZh_is_text(tmp_path):
    p = write(tmp_path, "a.el", "BZh 1\n")
    with pytest.raises(FormatError, match="not a number"):
        read_edgelist(p)


HUGE = "1" * 5000


@pytest.mark.parametrize("text", [
    f"%%MatrixMarket matrix coordinate real general\n{HUGE} 3 1\n1 1 1\n",
    f"%%MatrixMarket matrix coordinate real general\n3 3 1\n{HUGE} 1 1\n",
    f"%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 {HUGE}\n",
    f"%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 -{HUGE}\n",
    "%%MatrixMarket matrix array real general\n4611686018427387903 4611686018427387903\n1\n",
    "%%MatrixMarket matrix array real symmetric\n4611686018427387903 4611686018427387903\n1\n",
])
def test_huge_numbers_mtx(tmp_path, text):
    p = write(tmp_path, "a.mtx", text)
    with pytest.raises(FormatError) as e:
        read_mtx(p)
    assert e.value.line in (2, 3) and len(str(e.value)) < 400


def test_huge_numbers_edgelist(tmp_path):
    with pytest.raises(FormatError, match="too large") as e:
        read_edgelist(write(tmp_path, "a.el", f"0 1\n{HUGE} 1\n"))
    assert e.value.line == 2
    # leading zeros are still the number
    A = read_edgelist(write(tmp_path, "b.el", "0 1\n" + "0" * 5000 + "2 1\n"))
    assert coo(A)[:2] == ([0, 2], [1, 1])


# ------------------------------------------ repro 8: a header's claim

@pytest.mark.parametrize("text,line", [
    ("%%MatrixMarket matrix coordinate real general\n1099511627776 1099511627776 2\n"
     "1 1 1.0\n1099511627776 5 2.0\n", 2),
    ("%%MatrixMarket matrix coordinate pattern symmetric\n%c\n1099511627776 1099511627776 1\n"
     "1 1\n", 3),
    ("%%MatrixMarket matrix coordinate real general\n3 1099511627776 1\n1 1 1.0\n", 2),
    ("%%MatrixMarket matrix array real general\n0 1099511627776\n", 2),
])
def test_mtx_claim_refused(tmp_path, text, line):
    p = write(tmp_path, "big.mtx", text)
    with pytest.raises(FormatError, match=r"1099511627776 .*8\.0 TiB") as e:
        read_mtx(p)
    assert e.value.line == line and "big.mtx" in str(e.value)


def test_edgelist_claim_refused(tmp_path):
    p = write(tmp_path, "big.el", "# c\n0 1\n\n300000000 5\n1 2\n")
    with pytest.raises(FormatError, match=r"300000001 .*2\.2 GiB") as e:
        read_edgelist(p)
    assert e.value.line == 4 and "big.el" in str(e.value)


def test_claim_budget_is_a_setting(tmp_path):
    p = write(tmp_path, "g.el", "0 1\n1000 5\n")
    assert read_edgelist(p).nrows == 1001
    with bg.settings.use(io={"claim_rows": 100}):
        with pytest.raises(FormatError, match="claim_rows = 100"):
            read_edgelist(p)
        # 64 x entries is allowed whatever the setting
        assert read_edgelist(write(tmp_path, "h.el", "0 1\n127 5\n")).nrows == 128
        m = "%%MatrixMarket matrix coordinate real general\n500 2 1\n1 1 1.0\n"
        with pytest.raises(FormatError, match="rows = 500"):
            read_mtx(write(tmp_path, "a.mtx", m))


# ------------------------------------- repro 2: GraphBLAS's strict rules

H = "%%MatrixMarket matrix coordinate real general\n"


def test_mtx_duplicates_are_an_error(tmp_path):
    # LAGraph's mangled14.mtx: (1,1) twice
    p = write(tmp_path, "d.mtx", H + "% c\n3 3 3\n1 1 10\n2 2 1\n1 1 0.5\n")
    with pytest.raises(FormatError, match=r"entry \(1, 1\) is listed again \(first on line 4\)") as e:
        read_mtx(p)
    assert e.value.line == 6 and "d.mtx" in str(e.value)
    assert coo(read_mtx(p, dup_op="plus"))[2] == [10.5, 1.0]
    assert coo(read(p, dup_op="max"))[2] == [10.0, 1.0]
    p = write(tmp_path, "p.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 3\n"
              "2 1\n1 2\n2 1\n")
    with pytest.raises(FormatError, match="listed again") as e:
        read_mtx(p)
    assert e.value.line == 5
    assert read_mtx(p, dup_op="any").nvals == 2


def test_mtx_symmetric_both_triangles(tmp_path):
    p = write(tmp_path, "s.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n"
              "2 1 1.5\n3 3 1\n1 2 1.5\n")
    with pytest.raises(FormatError, match="one triangle") as e:
        read_mtx(p)
    assert e.value.line == 5
    # the valid form still loads
    p = write(tmp_path, "t.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n"
              "2 1 1.5\n3 3 1\n")
    assert coo(read_mtx(p)) == ([0, 1, 2], [1, 0, 2], [1.5, 1.5, 1.0])


@pytest.mark.parametrize("value", ["2", "-1", "0.5"])
def test_mtx_bool_values_are_0_or_1(tmp_path, value):
    field = "real" if "." in value else "integer"
    p = write(tmp_path, "b.mtx", f"%%MatrixMarket matrix coordinate {field} general\n"
              f"%%GraphBLAS type bool\n3 3 2\n1 1 1\n2 2 {value}\n")
    with pytest.raises(FormatError, match="not 0 or 1") as e:
        read_mtx(p)
    assert e.value.line == 5


def test_mtx_bool_0_1_loads(tmp_path):
    p = write(tmp_path, "b.mtx", "%%MatrixMarket matrix coordinate integer general\n"
              "%%GraphBLAS type bool\n3 3 2\n1 1 1\n2 2 0\n")
    A = read_mtx(p)
    assert A.dtype == bool and coo(A)[2] == [True, False]


@pytest.mark.parametrize("t", ["uint8_t", "uint64_t", "bool"])
def test_mtx_unsigned_skew_refused(tmp_path, t):
    # LAGraph's mangled_skew.mtx: 12 mirrored as 244
    p = write(tmp_path, "k.mtx", "%%MatrixMarket matrix coordinate integer skew-symmetric\n"
              f"%%GraphBLAS type {t}\n3 3 1\n2 1 1\n")
    with pytest.raises(FormatError, match="skew-symmetric") as e:
        read_mtx(p)
    assert e.value.line == 2


def test_mtx_skew_diagonal_zero(tmp_path):
    p = write(tmp_path, "k.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n"
              "3 3 2\n2 1 1\n3 3 4\n")
    with pytest.raises(FormatError, match="diagonal") as e:
        read_mtx(p)
    assert e.value.line == 4
    p = write(tmp_path, "z.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n"
              "3 3 2\n2 1 1\n3 3 0\n")
    assert coo(read_mtx(p))[2] == [-1.0, 1.0, 0.0]


def test_edgelist_duplicates_are_an_error(tmp_path):
    p = write(tmp_path, "d.el", "# x\n0 1 1.0\n1 2 5\n0 1 2.5\n")
    with pytest.raises(FormatError, match=r"edge 0 1 is listed again \(first on line 2\)") as e:
        read_edgelist(p)
    assert e.value.line == 4
    assert coo(read_edgelist(p, dup_op="plus"))[2] == [3.5, 5.0]
    p = write(tmp_path, "o.el", "1 2\n2 3\n1 2\n")
    with pytest.raises(FormatError) as e:
        read_edgelist(p, one_based=True)
    assert e.value.line == 3 and "edge 1 2" in str(e.value)


def test_edgelist_undirected_both_directions(tmp_path):
    # an edge given once each way, same weight: one undirected edge
    p = write(tmp_path, "u.el", "0 1 2.0\n1 0 2.0\n1 2 3.0\n")
    assert coo(read_edgelist(p, directed=False)) == ([0, 1, 1, 2], [1, 0, 2, 1], [2.0, 2.0, 3.0, 3.0])
    # different weights, or given twice the same way: an error
    for text, line in (("0 1 2.0\n1 0 3.0\n", 2), ("0 1 2.0\n1 2 1\n0 1 2.0\n", 3),
                       ("0 1\n1 0\n0 1\n", 3), ("2 2\n2 2\n", 2)):
        with pytest.raises(FormatError, match="listed again") as e:
            read_edgelist(write(tmp_path, "v.el", text), directed=False)
        assert e.value.line == line, text


# --------------------------- repro 3: the %%GraphBLAS type line decides

# LAGraph's data/matrix_fp32.mtx (BSD-2-Clause); matrix_fp64.mtx says 'double'
LAGRAPH_FP32 = """%%MatrixMarket matrix coordinate integer general
%%GraphBLAS float
% Matrix from the cover of "Graph Algorithms in the Language of Linear
% Algebra", Kepner and Gilbert.  Note that cover shows A'.  This is A,
% but with different values for some entries.
7 7 12
4 1 -inf
1 2 inf
4 3 0
6 3 5
7 3 9
1 4 7
7 4 1
2 5 5
7 5 1
3 6 1
5 6 7
2 7 8
"""


@pytest.mark.parametrize("name,dtype", [("matrix_fp32.mtx", np.float32),
                                        ("matrix_fp64.mtx", np.float64)])
def test_lagraph_fp_files_load(tmp_path, name, dtype):
    text = LAGRAPH_FP32 if dtype == np.float32 else LAGRAPH_FP32.replace(
        "%%GraphBLAS float", "%%GraphBLAS double")
    A = read_mtx(write(tmp_path, name, text))
    assert A.shape == (7, 7) and A.nvals == 12 and A.dtype == dtype
    r, c, v = coo(A)
    got = dict(zip(zip(r, c), v))
    assert got[(3, 0)] == -np.inf and got[(0, 1)] == np.inf and got[(6, 2)] == 9.0


def test_type_line_forms(tmp_path):
    for line in ("%%GraphBLAS type double", "%%GraphBLAS double", "%%GraphBLAS type float64"):
        p = write(tmp_path, "a.mtx", "%%MatrixMarket matrix coordinate integer general\n"
                  f"{line}\n2 2 2\n1 1 -inf\n2 2 1e3\n")
        A = read_mtx(p)
        assert A.dtype == np.float64 and coo(A)[2] == [-np.inf, 1000.0], line


@pytest.mark.parametrize("t,value", [("float", "1e300"), ("float", "-3.5e38"),
                                     ("double", "1e400"), ("float", "1e400")])
def test_values_must_fit_the_type(tmp_path, t, value):
    p = write(tmp_path, "f.mtx", "%%MatrixMarket matrix coordinate real general\n"
              f"%%GraphBLAS type {t}\n2 2 2\n1 1 1\n2 2 {value}\n")
    with pytest.raises(FormatError, match="does not fit") as e:
        read_mtx(p)
    assert e.value.line == 5


def test_float_extremes_that_fit(tmp_path):
    p = write(tmp_path, "f.mtx", "%%MatrixMarket matrix coordinate real general\n"
              "%%GraphBLAS type float\n2 2 2\n1 1 3.4e38\n2 2 -Infinity\n")
    assert coo(read_mtx(p))[2] == [np.float32(3.4e38), -np.inf]


# ------------------------------------------- repro 4: exact integers

@pytest.mark.parametrize("field", ["integer", "real"])
@pytest.mark.parametrize("t,value,want", [
    ("int64_t", "9223372036854775808", None),
    ("int64_t", "9223372036854775807", 9223372036854775807),
    ("int64_t", "-9223372036854775808", -9223372036854775808),
    ("int64_t", "9007199254740993", 9007199254740993),
    ("uint64_t", "18446744073709551616", None),
    ("uint64_t", "18446744073709551615", 18446744073709551615),
    ("uint64_t", "-1", None),
    ("int32_t", "2147483648", None),
])
def test_integers_are_exact(tmp_path, field, t, value, want):
    p = write(tmp_path, "i.mtx", f"%%MatrixMarket matrix coordinate {field} general\n"
              f"%%GraphBLAS type {t}\n2 2 2\n1 1 3\n2 2 {value}\n")
    if want is None:
        with pytest.raises(FormatError, match="does not fit") as e:
            read_mtx(p)
        assert e.value.line == 5
    else:
        assert coo(read_mtx(p))[2] == [3, want]


@pytest.mark.parametrize("value,want", [("9.007199254740993e15", 9007199254740993),
                                        ("1.0", 1), ("0e-100", 0), ("1e50", None),
                                        ("1.5", "integer"), ("inf", "integer")])
def test_real_tokens_of_integer_types(tmp_path, value, want):
    p = write(tmp_path, "i.mtx", "%%MatrixMarket matrix coordinate real general\n"
              f"%%GraphBLAS type int64_t\n2 2 2\n1 1 3\n2 2 {value}\n")
    if want is None:
        with pytest.raises(FormatError, match="does not fit"):
            read_mtx(p)
    elif want == "integer":
        with pytest.raises(FormatError, match="is not an integer"):
            read_mtx(p)
    else:
        assert coo(read_mtx(p))[2] == [3, want]


# ----------------------------- repro 5: a stream is sniffed decompressed

@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress])
@pytest.mark.parametrize("banner", ["%%MatrixMarket", "%%matrixmarket"])
def test_compressed_stream_is_sniffed_after_decompression(tmp_path, compress, banner):
    text = f"{banner} matrix coordinate real general\n5 5 2\n1 2 0.5\n4 5 2.0\n"
    p = write(tmp_path, "u.mtx.gz", compress(text.encode()))
    with open(p, "rb") as f:
        A = read(f)
    assert A.shape == (5, 5) and coo(A) == ([0, 3], [1, 4], [0.5, 2.0])
    e = write(tmp_path, "u.el.gz", compress(b"0 1\n2 3\n"))
    with open(e, "rb") as f:
        assert coo(read(f)) == ([0, 2], [1, 3], None)


# ------------------------------------ repro 14: SNAP's undirected header

SNAP_UNDIRECTED = ("# Undirected graph: ../../data/output/roadNet-PA.txt\n"
                   "# Pennsylvania road network\n# Nodes: 4 Edges: 3\n"
                   "# FromNodeId\tToNodeId\n0\t1\n1\t2\n3\t2\n")


def test_snap_undirected_header(tmp_path):
    p = write(tmp_path, "roads.txt", SNAP_UNDIRECTED)
    A = read_edgelist(p)
    assert A.nvals == 6 and A.isequal(A.T)
    assert read(p).nvals == 6
    assert read_edgelist(p, directed=True).nvals == 3  # the caller decides
    # both directions listed (as SNAP's road networks do): still one edge each
    both = SNAP_UNDIRECTED + "1\t0\n2\t1\n2\t3\n"
    assert read_edgelist(write(tmp_path, "both.txt", both)).nvals == 6
    # a BFS reaches every vertex from 0
    from bitgraph.algorithms import bfs
    assert bfs(A, 0).nvals == 4 and bfs(read_edgelist(p, directed=True), 0).nvals == 3


@pytest.mark.parametrize("head", ["# Directed graph (each unordered pair of nodes is saved once): x\n",
                                  "# a graph, undirected graph mentioned mid-line\n", ""])
def test_other_headers_stay_directed(tmp_path, head):
    A = read_edgelist(write(tmp_path, "d.txt", head + "0 1\n1 2\n"))
    assert A.nvals == 2


def test_undirected_after_first_edge_is_not_a_header(tmp_path):
    A = read_edgelist(write(tmp_path, "d.txt", "0 1\n# Undirected graph\n1 2\n"))
    assert A.nvals == 2


# ------------------------------- repro 13: round trips of empty matrices

@pytest.mark.parametrize("values,dtype", [(None, None), ([], "int32"), ([], "float32"),
                                          ([], "uint64"), ([], "bool"), ([], "float64")])
@pytest.mark.parametrize("symmetric", [False, True])
def test_write_empty_round_trip(tmp_path, values, dtype, symmetric):
    e = np.zeros(0, np.int64)
    A = bg.Matrix.from_coo(e, e, None if values is None else np.array(values, dtype=dtype),
                           nrows=3, ncols=3, dtype=dtype)
    p = tmp_path / "e.mtx"
    write_mtx(p, A, symmetric=symmetric)
    banner = p.read_text().splitlines()[0]
    want = "pattern" if values is None else ("real" if "float" in dtype else "integer")
    assert banner == (f"%%MatrixMarket matrix coordinate {want} "
                      f"{'symmetric' if symmetric else 'general'}")
    B = read_mtx(p)
    assert B.shape == (3, 3) and B.nvals == 0 and B.dtype == A.dtype and B.iso == A.iso


# ---------------------------- repro 11: dtype= casts with the library's rule

def test_reader_dtype_casts_like_from_coo(tmp_path):
    vals = [np.inf, -np.inf, np.nan, 300.7, -2.9, 1e30]
    body = "".join(f"{i + 1} {i + 1} {v!r}\n" for i, v in enumerate(vals))
    m = write(tmp_path, "c.mtx", H + f"6 6 6\n{body}")
    el = write(tmp_path, "c.el", "".join(f"{i} {i} {v!r}\n" for i, v in enumerate(vals)))
    for dt in ("int8", "int32", "uint8", "uint64", "int64", "bool", "float32"):
        want = coo(bg.Matrix.from_coo(list(range(6)), list(range(6)), np.array(vals),
                                      nrows=6, ncols=6, dtype=dt))
        for A in (read_mtx(m, dtype=dt), read_edgelist(el, dtype=dt)):
            assert A.dtype == np.dtype(dt)
            got = coo(A)
            assert got[:2] == want[:2]
            np.testing.assert_array_equal(np.array(got[2]), np.array(want[2]))
    assert coo(read_mtx(m, dtype="int8"))[2] == [127, -128, 0, 127, -2, 127]


# ------------------------------- found by the fuzzer's reference reader

@pytest.mark.parametrize("weight", ["-1e400", "1e309", "1" * 400])
def test_edgelist_weight_that_overflows_is_refused(tmp_path, weight):
    # as in a 'real' Matrix Market file: a weight must fit float64
    p = write(tmp_path, "w.el", f"# w\n0 1 0.5\n1 2 {weight}\n2 0 1\n")
    with pytest.raises(FormatError, match="does not fit in float64") as e:
        read_edgelist(p)
    assert e.value.line == 3 and "w.el" in str(e.value)
    # the inf tokens are numbers, read as inf
    A = read_edgelist(write(tmp_path, "i.el", "0 1 -inf\n1 2 Infinity\n2 0 1e308\n"))
    assert coo(A)[2] == [-np.inf, np.inf, 1e308]


@pytest.mark.parametrize("text,line", [
    ("%%MatrixMarket\xa0matrix coordinate real general\n2 2 1\n1 1 1\n", 1),  # NBSP
    ("%%MatrixMarket matrix coordinate real general\n2\x852 1\n1 1 1\n", 2),  # NEL
    ("%%MatrixMarket matrix coordinate real general\n\x1c% c\n2 2 1\n1 1 1\n", 2),
])
def test_header_blanks_are_ascii(tmp_path, text, line):
    # Matrix Market separates words by blanks; latin-1's NBSP, NEL and
    # \x1c-\x1f are not blanks (nor are they in the body)
    p = write(tmp_path, "h.mtx", text.encode("latin-1"))
    with pytest.raises(FormatError) as e:
        read_mtx(p)
    assert e.value.line == line and "h.mtx" in str(e.value)


@pytest.mark.parametrize("t,lo", [("int8_t", -128), ("int16_t", -32768), ("int64_t", -2 ** 63)])
@pytest.mark.parametrize("fmt", ["coordinate", "array"])
def test_skew_mirror_of_the_most_negative_integer(tmp_path, t, lo, fmt):
    # -lo does not fit the type: it must not wrap round to lo
    body = f"3 3 2\n2 1 5\n3 2 {lo}\n" if fmt == "coordinate" else f"3 3\n5\n0\n{lo}\n"
    p = write(tmp_path, "k.mtx", f"%%MatrixMarket matrix {fmt} integer skew-symmetric\n"
              f"%%GraphBLAS type {t}\n{body}")
    with pytest.raises(FormatError, match=f"its mirror {-lo} does not fit") as e:
        read_mtx(p)
    assert e.value.line == (5 if fmt == "coordinate" else 6)
    ok = write(tmp_path, "o.mtx", f"%%MatrixMarket matrix {fmt} integer skew-symmetric\n"
               f"%%GraphBLAS type {t}\n" + body.replace(str(lo), str(lo + 1)))
    A = read_mtx(ok)
    assert A.dtype == np.dtype(t.removesuffix("_t"))
    got = dict(zip(zip(*coo(A)[:2]), coo(A)[2]))
    assert got[(2, 1)] == lo + 1 and got[(1, 2)] == -(lo + 1) and got[(1, 0)] == 5


@pytest.mark.parametrize("value", ["0.99999999999999999999", "1.00000000000000000001",
                                   "1e-400"])
def test_bool_values_exactly_0_or_1(tmp_path, value):
    # read as float64 these are 1.0 or 0.0: the type line asks for 0 or 1 exactly
    p = write(tmp_path, "b.mtx", "%%MatrixMarket matrix coordinate real general\n"
              f"%%GraphBLAS type bool\n2 2 2\n1 1 1.0\n2 2 {value}\n")
    with pytest.raises(FormatError, match="not 0 or 1") as e:
        read_mtx(p)
    assert e.value.line == 5
    p = write(tmp_path, "c.mtx", "%%MatrixMarket matrix coordinate real general\n"
              "%%GraphBLAS type bool\n2 2 2\n1 1 1.000\n2 2 0e5\n")
    assert coo(read_mtx(p))[2] == [True, False]


def test_negative_zero_keeps_its_sign(tmp_path):
    # scipy's array reader (the edge lists' weights, array files) reads
    # '-0.0' as 0.0; the readers keep the token's sign
    el = read_edgelist(write(tmp_path, "z.el", "0 1 -0.\n1 2 0.0\n2 0 -0e5\n0 2 -1\n"))
    assert np.signbit(coo(el)[2]).tolist() == [True, True, False, True]
    for fmt, body in (("array", "2 2\n-0.0\n0\n-.0\n-2\n"),
                      ("coordinate", "2 2 4\n1 1 -0.0\n2 1 0\n1 2 -.0\n2 2 -2\n")):
        for t in ("", "%%GraphBLAS type float\n"):
            A = read_mtx(write(tmp_path, "z.mtx", f"%%MatrixMarket matrix {fmt} real general\n{t}{body}"))
            r, c, v = coo(A)
            assert dict(zip(zip(r, c), np.signbit(v).tolist())) == {
                (0, 0): True, (1, 0): False, (0, 1): True, (1, 1): True}, (fmt, t)


@pytest.mark.parametrize("t", ["", "%%GraphBLAS type int8_t\n", "%%GraphBLAS type float\n"])
def test_array_skew_1x1_has_its_zero_diagonal(tmp_path, t):
    # an array file is dense: 1 x 1 skew-symmetric lists no value, its (1,1) is 0
    for field in ("integer", "real"):
        A = read_mtx(write(tmp_path, "k.mtx", f"%%MatrixMarket matrix array {field} skew-symmetric\n"
                           f"{t}1 1\n"))
        assert A.shape == (1, 1) and coo(A) == ([0], [0], [0])


def test_array_skew_mirror_of_zero_is_negative_zero(tmp_path):
    # the mirror is -x, as in a coordinate file: -0.0 for 0.0, 0.0 for -0.0
    A = read_mtx(write(tmp_path, "k.mtx", "%%MatrixMarket matrix array real skew-symmetric\n"
                       "3 3\n0\n2\n0\n"))
    B = read_mtx(write(tmp_path, "c.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                       "3 3 3\n2 1 0\n3 1 2\n3 2 0\n"))
    for M in (A, B):
        r, c, v = coo(M)
        got = {(i, j): (x, bool(np.signbit(x))) for i, j, x in zip(r, c, v)}
        assert got[(0, 1)] == (0.0, True) and got[(1, 0)] == (0.0, False)
        assert got[(0, 2)] == (-2.0, True) and got[(2, 0)] == (2.0, False)
