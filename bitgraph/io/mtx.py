"""Matrix Market files: :func:`read_mtx` and :func:`write_mtx`.

Parsing goes through ``scipy.io.mmread`` (scipy's multithreaded
fast_matrix_market engine). That engine is fast but lenient: it ignores extra
tokens on a line, reads ``1.5`` in an integer file as ``1`` and ``1.5.5`` as
``1.5``, and cannot read a comment line between entries. So the banner and
size line are checked here in Python (a few lines), then the body in one
numba pass (:func:`bitgraph.io.scan.scan`, compiled on first use and cached): every
token's grammar, every index's range, every line's token count, the number
of entries; comment lines in the body are blanked (in a copy-on-write map of
the file, line numbers kept). Where the pass stops, that line is checked again
in Python, which raises :class:`~bitgraph.FormatError` naming the file, the
line and the token. Files the fast path declines (a ``+1`` index, an integer
scipy cannot hold) are read by a per-line Python scan.

Rules (see :func:`read_mtx`): symmetric files are expanded (off-diagonal
entries mirrored), skew-symmetric mirrored with negated values; ``pattern`` is
structure-only (bool); ``integer`` is int64 and ``real`` float64 unless a
``%%GraphBLAS type <t>`` line names the type; duplicate entries are an
error unless ``dup_op=`` combines them.
"""

from __future__ import annotations

import io
import math
import os
import re
from dataclasses import dataclass

import numpy as np

from .._array import cast
from ..errors import FormatError, InvalidValue
from .atomic import atomic_write
from .scan import (INF_RE, INT_RE, REAL_RE, as_array, check_claim, data_lines, last_line_number, lines_from,
                   parse_int, read_bytes, scan, scipy_read, show, source_name, to_matrix)

__all__ = ["read_mtx", "write_mtx"]


# ------------------------------------------------------------------- header

_GB_TYPES = {
    "bool": np.bool_,
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32,
    "uint64": np.uint64,
    "float": np.float32, "float32": np.float32,
    "double": np.float64, "float64": np.float64,
}
_GB_NAMES = {  # what write_mtx writes (LAGraph's names)
    np.dtype(np.bool_): "bool",
    np.dtype(np.int8): "int8_t", np.dtype(np.int16): "int16_t",
    np.dtype(np.int32): "int32_t", np.dtype(np.int64): "int64_t",
    np.dtype(np.uint8): "uint8_t", np.dtype(np.uint16): "uint16_t",
    np.dtype(np.uint32): "uint32_t", np.dtype(np.uint64): "uint64_t",
    np.dtype(np.float32): "float", np.dtype(np.float64): "double",
}
_FORMATS = ("coordinate", "array")
_FIELDS = ("real", "integer", "pattern", "complex")
_SYMMETRIES = ("general", "symmetric", "skew-symmetric", "hermitian")
_BANNER = "%%MatrixMarket"
_EXPECTED_BANNER = (
    "'%%MatrixMarket matrix coordinate|array "
    "real|integer|pattern general|symmetric|skew-symmetric|hermitian'"
)


@dataclass
class _Header:
    format: str
    field: str
    symmetry: str
    nrows: int
    ncols: int
    nnz: int              # entries declared (array: values to read)
    gb_type: np.dtype | None
    size_line: int        # line number of the size line
    body_offset: int      # byte offset just after the size line
    raw_banner: bytes = b""


def _words(raw):
    """The words of a header line (bytes), split at ASCII blanks only."""
    return [w.decode("latin-1") for w in raw.split()]


def _gb_type(name, path, line):
    key = name.strip().lower()
    if "complex" in key or key.startswith("gxb_fc"):
        raise FormatError(
            f"%%GraphBLAS type {show(name)!r}: complex matrices are not supported",
            path=path, line=line)
    if key.endswith("_t"):
        key = key[:-2]
    if key not in _GB_TYPES:
        raise FormatError(
            f"%%GraphBLAS type {show(name)!r} is not a known type (expected one of "
            f"bool, int8_t..int64_t, uint8_t..uint64_t, float, double)",
            path=path, line=line)
    return np.dtype(_GB_TYPES[key])


