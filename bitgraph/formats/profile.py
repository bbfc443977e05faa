"""Sampling profile (Bit-GraphBLAS Algorithm 1): the B2SR size for each tile
size, estimated from a sample of rows, and the tile size to use.

Bit-GraphBLAS samples N rows and counts their distinct column blocks. We
sample whole *tile rows* of the largest tile (32 aligned rows, which hold
exactly 32/t whole tile rows for every smaller t), so the distinct blocks
counted are exactly those tile rows' tiles for every t at once; scaled by
(tile rows) / (sampled tile rows) they estimate ``ntiles`` without bias.
``nnz`` is exact (from ``indptr``), so fill and bytes follow.

>>> import numpy as np
>>> from bitgraph.formats.csr import from_coo
>>> n = 64
>>> A = from_coo(np.arange(n), np.arange(n), None, n, n)   # the diagonal
>>> p = estimate(A, sample=2)
>>> [round(p[t]["ntiles"]) for t in (4, 8, 16, 32)]
[16, 8, 4, 2]
>>> choose_tile(A)   # 8 tiles of 12 bytes beat 2 of 132
8
"""

from __future__ import annotations

import numpy as np

from .. import _array
from .b2sr import TILE_SIZES, csr_int32_bytes
from .csr import CSR

__all__ = ["estimate", "choose_tile"]

_WORD_BYTES = {4: 1, 8: 1, 16: 2, 32: 4}


def estimate(csr: CSR, sample: int | None = None, seed: int = 0) -> dict:
    """{t: {"ntiles", "nnz_per_tile", "fill", "nbytes", "compression"}}
    estimated from ``sample`` random groups of 32 rows (all rows when the
    matrix has no more; None: ``settings.formats.profile_sample``). ``nbytes`` and ``compression`` (int32-CSR bytes /
    B2SR bytes) as in ``b2sr.stats``. O(sampled nnz + sample log).
    """
    if sample is None:
        from bitgraph.settings import current
        sample = current().formats.profile_sample
    sample = int(sample)
    nrows, ncols = csr.nrows, csr.ncols
    ngroups = -(-nrows // 32)
    from ..device import host, on_gpu

    indptr = host(csr.indptr)  # n + 1 words; only the sampled entries follow
    if ngroups <= sample:
        groups = np.arange(ngroups)
    else:
        groups = np.sort(np.random.default_rng(seed).choice(ngroups, sample, replace=False))
    scale = ngroups / max(len(groups), 1)
    starts = groups * 32
    stops = np.minimum(starts + 32, nrows)
    lo = indptr[starts].astype(np.int64)
    hi = indptr[stops].astype(np.int64)
    lens = hi - lo
    # the entries of the sampled groups, with their group number
    pos = np.repeat(lo - np.concatenate(([0], np.cumsum(lens)[:-1])), lens) + np.arange(lens.sum())
    if on_gpu(csr.indices):
        cols = csr.indices[__import__("cupy").asarray(pos)].get().astype(np.int64)
    else:
        cols = np.asarray(csr.indices)[pos].astype(np.int64)
    rows = np.searchsorted(indptr, pos, side="right") - 1
    nnz = int(indptr[-1])
    out = {}
    for t in TILE_SIZES:
        # distinct (tile row, column block) pairs among the sampled entries
        keys = (rows // t) * (-(-ncols // t)) + cols // t
        ntiles = _array.unique(keys).size * scale if keys.size else 0.0
        nbrows = -(-nrows // t)
        nbytes = 4 * (nbrows + 1) + ntiles * (4 + t * _WORD_BYTES[t])
        out[t] = {
            "ntiles": ntiles,
            "nnz_per_tile": nnz / ntiles if ntiles else 0.0,
            "fill": nnz / (ntiles * t * t) if ntiles else 0.0,
            "nbytes": nbytes,
            "compression": csr_int32_bytes(nrows, nnz) / nbytes if nbytes else float("inf"),
        }
    return out


def choose_tile(csr: CSR, profile: dict | None = None) -> int:
    """The tile size whose estimated B2SR is smallest (bytes are what the
    bit kernels stream; ties go to the smaller t).

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> r = np.random.default_rng(0).integers(0, 1000, (2, 2000))
    >>> choose_tile(from_coo(r[0], r[1], None, 1000, 1000))   # scattered: small tiles
    4
    """
    if profile is None:
        profile = estimate(csr)
    return min(TILE_SIZES, key=lambda t: (profile[t]["nbytes"], t))
