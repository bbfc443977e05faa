"""A reference reader: the fuzzer's oracle for :func:`bitgraph.io.read`.

Small and plain (the standard library, numpy only to hash the result),
written from the Matrix Market spec (math.nist.gov/MatrixMarket/formats.html)
and the rules bitgraph's readers document (GraphBLAS's: LAGraph_MMRead and
``GrB_Matrix_build`` without a dup operator), never from their code. It reads
one file's bytes the way ``bitgraph.io.read(path)`` does with its defaults and
gives a :class:`Loaded` matrix or an :class:`Invalid` verdict with a reason
and the lines that hold a problem.

The rules, Matrix Market:

- Line 1 is the banner ``%%MatrixMarket matrix <format> <field> <symmetry>``
  (5 words, case-insensitive; a UTF-8 byte-order mark before it is skipped);
  format ``coordinate`` or ``array``; field ``real``, ``integer`` or
  ``pattern`` (``complex`` is not supported); symmetry ``general``,
  ``symmetric``, ``skew-symmetric`` or ``hermitian`` (real data: the same as
  symmetric). A pattern is neither skew nor hermitian nor an array.
- Then comment lines (``%``) and blank lines, then the size line:
  ``nrows ncols nnz`` (coordinate) or ``nrows ncols`` (array), decimal digits,
  each below 2**62; a non-general matrix is square. A dimension above
  ``max(settings.io.claim_rows, 64 x entries)`` is refused (bitgraph's
  allocation rule). ``%%GraphBLAS type <t>`` (or ``%%GraphBLAS <t>``) before
  the size line names the type: bool, int8..int64, uint8..uint64 (a ``_t``
  suffix allowed), float/float32, double/float64; the last one wins; an
  unknown or complex type is an error. A float type makes an ``integer``
  file's values reals. Without it: pattern -> bool structure only, integer ->
  int64, real -> float64. A typed pattern has value 1 of its type.
- The body: blank lines and ``%`` lines anywhere; exactly ``nnz`` entry lines
  (array: ``nrows x ncols`` values in column order; symmetric: the lower
  triangle with the diagonal, skew: without it), each with exactly 2
  (pattern), 3 (coordinate) or 1 (array) tokens. Indices are integers
  (``[+-]?digits``) in ``1..nrows`` / ``1..ncols``. An integer field's value
  is ``[+-]?digits``; a real field's is a decimal real, ``inf``,
  ``infinity`` or ``nan``. The value must fit the type exactly: an integer
  type takes an integral value in its range (a real spelling of one, such as
  ``1.2e1``, too), bool takes 0 or 1, float/double take any number that does
  not overflow to inf (the inf tokens themselves fit).
- Symmetric: an off-diagonal entry is mirrored; an entry and its mirror both
  listed are a duplicate. Skew-symmetric: mirrored negated (the negation must
  fit the type; bool and unsigned types are refused), the diagonal is 0.
  An entry listed twice is an error.

Edge lists (any other file): lines ``src dst`` or ``src dst weight`` (as many
values as the first edge line), split on blanks (on ``,`` for a ``.csv``
name, blanks around it allowed); ``#`` and ``%`` lines and blank lines
skipped; ids ``[+-]?digits``, 0-based, non-negative, below 2**62; weights
real tokens read as float64 (one that overflows to inf is refused, as in a
``real`` Matrix Market file); ``n = max id + 1`` within the claim rule.
Directed unless a comment line before the first edge starts ``Undirected
graph`` (SNAP): then each edge is mirrored, and an edge given once each way
with equal weights is one edge. An edge listed twice is an error.

Blanks are space, tab, CR, VT and FF; lines end at LF. Files starting with
the gzip (or bz2) magic bytes are decompressed first; a corrupt one is
invalid.

>>> r = reference_read(b"%%MatrixMarket matrix coordinate real symmetric\\n2 2 1\\n2 1 1.5\\n", "a.mtx")
>>> (r.nrows, r.ncols, r.dtype, sorted(r.entries.items()))
(2, 2, 'float64', [((0, 1), 1.5), ((1, 0), 1.5)])
>>> bad = reference_read(b"0 1\\n1 2\\n0 1\\n", "g.el")
>>> bad.reason, sorted(bad.lines)
('edge listed again', [3])
"""

from __future__ import annotations

import bz2
import decimal
import gzip
import math
import re
import struct
import zlib
from dataclasses import dataclass, field

BLANKS = b" \t\r\x0b\x0c"
_INT = re.compile(rb"[+-]?[0-9]+")
_REAL = re.compile(rb"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                   rb"|inf|infinity|nan)", re.IGNORECASE)
_INF = re.compile(rb"[+-]?(?:inf|infinity)", re.IGNORECASE)
# GraphBLAS type name -> (numpy dtype name, kind, lo, hi)
_TYPES = {"bool": ("bool", "b", 0, 1), "float": ("float32", "f", None, None),
          "float32": ("float32", "f", None, None), "double": ("float64", "f", None, None),
          "float64": ("float64", "f", None, None)}
