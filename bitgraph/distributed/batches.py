"""Source batches over every rank: each rank holds the whole graph and runs
the one-process call (``bitgraph.algorithms``) on its share of the
sources; the results are combined once, with no exchange per BFS level.

The sources (every vertex when None, or the ``k`` sampled exactly as the
one-process call samples them) are cut into whole batches of the kernel's
width (64 sources per msbfs / betweenness batch: a uint64 status word) and
the batches dealt back and forth over the ranks, balanced by count
(``batch_deal``; eccentricity: in order, ``source_share``): every rank's
batches are full but the last one's. msbfs and closeness deal the sources
with out-edges and those without apart (the one-process call answers the
latter without a traversal), so every rank gets as many traversing
batches; closeness and unweighted betweenness deal whole batches of the
one-process call's own batch order (``multi_source.batch_order``,
``betweenness.batch_order``), so the ranks run that call's batches,
grouped sources included. Then

- msbfs levels, closeness and eccentricity: each rank's rows, gathered
  back in the caller's order (``allgatherv``);
- betweenness: each rank's raw sums, summed over the ranks (``allreduce``)
  before the one-process call's scaling, applied once.

Every call runs the same collectives on every rank, a rank with no
sources included. An error on any rank (a vertex of a disconnected graph
in ``eccentricity``, say) is raised on every rank, as the first failing
rank raised it; ranks holding different graphs or arguments raise
``DistributedError`` naming what differs (the graph is compared by its
size, entries and row pointers).

>>> import bitgraph as bg
>>> from bitgraph.distributed import LocalGroup, closeness_centrality
>>> A = bg.io.generators.grid2d(3, 3)
>>> out = LocalGroup(2).run(closeness_centrality, A)
>>> bool((out[0] == out[1]).all()), bool((out[0] == bg.algorithms.closeness_centrality(A)).all())
(True, True)
"""

from __future__ import annotations

import builtins
from typing import NamedTuple

import numpy as np

from bitgraph import errors as _errors
from bitgraph.errors import DistributedError, InvalidType, InvalidValue

__all__ = ["source_share", "batch_deal", "msbfs", "closeness_centrality", "eccentricity",
           "betweenness_centrality", "edge_betweenness_centrality"]

BATCH = 64  # sources per msbfs batch: one bit each in a uint64 status word
_MESSAGE_BYTES = 4096  # an error's type and message, broadcast from the rank that raised it


