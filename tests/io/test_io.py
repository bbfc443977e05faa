"""bitgraph.io: Matrix Market and edge-list reading, Matrix Market writing.

Raw parse results (``_read_mtx_data`` / ``_read_edgelist_data``) are tested
apart from the Matrix they become, so the parsers are checked on their own.
"""

import ast
import bz2
import gzip
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse

import bitgraph as bg
from bitgraph.errors import FormatError, InvalidValue
from bitgraph.io import read, read_edgelist, read_mtx, write_mtx
from bitgraph.io.edgelist import _read_edgelist_data
from bitgraph.io.mtx import _read_mtx_data
from bitgraph.io.scan import scan_py
from testdata import data_file, data_files

DATA_FILES = data_files(exclude="mangled*")
MANGLED = data_files("mangled*.mtx")


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


def coo_of(A):
    """(rows, cols, values) of a Matrix; values None when structure-only."""
    r, c, v = A.to_coo()
    return np.asarray(r), np.asarray(c), (None if A.iso else np.asarray(v))


def summed(rows, cols, vals, shape):
    """Duplicates summed, sorted by (row, col): the reference for a Matrix."""
    data = np.ones(len(rows)) if vals is None else vals
    S = scipy.sparse.coo_array((data, (rows, cols)), shape=shape).tocsr()
    S.sum_duplicates()
    S.sort_indices()
    S = S.tocoo()
    return S.row, S.col, S.data


# ------------------------------------------------------------ data files

def scipy_reference(name):
    ref = "west0067.mtx" if name == "west0067_jumbled.mtx" else name
    return scipy.io.mmread(data_file(ref))  # scipy cannot read the jumbled file


def header_of(path):
    banner = Path(path).read_text().splitlines()[0].split()
    gb = re.search(r"^%%GraphBLAS type (\S+)", Path(path).read_text(), re.M)
    return banner[3], banner[4], (gb.group(1) if gb else None)


EXPECTED_DTYPE = {"pattern": np.bool_, "integer": np.int64, "real": np.float64}
GB = {"int8_t": np.int8, "int32_t": np.int32, "double": np.float64, "bool": np.bool_}


@pytest.mark.parametrize("name", DATA_FILES)
def test_data_file_raw_matches_scipy(name):
    path = data_file(name)
    d = _read_mtx_data(path)
    ref = scipy_reference(name)
    field, symmetry, gb = header_of(path)
    assert (d.nrows, d.ncols) == ref.shape
    got = sorted(zip(d.rows.tolist(), d.cols.tolist(),
                     [None] * len(d.rows) if d.values is None else d.values.tolist()))
    want = sorted(zip(ref.row.tolist(), ref.col.tolist(),
                      [None] * ref.nnz if field == "pattern" else ref.data.tolist()))
    if field == "pattern":
        assert d.values is None
        assert [g[:2] for g in got] == [w[:2] for w in want]
    else:
        gr = np.array([g[2] for g in got], dtype=np.float64)
        wr = np.array([w[2] for w in want], dtype=np.float64)
        assert [g[:2] for g in got] == [w[:2] for w in want]
        np.testing.assert_array_equal(gr, wr)
    # dtype rules: a type line names the dtype (a pattern's too, as LAGraph
    # reads it: value 1 of that type); else pattern -> bool structure-only
    if gb is not None:
        assert d.dtype == GB[gb]
    elif field == "pattern":
        assert d.dtype == np.bool_
    else:
        assert d.dtype == EXPECTED_DTYPE[field]
    # symmetric expansion: every off-diagonal entry has its mirror
    if symmetry in ("symmetric", "skew-symmetric"):
        pairs = set(zip(d.rows.tolist(), d.cols.tolist()))
        assert all((c, r) in pairs for r, c in pairs)


@pytest.mark.parametrize("name", DATA_FILES)
def test_data_file_matrix(name):
    path = data_file(name)
    A = read(path)
    ref = scipy_reference(name)
    field, _, _ = header_of(path)
    assert (A.nrows, A.ncols) == ref.shape
    r, c, v = coo_of(A)
    wr, wc, wv = summed(ref.row, ref.col, None if field == "pattern" else ref.data, ref.shape)
    np.testing.assert_array_equal(r, wr)
    np.testing.assert_array_equal(c, wc)
    if field == "pattern" and A.dtype == np.bool_:
        assert A.iso
    elif field == "pattern":  # a typed pattern (LAGraph's structure.mtx): value 1 of its type
        assert header_of(path)[0] == "pattern" and set(np.asarray(v).tolist()) == {1}
    else:
        np.testing.assert_array_equal(v.astype(np.float64), wv)


def test_data_file_details():
    d = _read_mtx_data(data_file("matrix_int8.mtx"))
    assert d.dtype == np.int8 and d.values.dtype == np.int8
    assert d.values.min() == -128 and d.values.max() == 127
    d = _read_mtx_data(data_file("empty.mtx"))
    assert (d.nrows, d.ncols, len(d.rows), d.dtype) == (3, 4, 0, np.int32)
    d = _read_mtx_data(data_file("skew_fp64.mtx"))
    vals = dict(zip(zip(d.rows.tolist(), d.cols.tolist()), d.values.tolist()))
    assert vals[(3, 0)] == -vals[(0, 3)] and vals[(4, 0)] == np.inf and vals[(0, 4)] == -np.inf
    d = _read_mtx_data(data_file("structure.mtx"))  # pattern with 'type int32_t': as LAGraph
    assert d.values is None and d.dtype == np.int32
    A = read(data_file("structure.mtx"))
    assert (A.dtype, A.nvals, set(coo_of(A)[2].tolist())) == (np.int32, 12, {1})
    A = read(data_file("karate.mtx"))
    assert (A.nrows, A.nvals, A.dtype, A.iso) == (34, 156, np.bool_, True)
    A = read(data_file("matrix_int8.mtx"), dtype=np.float32)
    assert A.dtype == np.float32
    A = read(data_file("karate.mtx"), dtype=np.int32)
    assert A.dtype == np.int32 and set(coo_of(A)[2].tolist()) == {1}