for _bits in (8, 16, 32, 64):
    _TYPES[f"int{_bits}"] = (f"int{_bits}", "i", -2 ** (_bits - 1), 2 ** (_bits - 1) - 1)
    _TYPES[f"uint{_bits}"] = (f"uint{_bits}", "u", 0, 2 ** _bits - 1)
MAX_DIM = 2 ** 62


def claim_rows():
    """bitgraph's claim budget (the one setting the rules depend on)."""
    from bitgraph.settings import current

    return current().io.claim_rows


@dataclass
class Loaded:
    """A matrix: 0-based ``entries`` {(row, col): value}; ``iso``: structure
    only (values None)."""
    nrows: int
    ncols: int
    dtype: str
    iso: bool
    entries: dict


@dataclass
class Invalid:
    """The file is invalid: ``reason``, and ``lines``, the lines that hold a
    problem (empty where no line is to blame, as a corrupt gzip stream)."""
    reason: str
    lines: set = field(default_factory=set)


class _Bad(Exception):
    def __init__(self, reason, *lines):
        super().__init__(reason)
        self.reason, self.lines = reason, set(lines)


def reference_read(data: bytes, name: str):
    """What ``bitgraph.io.read`` of a file named ``name`` holding ``data``
    must give: a :class:`Loaded` or an :class:`Invalid`."""
    try:
        data = _decompress(bytes(data))
        low = name.lower()
        for ext in (".gz", ".bz2"):
            low = low.removesuffix(ext)
        if (low.endswith((".mtx", ".mm"))
                or data[:64].lstrip(b"\xef\xbb\xbf").lower().startswith(b"%%matrixmarket")):
            return _read_mtx(data)
        return _read_edgelist(data, "," if low.endswith(".csv") else None)
    except _Bad as e:
        return Invalid(e.reason, e.lines)


def _decompress(data):
    if data[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise _Bad(f"corrupt gzip data ({type(e).__name__})") from None
    if data[:3] == b"BZh" and data[3:4] in b"123456789" and data[4:10] in (
            b"1AY&SY", b"\x17rE8P\x90"):
        try:
            return bz2.decompress(data)
        except (OSError, EOFError, ValueError) as e:
            raise _Bad(f"corrupt bz2 data ({type(e).__name__})") from None
    return data


def _lines(data):
    """(line number, stripped line) of every line; a final newline opens
    no new line."""
    parts = data.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()
    return [(n, p.strip(BLANKS)) for n, p in enumerate(parts, 1)]


def _last_line(data):
    return max(1, data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1))


def _split(s, delim):
    if delim is None:
        return [t for t in re.split(b"[" + re.escape(BLANKS) + b"]+", s) if t]
    return [t.strip(BLANKS) for t in s.split(delim.encode())]


def _small_int(tok):
    """An ``[+-]?digits`` token's value; beyond 40 digits +-10**40 (past
    every range here)."""
    digits = tok.lstrip(b"+-").lstrip(b"0") or b"0"
    v = 10 ** 40 if len(digits) > 40 else int(digits)
    return -v if tok[:1] == b"-" else v


# ------------------------------------------------------------- Matrix Market