def _parse_header(data, path) -> _Header:
    if not len(data) or not (as_array(data) > 32).any():
        raise FormatError(
            f"empty file; expected the banner {_EXPECTED_BANNER}",
            path=path, line=1)
    lines = lines_from(data, 0, 1)
    lineno, banner_end, raw = next(lines)
    # blanks are ASCII's (bytes.split): a latin-1 str would also split at
    # NBSP, NEL and \x1c-\x1f
    raw = raw.lstrip(b"\xef\xbb\xbf")
    text = raw.strip().decode("latin-1")
    words = _words(raw)
    if not words or words[0].lower() != _BANNER.lower():
        raise FormatError(
            f"not a Matrix Market file: line 1 must be the banner "
            f"{_EXPECTED_BANNER}, found {text[:60]!r}", path=path, line=1)
    if len(words) != 5:
        raise FormatError(
            f"the banner must have 5 words {_EXPECTED_BANNER}, "
            f"found {len(words)}: {show(text)!r}", path=path, line=1)
    obj, fmt, field, sym = (w.lower() for w in words[1:])
    if obj != "matrix":
        raise FormatError(
            f"the banner's object must be 'matrix', found {show(words[1])!r}",
            path=path, line=1)
    if fmt not in _FORMATS:
        raise FormatError(
            f"the banner's format must be 'coordinate' or 'array', "
            f"found {show(words[2])!r}", path=path, line=1)
    if field not in _FIELDS:
        raise FormatError(
            f"the banner's field must be one of real, integer, pattern, "
            f"found {show(words[3])!r}", path=path, line=1)
    if sym not in _SYMMETRIES:
        raise FormatError(
            f"the banner's symmetry must be one of general, symmetric, "
            f"skew-symmetric, hermitian, found {show(words[4])!r}",
            path=path, line=1)
    if field == "complex":
        raise FormatError(
            "complex matrices are not supported (field 'complex')",
            path=path, line=1)
    if field == "pattern" and sym in ("hermitian", "skew-symmetric"):
        raise FormatError(
            f"a pattern matrix cannot be {sym}", path=path, line=1)
    if field == "pattern" and fmt == "array":
        raise FormatError(
            "an array (dense) matrix cannot be a pattern", path=path, line=1)

    gb_type = gb_line = None
    ndims = 3 if fmt == "coordinate" else 2
    what = "'nrows ncols nnz'" if ndims == 3 else "'nrows ncols'"
    for lineno, after, raw in lines:
        text = raw.strip().decode("latin-1")
        if not text:
            continue
        if text.startswith("%"):
            w = _words(raw)
            if w[0].lower() == "%%graphblas" and len(w) >= 2 and (
                    w[1].lower() == "type"
                    or (len(w) == 2 and w[1].lower().removesuffix("_t") in _GB_TYPES)):
                # '%%GraphBLAS type <t>', or '%%GraphBLAS <t>' (LAGraph's
                # matrix_fp32.mtx): the type line decides the type
                gb_type = _gb_type(" ".join(w[2:] if w[1].lower() == "type" else w[1:]),
                                   path, lineno)
                gb_line = lineno
            continue
        if field == "integer" and gb_type is not None and gb_type.kind == "f":
            field = "real"  # float values (inf too) in an 'integer' file
        if (sym == "skew-symmetric" and field != "pattern" and gb_type is not None
                and gb_type.kind in "bu"):
            raise FormatError(
                f"a skew-symmetric matrix cannot have the %%GraphBLAS type "
                f"{gb_type.name} (its mirrored entries are negated)",
                path=path, line=gb_line)
        toks = _words(raw)
        if len(toks) != ndims:
            raise FormatError(
                f"the size line must hold {ndims} integers {what}, found "
                f"{len(toks)}: {show(text)!r}", path=path, line=lineno)
        dims = []
        for t in toks:
            if not re.fullmatch(r"[0-9]+", t):
                raise FormatError(
                    f"the size line must hold {ndims} non-negative integers "
                    f"{what}, found {show(t)!r}", path=path, line=lineno)
            if parse_int(t) >= 2 ** 62:
                raise FormatError(
                    f"the size line's {show(t)} is too large", path=path, line=lineno)
            dims.append(parse_int(t))
        nrows, ncols = dims[0], dims[1]
        if sym != "general" and nrows != ncols:
            raise FormatError(
                f"a {sym} matrix must be square, the size line says "
                f"{nrows} x {ncols}", path=path, line=lineno)
        if fmt == "coordinate":
            nnz = dims[2]
        elif sym == "general":
            nnz = nrows * ncols
        elif sym == "skew-symmetric":
            nnz = nrows * (nrows - 1) // 2
        else:
            nnz = nrows * (nrows + 1) // 2
        for d, name in ((nrows, "rows"), (ncols, "columns")):
            check_claim(d, nnz, path, lineno, f"the size line's number of {name}")
        return _Header(fmt, field, "symmetric" if sym == "hermitian" else sym,
                       nrows, ncols, nnz, gb_type, lineno, min(after, len(data)),
                       raw_banner=bytes(data[:banner_end]).rstrip())
    raise FormatError(
        f"the file ends before the size line {what}",
        path=path, line=last_line_number(data))


