"""Every error class, its message (names the call and the values), its builtin
base, and "a failed call leaves out unchanged" (a kernel made to raise)."""

import re

import numpy as np
import pytest

import bitgraph as bg
import oracle as O


def test_hierarchy():
    assert issubclass(bg.DimensionMismatch, (bg.BitgraphError)) and issubclass(bg.DimensionMismatch, ValueError)
    assert issubclass(bg.DomainMismatch, bg.BitgraphError) and issubclass(bg.DomainMismatch, TypeError)
    assert issubclass(bg.InvalidIndex, bg.BitgraphError) and issubclass(bg.InvalidIndex, IndexError)
    assert issubclass(bg.InvalidValue, bg.BitgraphError) and issubclass(bg.InvalidValue, ValueError)
    assert issubclass(bg.FormatError, bg.BitgraphError) and issubclass(bg.FormatError, ValueError)
    assert issubclass(bg.DeviceError, bg.BitgraphError)


def _names_both(msg, a, b):
    nums = set(re.findall(r"\d+", msg))
    return str(a) in nums and str(b) in nums


A35 = bg.Matrix.from_coo([0, 2], [1, 4], [1.0, 2.0], 3, 5)


@pytest.mark.parametrize("call,a,b", [
    (lambda: bg.mxv(A35, bg.Vector(np.float64, 4)), 5, 4),
    (lambda: A35.mxv(bg.Vector(np.float64, 4)), 5, 4),
    (lambda: bg.mxv(A35.T, bg.Vector(np.float64, 5)), 3, 5),
    (lambda: bg.vxm(bg.Vector(np.float64, 4), A35), 4, 3),
    (lambda: bg.mxm(A35, A35), 5, 3),
    (lambda: bg.ewise_add(bg.Vector(np.int8, 3), bg.Vector(np.int8, 7)), 3, 7),
    (lambda: bg.ewise_mult(A35, A35.T), 5, 3),
    (lambda: bg.mxv(A35, bg.Vector(np.float64, 5), mask=bg.Vector(bool, 4)), 3, 4),
    (lambda: bg.mxv(A35, bg.Vector(np.float64, 5), out=bg.Vector(np.float64, 6)), 3, 6),
    (lambda: bg.transpose(A35, out=bg.Matrix(np.float64, 3, 5)), 5, 3),
    (lambda: bg.assign(bg.Vector(np.int64, 5), bg.Vector(np.int64, 3), [0, 1]), 2, 3),
    (lambda: bg.reduce(A35, "plus", by="rows", out=bg.Vector(np.float64, 5)), 3, 5),
])
def test_dimension_mismatch_names_both_sizes(call, a, b):
    with pytest.raises(bg.DimensionMismatch) as ei:
        call()
    assert _names_both(str(ei.value), a, b), str(ei.value)


def test_domain_mismatch():
    f = bg.Vector.from_coo([0], [1.5], 2)
    with pytest.raises(bg.DomainMismatch):
        bg.apply(f, "bnot")  # no bitwise not on floats
    with pytest.raises(bg.DomainMismatch):
        bg.mxv(A35, bg.Vector(np.float64, 5), mask=np.ones(3, bool))
    with pytest.raises(bg.DomainMismatch):
        bg.mxv(A35, np.ones(5))
    with pytest.raises(bg.DomainMismatch):
        bg.Vector(dtype="complex128", size=3)


def test_invalid_index_names_the_index():
    with pytest.raises(bg.InvalidIndex, match=r"\b5\b") as ei:
        bg.Vector.from_indices([5], size=3)
    assert "3" in str(ei.value)
    with pytest.raises(bg.InvalidIndex, match=r"\b7\b"):
        bg.Matrix.from_coo([0, 7], [0, 0], [1, 2], 3, 3)
    with pytest.raises(bg.InvalidIndex, match=r"\b9\b"):
        bg.Matrix.from_coo([0], [9], [1], 3, 3)
    with pytest.raises(bg.InvalidIndex, match=r"-1"):
        bg.Vector.from_coo([-1], [1], 3)
    with pytest.raises(bg.InvalidIndex, match=r"\b4\b"):
        bg.extract(bg.Vector(np.int8, 3), [0, 4])
    with pytest.raises(bg.InvalidIndex, match=r"\b3\b"):
        bg.extract(A35, 3, None)
    with pytest.raises(bg.InvalidIndex, match=r"\b6\b"):
        bg.assign(bg.Vector(np.int8, 3), 1, [6])


def test_invalid_value():
    with pytest.raises(bg.InvalidValue):
        bg.Matrix.from_coo([0, 0], [1, 1], [1, 2])  # valued duplicates need dup_op
    with pytest.raises(bg.InvalidValue):
        bg.Vector(np.int8, -1)
    with pytest.raises(bg.InvalidValue):
        bg.reduce(A35, "plus", by="diagonal")


@pytest.mark.parametrize("call,want", [
    (lambda: bg.mxv(A35, bg.Vector(np.float64, 5), "plus_tims"), "plus_times"),
    (lambda: bg.mxv(A35, bg.Vector(np.float64, 5), "min_pluss"), "min_plus"),
    (lambda: bg.ewise_add(A35, A35, "pluss"), "plus"),
    (lambda: bg.apply(A35, "ainb"), "ainv"),
    (lambda: bg.reduce(A35, "mni"), "min"),
    (lambda: bg.select(A35, "trill"), "tril"),
    (lambda: bg.mxv(A35, bg.Vector(np.float64, 5), accum="tims"), "times"),
])
def test_bad_op_names_suggest(call, want):
    with pytest.raises(bg.BitgraphError) as ei:
        call()
    assert isinstance(ei.value, ValueError), type(ei.value)
    assert "did you mean" in str(ei.value) and repr(want) in str(ei.value), str(ei.value)