def source_share(k: int, size: int, rank: int, batch: int = BATCH) -> tuple:
    """``(start, stop)``: rank ``rank``'s sources among ``k``, cut into
    whole batches of ``batch`` dealt out in order, ``ceil(k / batch)``
    batches split as evenly as counts allow (a rank may get none when
    there are fewer batches than ranks).

    >>> [source_share(200, 3, r) for r in range(3)]  # 4 batches: 64 | 64 | 64 + 8
    [(0, 64), (64, 128), (128, 200)]
    >>> [source_share(10, 3, r) for r in range(3)]
    [(0, 0), (0, 0), (0, 10)]
    """
    for name, value, low in (("k", k, 0), ("size", size, 1), ("batch", batch, 1)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise InvalidType(f"source_share: {name} must be an integer, got {value!r}")
        if value < low:
            raise InvalidValue(f"source_share: {name} must be >= {low}, got {value}")
    if isinstance(rank, (bool, np.bool_)) or not isinstance(rank, (int, np.integer)) \
            or not 0 <= rank < size:
        raise InvalidValue(f"source_share: rank must be in 0..{size - 1}, got {rank!r}")
    nb = -(-int(k) // int(batch))
    b0, b1 = nb * int(rank) // int(size), nb * (int(rank) + 1) // int(size)
    return min(b0 * batch, k), min(b1 * batch, k)


def batch_deal(k: int, size: int, rank: int, batch: int = BATCH):
    """Rank ``rank``'s positions among ``k`` sources (an int64 array, in
    order): the ``ceil(k / batch)`` whole batches dealt back and forth
    (batch j to rank j % size on even sweeps, to size - 1 - j % size on odd
    ones), so that ranks get as many batches as counts allow and, where
    the batches' costs drift along the order (betweenness's grouped
    sources: kron-22's cost a batch falls from about 75 to 45 ms along it),
    each rank a like mix of them. The short last batch is the last of
    its rank's.

    >>> [batch_deal(10, 2, r, batch=2).tolist() for r in range(2)]  # batches 0 3 4 | 1 2
    [[0, 1, 6, 7, 8, 9], [2, 3, 4, 5]]
    """
    source_share(k, size, rank, batch)  # the same checks
    nb = -(-int(k) // int(batch))
    j = np.arange(nb, dtype=np.int64)
    sweep, pos = np.divmod(j, int(size))
    mine = j[np.where(sweep % 2 == 0, pos, int(size) - 1 - pos) == int(rank)]
    if mine.size == 0:
        return np.zeros(0, np.int64)
    idx = (mine[:, None] * int(batch) + np.arange(int(batch))[None, :]).ravel()
    return idx[idx < int(k)]


def _counts(comm, k, batch):
    return [b - a for a, b in (source_share(k, comm.size, r, batch) for r in range(comm.size))]


# ---------------------------------------------------------------------------
# every rank alike: errors raised everywhere, arguments compared
# ---------------------------------------------------------------------------

class _Begun(NamedTuple):
    """``_started``'s result: this rank's ``out`` (None where ``fn``
    raised ``err``), the outcome collective under way and the names of
    the fields it compares."""

    out: object
    err: BaseException | None
    pending: object
    agree: tuple


def _started(comm, fn, agree=()) -> _Begun:
    """``fn()`` on this rank (no collective inside it), then its outcome
    (and the integer fields named in ``agree``: ``fn()`` then returns
    ``(out, values)``) sent in an allgather that is started, not waited
    for: ``_finished`` reads it, and work in between overlaps it."""
    k = len(agree)
    row = np.zeros(1 + k, np.int64 if k else np.int8)  # the outcome alone: one byte
    try:
        out, err = fn(), None
        if k:
            out, values = out
            row[1:] = [int(v) for v in values]
    except Exception as e:  # noqa: BLE001 - re-raised by _finished, on every rank
        out, err = None, e
        row[0] = 1
    return _Begun(out, err, comm.allgather_started(row), tuple(agree))


def _finished(comm, where, begun: _Begun):
    """``begun.out`` when every rank's ``fn`` returned and their fields
    agree; else every rank raises: the first failing rank its own
    exception, the others the same type and message (a bitgraph error or a
    builtin one; anything else as ``DistributedError`` naming it), or, all
    having returned, ``_agree``'s error naming the first field that
    differs."""
    from bitgraph.device import host

    every = host(begun.pending.wait()).reshape(comm.size, 1 + len(begun.agree))
    failed = np.flatnonzero(every[:, 0])
    if failed.size == 0:
        _differ(where, begun.agree, every[:, 1:])
        return begun.out
    _raise_first(comm, where, int(failed[0]), begun.err)


def _together(comm, where, fn, agree=()):
    """``fn()`` on every rank (no collective inside it), its outcome
    compared at once: ``_finished(comm, where, _started(comm, fn, agree))``."""
    return _finished(comm, where, _started(comm, fn, agree))


def _returned(out, err):
    """``out``, or ``err`` raised (a result made before its collective)."""
    if err is not None:
        raise err
    return out


def _raise_first(comm, where, first, err):
    """Raise, on every rank, rank ``first``'s exception ``err`` (its own
    there; elsewhere the same type and message, broadcast from it)."""
    from bitgraph.device import host

    text = np.zeros(_MESSAGE_BYTES, np.uint8)
    if comm.rank == first:
        raw = f"{type(err).__name__}\n{err}".encode("utf-8", "replace")[:_MESSAGE_BYTES]
        text[:len(raw)] = np.frombuffer(raw, np.uint8)
    text = host(comm.broadcast(text, root=first))
    if comm.rank == first:
        raise err
    name, _, message = bytes(text).rstrip(b"\0").decode("utf-8", "replace").partition("\n")
    raise _rebuilt(name, message, first, where)


def _rebuilt(name, message, rank, where):
    cls = getattr(_errors, name, None) if name in _errors.__all__ else None
    if cls is None:
        cls = getattr(builtins, name, None)
        if not (isinstance(cls, type) and issubclass(cls, Exception)) or name in (
                "KeyboardInterrupt", "SystemExit"):
            return DistributedError(f"{where}: rank {rank} raised {name}: {message}")
    try:
        err = cls(message)
    except Exception:  # noqa: BLE001 - a class that wants other arguments
        return DistributedError(f"{where}: rank {rank} raised {name}: {message}")
    err.add_note(f"(raised on rank {rank})")
    return err


def _digest(a) -> int:
    """A 63-bit checksum of an integer array, on its device (wrapping
    uint64 arithmetic: position-weighted sum)."""
    from bitgraph import _array
    from bitgraph.device import host

    xp = _array.array_module(a)
    a = xp.asarray(a).astype(np.uint64).ravel()
    w = xp.arange(1, a.shape[0] + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    return int(host((a * w + w).sum())) & ((1 << 63) - 1)  # synchronize!


def _agree(comm, where, **fields):
    """Every rank has the same value of each field (integers), else a
    ``DistributedError`` on every rank naming the first that differs."""
    from bitgraph.device import host

    names = list(fields)
    mine = np.array([int(v) for v in fields.values()], np.int64)
    _differ(where, names, host(comm.allgather(mine)).reshape(comm.size, len(names)))


def _differ(where, names, every):
    """Raise ``DistributedError`` naming the first of ``names`` whose
    column of ``every`` (a row a rank) is not one value."""
    bad = np.flatnonzero((every != every[0]).any(axis=0))
    if bad.size:
        j = int(bad[0])
        values = ", ".join(f"rank {r}: {int(every[r, j])}" for r in range(every.shape[0]))
        raise DistributedError(f"{where}: the ranks disagree on {names[j]} ({values}); every rank"
                               f" must call with the same graph and arguments")


# what the ranks compare of a call's graph and sources (integers)
_GRAPH = ("the number of vertices", "the number of entries", "the graph's row pointers")
_SOURCES = ("the number of sources", "the sources")


def _graph_values(A):
    from bitgraph.algorithms._common import cached, out_csr

    # the checksum once per graph (its storage): a pass over the row pointers and a read back
    return A.nrows, A.nvals, cached(A, "indptr_digest", lambda: _digest(out_csr(A).indptr))


def _graph_fields(A):
    return dict(zip(_GRAPH, _graph_values(A)))


def _sources_values(src):
    return src.size, _digest(src)


def _sources_fields(src):
    return dict(zip(_SOURCES, _sources_values(src)))


def _prepare_sources(comm, A, sources, where, *, split=None, **options) -> _Begun:
    """The sources (every vertex when None) checked on this rank, then
    compared with the other ranks' (with the graph and the call's
    ``options``, integers) in a collective started here, its outcome
    included (``_started``: ``_gathered`` runs the share meanwhile and
    reads it). ``out``: ``(src, split(src))``, ``split`` a function of the
    checked sources giving ``(busy, idle)`` (the positions of those dealt
    as traversing batches, in batch order, and of the others; its errors
    raised on every rank alike), or ``(src, None)`` (dealt in order)."""
    from bitgraph.algorithms._common import check_graph, check_sources

    def check():
        check_graph(A, where, cuda=True)
        src = np.arange(A.nrows, dtype=np.int64) if sources is None \
            else check_sources(A, sources, where)
        out = src, None if split is None else split(src)
        return out, (*_graph_values(A), *_sources_values(src), *options.values())

    return _started(comm, check, agree=_GRAPH + _SOURCES + tuple(options))


def _out_edges_split(A):
    """A ``split`` for ``_prepare_sources``: the sources with out-edges in
    A, in order, then those without."""
    from bitgraph.algorithms._common import has_out_edges

    def split(src):
        has = has_out_edges(A, src)
        return np.flatnonzero(has), np.flatnonzero(~has)

    return split


def _dealt(comm, busy, idle, batch):
    """``(perm, counts)``: positions of the sources in consecutive runs of
    ``counts`` (rank order), each rank's run its share of ``busy`` (those
    with out-edges, in batch order: whole batches of ``batch``,
    ``batch_deal``) then its share of ``idle`` (answered without a
    traversal by the one-process call): every rank gets as many traversing
    batches as the split allows, wherever they sit among the sources."""
    parts, counts = [], []
    for r in range(comm.size):
        mine = busy[batch_deal(int(busy.size), comm.size, r, batch)]
        c, d = source_share(int(idle.size), comm.size, r, batch)
        parts += [mine, idle[c:d]]
        counts.append(int(mine.size) + d - c)
    return np.concatenate(parts), counts


def _gathered(comm, where, A, begun, batch, local, value=None):
    """``local(share)`` on this rank's share of the sources that
    ``_prepare_sources`` checked (``begun``), the rows of every rank
    gathered back in the caller's order. The share runs while the checks'
    collective travels; its outcome is read after (an error or a
    disagreement raised on every rank before the shares' collective).
    Shares: ``_dealt`` whole batches of ``batch`` of the split's parts, or,
    without a split, the sources cut in order (eccentricity: its error
    names the first failing source of the first failing rank, which must be
    the first among the sources; a source without out-edges fails anyway).
    ``value``: the dtype of a 1-d result (one value a source), whose outcome
    then travels with the values in one collective (``_outcome_with``), put
    in order on the host and placed on A's device once; None: the outcome
    first, then the rows (msbfs's, n values a source, gathered and ordered
    on A's device)."""
    from bitgraph import _array
    from bitgraph.device import asdevice, host

    mine = err = perm = counts = None
    if begun.err is None:  # else _finished raises, on every rank
        src, split = begun.out
        if split is None:
            counts = _counts(comm, int(src.size), batch)
        else:
            perm, counts = _dealt(comm, *split, batch)
        a = sum(counts[:comm.rank])
        share = src[a:a + counts[comm.rank]] if perm is None else src[perm[a:a + counts[comm.rank]]]
        try:
            mine = local(share)
            if value is not None:
                mine = np.asarray(host(mine), value)
        except Exception as e:  # noqa: BLE001 - raised on every rank in the outcome
            err = e
    _finished(comm, where, begun)
    if value is None:
        got = comm.allgatherv(_together(comm, where, lambda: _returned(mine, err)), counts)
        if perm is None:
            return got
        xp = _array.array_module(got)
        out = xp.empty_like(got)
        out[xp.asarray(perm)] = got
        return out
    # one short block (8 bytes a source) through the host: its status read, the status
    # values dropped and the permutation applied in numpy, then one copy to A's device
    got = _outcome_with(comm, where, lambda: _returned(mine, err), counts, value)
    if perm is not None:
        out = np.empty_like(got)
        out[perm] = got
        got = out
    return asdevice(got, A.device, where)


def _outcome_with(comm, where, fn, counts, dtype):
    """``fn()`` (``counts[rank]`` values of ``dtype``, numpy) on every rank,
    gathered in rank order as ``allgatherv`` would, with each rank's
    outcome in the same collective: its block leads with a status value
    (1: ``fn`` raised; then zeros stand for its values). Raises on every
    rank as ``_together`` does when any rank failed. One ``allgather`` of
    blocks padded to the largest count, not ``allgatherv`` (NCCL: a group
    of broadcasts, one a rank). A numpy array (a GPU communicator carries
    it through the GPU and back)."""
    try:
        mine, err = np.asarray(fn(), dtype), None
        bad = 0
    except Exception as e:  # noqa: BLE001 - re-raised below, on every rank
        mine, err = np.zeros(counts[comm.rank], dtype), e
        bad = 1
    width = 1 + max(counts)
    block = np.zeros(width, dtype)
    block[0], block[1:1 + mine.shape[0]] = bad, mine
    # through pinned memory on NCCL (the copies queued with the collective)
    got = comm.allgather_started(block).wait().reshape(comm.size, width)  # synchronize!
    failed = np.flatnonzero(got[:, 0] != 0)
    if failed.size:
        _raise_first(comm, where, int(failed[0]), err)
    return np.concatenate([got[r, 1:1 + c] for r, c in enumerate(counts)])


# ---------------------------------------------------------------------------
# the calls
# ---------------------------------------------------------------------------

def msbfs(comm, A, sources=None, *, batch=64, groupby=False, stats=None):
    """:func:`bitgraph.algorithms.msbfs` with the sources (every vertex
    when None) split over the ranks in whole batches of ``batch``; row i
    holds the levels from ``sources[i]`` on every rank (an int32 (k, n)
    array on the graph's device). ``stats``: this rank's share.

    >>> import bitgraph as bg
    >>> from bitgraph.distributed import LocalGroup
    >>> A = bg.Matrix.from_coo([0, 1, 2], [1, 2, 3], nrows=4, ncols=4)  # 0->1->2->3
    >>> LocalGroup(2).run(msbfs, A, [3, 0], batch=1)[1].tolist()
    [[-1, -1, -1, 0], [0, 1, 2, 3]]
    """
    from bitgraph.algorithms import msbfs as one
    from bitgraph.algorithms.multi_source import _check_batch

    where = "msbfs"
    batch = _together(comm, where, lambda: _check_batch(batch, where))
    begun = _prepare_sources(comm, A, sources, where, split=_out_edges_split(A), batch=batch,
                             groupby=bool(groupby))
    return _gathered(comm, where, A, begun, batch,
                     lambda s: one(A, s, batch=batch, groupby=groupby, stats=stats))


def closeness_centrality(comm, A, sources=None, *, wf_improved=True, stats=None):
    """:func:`bitgraph.algorithms.closeness_centrality` with the sources
    (every vertex when None) split over the ranks in batches of 64; the
    float64 values of every source, in the order of ``sources``, on every
    rank (bit-equal to the one-process call).

    >>> import bitgraph as bg
    >>> from bitgraph.distributed import LocalGroup
    >>> A = bg.Matrix.from_coo([0, 1, 1, 2], [1, 0, 2, 1], nrows=4, ncols=4)
    >>> LocalGroup(2).run(closeness_centrality, A)[0].tolist()
    [0.4444444444444444, 0.6666666666666666, 0.4444444444444444, 0.0]
    """
    from bitgraph.algorithms.multi_source import batch_split, closeness_of

    where = "closeness_centrality"
    # the one-process call's batches (grouped when large), to be dealt; batch_split checks
    # the settings
    begun = _prepare_sources(comm, A, sources, where, split=lambda s: batch_split(A.T, s),
                             wf_improved=bool(wf_improved))
    # a share is whole batches of that order, in it: the one-process call's own batches
    # (closeness_of), not ordered again
    return _gathered(comm, where, A, begun, BATCH,
                     lambda s: closeness_of(A, s, np.arange(s.size), wf_improved=wf_improved,
                                            stats=stats), value=np.float64)


def eccentricity(comm, A, sources=None, *, stats=None):
    """:func:`bitgraph.algorithms.eccentricity` with the sources (every
    vertex when None) split over the ranks in batches of 64; the int64
    eccentricities in the order of ``sources`` on every rank. A source that
    does not reach every vertex raises ``InvalidValue`` on every rank (the
    first such source's, as the one-process call names it).

    >>> import bitgraph as bg
    >>> from bitgraph.distributed import LocalGroup
    >>> LocalGroup(3).run(eccentricity, bg.io.generators.grid2d(2, 3))[2].tolist()
    [3, 2, 3, 3, 2, 3]
    """
    from bitgraph.algorithms import eccentricity as one

    where = "eccentricity"
    begun = _prepare_sources(comm, A, sources, where)
    return _gathered(comm, where, A, begun, BATCH, lambda s: one(A, s, stats=stats),
                     value=np.int64)


def _bc_batch():
    from bitgraph import settings

    return settings.current().betweenness.batch


def _prepare_bc(comm, A, sources, k, seed, weight, where, *, draw_all=False):
    """The one-process call's arguments made once per rank (``_prepare``),
    a sample of ``k`` taken from rank 0 (a ``seed`` of None or a
    ``random.Random`` draws differently per process), then compared."""
    from bitgraph.algorithms import betweenness as B
    from bitgraph.device import host

    w, src, sampled, directed = _together(
        comm, where, lambda: B._prepare(A, sources, k, seed, weight, where, draw_all=draw_all))
    _agree(comm, where, **_graph_fields(A), **{"the number of sources": src.size},
           weighted=w is not None, directed=directed, sampled=sampled)
    if k is not None and sources is None:
        src = host(comm.broadcast(src, root=0)).astype(np.int64)
    _agree(comm, where, **_sources_fields(src))
    return w, src, sampled, directed


def _summed(comm, where, A, src, local, zeros, *, hops):
    """``local(share)`` on this rank's share of ``src`` (``zeros()`` for an
    empty share), summed over the ranks. ``hops`` (unweighted): the shares
    are whole-batch runs of the one-process call's batch order
    (``betweenness.batch_order``: sources with out-edges, grouped when the
    call is large), so the ranks run that call's very batches; weighted:
    ``_dealt`` over A, each share in the caller's order. Batches of
    ``settings.betweenness.batch``."""
    from bitgraph.algorithms import betweenness as B

    if hops:
        order = _together(comm, where, lambda: B.batch_order(A, src))  # checks the settings
        share = order[batch_deal(int(order.size), comm.size, comm.rank, _bc_batch())]
    else:
        batch = _bc_batch()
        perm, counts = _dealt(comm, *_out_edges_split(A)(src), batch)
        a = sum(counts[:comm.rank])
        share = src[np.sort(perm[a:a + counts[comm.rank]])]  # in the caller's order
    mine = _together(comm, where, lambda: local(share) if share.size else zeros())
    return comm.allreduce(mine, "sum")


def betweenness_centrality(comm, A, sources=None, k=None, normalized=True, endpoints=False,
                           seed=None, weight=None, *, stats=None):
    """:func:`bitgraph.algorithms.betweenness_centrality` with its sources
    (every vertex, the ``k`` sampled as the one-process call samples them,
    or ``sources``) split over the ranks in batches of
    ``settings.betweenness.batch``: each rank's raw sums (Brandes'
    dependencies), summed over the ranks, then the one-process call's
    scaling, once. The float64 values on every rank, equal to the
    one-process call's up to the order of the float sums.

    >>> import bitgraph as bg
    >>> from bitgraph.distributed import LocalGroup
    >>> A = bg.Matrix.from_coo([0, 1, 1, 2], [1, 0, 2, 1], nrows=3, ncols=3)  # path 0-1-2
    >>> LocalGroup(2).run(betweenness_centrality, A)[1].tolist()
    [0.0, 1.0, 0.0]
    """
    from bitgraph import _array
    from bitgraph.algorithms import betweenness as B
    from bitgraph.algorithms._common import out_csr

    where = "betweenness_centrality"
    w, src, sampled, directed = _prepare_bc(comm, A, sources, k, seed, weight, where)
    _agree(comm, where, normalized=bool(normalized), endpoints=bool(endpoints))
    xp = _array.array_module(out_csr(A).indptr)
    bc = _summed(comm, where, A, src,
                 lambda s: B._vertex_sums(A, w, s, endpoints=endpoints, stats=stats, where=where),
                 lambda: xp.zeros(A.nrows, np.float64), hops=w is None)
    return B._rescale(bc, A.nrows, normalized=normalized, directed=directed,
                      endpoints=endpoints, sampled=src if sampled else None)


def edge_betweenness_centrality(comm, A, k=None, normalized=True, seed=None, weight=None, *,
                                stats=None):
    """:func:`bitgraph.algorithms.edge_betweenness_centrality` with its
    sources (every vertex, or the ``k`` sampled as the one-process call
    samples them) split over the ranks: each rank's raw edge sums, summed
    over the ranks, then the scaling once. A float64 Matrix with A's
    pattern on every rank. (The one-process call takes no ``sources``;
    neither does this one.)

    >>> import bitgraph as bg
    >>> from bitgraph.distributed import LocalGroup
    >>> A = bg.Matrix.from_coo([0, 1, 1, 2], [1, 0, 2, 1], nrows=3, ncols=3)  # path 0-1-2
    >>> M = LocalGroup(2).run(edge_betweenness_centrality, A, normalized=False)[0]
    >>> M.to_coo()[2].tolist()
    [2.0, 2.0, 2.0, 2.0]
    """
    from bitgraph import _array
    from bitgraph.algorithms import betweenness as B
    from bitgraph.algorithms._common import out_csr

    where = "edge_betweenness_centrality"
    w, src, sampled, directed = _prepare_bc(comm, A, None, k, seed, weight, where, draw_all=True)
    _agree(comm, where, normalized=bool(normalized))
    c = out_csr(A)
    xp = _array.array_module(c.indptr)
    e = _summed(comm, where, A, src,
                lambda s: B._edge_sums(A, w, s, directed, stats=stats, where=where),
                lambda: xp.zeros(int(c.indices.shape[0]), np.float64), hops=w is None)
    e = B._rescale(e, A.nrows, normalized=normalized, directed=directed, endpoints=True,
                   sampled=src if sampled else None)
    return B._edge_matrix(A, e)
