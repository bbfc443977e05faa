"""The per-graph preparation kernels of the CUDA traversals
(``kernels/cuda/graph_prep.cu``) equal the CuPy expressions they replace:
row lengths, empty-row bits and the rows-with-entries count, in-lists
ordered by degree (ties in order); int32 and int64 indptr and indices,
empty graph, one vertex, n not a multiple of 32, empty rows, a hub."""

from __future__ import annotations

import numpy as np
import pytest

from bitgraph import _array
from bitgraph.kernels import registry

pytestmark = pytest.mark.gpu


def _csr(rng, n, hub):
    cupy = pytest.importorskip("cupy")
    lens = rng.integers(0, 5, n) * (rng.random(n) < 0.7)
    if hub and n:
        lens[rng.integers(0, n)] = 3 * n
    indptr = np.concatenate([[0], np.cumsum(lens)])
    indices = rng.integers(0, max(n, 1), indptr[-1])
    return cupy, indptr, indices


@pytest.mark.parametrize("n", [0, 1, 31, 32, 33, 1000, 4099])
@pytest.mark.parametrize("pdt, idt", [(np.int32, np.int32), (np.int64, np.int32),
                                      (np.int64, np.int64)])
@pytest.mark.parametrize("hub", [False, True])
def test_graph_prep_equals_cupy(n, pdt, idt, hub):
    rng = np.random.default_rng(n * 7 + hub)
    cupy, indptr, indices = _csr(rng, n, hub)
    p, i = cupy.asarray(indptr, pdt), cupy.asarray(indices, idt)
    row_lengths = registry.lookup("row_lengths", fmt="csr", device="cuda", variant="int32")
    empty_rows = registry.lookup("empty_rows", fmt="csr", device="cuda", variant="bits")
    order = registry.lookup("order_by_degree", fmt="csr", device="cuda", variant="sorted")

    deg = row_lengths(p)
    assert deg.dtype == np.int32 and deg.shape == (n,)
    np.testing.assert_array_equal(deg.get(), np.diff(indptr))

    bits, live = empty_rows(p)
    empty = np.diff(indptr) == 0
    np.testing.assert_array_equal(bits.get(), _array.pack_bits(empty))
    assert live == int(n - empty.sum())

    if n:
        got = order(p, i, deg).get()
        d = np.diff(indptr)
        rows = np.repeat(np.arange(n, dtype=np.int64), d)
        key = (rows << 32) | (np.int64(2**31 - 1) - d[indices].astype(np.int64))
        want = indices[np.argsort(key, kind="stable")]
        assert got.dtype == idt
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [0, 1, 31, 32, 33, 1000, 4099])
def test_pack_bits_equals_the_host(n):
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(n)
    present = rng.random(n) < 0.4
    from bitgraph.kernels import registry

    pack = registry.lookup("pack_bits", fmt="dense", device="cuda", variant="bool")
    got = pack(cupy.asarray(present))
    assert got.dtype == np.uint32 and got.shape == ((n + 31) // 32,)
    np.testing.assert_array_equal(got.get(), _array.pack_bits(present))
    # a strided view goes through a contiguous copy
    both = cupy.asarray(np.repeat(present, 2))
    np.testing.assert_array_equal(pack(both[::2]).get(), _array.pack_bits(present))
