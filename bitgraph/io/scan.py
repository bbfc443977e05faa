"""What the text readers share: a file's bytes, one numba pass over them,
the token grammar, and the Matrix they become.

:mod:`bitgraph.io.mtx` and :mod:`bitgraph.io.edgelist` read a file the same
way: :func:`read_bytes` gives its (decompressed) content as a writable
buffer; :func:`scan` checks every line of the body in one numba pass (in
parallel chunks from ``settings.io.parallel_scan_min`` bytes) and, asked to, stores the
indices and copies the values one per line for :func:`scipy_read` to parse;
where it stops, the reader re-checks that line in Python (:func:`lines_from`,
``INT_RE``, ``REAL_RE``, :func:`show`) and raises a
:class:`~bitgraph.FormatError` naming the file, the line and the token.
:func:`to_matrix` builds the Matrix. These names are the package's own API
(not re-exported by :mod:`bitgraph.io`).

>>> import numpy as np
>>> from bitgraph.io.scan import as_array, scan
>>> data = bytearray(b"1 2\\n# a comment\\n3 4\\n")
>>> r = scan(as_array(data), 0, 1, k=2, nidx=2, vkind=0, base=0, comment_chars=b"#", store=True)
>>> r.status, r.entries, r.rows.tolist(), r.cols.tolist()
(0, 2, [1, 3], [2, 4])
>>> scan(as_array(bytearray(b"1 2\\n3 x\\n")), 0, 1, k=2, nidx=2, vkind=0, base=0).line
2
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass

import numpy as np

__all__ = ["source_name", "read_bytes", "compression", "check_claim", "first_duplicate",
           "data_lines", "as_array", "scipy_read", "to_matrix", "scan", "ScanResult", "scan_py", "INT_RE", "REAL_RE", "INF_RE", "parse_int", "show", "lines_from",
           "last_line_number"]


# --------------------------------------------------------------- file access

def source_name(source):
    """The name errors give for ``source``: the path, or a stream's ``name``."""
    if isinstance(source, (str, bytes, os.PathLike)):
        return os.fsdecode(source)
    return str(getattr(source, "name", "<stream>"))


def read_bytes(source):
    """The whole (decompressed) content of a path or a readable object, as a
    writable buffer (the scanner blanks comment lines in place): a plain file
    is memory-mapped copy-on-write (nothing is copied, the file never
    changes), a compressed one or a stream is read into a bytearray. The
    buffer supports ``len``, ``find`` and slicing to bytes.

    gzip and bz2 are recognised by their magic bytes, so ``.gz``/``.bz2``
    files (and streams of them) need no special name. A truncated or corrupt
    one raises :class:`~bitgraph.FormatError` naming the file and the line
    the text stops at.
    """
    if hasattr(source, "read"):
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        data = bytearray(data)
    else:
        with open(os.fspath(source), "rb") as f:
            magic = f.read(10)
            if compression(magic) is not None:
                f.seek(0)
                data = bytearray(f.read())
            else:
                size = os.fstat(f.fileno()).st_size
                if size == 0:
                    return bytearray()
                import mmap

                return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    if compression(data[:10]) is not None:
        data = _decompress(data, source_name(source))
    return data


def compression(head):
    """"gzip" or "bz2" when ``head`` (the first 10 bytes or more) starts a
    compressed stream, else None (a text file may start with 'BZh')."""
    head = bytes(head[:10])
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    if (head[:3] == b"BZh" and head[3:4] in b"123456789"
            and head[4:10] in (b"1AY&SY", b"\x17rE8P\x90")):
        return "bz2"
    return None


