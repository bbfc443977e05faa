"""The API's bad-argument cases as one table (issue 30, repros 9 and 10):
each bad call raises a bitgraph error of the expected class, which is
also the builtin that fits, and whose message names the argument or the
value; a failed call leaves ``out=`` unchanged."""

import numpy as np
import pytest

import bitgraph as bg
import oracle as O
from bitgraph.algorithms import bfs, msbfs, sssp

N = 5
A = bg.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], nrows=3, ncols=3)
G = bg.Matrix.from_coo([0, 1], [1, 0], nrows=2, ncols=2)
u = bg.Vector.from_coo([0, 2], [1.0, 5.0], size=3)

# (description, bad call, bitgraph error, builtin, a substring of the message)
CASES = [
    # repro 9: arrays of from_csr / from_coo / Vector constructors
    ("from_csr values shorter than indices",
     lambda: bg.Matrix.from_csr(np.array([0, N]), np.arange(N), np.array([1.0]), ncols=N),
     bg.DimensionMismatch, ValueError, "len(indices) = 5"),
    ("from_csr values longer than indices",
     lambda: bg.Matrix.from_csr([0, 1], [0], [1.0, 2.0], ncols=2),
     bg.DimensionMismatch, ValueError, "(2,)"),
    ("from_csr values short with check=False",
     lambda: bg.Matrix.from_csr(np.array([0, N]), np.arange(N), np.array([1.0]), ncols=N, check=False),
     bg.DimensionMismatch, ValueError, "len(indices) = 5"),
    ("from_csr float column index is not truncated",
     lambda: bg.Matrix.from_csr([0, 1], np.array([1.5]), ncols=3),
     bg.InvalidValue, ValueError, "indices[0] = 1.5"),
    ("from_csr nan column index",
     lambda: bg.Matrix.from_csr([0, 1], np.array([np.nan]), ncols=3),
     bg.InvalidValue, ValueError, "indices[0] = nan"),
    ("from_csr float indptr",
     lambda: bg.Matrix.from_csr(np.array([0.0, 0.5]), [0], ncols=3),
     bg.InvalidValue, ValueError, "indptr[1] = 0.5"),
    ("from_csr string indices",
     lambda: bg.Matrix.from_csr([0, 1], np.array(["a"]), ncols=3),
     bg.InvalidValue, ValueError, "indices must be integers"),
    ("from_csr 2-d indices",
     lambda: bg.Matrix.from_csr([0, 1], np.array([[0]]), ncols=3),
     bg.InvalidValue, ValueError, "indices must be 1-D"),
    ("from_csr empty indptr",
     lambda: bg.Matrix.from_csr(np.zeros(0, np.int64), np.zeros(0, np.int64), ncols=3),
     bg.InvalidValue, ValueError, "indptr must have nrows + 1"),
    ("from_csr indptr not ending at nnz",
     lambda: bg.Matrix.from_csr([0, 3], [0, 1], ncols=3, check=False),
     bg.DimensionMismatch, ValueError, "indptr[-1] = 3"),
    ("from_csr decreasing indptr",
     lambda: bg.Matrix.from_csr([0, 2, 1, 2], [0, 1], ncols=3),
     bg.InvalidValue, ValueError, "indptr[2] = 1"),
    ("from_csr column out of range",
     lambda: bg.Matrix.from_csr([0, 1], [7], ncols=3),
     bg.InvalidIndex, IndexError, "column index 7"),
    ("from_csr unsorted row",
     lambda: bg.Matrix.from_csr([0, 2], [1, 0], ncols=3),
     bg.InvalidValue, ValueError, "sorted and unique"),
    ("from_csr ncols float",
     lambda: bg.Matrix.from_csr([0, 1], [0], ncols=2.5),
     bg.InvalidType, TypeError, "ncols must be an integer, got float 2.5"),
    ("from_coo values too short",
     lambda: bg.Matrix.from_coo([0, 1], [0, 1], [1.0], nrows=2, ncols=2),
     bg.DimensionMismatch, ValueError, "1 values for 2 entries"),
    ("from_coo rows and cols of different lengths",
     lambda: bg.Matrix.from_coo([0, 1], [0], nrows=2, ncols=2),
     bg.DimensionMismatch, ValueError, "2 rows but 1 cols"),
    ("from_coo float column index",
     lambda: bg.Matrix.from_coo([0], [1.5], [1.0], nrows=2, ncols=2),
     bg.InvalidValue, ValueError, "got 1.5"),
    ("from_coo bool indices",
     lambda: bg.Matrix.from_coo([True], [0], nrows=2, ncols=2),
     bg.InvalidValue, ValueError, "got bool"),
    ("from_coo row out of range",
     lambda: bg.Matrix.from_coo([0, 7], [0, 0], [1, 2], nrows=3, ncols=3),
     bg.InvalidIndex, IndexError, "index 7"),
    ("Vector.from_coo values too short",
     lambda: bg.Vector.from_coo([0, 1], [1.0], size=3),
     bg.DimensionMismatch, ValueError, "1 values for 2 indices"),
    ("Vector.from_coo float index",
     lambda: bg.Vector.from_coo([0.5], [1.0], size=3),
     bg.InvalidValue, ValueError, "got 0.5"),
    ("Vector.from_dense 2-d",
     lambda: bg.Vector.from_dense(np.ones((2, 2))),
     bg.DimensionMismatch, ValueError, "(2, 2)"),
    # repro 9: keys row * ncols + col must fit int64
    ("from_coo with nrows * ncols >= 2**63",
     lambda: bg.Matrix.from_coo([4], [3], [1.0], nrows=5, ncols=2**62 + 1),
     bg.InvalidValue, ValueError, "5 x 4611686018427387905"),
    ("Matrix() with nrows * ncols >= 2**63",
     lambda: bg.Matrix(float, 2, 2**62),
     bg.InvalidValue, ValueError, "2 x 4611686018427387904"),
    ("from_csr with nrows * ncols >= 2**63",
     lambda: bg.Matrix.from_csr([0, 0, 1], [3], ncols=2**62 + 1),
     bg.InvalidValue, ValueError, "2 x 4611686018427387905"),
    ("mxm whose result has nrows * ncols >= 2**63",
     lambda: bg.mxm(bg.Matrix(float, 4, 1), bg.Matrix(float, 1, 2**62)),
     bg.InvalidValue, ValueError, "4 x 4611686018427387904"),
    # repro 10: non-bitgraph errors
    ("from_coo nrows=-1",
     lambda: bg.Matrix.from_coo([], [], nrows=-1, ncols=2),
     bg.InvalidValue, ValueError, "nrows must be >= 0, got -1"),
    ("Matrix nrows=-1",
     lambda: bg.Matrix(float, -1, 2),
     bg.InvalidValue, ValueError, "nrows must be >= 0, got -1"),
    ("from_coo nrows=3.7",
     lambda: bg.Matrix.from_coo([0], [0], nrows=3.7, ncols=2),
     bg.InvalidType, TypeError, "nrows must be an integer, got float 3.7"),
    ("Matrix ncols=3.7",
     lambda: bg.Matrix(float, 2, 3.7),
     bg.InvalidType, TypeError, "ncols must be an integer, got float 3.7"),
    ("Vector size=3.7",
     lambda: bg.Vector(float, 3.7),
     bg.InvalidType, TypeError, "size must be an integer, got float 3.7"),
    ("Vector size=-1",
     lambda: bg.Vector(np.int8, -1),
     bg.InvalidValue, ValueError, "size must be >= 0, got -1"),
    ("Vector.from_coo size=-1",
     lambda: bg.Vector.from_coo([], [], size=-1),
     bg.InvalidValue, ValueError, "size must be >= 0, got -1"),
    ("Vector.from_indices size='3'",
     lambda: bg.Vector.from_indices([0], size="3"),
     bg.InvalidType, TypeError, "size must be an integer, got str '3'"),
    ("extract with a zero slice step",
     lambda: bg.extract(u, slice(None, None, 0)),
     bg.InvalidValue, ValueError, "slice step must not be zero"),
    ("extract with a float slice stop",
     lambda: bg.extract(A, slice(0, 1.5), None),
     bg.InvalidType, TypeError, "slice stop must be an integer or None, got float 1.5"),
    ("assign 2**64 (fits no 64-bit integer)",
     lambda: bg.assign(bg.Vector(np.float64, 3), 2**64, [0]),
     bg.InvalidValue, ValueError, "18446744073709551616"),
    ("apply with right=-2**64",
     lambda: bg.apply(u, "plus", right=-2**64),
     bg.InvalidValue, ValueError, "-18446744073709551616"),
    ("select with a float index thunk",
     lambda: bg.select(A, "tril", 0.5),
     bg.InvalidType, TypeError, "got float 0.5"),
    ("assign a string",
     lambda: bg.assign(bg.Vector(np.float64, 3), "x", [0]),
     bg.DomainMismatch, TypeError, "assign: value"),
    ("bfs with a float source",
     lambda: bfs(G, 1.0),
     bg.InvalidType, TypeError, "source must be an integer vertex id, got 1.0"),
    ("bfs with a bool source",
     lambda: bfs(G, True),
     bg.InvalidType, TypeError, "got True"),
    ("bfs out of range",
     lambda: bfs(G, 5),
     bg.InvalidIndex, IndexError, "source 5"),
    ("sssp with a float source",
     lambda: sssp(A, 0.0),
     bg.InvalidType, TypeError, "got 0.0"),
    ("bfs on a scipy matrix",
     lambda: bfs(G.to_scipy(), 0),
     bg.InvalidType, TypeError, "expected a bitgraph Matrix"),
    ("msbfs with a list of lists",
     lambda: msbfs(G, [[0]]),
     bg.InvalidType, TypeError, "got [[0]]"),
    ("msbfs with a ragged list",
     lambda: msbfs(G, [[0], [0, 1]]),
     bg.InvalidType, TypeError, "got [[0], [0, 1]]"),
    ("msbfs with float sources",
     lambda: msbfs(G, [0.5]),
     bg.InvalidType, TypeError, "got [0.5]"),
    ("msbfs out of range",
     lambda: msbfs(G, [0, 9]),
     bg.InvalidIndex, IndexError, "sources[1] = 9"),
    ("from_coo dup_op='banana' with no duplicates",
     lambda: bg.Matrix.from_coo([0], [0], [1.0], nrows=2, ncols=2, dup_op="banana"),
     bg.InvalidValue, ValueError, "dup_op: unknown binary op 'banana'"),
    ("Vector.from_coo dup_op='banana' with no duplicates",
     lambda: bg.Vector.from_coo([0], [1.0], size=2, dup_op="banana"),
     bg.InvalidValue, ValueError, "dup_op: unknown binary op 'banana'"),
    ("from_coo valued duplicates without dup_op",
     lambda: bg.Matrix.from_coo([0, 0], [1, 1], [1, 2]),
     bg.InvalidValue, ValueError, "duplicate index"),
    ("np.inf as a Vector index",
     lambda: bg.Vector.from_coo([np.inf], [1.0], size=2),
     bg.InvalidIndex, IndexError, "index inf"),
    ("np.inf as a Matrix index, dims inferred",
     lambda: bg.Matrix.from_coo([0], [np.inf], [1.0]),
     bg.InvalidIndex, IndexError, "index inf"),
    ("np.inf in extract",
     lambda: bg.extract(u, [np.inf]),
     bg.InvalidIndex, IndexError, "index inf"),
    ("2**63 as an index",
     lambda: bg.Vector.from_indices([2**63], size=2),
     bg.InvalidIndex, IndexError, "index 9223372036854775808"),
    ("2**64 as an index",
     lambda: bg.Vector.from_indices([2**64], size=2),
     bg.InvalidIndex, IndexError, "index 18446744073709551616"),
    ("-2**63 - 1 as an index",
     lambda: bg.extract(u, [-2**63 - 1]),
     bg.InvalidIndex, IndexError, "index -9223372036854775809"),
    # existing cases
    ("mxv shapes", lambda: bg.mxv(A, bg.Vector(np.float64, 4)),
     bg.DimensionMismatch, ValueError, "A.ncols (=3) must equal u.size (=4)"),
    ("unknown semiring", lambda: bg.mxv(A, u, "plus_tims"),
     bg.InvalidValue, ValueError, "plus_tims"),
    ("unknown select op", lambda: bg.select(A, "trill"),
     bg.InvalidValue, ValueError, "'trill'"),
    ("reduce by a bad axis", lambda: bg.reduce(A, "plus", by="diagonal"),
     bg.InvalidValue, ValueError, "'diagonal'"),
    ("bnot on floats", lambda: bg.apply(u, "bnot"),
     bg.DomainMismatch, TypeError, "'bnot'"),
    ("numpy array as an operand", lambda: bg.mxv(A, np.ones(3)),
     bg.DomainMismatch, TypeError, "ndarray"),
    ("complex dtype", lambda: bg.Vector(dtype="complex128", size=3),
     bg.DomainMismatch, TypeError, "complex128"),
    ("index out of range in assign", lambda: bg.assign(bg.Vector(np.int8, 3), 1, [6]),
     bg.InvalidIndex, IndexError, "index 6"),
    ("unknown mxv method", lambda: bg.mxv(A, u, method="fast"),
     bg.InvalidValue, ValueError, "'fast'"),
]