@pytest.mark.parametrize("name,line,words", [
    ("mangled1.mtx", 1, "object must be 'matrix'"),
    ("mangled5.mtx", 1, "pattern matrix cannot be hermitian"),
    ("mangled8.mtx", 4, "size line"),
    ("mangled10.mtx", 6, "2 of the 3 entries"),
])
def test_mangled_data_files(name, line, words):
    path = data_file(name)
    with pytest.raises(FormatError) as e:
        read(path)
    msg = str(e.value)
    assert msg.startswith(f"{path}:{line}: "), msg
    assert words in msg
    assert e.value.line == line and e.value.path == str(path)


def test_every_mangled_file_is_covered():
    assert MANGLED == ["mangled1.mtx", "mangled10.mtx", "mangled5.mtx", "mangled8.mtx"]


def test_gzip_and_bz2_mtx(tmp_path):
    src = data_file("bcsstk13.mtx").read_bytes()
    write(tmp_path, "b.mtx.gz", gzip.compress(src))
    write(tmp_path, "b.mtx.bz2", bz2.compress(src))
    ref = _read_mtx_data(data_file("bcsstk13.mtx"))
    for name in ("b.mtx.gz", "b.mtx.bz2"):
        d = _read_mtx_data(tmp_path / name)
        np.testing.assert_array_equal(d.rows, ref.rows)
        np.testing.assert_array_equal(d.values, ref.values)
    A = read(tmp_path / "b.mtx.gz")
    assert A.nvals == len(ref.rows)


# ------------------------------------------------------------ malformed mtx

H = "%%MatrixMarket matrix coordinate real general\n"
HP = "%%MatrixMarket matrix coordinate pattern general\n"
HI = "%%MatrixMarket matrix coordinate integer general\n"

MANGLED_CASES = [
    # (id, text, line or None, words in the message)
    ("empty", "", 1, "empty file"),
    ("blank", "\n  \n", 1, "empty file"),
    ("only-comments", "% a comment\n% another\n", 1, "not a Matrix Market file"),
    ("bad-banner", "%%MatrixMarkt matrix coordinate real general\n2 2 0\n", 1,
     "not a Matrix Market file"),
    ("banner-words", "%%MatrixMarket matrix coordinate real\n2 2 0\n", 1, "5 words"),
    ("bad-object", "%%MatrixMarket vector coordinate real general\n2 2 0\n", 1,
     "object must be 'matrix', found 'vector'"),
    ("bad-format", "%%MatrixMarket matrix sparse real general\n2 2 0\n", 1,
     "format must be 'coordinate' or 'array', found 'sparse'"),
    ("bad-field", "%%MatrixMarket matrix coordinate float general\n2 2 0\n", 1,
     "field must be one of real, integer, pattern, found 'float'"),
    ("bad-symmetry", "%%MatrixMarket matrix coordinate real upper\n2 2 0\n", 1,
     "symmetry must be one of"),
    ("pattern-hermitian", "%%MatrixMarket matrix coordinate pattern hermitian\n2 2 0\n",
     1, "pattern matrix cannot be hermitian"),
    ("pattern-skew", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 0\n",
     1, "pattern matrix cannot be skew-symmetric"),
    ("complex", "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1 0\n",
     1, "complex matrices are not supported"),
    ("complex-type", H + "%%GraphBLAS type double complex\n2 2 0\n", 2,
     "complex matrices are not supported"),
    ("unknown-type", H + "%%GraphBLAS type quaternion\n2 2 0\n", 2, "not a known type"),
    ("truncated-size", H + "% c\n3 3\n1 1 1\n", 3, "size line must hold 3 integers"),
    ("no-size-line", H + "% only a comment\n", 2, "ends before the size line"),
    ("size-nonint", H + "3 x 2\n1 1 1\n2 2 2\n", 2, "found 'x'"),
    ("size-float", H + "3 3.0 2\n1 1 1\n2 2 2\n", 2, "found '3.0'"),
    ("size-negative", H + "3 -3 2\n1 1 1\n2 2 2\n", 2, "found '-3'"),
    ("size-4", H + "3 3 2 1\n1 1 1\n2 2 2\n", 2, "found 4"),
    ("sym-not-square", "%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n", 2,
     "must be square"),
    ("fewer", H + "3 3 3\n1 1 1\n2 2 2\n", 4, "2 of the 3 entries"),
    ("fewer-blank-tail", H + "3 3 3\n1 1 1\n2 2 2\n\n\n", 6, "2 of the 3 entries"),
    ("none", H + "3 3 2\n", 2, "0 of the 2 entries"),
    ("more", H + "3 3 2\n1 1 1\n2 2 2\n3 3 3\n", 5, "more entries than the 2"),
    ("more-after-comment", H + "3 3 1\n1 1 1\n% c\n3 3 3\n", 5, "more entries than the 1"),
    ("index-0", H + "3 3 2\n1 1 1\n0 2 2\n", 4, "row index 0 is out of range 1..3"),
    ("col-0", HP + "3 3 2\n1 1\n2 0\n", 4, "column index 0 is out of range 1..3"),
    ("index-big", H + "3 3 2\n1 1 1\n2 4 2\n", 4, "column index 4 is out of range 1..3"),
    ("row-big", H + "3 5 2\n1 1 1\n4 4 2\n", 4, "row index 4 is out of range 1..3"),
    ("index-negative", H + "3 3 2\n1 1 1\n-2 2 2\n", 4, "row index -2 is out of range"),
    ("index-float", H + "3 3 2\n1 1 1\n2.0 2 2\n", 4, "row index '2.0' is not an integer"),
    ("index-huge", H + "3 3 1\n99999999999999999999999 1 1\n", 3, "out of range 1..3"),
    ("non-numeric", H + "3 3 2\n1 1 1\n2 2 abc\n", 4, "value 'abc' is not a number"),
    ("non-numeric-index", H + "3 3 2\n1 x 1\n2 2 2\n", 3, "column index 'x' is not an integer"),
    ("missing-value", H + "3 3 2\n1 1 1\n2 2\n", 4, "expected 3 values 'row col value', found 2"),
    ("extra-token", H + "3 3 2\n1 1 1 7\n2 2 2\n", 3, "found 4"),
    ("pattern-extra", HP + "3 3 2\n1 1\n2 2 5\n", 4, "expected 2 values 'row col', found 3"),
    ("pattern-short", HP + "3 3 2\n1\n2 2\n", 3, "found 1"),
    ("float-in-int", HI + "3 3 2\n1 1 1\n2 2 1.5\n", 4, "value '1.5' is not an integer"),
    ("int-overflow", HI + "3 3 1\n1 1 99999999999999999999\n", 3, "does not fit in int64"),
    ("two-dots", H + "3 3 2\n1 1 1.5.5\n2 2 2\n", 3, "'1.5.5' is not a number"),
    ("dangling-exp", H + "3 3 2\n1 1 1e\n2 2 2\n", 3, "'1e' is not a number"),
    ("inner-sign", H + "3 3 2\n1 1 1-2\n2 2 2\n", 3, "'1-2' is not a number"),
    ("hexfloat", H + "3 3 2\n1 1 0x1p3\n2 2 2\n", 3, "'0x1p3' is not a number"),
    ("infx", H + "3 3 2\n1 1 infx\n2 2 2\n", 3, "'infx' is not a number"),
    ("nani", H + "3 3 2\n1 1 nani\n2 2 2\n", 3, "'nani' is not a number"),
    ("comma-value", H + "3 3 2\n1 1 1,5\n2 2 2\n", 3, "'1,5' is not a number"),
    ("inline-comment", H + "3 3 2\n1 1 1 % note\n2 2 2\n", 3, "found 5"),
    ("int8-range", HI + "%%GraphBLAS type int8_t\n3 3 2\n1 1 5\n2 2 300\n", 5,
     "300 does not fit in int8"),
    ("uint-negative", HI + "%%GraphBLAS type uint16_t\n3 3 1\n1 1 -1\n", 4,
     "-1 does not fit in uint16"),
    ("real-to-int-type", H + "%%GraphBLAS type int32_t\n3 3 1\n1 1 2.5\n", 4,
     "not an integer"),
    ("array-short", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 5,
     "3 of the 4 entries"),
    ("array-two-per-line", "%%MatrixMarket matrix array real general\n2 2\n1 2\n3\n4\n", 3,
     "expected 1 value"),
    ("array-pattern", "%%MatrixMarket matrix array pattern general\n2 2\n", 1,
     "cannot be a pattern"),
]


