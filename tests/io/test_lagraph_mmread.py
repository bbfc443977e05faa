"""Every LAGraph test matrix loads as LAGraph's own reader loads it: the
shapes, entry counts and GraphBLAS types ``src/test/test_MMRead.c`` expects
(its table, copied below), and every file that test expects LAGraph_MMRead
to reject raises a ``FormatError`` here (naming the file)."""

from __future__ import annotations

import numpy as np
import pytest

import bitgraph as bg
from testdata import DATA

# (nrows, ncols, entries, GraphBLAS type, file): test_MMRead.c's files[]
LOADS = [
    (7, 7, 30, "bool", "A.mtx"),
    (7, 7, 12, "int32_t", "cover.mtx"),
    (7, 7, 12, "bool", "cover_structure.mtx"),
    (1138, 1138, 7450, "bool", "jagmesh7.mtx"),
    (8, 8, 18, "bool", "ldbc-cdlp-directed-example.mtx"),
    (8, 8, 24, "bool", "ldbc-cdlp-undirected-example.mtx"),
    (10, 10, 17, "bool", "ldbc-directed-example-bool.mtx"),
    (10, 10, 17, "double", "ldbc-directed-example.mtx"),
    (10, 10, 17, "bool", "ldbc-directed-example-unweighted.mtx"),
    (9, 9, 24, "bool", "ldbc-undirected-example-bool.mtx"),
    (9, 9, 24, "double", "ldbc-undirected-example.mtx"),
    (9, 9, 24, "bool", "ldbc-undirected-example-unweighted.mtx"),
    (10, 10, 30, "int64_t", "ldbc-wcc-example.mtx"),
    (14, 14, 46, "double", "LFAT5.mtx"),
    (6, 6, 8, "int64_t", "msf1.mtx"),
    (8, 8, 12, "int64_t", "msf2.mtx"),
    (5, 5, 7, "int64_t", "msf3.mtx"),
    (8, 8, 28, "bool", "sample2.mtx"),
    (8, 8, 12, "bool", "sample.mtx"),
    (64, 1, 64, "int64_t", "sources_7.mtx"),
    (1000, 1000, 3996, "double", "olm1000.mtx"),
    (2003, 2003, 83883, "double", "bcsstk13.mtx"),
    (2500, 2500, 12349, "double", "cryg2500.mtx"),
    (6, 6, 10, "int64_t", "tree-example.mtx"),
    (67, 67, 294, "double", "west0067.mtx"),
    (27, 51, 102, "double", "lp_afiro.mtx"),
    (27, 51, 102, "bool", "lp_afiro_structure.mtx"),
    (34, 34, 156, "bool", "karate.mtx"),
    (7, 7, 12, "bool", "matrix_bool.mtx"),
    (7, 7, 12, "int8_t", "matrix_int8.mtx"),
    (7, 7, 12, "int16_t", "matrix_int16.mtx"),
    (7, 7, 12, "int32_t", "matrix_int32.mtx"),
    (7, 7, 12, "int64_t", "matrix_int64.mtx"),
    (7, 7, 12, "uint8_t", "matrix_uint8.mtx"),
    (7, 7, 12, "uint16_t", "matrix_uint16.mtx"),
    (7, 7, 12, "uint32_t", "matrix_uint32.mtx"),
    (7, 7, 12, "uint64_t", "matrix_uint64.mtx"),
    (7, 7, 12, "float", "matrix_fp32.mtx"),
    (7, 7, 12, "bool", "matrix_fp32_structure.mtx"),
    (7, 7, 12, "double", "matrix_fp64.mtx"),
    (67, 67, 294, "double", "west0067_jumbled.mtx"),
    (6, 6, 20, "float", "skew_fp32.mtx"),
    (6, 6, 20, "double", "skew_fp64.mtx"),
    (6, 6, 20, "int8_t", "skew_int8.mtx"),
    (6, 6, 20, "int16_t", "skew_int16.mtx"),
    (6, 6, 20, "int32_t", "skew_int32.mtx"),
    (6, 6, 20, "int64_t", "skew_int64.mtx"),
    (7, 7, 12, "int32_t", "structure.mtx"),
    (3, 3, 9, "double", "full.mtx"),
    (4, 4, 16, "double", "full_symmetric.mtx"),
    (3, 4, 0, "int32_t", "empty.mtx"),
]

# test_MMRead.c's mangled_files[] (its expected GrB error beside each)
REJECTS = [
    "mangled1.mtx",  # LAGRAPH_IO_ERROR
    "mangled2.mtx",  # LAGRAPH_IO_ERROR
    "mangled3.mtx",  # LAGRAPH_IO_ERROR
    "complex.mtx",  # GrB_NOT_IMPLEMENTED
    "mangled4.mtx",  # LAGRAPH_IO_ERROR
    "mangled5.mtx",  # LAGRAPH_IO_ERROR
    "mangled6.mtx",  # LAGRAPH_IO_ERROR
    "mangled7.mtx",  # LAGRAPH_IO_ERROR
    "mangled8.mtx",  # LAGRAPH_IO_ERROR
    "mangled9.mtx",  # LAGRAPH_IO_ERROR
    "mangled10.mtx",  # LAGRAPH_IO_ERROR
    "mangled11.mtx",  # LAGRAPH_IO_ERROR
    "mangled12.mtx",  # LAGRAPH_IO_ERROR
    "mangled13.mtx",  # GrB_INDEX_OUT_OF_BOUNDS
    "mangled14.mtx",  # GrB_INVALID_VALUE
    "mangled_bool.mtx",  # LAGRAPH_IO_ERROR
    "mangled_int8.mtx",  # LAGRAPH_IO_ERROR
    "mangled_int16.mtx",  # LAGRAPH_IO_ERROR
    "mangled_int32.mtx",  # LAGRAPH_IO_ERROR
    "mangled_uint8.mtx",  # LAGRAPH_IO_ERROR
    "mangled_uint16.mtx",  # LAGRAPH_IO_ERROR
    "mangled_uint32.mtx",  # LAGRAPH_IO_ERROR
    "mangled_skew.mtx",  # LAGRAPH_IO_ERROR
    "mangled15.mtx",  # GrB_NOT_IMPLEMENTED
    "mangled16.mtx",  # GrB_NOT_IMPLEMENTED
    "mangled_format.mtx",  # LAGRAPH_IO_ERROR
]

TYPES = {"bool": np.bool_, "int8_t": np.int8, "int16_t": np.int16, "int32_t": np.int32,
         "int64_t": np.int64, "uint8_t": np.uint8, "uint16_t": np.uint16,
         "uint32_t": np.uint32, "uint64_t": np.uint64, "float": np.float32,
         "double": np.float64}


def _path(name):
    p = DATA / name
    return p if p.exists() else DATA / "lagraph" / name


@pytest.mark.parametrize("nrows, ncols, entries, gb_type, name", LOADS, ids=[r[-1] for r in LOADS])
def test_loads_as_lagraph(nrows, ncols, entries, gb_type, name):
    A = bg.io.read(_path(name))
    assert (A.nrows, A.ncols, A.nvals) == (nrows, ncols, entries)
    assert A.dtype == np.dtype(TYPES[gb_type])


@pytest.mark.parametrize("name", REJECTS)
def test_rejects_as_lagraph(name):
    path = _path(name)
    with pytest.raises(bg.FormatError) as e:
        bg.io.read(path)
    assert str(path) in str(e.value)