# ------------------------------------------------------------ body checking

def _int_range(dtype):
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _value_dtype(hdr):
    """dtype the file's values are read as (before ``dtype=``)."""
    if hdr.field == "pattern":
        return None
    if hdr.gb_type is not None:
        return hdr.gb_type
    return np.dtype(np.int64 if hdr.field == "integer" else np.float64)


class _Entries:
    """Growing (row, col, value) lists for the Python scan."""

    def __init__(self):
        self.rows, self.cols, self.vals = [], [], []


def _check_line(toks, lineno, hdr, path, vdtype):
    """Parse one entry's tokens; raise FormatError naming the problem."""
    k = 1 if hdr.format == "array" else (2 if hdr.field == "pattern" else 3)
    if len(toks) != k:
        if hdr.format == "array":
            what = "1 value"
        elif k == 2:
            what = "2 values 'row col'"
        else:
            what = "3 values 'row col value'"
        raise FormatError(
            f"expected {what}, found {len(toks)}: "
            f"{show(b' '.join(toks))!r}", path=path, line=lineno)
    idx = []
    if hdr.format == "coordinate":
        for name, tok, bound in (("row", toks[0], hdr.nrows),
                                 ("column", toks[1], hdr.ncols)):
            if not INT_RE.match(tok):
                raise FormatError(
                    f"{name} index {show(tok)!r} is not an integer",
                    path=path, line=lineno)
            i = parse_int(tok)
            if not 1 <= i <= bound:
                raise FormatError(
                    f"{name} index {show(tok)} is out of range 1..{bound}",
                    path=path, line=lineno)
            idx.append(i - 1)
    if hdr.field == "pattern":
        return idx[0], idx[1], None
    tok = toks[-1]
    if hdr.field == "integer":
        if not INT_RE.match(tok):
            raise FormatError(
                f"value {show(tok)!r} is not an integer (the banner says "
                f"'integer')", path=path, line=lineno)
        v = parse_int(tok)
    else:
        if not REAL_RE.match(tok):
            raise FormatError(
                f"value {show(tok)!r} is not a number", path=path, line=lineno)
        if vdtype.kind in "iu":  # exactly: 9007199254740993 is not a float64
            v = _exact_integer(tok, vdtype, path, lineno)
        elif vdtype.kind == "b":  # exactly: 0.99999999999999999999 is not 1
            v = _exact_bool(tok)
        else:
            v = float(tok)
    kind = vdtype.kind
    if kind == "f" and math.isinf(v) and not INF_RE.match(tok):
        raise FormatError(
            f"value {show(tok)} does not fit in {vdtype.name} (it overflows to inf)",
            path=path, line=lineno)
    if kind == "f" and vdtype != np.float64 and math.isfinite(v):
        with np.errstate(over="ignore"):
            if not np.isfinite(vdtype.type(v)):
                raise FormatError(
                    f"value {show(tok)} does not fit in {vdtype.name}"
                    " (the %%GraphBLAS type line)", path=path, line=lineno)
    if kind == "b" and hdr.gb_type is not None and v not in (0, 1):
        raise FormatError(
            f"value {show(tok)} is not 0 or 1, as the %%GraphBLAS type bool requires",
            path=path, line=lineno)
    if kind in "iu":
        lo, hi = _int_range(vdtype)
        if not lo <= int(v) <= hi:
            raise FormatError(
                f"value {show(tok)} does not fit in {vdtype.name}"
                + (" (the %%GraphBLAS type line)" if hdr.gb_type is not None else ""),
                path=path, line=lineno)
        v = int(v)
    if hdr.format == "array":
        return None, None, v
    return idx[0], idx[1], v


def _exact_bool(tok):
    """0 or 1 when a real token spells exactly that, else 2."""
    import decimal

    try:
        d = decimal.Decimal(show(tok, limit=1 << 62))
    except decimal.DecimalException:
        return 2
    return 0 if d == 0 else (1 if d == 1 else 2)


