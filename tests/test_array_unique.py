"""``bitgraph._array.unique`` (a sort and a mask) gives ``numpy.unique``'s
results: the values, and the first-occurrence indices and counts where the
library asks for them; and no module of the package calls ``np.unique``
(or ``xp.unique``) itself any more."""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bitgraph import _array

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "bitgraph"
DTYPES = ["bool", "int8", "uint8", "int32", "int64", "uint32", "uint64"]


def _same(got, ref):
    got = got if isinstance(got, tuple) else (got,)
    ref = ref if isinstance(ref, tuple) else (ref,)
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        assert g.dtype == r.dtype, (g.dtype, r.dtype)
        np.testing.assert_array_equal(g, r)


@pytest.mark.parametrize("dtype", DTYPES)
@given(data=st.data())
def test_matches_numpy_unique(dtype, data):
    info = np.iinfo(dtype) if dtype != "bool" else None
    lo, hi = (0, 1) if info is None else (max(info.min, -50), min(info.max, 50))
    values = data.draw(st.lists(st.integers(lo, hi), max_size=60), label="values")
    a = np.array(values, dtype=dtype)
    for kw in ({}, {"return_index": True}, {"return_counts": True},
               {"return_index": True, "return_counts": True}):
        _same(_array.unique(a, **kw), np.unique(a, **kw))


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_matches_numpy_unique_wide_keys(dtype):
    """Keys across the whole range (linear keys ``row * ncols + col``)."""
    rng = np.random.default_rng(7)
    a = rng.integers(0, np.iinfo(np.int64).max, 5000, dtype=np.int64).astype(dtype)
    a = np.concatenate([a, a[::3]])  # repeats, not adjacent
    rng.shuffle(a)
    for kw in ({}, {"return_index": True, "return_counts": True}):
        _same(_array.unique(a, **kw), np.unique(a, **kw))


def test_edges_and_floats():
    for a in (np.zeros(0, np.int32), np.array([5]), np.array([[3, 1], [3, 0]])):  # 2-D: flattened
        _same(_array.unique(a, return_index=True, return_counts=True),
              np.unique(a, return_index=True, return_counts=True))
    f = np.array([2.0, np.nan, 1.0, np.nan, -0.0, 0.0])  # NaNs fold into one, as numpy's
    _same(_array.unique(f, return_counts=True), np.unique(f, return_counts=True))


def test_first_occurrence_is_kept():
    a = np.array([4, 2, 4, 2, 9, 4])
    values, first = _array.unique(a, return_index=True)
    assert values.tolist() == [2, 4, 9] and first.tolist() == [1, 0, 4]


def test_no_direct_unique_calls():
    """Every caller goes through ``_array.unique`` (numpy's hash path for a
    bare ``np.unique`` is ~15x slower on distinct int64 keys)."""
    pat = re.compile(r"\b(np|numpy|xp|cupy|cp)\.unique\(")
    found = []
    for path in PACKAGE.rglob("*.py"):
        for k, line in enumerate(path.read_text().splitlines(), 1):
            if pat.search(line) and path.name != "_array.py":
                found.append(f"{path.relative_to(PACKAGE.parent)}:{k}: {line.strip()}")
    assert not found, "\n".join(found)