@pytest.mark.parametrize("name,text,line,words", MANGLED_CASES,
                         ids=[c[0] for c in MANGLED_CASES])
def test_malformed_mtx(tmp_path, name, text, line, words):
    p = write(tmp_path, f"{name}.mtx", text)
    with pytest.raises(FormatError) as e:
        read_mtx(p)
    msg = str(e.value)
    assert words in msg, msg
    assert e.value.path == str(p)
    assert e.value.line == line, msg
    assert msg.startswith(f"{p}:{line}: "), msg


def test_malformed_mtx_gz_names_the_line(tmp_path):
    p = write(tmp_path, "bad.mtx.gz", gzip.compress((H + "3 3 2\n1 1 1\n2 9 2\n").encode()))
    with pytest.raises(FormatError, match=r"bad\.mtx\.gz:4: column index 9"):
        read(p)


def test_error_far_into_a_big_file(tmp_path):
    n = 300_000
    r = np.arange(n) % 1000 + 1
    lines = [f"{a} {a} {a}.5" for a in r]
    lines[250_000] = "7 7 oops"
    p = write(tmp_path, "big.mtx", f"{H}1000 1000 {n}\n" + "\n".join(lines) + "\n")
    with pytest.raises(FormatError, match=r"big\.mtx:250003: value 'oops'"):
        read_mtx(p)


# ------------------------------------------------------------- legal mtx

def test_comments_and_blank_lines_in_body(tmp_path):
    text = (H + "% header comment\n\n3 3 3\n\n% in the body\n1 1 1.5\n"
            "   % indented comment\n\t2 3 -2e3  \r\n\n3 1 .5\n% last\n")
    d = _read_mtx_data(write(tmp_path, "c.mtx", text))
    assert d.rows.tolist() == [0, 1, 2] and d.cols.tolist() == [0, 2, 0]
    assert d.values.tolist() == [1.5, -2000.0, 0.5]


def test_unusual_but_legal_tokens_go_through_python(tmp_path):
    # scipy refuses '+' signs; the Python scan reads them
    text = H + "3 3 3\n+1 1 +1.5\n2 +3 -inf\n3 1 NaN\n"
    d = _read_mtx_data(write(tmp_path, "plus.mtx", text))
    assert d.rows.tolist() == [0, 1, 2] and d.cols.tolist() == [0, 2, 0]
    assert d.values[0] == 1.5 and d.values[1] == -np.inf and np.isnan(d.values[2])
    text = HI + "%%GraphBLAS type uint64_t\n2 2 1\n1 2 18446744073709551615\n"
    d = _read_mtx_data(write(tmp_path, "u64.mtx", text))
    assert d.dtype == np.uint64 and d.values.tolist() == [2 ** 64 - 1]