def _exact_integer(tok, vdtype, path, lineno):
    """The integer a real token spells (``12``, ``1.2e1``), exactly."""
    if INT_RE.match(tok):
        return parse_int(tok)
    import decimal

    try:
        d = decimal.Decimal(show(tok, limit=1 << 62))
        if d.is_finite() and d.adjusted() >= 40:  # past every integer type
            return 10 ** 40 if d > 0 else -10 ** 40
        ok = d.is_finite() and d == d.to_integral_value()
    except decimal.DecimalException:
        ok = False
    if not ok:
        raise FormatError(
            f"value {show(tok)!r} is not an integer, as the %%GraphBLAS type "
            f"{vdtype.name} requires", path=path, line=lineno)
    return int(d)


def _python_scan(data, hdr, path):
    """Read the body line by line in Python (the slow path, for files the
    fast path declines): the entries, or the first FormatError."""
    vdtype = _value_dtype(hdr) or np.dtype(bool)
    acc = _Entries()
    count = 0
    for lineno, _, raw in lines_from(data, hdr.body_offset, hdr.size_line + 1):
        s = raw.strip()
        if not s or s.startswith(b"%"):
            continue
        if count == hdr.nnz:
            raise FormatError(
                f"more entries than the {hdr.nnz} declared on the size line "
                f"(line {hdr.size_line})", path=path, line=lineno)
        r, c, v = _check_line(s.split(), lineno, hdr, path, vdtype)
        count += 1
        acc.rows.append(r)
        acc.cols.append(c)
        acc.vals.append(v)
    if count < hdr.nnz:
        raise FormatError(
            f"the file ends after {count} of the {hdr.nnz} entries declared "
            f"on the size line (line {hdr.size_line})",
            path=path, line=last_line_number(data))
    return acc


# --------------------------------------------------------------------- read

@dataclass
class _MTXData:
    """What the file holds, 0-based, symmetric entries expanded."""
    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray | None   # None: pattern (structure-only)
    nrows: int
    ncols: int
    dtype: np.dtype             # the Matrix's dtype (bool for a pattern
                                # unless dtype= asks for another)
    header: _Header
    data: object = None         # the file's bytes and name, for errors
    path: str = ""

    def lines(self, entries):
        """{entry index (as the file lists them, from 0): its line}."""
        h = self.header
        return data_lines(self.data, h.body_offset, h.size_line + 1, entries, (b"%",))

    def duplicate(self, later, earlier):
        """Raise the FormatError for entries ``later`` and ``earlier`` (of
        the expanded lists) at the same place."""
        m = self.header.nnz
        off = None

        def listed(i):  # (file entry, mirrored?)
            nonlocal off
            if i < m:
                return i, False
            if off is None:
                off = np.flatnonzero(self.rows[:m] != self.cols[:m])
            return int(off[i - m]), True

        (a, am), (b, bm) = listed(later), listed(earlier)
        lines = self.lines({a, b})
        i, j = int(self.rows[later]) + 1, int(self.cols[later]) + 1
        if am or bm:
            first, second = sorted((a, b))
            raise FormatError(
                f"entries ({j}, {i}) and ({i}, {j}) (line {lines[first]}) are the same entry "
                f"of a {self.header.symmetry} matrix, whose file must list one triangle "
                f"(pass dup_op= to combine them)", path=self.path, line=lines[second])
        raise FormatError(
            f"entry ({i}, {j}) is listed again (first on line {lines[b]}); duplicates are "
            f"an error unless dup_op= says how to combine them", path=self.path,
            line=lines[a])


def _expand(rows, cols, vals, symmetry):
    """Mirror off-diagonal entries (negated for skew-symmetric); scipy's
    order: the file's entries first, then the mirrored ones."""
    if symmetry == "general":
        return rows, cols, vals
    off = rows != cols
    r2 = np.concatenate((rows, cols[off]))
    c2 = np.concatenate((cols, rows[off]))
    if vals is None:
        return r2, c2, None
    mv = vals[off]
    if symmetry == "skew-symmetric":
        mv = -mv
    return r2, c2, np.concatenate((vals, mv))


def _dense_to_coo(dense):
    nrows, ncols = dense.shape
    rows = np.repeat(np.arange(nrows, dtype=np.int64), ncols)
    cols = np.tile(np.arange(ncols, dtype=np.int64), nrows)
    return rows, cols, np.ascontiguousarray(dense).ravel()


