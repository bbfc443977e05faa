"""The committed test graphs: ``tests/data/README.md`` lists exactly the files
of ``tests/data`` with their sizes; a missing file is an error, not a skip."""

import re

import pytest

from testdata import DATA, MissingTestData, data_file, data_files


def _readme_rows(folder=DATA):
    rows = {}
    for line in (folder / "README.md").read_text().splitlines():
        m = re.match(r"\| ([\w.-]+\.mtx) \| (\d+) \|", line)
        if m:
            rows[m.group(1)] = int(m.group(2))
    return rows


def test_readme_lists_every_file_with_its_size():
    on_disk = {p.name: p.stat().st_size for p in DATA.glob("*.mtx")}
    assert _readme_rows() == on_disk
    assert set(p.name for p in DATA.iterdir()) == set(on_disk) | {"README.md", "lagraph"}
    # tests/data/lagraph: LAGraph's reader conformance files, with their own list
    sub = DATA / "lagraph"
    assert _readme_rows(sub) == {p.name: p.stat().st_size for p in sub.glob("*.mtx")}
    assert set(p.name for p in sub.iterdir()) == set(_readme_rows(sub)) | {"README.md"}


def test_missing_file_fails_loudly():
    with pytest.raises(MissingTestData, match="'nosuch.mtx' not found"):
        data_file("nosuch.mtx")
    with pytest.raises(MissingTestData, match="no test data file matches"):
        data_files("nosuch*.mtx")
    assert data_file("karate.mtx") == DATA / "karate.mtx"
    assert "karate.mtx" in data_files() and "mangled1.mtx" not in data_files(exclude="mangled*")