@pytest.mark.parametrize("what,call,error,builtin,text", CASES, ids=[c[0] for c in CASES])
def test_bad_argument(what, call, error, builtin, text):
    with pytest.raises(bg.BitgraphError) as ei:
        call()
    e = ei.value
    assert type(e) is error, f"{what}: {type(e).__name__}: {e}"
    assert isinstance(e, builtin), f"{what}: {type(e).__name__} is not a {builtin.__name__}"
    assert text in str(e), f"{what}: {text!r} not in {str(e)!r}"
    assert len(str(e)) < 1000


def test_every_error_class_is_exported_with_its_builtin():
    assert issubclass(bg.InvalidType, bg.BitgraphError) and issubclass(bg.InvalidType, TypeError)
    try:  # `except TypeError` keeps catching what was a plain TypeError
        bfs(G, 1.0)
    except TypeError:
        pass


def test_float_indices_with_integral_values_are_indices():
    assert bg.Matrix.from_csr([0, 1], np.array([2.0]), ncols=3).indices.tolist() == [2]
    assert bg.Vector.from_coo(np.array([1.0]), [5], size=2).to_dense().tolist() == [0, 5]


def test_shapes_up_to_int64_keys_are_allowed():
    A1 = bg.Matrix.from_coo([0], [2**62], [1.0], nrows=1, ncols=2**63 - 1)
    B = bg.apply(A1, "ainv")
    assert B.to_coo()[1].tolist() == [2**62] and B.to_coo()[2].tolist() == [-1.0]
    C = bg.ewise_add(A1, A1)
    assert C.nvals == 1 and C.to_coo()[1].tolist() == [2**62]


