"""The partitioned calls' memory: the n-length arrays alive at once, on
numpy ranks of a LocalGroup (tracemalloc's peak over the whole group, the
graph built before), bounded so that an extra n-vector a rank fails. The
graph has 2 entries a vertex and the steps are small, so the n-length
arrays are all that count."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import bitgraph as bg
import bitgraph.distributed as dist
from bitgraph.distributed import DistMatrix, LocalGroup

SIZE = 2
A = bg.io.generators.grid2d(256, 512)  # n = 2^17
N = A.nrows


@pytest.fixture(scope="module")
def parts():
    with bg.settings.use(distributed={"step_entries": 1 << 12}):
        return LocalGroup(SIZE).run(DistMatrix.from_matrix, A, balance="vertices")


def _peak(fn):
    """Bytes over the group's start while ``fn(comm)`` runs on every rank
    (once before, unmeasured: numba's compiles)."""
    with bg.settings.use(distributed={"step_entries": 1 << 12}):
        LocalGroup(SIZE).run(fn)
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            LocalGroup(SIZE).run(fn)
            return tracemalloc.get_traced_memory()[1] - base
        finally:
            tracemalloc.stop()


@pytest.mark.parametrize("gather", [False, True])
def test_pagerank_keeps_one_gathered_vector_and_four_slices(parts, gather):
    # a rank: y (8n bytes, gathered into every iteration and into the answer) and x, the
    # new x, the pulled sums and 1 / S (8n / size each); before: 12.75 x 8n for the group
    peak = _peak(lambda c: dist.pagerank(c, parts[c.rank], tol=0.0, max_iter=5, gather=gather))
    slices = 8 * N // SIZE
    assert peak <= SIZE * (8 * N + 5 * slices), peak / (8 * N)


def test_pagerank_iterations_allocate_no_n_vector(parts):
    short = _peak(lambda c: dist.pagerank(c, parts[c.rank], tol=0.0, max_iter=1))
    long = _peak(lambda c: dist.pagerank(c, parts[c.rank], tol=0.0, max_iter=8))
    assert long <= short + N, (short / (8 * N), long / (8 * N))


@pytest.mark.parametrize("gather", [False, True])
def test_components_keep_three_label_vectors(parts, gather):
    # a rank in the rounds: f, gf and the round's hooks (int32, 4n bytes each), reduced in
    # place, and LocalGroup's own copy of the reduction (4n); the int64 answer after them
    peak = _peak(lambda c: dist.connected_components(c, parts[c.rank], gather=gather))
    answer = 8 * N if gather else 8 * N // SIZE
    assert peak <= SIZE * max(5 * 4 * N, 4 * N + answer), peak / (8 * N)


def test_allgatherv_makes_only_its_result():
    counts = [N // 2 + 64, N // 2 - 64]  # unequal: no padded pieces, no concatenation

    def work(comm):
        return comm.allgatherv(np.ones(counts[comm.rank]), counts)

    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        out = LocalGroup(SIZE).run(work)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert all(o.tolist() == [1.0] * N for o in out)
    # the inputs (8n bytes for the group) and each rank's result (8n bytes)
    assert peak <= 8 * N + SIZE * 8 * N + N, peak / (8 * N)