def _array_from_values(vals, hdr):
    n, m = hdr.nrows, hdr.ncols
    if hdr.symmetry == "general":
        return vals.reshape(m, n).T
    dense = np.zeros((n, n), dtype=vals.dtype)
    j, i = np.triu_indices(n, 0 if hdr.symmetry == "symmetric" else 1)
    dense[i, j] = vals
    dense[j, i] = -vals if hdr.symmetry == "skew-symmetric" else vals
    return dense


def _cast_values(vals, hdr, vdtype):
    """File values -> the file's dtype; None when a value does not fit (the
    caller's Python scan then names the line)."""
    if vdtype.kind in "iu":
        if vals.dtype.kind == "f":
            if len(vals) and not (np.isfinite(vals).all() and (vals == np.trunc(vals)).all()):
                return None
        if len(vals) and vals.dtype != vdtype:
            lo, hi = _int_range(vdtype)
            if vals.min() < lo or vals.max() > hi:
                return None
    if vdtype.kind == "f" and vals.dtype.kind == "f" and len(vals):
        with np.errstate(over="ignore"):
            out = vals.astype(vdtype, copy=False)
        if np.isinf(out).any():  # an 'inf' token, or a number that overflows?
            return None          # the Python scan tells them apart
        return out
    if vdtype.kind == "b":
        if len(vals) and not ((vals == 0) | (vals == 1)).all():
            return None
        return vals != 0
    return vals.astype(vdtype, copy=False)


def _read_mtx_data(source, *, dtype=None) -> _MTXData:
    if dtype is not None:
        dtype = np.dtype(dtype)
        if dtype.kind not in "biuf":
            raise InvalidValue(f"read_mtx: dtype {dtype} is not supported")
    path = source_name(source)
    data = read_bytes(source)
    hdr = _parse_header(data, path)
    vdtype = _value_dtype(hdr)
    fast = _fast_body(data, hdr, path, vdtype, source)
    if fast is None:
        acc = _python_scan(data, hdr, path)
        if hdr.format == "array":
            vals = np.array(acc.vals, dtype=vdtype)
            rows, cols, vals = _dense_to_coo(_array_from_values(vals, hdr))
        else:
            rows = np.array(acc.rows, dtype=np.int64)
            cols = np.array(acc.cols, dtype=np.int64)
            vals = None if vdtype is None else np.array(acc.vals, dtype=vdtype)
            rows, cols, vals = _expand(rows, cols, vals, hdr.symmetry)
    else:
        rows, cols, vals = fast
    if hdr.symmetry == "skew-symmetric" and hdr.format == "coordinate" and vals is not None:
        m = hdr.nnz
        bad = np.flatnonzero((rows[:m] == cols[:m]) & (vals[:m] != 0))
        if len(bad):
            d = _MTXData(rows, cols, vals, hdr.nrows, hdr.ncols, vdtype, hdr, data, path)
            raise FormatError(
                f"entry ({rows[bad[0]] + 1}, {cols[bad[0]] + 1}) on the diagonal of a "
                f"skew-symmetric matrix must be 0, found {vals[bad[0]]}",
                path=path, line=d.lines([int(bad[0])])[int(bad[0])])
    if hdr.symmetry == "skew-symmetric" and vals is not None and vdtype.kind == "i":
        _check_skew_mirrors(rows, cols, vals, hdr, vdtype, data, path)
    out_dtype = np.dtype(bool) if vdtype is None else vdtype
    if vdtype is None and hdr.gb_type is not None and dtype is None:
        # a pattern with a %%GraphBLAS type: value 1 of that type, as LAGraph
        # reads it (structure.mtx: int32_t)
        dtype = hdr.gb_type
    if dtype is not None:
        if vals is not None:  # pattern stays structure-only: from_coo
            # gives it value 1 of a non-bool dtype
            vals = cast(vals, dtype)  # the library's rule: saturate, NaN -> 0
        out_dtype = dtype
    return _MTXData(rows, cols, vals, hdr.nrows, hdr.ncols, out_dtype, hdr, data, path)


