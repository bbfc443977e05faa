"""A graph split over the ranks, 1D by rows: ``DistMatrix``.

Rank r owns the contiguous vertices ``starts[r] .. starts[r + 1]`` and
holds their rows of the adjacency (out-edges) as a local CSR whose column
ids are global: ``indptr[n_local + 1]`` (int64), ``indices[nnz_local]``
(int32 while n <= 2^31: 4 bytes an entry whatever the local count),
``values[nnz_local]`` or None. Every boundary is a multiple of 64
vertices or n, so a rank's slice of a bitmap is whole uint32 words and
the ranks' word slices concatenate into the global bitmap (``allgatherv``
of words, no shifting); a graph of fewer than 64 vertices a rank leaves
the later ranks with none.

Why 1D: a level of BFS, an iteration of PageRank or a round of components
exchanges one vector of n entries (n / 8 bytes of frontier bits), which on
NVLink costs microseconds (a 4M-vertex bitmap all-gathered in 12-28 us on
2 x H200), while 2D (Graph500 / CombBLAS) pays off at hundreds of ranks,
where each rank's share of that vector matters; for 2 to 8 GPUs of a
host, 1D moves the least code and the same bytes.

Two ways to build one:

- ``DistMatrix.from_matrix(comm, A)``: every rank holds the whole
  ``Matrix`` A and keeps its rows; boundaries **balanced by stored
  entries** (the work of a BFS level or a PageRank iteration, and the
  memory, follow the entries, and a power-law graph's hubs would overload
  one rank split by vertex count);
- ``DistMatrix.generate(comm, "kron:20")``: each rank generates its share
  of the edge blocks of ``bitgraph.io.generators`` (same seed, same
  streams, same relabelling: **the very same graph** as the one-process
  generator, symmetrised, self-loops and duplicates dropped), and routes
  every entry to its row's owner (``Comm.alltoallv``, rounds of
  ``settings.distributed.step_entries`` edges); boundaries **balanced by
  vertices** (the owner of a row must be known before any degree is, and
  kron's random relabelling spreads the hubs). ``kronh`` and ``urandh``
  specs (edge i a hash of (seed, i)) are made on each rank's own device,
  rank r the edges ``r * m // size .. (r + 1) * m // size``: no host
  drawing, the same graph as ``from_spec`` on any number of ranks.

>>> import bitgraph as bg
>>> from bitgraph.distributed import LocalGroup, DistMatrix
>>> A = bg.io.generators.kron(8, seed=1)
>>> parts = LocalGroup(2).run(DistMatrix.from_matrix, A)
>>> [(D.lo, D.hi, D.nnz_local) for D in parts], parts[0].nnz == A.nvals
([(0, 128, 2070), (128, 256, 2174)], True)
>>> gen = LocalGroup(2).run(DistMatrix.generate, "kron:8@1")   # the same rows
>>> [(D.lo, D.hi, D.nnz_local) for D in gen]
[(0, 128, 2070), (128, 256, 2174)]
>>> all((g.indices == p.indices).all() for g, p in zip(gen, parts))
True
"""

from __future__ import annotations

import numpy as np

from bitgraph.errors import DistributedError, InvalidType, InvalidValue

__all__ = ["DistMatrix", "ALIGN"]

ALIGN = 64  # a boundary between ranks is a multiple of this many vertices (whole bitmap words)


def _xp(device):
    if device == "cuda":
        import cupy

        return cupy
    return np