def test_format_error_names_file_and_line():
    e = bg.FormatError("expected 3 entries", path="x.mtx", line=4)
    assert str(e).startswith("x.mtx:4: ") and e.line == 4 and e.path == "x.mtx"


def test_device_error_without_gpu():
    A = bg.Matrix.from_coo([0], [0], [1.0], 1, 1)
    if not hasattr(A, "to"):
        pytest.skip("Matrix.to(device) not implemented yet")
    try:
        import cupy  # noqa: F401
        pytest.skip("CuPy present")
    except Exception:
        pass
    with pytest.raises(bg.DeviceError):
        A.to("cuda")


# ---------------------------------------------------------------- failed calls leave out unchanged
def _operations():
    A = bg.Matrix.from_coo([0, 1, 2, 2], [1, 2, 0, 2], [1.0, 2.0, 3.0, 4.0], 3, 3)
    u = bg.Vector.from_coo([0, 2], [1.0, 5.0], 3)
    M = bg.Matrix.from_coo([0, 1], [0, 1], [True, True], 3, 3)
    # (name, call(out, **kw), kind of out, default kwargs)
    return [
        ("mxv", lambda out, **kw: bg.mxv(A, u, "plus_times", out=out, **kw), "v", dict(accum="plus")),
        ("mxv.T", lambda out, **kw: bg.mxv(A.T, u, "min_plus", out=out, **kw), "v", dict(mask=~u.S)),
        ("vxm", lambda out, **kw: bg.vxm(u, A, "plus_times", out=out, **kw), "v", dict(accum="max")),
        ("mxm", lambda out, **kw: bg.mxm(A, A, "plus_times", out=out, **kw), "m", dict(accum="plus")),
        ("mxm masked", lambda out, **kw: bg.mxm(A, A.T, "plus_pair", out=out, **kw), "m", dict(mask=M.S)),
        ("ewise_add", lambda out, **kw: bg.ewise_add(A, A, "plus", out=out, **kw), "m", {}),
        ("ewise_mult", lambda out, **kw: bg.ewise_mult(u, u, "times", out=out, **kw), "v", dict(accum="plus")),
        ("apply", lambda out, **kw: bg.apply(A, "ainv", out=out, **kw), "m", dict(accum="plus")),
        ("apply bound", lambda out, **kw: bg.apply(u, "plus", right=2.0, out=out, **kw), "v", {}),
        ("reduce rows", lambda out, **kw: bg.reduce(A, "plus", by="rows", out=out, **kw), "v", dict(accum="plus")),
        ("select", lambda out, **kw: bg.select(A, "valuegt", 1.5, out=out, **kw), "m", dict(accum="plus")),
        ("transpose", lambda out, **kw: bg.transpose(A, out=out, **kw), "m", dict(accum="plus")),
        ("extract", lambda out, **kw: bg.extract(A, None, [2, 1, 0], out=out, **kw), "m", dict(accum="plus")),
        ("assign", lambda out, **kw: bg.assign(out, A, None, None, **kw), "m", dict(accum="plus")),
        ("assign scalar", lambda out, **kw: bg.assign(out, 3.0, [0, 1], [2], **kw), "m", dict(accum="min")),
    ]


OPERATIONS = _operations()


def _fresh_out(kind):
    if kind == "v":
        return bg.Vector.from_coo([1], [7.0], 3)
    return bg.Matrix.from_coo([1, 2], [1, 0], [7.0, -1.0], 3, 3)


class KernelBoom(RuntimeError):
    pass


@pytest.fixture
def exploding_kernels(monkeypatch):
    """Every registered CPU kernel launcher raises KernelBoom."""
    from bitgraph.kernels import registry

    registry.load("cpu")

    def boom(*a, **k):
        raise KernelBoom("kernel made to fail by the test")

    keys = [k for k, e in registry._REGISTRY.items() if e.device == "cpu"]
    assert keys, "no CPU kernels registered"
    for k in keys:
        monkeypatch.setitem(registry._REGISTRY, k, registry._REGISTRY[k]._replace(func=boom))
    return keys


def test_operations_work_without_failures():
    for name, call, kind, kw in OPERATIONS:
        out = _fresh_out(kind)
        assert call(out, **kw) is out, name


def test_failed_kernel_leaves_out_unchanged(exploding_kernels):
    raised = []
    for name, call, kind, kw in OPERATIONS:
        out = _fresh_out(kind)
        before = O.snapshot(out)
        try:
            call(out, **kw)
        except KernelBoom:
            raised.append(name)
        assert O.snapshot(out) == before, f"{name}: a call whose kernel failed modified out"
    for must in ("mxv", "mxv.T", "vxm", "mxm", "mxm masked"):
        assert must in raised, f"{must} did not go through a registered kernel"


@pytest.mark.parametrize("name,call,kind,kw", OPERATIONS, ids=[o[0] for o in OPERATIONS])
def test_validation_errors_leave_out_unchanged(name, call, kind, kw):
    out = _fresh_out(kind)
    before = O.snapshot(out)
    bad_mask = bg.Vector(bool, 9) if kind == "v" else bg.Matrix(bool, 9, 9)
    with pytest.raises(bg.DimensionMismatch):
        call(out, **{**kw, "mask": bad_mask})
    assert O.snapshot(out) == before
    with pytest.raises(bg.BitgraphError, match="did you mean"):
        call(out, **{**kw, "accum": "pluss"})
    assert O.snapshot(out) == before