def test_case_insensitive_banner_and_hermitian_real(tmp_path):
    text = "%%matrixmarket MATRIX Coordinate REAL Hermitian\n2 2 2\n1 1 1\n2 1 3\n"
    d = _read_mtx_data(write(tmp_path, "h.mtx", text))
    assert sorted(zip(d.rows.tolist(), d.cols.tolist(), d.values.tolist())) == [
        (0, 0, 1.0), (0, 1, 3.0), (1, 0, 3.0)]


def test_symmetric_expansion(tmp_path):
    text = "%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n1 1 5\n2 1 7\n3 2 -1\n"
    d = _read_mtx_data(write(tmp_path, "s.mtx", text))
    got = sorted(zip(d.rows.tolist(), d.cols.tolist(), d.values.tolist()))
    assert got == [(0, 0, 5), (0, 1, 7), (1, 0, 7), (1, 2, -1), (2, 1, -1)]
    text = "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 7\n3 2 -1\n"
    d = _read_mtx_data(write(tmp_path, "k.mtx", text))
    got = sorted(zip(d.rows.tolist(), d.cols.tolist(), d.values.tolist()))
    assert got == [(0, 1, -7.0), (1, 0, 7.0), (1, 2, 1.0), (2, 1, -1.0)]


def test_array_format(tmp_path):
    d = _read_mtx_data(write(tmp_path, "a.mtx",
                             "%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n"))
    dense = np.zeros((2, 3))
    dense[d.rows, d.cols] = d.values
    assert dense.tolist() == [[1, 3, 5], [2, 4, 6]]
    d = _read_mtx_data(write(tmp_path, "s.mtx",
                             "%%MatrixMarket matrix array integer symmetric\n2 2\n1\n2\n3\n"))
    dense = np.zeros((2, 2), dtype=np.int64)
    dense[d.rows, d.cols] = d.values
    assert dense.tolist() == [[1, 2], [2, 3]] and d.dtype == np.int64


@pytest.mark.parametrize("tname,dtype,values", [
    ("bool", np.bool_, [1, 0]), ("int8_t", np.int8, [-128, 127]),
    ("int16_t", np.int16, [-5, 300]), ("int32_t", np.int32, [-7, 2 ** 31 - 1]),
    ("int64_t", np.int64, [-(2 ** 63), 2 ** 63 - 1]), ("uint8_t", np.uint8, [0, 255]),
    ("uint16_t", np.uint16, [1, 65535]), ("uint32_t", np.uint32, [1, 2 ** 32 - 1]),
    ("uint64_t", np.uint64, [1, 2 ** 63 + 5]), ("float", np.float32, [0.1, -2.5]),
    ("double", np.float64, [0.1, -2.5]), ("int8", np.int8, [1, 2]),
    ("float32", np.float32, [1, 2]),
])
def test_graphblas_type_line(tmp_path, tname, dtype, values):
    field = "real" if np.dtype(dtype).kind == "f" else "integer"
    text = (f"%%MatrixMarket matrix coordinate {field} general\n%%GraphBLAS type {tname}\n"
            f"2 2 2\n1 1 {values[0]}\n2 2 {values[1]}\n")
    d = _read_mtx_data(write(tmp_path, "t.mtx", text))
    assert d.dtype == dtype and d.values.dtype == dtype
    np.testing.assert_array_equal(d.values, np.array(values, dtype=dtype))


def test_duplicates(tmp_path):
    p = write(tmp_path, "d.mtx", H + "2 2 3\n1 1 1.5\n1 1 2\n2 2 1\n")
    d = _read_mtx_data(p)
    assert len(d.rows) == 3  # raw: kept
    with pytest.raises(FormatError, match="listed again"):
        read_mtx(p)  # GraphBLAS's rule: no dup_op, no duplicates
    A = read_mtx(p, dup_op="plus")
    assert A.nvals == 2 and coo_of(A)[2].tolist() == [3.5, 1.0]  # summed
    p = write(tmp_path, "dp.mtx", HP + "2 2 3\n1 1\n1 1\n2 2\n")
    A = read_mtx(p, dup_op="any")
    assert A.nvals == 2 and A.iso  # collapsed


def test_dtype_override(tmp_path):
    p = write(tmp_path, "o.mtx", H + "2 2 2\n1 1 1.5\n2 2 0\n")
    assert _read_mtx_data(p, dtype=np.int16).values.tolist() == [1, 0]
    assert _read_mtx_data(p, dtype=bool).values.tolist() == [True, False]
    A = read_mtx(p, dtype=np.float32)
    assert A.dtype == np.float32 and coo_of(A)[2].tolist() == [1.5, 0.0]


def test_read_from_stream(tmp_path):
    import io

    d = _read_mtx_data(io.BytesIO((H + "2 2 1\n1 2 3\n").encode()))
    assert d.rows.tolist() == [0] and d.cols.tolist() == [1] and d.values.tolist() == [3.0]
    with pytest.raises(FormatError, match=r"<stream>:3: column index 5"):
        _read_mtx_data(io.BytesIO((H + "2 2 1\n1 5 3\n").encode()))


def test_scanner_in_plain_python_agrees():
    """The numba scanner is plain Python underneath; check the Python version
    directly on a few lines so both run the same grammar."""
    def scan(text, k=3, vkind=2):
        a = np.frombuffer(bytearray(text.encode()), dtype=np.uint8)
        res = np.zeros(8, dtype=np.int64)
        is_comment = np.zeros(256, dtype=bool)
        is_comment[ord("%")] = True
        scan_py(a, 0, k, 2, 1, 9, 9, vkind, is_comment, -1, False, False,
                np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(1, np.uint8),
                100, res)
        return int(res[0]), int(res[1]), int(res[3])
    assert scan("1 1 1.5\n% c\n2 2 -3e-2\n") == (0, 2, 3)
    assert scan("1 1 1.5\n2 2 1.5.5\n") == (1, 1, 1)
    assert scan("1 1 .5\n2 2 5.\n3 3 Infinity\n4 4 -nan\n") == (0, 4, 4)
    assert scan("1 1 .\n") == (1, 0, 0)
    assert scan("1 1 7\n2 2 1e5\n", vkind=1) == (1, 1, 1)