def _decompress(raw, path):
    """Decompressed ``raw`` (gzip or bz2); FormatError at the line where
    the text stops when the stream is truncated or corrupt."""
    import bz2
    import gzip
    import zlib

    kind = compression(raw)
    stream = io.BytesIO(raw)
    f = gzip.GzipFile(fileobj=stream) if kind == "gzip" else bz2.BZ2File(stream)
    out = bytearray()
    try:
        with f:
            while True:
                chunk = f.read(1 << 24)
                if not chunk:
                    break
                out += chunk
    except (OSError, EOFError, zlib.error, ValueError) as e:
        from ..errors import FormatError

        why = "truncated" if isinstance(e, EOFError) else "corrupt"
        raise FormatError(
            f"the {kind} data is {why} after {len(out)} bytes of text "
            f"({type(e).__name__}: {show(str(e))})",
            path=path, line=out.count(b"\n") + 1) from None
    return out


def as_array(data):
    """``data`` (a buffer from :func:`read_bytes`) as a uint8 array, no copy."""
    return np.frombuffer(data, dtype=np.uint8) if len(data) else np.zeros(0, np.uint8)


class _ChainReader(io.RawIOBase):
    """A read-only stream over several buffers, so scipy can read a patched
    header followed by the body without copying the body."""

    def __init__(self, parts):
        self._parts = [memoryview(p).cast("B") for p in parts if len(p)]
        self._i = 0
        self._pos = 0

    def readable(self):
        return True

    def readinto(self, b):
        while self._i < len(self._parts):
            part = self._parts[self._i]
            n = min(len(b), len(part) - self._pos)
            if n > 0:
                b[:n] = part[self._pos:self._pos + n]
                self._pos += n
                return n
            self._i += 1
            self._pos = 0
        return 0


def scipy_read(parts):
    """``scipy.io.mmread`` of the concatenated buffers (or of a path): a
    dense array or a COO (``row``, ``col``, ``data``)."""
    import inspect

    import scipy.io

    if not isinstance(parts, (str, os.PathLike)):
        parts = io.BufferedReader(_ChainReader(parts), buffer_size=1 << 22)
    # scipy >= 1.18 warns unless told which COO type to return
    if "spmatrix" in inspect.signature(scipy.io.mmread).parameters:
        return scipy.io.mmread(parts, spmatrix=False)
    return scipy.io.mmread(parts)


def check_claim(n, entries, path, line, what):
    """FormatError when a file claims a dimension ``n`` far beyond its
    ``entries``: above ``max(settings.io.claim_rows, 64 * entries)`` (the
    CSR's ``n + 1`` row pointers would dwarf the data). ``what`` says where
    the claim is (``"the size line's 2^40 rows"``)."""
    from bitgraph.settings import current

    budget = current().io.claim_rows
    allowed = max(budget, 64 * int(entries))
    if n > allowed:
        from ..errors import FormatError

        need = 8 * (n + 1)
        raise FormatError(
            f"{what} = {n} with {entries} entries: the CSR's row pointers alone "
            f"would take {_bytes(need)}; bitgraph reads a dimension up to "
            f"max(settings.io.claim_rows = {budget}, 64 x entries) = {allowed}",
            path=path, line=line)


def _bytes(n):
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if n < 1024 or unit == "EiB":
            return f"{n:.1f} {unit}" if unit != "bytes" else f"{n} bytes"
        n /= 1024


def to_matrix(rows, cols, values, nrows, ncols, dtype, dup_op=None, device=None,
              duplicate=None):
    """The one place the readers build a Matrix (``values=None``: structure
    only). Duplicates are combined with ``dup_op``; with ``dup_op=None``
    (GraphBLAS's rule: ``GrB_Matrix_build`` without a dup operator) they are
    an error: ``duplicate(later, earlier)`` gets the indices of the first
    entry that repeats an earlier one and raises."""
    from ..matrix import Matrix

    strict = dup_op is None
    A = Matrix.from_coo(
        rows, cols, values, nrows, ncols, dtype=dtype,
        dup_op=None if values is None else ("first" if strict else dup_op), device=device,
    )
    if strict and A.nvals != len(rows):
        later, earlier = first_duplicate(np.asarray(rows), np.asarray(cols))
        duplicate(later, earlier)
    return A


