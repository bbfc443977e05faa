"""``python -m bitgraph.kernels [device] [--settings]``: print the kernel
registry (with each launcher's source files), or every setting."""

import argparse
import sys

from bitgraph.kernels import registry


def _print(rows, head):
    widths = [max(len(str(r[c])) for r in rows + [head]) for c in range(len(head))]
    for row in [head] + rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(row, widths)).rstrip())


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m bitgraph.kernels",
                                description="The kernel registry, or every setting.")
    p.add_argument("device", nargs="?", choices=("cpu", "cuda"), help="only this device's kernels")
    p.add_argument("--settings", action="store_true",
                   help="list every setting: family, field, value, rule")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    if args.settings:
        from bitgraph import settings

        _print([(f, k, repr(v), doc) for f, k, v, doc in settings.table()],
               ("family", "field", "value", "rule"))
        return 0
    rows = [row + (_source(row[4]),) for row in registry.table(args.device)]
    _print(rows, ("op", "fmt", "device", "variant", "launcher", "source"))
    return 0


def _source(launcher: str) -> str:
    """The file a launcher's kernels are in: the CUDA source beside a CUDA
    launcher module, the numba module itself on the CPU."""
    from pathlib import Path

    module = launcher.rsplit(".", 1)[0]
    rel = Path(*module.split("."))
    here = Path(__file__).resolve().parents[2]
    cu = (here / rel).with_suffix(".cu")
    return str(cu.relative_to(here)) if cu.exists() else str(rel.with_suffix(".py"))


if __name__ == "__main__":
    sys.exit(main())
