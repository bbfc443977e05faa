"""Writing a file all at once or not at all: :func:`atomic_write`, what
the writers (:func:`~bitgraph.io.write_mtx`,
:func:`~bitgraph.io.write_edgelist`) share.
"""

from __future__ import annotations

import os

__all__ = ["atomic_write"]


def atomic_write(path, writer):
    """Call ``writer(f)`` with a binary file that becomes ``path`` only when
    it returns: the bytes go to a temporary file beside ``path``, renamed
    over it with ``os.replace`` (atomic on one file system), so a failed or
    interrupted write leaves no partial file and an old ``path`` intact. A
    name ending in ``.gz`` is gzip-compressed. The file gets the usual
    permissions (0o666 less the umask). ``path`` may also be an open binary
    file, which ``writer`` then writes directly.

    >>> import os, tempfile
    >>> from bitgraph.io.atomic import atomic_write
    >>> p = os.path.join(tempfile.mkdtemp(), "x.txt")
    >>> atomic_write(p, lambda f: f.write(b"hello\\n"))
    >>> open(p).read()
    'hello\\n'
    >>> def fails(f):
    ...     f.write(b"half")
    ...     raise RuntimeError("disk full")
    >>> try:
    ...     atomic_write(p, fails)
    ... except RuntimeError:
    ...     pass
    >>> open(p).read(), sorted(os.listdir(os.path.dirname(p)))
    ('hello\\n', ['x.txt'])
    """
    if hasattr(path, "write"):
        writer(path)
        return
    path = os.fspath(path)
    d = os.path.dirname(os.path.abspath(path))
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=".bitgraph-", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "wb") as raw:
            if str(path).endswith(".gz"):
                import gzip

                with gzip.GzipFile(fileobj=raw, mode="wb") as f:
                    writer(f)
            else:
                writer(raw)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
