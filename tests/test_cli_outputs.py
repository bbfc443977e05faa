"""The command line's result files (``-o``): checked before any work,
written all at once (:func:`bitgraph.io.atomic.atomic_write`: temporary
file beside the target, fsync, rename), so a full disk, a permission error
or Ctrl-C during the write leaves the old file intact and no temporary
file, with one error line naming the file; an existing file keeps its
permissions and a symbolic link is written through (issue 30, repro 12)."""

import errno
import os
import stat

import numpy as np
import pytest
import scipy.io

from bitgraph import cli
from bitgraph.io import atomic
from test_cli import _assert_one_line_error, run, run_json

OLD = b"old result, must survive\n"
# every command that writes a file, with the -o name it is given
WRITERS = [
    ("bfs", ["bfs", "grid:4x4", "--source", "0"], "levels.txt"),
    ("bfs", ["bfs", "grid:4x4", "--source", "0", "--parents"], "levels.npy"),
    ("msbfs", ["msbfs", "grid:4x4", "--sources", "0,5"], "levels.txt"),
    ("sssp", ["sssp", "grid:4x4", "--source", "0"], "dist.txt"),
    ("pagerank", ["pagerank", "grid:4x4"], "ranks.txt"),
    ("cc", ["cc", "grid:4x4"], "labels.npy"),
    ("tc", ["tc", "grid:4x4"], "tri.txt.gz"),
    ("convert", ["convert", "grid:4x4"], "g.mtx"),
    ("convert", ["convert", "grid:4x4"], "g.el.gz"),
]
IDS = [f"{c}-{name}" for c, _, name in WRITERS]


def _old(tmp_path, name):
    p = tmp_path / name
    p.write_bytes(OLD)
    return p


def _only(folder, *names):
    """Nothing but ``names`` in ``folder``: no temporary file left."""
    assert sorted(os.listdir(folder)) == sorted(names)


def _no_load(monkeypatch):
    """Loading (and so computing) fails the test: the -o check comes first."""
    def load(s):
        raise AssertionError("the graph was loaded before -o was checked")

    monkeypatch.setattr(cli, "load_graph", load)


def _partial_then(exc):
    """A numpy/scipy writer that writes a few bytes, then raises ``exc``
    (given a name, as the old code passed, it truncates that file first)."""
    def write(target, *args, **kwargs):
        f = open(target, "wb") if isinstance(target, (str, os.PathLike)) else target
        try:
            f.write(b"0\n1\n")
            raise exc
        finally:
            if f is not target:
                f.close()
    return write


def _patch_writers(monkeypatch, exc):
    for mod, name in ((np, "savetxt"), (np, "save"), (scipy.io, "mmwrite")):
        monkeypatch.setattr(mod, name, _partial_then(exc))


def _enospc():
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


# ------------------------------------------------------------- before the work

@pytest.mark.parametrize("command, argv, name", WRITERS, ids=IDS)
def test_missing_directory_is_an_error_before_the_load(capsys, monkeypatch, tmp_path,
                                                        command, argv, name):
    _no_load(monkeypatch)
    out = tmp_path / "no" / "such" / name
    rc, text, err = run(capsys, *argv, "-o", out)
    _assert_one_line_error(rc, text, err, f"{command}: cannot write {out}: no such directory")
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("command, argv, name", WRITERS, ids=IDS)
def test_a_directory_is_an_error_before_the_load(capsys, monkeypatch, tmp_path, command, argv, name):
    _no_load(monkeypatch)
    d = tmp_path / name
    d.mkdir()
    rc, text, err = run(capsys, *argv, "-o", d)
    _assert_one_line_error(rc, text, err, f"{command}: cannot write {d}: is a directory")
    _only(tmp_path, name)


@pytest.mark.parametrize("argv", [["bfs", "grid:4x4"], ["convert", "grid:4x4"]])
def test_parent_not_a_directory_and_empty_name(capsys, monkeypatch, tmp_path, argv):
    _no_load(monkeypatch)
    f = _old(tmp_path, "plain")
    rc, text, err = run(capsys, *argv, "-o", f / "x.mtx")
    _assert_one_line_error(rc, text, err, f"cannot write {f / 'x.mtx'}: ")
    rc, text, err = run(capsys, *argv, "-o", "")
    _assert_one_line_error(rc, text, err, "cannot write : empty file name")
    assert f.read_bytes() == OLD