def _read_mtx(data):
    lines = _lines(data)
    if not lines:
        raise _Bad("empty file", 1)
    words = _split(lines[0][1].lstrip(b"\xef\xbb\xbf"), None)
    if not words or words[0].lower() != b"%%matrixmarket":
        raise _Bad("no banner", 1)
    if len(words) != 5:
        raise _Bad("the banner has not 5 words", 1)
    obj, fmt, fld, sym = (w.lower().decode("latin-1") for w in words[1:])
    if (obj != "matrix" or fmt not in ("coordinate", "array")
            or fld not in ("real", "integer", "pattern")
            or sym not in ("general", "symmetric", "skew-symmetric", "hermitian")
            or (fld == "pattern" and (sym in ("skew-symmetric", "hermitian") or fmt == "array"))):
        raise _Bad("banner", 1)
    sym = "symmetric" if sym == "hermitian" else sym
    gtype = gline = None
    at = 1
    while True:
        if at == len(lines):
            raise _Bad("no size line", _last_line(data))
        n, s = lines[at]
        at += 1
        if not s:
            continue
        if s[:1] == b"%":
            w = _split(s, None)
            if w[0].lower() == b"%%graphblas" and len(w) >= 2 and (
                    w[1].lower() == b"type"
                    or (len(w) == 2 and w[1].lower().removesuffix(b"_t").decode("latin-1") in _TYPES)):
                t = b" ".join(w[2:] if w[1].lower() == b"type" else w[1:]).lower()
                t = t.removesuffix(b"_t").decode("latin-1")
                if t not in _TYPES:
                    raise _Bad(f"type {t!r}", n)
                gtype, gline = _TYPES[t], n
            continue
        break
    size_line = n
    problems = set()
    if gtype is not None and gtype[1] == "f" and fld == "integer":
        fld = "real"
    if sym == "skew-symmetric" and gtype is not None and gtype[1] in "bu":
        problems.add(gline)
    toks = _split(s, None)
    if len(toks) != (3 if fmt == "coordinate" else 2) or not all(
            re.fullmatch(rb"[0-9]+", t) for t in toks):
        raise _Bad("size line", *problems, size_line)
    dims = [_small_int(t) for t in toks]
    if any(d >= MAX_DIM for d in dims):
        raise _Bad("size line too large", *problems, size_line)
    nrows, ncols = dims[:2]
    if sym != "general" and nrows != ncols:
        raise _Bad("not square", *problems, size_line)
    if fmt == "coordinate":
        nnz = dims[2]
    else:
        nnz = nrows * ncols if sym == "general" else (
            nrows * (nrows - 1) // 2 if sym == "skew-symmetric" else nrows * (nrows + 1) // 2)
    if max(nrows, ncols) > max(claim_rows(), 64 * nnz):
        raise _Bad("claim", *problems, size_line)
    if problems:
        raise _Bad("skew-symmetric and unsigned", *problems)

    # the type the values take: (dtype name, kind, lo, hi); None: pattern
    if fld == "pattern":
        vtype = None
    else:
        vtype = gtype or (_TYPES["int64"] if fld == "integer" else _TYPES["float64"])
    k = 1 if fmt == "array" else (2 if fld == "pattern" else 3)
    entries = []  # (line, row, col, value)
    for n, s in lines[at:]:
        if not s or s[:1] == b"%":
            continue
        if len(entries) >= nnz:
            problems.add(n)  # more entries than declared
            continue
        toks = _split(s, None)
        try:
            if len(toks) != k:
                raise _Bad("token count", n)
            if fmt == "coordinate":
                i, j = (_index(t, bound, n) for t, bound in ((toks[0], nrows), (toks[1], ncols)))
            else:
                i = j = None
            v = None if vtype is None else _value(toks[-1], fld, vtype, n)
            entries.append((n, i, j, v))
        except _Bad as e:
            problems |= e.lines
            entries.append((n, None, None, None))
    if len(entries) < nnz:
        problems.add(_last_line(data))
    if problems:
        raise _Bad("body", *problems)

    out = {}
    if fmt == "array":
        values = iter(entries)
        cols = range(ncols)
        for j in cols:
            first = 0 if sym == "general" else (j if sym == "symmetric" else j + 1)
            for i in range(first, nrows):
                n, _, _, v = next(values)
                out[(i, j)] = v
                if sym != "general":
                    out[(j, i)] = _mirror(v, sym, vtype, n)
        if sym == "skew-symmetric":
            for i in range(nrows):
                out[(i, i)] = _zero(vtype)
    else:
        first_line = {}
        for n, i, j, v in entries:
            if sym == "skew-symmetric" and i == j and v != 0:
                problems.add(n)
            places = [(i, j)] if sym == "general" or i == j else [(i, j), (j, i)]
            if any(p in first_line for p in places):
                problems.add(n)
                continue
            for p in places:
                first_line[p] = n
            out[(i, j)] = v
            if len(places) == 2:
                try:
                    out[(j, i)] = _mirror(v, sym, vtype, n)
                except _Bad as e:
                    problems |= e.lines
        if problems:
            raise _Bad("duplicate, or skew diagonal", *problems)
    if vtype is None:
        if gtype is not None and gtype[0] != "bool":  # a typed pattern: value 1
            return Loaded(nrows, ncols, gtype[0], False, {p: 1 for p in out})
        return Loaded(nrows, ncols, "bool", True, {p: None for p in out})
    return Loaded(nrows, ncols, vtype[0], False, out)


def _index(tok, bound, n):
    if not _INT.fullmatch(tok):
        raise _Bad("index not an integer", n)
    i = _small_int(tok)
    if not 1 <= i <= bound:
        raise _Bad("index out of range", n)
    return i - 1


def _value(tok, fld, vtype, n):
    """The value ``tok`` spells in type ``vtype``, exactly, or _Bad."""
    name, kind, lo, hi = vtype
    if fld == "integer":
        if not _INT.fullmatch(tok):
            raise _Bad("value not an integer", n)
        exact = _small_int(tok)
    else:
        if not _REAL.fullmatch(tok):
            raise _Bad("value not a number", n)
        if kind == "f":
            v = float(tok)
            if math.isinf(v) and not _INF.fullmatch(tok):
                raise _Bad("overflows to inf", n)
            return _to_float32(v, n) if name == "float32" else v
        d = decimal.Decimal(tok.decode())
        if not d.is_finite() or d != d.to_integral_value():
            raise _Bad("not integral", n)
        exact = 10 ** 40 if d.adjusted() > 40 else int(d)
    if not lo <= exact <= hi:
        raise _Bad("does not fit", n)
    return bool(exact) if kind == "b" else exact


def _to_float32(v, n):
    try:
        return struct.unpack("<f", struct.pack("<f", v))[0]
    except OverflowError:
        raise _Bad("does not fit float32", n) from None


def _mirror(v, sym, vtype, n):
    if sym != "skew-symmetric":
        return v
    name, kind, lo, hi = vtype
    if kind in "iu" and not lo <= -v <= hi:
        raise _Bad("the negated mirror does not fit", n)
    return -v


def _zero(vtype):
    return 0.0 if vtype[1] == "f" else 0


# ----------------------------------------------------------------- edge lists

_UNDIRECTED = re.compile(rb"[ \t\n\r\x0b\x0c]*undirected graph(?![A-Za-z0-9_])", re.IGNORECASE)


def _read_edgelist(data, delim):
    lines = _lines(data)
    undirected = False
    k = None
    edges = []  # (line, src, dst, weight)
    problems = set()
    for n, s in lines:
        if not s:
            continue
        if s[:1] in (b"#", b"%"):
            if k is None and _UNDIRECTED.match(s.lstrip(b"#%")):
                undirected = True
            continue
        toks = _split(s, delim)
        if k is None:
            k = len(toks)
            if k not in (2, 3):
                raise _Bad("first edge: not 2 or 3 values", n)
        try:
            if len(toks) != k or not all(toks):
                raise _Bad("value count", n)
            ids = []
            for t in toks[:2]:
                if not _INT.fullmatch(t):
                    raise _Bad("id", n)
                v = _small_int(t)
                if not 0 <= v < MAX_DIM:
                    raise _Bad("id range", n)
                ids.append(v)
            w = None
            if k == 3:
                if not _REAL.fullmatch(toks[2]):
                    raise _Bad("weight", n)
                w = float(toks[2])
                if math.isinf(w) and not _INF.fullmatch(toks[2]):
                    raise _Bad("weight overflows to inf", n)
            edges.append((n, ids[0], ids[1], w))
        except _Bad as e:
            problems |= e.lines
    if problems:
        raise _Bad("line", *problems)
    nv = 1 + max((max(a, b) for _, a, b, _ in edges), default=-1)
    if nv > max(claim_rows(), 64 * len(edges)):
        raise _Bad("claim", *(n for n, a, b, _ in edges if nv - 1 in (a, b)))
    out = {}
    if not undirected:
        first = {}
        for n, a, b, w in edges:
            if (a, b) in first:
                problems.add(n)
            first.setdefault((a, b), n)
            out.setdefault((a, b), w)
    else:
        groups = {}
        for e in edges:
            groups.setdefault((min(e[1], e[2]), max(e[1], e[2])), []).append(e)
        for group in groups.values():
            (n, a, b, w) = group[0]
            twins = (len(group) == 2 and group[1][1] == b and group[1][2] == a and a != b
                     and group[1][3] == w)
            if len(group) > 1 and not twins:
                problems |= {e[0] for e in group[1:]}
            out[(a, b)] = out[(b, a)] = w
    if problems:
        raise _Bad("edge listed again", *problems)
    if k == 3:
        return Loaded(nv, nv, "float64", False, out)
    return Loaded(nv, nv, "bool", True, out)


# -------------------------------------------------------------------- digest

def digest(nrows, ncols, dtype, iso, rows, cols, values):
    """A hash of a matrix (entries in any order; ``values`` None when
    ``iso``), the same for bitgraph's Matrix and a :class:`Loaded`."""
    import hashlib

    import numpy as np

    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    order = np.lexsort((cols, rows))
    h = hashlib.sha256(f"{nrows} {ncols} {dtype} {iso} {len(rows)}".encode())
    h.update(rows[order].tobytes())
    h.update(cols[order].tobytes())
    if not iso:
        v = np.asarray(values, dtype=dtype)[order]
        if v.dtype.kind == "f":
            v = v.astype(np.float64)
            v[np.isnan(v)] = np.nan  # one NaN
        h.update(v.tobytes())
    return h.hexdigest()


def loaded_digest(r: Loaded):
    """:func:`digest` of a :class:`Loaded`."""
    keys = list(r.entries)
    vals = None if r.iso else [r.entries[p] for p in keys]
    return digest(r.nrows, r.ncols, r.dtype, r.iso, [p[0] for p in keys], [p[1] for p in keys], vals)
