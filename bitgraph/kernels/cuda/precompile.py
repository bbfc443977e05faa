"""Build the precompiled CUDA modules (``fatbin.py`` says what they are)::

    python -m bitgraph.kernels.cuda.precompile OUTDIR [--jobs N] [SOURCE ...]
    python -m bitgraph.kernels.cuda.precompile --specs   # rewrite modules.json

``OUTDIR`` gets ``<stem>.fatbin`` and ``<stem>.json`` per source; the wheel
ships them in ``bitgraph/kernels/cuda/precompiled/`` (``setup.py``), and
``$BITGRAPH_CUDA_PRECOMPILED`` points a process at another folder.
"""

from __future__ import annotations

import json
import sys
import time

from bitgraph.kernels.cuda.fatbin import HERE, SPECS_FILE, build


def collect_specs() -> dict:
    """``{source: [name expression, ...]}`` from the launchers' ``SPECS``
    (imports bitgraph: numpy, no GPU): the union of each source's tuples,
    in first-asked order."""
    import importlib

    from bitgraph.kernels import cuda

    out: dict = {}
    for name in cuda.SPEC_MODULES:
        mod = importlib.import_module(f"bitgraph.kernels.cuda.{name}")
        for source, names in mod.SPECS:
            out.setdefault(source, {}).update(dict.fromkeys(names))
    return {source: list(names) for source, names in sorted(out.items())}


def main(argv=None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m bitgraph.kernels.cuda.precompile",
                                description=__doc__.splitlines()[0])
    p.add_argument("outdir", nargs="?", help="where the fatbins and their JSON go")
    p.add_argument("sources", nargs="*", help="only these sources (default: all)")
    p.add_argument("--jobs", type=int, default=None, help="nvcc processes at once")
    p.add_argument("--nvcc", default="nvcc")
    p.add_argument("--specs", action="store_true",
                   help=f"rewrite {SPECS_FILE} from the launchers' SPECS and stop")
    a = p.parse_args(argv)
    if a.specs:
        (HERE / SPECS_FILE).write_text(json.dumps(collect_specs(), indent=1) + "\n")
        print(f"wrote {HERE / SPECS_FILE}")
        return 0
    if not a.outdir:
        p.error("OUTDIR is required")
    t0 = time.perf_counter()
    build(a.outdir, a.sources, a.jobs, a.nvcc)
    print(f"precompile: {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