def first_duplicate(rows, cols):
    """``(later, earlier)``: the first entry (in input order) whose (row,
    col) an earlier one has, and that earlier one; None when all differ."""
    m = len(rows)
    order = np.lexsort((np.arange(m), cols, rows))
    r, c = rows[order], cols[order]
    same = (r[1:] == r[:-1]) & (c[1:] == c[:-1])
    if not same.any():
        return None
    later, earlier = order[1:][same], order[:-1][same]
    k = int(np.argmin(later))
    return int(later[k]), int(earlier[k])


def data_lines(data, offset, line, wanted, comments):
    """{entry index: line number} for the ``wanted`` entries (data lines
    from 0, counting from byte ``offset`` of line ``line``; blank lines and
    lines starting with one of ``comments`` are not entries)."""
    wanted = set(int(w) for w in wanted)
    found = {}
    e = 0
    for lineno, _, raw in lines_from(data, offset, line):
        s = raw.strip()
        if not s or (comments and s.startswith(comments)):
            continue
        if e in wanted:
            found[e] = lineno
            if len(found) == len(wanted):
                break
        e += 1
    return found


# ------------------------------------------------------------- the scanner
#
# One pass over the body in numba (imported on first use). Per line: skip
# blanks; a blank line or a comment line (first non-blank byte in
# ``is_comment``) is skipped (and with ``blank`` overwritten with spaces, so
# scipy, which cannot read comments between entries, sees a blank line with
# the same number); else exactly ``k`` tokens: the first ``nidx`` are indices
# (digits only, ``base <= v <= hi0`` / ``hi1``), the next a value (``vkind`` 1: integer
# ``-?digits``, 2: real ``[+-]?(digits[.digits]|.digits)([eE][+-]?digits)``
# or inf/infinity/nan), each ended by a blank, a newline, the end or (with
# ``sep`` >= 0) that byte between tokens. With ``store`` the indices go to
# ``rows``/``cols`` (minus ``base``) and each real value to ``out`` on a line
# of its own (a leading '+' dropped). ``res``: status (0 ok, 1 bad line,
# 2 more than ``limit`` data lines), data lines, byte offset and line (from
# 0) of the bad line, bytes written to ``out``, largest index of each column.