def _check_skew_mirrors(rows, cols, vals, hdr, vdtype, data, path):
    """FormatError when a skew-symmetric file holds its type's most negative
    integer off the diagonal: the mirrored ``-x`` does not fit (int8's -128
    would mirror as -128)."""
    lo = int(np.iinfo(vdtype).min)
    if hdr.format == "coordinate":  # the file's entries come first
        bad = np.flatnonzero(vals[:hdr.nnz] == lo)
        entry = int(bad[0]) if len(bad) else None
    else:  # array: the strictly lower triangle, column by column
        low = np.flatnonzero((vals == lo) & (rows > cols))
        i, j, n = rows[low], cols[low], hdr.nrows
        entry = int((j * (n - 1) - j * (j - 1) // 2 + (i - j - 1)).min()) if len(low) else None
    if entry is not None:
        d = _MTXData(rows, cols, vals, hdr.nrows, hdr.ncols, vdtype, hdr, data, path)
        raise FormatError(
            f"value {lo} of a skew-symmetric matrix: its mirror {-lo} does not fit in "
            f"{vdtype.name}", path=path, line=d.lines([entry])[entry])


def _line_at(data, offset):
    end = data.find(b"\n", offset)
    return bytes(data[offset:] if end < 0 else data[offset:end])


def _fast_body(data, hdr, path, vdtype, source):
    """Check the body in one numba pass, then let scipy parse it. None when
    the file needs the Python scan (legal but unusual: a '+' sign, an integer
    scipy cannot hold)."""
    coord = hdr.format == "coordinate"
    k = (2 if hdr.field == "pattern" else 3) if coord else 1
    a = as_array(data)
    # comment lines are blanked in place (copy-on-write): scipy cannot read them
    has_comments = data.find(b"%", hdr.body_offset) >= 0
    # integer types and bool in a 'real' file: read as 'integer' when every
    # value is written as one (scipy's float64 would round 2^53 + 1 and
    # 0.99999999999999999999); else the Python scan
    exact = hdr.field == "real" and vdtype is not None and vdtype.kind in "iub"
    res = scan(a, hdr.body_offset, hdr.size_line + 1, k=k,
                 nidx=2 if coord else 0,
                 vkind=1 if exact else {"pattern": 0, "integer": 1, "real": 2}[hdr.field],
                 base=1, hi0=hdr.nrows, hi1=hdr.ncols, comment_chars=b"%",
                 blank=has_comments, limit=min(hdr.nnz, 2 ** 62))
    if res.status == 2:
        raise FormatError(
            f"more entries than the {hdr.nnz} declared on the size line "
            f"(line {hdr.size_line})", path=path, line=res.line)
    if res.status == 1:
        if exact:
            return None
        s = _line_at(data, res.offset).strip()
        _check_line(s.split(), res.line, hdr, path, vdtype or np.dtype(bool))
        return None
    if res.entries < hdr.nnz:
        raise FormatError(
            f"the file ends after {res.entries} of the {hdr.nnz} entries "
            f"declared on the size line (line {hdr.size_line})",
            path=path, line=last_line_number(data))
    if not coord and hdr.nnz == 0:  # scipy's reader dies (SIGFPE) on 0 rows
        # no values to read: 0 x n, or a 1 x 1 skew-symmetric one (its 0 diagonal)
        return _dense_to_coo(np.zeros((hdr.nrows, hdr.ncols), dtype=vdtype or np.float64))
    # scipy's reader dies (SIGSEGV) on a last line ending in a blank without
    # a newline: it is always given a body that ends in one
    ends_nl = not len(data) or data[-1:] == b"\n"
    field = "integer" if exact else hdr.field
    if vdtype is not None and vdtype == np.uint64 and field == "integer":
        field = "unsigned-integer"
    banner = f"%%MatrixMarket matrix {hdr.format} {field} {hdr.symmetry}".encode()
    if (not has_comments and ends_nl and banner == hdr.raw_banner
            and isinstance(source, (str, os.PathLike))
            and not os.fspath(source).endswith((".gz", ".bz2"))
            and not isinstance(data, bytearray)):  # a plain file: scipy reads it
        target = source
    else:  # scipy reads our buffer, after a header it surely accepts
        sizes = (f"{hdr.nrows} {hdr.ncols} {hdr.nnz}" if coord
                 else f"{hdr.nrows} {hdr.ncols}")
        head = banner + b"\n" + sizes.encode() + b"\n"
        body = memoryview(data)[hdr.body_offset:]
        if len(head) <= hdr.body_offset:  # in place of the old header
            start = hdr.body_offset - len(head)
            a[start:hdr.body_offset] = np.frombuffer(head, np.uint8)
            target = [memoryview(data)[start:]]
        else:
            target = [head, body]
        if not ends_nl:
            target.append(b"\n")
    try:
        m = scipy_read(target)
    except (ValueError, OverflowError, RuntimeError):
        return None
    if not coord:
        dense = m
        if (hdr.field == "real" and (dense == 0).any()
                and data.find(b"-", hdr.body_offset) >= 0):
            return None  # scipy's array reader drops the sign of '-0.0'
        if vdtype is not None:
            flat = _cast_values(dense.ravel(), hdr, vdtype)
            if flat is None:
                return None
            dense = flat.reshape(dense.shape)
        if hdr.symmetry == "skew-symmetric":  # the mirror is -x (IEEE: -0.0 of 0.0),
            upper = np.triu_indices(hdr.nrows, 1)  # where scipy writes 0.0
            dense[upper] = -dense.T[upper]
        return _dense_to_coo(dense)
    rows, cols = m.row, m.col
    if vdtype is None:
        return rows, cols, None
    vals = _cast_values(m.data, hdr, vdtype)
    if vals is None:
        return None
    return rows, cols, vals


def read_mtx(path, *, dtype=None, dup_op=None, device=None):
    """Read a Matrix Market file (``.mtx``, or gzip/bz2 compressed) into a
    :class:`~bitgraph.Matrix`.

    - ``pattern``: a structure-only Matrix (dtype bool, no values).
    - ``integer``: int64; ``real``: float64; unless a ``%%GraphBLAS type <t>``
      line (``bool``, ``int8_t`` .. ``uint64_t``, ``float``, ``double``) names
      the type: values must then fit it (an integer type needs integral
      values).
    - ``symmetric`` (and ``hermitian``, for real data the same): off-diagonal
      entries are mirrored; ``skew-symmetric``: mirrored with negated values.
    - ``array`` (dense) files give a Matrix with every entry present.
    - GraphBLAS's rules (LAGraph's reader): an entry listed twice is a
      :class:`~bitgraph.FormatError` naming the line of the second, unless
      ``dup_op=`` (``"plus"``, ``"min"``, ``"max"``, ``"first"``, ...) says how
      to combine duplicates (a pattern's collapse into one); a symmetric file
      lists one triangle (an entry and its mirror both listed are
      duplicates); a skew-symmetric file's diagonal is 0, its type is
      signed and each value's negation fits it (int8's -128 does not);
      ``%%GraphBLAS type bool`` values are exactly 0 or 1.
    - ``dtype=`` casts the result as every bitgraph cast does
      (SuiteSparse's rule: float to integer truncates and saturates, NaN
      gives 0; anything to bool is ``x != 0``); a pattern file read with a
      non-bool dtype gets value 1 everywhere, and so does a pattern file with a
      ``%%GraphBLAS type`` line other than bool (LAGraph's reader does the same).
    - ``complex`` files are not supported.
    - A size line may claim a dimension up to
      ``max(settings.io.claim_rows, 64 x entries)`` (2^26 rows by default);
      beyond, a :class:`~bitgraph.FormatError` names the dimension and the
      bytes the CSR's row pointers would take, instead of allocating them
      (a 2^40 x 2^40 file with 2 entries is refused, not 8 TiB).
    - ``device``: "cpu", "cuda" or "auto" (None: ``bitgraph.set_device``'s).

    Malformed files raise :class:`~bitgraph.FormatError` naming the file, the
    line and what was expected.

    >>> import os, tempfile
    >>> import bitgraph as bg
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "g.mtx")
    ...     with open(path, "w") as f:
    ...         _ = f.write("%%MatrixMarket matrix coordinate real symmetric\\n"
    ...                     "3 3 2\\n2 1 0.5\\n3 3 2.0\\n")
    ...     A = read_mtx(path)
    >>> A.shape, A.dtype, A.nvals
    ((3, 3), dtype('float64'), 3)
    >>> [a.tolist() for a in A.to_coo()]
    [[0, 1, 2], [1, 0, 2], [0.5, 0.5, 2.0]]
    """
    d = _read_mtx_data(path, dtype=dtype)
    return to_matrix(d.rows, d.cols, d.values, d.nrows, d.ncols, d.dtype, dup_op=dup_op,
                     device=device, duplicate=d.duplicate)


# -------------------------------------------------------------------- write

def _is_symmetric(rows, cols, values, n):
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    key = rows * n + cols
    tkey = cols * n + rows
    o1, o2 = np.argsort(key, kind="stable"), np.argsort(tkey, kind="stable")
    if not np.array_equal(key[o1], tkey[o2]):
        return False
    if values is None:
        return True
    return np.array_equal(values[o1], values[o2], equal_nan=values.dtype.kind == "f")


def write_mtx(path, A, *, symmetric=False, comment=""):
    """Write ``A`` to a Matrix Market file (through ``scipy.io.mmwrite``).

    Structure-only matrices are written as ``pattern``, integer and bool
    dtypes as ``integer``, float dtypes as ``real``; every dtype but int64,
    float64 and structure-only bool also gets a ``%%GraphBLAS type <t>`` line
    so :func:`read_mtx` gives the same dtype back. ``symmetric=True`` writes
    the lower triangle with the ``symmetric`` header (``A`` must be square and
    equal to its transpose). ``comment`` lines follow the banner. The file is
    written beside its target and renamed into place, so a failed write
    leaves no partial file; a name ending in ``.gz`` is gzip-compressed.

    >>> import os, tempfile
    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 2], [1, 0, 2], [7, 7, 1], nrows=4, ncols=4, dtype="int32")
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "g.mtx")
    ...     write_mtx(path, A, symmetric=True)
    ...     lines = open(path).read().splitlines()
    ...     B = read_mtx(path)
    >>> lines[:2]
    ['%%MatrixMarket matrix coordinate integer symmetric', '%%GraphBLAS type int32_t']
    >>> B.isequal(A), B.dtype
    (True, dtype('int32'))
    """
    import scipy.io
    import scipy.sparse

    from ..device import host

    rows, cols, values = (host(a) for a in A.to_coo())  # a CUDA matrix too
    nrows, ncols = int(A.nrows), int(A.ncols)
    if getattr(A, "iso", False):  # structure-only: to_coo gives all-True
        values = None
    type_line = None
    if values is None:
        field = "pattern"
        data = np.ones(len(rows), dtype=np.float64)
    else:
        values = np.asarray(values)
        dt = values.dtype
        if dt.kind == "c":
            raise InvalidValue(
                f"write_mtx: complex matrices are not supported (dtype {dt})")
        if dt not in _GB_NAMES:
            raise InvalidValue(
                f"write_mtx: dtype {dt} has no Matrix Market type; cast it to "
                f"one of {', '.join(sorted(str(t) for t in _GB_NAMES))}")
        if dt.kind in "biu":
            field = "integer"
            # scipy writes any unsigned dtype as 'unsigned-integer' (not
            # Matrix Market): widen the small ones, fix uint64's banner below
            data = values if dt in (np.int64, np.uint64) else values.astype(np.int64)
            if dt != np.int64:
                type_line = _GB_NAMES[dt]
        else:
            field = "real"
            data = values
            if dt != np.float64:
                type_line = _GB_NAMES[dt]
    symmetry = "general"
    if symmetric:
        if nrows != ncols:
            raise InvalidValue(
                f"write_mtx: symmetric=True needs a square matrix, got "
                f"{nrows} x {ncols}")
        if not _is_symmetric(rows, cols, values, nrows):
            raise InvalidValue(
                "write_mtx: symmetric=True but the matrix is not equal to "
                "its transpose")
        symmetry = "symmetric"  # mmwrite keeps the lower triangle
    lines = []
    if type_line is not None:
        lines.append(f"%GraphBLAS type {type_line}")
    if comment:  # each line written as '% text'
        lines.extend(ln if not ln or ln.startswith(" ") else " " + ln
                     for ln in str(comment).splitlines())
    S = scipy.sparse.coo_array((data, (rows, cols)), shape=(nrows, ncols))
    kw = dict(comment="\n".join(lines), symmetry=symmetry,
              field=None if field != "pattern" else "pattern")
    if (field == "integer" and data.dtype == np.uint64) or len(rows) == 0:
        # scipy writes uint64 as 'unsigned-integer' (not Matrix Market) and
        # an empty matrix as 'real' whatever its field: the banner is ours
        buf = io.BytesIO()
        scipy.io.mmwrite(buf, S, **kw)
        text = buf.getvalue()
        nl = text.index(b"\n")
        banner = f"%%MatrixMarket matrix coordinate {field} {symmetry}".encode()
        text = banner + text[nl:]
        writer = lambda f: f.write(text)  # noqa: E731
    else:
        writer = lambda f: scipy.io.mmwrite(f, S, **kw)  # noqa: E731
    atomic_write(path, writer)
