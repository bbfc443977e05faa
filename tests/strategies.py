"""Hypothesis strategies for the conformance suite.

Hypothesis draws the shape of a case (dimensions, dtype, density class,
features such as duplicates or full rows, the operator, mask kind, accum,
replace, out) and a seed; the bulk entries come from ``numpy.random`` with
that seed (drawing thousands of entries one by one through hypothesis is
slow). Every spec prints as Python code that rebuilds it, so a falsifying
example is a ready-made reproducer.

Examples per test scale with the profile (``n_examples``): see conftest.py.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

import oracle as O
from values import _float_specials, _int_specials, gen_values  # noqa: F401 (S._int_specials in tests)

# --------------------------------------------------------------------------------------
# profile scaling
# --------------------------------------------------------------------------------------
PROFILE = os.environ.get("BITGRAPH_HYPOTHESIS_PROFILE", "ci")
_SCALE = {"ci": 1.0, "dev": 0.08, "thorough": 5.0}.get(PROFILE, 1.0)


def n_examples(n: int) -> int:
    """Examples for one test: ``n`` in the ci profile, scaled in the others."""
    return max(2, int(round(n * _SCALE)))


# --------------------------------------------------------------------------------------
# values
# --------------------------------------------------------------------------------------
def py_scalar_like(rng, dtype, mode):
    """A scalar of ``dtype``: a numpy scalar, or a Python bool/int/float where that
    keeps the dtype (bool -> bool, int -> int64, float -> float64)."""
    dt = np.dtype(dtype)
    v = gen_values(rng, dt, 1, mode)[0]
    if dt == O.BOOL:
        return bool(v)
    if dt == np.int64:
        return int(v)
    if dt == np.float64:
        return float(v)
    return v


# --------------------------------------------------------------------------------------
# specs: raw COO data that builds both a bitgraph and a python-graphblas object
# --------------------------------------------------------------------------------------
def _arr(a):
    a = np.asarray(a)
    if a.dtype.kind == "f":
        body = ", ".join(repr(float(x)) if np.isfinite(x) else f"np.{x!r}".replace("np.-inf", "-np.inf")
                         for x in a.tolist())
    else:
        body = ", ".join(repr(x) for x in a.tolist())
    return f"np.array([{body}], dtype=np.{a.dtype.name})"


@dataclass(eq=False)
class MatSpec:
    nrows: int
    ncols: int
    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray | None  # None: structure-only
    dtype: np.dtype
    dup_op: str | None = None
    via: str = "coo"  # coo | scipy32 | scipy64

    def gb(self):
        """python-graphblas reference object (duplicates combined by python-graphblas)."""
        if self.values is None:  # structure only (bool), or iso ones of self.dtype
            keys = np.unique(self.rows.astype(np.int64) * max(self.ncols, 1) + self.cols)
            nc = max(self.ncols, 1)
            return O.gb_matrix(keys // nc, keys % nc, None, self.nrows, self.ncols, self.dtype)
        if self.rows.size == 0:
            return O.gb.Matrix(O.gbt(self.dtype), self.nrows, self.ncols)
        dup = O.gb_binary(self.dup_op, self.dtype) if self.dup_op else None
        return O.gb.Matrix.from_coo(self.rows.astype(np.int64), self.cols.astype(np.int64),
                                    self.values, nrows=self.nrows, ncols=self.ncols,
                                    dtype=O.gbt(self.dtype), dup_op=dup)

    def bg(self, bg):
        return self._bg(bg).to(O.CONFORMANCE_DEVICE)

    def _bg(self, bg):
        if self.via == "coo":
            iso = self.values is None and self.dtype != O.BOOL
            return bg.Matrix.from_coo(self.rows, self.cols, self.values, self.nrows, self.ncols,
                                      dtype=self.dtype if (self.values is not None or iso) else None,
                                      dup_op=self.dup_op)
        import scipy.sparse as sp

        g = self.gb()
        r, c, v = g.to_coo()
        idt = np.int64 if self.via == "scipy64" else np.int32
        order = np.lexsort((c, r))
        r, c, v = r[order].astype(idt), c[order].astype(idt), v[order]
        indptr = np.zeros(self.nrows + 1, idt)
        np.add.at(indptr, r.astype(np.int64) + 1, 1)
        indptr = np.cumsum(indptr).astype(idt)
        S = sp.csr_array((v, c, indptr), shape=(self.nrows, self.ncols))
        S.indices = S.indices.astype(idt)
        S.indptr = S.indptr.astype(idt)
        return bg.Matrix.from_scipy(S)

    def _repr_pretty_(self, p, cycle):
        p.text(repr(self))

    def __repr__(self):
        vals = "None" if self.values is None else _arr(self.values)
        if self.via != "coo":
            return (f"<{self.via} csr of> bg.Matrix.from_coo({_arr(self.rows)}, {_arr(self.cols)}, {vals}, "
                    f"{self.nrows}, {self.ncols}, dup_op={self.dup_op!r})")
        return (f"bg.Matrix.from_coo({_arr(self.rows)}, {_arr(self.cols)}, {vals}, {self.nrows}, "
                f"{self.ncols}" + (f", dtype=np.{self.dtype.name}" if self.dtype != O.BOOL or self.values is not None
                                   else "")
                + (f", dup_op={self.dup_op!r})" if self.dup_op else ")"))


@dataclass(eq=False)
class VecSpec:
    size: int
    indices: np.ndarray
    values: np.ndarray | None
    dtype: np.dtype
    dup_op: str | None = None
    via: str = "coo"  # coo | dense | indices

    def gb(self):
        if self.values is None:
            return O.gb_vector(np.unique(self.indices), None, self.size, O.BOOL)
        if self.indices.size == 0:
            return O.gb.Vector(O.gbt(self.dtype), self.size)
        dup = O.gb_binary(self.dup_op, self.dtype) if self.dup_op else None
        return O.gb.Vector.from_coo(self.indices.astype(np.int64), self.values, size=self.size,
                                    dtype=O.gbt(self.dtype), dup_op=dup)

    def bg(self, bg):
        return self._bg(bg).to(O.CONFORMANCE_DEVICE)

    def _bg(self, bg):
        if self.via == "dense":
            g = self.gb()
            assert g.nvals == self.size
            return bg.Vector.from_dense(g.to_coo()[1])
        if self.via == "indices":
            return bg.Vector.from_indices(self.indices, self.size)
        return bg.Vector.from_coo(self.indices, self.values, self.size,
                                  dtype=None if self.values is None else self.dtype,
                                  dup_op=self.dup_op)

    def _repr_pretty_(self, p, cycle):
        p.text(repr(self))

    def __repr__(self):
        if self.via == "dense":
            return f"bg.Vector.from_dense({_arr(self.gb().to_coo()[1])})"
        if self.via == "indices":
            return f"bg.Vector.from_indices({_arr(self.indices)}, {self.size})"
        vals = "None" if self.values is None else _arr(self.values)
        return (f"bg.Vector.from_coo({_arr(self.indices)}, {vals}, {self.size}"
                + (f", dtype=np.{self.dtype.name}" if self.values is not None else "")
                + (f", dup_op={self.dup_op!r})" if self.dup_op else ")"))


# --------------------------------------------------------------------------------------
# drawing (plain functions over module-level strategies: building strategy
# objects per draw costs hypothesis ~0.3 ms each, more than the test itself)
# --------------------------------------------------------------------------------------
# dimension table: 0, 1, 2 often; up to 12 mostly; 13..40 about one case in six
_DIMS = [0] * 14 + [1] * 14 + [2] * 10 + list(range(0, 13)) * 12 + list(range(13, 41)) * 1
_DIMS += list(range(3, 13)) * ((256 - len(_DIMS)) // 10)
_DIMS = (_DIMS + [12] * 256)[:256]
dims = st.integers(0, 255).map(_DIMS.__getitem__)
dtypes = st.sampled_from(O.DTYPES)
DENSITIES = (0.0, 0.02, 0.05, 0.15, 0.35, 0.7, 1.0)
seeds = st.integers(0, 2**32 - 1)
DUP_OPS = ("plus", "min", "max", "first", "second", "times")
MASK_KINDS = (None, "value", "V", "S", "~value", "~V", "~S")
ACCUMS = (None,) * 6 + O.BINARY_OPS
mask_kinds = st.sampled_from(MASK_KINDS)
accums = st.sampled_from(ACCUMS)
value_modes = st.sampled_from(["nice", "nice", "wild"])
booleans = st.booleans()
small_ints = st.integers(0, 7)
FEATURES = ("empty_rows", "full_rows", "self_loops", "dups", "shuffle", "full_cols")


def _rng(draw):
    return np.random.default_rng(draw(seeds))


def draw_matrix(draw, nrows=None, ncols=None, dtype=None, mode=None, structure_only=None,
                density=None, allow_dups=True, via=None, nan=None):
    """A MatSpec; any argument given fixes that aspect. Hypothesis draws the
    dimensions, the dtype and a seed; the rest comes from the seeded rng."""
    nr = draw(dims) if nrows is None else nrows
    nc = draw(dims) if ncols is None else ncols
    dt = draw(dtypes) if dtype is None else np.dtype(dtype)
    rng = _rng(draw)
    md = (("nice", "nice", "wild")[rng.integers(3)]) if mode is None else mode
    dens = DENSITIES[rng.integers(len(DENSITIES))] if density is None else density
    features = {f for f in FEATURES if rng.random() < 0.15}
    so = (dt == O.BOOL and rng.random() < 0.5) if structure_only is None else structure_only
    if so:
        dt = O.BOOL
    # iso: values=None with a non-bool dtype (every entry 1 of that dtype)
    iso = structure_only is None and not so and dt != O.BOOL and rng.random() < 0.08
    present = rng.random((nr, nc)) < dens
    if "empty_rows" in features and nr:
        present[rng.random(nr) < 0.5, :] = False
    if "full_rows" in features and nr:
        present[rng.integers(0, nr, 1 + nr // 4), :] = True
    if "full_cols" in features and nc:
        present[:, rng.integers(0, nc, 1 + nc // 4)] = True
    if "self_loops" in features:
        k = min(nr, nc)
        present[np.arange(k), np.arange(k)] |= rng.random(k) < 0.7
    rows, cols = np.nonzero(present)
    dup_op = None
    if allow_dups and "dups" in features and rows.size:
        extra = rng.integers(0, rows.size, 1 + rows.size // 3)
        rows = np.concatenate([rows, rows[extra]])
        cols = np.concatenate([cols, cols[extra]])
        if not so:
            dup_op = DUP_OPS[rng.integers(len(DUP_OPS))]
    if "shuffle" in features or dup_op is not None:
        p = rng.permutation(rows.size)
        rows, cols = rows[p], cols[p]
    use_nan = (md == "wild" and rng.random() < 0.3) if nan is None else nan
    values = None if so else gen_values(rng, dt, rows.size, md, nan=use_nan)
    v = ("coo", "coo", "coo", "coo", "scipy32", "scipy64")[rng.integers(6)] if via is None else via
    if iso:
        return MatSpec(nr, nc, rows.astype(np.int64), cols.astype(np.int64), None, dt, None, v)
    return MatSpec(nr, nc, rows.astype(np.int64), cols.astype(np.int64), values, dt, dup_op, v)


def draw_vector(draw, size=None, dtype=None, mode=None, structure_only=None, density=None,
                allow_dups=True, nan=None):
    n = draw(dims) if size is None else size
    dt = draw(dtypes) if dtype is None else np.dtype(dtype)
    rng = _rng(draw)
    md = (("nice", "nice", "wild")[rng.integers(3)]) if mode is None else mode
    dens = DENSITIES[rng.integers(len(DENSITIES))] if density is None else density
    so = (dt == O.BOOL and rng.random() < 0.5) if structure_only is None else structure_only
    if so:
        dt = O.BOOL
    idx = np.flatnonzero(rng.random(n) < dens).astype(np.int64)
    dup_op = None
    if allow_dups and idx.size and rng.random() < 0.1:
        idx = np.concatenate([idx, idx[rng.integers(0, idx.size, 1 + idx.size // 3)]])
        if not so:
            dup_op = DUP_OPS[rng.integers(len(DUP_OPS))]
    if dup_op is not None or rng.random() < 0.5:
        idx = idx[rng.permutation(idx.size)]
    use_nan = (md == "wild" and rng.random() < 0.3) if nan is None else nan
    values = None if so else gen_values(rng, dt, idx.size, md, nan=use_nan)
    via = "coo"
    if so and dup_op is None and rng.random() < 0.5:
        via = "indices"
    elif not so and dup_op is None and idx.size == n and n and rng.random() < 0.5:
        via = "dense"
    return VecSpec(n, idx, values, dt, dup_op, via)


def draw_mask(draw, size=None, nrows=None, ncols=None):
    """(spec or None, kind): a mask with its own random dtype; float value masks
    get -0.0 (present by SuiteSparse's byte rule) and 0.0 entries."""
    kind = draw(mask_kinds)
    if kind is None:
        return None, None
    if size is not None:
        spec = draw_vector(draw, size=size, allow_dups=False, mode="nice")
    else:
        spec = draw_matrix(draw, nrows=nrows, ncols=ncols, allow_dups=False, mode="nice", via="coo")
    vals = spec.values
    if vals is not None and vals.size:
        # falsy entries make value and structural masks differ
        rng = np.random.default_rng(vals.size + 7 * spec.dtype.num)
        sel = rng.random(vals.size) < 0.35
        if spec.dtype.kind == "f":
            vals[sel] = rng.choice(np.array([-0.0, 0.0], spec.dtype), int(sel.sum()))
        else:
            vals[sel] = 0
    return spec, kind


def draw_outputs(draw, size=None, nrows=None, ncols=None):
    """(out spec or None, accum name or None, replace)."""
    k = draw(small_ints)
    if k < 2:
        out = None
    elif size is not None:
        out = draw_vector(draw, size=size, allow_dups=False)
    else:
        out = draw_matrix(draw, nrows=nrows, ncols=ncols, allow_dups=False, via="coo")
    accum = draw(accums)
    if accum is not None and k == 7:
        accum = AccumObj(accum)  # passed as bg.binary.<NAME>
    if out is None and k == 1:
        accum = None  # accum without out is legal but says little: keep it rare
    return out, accum, draw(booleans)


class AccumObj(str):
    """An accum name that the tests pass to bitgraph as its operator object."""

    def bg(self, bg):
        return getattr(bg.binary, self.upper(), str(self))


def accum_arg(accum, bg):
    return accum.bg(bg) if isinstance(accum, AccumObj) else accum


def _composite(fn):
    @st.composite
    def strat(draw, **kw):
        return fn(draw, **kw)

    strat.__name__ = fn.__name__
    return strat


matrices = _composite(draw_matrix)
vectors = _composite(draw_vector)


def op_obj(bg, kind, name, as_object):
    """An operator as bitgraph takes it: its name, or the object (bg.semiring.PLUS_TIMES)."""
    if not as_object:
        return name
    mod = getattr(bg, kind)
    obj = getattr(mod, name.upper(), None)
    return name if obj is None else obj


SEMIRING_NAMES = [f"{m}_{b}" for m in O.MONOIDS for b in O.SEMIRING_MULS]
semirings = st.sampled_from(SEMIRING_NAMES)
binary_ops = st.sampled_from(O.BINARY_OPS)


def build_mask(spec_kind, bg):
    """(bitgraph mask, python-graphblas mask) from a masks() draw."""
    spec, kind = spec_kind
    if spec is None:
        return None, None
    return O.bg_mask(spec.bg(bg), kind), O.gb_mask(spec.gb(), kind)


def build_out(spec, bg):
    return (None, None) if spec is None else (spec.bg(bg), spec.gb())