def scan_py(a, start, k, nidx, base, hi0, hi1, vkind, is_comment, sep,
            blank, store, rows, cols, out, limit, res):
    """The scanner in plain Python (numba compiles this same function; see
    the comment above for its arguments and ``res``)."""
    n = a.shape[0]
    i = start
    line = 0
    m = 0
    o = 0
    mx0 = -1
    mx1 = -1
    status = 0
    ls = start
    while i < n:
        ls = i
        c = a[i]
        while c == 32 or c == 9 or c == 13 or c == 11 or c == 12:
            i += 1
            if i == n:
                break
            c = a[i]
        if i == n:
            break
        if c == 10:
            i += 1
            line += 1
            continue
        if is_comment[c]:
            while i < n and a[i] != 10:
                if blank:
                    a[i] = 32
                i += 1
            i += 1
            line += 1
            continue
        if m >= limit:
            status = 2
            break
        t = 0
        ok = True
        while True:
            if t >= k:
                ok = False
                break
            if t < nidx:
                v = 0
                nd = 0
                while i < n:
                    c = a[i]
                    if c < 48 or c > 57:
                        break
                    v = v * 10 + (c - 48)
                    nd += 1
                    i += 1
                if nd == 0 or nd > 18 or v < base:
                    ok = False
                    break
                if t == 0:
                    if v > hi0:
                        ok = False
                        break
                    if store:
                        rows[m] = v - base
                    if v > mx0:
                        mx0 = v
                else:
                    if v > hi1:
                        ok = False
                        break
                    if store:
                        cols[m] = v - base
                    if v > mx1:
                        mx1 = v
            elif vkind == 1:
                if a[i] == 45:
                    i += 1
                nd = 0
                while i < n and a[i] >= 48 and a[i] <= 57:
                    nd += 1
                    i += 1
                if nd == 0:
                    ok = False
                    break
            else:
                s = i
                j = i
                if a[j] == 43 or a[j] == 45:
                    j += 1
                c = a[j] | 32 if j < n else 0
                if c == 105:  # i: inf, infinity
                    if (j + 2 < n and (a[j + 1] | 32) == 110
                            and (a[j + 2] | 32) == 102):
                        j += 3
                        if (j + 4 < n and (a[j] | 32) == 105
                                and (a[j + 1] | 32) == 110
                                and (a[j + 2] | 32) == 105
                                and (a[j + 3] | 32) == 116
                                and (a[j + 4] | 32) == 121):
                            j += 5
                    else:
                        ok = False
                        break
                elif c == 110:  # n: nan
                    if (j + 2 < n and (a[j + 1] | 32) == 97
                            and (a[j + 2] | 32) == 110):
                        j += 3
                    else:
                        ok = False
                        break
                else:
                    nd = 0
                    while j < n and a[j] >= 48 and a[j] <= 57:
                        nd += 1
                        j += 1
                    if j < n and a[j] == 46:
                        j += 1
                        while j < n and a[j] >= 48 and a[j] <= 57:
                            nd += 1
                            j += 1
                    if nd == 0:
                        ok = False
                        break
                    if j < n and (a[j] | 32) == 101:
                        j += 1
                        if j < n and (a[j] == 43 or a[j] == 45):
                            j += 1
                        ne = 0
                        while j < n and a[j] >= 48 and a[j] <= 57:
                            ne += 1
                            j += 1
                        if ne == 0:
                            ok = False
                            break
                if store:
                    if a[s] == 43:
                        s += 1
                    for q in range(s, j):
                        out[o] = a[q]
                        o += 1
                    out[o] = 10
                    o += 1
                i = j
            t += 1
            # the token must end here: blank, newline, end (or comma)
            if i == n:
                break
            c = a[i]
            if not (c == 32 or c == 9 or c == 13 or c == 11 or c == 12
                    or c == 10 or c == sep):
                ok = False
                break
            while c == 32 or c == 9 or c == 13 or c == 11 or c == 12:
                i += 1
                if i == n:
                    break
                c = a[i]
            if i == n or c == 10:
                break
            if sep >= 0:
                if c != sep:
                    ok = False
                    break
                i += 1
                while i < n:
                    c = a[i]
                    if not (c == 32 or c == 9 or c == 13 or c == 11 or c == 12):
                        break
                    i += 1
                if i == n or c == 10 or c == sep:
                    ok = False
                    break
        if not ok or t != k:
            status = 1
            break
        m += 1
        i += 1  # the newline
        line += 1
    res[0] = status
    res[1] = m
    res[2] = ls
    res[3] = line
    res[4] = o
    res[5] = mx0
    res[6] = mx1


def _scan_chunks_py(a, bounds, k, nidx, base, hi0, hi1, vkind, is_comment,
                    sep, blank, store, rows, cols, row_at, out, res):
    """``scan_py`` over the line-aligned chunks ``bounds[c]:bounds[c + 1]``
    in parallel; chunk ``c`` stores its indices from ``row_at[c]`` and its
    values from ``bounds[c] - bounds[0]``, its results in ``res[c]``."""
    for c in _prange(bounds.shape[0] - 1):
        lo = bounds[c]
        _serial_scan(a[:bounds[c + 1]], lo, k, nidx, base, hi0, hi1, vkind,
                     is_comment, sep, blank, store, rows[row_at[c]:],
                     cols[row_at[c]:], out[lo - bounds[0]:], 2 ** 62, res[c])


_prange = range
_serial_scan = scan_py
_SCAN = None
_SCAN_CHUNKS = None


