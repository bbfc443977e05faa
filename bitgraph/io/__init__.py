"""Reading and writing graphs: Matrix Market and edge lists; generators.

>>> import bitgraph as bg
>>> A = bg.io.read("karate.mtx")            # doctest: +SKIP
>>> A = bg.io.read("roadNet-PA.txt.gz")     # doctest: +SKIP

Importing this package imports numpy only; scipy is imported when a file is
read or written.
"""

from __future__ import annotations

import os

from ..errors import InvalidValue
from . import generators  # noqa: F401  (bitgraph.io.generators; numpy only)
from .edgelist import read_edgelist, write_edgelist
from .mtx import read_mtx, write_mtx

__all__ = ["read", "read_mtx", "write_mtx", "read_edgelist", "write_edgelist"]

_MTX_EXT = (".mtx", ".mm")
_EDGELIST_EXT = (".txt", ".el", ".tsv", ".csv", ".edges", ".edge", ".snap", ".edgelist")
_COMPRESSED = (".gz", ".bz2")


def _sniff_mtx(path) -> bool:
    """Does the (possibly compressed) file start with a Matrix Market banner?"""
    import zlib

    from .scan import compression

    try:
        with open(os.fspath(path), "rb") as f:
            head = f.read(64)
            kind = compression(head)
            if kind == "gzip":
                import gzip

                f.seek(0)
                with gzip.GzipFile(fileobj=f) as g:
                    head = g.read(64)
            elif kind == "bz2":
                import bz2

                f.seek(0)
                with bz2.BZ2File(f) as g:
                    head = g.read(64)
    except (OSError, EOFError, ValueError, zlib.error):
        return False  # the reader names what is wrong
    return _is_banner(head)


def _is_banner(head: bytes) -> bool:
    return head.lstrip(b"\xef\xbb\xbf").lower().startswith(b"%%matrixmarket")


def read(path, *, format=None, dtype=None, device=None, **kwargs):
    """Read a graph file into a :class:`~bitgraph.Matrix`.

    ``format`` is ``"mtx"`` (:func:`read_mtx`) or ``"edgelist"``
    (:func:`read_edgelist`); by default it comes from the name (``.mtx``,
    ``.mtx.gz``: Matrix Market; ``.txt``, ``.el``, ``.tsv``, ``.csv``,
    ``.edges``, ``.snap`` and their ``.gz``: edge list) and, whatever the
    name, a file starting with ``%%MatrixMarket`` is read as Matrix Market.
    Other keywords go to the reader (``dup_op=``; ``directed=``,
    ``one_based=``, ``nrows=``, ... for edge lists). ``device``: where the Matrix goes
    ("cpu", "cuda", "auto"; None: ``bitgraph.set_device``'s).

    >>> import os, tempfile
    >>> import bitgraph as bg
    >>> with tempfile.TemporaryDirectory() as d:
    ...     with open(os.path.join(d, "g.txt"), "w") as f:
    ...         _ = f.write("%%MatrixMarket matrix coordinate pattern general\\n3 3 2\\n1 2\\n3 1\\n")
    ...     with open(os.path.join(d, "g.el"), "w") as f:
    ...         _ = f.write("1 2\\n3 1\\n")
    ...     A = bg.io.read(os.path.join(d, "g.txt"))     # a banner: Matrix Market
    ...     B = bg.io.read(os.path.join(d, "g.el"), one_based=True)
    >>> A.shape, A.isequal(B), [a.tolist() for a in A.to_coo()[:2]]
    ((3, 3), True, [[0, 2], [1, 0]])
    """
    if format is None:
        if hasattr(path, "read"):  # a stream: look at its start
            import io

            from .scan import read_bytes, source_name

            name = source_name(path)
            content = bytes(read_bytes(path))  # decompressed: sniff the text
            path = io.BytesIO(content)
            path.name = name
            format = "mtx" if _is_banner(content[:64]) else "edgelist"
        else:
            name = os.fspath(path).lower()
            for ext in _COMPRESSED:
                name = name.removesuffix(ext)
            mtx = name.endswith(_MTX_EXT) or _sniff_mtx(path)
            format = "mtx" if mtx else "edgelist"
    fmt = str(format).lower()
    if fmt in ("mtx", "matrixmarket", "matrix-market", "mm"):
        dup_op = kwargs.pop("dup_op", None)
        if kwargs:
            raise InvalidValue(
                f"read: {sorted(kwargs)} are not options of a Matrix Market read")
        return read_mtx(path, dtype=dtype, dup_op=dup_op, device=device)
    if fmt in ("edgelist", "edge-list", "edges", "snap"):
        return read_edgelist(path, dtype=dtype, device=device, **kwargs)
    raise InvalidValue(f"read: format must be 'mtx' or 'edgelist', got {format!r}")
