"""Edge lists (SNAP style): :func:`read_edgelist`.

One edge per line, ``src dst`` or ``src dst weight``, separated by whitespace
(or commas); ``#`` and ``%`` comment lines and blank lines anywhere; gzip or
bz2 compressed files are read transparently.

The fast path is vectorised: a numpy pass over the bytes (1 MiB chunks of
whole lines) checks every byte, token and line's token count, blanks comment
lines and puts each token on its own line; scipy's multithreaded Matrix
Market engine then parses all the numbers at once (as a dense ``k x m``
array). Anything the checks flag is found again by a per-line Python scan of
that part of the file, which raises :class:`~bitgraph.FormatError` naming the
file, the line and the token.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import FormatError, InvalidValue
from .mtx import (
    _INT_RE,
    _REAL_RE,
    _lines_from,
    _read_bytes,
    _scan,
    _scipy_read,
    _show,
    _source_name,
    _to_matrix,
)

__all__ = ["read_edgelist"]

# bytes the vectorised scan gives a meaning of their own: a comment char
# among them sends the file to the Python scan
_TOKEN_BYTES = b"0123456789+-.eEinfatyINFATY \t\r\n\v\f,"
_EXACT = 2 ** 53  # float64 holds every integer id below this


@dataclass
class _EdgeData:
    rows: np.ndarray          # int64, 0-based
    cols: np.ndarray
    weights: np.ndarray | None  # None: two columns (structure-only)
    n: int


def _options(comments, delimiter):
    if comments is None:
        comments = ()
    elif isinstance(comments, (str, bytes)):
        comments = (comments,)
    comments = tuple(c.encode() if isinstance(c, str) else bytes(c) for c in comments)
    if any(not c for c in comments):
        raise InvalidValue("read_edgelist: an empty comment prefix matches every line")
    if delimiter is not None:
        if isinstance(delimiter, str):
            delimiter = delimiter.encode()
        if len(delimiter) != 1:
            raise InvalidValue(
                f"read_edgelist: delimiter must be one character, got {delimiter!r}")
        if delimiter.isspace():
            delimiter = None  # any whitespace
        elif delimiter in b"0123456789+-.eE" or delimiter in comments:
            raise InvalidValue(
                f"read_edgelist: delimiter {delimiter!r} cannot be told from "
                f"a number or a comment")
    return comments, delimiter


def _split(s, delim, path, lineno):
    if delim is None:
        return s.split()
    toks = [t.strip() for t in s.split(delim)]
    if any(not t for t in toks):
        raise FormatError(
            f"empty field in {_show(s)!r} (fields are separated by "
            f"{_show(delim)!r})", path=path, line=lineno)
    return toks


def _what(k):
    return "2 values 'src dst'" if k == 2 else "3 values 'src dst weight'"


def _python_edges(data, path, *, offset, line, k, base, nrows, comments,
                  delim, collect):
    """Per-line scan from ``offset`` (line ``line``): raise the first
    FormatError; with ``collect`` return (src, dst, weights) lists."""
    src, dst, wts = ([], [], []) if collect else (None, None, None)
    for lineno, _, raw in _lines_from(data, offset, line):
        s = raw.strip()
        if not s or (comments and s.startswith(comments)):
            continue
        toks = _split(s, delim, path, lineno)
        if len(toks) != k:
            raise FormatError(
                f"expected {_what(k)} like the first edge, found "
                f"{len(toks)}: {_show(s)!r}", path=path, line=lineno)
        ids = []
        for name, tok in (("source", toks[0]), ("target", toks[1])):
            if _INT_RE.match(tok):
                v = int(tok)
            elif _REAL_RE.match(tok):
                f = float(tok)
                if not (np.isfinite(f) and f == int(f)):
                    raise FormatError(
                        f"{name} vertex id {_show(tok)!r} is not an integer",
                        path=path, line=lineno)
                v = int(f)
            else:
                raise FormatError(
                    f"{name} vertex id {_show(tok)!r} is not a number",
                    path=path, line=lineno)
            if v < 0:
                raise FormatError(
                    f"{name} vertex id {_show(tok)} is negative",
                    path=path, line=lineno)
            if v < base:
                raise FormatError(
                    f"{name} vertex id 0 in a file read with one_based=True",
                    path=path, line=lineno)
            v -= base
            if nrows is not None and v >= nrows:
                raise FormatError(
                    f"{name} vertex id {_show(tok)} is out of range for "
                    f"nrows={nrows}" + (" (one_based)" if base else ""),
                    path=path, line=lineno)
            ids.append(v)
        if k == 3 and not _REAL_RE.match(toks[2]):
            raise FormatError(
                f"weight {_show(toks[2])!r} is not a number",
                path=path, line=lineno)
        if collect:
            src.append(ids[0])
            dst.append(ids[1])
            if k == 3:
                wts.append(float(toks[2]))
    return (src, dst, wts) if collect else None


def _read_edgelist_data(source, *, one_based=False, nrows=None,
                        comments=("#", "%"), delimiter=None) -> _EdgeData:
    path = _source_name(source)
    if delimiter is None and path.lower().removesuffix(".gz").removesuffix(".bz2").endswith(".csv"):
        delimiter = ","
    comments, delim = _options(comments, delimiter)
    if nrows is not None:
        nrows = int(nrows)
        if nrows < 0:
            raise InvalidValue(f"read_edgelist: nrows={nrows} is negative")
    base = 1 if one_based else 0
    data = _read_bytes(source)
    if data.lstrip(b"\xef\xbb\xbf").startswith(b"%%MatrixMarket"):
        raise FormatError(
            "this is a Matrix Market file: read it with read_mtx "
            "(or bitgraph.io.read)", path=path, line=1)

    # the first edge gives the number of columns
    k = None
    start = line = 0
    pos = 0
    for lineno, after, raw in _lines_from(data, 0, 1):
        s = raw.strip()
        if s and not (comments and s.startswith(comments)):
            k = len(_split(s, delim, path, lineno))
            if k not in (2, 3):
                raise FormatError(
                    f"expected 2 values 'src dst' or 3 'src dst weight', "
                    f"found {k}: {_show(s)!r}", path=path, line=lineno)
            start, line = pos, lineno
            break
        pos = after
    if k is None:  # no edges
        e = np.zeros(0, dtype=np.int64)
        return _EdgeData(e, e.copy(), None, nrows or 0)

    def python_scan(offset=start, at_line=line, collect=False):
        return _python_edges(data, path, offset=offset, line=at_line, k=k,
                             base=base, nrows=nrows, comments=comments,
                             delim=delim, collect=collect)

    X = _fast_tokens(data, start, line, k, comments, delim, python_scan)
    if X is not None:
        ids = X[:2]
        if (not np.isfinite(ids).all() or (ids != np.floor(ids)).any()
                or ids.min() < base or ids.max() >= _EXACT
                or (nrows is not None and ids.max() >= nrows + base)):
            X = None  # the Python scan names the line (or reads big ids)
    if X is None:
        src, dst, wts = python_scan(collect=True)
        rows = np.array(src, dtype=np.int64)
        cols = np.array(dst, dtype=np.int64)
        weights = np.array(wts, dtype=np.float64) if k == 3 else None
    else:
        rows = X[0].astype(np.int64)
        cols = X[1].astype(np.int64)
        if base:
            rows -= base
            cols -= base
        weights = np.ascontiguousarray(X[2]) if k == 3 else None
    if nrows is None:
        n = int(max(rows.max(), cols.max())) + 1 if len(rows) else 0
    else:
        n = nrows
    return _EdgeData(rows, cols, weights, n)


def _fast_tokens(data, start, line, k, comments, delim, python_scan):
    """Every number of the file as a ``k x m`` float64 array, or None when the
    file needs the Python scan (which raises if something is wrong)."""
    if any(len(c) != 1 or c in _TOKEN_BYTES for c in comments):
        return None
    a = np.frombuffer(data, dtype=np.uint8)
    present = b"".join(c for c in comments if data.find(c, start) >= 0)
    if present:
        a = a.copy()
    out = np.empty(len(a) - start, dtype=np.uint8)
    scan = _scan(data, a, start, line, k=k, real=True, comment_chars=present,
                 comma=delim == b",", out=out)
    if not scan.ok:
        python_scan(scan.at_offset, scan.at_line)
        return None
    m = scan.entries
    header = b"%%MatrixMarket matrix array real general\n%d %d\n" % (k, m)
    try:
        return _scipy_read([header, out])
    except (ValueError, OverflowError, RuntimeError):
        python_scan()
        return None


def read_edgelist(path, *, dtype=None, directed=True, one_based=False,
                  nrows=None, comments=("#", "%"), delimiter=None,
                  dup_op="plus"):
    """Read an edge list into a square :class:`~bitgraph.Matrix`.

    - Each line is ``src dst`` (a structure-only Matrix, bool) or
      ``src dst weight`` (float64 weights; ``dtype=`` casts them). Every edge
      line must have as many values as the first.
    - Vertex ids are non-negative integers (an integral float such as ``3.0``
      or ``1e3`` is accepted), 0-based unless ``one_based=True`` (then ids
      start at 1 and 1 is subtracted). The matrix is ``n x n`` with
      ``n = max id + 1`` unless ``nrows`` is given (ids must then be below it).
    - ``directed=False`` adds the reverse of every edge.
    - Repeated edges (and, undirected, an edge given in both directions) are
      combined with ``dup_op`` (``"plus"``, ``"min"``, ``"max"``, ``"first"``,
      ``"second"``, ``"any"``); structure-only edges simply collapse.
    - Lines whose first non-blank character starts with one of ``comments``
      and blank lines are skipped; ``delimiter=None`` splits on whitespace
      (``","`` for a ``.csv`` name), ``delimiter=","`` on commas (blanks
      around them allowed). gzip/bz2 files are read transparently.

    Malformed lines (wrong number of values, a non-number, a negative or
    non-integral id) raise :class:`~bitgraph.FormatError` naming the file, the
    line and the token.
    """
    d = _read_edgelist_data(path, one_based=one_based, nrows=nrows,
                            comments=comments, delimiter=delimiter)
    rows, cols, w = d.rows, d.cols, d.weights
    if not directed:
        off = rows != cols
        rows, cols = (np.concatenate((rows, cols[off])),
                      np.concatenate((cols, rows[off])))
        if w is not None:
            w = np.concatenate((w, w[off]))
    if w is not None and dtype is not None:
        dt = np.dtype(dtype)
        w = (w != 0) if dt.kind == "b" else w.astype(dt)
    return _to_matrix(rows, cols, w, d.n, d.n,
                      dtype if dtype is not None else (None if w is None else w.dtype),
                      dup_op=dup_op)