def _scanner():
    """The scanners compiled by numba (cached on disk): (serial, parallel);
    plain Python where numba is missing."""
    global _SCAN, _SCAN_CHUNKS, _prange, _serial_scan
    if _SCAN is None:
        try:
            import numba
        except ImportError:  # pragma: no cover - numba is a dependency
            _SCAN, _SCAN_CHUNKS = scan_py, None
        else:
            _serial_scan = numba.njit(cache=True, nogil=True)(scan_py)
            _prange = numba.prange
            _SCAN = _serial_scan
            _SCAN_CHUNKS = numba.njit(cache=True, parallel=True)(_scan_chunks_py)
    return _SCAN, _SCAN_CHUNKS


_NO_INDEX = np.zeros(1, dtype=np.int64)
_NO_BYTES = np.zeros(1, dtype=np.uint8)


@dataclass
class ScanResult:
    """What :func:`scan` found."""

    status: int        # 0 ok, 1 bad line, 2 too many data lines
    entries: int
    offset: int        # byte offset of the bad line
    line: int          # its line number
    out_len: int       # bytes of values in out
    max0: int
    max1: int
    rows: np.ndarray | None = None   # the stored indices (store mode)
    cols: np.ndarray | None = None
    out: np.ndarray | None = None    # the values, one per line


def _threads():
    try:
        import numba

        return numba.get_num_threads()
    except ImportError:  # pragma: no cover
        return 1


