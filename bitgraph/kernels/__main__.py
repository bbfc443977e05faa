"""``python -m bitgraph.kernels [device]``: print the kernel registry."""

import sys

from bitgraph.kernels import registry


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    device = argv[0] if argv else None
    rows = registry.table(device)
    head = ("op", "fmt", "device", "variant", "launcher")
    widths = [max(len(str(r[c])) for r in rows + [head]) for c in range(5)]
    for row in [head] + rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(row, widths)).rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