# ------------------------------------------------------------ edge lists

SNAP = """# Directed graph (each unordered pair of nodes is saved once): toy.txt
# Nodes: 5 Edges: 5
# FromNodeId\tToNodeId
0\t1
0\t2
1\t2

2\t4
% a percent comment
4\t0
"""


def test_edgelist_snap(tmp_path):
    d = _read_edgelist_data(write(tmp_path, "toy.txt", SNAP))
    assert d.rows.tolist() == [0, 0, 1, 2, 4] and d.cols.tolist() == [1, 2, 2, 4, 0]
    assert d.weights is None and d.n == 5
    A = read(tmp_path / "toy.txt")
    assert (A.nrows, A.ncols, A.nvals, A.dtype, A.iso) == (5, 5, 5, np.bool_, True)


def test_edgelist_whitespace_variants(tmp_path):
    text = "  # indented comment\n 0   1 \r\n\t1\t\t2\t\n\n   \n2 0"  # no final newline
    d = _read_edgelist_data(write(tmp_path, "w.el", text))
    assert d.rows.tolist() == [0, 1, 2] and d.cols.tolist() == [1, 2, 0]


def test_edgelist_gz_and_weights(tmp_path):
    text = "# w\n0 1 0.5\n1 2 -2\n2 0 1e3\n3 3 +4.25\n"
    write(tmp_path, "g.txt.gz", gzip.compress(text.encode()))
    d = _read_edgelist_data(tmp_path / "g.txt.gz")
    assert d.weights.dtype == np.float64
    assert d.weights.tolist() == [0.5, -2.0, 1000.0, 4.25] and d.n == 4
    A = read(tmp_path / "g.txt.gz")
    assert A.dtype == np.float64 and A.nvals == 4
    A = read(tmp_path / "g.txt.gz", dtype=np.int32)
    assert A.dtype == np.int32 and coo_of(A)[2].tolist() == [0, -2, 1000, 4]


def test_edgelist_one_based_and_nrows(tmp_path):
    p = write(tmp_path, "o.txt", "1 2\n2 3\n")
    d = _read_edgelist_data(p, one_based=True)
    assert d.rows.tolist() == [0, 1] and d.cols.tolist() == [1, 2] and d.n == 3
    d = _read_edgelist_data(p, nrows=10)
    assert d.n == 10
    A = read_edgelist(p, nrows=10)
    assert A.nrows == A.ncols == 10
    with pytest.raises(FormatError, match=r"o\.txt:2: target vertex id 3 is out of range for nrows=3"):
        _read_edgelist_data(p, nrows=3)
    with pytest.raises(FormatError, match=r"z\.txt:2: source vertex id 0 in a file read with one_based"):
        _read_edgelist_data(write(tmp_path, "z.txt", "1 2\n0 1\n"), one_based=True)


def test_edgelist_undirected(tmp_path):
    p = write(tmp_path, "u.txt", "0 1 2.0\n1 2 3.0\n2 2 5.0\n")
    A = read_edgelist(p, directed=False)
    r, c, v = coo_of(A)
    assert list(zip(r.tolist(), c.tolist(), v.tolist())) == [
        (0, 1, 2.0), (1, 0, 2.0), (1, 2, 3.0), (2, 1, 3.0), (2, 2, 5.0)]
    # an edge given in both directions: dup_op decides
    p = write(tmp_path, "both.txt", "0 1 2.0\n1 0 2.0\n")
    assert coo_of(read_edgelist(p, directed=False, dup_op="max"))[2].tolist() == [2.0, 2.0]
    assert coo_of(read_edgelist(p, directed=False, dup_op="plus"))[2].tolist() == [4.0, 4.0]
    # without dup_op an edge given both ways (same weight) is one edge
    assert coo_of(read_edgelist(p, directed=False))[2].tolist() == [2.0, 2.0]
    A = read_edgelist(write(tmp_path, "s.txt", "0 1\n1 0\n1 2\n"), directed=False)
    assert A.iso and A.nvals == 4


def test_edgelist_duplicates(tmp_path):
    p = write(tmp_path, "d.txt", "0 1 1.0\n0 1 2.5\n1 0 1\n")
    with pytest.raises(FormatError, match="listed again"):
        read_edgelist(p)
    assert coo_of(read_edgelist(p, dup_op="plus"))[2].tolist() == [3.5, 1.0]
    assert coo_of(read_edgelist(p, dup_op="min"))[2].tolist() == [1.0, 1.0]
    A = read_edgelist(write(tmp_path, "s.txt", "0 1\n0 1\n"), dup_op="any")
    assert A.nvals == 1


def test_edgelist_csv(tmp_path):
    d = _read_edgelist_data(write(tmp_path, "e.csv", "# src,dst,w\n0,1,0.5\n1 , 2 , 1.5\n"))
    assert d.rows.tolist() == [0, 1] and d.weights.tolist() == [0.5, 1.5]
    d = _read_edgelist_data(write(tmp_path, "e.dat", "0,1\n1,2\n"), delimiter=",")
    assert d.cols.tolist() == [1, 2]
    with pytest.raises(FormatError, match=r"f\.csv:2: empty field"):
        _read_edgelist_data(write(tmp_path, "f.csv", "0,1\n1,,2\n"))
    with pytest.raises(FormatError, match=r"g\.csv:2: expected 2 values"):
        _read_edgelist_data(write(tmp_path, "g.csv", "0,1\n1 2\n"))
    d = _read_edgelist_data(write(tmp_path, "e.psv", "0|1|2.5\n3 | 4 | 1\n"), delimiter="|")
    assert d.rows.tolist() == [0, 3] and d.weights.tolist() == [2.5, 1.0]
    with pytest.raises(FormatError, match=r"nrows=0"):
        _read_edgelist_data(write(tmp_path, "n0.txt", "0 0\n"), nrows=0)


