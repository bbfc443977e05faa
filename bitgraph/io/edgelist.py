"""Edge lists (SNAP style): :func:`read_edgelist`.

One edge per line, ``src dst`` or ``src dst weight``, separated by whitespace
(or commas); ``#`` and ``%`` comment lines and blank lines anywhere; gzip or
bz2 compressed files are read transparently.

The fast path is one numba pass over the bytes (the scanner of
:mod:`bitgraph.io.scan`): it checks every token and line, parses the vertex
ids and copies the weights one per line, which scipy's multithreaded Matrix
Market engine then parses (as a dense ``m x 1`` array: float parsing is left
to it). The line the scanner stops at is checked again in Python, which
raises :class:`~bitgraph.FormatError` naming the file, the line and the
token.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from .._array import cast
from ..errors import FormatError, InvalidValue
from .scan import (INF_RE, INT_RE, REAL_RE, as_array, check_claim, data_lines, lines_from, parse_int, read_bytes, scan,
                   scipy_read, show, source_name, to_matrix)

__all__ = ["read_edgelist", "write_edgelist"]

_MAX_ID = 2 ** 62  # ids at or above this are refused
# SNAP's header of an undirected graph ('# Undirected graph: roadNet-PA.txt')
_UNDIRECTED = re.compile(rb"\s*undirected graph\b", re.IGNORECASE)


@dataclass
class _EdgeData:
    rows: np.ndarray          # int64, 0-based
    cols: np.ndarray
    weights: np.ndarray | None  # None: two columns (structure-only)
    n: int
    data: object = None         # the file's bytes, name and first edge, for errors
    path: str = ""
    start: int = 0
    line: int = 1
    comments: tuple = ()
    undirected: bool = False    # a SNAP '# Undirected graph' header line

    def lines(self, edges):
        """{edge index (from 0, as the file lists them): its line}."""
        return data_lines(self.data, self.start, self.line, edges, self.comments)


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
        elif delimiter.isalnum() or delimiter in b"+-." or delimiter in comments:
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
            f"empty field in {show(s)!r} (fields are separated by "
            f"{show(delim)!r})", path=path, line=lineno)
    return toks


def _what(k):
    return "2 values 'src dst'" if k == 2 else "3 values 'src dst weight'"


def _python_edges(data, path, *, offset, line, k, base, nrows, comments,
                  delim, collect):
    """Per-line scan from ``offset`` (line ``line``): raise the first
    FormatError; with ``collect`` return (src, dst, weights) lists."""
    src, dst, wts = ([], [], []) if collect else (None, None, None)
    for lineno, _, raw in lines_from(data, offset, line):
        s = raw.strip()
        if not s or (comments and s.startswith(comments)):
            continue
        toks = _split(s, delim, path, lineno)
        if len(toks) != k:
            raise FormatError(
                f"expected {_what(k)} like the first edge, found "
                f"{len(toks)}: {show(s)!r}", path=path, line=lineno)
        ids = []
        for name, tok in (("source", toks[0]), ("target", toks[1])):
            if not INT_RE.match(tok):
                what = "an integer" if REAL_RE.match(tok) else "a number"
                raise FormatError(
                    f"{name} vertex id {show(tok)!r} is not {what}",
                    path=path, line=lineno)
            v = parse_int(tok)
            if v >= _MAX_ID:
                raise FormatError(
                    f"{name} vertex id {show(tok)} is too large",
                    path=path, line=lineno)
            if v < 0:
                raise FormatError(
                    f"{name} vertex id {show(tok)} is negative",
                    path=path, line=lineno)
            if v < base:
                raise FormatError(
                    f"{name} vertex id 0 in a file read with one_based=True",
                    path=path, line=lineno)
            v -= base
            if nrows is not None and v >= nrows:
                raise FormatError(
                    f"{name} vertex id {show(tok)} is out of range for "
                    f"nrows={nrows}" + (" (one_based)" if base else ""),
                    path=path, line=lineno)
            ids.append(v)
        if k == 3 and not REAL_RE.match(toks[2]):
            raise FormatError(
                f"weight {show(toks[2])!r} is not a number",
                path=path, line=lineno)
        if k == 3 and math.isinf(float(toks[2])) and not INF_RE.match(toks[2]):
            raise FormatError(
                f"weight {show(toks[2])} does not fit in float64 (it overflows to inf)",
                path=path, line=lineno)
        if collect:
            src.append(ids[0])
            dst.append(ids[1])
            if k == 3:
                wts.append(float(toks[2]))
    return (src, dst, wts) if collect else None


def _read_edgelist_data(source, *, one_based=False, nrows=None,
                        comments=("#", "%"), delimiter=None) -> _EdgeData:
    path = source_name(source)
    if delimiter is None and path.lower().removesuffix(".gz").removesuffix(".bz2").endswith(".csv"):
        delimiter = ","
    comments, delim = _options(comments, delimiter)
    if nrows is not None:
        nrows = int(nrows)
        if nrows < 0:
            raise InvalidValue(f"read_edgelist: nrows={nrows} is negative")
    base = 1 if one_based else 0
    data = read_bytes(source)
    bom = 3 if data[:3] == b"\xef\xbb\xbf" else 0
    if data[bom:bom + 14] == b"%%MatrixMarket":
        raise FormatError(
            "this is a Matrix Market file: read it with read_mtx "
            "(or bitgraph.io.read)", path=path, line=1)

    # the first edge gives the number of columns
    k = None
    start = line = 0
    pos = 0
    undirected = False
    for lineno, after, raw in lines_from(data, 0, 1):
        s = raw.strip()
        if comments and s.startswith(comments) and _UNDIRECTED.match(s.lstrip(b"#%")):
            undirected = True
        if s and not (comments and s.startswith(comments)):
            k = len(_split(s, delim, path, lineno))
            if k not in (2, 3):
                raise FormatError(
                    f"expected 2 values 'src dst' or 3 'src dst weight', "
                    f"found {k}: {show(s)!r}", path=path, line=lineno)
            start, line = pos, lineno
            break
        pos = after
    if k is None:  # no edges
        e = np.zeros(0, dtype=np.int64)
        return _EdgeData(e, e.copy(), None, nrows or 0, undirected=undirected)

    def python_scan(offset=start, at_line=line, collect=False):
        return _python_edges(data, path, offset=offset, line=at_line, k=k,
                             base=base, nrows=nrows, comments=comments,
                             delim=delim, collect=collect)

    fast = _fast_edges(data, start, line, k, base, nrows, comments, delim,
                       python_scan)
    if fast is None:
        src, dst, wts = python_scan(collect=True)
        rows = np.array(src, dtype=np.int64)
        cols = np.array(dst, dtype=np.int64)
        weights = np.array(wts, dtype=np.float64) if k == 3 else None
    else:
        rows, cols, weights = fast
    if nrows is None:
        n = int(max(rows.max(), cols.max())) + 1 if len(rows) else 0
        if n > len(rows):  # the cheap test first; the line only on failure
            try:
                check_claim(n, len(rows), path, None, "the largest vertex id + 1")
            except FormatError:
                big = np.flatnonzero((rows == n - 1) | (cols == n - 1))[0]
                check_claim(n, len(rows), path,
                            _line_of_edge(data, start, line, int(big), comments, delim),
                            "the largest vertex id + 1")
    else:
        n = nrows
    return _EdgeData(rows, cols, weights, n, data, path, start, line, comments, undirected)


def _drop_reverse_twins(rows, cols, w):
    """The edges to keep of an undirected list: where an edge is given once
    each way (equal weights), the second is dropped; None when none is."""
    lo, hi = np.minimum(rows, cols), np.maximum(rows, cols)
    m = len(rows)
    order = np.lexsort((np.arange(m), hi, lo))
    same = (lo[order][1:] == lo[order][:-1]) & (hi[order][1:] == hi[order][:-1])
    if not same.any():
        return None
    # a pair (order[k], order[k + 1]) forming a group of exactly two
    pad = np.concatenate(([False], same, [False]))
    two = same & ~pad[:-2] & ~pad[2:]
    x, y = order[:-1][two], order[1:][two]
    ok = rows[x] != rows[y]
    if w is not None:
        ok &= w[x] == w[y]
    if not ok.any():
        return None
    drop = np.zeros(m, dtype=bool)
    drop[y[ok]] = True
    return np.flatnonzero(~drop)


def _line_of_edge(data, offset, line, e, comments, delim):
    """The line number of edge ``e`` (from 0) counting from ``offset``."""
    for lineno, _, raw in lines_from(data, offset, line):
        s = raw.strip()
        if s and not (comments and s.startswith(comments)):
            if e == 0:
                return lineno
            e -= 1
    return None


def _fast_edges(data, start, line, k, base, nrows, comments, delim,
                python_scan):
    """(rows, cols, weights) from one numba pass (ids parsed there, weights
    copied one per line for scipy to parse), or None when the file needs the
    Python scan (which raises if something is wrong)."""
    if any(len(c) != 1 for c in comments):
        return None
    a = as_array(data)
    room = 64  # for the header scipy needs before the weights
    hi = 2 ** 62 if nrows is None else nrows - 1 + base
    res = scan(a, start, line, k=k, nidx=2, vkind=2 if k == 3 else 0,
                 base=base, hi0=hi, hi1=hi, comment_chars=b"".join(comments),
                 sep=delim, store=True, out_room=room)
    if res.status != 0:
        python_scan(res.offset, res.line)
        return None
    m = res.entries
    weights = None
    if k == 3:
        head = b"%%MatrixMarket matrix array real general\n%d 1\n" % m
        out = res.out
        out[room - len(head):room] = np.frombuffer(head, np.uint8)
        try:
            weights = scipy_read([out[room - len(head):room + res.out_len]])
        except (ValueError, OverflowError, RuntimeError):
            python_scan()
            return None
        weights = weights.reshape(m)
        zero = np.flatnonzero(weights == 0)
        if len(zero):  # scipy's array reader drops the sign of '-0.0': take it from the token
            text = out[room:room + res.out_len]  # one value per line
            starts = np.concatenate(([0], np.flatnonzero(text == 10)[:-1] + 1))
            weights[zero[text[starts[zero]] == ord("-")]] = -0.0
        if np.isinf(weights).any():  # an 'inf' token, or one that overflows?
            python_scan()            # raises at the first that overflows
    return res.rows, res.cols, weights


def read_edgelist(path, *, dtype=None, directed=None, one_based=False,
                  nrows=None, comments=("#", "%"), delimiter=None,
                  dup_op=None, device=None):
    """Read an edge list into a square :class:`~bitgraph.Matrix`.

    - Each line is ``src dst`` (a structure-only Matrix, bool) or
      ``src dst weight`` (float64 weights; ``dtype=`` casts them with the
      library's rule: truncate and saturate, NaN gives 0). Every edge line
      must have as many values as the first. A weight must fit float64, as
      in a ``real`` Matrix Market file: ``inf`` is read as inf, ``1e400`` is a
      :class:`~bitgraph.FormatError`.
    - Vertex ids are non-negative integers, 0-based unless
      ``one_based=True`` (then ids start at 1 and 1 is subtracted). The
      matrix is ``n x n`` with ``n = max id + 1`` unless ``nrows`` is given
      (ids must then be below it). Without ``nrows``, ``n`` may be up to
      ``max(settings.io.claim_rows, 64 x edges)`` (2^26 by default); a larger
      id is a :class:`~bitgraph.FormatError` naming its line, ``n`` and the
      bytes the CSR's row pointers would take (``0 1`` and
      ``300000000 5`` would need 2.2 GiB), instead of allocating them.
    - ``directed=False`` adds the reverse of every edge. By default
      (``directed=None``) a graph is directed unless a comment line before
      the first edge says ``Undirected graph`` (SNAP's header, as in
      ``# Undirected graph: roadNet-PA.txt``); ``directed=True`` or ``False``
      overrides the header.
    - An edge listed twice is a :class:`~bitgraph.FormatError` naming the
      line of the second (GraphBLAS's rule), unless ``dup_op`` (``"plus"``,
      ``"min"``, ``"max"``, ``"first"``, ``"second"``, ``"any"``) says how to
      combine repeated edges (structure-only ones collapse). Undirected, an
      edge may be given in both directions (with equal weights): it is one
      edge; with ``dup_op`` the two directions are combined by it.
    - Lines whose first non-blank character starts with one of ``comments``
      and blank lines are skipped; ``delimiter=None`` splits on whitespace
      (``","`` for a ``.csv`` name); another ``delimiter`` (``","``, ``";"``,
      ``"|"``, ...) separates the values, blanks around it allowed. gzip/bz2 files are read transparently.
    - ``device``: "cpu", "cuda" or "auto" (None: ``bitgraph.set_device``'s).

    Malformed lines (wrong number of values, a non-number, a negative or
    non-integral id) raise :class:`~bitgraph.FormatError` naming the file, the
    line and the token.

    >>> import os, tempfile
    >>> import bitgraph as bg
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "g.el")
    ...     with open(path, "w") as f:
    ...         _ = f.write("# src dst weight\\n0 1 2.5\\n1 2 1.0\\n0 1 0.5\\n")
    ...     A = read_edgelist(path, dup_op="plus")  # '0 1' is listed twice
    ...     U = read_edgelist(path, directed=False, dup_op="min")
    >>> A.shape, [a.tolist() for a in A.to_coo()]
    ((3, 3), [[0, 1], [1, 2], [3.0, 1.0]])
    >>> [a.tolist() for a in U.to_coo()]
    [[0, 1, 1, 2], [1, 0, 2, 1], [0.5, 0.5, 1.0, 1.0]]
    """
    d = _read_edgelist_data(path, one_based=one_based, nrows=nrows,
                            comments=comments, delimiter=delimiter)
    if directed is None:
        directed = not d.undirected
    rows, cols, w = d.rows, d.cols, d.weights
    listed = keep = None  # expanded entry -> file edge (None: the same)
    if not directed:
        if dup_op is None:  # an edge given both ways is one edge
            keep = _drop_reverse_twins(rows, cols, w)
            if keep is not None:
                rows, cols = rows[keep], cols[keep]
                w = None if w is None else w[keep]
        off = rows != cols
        listed = (np.arange(len(rows)) if keep is None else keep,
                  np.flatnonzero(off))
        rows, cols = (np.concatenate((rows, cols[off])),
                      np.concatenate((cols, rows[off])))
        if w is not None:
            w = np.concatenate((w, w[off]))

    def duplicate(later, earlier):
        def file_edge(i):
            if listed is None:
                return i
            base, off = listed
            m = len(base)
            return int(base[i]) if i < m else int(base[off[i - m]])

        a, b = file_edge(later), file_edge(earlier)
        a, b = max(a, b), min(a, b)
        lines = d.lines({a, b})
        raise FormatError(
            f"edge {d.rows[a] + base_id} {d.cols[a] + base_id} is listed again (first on "
            f"line {lines[b]}" + ("" if directed else ", in either direction")
            + "); repeated edges are an error unless dup_op= says how to combine them",
            path=d.path, line=lines[a])

    base_id = 1 if one_based else 0
    if w is not None and dtype is not None:
        dt = np.dtype(dtype)
        w = cast(w, dt)  # the library's rule: saturate, NaN -> 0
    return to_matrix(rows, cols, w, d.n, d.n,
                      dtype if dtype is not None else (None if w is None else w.dtype),
                      dup_op=dup_op, device=device, duplicate=duplicate)




def write_edgelist(path, A, *, delimiter=" ", progress=None):
    """Write ``A``'s stored entries as an edge list: ``src dst`` per line
    (0-based, in row-major order), ``src dst weight`` when ``A`` has values
    (bool written as 0/1, floats as ``repr``, which reads back exactly).

    A first ``#`` line gives the sizes. :func:`read_edgelist` reads the file
    back, with ``n`` = the largest id + 1, so trailing vertices without
    edges are lost unless it is given ``nrows=`` (Matrix Market keeps
    them). ``delimiter`` separates the values (``","`` for a CSV file). The
    file is written beside its target and renamed into place
    (:func:`~bitgraph.io.atomic.atomic_write`): a failed write leaves no
    partial file. A name ending in ``.gz`` is gzip-compressed. ``progress``:
    None, or a wrapper around the iterable of chunks written, called as
    ``progress(chunks, total=count)`` (``tqdm.tqdm`` fits).

    >>> import os, tempfile
    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.5, 2.0, -1.0], nrows=3, ncols=3)
    >>> path = os.path.join(tempfile.mkdtemp(), "g.el")
    >>> write_edgelist(path, A)
    >>> print(open(path).read(), end="")
    # bitgraph edge list: n=3 m=3, 0-based, src dst weight
    0 1 1.5
    1 2 2.0
    2 0 -1.0
    >>> bg.io.read(path).isequal(A)
    True
    """
    from ..device import host
    from .atomic import atomic_write

    if isinstance(delimiter, bytes):
        delimiter = delimiter.decode()
    if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in "\n\r#%" \
            or delimiter.isalnum() or delimiter in "+-.":
        raise InvalidValue(f"write_edgelist: delimiter must be one character that cannot be told"
                           f" from a number, a comment or a line end, got {delimiter!r}")
    rows, cols, vals = (host(a) for a in A.to_coo())
    if A.iso:  # structure-only: to_coo gives all-True
        vals = None
    m = int(rows.shape[0])
    d = delimiter
    shape = f"n={A.nrows}" if A.nrows == A.ncols else f"nrows={A.nrows} ncols={A.ncols}"
    head = f"# bitgraph edge list: {shape} m={m}, 0-based, src{d}dst{'' if vals is None else d + 'weight'}\n"

    from bitgraph.settings import current

    step = current().io.write_chunk

    def writer(f):
        f.write(head.encode())
        chunks = range(0, m, step)
        for lo in (chunks if progress is None else progress(chunks, total=len(chunks))):
            hi = min(m, lo + step)
            r, c = rows[lo:hi].tolist(), cols[lo:hi].tolist()
            if vals is None:
                text = "".join([f"{a}{d}{b}\n" for a, b in zip(r, c)])
            else:
                w = vals[lo:hi]
                w = w.astype(np.int64).tolist() if w.dtype.kind == "b" else w.tolist()
                text = "".join([f"{a}{d}{b}{d}{x!r}\n" for a, b, x in zip(r, c, w)])
            f.write(text.encode())

    atomic_write(path, writer)