class DistMatrix:
    """One rank's rows of a graph split over the ranks (see the module
    docstring): ``n`` (vertices), ``nnz`` (stored entries of the whole
    graph), ``starts`` (numpy int64, ``size + 1`` boundaries), ``lo``,
    ``hi`` (this rank's vertices), ``indptr``, ``indices``, ``values``
    (this rank's rows, on ``device``), ``symmetric`` (the pattern and values
    equal their transpose's: then the rows are also the in-edges), and
    ``rank``, ``size``, ``device`` of the communicator it was built on.

    ``in_rows()``: this rank's rows of A' (its vertices' in-edges) as
    ``(indptr, indices, values)``; the rows themselves when symmetric.
    """

    def __init__(self, comm, n, starts, indptr, indices, values, nnz, symmetric, pull=None):
        self.rank, self.size, self.device = comm.rank, comm.size, comm.device
        self.n = int(n)
        self.starts = np.asarray(starts, np.int64)
        self.lo, self.hi = int(self.starts[comm.rank]), int(self.starts[comm.rank + 1])
        self.indptr, self.indices, self.values = indptr, indices, values
        self.nnz = int(nnz)
        self.symmetric = bool(symmetric)
        self._pull = pull

    @property
    def n_local(self) -> int:
        """Vertices this rank owns."""
        return self.hi - self.lo

    @property
    def nnz_local(self) -> int:
        """Stored entries of this rank's rows."""
        return int(self.indices.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes of this rank's arrays (rows, and in-rows when held apart)."""
        arrays = [self.indptr, self.indices, self.values]
        if self._pull is not None:
            arrays += list(self._pull)
        return int(sum(a.nbytes for a in arrays if a is not None))

    def in_rows(self):
        """``(indptr, indices, values)`` of this rank's rows of A'."""
        if self.symmetric:
            return self.indptr, self.indices, self.values
        return self._pull

    def owner(self, v):
        """The rank owning vertex (or vertices) ``v``.

        >>> import bitgraph as bg
        >>> from bitgraph.distributed import LocalGroup
        >>> D = LocalGroup(3).run(DistMatrix.from_matrix, bg.io.generators.grid2d(20, 20),
        ...                       balance="vertices")[0]
        >>> D.starts.tolist(), D.owner(np.array([0, 127, 128, 399])).tolist()
        ([0, 128, 256, 400], [0, 0, 1, 2])
        """
        return np.searchsorted(self.starts, v, side="right") - 1

    def __repr__(self):
        return (f"DistMatrix(rank={self.rank}/{self.size}, n={self.n}, rows {self.lo}..{self.hi},"
                f" nnz_local={self.nnz_local}, nnz={self.nnz}, device={self.device!r})")

    # -- from a whole Matrix ------------------------------------------------
    @classmethod
    def from_matrix(cls, comm, A, *, balance: str = "edges"):
        """This rank's rows of ``A`` (a square ``Matrix`` every rank holds,
        the same on every rank: compared by size, entries and row pointers,
        a ``DistributedError`` when they differ). ``balance``: ``"edges"``
        (boundaries cut the stored entries evenly, the default) or
        ``"vertices"``. The local arrays go to ``comm.device``.

        >>> import bitgraph as bg
        >>> from bitgraph.distributed import LocalGroup
        >>> A = bg.Matrix.from_coo([0, 1, 2], [1, 2, 0], nrows=3, ncols=3)
        >>> D = LocalGroup(2).run(DistMatrix.from_matrix, A)[1]  # rank 0: no rows (< 64)
        >>> D.indptr.tolist(), D.indices.tolist(), D.symmetric, D.in_rows()[1].tolist()
        ([0, 1, 2, 3], [1, 2, 0], False, [2, 0, 1])
        """
        from bitgraph.device import host
        from bitgraph.distributed.batches import _together
        from bitgraph.matrix import Matrix

        where = "DistMatrix.from_matrix"
        if not isinstance(A, Matrix) and not hasattr(A, "_csr"):
            raise InvalidType(f"{where}: expected a bitgraph Matrix, got {type(A).__name__}")
        if balance not in ("edges", "vertices"):
            raise InvalidValue(f"{where}: balance must be 'edges' or 'vertices', got {balance!r}")

        def prepare():
            if A.nrows != A.ncols:
                raise InvalidValue(f"{where}: A must be square (a graph), got {A.nrows} x"
                                   f" {A.ncols}")
            c, t = A._csr(), A._transposed_csr()
            return [host(x) if x is not None else None
                    for x in (c.indptr, c.indices, c.values, t.indptr, t.indices, t.values)]

        ip, ix, vx, tip, tix, tvx = _together(comm, where, prepare)
        n = A.nrows
        _same_graph(comm, where, n, ip)
        symmetric = (np.array_equal(ip, tip) and np.array_equal(ix, tix)
                     and (vx is None or np.array_equal(vx, tvx)))
        starts = _starts(n, comm.size, ip if balance == "edges" else None)
        lo, hi = int(starts[comm.rank]), int(starts[comm.rank + 1])
        xp = _xp(comm.device)
        col = np.int32 if n <= np.iinfo(np.int32).max else np.int64

        def rows(indptr, indices, values):
            a, b = int(indptr[lo]), int(indptr[hi])
            return (xp.asarray((indptr[lo:hi + 1] - a).astype(np.int64)),
                    xp.asarray(indices[a:b].astype(col)),
                    None if values is None else xp.asarray(values[a:b]))

        mine = rows(ip, ix, vx)
        pull = None if symmetric else rows(tip, tix, tvx)
        return cls(comm, n, starts, *mine, int(ip[-1]), symmetric, pull)

    # -- generated in parallel ----------------------------------------------
    @classmethod
    def generate(cls, comm, spec: str):
        """This rank's rows of the graph of generator spec ``spec``
        (``"kron:SCALE[:EDGEFACTOR][@SEED]"``, ``"urand:SCALE[:DEGREE][@SEED]"``
        or their hashed twins ``kronh`` and ``urandh``, SCALE at most 31),
        generated in parallel. ``kronh``/``urandh``: rank r makes the edges
        ``r * m // size .. (r + 1) * m // size`` on its own device (CuPy, in
        rounds of ``settings.distributed.step_entries``; numpy on a CPU comm),
        sorts each round's entries there, routes them to their rows' owners,
        then sorts and deduplicates its rows by range on the device. ``kron``/
        ``urand``: rank r draws the edge
        blocks ``r, r + size, ...`` of ``bitgraph.io.generators`` (each block
        its own PCG64 stream spawned from the seed; every rank computes the
        same vertex relabelling), routes each entry (both directions of every
        edge, self-loops dropped) to its row's owner, then sorts its rows and
        drops duplicates: the same graph as ``from_spec(spec)``, boundaries
        balanced by vertices. Peak memory of a rank: its received keys (6
        bytes an entry, on the host) and one sort range
        (``settings.distributed.sort_keys``) on its device.

        >>> import bitgraph as bg
        >>> from bitgraph.distributed import LocalGroup
        >>> D = LocalGroup(3).run(DistMatrix.generate, "urand:8:4@1")[2]
        >>> D.lo, D.hi, D.nnz == bg.io.generators.urand(8, 4, seed=1).nvals
        (192, 256, True)
        >>> H = LocalGroup(2).run(DistMatrix.generate, "kronh:8@1")
        >>> S = bg.io.generators.kronh(8, seed=1).to_scipy()
        >>> all((h.indices == S[h.lo:h.hi].indices).all() for h in H)
        True
        """
        from bitgraph import settings
        from bitgraph.distributed.batches import _together
        from bitgraph.io import generators as gen

        where = "DistMatrix.generate"

        def parse():
            name, kw = gen.parse_spec(spec)
            if name not in ("kron", "urand", "kronh", "urandh"):
                raise InvalidValue(f"{where}: generates kron and urand graphs (and kronh, urandh)"
                                   f" in parallel, got"
                                   f" {spec!r} ({name}); build it whole and use"
                                   f" DistMatrix.from_matrix")
            if kw["scale"] > 31:
                raise InvalidValue(f"{where}: scale must be <= 31 (entry keys hold a 32-bit row"
                                   f" and column), got {kw['scale']}")
            return name, kw

        name, kw = _together(comm, where, parse)
        cfg = settings.current().distributed
        n = 1 << kw["scale"]
        starts = _starts(n, comm.size, None)
        lo, hi = int(starts[comm.rank]), int(starts[comm.rank + 1])
        if name in ("kronh", "urandh"):
            indptr, indices = _generate_hashed(comm, gen, name, kw, starts, cfg)
            total = int(comm.allreduce(np.array([indices.shape[0]], np.int64), "sum")[0])
            return cls(comm, n, starts, indptr, indices, None, total, True)
        if name == "kron":
            m, block, draw = _kron_blocks(gen, kw)
        else:
            m, block, draw = _urand_blocks(gen, kw)
        nblocks = -(-m // block)
        mine = list(range(comm.rank, nblocks, comm.size))
        per_round = max(1, cfg.step_entries // max(block, 1))
        rounds = -(-(-(-nblocks // comm.size)) // per_round)  # the same on every rank
        ranges = gen._RowRanges(lo, hi, 2 * m // comm.size, cfg.sort_keys, n)
        for r in range(rounds):
            todo = mine[r * per_round:(r + 1) * per_round]
            pieces = gen._run(draw, todo) if todo else []
            s = np.concatenate([p[0] for p in pieces]) if pieces else np.zeros(0, np.uint64)
            d = np.concatenate([p[1] for p in pieces]) if pieces else np.zeros(0, np.uint64)
            keep = s != d  # self-loops dropped
            s, d = s[keep], d[keep]
            rows, cols = np.concatenate([s, d]), np.concatenate([d, s])
            del s, d
            keys = (rows << np.uint64(32)) | cols
            owner = np.searchsorted(starts[1:-1].astype(np.uint64), rows, side="right")
            del rows, cols
            keys, counts = gen._grouped(keys, owner, comm.size)
            got = comm.alltoallv(keys, counts)
            from bitgraph.device import host

            ranges.put(host(got))
        indptr, indices = ranges.csr(_xp(comm.device))
        total = int(comm.allreduce(np.array([indices.shape[0]], np.int64), "sum")[0])
        return cls(comm, n, starts, indptr, indices, None, total, True)


def _same_graph(comm, where, n, indptr):
    """Every rank holds a graph of the same size, entries and row pointers."""
    from bitgraph.device import host
    from bitgraph.distributed.batches import _digest

    mine = np.array([n, int(indptr[-1]), _digest(indptr)], np.int64)
    every = host(comm.allgather(mine)).reshape(comm.size, 3)
    if (every != every[0]).any():
        raise DistributedError(
            f"{where}: the ranks hold different graphs (n, stored entries, row-pointer digest): "
            + "; ".join(f"rank {r}: {tuple(int(x) for x in every[r])}" for r in range(comm.size)))


def _starts(n, size, indptr=None):
    """``size + 1`` boundaries, every inner one a multiple of ALIGN: even
    counts of vertices, or of stored entries when ``indptr`` is given.

    >>> _starts(200, 3).tolist(), _starts(10, 3).tolist()
    ([0, 64, 128, 200], [0, 0, 0, 10])
    >>> _starts(256, 2, np.array([0] + [100] * 64 + [101] * 192)).tolist()  # a hub in row 0
    [0, 64, 256]
    """
    starts = np.empty(size + 1, np.int64)
    starts[0], starts[-1] = 0, n
    for r in range(1, size):
        if indptr is None:  # the nearest multiple of ALIGN
            cut = (n * r // size + ALIGN // 2) // ALIGN * ALIGN
        else:  # the multiple of ALIGN whose entries before come nearest r / size of them
            want = int(indptr[-1]) * r // size
            cut = int(np.searchsorted(indptr, want, side="left"))
            down, up = cut // ALIGN * ALIGN, min(n, -(-cut // ALIGN) * ALIGN)
            cut = down if want - int(indptr[down]) < int(indptr[up]) - want else up
        starts[r] = min(n, max(cut, starts[r - 1]))
    return starts


def _generate_hashed(comm, gen, name, kw, starts, cfg):
    """This rank's ``(indptr, indices)`` of hashed spec ``name`` on ``comm.device``.

    Rank r makes generated edges ``r * m // size .. (r + 1) * m // size`` on its
    device, ``step_entries`` a round (the same number of rounds on every rank:
    ``alltoallv`` is collective); a round's entry keys (both directions,
    self-loops dropped) are sorted on the device, so each owner's are one slice
    (cut by ``searchsorted`` at the boundaries' keys), routed, sorted again and
    kept by row range on the host; then each range is sorted and deduplicated
    on the device (``generators._RowRanges``)."""
    from bitgraph.device import host

    xp = _xp(comm.device)
    lo, hi = int(starts[comm.rank]), int(starts[comm.rank + 1])
    n, m = gen._hashed_size(name, kw)
    e_lo, e_hi = comm.rank * m // comm.size, (comm.rank + 1) * m // comm.size
    step = max(1, cfg.step_entries)
    rounds = -(-(-(-m // comm.size)) // step)  # the largest share's: the same on every rank
    ranges = gen._RowRanges(lo, hi, 2 * m // comm.size, cfg.sort_keys, n)
    cuts = xp.asarray(starts[1:-1].astype(np.uint64) << np.uint64(32))
    for t in range(rounds):
        a = min(e_hi, e_lo + t * step)
        b = min(e_hi, a + step)
        s, d = gen._hashed_edges_range(xp, name, kw, a, b)
        keys = xp.sort(gen._sym_keys(xp, s, d))
        del s, d
        at = host(xp.searchsorted(keys, cuts)).tolist()  # synchronize!
        bounds = [0, *at, keys.shape[0]]
        counts = [bounds[i + 1] - bounds[i] for i in range(comm.size)]
        got = comm.alltoallv(keys, counts)
        del keys
        ranges.put_sorted(xp.sort(xp.asarray(got)))
        del got
    return ranges.csr(xp)


def _kron_blocks(gen, kw):
    """(edges, edges a block, draw(b) -> (src, dst) uint64) of generators.kron."""
    import threading

    scale, ef, seed = kw["scale"], kw["edgefactor"], kw["seed"]
    n = 1 << scale
    m = ef * n
    ss = np.random.SeedSequence(seed)
    ids = np.arange(n, dtype=np.uint32 if n <= (1 << 32) else np.int64)
    perm = np.random.default_rng(ss).permutation(ids)  # the same relabelling as kron()
    streams = ss.spawn(-(-m // gen._KRON_BLOCK))
    works = {}

    def draw(b):
        work = works.get(threading.get_ident())
        if work is None:
            work = works[threading.get_ident()] = gen._Work(gen._KRON_PIECE * (-(-scale // 8) * 8))
        bitgen = np.random.PCG64(streams[b])
        stop = min(m, (b + 1) * gen._KRON_BLOCK)
        ss_, dd_ = [], []
        for off in range(b * gen._KRON_BLOCK, stop, gen._KRON_PIECE):
            src, dst = gen._rmat_bits(bitgen, min(gen._KRON_PIECE, stop - off), scale, work)
            ss_.append(np.take(perm, src.view(np.int64)).astype(np.uint64))
            dd_.append(np.take(perm, dst.view(np.int64)).astype(np.uint64))
        if not ss_:
            return np.zeros(0, np.uint64), np.zeros(0, np.uint64)
        return np.concatenate(ss_), np.concatenate(dd_)

    return m, gen._KRON_BLOCK, draw


def _urand_blocks(gen, kw):
    """(edges, edges a block, draw(b)) of generators.urand."""
    scale, degree, seed = kw["scale"], kw["degree"], kw["seed"]
    n = 1 << scale
    m = degree * n // 2
    mask = np.uint64(n - 1)
    streams = np.random.SeedSequence(seed).spawn(-(-m // gen._URAND_BLOCK))

    def draw(b):
        off = b * gen._URAND_BLOCK
        count = min(gen._URAND_BLOCK, m - off)
        r = gen._raw(np.random.PCG64(streams[b]), count)  # scale <= 31: one draw an edge
        return r & mask, (r >> np.uint64(32)) & mask

    return m, gen._URAND_BLOCK, draw