def test_scalar_2_63_is_uint64_then_cast():
    """2**63 does not fit int64: typed uint64 (as numpy and python-graphblas
    type it), then cast to the output's type by the library's rule."""
    w = bg.assign(bg.Vector(np.float64, 3), 2**63, [1])
    assert w.to_dense().tolist() == [0.0, 2.0**63, 0.0]
    x = bg.apply(bg.Vector.from_coo([0], [1.0], size=1), "plus", right=2**63)
    assert x.to_dense().tolist() == [2.0**63 + 1]


def test_dup_op_valid_still_combines():
    v = bg.Vector.from_coo([0, 0], [1, 2], size=1, dup_op="plus")
    assert v.to_dense().tolist() == [3]


# a failed call leaves out= unchanged
def _out_cases():
    def mat():
        return bg.Matrix.from_coo([1, 2], [1, 0], [7.0, -1.0], nrows=3, ncols=3)

    def vec():
        return bg.Vector.from_coo([1], [7.0], size=3)

    return [
        ("extract zero step", vec, lambda out: bg.extract(u, slice(None, None, 0), out=out), bg.InvalidValue),
        ("extract inf index", vec, lambda out: bg.extract(u, [np.inf], out=out), bg.InvalidIndex),
        ("assign 2**64", vec, lambda out: bg.assign(out, 2**64, [0]), bg.InvalidValue),
        ("assign zero step", mat, lambda out: bg.assign(out, 1.0, slice(0, 3, 0), None), bg.InvalidValue),
        ("assign float slice", mat, lambda out: bg.assign(out, 1.0, None, slice(0.5, 2)), bg.InvalidType),
        ("select float thunk", mat, lambda out: bg.select(A, "tril", 0.5, out=out), bg.InvalidType),
        ("apply right=2**64", mat, lambda out: bg.apply(A, "plus", right=2**64, out=out), bg.InvalidValue),
        ("mxm too large", lambda: bg.Matrix(float, 4, 2**62),
         lambda out: bg.mxm(bg.Matrix(float, 4, 1), bg.Matrix(float, 1, 2**62), out=out), bg.InvalidValue),
    ]


@pytest.mark.parametrize("what,make,call,error", _out_cases(), ids=[c[0] for c in _out_cases()])
def test_failed_call_leaves_out_unchanged(what, make, call, error):
    try:
        out = make()
    except bg.InvalidValue:  # a too-large out cannot exist: the check is the same
        with pytest.raises(error):
            call(None)
        return
    before = O.snapshot(out)
    with pytest.raises(error):
        call(out)
    assert O.snapshot(out) == before, what
