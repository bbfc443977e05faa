"""The wheel build's one step beyond pyproject.toml: where nvcc exists, the
CUDA modules are precompiled into fatbins that the wheel ships
(``bitgraph/kernels/cuda/fatbin.py``), so a fresh machine's first GPU call
compiles none of them.

``BITGRAPH_PRECOMPILE=0`` skips the step; ``=1`` makes a missing nvcc an
error (CI); unset, the step runs where nvcc is on PATH. ``BITGRAPH_NVCC``
names another nvcc. An editable install skips it (NVRTC compiles the
sources of the tree).
"""

import importlib.util
import os
import shutil
import time
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

CUDA = Path(__file__).resolve().parent / "bitgraph" / "kernels" / "cuda"


def _fatbin():
    # by path: the build environment has no numpy, and importing the
    # bitgraph package would need it
    spec = importlib.util.spec_from_file_location("_bitgraph_fatbin", CUDA / "fatbin.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class BuildPy(build_py):
    """build_py, then the fatbins into the built package."""

    def run(self):
        super().run()
        want = os.environ.get("BITGRAPH_PRECOMPILE", "")
        if want == "0" or getattr(self, "editable_mode", False):
            return
        nvcc = os.environ.get("BITGRAPH_NVCC") or shutil.which("nvcc")
        if not nvcc:
            if want == "1":
                raise RuntimeError("BITGRAPH_PRECOMPILE=1 but no nvcc on PATH")
            print("bitgraph: no nvcc, the wheel ships no precompiled CUDA modules")
            return
        fatbin = _fatbin()
        out = Path(self.build_lib) / "bitgraph" / "kernels" / "cuda" / fatbin.SHIPPED_DIR
        shutil.rmtree(out, ignore_errors=True)
        t0 = time.perf_counter()
        fatbin.build(out, nvcc=nvcc, directory=CUDA)
        print(f"bitgraph: precompiled CUDA modules in {time.perf_counter() - t0:.1f} s")


setup(cmdclass={"build_py": BuildPy})
