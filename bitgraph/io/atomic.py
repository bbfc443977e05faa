"""Writing a file all at once or not at all: :func:`atomic_write`, what
the writers (:func:`~bitgraph.io.write_mtx`,
:func:`~bitgraph.io.write_edgelist`) and the command line's ``-o`` share;
:func:`check_writable`, the check a caller makes before a long computation
whose result goes to a file.
"""

from __future__ import annotations

import errno
import os

__all__ = ["atomic_write", "check_writable"]


def _target(path: str) -> str:
    """The file a write to ``path`` replaces: ``path`` itself, or for a
    symbolic link (a chain of them) the file it points to."""
    return os.path.realpath(path) if os.path.islink(path) else path


def check_writable(path) -> str:
    """Check that :func:`atomic_write` can write ``path``: its directory
    exists and is writable, and ``path`` is not a directory (nor a file
    without write permission). Returns the file the write will replace
    (``path``, or the target of a symbolic link); raises an ``OSError``
    naming ``path`` (``FileNotFoundError``, ``IsADirectoryError``,
    ``NotADirectoryError``, ``PermissionError``) otherwise. Nothing is
    created.

    >>> import os, tempfile
    >>> from bitgraph.io.atomic import check_writable
    >>> d = tempfile.mkdtemp()
    >>> check_writable(os.path.join(d, "x.txt")) == os.path.join(d, "x.txt")
    True
    >>> try:
    ...     check_writable(os.path.join(d, "no", "x.txt"))
    ... except FileNotFoundError as e:
    ...     print(e.strerror.startswith("no such directory"))
    True
    >>> try:
    ...     check_writable(d)
    ... except IsADirectoryError as e:
    ...     print(e.strerror)
    is a directory
    """
    path = os.fspath(path)
    if path == "":
        raise FileNotFoundError(errno.ENOENT, "empty file name", path)
    target = _target(path)
    if os.path.isdir(target):
        raise IsADirectoryError(errno.EISDIR, "is a directory", path)
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.exists(folder):
        raise FileNotFoundError(errno.ENOENT, f"no such directory {folder}", path)
    if not os.path.isdir(folder):
        raise NotADirectoryError(errno.ENOTDIR, f"{folder} is not a directory", path)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, f"permission denied (directory {folder})", path)
    if os.path.exists(target) and not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, "permission denied (the file is read-only)", path)
    return target


def _named(e: OSError, path: str, folder: str):
    """``e`` again naming ``path`` (the file asked for) when it names no
    file (a failed ``write``) or a temporary one; None when it names
    another file already."""
    name = e.filename
    if name is not None:
        name = os.fspath(name)
        if os.path.dirname(os.path.abspath(name)) != folder \
                or not os.path.basename(name).startswith(".bitgraph-"):
            return None
    return type(e)(e.errno if e.errno is not None else errno.EIO,
                   e.strerror or str(e) or type(e).__name__, path)


def atomic_write(path, writer):
    """Call ``writer(f)`` with a binary file that becomes ``path`` only when
    it returns: the bytes go to a temporary file beside the target, are
    flushed to the disk (``fsync``) and renamed over it with ``os.replace``
    (atomic on one file system), so a failed or interrupted write (an
    error, a full disk, Ctrl-C) leaves no partial file, no temporary file,
    and an old ``path`` intact. A name ending in ``.gz`` is
    gzip-compressed.

    - An existing file keeps its permission bits; a new one gets the usual
      ones (0o666 less the umask). (The file is a new inode: other hard
      links to the old one keep the old bytes.)
    - A symbolic link is written through: the file it points to is
      replaced (the temporary file beside *that* file), the link stays.
    - A read-only existing file is refused (``PermissionError``), as
      ``open(path, "w")`` would.
    - An ``OSError`` that names no file, or the temporary one (a ``write``
      failing with ``ENOSPC``, say), is raised again naming ``path``.

    ``path`` may also be an open binary file, which ``writer`` then writes
    directly.

    >>> import os, stat, tempfile
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

    Permissions are kept, and a link is written through:

    >>> os.chmod(p, 0o640)
    >>> link = os.path.join(os.path.dirname(p), "link.txt")
    >>> os.symlink(p, link)
    >>> atomic_write(link, lambda f: f.write(b"again\\n"))
    >>> os.path.islink(link), open(p).read(), oct(stat.S_IMODE(os.stat(p).st_mode))
    (True, 'again\\n', '0o640')
    """
    if hasattr(path, "write"):
        writer(path)
        return
    path = os.fspath(path)
    target = check_writable(path)
    d = os.path.dirname(os.path.abspath(target))
    try:
        mode = os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    import tempfile

    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".bitgraph-", suffix=".tmp", dir=d)
        with os.fdopen(fd, "wb") as raw:
            if str(path).endswith(".gz"):
                import gzip

                with gzip.GzipFile(fileobj=raw, mode="wb") as f:
                    writer(f)
            else:
                writer(raw)
            raw.flush()
            os.fsync(raw.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
        tmp = None
    except OSError as e:
        named = _named(e, path, d)
        if named is None:
            raise
        raise named from e
    finally:
        if tmp is not None:  # failed or interrupted (KeyboardInterrupt too)
            try:
                os.unlink(tmp)
            except OSError:
                pass
    _sync_dir(d)


def _sync_dir(d):
    """Make the rename durable (the directory's entry); best effort (some
    systems cannot open a directory)."""
    try:
        fd = os.open(d, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
