"""The test graphs: where they are, and the one way tests find them.

``tests/data/`` holds the Matrix Market files the tests read (LAGraph's test
data; ``tests/data/README.md`` lists each file, what it exercises and its
licence). They live in the repository, so a clone alone runs every test. Test
modules import from here (``conftest.py`` puts ``tests/`` on ``sys.path``)::

    from testdata import DATA, data_file, data_files

A missing file is an error, never a skip: a test that cannot find its graph
fails and names the file.
"""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


class MissingTestData(FileNotFoundError):
    """A test asked for a graph that ``tests/data`` does not hold."""


def data_file(name: str) -> Path:
    """The path of ``tests/data/<name>``; raises ``MissingTestData`` if absent.

    >>> data_file("karate.mtx").name
    'karate.mtx'
    >>> data_file("nosuch.mtx")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    testdata.MissingTestData: test data file 'nosuch.mtx' not found in .../tests/data (every file the tests read is committed there)
    """
    path = DATA / name
    if not path.is_file():
        raise MissingTestData(
            f"test data file {name!r} not found in {DATA} "
            "(every file the tests read is committed there)")
    return path


def data_files(pattern: str = "*.mtx", *, exclude: str | None = None) -> list[str]:
    """Sorted names of the files of ``tests/data`` matching ``pattern`` (less
    those matching ``exclude``); raises ``MissingTestData`` if none match, so a
    parametrized test never collects zero cases silently.

    >>> data_files("mangled*.mtx")
    ['mangled1.mtx', 'mangled10.mtx', 'mangled5.mtx', 'mangled8.mtx']
    >>> "mangled1.mtx" in data_files(exclude="mangled*")
    False
    """
    names = sorted(p.name for p in DATA.glob(pattern)
                   if p.is_file() and not (exclude and p.match(exclude)))
    if not names:
        raise MissingTestData(f"no test data file matches {pattern!r} in {DATA}")
    return names