def test_edgelist_empty(tmp_path):
    d = _read_edgelist_data(write(tmp_path, "e.txt", "# nothing\n\n"))
    assert len(d.rows) == 0 and d.n == 0
    A = read_edgelist(tmp_path / "e.txt", nrows=4)
    assert (A.nrows, A.nvals) == (4, 0)


def test_edgelist_multichar_comment(tmp_path):
    d = _read_edgelist_data(write(tmp_path, "m.txt", "// c\n0 1\n  // d\n1 2\n"),
                            comments=("//",))
    assert d.rows.tolist() == [0, 1]


EDGE_CASES = [
    ("three-then-two", "0 1 1.0\n1 2\n", 2, "expected 3 values 'src dst weight' like the first edge, found 2"),
    ("two-then-three", "0 1\n1 2 5\n", 2, "expected 2 values 'src dst' like the first edge, found 3"),
    ("one-column", "# c\n7\n", 2, "found 1"),
    ("four-columns", "0 1 2 3\n", 1, "found 4"),
    ("non-numeric-id", "0 1\nx 2\n", 2, "source vertex id 'x' is not a number"),
    ("float-id", "0 1\n1 2.5\n", 2, "target vertex id '2.5' is not an integer"),
    ("negative-id", "0 1\n-1 2\n", 2, "source vertex id -1 is negative"),
    ("bad-weight", "0 1 1\n1 2 heavy\n", 2, "weight 'heavy' is not a number"),
    ("bad-weight-2", "0 1 1\n1 2 1.2.3\n", 2, "weight '1.2.3' is not a number"),
    ("inline-comment", "0 1\n1 2 # note\n", 2, "found 4"),
    ("huge-id", "0 1\n99999999999999999999 1\n", 2, "too large"),
    ("matrix-market", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n", 1,
     "Matrix Market file"),
]


@pytest.mark.parametrize("name,text,line,words", EDGE_CASES, ids=[c[0] for c in EDGE_CASES])
def test_malformed_edgelist(tmp_path, name, text, line, words):
    p = write(tmp_path, f"{name}.txt", text)
    with pytest.raises(FormatError) as e:
        read_edgelist(p)
    msg = str(e.value)
    assert words in msg, msg
    assert e.value.line == line and msg.startswith(f"{p}:{line}: "), msg


def test_edgelist_big_file_error_line(tmp_path):
    n = 200_000
    lines = [f"{i} {i + 1} 0.{i}" for i in range(n)]
    lines[123_456] = "5 -6 1.0"
    p = write(tmp_path, "big.txt", "# header\n" + "\n".join(lines) + "\n")
    with pytest.raises(FormatError, match=r"big\.txt:123458: target vertex id -6 is negative"):
        read_edgelist(p)


def test_edgelist_options_validated(tmp_path):
    p = write(tmp_path, "x.txt", "0 1\n")
    with pytest.raises(InvalidValue):
        read_edgelist(p, delimiter="::")
    with pytest.raises(InvalidValue):
        read_edgelist(p, delimiter="-")
    with pytest.raises(InvalidValue):
        read_edgelist(p, nrows=-1)


# ------------------------------------------------------------ parallel scan

@pytest.fixture
def chunked():
    """Scan every body in parallel chunks, however small."""
    with bg.settings.use(io={"parallel_scan_min": 32}):
        yield


@pytest.mark.parametrize("name,text,line,words", MANGLED_CASES,
                         ids=[c[0] for c in MANGLED_CASES])
def test_malformed_mtx_chunked(tmp_path, chunked, name, text, line, words):
    test_malformed_mtx(tmp_path, name, text, line, words)


@pytest.mark.parametrize("name,text,line,words", EDGE_CASES, ids=[c[0] for c in EDGE_CASES])
def test_malformed_edgelist_chunked(tmp_path, chunked, name, text, line, words):
    test_malformed_edgelist(tmp_path, name, text, line, words)


def test_chunked_reads_agree(tmp_path, chunked):
    test_comments_and_blank_lines_in_body(tmp_path)
    test_edgelist_snap(tmp_path)
    test_edgelist_whitespace_variants(tmp_path)
    test_edgelist_gz_and_weights(tmp_path)
    test_edgelist_csv(tmp_path)
    test_edgelist_one_based_and_nrows(tmp_path)
    test_error_far_into_a_big_file(tmp_path)
    test_edgelist_big_file_error_line(tmp_path)