@pytest.mark.parametrize("command, argv, name", WRITERS[:1] + WRITERS[-2:-1], ids=IDS[:1] + IDS[-2:-1])
def test_unwritable_directory_or_file_is_an_error_before_the_load(capsys, monkeypatch, tmp_path,
                                                                 command, argv, name):
    """Permission denied (os.access says no: the tests may run as root,
    who passes every permission check)."""
    _no_load(monkeypatch)
    real = os.access
    denied = set()
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: os.path.abspath(p) not in denied
                        and real(p, mode, **kw))
    denied.add(str(tmp_path))
    out = tmp_path / name
    rc, text, err = run(capsys, *argv, "-o", out)
    _assert_one_line_error(rc, text, err, f"{command}: cannot write {out}: permission denied (directory")
    denied.clear()
    old = _old(tmp_path, name)
    denied.add(str(old))
    rc, text, err = run(capsys, *argv, "-o", out)
    _assert_one_line_error(rc, text, err, f"{command}: cannot write {out}: permission denied "
                                          "(the file is read-only)")
    assert old.read_bytes() == OLD
    _only(tmp_path, name)


# ------------------------------------------------------------- during the write

@pytest.mark.parametrize("command, argv, name", WRITERS, ids=IDS)
def test_disk_full_in_fsync_keeps_the_old_file(capsys, monkeypatch, tmp_path, command, argv, name):
    """ENOSPC can come as late as fsync (delayed allocation): still the old
    file, no temporary file, one line naming the file."""
    old = _old(tmp_path, name)

    def fsync(fd):
        raise _enospc()

    monkeypatch.setattr(os, "fsync", fsync)
    rc, text, err = run(capsys, *argv, "-o", old)
    _assert_one_line_error(rc, text, err, f"{command}: cannot write {old}: No space left on device")
    assert old.read_bytes() == OLD
    _only(tmp_path, name)


@pytest.mark.parametrize("command, argv, name", [w for w in WRITERS if not w[2].startswith("g.el")],
                         ids=[i for i, w in zip(IDS, WRITERS) if not w[2].startswith("g.el")])
def test_disk_full_in_a_write_keeps_the_old_file(capsys, monkeypatch, tmp_path, command, argv, name):
    old = _old(tmp_path, name)
    _patch_writers(monkeypatch, _enospc())
    rc, text, err = run(capsys, *argv, "-o", old)
    _assert_one_line_error(rc, text, err, f"{command}: cannot write {old}: No space left on device")
    assert old.read_bytes() == OLD
    _only(tmp_path, name)


def test_disk_full_writing_an_edge_list_keeps_the_old_file(capsys, monkeypatch, tmp_path):
    """write_edgelist writes chunk by chunk: the disk fills after the first."""
    old = _old(tmp_path, "g.el")

    def track(self, chunks, label, total=None):
        for i, c in enumerate(chunks):
            if i == 1:
                raise _enospc()
            yield c

    from bitgraph import settings

    monkeypatch.setattr(cli.Progress, "track", track)
    with settings.use(io={"write_chunk": 4}):
        rc, text, err = run(capsys, "convert", "grid:4x4", "-o", old)
    _assert_one_line_error(rc, text, err, f"convert: cannot write {old}: No space left on device")
    assert old.read_bytes() == OLD
    _only(tmp_path, "g.el")


@pytest.mark.parametrize("command, argv, name", WRITERS[:1] + WRITERS[-2:-1], ids=IDS[:1] + IDS[-2:-1])
def test_permission_denied_at_the_write_names_the_file(capsys, monkeypatch, tmp_path,
                                                       command, argv, name):
    """The temporary file cannot be made (EACCES, naming the temporary
    file): the error names the file asked for."""
    import tempfile

    old = _old(tmp_path, name)

    def mkstemp(prefix="", suffix="", dir=None, **kw):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES),
                              os.path.join(dir, f"{prefix}abc{suffix}"))

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    rc, text, err = run(capsys, *argv, "-o", old)
    _assert_one_line_error(rc, text, err, f"{command}: cannot write {old}: Permission denied")
    assert ".bitgraph-" not in err
    assert old.read_bytes() == OLD
    _only(tmp_path, name)


@pytest.mark.parametrize("command, argv, name", [w for w in WRITERS if not w[2].startswith("g.el")],
                         ids=[i for i, w in zip(IDS, WRITERS) if not w[2].startswith("g.el")])
def test_ctrl_c_during_the_write_keeps_the_old_file(capsys, monkeypatch, tmp_path, command, argv, name):
    old = _old(tmp_path, name)
    _patch_writers(monkeypatch, KeyboardInterrupt())
    rc, text, err = run(capsys, *argv, "-o", old)
    assert rc == 130 and err == ""
    assert old.read_bytes() == OLD
    _only(tmp_path, name)