def scan(a, start, start_line, *, k, nidx, vkind, base=1, hi0=2 ** 62,
         hi1=2 ** 62, comment_chars=b"", sep=None, blank=False, store=False,
         out_room=0, limit=None) -> ScanResult:
    """Run the scanner over ``a[start:]`` (line ``start_line``), in parallel
    chunks for a large body. With ``store``, the result holds the indices
    (``rows``, ``cols``) and the values one per line in ``out``, after
    ``out_room`` spare bytes."""
    is_comment = np.zeros(256, dtype=np.bool_)
    for ch in comment_chars:
        is_comment[ch] = True
    sep = -1 if sep is None else ord(sep)
    limit = 2 ** 62 if limit is None else int(limit)
    serial, chunked = _scanner()
    n = len(a)
    nthreads = _threads() if chunked is not None else 1
    from bitgraph.settings import current

    parallel_min = current().io.parallel_scan_min
    nchunks = min(4 * nthreads, (n - start) // max(parallel_min // 4, 1))
    cuts = [start]
    if nthreads > 1 and n - start >= parallel_min:
        for c in range(1, nchunks):
            nl = _find_newline(a, start + (n - start) * c // nchunks)
            if nl > cuts[-1] and nl < n:
                cuts.append(nl)
    cuts.append(n)
    bounds = np.array(cuts, dtype=np.int64)
    nch = len(bounds) - 1
    if store:
        counts = [int(np.count_nonzero(a[lo:hi] == 10))
                  for lo, hi in zip(cuts[:-1], cuts[1:])]
        row_at = np.zeros(nch, dtype=np.int64)
        row_at[1:] = np.cumsum(counts[:-1])
        rows = np.empty(sum(counts) + 1, dtype=np.int64)
        cols = np.empty(sum(counts) + 1, dtype=np.int64)
        out = (np.empty(out_room + n - start + 1, dtype=np.uint8)
               if vkind == 2 else _NO_BYTES)
        out_body = out[out_room:] if vkind == 2 else out
    else:
        row_at = np.zeros(nch, dtype=np.int64)
        rows = cols = _NO_INDEX
        out = out_body = _NO_BYTES
    res = np.zeros((nch, 8), dtype=np.int64)
    if nch == 1:
        serial(a, start, k, nidx, base, hi0, hi1, vkind, is_comment, sep,
               blank, store, rows, cols, out_body, limit, res[0])
    else:
        chunked(a, bounds, k, nidx, base, hi0, hi1, vkind, is_comment, sep,
                blank, store, rows, cols, row_at, out_body, res)
    # combine the chunks: the first bad line, the entry count, the limit
    entries = lines = 0
    for c in range(nch):
        st, m, off, ln = (int(x) for x in res[c, :4])
        if entries + m > limit or (st == 1 and entries + m == limit):
            # the serial scan says which comes first: an extra line or a bad one
            sub = np.zeros(8, dtype=np.int64)
            serial(a[:cuts[c + 1]], cuts[c], k, nidx, base, hi0, hi1, vkind,
                   is_comment, sep, blank, False, _NO_INDEX, _NO_INDEX,
                   _NO_BYTES, limit - entries, sub)
            st, off, ln = int(sub[0]), int(sub[2]), int(sub[3])
        if st != 0:
            return ScanResult(st, entries + m, off, start_line + lines + ln,
                               0, -1, -1)
        entries += m
        lines += ln
    result = ScanResult(0, entries, n, start_line + lines, 0,
                         int(res[:, 5].max()), int(res[:, 6].max()))
    if store:
        ms = res[:, 1]
        if nch == 1:
            result.rows, result.cols = rows[:entries], cols[:entries]
        else:
            result.rows = np.concatenate([rows[r:r + m] for r, m in zip(row_at, ms)])
            result.cols = np.concatenate([cols[r:r + m] for r, m in zip(row_at, ms)])
        if vkind == 2:
            lens = res[:, 4]
            if nch > 1:  # close the gaps between the chunks' values
                pos = int(lens[0])
                for c in range(1, nch):
                    lo = cuts[c] - start
                    out_body[pos:pos + lens[c]] = out_body[lo:lo + lens[c]]
                    pos += int(lens[c])
            result.out_len = int(lens.sum())
            result.out = out
    return result


def _find_newline(a, pos):
    """Offset just after the first newline at or after ``pos`` (or len)."""
    n = len(a)
    step = 1 << 16
    while pos < n:
        hit = np.flatnonzero(a[pos:pos + step] == 10)
        if len(hit):
            return pos + int(hit[0]) + 1
        pos += step
    return n


# ------------------------------------------------------------ token grammar

# one token of a line (bytes), what the Python re-check of a line accepts
INT_RE = re.compile(rb"[+-]?\d+\Z")
REAL_RE = re.compile(
    # no nested or adjacent overlapping quantifiers: linear time on any token
    rb"[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)\Z",
    re.IGNORECASE,
)
# a real token that spells an infinity (any other that reads as inf overflows)
INF_RE = re.compile(rb"[+-]?inf(?:inity)?\Z", re.IGNORECASE)


def parse_int(tok):
    """The integer a token matching ``INT_RE`` spells, exactly; one of more
    than 40 significant digits comes back as +-10**40 (past every range a
    reader accepts, so the caller's range check names it; Python's int()
    refuses more than 4,300 digits)."""
    t = bytes(tok).strip() if isinstance(tok, (bytes, bytearray, memoryview)) else str(tok).strip().encode()
    neg = t[:1] == b"-"
    digits = t.lstrip(b"+-").lstrip(b"0") or b"0"
    v = 10 ** 40 if len(digits) > 40 else int(digits)
    return -v if neg else v


def show(tok, limit=200):
    """A token or line (bytes or str) as text for an error message, cut to
    about ``limit`` characters (its start, its length and its end)."""
    if isinstance(tok, (bytes, bytearray, memoryview)):
        tok = bytes(tok).decode("latin-1")
    tok = str(tok)
    if len(tok) > limit:
        half = limit // 2 - 10
        tok = f"{tok[:half]}...({len(tok)} characters)...{tok[-half:]}"
    return tok


def lines_from(data, offset, line):
    """(line number, offset after the line, raw line) from byte ``offset``
    (line ``line``) on."""
    n = len(data)
    while offset < n:
        nl = data.find(b"\n", offset)
        if nl < 0:
            nl = n
        yield line, nl + 1, bytes(data[offset:nl])
        offset = nl + 1
        line += 1


def last_line_number(data):
    """Number of the last line (a trailing newline opens no new line)."""
    if not len(data):
        return 1
    newlines = int(np.count_nonzero(as_array(data) == 10))
    return newlines + (0 if data[-1:] == b"\n" else 1)
