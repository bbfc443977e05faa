#!/usr/bin/env bash
# Packaging check: build the wheel and the sdist, install the wheel into a
# fresh venv (no source tree on the path), and run a smoke test there:
# import without a GPU, one BFS, the CUDA sources and the LICENSE shipped,
# and NetworkX's dispatch to the backend. A missing package file or
# dependency fails here.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
# where nvcc exists the wheel must ship the precompiled CUDA modules
# (setup.py's build_py; BITGRAPH_PRECOMPILE=1 makes a failed build an error)
nvcc_here=0
if command -v nvcc >/dev/null 2>&1; then nvcc_here=1; export BITGRAPH_PRECOMPILE=1; fi
t0=$(date +%s)
python3 -m pip wheel --quiet --disable-pip-version-check --no-deps -w "$out/dist" .
echo "wheel build (precompile: $nvcc_here): $(( $(date +%s) - t0 )) s"
python3 -m venv "$out/venv"
# the sdist with the build requirement of pyproject.toml (PEP 639 license
# fields need setuptools >= 77), in the fresh venv
"$out/venv/bin/pip" install --quiet --disable-pip-version-check 'setuptools>=77'
"$out/venv/bin/python" - "$out/dist" "$nvcc_here" <<'PY'
import json, pathlib, sys, tarfile, zipfile
nvcc_here = sys.argv[2] == "1"  # read first: build_meta rewrites sys.argv
# the sdist: setuptools' build_meta, as `python -m build --sdist` runs it
from setuptools import build_meta
dist = pathlib.Path(sys.argv[1])
sdist = dist / build_meta.build_sdist(sys.argv[1])
names = tarfile.open(sdist).getnames()
assert any(n.endswith("kernels/cuda/scalar.cuh") for n in names), "sdist lacks the CUDA sources"
assert any(n.endswith("/LICENSE") for n in names), "sdist lacks LICENSE"
print("sdist ok:", sdist.name, len(names), "files")
# the wheel: LICENSE in its .dist-info, the SPDX expression in its metadata
wheel = zipfile.ZipFile(next(dist.glob("*.whl")))
lic = [n for n in wheel.namelist() if ".dist-info/" in n and n.endswith("/LICENSE")]
assert lic, "wheel lacks LICENSE"
assert b"BSD 3-Clause License" in wheel.read(lic[0]), lic[0]
meta = wheel.read(next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))).decode()
assert "License-Expression: BSD-3-Clause" in meta.splitlines(), "wheel metadata lacks the license"
print("wheel ok:", lic[0])
# the precompiled CUDA modules: one fatbin per source and its names JSON,
# every kernel of modules.json lowered, keyed by the source's hash
cu = "bitgraph/kernels/cuda/"
files = set(wheel.namelist())
specs = json.loads(wheel.read(cu + "modules.json"))
assert sorted(specs) == sorted(n[len(cu):] for n in files
                               if n.startswith(cu) and n.endswith(".cu")), "modules.json"
shipped = [n for n in files if n.startswith(cu + "precompiled/")]
if nvcc_here:
    size = 0
    for source, names in specs.items():
        stem = cu + "precompiled/" + source[:-3]
        assert stem + ".fatbin" in files, f"wheel lacks {stem}.fatbin"
        meta = json.loads(wheel.read(stem + ".json"))
        assert meta["source"] == source and len(meta["key"]) == 32, stem
        assert sorted(meta["lowered"]) == sorted(names), f"{stem}.json: names differ"
        assert wheel.read(stem + ".fatbin")[:4] == bytes.fromhex("50ed55ba"), stem
        size += wheel.getinfo(stem + ".fatbin").compress_size
    print(f"precompiled ok: {len(specs)} fatbins, {size / 2**20:.1f} MiB in the wheel")
else:
    print(f"precompiled: no nvcc here, {len(shipped)} files shipped from the tree")
PY
"$out/venv/bin/pip" install --quiet --disable-pip-version-check "$out"/dist/*.whl networkx
cd "$out"
"$out/venv/bin/python" - <<'PY'
import importlib.resources as res
import numpy as np
import bitgraph as bg
assert "site-packages" in bg.__file__, bg.__file__
assert res.files("bitgraph.kernels.cuda").joinpath("scalar.cuh").is_file()
A = bg.io.generators.from_spec("grid:8x8")
levels = bg.algorithms.bfs(A, 0)
assert levels.to_dense(-1).max() == 14
print("wheel smoke ok:", bg.__file__, "| device", bg.get_device())
try:
    import networkx as nx
    backends = nx.utils.backends.backends
except Exception as e:
    raise SystemExit(f"networkx: {e}")
if "bitgraph" in backends:
    G = nx.karate_club_graph()
    pr = nx.pagerank(G, backend="bitgraph")
    ref = nx.pagerank(G)
    assert max(abs(pr[k] - ref[k]) for k in ref) < 1e-6
    print("networkx backend ok: pagerank on karate")
else:
    print("networkx backend: not registered in this build")
PY
rm -rf "$out"