def test_ctrl_c_in_fsync_keeps_the_old_file(capsys, monkeypatch, tmp_path):
    old = _old(tmp_path, "levels.txt")

    def fsync(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", fsync)
    rc, text, err = run(capsys, "bfs", "grid:4x4", "-o", old)
    assert rc == 130 and err == ""
    assert old.read_bytes() == OLD
    _only(tmp_path, "levels.txt")


# ---------------------------------------------------------- a successful write

@pytest.mark.parametrize("command, argv, name", WRITERS, ids=IDS)
def test_write_replaces_keeps_permissions_and_syncs(capsys, monkeypatch, tmp_path, command, argv, name):
    old = _old(tmp_path, name)
    os.chmod(old, 0o604)
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    r = run_json(capsys, *argv, "-o", old)
    assert r["command"] == command
    assert old.read_bytes() != OLD and old.stat().st_size > 0
    assert stat.S_IMODE(old.stat().st_mode) == 0o604
    assert synced  # the bytes reached the disk before the rename
    _only(tmp_path, name)


@pytest.mark.parametrize("command, argv, name", WRITERS, ids=IDS)
def test_a_symlink_is_written_through(capsys, tmp_path, command, argv, name):
    real_dir, link_dir = tmp_path / "real", tmp_path / "links"
    real_dir.mkdir()
    link_dir.mkdir()
    target = _old(real_dir, name)
    link = link_dir / name
    os.symlink(os.path.relpath(target, link_dir), link)
    run_json(capsys, *argv, "-o", link)
    assert link.is_symlink() and os.path.realpath(link) == str(target)
    assert target.read_bytes() != OLD
    _only(real_dir, name)
    _only(link_dir, name)


def test_results_read_back(capsys, tmp_path):
    """The text, .gz and .npy outputs are what the old writes gave."""
    import gzip

    p = tmp_path / "levels.txt.gz"
    run_json(capsys, "bfs", "grid:1x4", "--source", "0", "-o", p)
    with gzip.open(p, "rt") as f:
        assert f.read().splitlines()[1:] == ["0", "1", "2", "3"]
    p = tmp_path / "levels.npy"
    run_json(capsys, "bfs", "grid:1x4", "--source", "0", "--parents", "-o", p)
    np.testing.assert_array_equal(np.load(p), [[0, 0], [1, 0], [2, 1], [3, 2]])
    assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~_umask()


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m


# ------------------------------------------------------------ the helper itself

def test_atomic_write_names_the_file_and_cleans_up(tmp_path):
    p = _old(tmp_path, "x.txt")

    def full(f):
        f.write(b"half")
        raise _enospc()

    with pytest.raises(OSError) as e:
        atomic.atomic_write(p, full)
    assert e.value.errno == errno.ENOSPC and e.value.filename == str(p)
    assert p.read_bytes() == OLD
    _only(tmp_path, "x.txt")
    with pytest.raises(KeyboardInterrupt):
        atomic.atomic_write(p, lambda f: (f.write(b"half"), (_ for _ in ()).throw(KeyboardInterrupt)))
    assert p.read_bytes() == OLD
    _only(tmp_path, "x.txt")
    # an error naming another file is left as it is
    with pytest.raises(FileNotFoundError) as e:
        atomic.atomic_write(p, lambda f: open(tmp_path / "elsewhere" / "y"))
    assert e.value.filename == str(tmp_path / "elsewhere" / "y")


def test_atomic_write_dangling_symlink_creates_the_target(tmp_path):
    link = tmp_path / "link"
    os.symlink("made.txt", link)
    atomic.atomic_write(link, lambda f: f.write(b"new"))
    assert link.is_symlink() and (tmp_path / "made.txt").read_bytes() == b"new"


def test_dup_op_combines_a_repeated_edge(capsys, tmp_path):
    """A file listing an edge twice is an error naming the line unless
    --dup-op says how to combine the two (the readers' GraphBLAS rule)."""
    from test_cli import run, run_json

    f = tmp_path / "dup.el"
    f.write_text("0 1\n1 2\n0 1\n")
    rc, out, err = run(capsys, "bfs", str(f), "--device", "cpu")
    assert rc != 0 and "dup.el" in err and "3" in err
    r = run_json(capsys, "bfs", str(f), "--device", "cpu", "--dup-op", "first", "--source", 0)
    assert r["result"]["reached"] == 3
    rc, out, err = run(capsys, "bfs", "kron:6", "--dup-op", "plus")
    assert rc == 2 and "--dup-op" in err