def test_chunked_big_reads(tmp_path, monkeypatch):
    import bitgraph.io.scan as scan

    rng = np.random.default_rng(5)
    n = 50_000
    r, c, w = rng.integers(0, 500, n), rng.integers(0, 500, n), rng.random(n)
    R, C, W = r.tolist(), c.tolist(), w.tolist()
    lines = [f"{a} {b} {x!r}" for a, b, x in zip(R, C, W)]
    lines[100:100] = ["# a comment", "", "   "]
    el = write(tmp_path, "w.txt", "\n".join(lines) + "\n")
    mt = write(tmp_path, "w.mtx", f"{H}500 500 {n}\n% c\n"
               + "\n".join(f"{a + 1} {b + 1} {x!r}" for a, b, x in zip(R, C, W)) + "\n")
    serial_el, serial_mt = _read_edgelist_data(el), _read_mtx_data(mt)
    with bg.settings.use(io={"parallel_scan_min": 1024}):
        par_el, par_mt = _read_edgelist_data(el), _read_mtx_data(mt)
    for a, b in ((serial_el.rows, par_el.rows), (serial_el.cols, par_el.cols),
                 (serial_el.weights, par_el.weights), (serial_mt.rows, par_mt.rows),
                 (serial_mt.values, par_mt.values)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(par_el.rows, r)
    np.testing.assert_array_equal(par_el.weights, w)
    more = write(tmp_path, "more.mtx", f"{H}500 500 {n - 1}\n"
                 + "\n".join(f"{a + 1} {b + 1} {x!r}" for a, b, x in zip(R, C, W)) + "\n")
    with pytest.raises(FormatError, match=rf"more\.mtx:{n + 2}: more entries"):
        read_mtx(more)


# ------------------------------------------------------------ read() dispatch

def test_read_dispatch(tmp_path):
    mtx = HP + "3 3 1\n1 2\n"
    assert read(write(tmp_path, "a.mtx", mtx)).nvals == 1
    # a Matrix Market file under another name is still read as one
    assert read(write(tmp_path, "a.txt", mtx)).shape == (3, 3)
    assert read(write(tmp_path, "a.dat.gz", gzip.compress(mtx.encode()))).shape == (3, 3)
    el = write(tmp_path, "e.edges", "1 5\n")
    assert read(el).shape == (6, 6)
    assert read(write(tmp_path, "noext", "1 5\n")).shape == (6, 6)
    assert read(el, format="edgelist", one_based=True).shape == (5, 5)
    with pytest.raises(FormatError):
        read(el, format="mtx")
    with pytest.raises(InvalidValue):
        read(el, format="graphml")
    with pytest.raises(InvalidValue):
        read(tmp_path / "a.mtx", directed=False)
    with pytest.raises(FileNotFoundError):
        read(tmp_path / "missing.mtx")
    import io

    assert read(io.BytesIO(mtx.encode())).shape == (3, 3)
    assert read(io.StringIO("0 1\n1 2\n")).shape == (3, 3)


def test_io_imports_stay_lazy():
    """No module of bitgraph.io imports scipy or numba at its top level."""
    for f in (Path(bg.io.__file__).parent).glob("*.py"):
        tree = ast.parse(f.read_text())
        for node in tree.body:
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for n in names:
                assert not n.startswith(("scipy", "numba")), f"{f.name} imports {n}"


# ------------------------------------------------------------ writing

class FakeMatrix:
    """The part of the Matrix contract write_mtx uses."""

    def __init__(self, rows, cols, values, nrows, ncols, iso=False):
        self.rows, self.cols, self.vals = (np.asarray(rows, np.int64),
                                           np.asarray(cols, np.int64), values)
        self.nrows, self.ncols, self.iso = nrows, ncols, iso

    def to_coo(self):
        v = np.ones(len(self.rows), bool) if self.iso else self.vals
        return self.rows, self.cols, v


DTYPE_VALUES = {
    np.bool_: [True, False, True],
    np.int8: [-128, 0, 127], np.int16: [-32768, 7, 32767],
    np.int32: [-(2 ** 31), 5, 2 ** 31 - 1], np.int64: [-(2 ** 63), 0, 2 ** 63 - 1],
    np.uint8: [0, 1, 255], np.uint16: [0, 9, 65535], np.uint32: [0, 3, 2 ** 32 - 1],
    np.uint64: [0, 2 ** 63, 2 ** 64 - 1],
    np.float32: [np.float32(0.1), np.float32(-3.4e38), np.float32(1e-45)],
    np.float64: [0.1, -np.inf, 5e-324],
}


@pytest.mark.parametrize("dtype", list(DTYPE_VALUES), ids=lambda t: np.dtype(t).name)
def test_write_read_roundtrip_raw(tmp_path, dtype):
    vals = np.array(DTYPE_VALUES[dtype], dtype=dtype)
    A = FakeMatrix([0, 1, 2], [2, 0, 1], vals, 3, 4)
    p = tmp_path / "w.txt"  # any name: scipy would append '.mtx'
    write_mtx(p, A, comment="made by a test\nsecond line")
    text = p.read_text()
    assert text.startswith("%%MatrixMarket matrix coordinate ")
    assert "% made by a test" in text
    assert ("%%GraphBLAS type" in text) == (np.dtype(dtype) not in (np.int64, np.float64))
    d = _read_mtx_data(p)
    assert d.dtype == dtype and (d.nrows, d.ncols) == (3, 4)
    assert d.rows.tolist() == [0, 1, 2] and d.cols.tolist() == [2, 0, 1]
    np.testing.assert_array_equal(d.values, vals)


@pytest.mark.parametrize("dtype", list(DTYPE_VALUES), ids=lambda t: np.dtype(t).name)
def test_write_read_roundtrip_matrix(tmp_path, dtype):
    vals = np.array(DTYPE_VALUES[dtype], dtype=dtype)
    A = bg.Matrix.from_coo([0, 1, 2], [2, 0, 1], vals, 3, 4)
    write_mtx(tmp_path / "m.mtx", A)
    B = read(tmp_path / "m.mtx")
    assert B.dtype == A.dtype and B.isequal(A)


def test_write_structure_only_and_nan(tmp_path):
    A = FakeMatrix([0, 2], [1, 2], None, 3, 3, iso=True)
    write_mtx(tmp_path / "p.mtx", A)
    assert (tmp_path / "p.mtx").read_text().startswith(
        "%%MatrixMarket matrix coordinate pattern general")
    d = _read_mtx_data(tmp_path / "p.mtx")
    assert d.values is None and d.rows.tolist() == [0, 2]
    S = bg.Matrix.from_coo([0, 2], [1, 2], nrows=3, ncols=3)
    write_mtx(tmp_path / "s.mtx", S)
    assert read(tmp_path / "s.mtx").isequal(S) and read(tmp_path / "s.mtx").iso
    F = FakeMatrix([0], [0], np.array([np.nan]), 1, 1)
    write_mtx(tmp_path / "n.mtx", F)
    assert np.isnan(_read_mtx_data(tmp_path / "n.mtx").values[0])


def test_write_symmetric(tmp_path):
    r, c = [0, 1, 1, 2, 2], [1, 0, 1, 0, 2]
    bad = FakeMatrix(r, c, np.array([1.0, 2.0, 3.0, 4.0, 5.0]), 3, 3)
    p = tmp_path / "sym.mtx"
    with pytest.raises(InvalidValue, match="not equal to its transpose"):
        write_mtx(p, bad, symmetric=True)
    assert not p.exists() and list(tmp_path.iterdir()) == []  # nothing half-written
    r, c = [0, 1, 1, 2, 0], [1, 0, 1, 0, 2]
    good = FakeMatrix(r, c, np.array([2.0, 2.0, 3.0, 4.0, 4.0]), 3, 3)
    write_mtx(p, good, symmetric=True)
    assert p.read_text().splitlines()[0].endswith("real symmetric")
    d = _read_mtx_data(p)
    assert sorted(zip(d.rows.tolist(), d.cols.tolist(), d.values.tolist())) == sorted(
        zip(r, c, [2.0, 2.0, 3.0, 4.0, 4.0]))
    with pytest.raises(InvalidValue, match="square"):
        write_mtx(p, FakeMatrix([0], [1], np.array([1.0]), 2, 3), symmetric=True)


@pytest.mark.parametrize("name", ["karate.mtx", "bcsstk13.mtx", "matrix_int8.mtx", "lp_afiro.mtx"])
def test_write_read_data_files(tmp_path, name):
    A = read(data_file(name))
    write_mtx(tmp_path / "x.mtx.gz", A)
    with gzip.open(tmp_path / "x.mtx.gz", "rb") as f:
        assert f.read(14) == b"%%MatrixMarket"
    B = read(tmp_path / "x.mtx.gz")
    assert B.dtype == A.dtype and B.isequal(A)


def test_write_rejects_bad_dtypes(tmp_path):
    with pytest.raises(InvalidValue, match="complex"):
        write_mtx(tmp_path / "c.mtx", FakeMatrix([0], [0], np.array([1j]), 1, 1))
    with pytest.raises(InvalidValue, match="float16"):
        write_mtx(tmp_path / "h.mtx", FakeMatrix([0], [0], np.array([1], np.float16), 1, 1))
    assert list(tmp_path.iterdir()) == []


def test_write_overwrites_atomically(tmp_path):
    p = tmp_path / "o.mtx"
    shutil.copyfile(__file__, p)
    write_mtx(p, FakeMatrix([0], [0], np.array([2.0]), 1, 1))
    assert _read_mtx_data(p).values.tolist() == [2.0]
    assert [q.name for q in tmp_path.iterdir()] == ["o.mtx"]


# ------------------------------------------------------------ edge lists out

def test_write_edgelist_roundtrip(tmp_path):
    rng = np.random.default_rng(3)
    r, c = rng.integers(0, 40, 300), rng.integers(0, 40, 300)
    S = bg.Matrix.from_coo(r, c, nrows=40, ncols=40, dup_op=None)
    W = bg.Matrix.from_coo(r, c, rng.standard_normal(300) * 1e5, nrows=40, ncols=40,
                           dup_op="first")
    for A, name in ((S, "s.el"), (W, "w.txt.gz"), (W, "w.csv")):
        p = tmp_path / name
        bg.io.write_edgelist(p, A, delimiter="," if name.endswith(".csv") else " ")
        B = read(p, nrows=40)
        assert B.isequal(A, check_dtype=False) and B.iso == A.iso
        if not A.iso:
            np.testing.assert_array_equal(B.values, A.values)  # repr reads back exactly
    first = (tmp_path / "s.el").read_text().splitlines()
    assert first[0] == f"# bitgraph edge list: n=40 m={S.nvals}, 0-based, src dst"
    rows, cols, _ = S.to_coo()
    assert first[1:] == [f"{a} {b}" for a, b in zip(rows.tolist(), cols.tolist())]
    assert (tmp_path / "w.csv").read_text().splitlines()[1].count(",") == 2


def test_write_edgelist_bool_values_and_rectangular(tmp_path):
    A = FakeMatrix([0, 1], [2, 0], np.array([True, False]), 2, 3)
    p = tmp_path / "b.el"
    bg.io.write_edgelist(p, A, delimiter="\t")
    assert p.read_text().splitlines() == [
        "# bitgraph edge list: nrows=2 ncols=3 m=2, 0-based, src\tdst\tweight", "0\t2\t1", "1\t0\t0"]


def test_write_edgelist_is_atomic_and_reports_progress(tmp_path, knobs):
    knobs(io={"write_chunk": 10})
    A = bg.io.generators.grid2d(5, 5)  # 80 entries: 8 chunks of 10
    p = tmp_path / "g.el"
    seen = []

    def progress(chunks, total):
        seen.append(total)
        yield from chunks

    bg.io.write_edgelist(p, A, progress=progress)
    assert seen == [8] and read(p).isequal(A)
    before = p.read_bytes()

    def breaks(chunks, total):
        for i, c in enumerate(chunks):
            if i == 3:
                raise KeyboardInterrupt
            yield c

    with pytest.raises(KeyboardInterrupt):
        bg.io.write_edgelist(p, bg.io.generators.grid2d(6, 6), progress=breaks)
    assert p.read_bytes() == before and sorted(x.name for x in tmp_path.iterdir()) == ["g.el"]
    for bad in ("", "ab", "1", "-", ".", "#", "\n"):
        with pytest.raises(InvalidValue, match="delimiter"):
            bg.io.write_edgelist(tmp_path / "x.el", A, delimiter=bad)
    assert not (tmp_path / "x.el").exists()
