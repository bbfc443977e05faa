"""The ``bitgraph`` command line (also ``python -m bitgraph``).

::

    bitgraph bfs kron:16                     BFS from a vertex of largest out-degree
    bitgraph bfs graph.mtx --method blest --source 0 --parents --json
    bitgraph msbfs urand:16 --sources 64
    bitgraph sssp road.el --weights random:1:100 --seed 3
    bitgraph pagerank web.txt.gz --check     (--alpha, --tol, --max-iter)
    bitgraph cc graph.mtx                    connected components (weak if directed)
    bitgraph tc kron:14                      triangles
    bitgraph info graph.mtx                  sizes, degrees, B2SR / BVSS statistics
    bitgraph convert graph.txt -o graph.mtx  (or -o graph.el, .gz either)
    bitgraph bench kron:18 --algo bfs --repeat 10
    bitgraph --scale 16                      the demo: bfs kron:16 --check

GRAPH is a file read by :func:`bitgraph.io.read` (``.mtx``, ``.txt``,
``.el``, ... and their ``.gz``) or a generator spec of
:func:`bitgraph.io.generators.from_spec` (``kron:20``, ``urand:20:16``,
``grid:2048x2048``, ``rgg:100000:0.01``, ``...@SEED``).

Each algorithm command prints a short summary and the time split into
*load* (read or generate), *build* (the derived formats the method reads:
transpose, B2SR, BVSS with its reordering, ..., built explicitly and timed
one by one before the compute) and *compute* (one run, after ``--warmup``
untimed runs: numba loads or compiles its kernels on the first call).
GTEPS = edges traversed / compute seconds, where the edges traversed are the
stored entries in the rows of the reached vertices (the out-edges of the
reached component; an undirected edge counts twice, once per direction).

``--device``: bfs (every method: auto, pull, push, direction, blest,
async, window, hops) and msbfs (and ``bench --algo bfs|msbfs``) run on the
GPU with ``cuda``, and with ``auto`` (the default) when CUDA is usable; bfs
``--method async``, ``--method window`` and ``--method hops`` run on the
GPU only. The graph
is loaded on the host, copied to the GPU (a *build* step, ``to-cuda``)
and the result copied back after the timed run, whose time ends with a
device synchronisation. The
other commands (sssp, pagerank, cc, tc, info, convert) run on the CPU only
today: ``auto`` picks the CPU for them, and ``--device cuda`` is an error
naming the command rather than a silent CPU run. ``--device cuda`` without
a usable GPU is an error naming why (CuPy missing, no GPU). The methods and
the CUDA lists are those of the algorithms' modules (``METHODS``,
``bitgraph.algorithms.breadth_first.METHODS_CUDA``): the help text is built from them.

``--check`` validates the result with :mod:`bitgraph.validate` (the
checkers the tests use): levels against scipy.sparse.csgraph, parents as a
BFS tree, components as a partition, and so on.

``--json`` prints one JSON object instead; ``--quiet`` only silences the
progress display, which appears on stderr only when stderr is a terminal.
``-o FILE`` (the result of an algorithm command, convert's graph) is
checked before any work (its directory exists and is writable, it is not a
directory) and written all at once (:func:`bitgraph.io.atomic.atomic_write`:
a temporary file beside it, fsync, rename; an existing file keeps its
permissions, a symbolic link is written through): a full disk or Ctrl-C
leaves the old file intact and no temporary file, and the error names FILE.
Bad arguments and bad files end with one line on stderr and exit status 2;
a failed ``--check`` exits 1; Ctrl-C exits 130.

:func:`main` takes the argument list and returns the exit status, so the
commands can run in-process::

    >>> import bitgraph.cli
    >>> bitgraph.cli.main(["bfs", "grid:3x3", "--source", "0", "--json"])  # doctest: +ELLIPSIS
    {"command": "bfs", "graph": "grid:3x3", "input": "generator", "n": 9, "m": 24, ...}
    0
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import re
import sys
import time

import numpy as np

from . import _array
from ._progress import Progress

__all__ = ["main", "COMMANDS"]

PROG = "bitgraph"

COMMANDS = {
    "bfs": "breadth-first search levels (and parents) from one source",
    "msbfs": "many BFSs at once (iBFS bit lanes), one per source",
    "sssp": "single-source shortest paths (BFS levels on an unweighted graph)",
    "pagerank": "PageRank (networkx semantics)",
    "cc": "connected components (weakly connected for a directed graph)",
    "tc": "triangle count (the graph taken as undirected)",
    "info": "size, degrees, social-likeness, B2SR and BVSS statistics",
    "convert": "write the graph as Matrix Market (.mtx) or an edge list (.el)",
    "bench": "repeated timed runs of one algorithm (median, min, GTEPS)",
}
ALGORITHMS = ("bfs", "msbfs", "sssp", "pagerank", "cc", "tc")
TRAVERSALS = ("bfs", "msbfs", "sssp")
# commands whose algorithm takes a CUDA matrix (bfs: the methods of
# bitgraph.algorithms.breadth_first.METHODS_CUDA; the others: every method);
# info and convert run on the CPU only
CUDA_COMMANDS = ALGORITHMS

# command -> (module in bitgraph.algorithms, function)
_FUNCTIONS = {
    "bfs": ("breadth_first", "bfs"),
    "msbfs": ("multi_source", "msbfs"),
    "sssp": ("shortest_paths", "sssp"),
    "pagerank": ("link_analysis", "pagerank"),
    "cc": ("components", "connected_components"),
    "tc": ("triangles", "triangle_count"),
}
# commands with a method= keyword: those whose module has a METHODS tuple
# (bitgraph.algorithms.breadth_first.METHODS, shortest_paths.METHODS, ...), read from there
_METHOD_COMMANDS = ("bfs", "sssp", "cc", "tc")

_TIMES_NOTE = (
    "Prints the result and the time split: load (read or generate GRAPH), build (the "
    "formats the method reads, each built and timed apart: transpose, BVSS with its "
    "reordering, ...) and compute (one run, after --warmup untimed runs). GTEPS = edges "
    "traversed / compute seconds, the edges traversed being the stored entries in the rows "
    "of the reached vertices (an undirected edge counts once per direction). A progress "
    "display appears on stderr only when it is a terminal (not with --json or --quiet; "
    "BITGRAPH_PROGRESS=0/1 forces it off/on). Exit status: 0 ok, 1 --check failed, 2 bad "
    "arguments or input, 130 interrupted.")
_REORDERS = ("none", "natural", "auto", "rcm", "degree", "gorder", "jaccard", "blest")
_SPEC_START = re.compile(r"(kronh|urandh|kron|urand|grid|rgg):", re.IGNORECASE)
_MTX_OUT = (".mtx", ".mm")
_EDGELIST_OUT = (".el", ".txt", ".edges", ".edgelist", ".tsv", ".csv", ".snap")


class UsageError(Exception):
    """A bad argument or input: one line on stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line (raised, so main() can
    return the status instead of exiting)."""

    def error(self, message):
        raise UsageError(f"{message} (see '{self.prog} --help')")


# --------------------------------------------------------------------- entry

def main(argv=None) -> int:
    """Run the command line on ``argv`` (default ``sys.argv[1:]``); return
    the exit status (0 ok, 1 ``--check`` failed, 2 bad arguments or input,
    130 interrupted)."""
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    from .errors import BitgraphError, ValidationError

    try:
        return _run(argv)
    except KeyboardInterrupt:
        return 130
    except SystemExit as e:  # --help, --version
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    except ValidationError as e:  # --check found a difference
        _say(f"{PROG}: check failed: {_one_line(e)}")
        return 1
    except (UsageError, BitgraphError) as e:
        _say(f"{PROG}: error: {_one_line(e)}")
        return 2
    except OSError as e:
        if isinstance(e, BrokenPipeError):  # stdout closed early (| head)
            _silence_stdout()
            return 0
        _say(f"{PROG}: error: {_os_message(e)}")
        return 2
    except MemoryError:
        _say(f"{PROG}: error: out of memory")
        return 1


def _say(msg):
    print(msg, file=sys.stderr, flush=True)


_MAX_MESSAGE = 300  # characters: a binary file's "line" can be kilobytes


def _one_line(e) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= _MAX_MESSAGE else text[:_MAX_MESSAGE] + " ..."


def _os_message(e: OSError) -> str:
    what = e.strerror or str(e)
    name = e.filename if e.filename is not None else ""
    return f"{name}: {what}" if name else what


def _silence_stdout():
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (tests)
        pass


# -------------------------------------------------------------------- parsing

def _demo_parser():
    p = _Parser(prog=PROG, description="The BFS demo: bfs kron:SCALE --check (see 'bitgraph --help').")
    p.add_argument("--scale", type=int, default=16, help="kron graph with 2^SCALE vertices (default 16)")
    p.add_argument("--source", default=None, help="as for bfs (default: a vertex of largest out-degree)")
    p.add_argument("--method", default="auto", help="as for bfs (default auto)")
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"),
                   help="as for bfs (default auto: the GPU when CUDA is usable)")
    p.add_argument("--json", action="store_true")
    p.add_argument("-q", "--quiet", action="store_true")
    return p


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (``bitgraph --help``)."""
    from . import __version__

    top = _Parser(
        prog=PROG,
        description="bitgraph: graph algorithms on GraphBLAS-style sparse linear algebra.",
        epilog=("GRAPH is a file (.mtx, .txt, .el, ... or .gz of them) or a generator spec: "
                "kron:SCALE[:EDGEFACTOR], urand:SCALE[:DEGREE], grid:ROWSxCOLS[:DROP], "
                "grid:NXxNYxNZ, rgg:N:RADIUS, each with an optional @SEED. "
                "Without a command, 'bitgraph [--scale S] [--source V] [--method M]' runs the "
                "BFS demo 'bitgraph bfs kron:S --check' (S = 16 by default): BFS levels "
                "checked against scipy.sparse.csgraph. 'bitgraph COMMAND --help' for a "
                "command's options."),
    )
    top.add_argument("--version", action="version", version=f"bitgraph {__version__}")
    sub = top.add_subparsers(dest="command", metavar="COMMAND",
                             title="commands", parser_class=_Parser)

    graph = _Parser(add_help=False)
    g = graph.add_argument_group("input")
    g.add_argument("graph", metavar="GRAPH", help="a graph file or a generator spec (kron:16)")
    g.add_argument("--undirected", action="store_true",
                   help="edge-list files: add the reverse of every edge")
    g.add_argument("--one-based", action="store_true",
                   help="edge-list files: vertex ids start at 1")
    g.add_argument("--dup-op", default=None, metavar="OP",
                   help="files: combine an entry or edge listed twice with OP (plus, min, max, "
                        "first, ...); without it a repeat is an error, as in GraphBLAS")

    common = _Parser(add_help=False)
    c = common.add_argument_group("output")
    c.add_argument("--json", action="store_true", help="print one JSON object (no progress, no text)")
    c.add_argument("-q", "--quiet", action="store_true", help="no progress display on stderr")
    c.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"),
                   help=_device_help())

    run = _Parser(add_help=False)
    r = run.add_argument_group("run")
    r.add_argument("--seed", type=int, default=0, help="seed of --source random, --sources, --weights (default 0)")
    r.add_argument("--warmup", type=_nonneg_int, default=1, metavar="N",
                   help="untimed runs before the timed one (default 1; the first call "
                        "loads or compiles the numba kernels)")

    def add(name, *parents):
        return sub.add_parser(name, parents=[graph, common, *parents], help=COMMANDS[name],
                              description=COMMANDS[name],
                              epilog=_TIMES_NOTE if name in ALGORITHMS or name == "bench" else None)

    def source(p):
        p.add_argument("--source", default=None,
                       help="vertex id, 'random' (a random vertex with out-edges, --seed) or "
                            "'max-degree' (default: a vertex of largest out-degree)")

    def check(p, what):
        p.add_argument("--check", action="store_true", help=f"compare with {what}; exit 1 on a difference")

    def output(p, what):
        p.add_argument("-o", "--output", metavar="FILE",
                       help=f"write {what}: FILE.npy (numpy) or text, one line per vertex")

    p = add("bfs", run)
    source(p)
    p.add_argument("--method", default="auto", help=_method_help("bfs"))
    p.add_argument("--alpha", type=float, default=None,
                   help="direction: bottom-up when the frontier's out-edges exceed alpha * m")
    p.add_argument("--reorder", default=None, choices=_REORDERS,
                   help="blest: the vertex order of the BVSS (default auto: Blest's rule, "
                        "kept only when it gives fewer VSSs)")
    p.add_argument("--parents", action="store_true", help="also compute a BFS tree")
    check(p, "scipy.sparse.csgraph shortest_path (unweighted)")
    output(p, "the levels (-1: unreached; with --parents, 'level parent')")

    p = add("msbfs", run)
    p.add_argument("--sources", default="64",
                   help="N (N random vertices with out-edges, --seed) or a list 0,5,9 (default 64)")
    p.add_argument("--batch", type=_pos_int, default=64, help="sources per bit-lane batch (default 64)")
    p.add_argument("--groupby", action="store_true", help="iBFS GroupBy of the sources")
    check(p, "scipy.sparse.csgraph shortest_path (unweighted)")
    output(p, "the levels, one line per source (-1: unreached)")

    p = add("sssp", run)
    source(p)
    p.add_argument("--method", default="auto", help=_method_help("sssp"))
    p.add_argument("--delta", type=float, default=None, help="delta-stepping bucket width")
    p.add_argument("--weights", default=None, metavar="random:LO:HI",
                   help="random edge weights in [LO, HI] (integers if both are, else floats; "
                        "the same weight both ways; --seed), replacing the file's")
    check(p, "scipy.sparse.csgraph dijkstra")
    output(p, "the distances (inf: unreached)")

    p = add("pagerank", run)
    p.add_argument("--alpha", type=float, default=0.85, help="damping factor (default 0.85)")
    p.add_argument("--tol", type=float, default=1e-6, help="converged when an iteration's L1 change is below n * tol, "
                        "NetworkX's rule (default 1e-6)")
    p.add_argument("--max-iter", type=_pos_int, default=100, help="iteration limit (default 100)")
    p.add_argument("--top", type=_nonneg_int, default=5, help="vertices listed (default 5)")
    check(p, "a reference power iteration (L1 distance within 2 alpha / (1 - alpha) * n * tol)")
    output(p, "the ranks")

    p = add("cc", run)
    p.add_argument("--method", default="auto", help=_method_help("cc"))
    check(p, "scipy.sparse.csgraph connected_components (weak)")
    output(p, "the labels (smallest vertex id of the component)")

    p = add("tc", run)
    p.add_argument("--method", default="auto", help=_method_help("tc"))
    p.add_argument("--relabel", default="auto", choices=("auto", "yes", "no"),
                   help="count on the graph renumbered by degree (default auto: gapbs's test)")
    p.add_argument("--per-vertex", action="store_true", help="also count per vertex (as networkx.triangles)")
    check(p, "a scipy sparse product")
    output(p, "the per-vertex counts (implies --per-vertex)")

    p = add("info")
    p.add_argument("--reorder", action="store_true",
                   help="also the BVSS after Blest's reordering (reorder='auto'; slow on big graphs)")

    p = add("convert")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="FILE.mtx (Matrix Market; symmetric when the matrix is) or FILE.el / "
                        ".txt (edge list 'src dst [weight]', 0-based), optionally .gz")
    p.add_argument("--general", action="store_true", help="Matrix Market: never write 'symmetric'")

    p = add("bench", run)
    p.add_argument("--algo", required=True, choices=ALGORITHMS, help="the algorithm to time")
    p.add_argument("--repeat", type=_pos_int, default=10, help="timed runs (default 10)")
    p.add_argument("--method", default=None,
                   help=f"{', '.join(_METHOD_COMMANDS)}: the method, as for the command (default auto)")
    p.add_argument("--reorder", default=None, choices=_REORDERS, help="bfs --method blest: as for bfs")
    p.add_argument("--source", default=None,
                   help="bfs, sssp: a vertex id, 'max-degree' (default) or 'random' (a new "
                        "random source each run, --seed)")
    p.add_argument("--sources", default="64", help="msbfs: N or a list (default 64)")
    p.add_argument("--weights", default=None, metavar="random:LO:HI", help="sssp: as for sssp")
    return top


def _device_help() -> str:
    """--device's help, from the algorithms' CUDA method lists."""
    try:
        from .algorithms.breadth_first import CUDA_ONLY, METHODS_CUDA
    except ImportError:  # pragma: no cover - a build without the bfs module
        CUDA_ONLY, METHODS_CUDA = (), ()
    others = [c for c in (*ALGORITHMS, "info", "convert") if c not in CUDA_COMMANDS]
    only = f"; bfs --method {' and '.join(CUDA_ONLY)} runs on CUDA only" if CUDA_ONLY else ""
    return (f"where the algorithm runs. bfs (methods {', '.join(METHODS_CUDA)}), "
            f"{', '.join(c for c in CUDA_COMMANDS if c != 'bfs')} (every method) run on CUDA: auto (default) picks "
            f"the GPU for them when CUDA is usable, else the CPU; cuda requires it (an error "
            f"naming why when it is not usable){only}. The other commands ({', '.join(others)}) "
            f"run on the CPU only: auto picks the CPU, and cuda is an error naming the command "
            f"(never a silent CPU run)")


def _method_help(command) -> str:
    """A --method's help, from the algorithm module's METHODS."""
    try:
        methods = _methods(command)
    except UsageError:  # pragma: no cover - a build without the module
        return "the method (default auto)"
    text = f"{', '.join(methods)} (default auto)"
    if command == "bfs":
        from .algorithms.breadth_first import CUDA_ONLY

        if CUDA_ONLY:
            text += f"; {', '.join(CUDA_ONLY)} on CUDA only"
    return text


def _int_at_least(lo, what):
    """An argparse type: an int >= ``lo``, else one clear line."""
    def parse(text):
        try:
            v = int(text)
        except ValueError:
            v = None
        if v is None or v < lo:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return v
    return parse


_pos_int = _int_at_least(1, "a positive integer")
_nonneg_int = _int_at_least(0, "an integer >= 0")


def _is_demo(argv) -> bool:
    """No command: nothing, or options only (the README's ``--scale 16``)."""
    if not argv:
        return True
    first = argv[0]
    return first.startswith("-") and first not in ("-h", "--help", "--version")


def _run(argv) -> int:
    if _is_demo(argv):
        d = _demo_parser().parse_args(argv)
        if d.scale < 0:
            raise UsageError(f"--scale must be >= 0, got {d.scale}")
        argv = ["bfs", f"kron:{d.scale}", "--check", "--method", d.method, "--device", d.device]
        argv += (["--source", d.source] if d.source is not None else [])
        argv += (["--json"] if d.json else []) + (["--quiet"] if d.quiet else [])
    args, extra = build_parser().parse_known_args(argv)
    if extra:
        where = f"{PROG} {args.command}" if args.command else PROG
        raise UsageError(f"unrecognized arguments: {' '.join(extra)} (see '{where} --help')")
    if args.command is None:  # unreachable through _is_demo; kept for safety
        raise UsageError("a command is required")
    # imported here, untimed: otherwise the first step that touches scipy
    # (often a transpose) would be charged its ~0.5 s import
    import scipy.sparse  # noqa: F401

    return _COMMANDS[args.command](args)


# ------------------------------------------------------------------ sessions

class _Session:
    """What one command run carries: its options, progress and timings,
    and the text (or JSON) it reports."""

    def __init__(self, args):
        self.args = args
        self.json = bool(getattr(args, "json", False))
        quiet = self.json or getattr(args, "quiet", False)
        self.progress = Progress(None if not quiet else False)
        self.build_keys: list[str] = []
        self.record = {"command": args.command, "graph": args.graph}

    def print(self, text=""):
        if not self.json:
            print(text, flush=True)

    def step(self, key, label):
        return self.progress.step(key, label)

    def build(self, key, label, fn):
        """A format build, timed under ``key`` and summed into "build"."""
        if key not in self.build_keys:
            self.build_keys.append(key)
        with self.step(key, label):
            return fn()

    def times(self, compute=None) -> dict:
        t = self.progress.times
        out = {"load": t.get("load", 0.0)}
        if "weights" in t:
            out["weights"] = t["weights"]
        out["build"] = sum(t[k] for k in self.build_keys)
        out["build_steps"] = {k: t[k] for k in self.build_keys}
        if "warmup" in t:  # the untimed runs: kernel loading, formats left to them
            out["warmup"] = t["warmup"]
        if compute is not None:
            out["compute"] = compute
        return out

    def time_line(self, compute=None, note="", label="time:   ") -> str:
        t = self.times(compute)
        parts = [f"load {_dur(t['load'])}"]
        if "weights" in t:
            parts.append(f"weights {_dur(t['weights'])}")
        steps = ", ".join(f"{k} {_dur(v)}" for k, v in t["build_steps"].items())
        parts.append(f"build {_dur(t['build'])} ({steps})" if steps else "build -")
        if compute is not None:
            parts.append(f"compute {_dur(compute)}{note}")
        return label + " | ".join(parts)

    def finish(self, result: dict, compute=None, extra=None) -> int:
        if self.json:
            rec = dict(self.record)
            rec["result"] = _plain(result)
            rec["times"] = _plain(self.times(compute))
            if extra:
                rec.update(_plain(extra))
            print(json.dumps(rec), flush=True)
        return 0


def _plain(x):
    """JSON-ready: numpy scalars and arrays to Python, NaN/inf to None."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return [_plain(v) for v in x.tolist()]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        f = float(x)
        return f if math.isfinite(f) else None
    return x


def _dur(s: float) -> str:
    if s < 1e-3:
        return f"{s * 1e6:.0f} us"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def _bytes(b) -> str:
    b = float(b)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if b < 1024 or unit == "GiB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024
    return f"{b:.1f} GiB"  # pragma: no cover


# ------------------------------------------------------------------- loading

def _cuda_methods(command):
    """The methods of ``command`` that run on CUDA (None: any; msbfs has no
    method); ``KeyError`` for a command that runs on the CPU only."""
    if command not in CUDA_COMMANDS:
        raise KeyError(command)
    if command != "bfs":
        return None
    from .algorithms.breadth_first import METHODS_CUDA  # read now: the table, not a copy

    return tuple(METHODS_CUDA)


def _cuda_only(command):
    """The methods of ``command`` that run on CUDA only (bfs: ``CUDA_ONLY``)."""
    if command != "bfs":
        return ()
    from .algorithms.breadth_first import CUDA_ONLY

    return tuple(CUDA_ONLY)


def _command_device(name, command, method=None) -> str:
    """The device ``command`` (with ``method``) runs on for ``--device name``,
    through :func:`bitgraph.device.resolve`: "auto" is CUDA for a command
    (and method) that runs there when CUDA is usable, else the CPU; "cuda"
    is a ``DeviceError`` for a command or method that runs on the CPU only,
    or when CUDA is not usable (naming why)."""
    from . import device as dev
    from .errors import DeviceError

    if name == "cpu" and (method is None or method not in _cuda_only(command)):
        return "cpu"
    try:
        methods = _cuda_methods(command)
    except KeyError:
        capable, why = False, (f"{command} runs on the CPU only (on CUDA: "
                               f"{', '.join(CUDA_COMMANDS)}; bench --algo {'|'.join(CUDA_COMMANDS)})")
    else:
        m = "auto" if method is None else method
        capable = methods is None or m in methods
        why = (f"{command} --method {m} runs on the CPU only (on CUDA: {', '.join(methods)})"
               if not capable else "")
    if name == "cuda" and not capable:
        raise DeviceError(f"--device cuda: {why}; use --device cpu or auto")
    if method is not None and method in _cuda_only(command):
        if name == "cpu":
            raise DeviceError(f"--device cpu: {command} --method {method} runs on CUDA only; "
                              "use --device cuda or auto")
        status = dev.cuda_status()
        if status is not None:
            raise DeviceError(f"{command} --method {method} runs on CUDA only, and CUDA is not "
                              f"usable here: {status}")
    if name == "auto":
        return dev.resolve("auto", f"{command} --device") if capable else "cpu"
    return dev.resolve(name, f"{command} --device")


def _synchronize():
    """Wait for the GPU (its kernels run asynchronously to the host)."""
    import cupy

    cupy.cuda.Device().synchronize()  # synchronize!


def load_graph(s: _Session):
    """The Matrix GRAPH names (a file, else a generator spec), timed as "load"."""
    from . import io

    spec = s.args.graph
    opts = {}
    if getattr(s.args, "undirected", False):
        opts["directed"] = False
    if getattr(s.args, "one_based", False):
        opts["one_based"] = True
    if getattr(s.args, "dup_op", None) is not None:
        opts["dup_op"] = s.args.dup_op
    if os.path.exists(spec):
        if os.path.isdir(spec):
            raise UsageError(f"{spec}: is a directory, not a graph file")
        with s.step("load", f"reading {os.path.basename(spec)}"):
            A = io.read(spec, **opts)
        s.record["input"] = "file"
    elif _SPEC_START.match(spec.strip()):
        if opts:
            raise UsageError("--undirected, --one-based and --dup-op apply to graph files, "
                             f"not to the generator spec {spec!r}")
        io.generators.parse_spec(spec)  # a bad spec fails before any work
        with s.step("load", f"generating {spec}"):
            A = io.generators.from_spec(spec)
        s.record["input"] = "generator"
    else:
        raise UsageError(f"{spec}: no such file (GRAPH is a file or a generator spec "
                         "such as kron:16, urand:16, grid:256x256)")
    s.record["n"] = int(A.nrows)
    s.record["m"] = int(A.nvals)
    return A


def _symmetric(A, transposed=False):
    """Whether A's pattern is symmetric, when that is known (the generators
    record it) or cheap to find out (``transposed``: A' was built for the
    command, on the host), else None."""
    from .algorithms import _common

    if A.nrows != A.ncols:
        return False
    sym = _common.known(A, "symmetric")
    if sym is None and transposed:
        sym = _common.is_symmetric(A)
    return sym


def _graph_line(A, s: _Session, transposed=False) -> str:
    shape = f"n={A.nrows:,}" if A.nrows == A.ncols else f"{A.nrows:,} x {A.ncols:,}"
    sym = _symmetric(A, transposed)
    s.record["symmetric"] = sym
    kind = {True: ", symmetric", False: ", directed", None: ""}[sym] if A.nrows == A.ncols else ""
    vals = "structure-only" if A.iso else f"{A.dtype} weights"
    t = s.progress.times.get("load", 0.0)
    return f"graph:  {s.args.graph}: {shape}, m={A.nvals:,} stored entries{kind}, {vals} ({_dur(t)})"


def _square(A, where):
    from .algorithms import _common

    _common.check_graph(A, where)


# ------------------------------------------------------------- algorithms

def _module(command):
    mod, _ = _FUNCTIONS[command]
    try:
        return importlib.import_module(f"bitgraph.algorithms.{mod}")
    except ModuleNotFoundError as e:
        if e.name != f"bitgraph.algorithms.{mod}":
            raise
        raise UsageError(f"{command}: not available in this build "
                         f"(bitgraph.algorithms.{mod} is missing)") from None


def _function(command):
    return getattr(_module(command), _FUNCTIONS[command][1])


def _methods(command):
    """The methods of ``command``'s algorithm: its module's ``METHODS``
    (None for a command without a method)."""
    if command not in _METHOD_COMMANDS:
        return None
    return tuple(_module(command).METHODS)


def _check_method(command, method):
    """The method name, checked against the module's METHODS."""
    if method is None:
        return "auto"
    known = _methods(command)
    if method not in known:
        raise UsageError(f"{command}: unknown method {method!r}; known: {', '.join(known)}")
    return method


def _pick_source(A, text, rng, where):
    """(vertex, how it was chosen)."""
    from .algorithms import _common

    if text is None or text == "max-degree":
        if A.nrows == 0:
            raise UsageError(f"{where}: the graph has no vertices")
        deg = _common.out_degree(A)
        v = int(np.argmax(deg))
        return v, f"largest out-degree {int(deg[v]):,}"
    if text == "random":
        return _random_vertices(A, 1, rng, where)[0], "random"
    try:
        v = int(text)
    except ValueError:
        raise UsageError(f"{where}: --source must be a vertex id, 'random' or 'max-degree', "
                         f"got {text!r}") from None
    return _common.check_source(A, v, where), "given"


def _random_vertices(A, k, rng, where):
    """k distinct random vertices with out-edges (all vertices when fewer have)."""
    from .algorithms import _common

    if A.nrows == 0:
        raise UsageError(f"{where}: the graph has no vertices")
    cand = np.flatnonzero(_common.out_degree(A) > 0)
    if cand.size == 0:
        cand = np.arange(A.nrows)
    k = min(k, cand.size)
    return [int(v) for v in rng.choice(cand, size=k, replace=False)]


def _parse_sources(A, text, rng, where):
    """--sources: N random vertices, or an explicit comma-separated list."""
    from .algorithms import _common

    t = str(text).strip()
    if "," in t or t == "":
        try:
            vals = [int(x) for x in t.split(",") if x.strip()]
        except ValueError:
            raise UsageError(f"{where}: --sources must be N or a list of vertex ids, got {text!r}") from None
        if not vals:
            raise UsageError(f"{where}: --sources is empty")
        return [int(x) for x in _common.check_sources(A, vals, where)], "given"
    try:
        k = int(t)
    except ValueError:
        raise UsageError(f"{where}: --sources must be N or a list of vertex ids, got {text!r}") from None
    if k < 1:
        raise UsageError(f"{where}: --sources must be >= 1, got {k}")
    return _random_vertices(A, k, rng, where), f"{k} random" if k > 1 else "random"


_WEIGHTS_RE = re.compile(r"random:([-+]?[0-9.eE+-]+):([-+]?[0-9.eE+-]+)")


def _weighted(A, spec, seed, progress=None):
    """--weights random:LO:HI: A with :func:`bitgraph.io.generators.random_weights`
    (integers if LO and HI both are, else floats; the same weight both ways),
    timed as "weights"."""
    from .io.generators import random_weights

    m = _WEIGHTS_RE.fullmatch(str(spec).strip())
    if m is None:
        raise UsageError(f"--weights must be random:LO:HI, got {spec!r}")
    lo_t, hi_t = m.group(1), m.group(2)
    integer = all(re.fullmatch(r"[-+]?[0-9]+", x) for x in (lo_t, hi_t))
    try:
        lo, hi = (int(lo_t), int(hi_t)) if integer else (float(lo_t), float(hi_t))
    except ValueError:
        raise UsageError(f"--weights must be random:LO:HI, got {spec!r}") from None
    if not hi >= lo or (not integer and not (math.isfinite(lo) and math.isfinite(hi))):
        raise UsageError(f"--weights random:LO:HI needs finite LO <= HI, got {spec!r}")
    progress = Progress(False) if progress is None else progress
    with progress.step("weights", "drawing weights"):
        B = random_weights(A, lo, hi, seed=seed)
    return B, {"weights": str(spec), "integer": integer, "lo": lo, "hi": hi, "seed": seed}


def prepare(s: _Session, A, command, method, reorder="none", parents=False):
    """Build, one timed step each, the derived formats ``command`` with
    ``method`` reads (see each algorithm's module), so they count as "build"
    and not as "compute". A format the algorithm builds that is not listed
    here is built during the warm-up run (cached on A), or lands in compute
    with --warmup 0. ``A`` is the matrix the algorithm gets (on the GPU
    for a CUDA run: the formats are built there)."""
    from .algorithms import _common

    def transpose():  # in_csr(A): in-neighbours (pull, bottom-up levels, parents)
        s.build("transpose", "transposing", lambda: _common.in_csr(A))

    if command == "sssp" and A.iso:  # structure-only: sssp runs bfs (auto)
        command, method = "bfs", "auto"
    if command == "bfs":
        _prepare_bfs(s, A, method, reorder, parents, transpose)
    elif command == "msbfs":
        transpose()  # bottom-up levels (CUDA: unless the batches run cooperatively)
    elif command == "pagerank":
        transpose()
        s.build("degrees", "out-degrees", lambda: _common.out_degree(A))
    elif command == "cc":
        transpose()
        if A.device == "cpu" and not _common.is_symmetric(A):  # CUDA: built by the warm-up run
            s.build("symmetrise", "symmetrising", lambda: _common.undirected_csr(A))
    elif command == "tc":
        transpose()
        if A.device == "cpu":  # CUDA: L is built on the host by the warm-up run, kept on the GPU
            s.build("symmetrise", "symmetrising", lambda: _common.undirected_csr(A, self_loops=False))


def _prepare_bfs(s, A, method, reorder, parents, transpose):
    """The formats bfs ``method`` reads on A's device (bitgraph.algorithms.breadth_first):
    auto is the method ``bfs_method(A)`` picks (on CUDA a probe of the
    diameter, cached on A, timed as a build step); blest the BVSS of A'
    (and A': on CUDA its bottom-up levels, on the CPU the parents' pass);
    pull and direction A' (pull's products, the bottom-up levels); push,
    async and window A' only for the parents, on CUDA."""
    from .algorithms.breadth_first import bfs_method, blest_layout

    cuda = A.device == "cuda"
    if method == "auto":
        if cuda:
            method = s.build("auto-method", "choosing the bfs method", lambda: bfs_method(A))
        else:
            method = bfs_method(A)
    if method == "blest":
        label = "building BVSS of A'" + (f" (reorder {reorder})" if reorder != "none" else "")
        s.build("bvss", label, lambda: blest_layout(A, reorder))
        if cuda or parents:
            transpose()
    elif method in ("pull", "direction") or (cuda and parents):
        transpose()


def _edges_of(A, reached_mask):
    """Stored entries in the rows of the reached vertices (GTEPS numerator)."""
    from .algorithms import _common

    deg = _common.out_degree(A)
    return int(deg[reached_mask].sum())


class _Algo:
    """One algorithm command: how to call it, what it reports."""

    def __init__(self, s: _Session, A, command, *, method=None, source_text=None,
                 sources_text=None, rng=None):
        # A: the graph on the host (sources, summaries, checks); run_A: the
        # matrix the algorithm gets, on the GPU for a CUDA run (to_device)
        self.s, self.A, self.command = s, A, command
        self.run_A, self.device = A, "cpu"
        self.fn = _function(command)
        self.method = _check_method(command, method) if command in _METHOD_COMMANDS else None
        self.rng = rng
        a = s.args
        self.source = self.sources = None
        where = command
        if command in ("bfs", "sssp"):
            self.source, self.source_how = _pick_source(A, source_text, rng, where)
        elif command == "msbfs":
            self.sources, self.source_how = _parse_sources(A, sources_text, rng, where)
        self.kwargs = {}
        if command == "bfs":
            self.kwargs = {"method": self.method, "parents": bool(getattr(a, "parents", False))}
            if getattr(a, "alpha", None) is not None:
                if not (a.alpha >= 0 and math.isfinite(a.alpha)):
                    raise UsageError(f"bfs: --alpha must be a number >= 0, got {a.alpha}")
                if self.method not in ("direction", "auto"):
                    raise UsageError("bfs: --alpha applies to --method direction (and auto)")
                self.kwargs["alpha"] = a.alpha
            reorder = getattr(a, "reorder", None)
            if self.method == "blest":
                self.kwargs["reorder"] = "auto" if reorder is None else reorder
            elif reorder is not None:
                raise UsageError("bfs: --reorder applies to --method blest")
        elif command == "msbfs":
            self.kwargs = {"batch": getattr(a, "batch", 64), "groupby": bool(getattr(a, "groupby", False))}
        elif command == "sssp":
            self.kwargs = {"method": self.method}
            if getattr(a, "delta", None) is not None:
                self.kwargs["delta"] = a.delta
        elif command == "pagerank":
            self.kwargs = {"alpha": getattr(a, "alpha", 0.85), "tol": getattr(a, "tol", 1e-6),
                           "max_iter": getattr(a, "max_iter", 100)}
            if getattr(a, "check", False) and not self.kwargs["alpha"] < 1:
                raise UsageError("pagerank: --check needs --alpha < 1 (the error bound it "
                                 "allows grows as 1 / (1 - alpha))")
        elif command == "cc":
            self.kwargs = {"method": self.method}
        elif command == "tc":
            self.kwargs = {"per_vertex": bool(getattr(a, "per_vertex", False) or getattr(a, "output", None)),
                           "method": self.method}
            relabel = getattr(a, "relabel", "auto")
            if relabel != "auto":
                self.kwargs["relabel"] = relabel == "yes"

    def to_device(self, device):
        """Run on ``device``: the graph copied to the GPU for "cuda" (a
        timed build step)."""
        if device == "cuda":
            self.run_A = self.s.build("to-cuda", "copying the graph to the GPU",
                                      lambda: self.A.to("cuda"))  # symmetry travels with it
        self.device = device

    def call(self, source=None):
        A = self.run_A
        if self.command in ("bfs", "sssp"):
            return self.fn(A, self.source if source is None else source, **self.kwargs)
        if self.command == "msbfs":
            return self.fn(A, np.asarray(self.sources, np.int64), **self.kwargs)
        return self.fn(A, **self.kwargs)

    def warm(self):
        """One untimed run (numba compiles, formats left to the algorithm
        are built); on the GPU it ends when the kernels have."""
        self.call()
        if self.device == "cuda":
            _synchronize()

    def timed(self, source=None):
        """(the result on the host, the seconds of the call); on the GPU the
        time ends when its kernels have, and the copy back is not timed."""
        t0 = time.perf_counter()
        out = self.call(source)
        if self.device == "cuda":
            _synchronize()
        seconds = time.perf_counter() - t0
        return self.on_host(out), seconds

    def on_host(self, out):
        """A result of ``call`` with its arrays on the host."""
        if self.device != "cuda":
            return out
        from . import device as dev

        if self.command == "msbfs":
            return dev.host(out)
        if self.command == "pagerank":  # ranks on the device, the rest Python numbers
            return out._replace(ranks=out.ranks.to("cpu"))
        if isinstance(out, (int, np.integer)):  # tc's total
            return out
        if isinstance(out, tuple):  # bfs levels, parents
            return tuple(v.to("cpu") for v in out)
        return out.to("cpu")

    # --- summaries: (dict for JSON, lines of text)
    def summary(self, out, seconds, source=None):
        A, c = self.A, self.command
        if c == "bfs":
            levels = out[0] if self.kwargs.get("parents") else out
            d = levels.to_dense(-1)
            reached = d >= 0
            edges = _edges_of(A, reached)
            r = {"source": source if source is not None else self.source,
                 "levels": int(d.max()) + 1 if d.size else 0,
                 "reached": int(reached.sum()), "edges_traversed": edges,
                 "gteps": _gteps(edges, seconds)}
            text = [f"result: {_plural(r['levels'], 'level')}, {r['reached']:,} of {A.nrows:,} vertices reached"
                    f" ({_pct(r['reached'], A.nrows)})" + (", parents computed" if self.kwargs["parents"] else "")]
        elif c == "msbfs":
            d = np.asarray(out)
            reached = d >= 0
            per_source = reached.sum(axis=1)
            deg = _out_degree(A)
            edges = int((reached * deg[None, :]).sum()) if d.size else 0
            lv = d.max(axis=1) + 1 if d.size else np.zeros(0)
            r = {"sources": len(self.sources), "mean_levels": float(lv.mean()) if lv.size else 0.0,
                 "max_levels": int(lv.max()) if lv.size else 0,
                 "mean_reached": float(per_source.mean()) if per_source.size else 0.0,
                 "edges_traversed": edges, "gteps": _gteps(edges, seconds)}
            text = [f"result: {r['sources']} sources, {r['mean_levels']:.2f} levels on average "
                    f"(max {r['max_levels']}), {r['mean_reached']:,.1f} vertices reached on average"]
        elif c == "sssp":
            dist = _distances(out)
            reached = np.isfinite(dist)
            edges = _edges_of(A, reached)
            maxd = float(dist[reached].max()) if reached.any() else 0.0
            r = {"source": source if source is not None else self.source,
                 "reached": int(reached.sum()), "max_distance": _num(maxd, out.dtype),
                 "edges_traversed": edges, "gteps": _gteps(edges, seconds)}
            text = [f"result: {r['reached']:,} of {A.nrows:,} vertices reached "
                    f"({_pct(r['reached'], A.nrows)}), largest distance {r['max_distance']:.6g}"]
        elif c == "pagerank":
            ranks = out.ranks.to_dense(0.0)
            k = min(self.s.args.top if hasattr(self.s.args, "top") else 5, ranks.size)
            top = np.argsort(-ranks, kind="stable")[:k]
            # NetworkX's stopping rule: converged when one iteration's L1 change
            # is below n * tol, so on a large graph one iteration may do
            r = {"iterations": int(out.iterations), "converged": bool(out.converged),
                 "error": float(out.error), "threshold": A.nrows * float(self.kwargs["tol"]),
                 "top": [{"vertex": int(v), "rank": float(ranks[v])} for v in top]}
            text = [_pagerank_line(r),
                    "top:    " + ", ".join(f"{t['vertex']} ({t['rank']:.4g})" for t in r["top"])]
        elif c == "cc":
            labels = out.to_dense(-1)
            _, counts = _array.unique(labels, return_counts=True)
            r = {"components": int(counts.size), "largest": int(counts.max()) if counts.size else 0}
            text = [f"result: {_plural(r['components'], 'component')}, the largest has {r['largest']:,} "
                    f"vertices ({_pct(r['largest'], A.nrows)})"]
        else:  # tc
            if self.kwargs["per_vertex"]:
                pv = out.to_dense(0)
                total = int(pv.sum()) // 3
                r = {"triangles": total, "max_per_vertex": int(pv.max()) if pv.size else 0}
                text = [f"result: {_plural(total, 'triangle')} (at most {r['max_per_vertex']:,} at one vertex)"]
            else:
                r = {"triangles": int(out)}
                text = [f"result: {_plural(r['triangles'], 'triangle')}"]
        return r, text

    def head(self) -> str:
        c = self.command
        bits = []
        if self.method is not None:
            bits.append(f"method {self.method}")
        if self.source is not None:
            bits.append(self.source_how if self.source_how.startswith("a new random")
                        else f"source {self.source} ({self.source_how})")
        if self.sources is not None:
            shown = ", ".join(map(str, self.sources[:8])) + (", ..." if len(self.sources) > 8 else "")
            bits.append(f"{len(self.sources)} sources ({self.source_how}: {shown})")
        if c == "pagerank":
            bits.append(f"alpha {self.kwargs['alpha']}, tol {self.kwargs['tol']:g}, "
                        f"max_iter {self.kwargs['max_iter']}")
        if c == "tc":
            if "relabel" in self.kwargs:
                bits.append("relabelled by degree" if self.kwargs["relabel"] else "not relabelled")
            if self.kwargs["per_vertex"]:
                bits.append("per vertex")
        return f"{c}:" + " " * max(1, 7 - len(c)) + ", ".join(bits) if bits else ""


def _out_degree(A):
    from .algorithms import _common

    return _common.out_degree(A)


def _distances(v):
    """A distance Vector as float64, inf where absent (unreached)."""
    d = np.full(v.size, np.inf)
    i, x = v.to_coo()
    d[i] = x
    return d


def _gteps(edges, seconds):
    return edges / seconds / 1e9 if seconds > 0 else float("nan")


def _pagerank_line(r):
    """The CLI's PageRank result line: the stopping rule with its numbers.

    >>> print(_pagerank_line({"iterations": 1, "converged": True, "error": 0.156, "threshold": 1.048576}))
    result: converged after 1 iteration: the last L1 change 0.156 < n * tol = 1.05 (NetworkX's rule; a smaller --tol iterates longer)
    >>> print(_pagerank_line({"iterations": 100, "converged": False, "error": 0.002, "threshold": 0.001}))
    result: NOT converged after 100 iterations: the last L1 change 0.002 >= n * tol = 0.001 (raise --max-iter or --tol)
    """
    it, err, bound = _plural(r["iterations"], "iteration"), r["error"], r["threshold"]
    if r["converged"]:
        return (f"result: converged after {it}: the last L1 change {err:.3g} < n * tol = {bound:.3g} "
                f"(NetworkX's rule; a smaller --tol iterates longer)")
    return (f"result: NOT converged after {it}: the last L1 change {err:.3g} >= n * tol = {bound:.3g} "
            f"(raise --max-iter or --tol)")


def _plural(k, word):
    return f"{k:,} {word}" + ("" if k == 1 else "s")


def _pct(a, b):
    return f"{100.0 * a / b:.1f}%" if b else "-"


def _num(x, dtype):
    return int(x) if np.dtype(dtype).kind in "biu" else float(x)


def _rng(args):
    return np.random.default_rng(getattr(args, "seed", 0))


def _algorithm_setup(s, command, *, method=None, source_text=None, sources_text=None):
    """Load the graph, weights, source(s) and formats: the Algo, ready."""
    a = s.args
    if command in _METHOD_COMMANDS and method is not None:
        _check_method(command, method)  # before the (maybe long) load
    else:
        _module(command)
    device = _command_device(a.device, command, method)  # before the load too
    A = load_graph(s)
    try:
        _square(A, command)
    except Exception:
        s.print(_graph_line(A, s))
        raise
    extra = {}
    if command == "sssp" and getattr(a, "weights", None):
        A, extra = _weighted(A, a.weights, a.seed, s.progress)
    algo = _Algo(s, A, command, method=method, source_text=source_text,
                 sources_text=sources_text, rng=_rng(a))
    s.record.update({"method": algo.method, "device": device})
    if extra:
        s.record["weights"] = extra
    algo.to_device(device)
    prepare(s, algo.run_A, command, algo.method or "auto",
            reorder=algo.kwargs.get("reorder", "none"), parents=bool(algo.kwargs.get("parents")))
    s.print(_graph_line(A, s, transposed=algo.run_A is A and "transpose" in s.build_keys))
    return algo


def cmd_algorithm(args) -> int:
    s = _Session(args)
    c = args.command
    if args.output is not None:
        _check_output(c, args.output)  # before the (maybe long) load and compute
    algo = _algorithm_setup(s, c, method=getattr(args, "method", None),
                            source_text=getattr(args, "source", None),
                            sources_text=getattr(args, "sources", None))
    if algo.head():
        s.print(algo.head())
    for _ in range(args.warmup):
        with s.step("warmup", f"{c}: warm-up run"):
            algo.warm()
    with s.step("compute", f"{c}: running"):
        out, seconds = algo.timed()
    result, text = algo.summary(out, seconds)
    for line in text:
        s.print(line)
    note = ""
    if args.warmup:
        note = (f" (after {args.warmup} warm-up run{'s' if args.warmup != 1 else ''}: "
                f"{_dur(s.progress.times['warmup'])})")
    s.print(s.time_line(seconds, note))
    if c in TRAVERSALS:
        s.print(f"rate:   {result['gteps']:.3f} GTEPS ({result['edges_traversed']:,} stored entries "
                f"out of reached vertices / compute)")
    if getattr(args, "check", False):
        with s.step("check", "checking against scipy"):
            what = _check(algo, out)
        result["check"] = "ok"
        s.print(f"check:  {what}")
    if args.output is not None:
        _write_result(args.output, algo, out)
        s.print(f"output: {args.output}")
    return s.finish(result, seconds, {"warmup": args.warmup})


# -------------------------------------------------------------------- checks

def _check(algo, out) -> str:
    """Validate ``out`` (:mod:`bitgraph.validate`); a difference raises
    ``ValidationError`` (exit status 1). Returns what was checked."""
    from . import validate

    A, c = algo.A, algo.command
    if c == "bfs":
        parents = algo.kwargs.get("parents")
        levels, par = out if parents else (out, None)
        validate.check_bfs(A, algo.source, levels, par)
        return "levels match scipy.sparse.csgraph" + ("; parents form a valid BFS tree" if parents else "")
    if c == "msbfs":
        validate.check_msbfs(A, algo.sources, out)
        return f"levels of all {len(algo.sources)} sources match scipy.sparse.csgraph"
    if c == "sssp":
        validate.check_sssp(A, algo.source, out)
        return "distances match scipy.sparse.csgraph"
    if c == "pagerank":
        alpha, tol = algo.kwargs["alpha"], algo.kwargs["tol"]
        # the L1 error after a change below n * tol: at most alpha / (1 - alpha) times it
        atol = 2 * alpha / (1 - alpha) * A.nrows * tol + 1e-9
        validate.check_pagerank(A, out, alpha=alpha, atol=atol)
        return f"ranks within {atol:.3g} (L1) of a reference power iteration"
    if c == "cc":
        validate.check_components(A, out, smallest=True)
        return "components match scipy.sparse.csgraph"
    if c == "tc":
        validate.check_triangles(A, out)
        return "triangles match a scipy sparse product"
    return "no check for this command"  # pragma: no cover


# -------------------------------------------------------------------- output

def _check_output(command, path):
    """``-o path`` can be written (:func:`bitgraph.io.atomic.check_writable`:
    its directory exists and is writable, it is not a directory), checked
    before any work; else a one-line error naming the file."""
    from .io.atomic import check_writable

    try:
        check_writable(path)
    except OSError as e:
        raise UsageError(f"{command}: cannot write {path}: {e.strerror or e}") from None


class _Writing:
    """Around a write of ``-o path``: an ``OSError`` (a full disk, no
    permission) becomes one line naming the file. The writes themselves go
    through :func:`bitgraph.io.atomic.atomic_write` (temporary file, fsync,
    rename), so a failed or interrupted one leaves the old file intact."""

    def __init__(self, command, path):
        self.command, self.path = command, path

    def __enter__(self):
        return self

    def __exit__(self, kind, e, tb):
        if kind is not None and issubclass(kind, OSError):
            raise UsageError(f"{self.command}: cannot write {self.path}: {e.strerror or e}") from None
        return False


def _write_result(path, algo, out):
    c = algo.command
    fmt, header = "%d", ""
    if c == "bfs":
        if algo.kwargs.get("parents"):
            arr = np.stack([out[0].to_dense(-1).astype(np.int64), out[1].to_dense(-1).astype(np.int64)], 1)
            fmt, header = "%d %d", "level parent (-1: unreached)"
        else:
            arr, header = out.to_dense(-1).astype(np.int64), "level (-1: unreached)"
    elif c == "msbfs":
        arr, header = np.asarray(out, np.int64), "one line per source: levels (-1: unreached)"
    elif c == "sssp":
        arr = _distances(out)
        fmt, header = "%.17g", "distance (inf: unreached)"
    elif c == "pagerank":
        arr, fmt, header = out.ranks.to_dense(0.0), "%.17g", "rank"
    elif c == "cc":
        arr, header = out.to_dense(-1).astype(np.int64), "component label (smallest vertex id)"
    else:
        arr, header = out.to_dense(0).astype(np.int64), "triangles at the vertex"
    from .io.atomic import atomic_write

    if str(path).endswith(".npy"):
        def writer(f):
            np.save(f, arr)
    else:
        if arr.ndim == 2 and c == "msbfs":
            fmt = "%d"
        head = (f"bitgraph {c}: {header}; line i+1 = vertex i" if c != "msbfs"
                else f"bitgraph msbfs: sources {algo.sources}; {header}")

        def writer(f):
            np.savetxt(f, arr, fmt=fmt, header=head)
    with _Writing(c, path):
        atomic_write(path, writer)


# ---------------------------------------------------------------------- bench

def cmd_bench(args) -> int:
    s = _Session(args)
    c = args.algo
    s.record["algo"] = c
    if args.method is not None and c not in _METHOD_COMMANDS:
        raise UsageError(f"bench: --method applies to {', '.join(_METHOD_COMMANDS)}, not to {c}")
    random_source = args.source == "random"
    algo = _algorithm_setup(s, c, method=args.method, source_text=args.source,
                            sources_text=args.sources)
    if random_source and c in ("bfs", "sssp"):
        algo.source_how = "a new random source each run"
    s.print((algo.head() or f"{c}:") + f"; {args.repeat} runs after {args.warmup} warm-up")
    rng = _rng(args)
    for _ in range(args.warmup):
        with s.step("warmup", f"{c}: warm-up run"):
            algo.warm()
    times, results = [], []
    with s.progress.step("runs", spin=False):  # track() shows the runs
        for _ in s.progress.track(range(args.repeat), f"{c}: runs", total=args.repeat):
            src = None
            if random_source and c in ("bfs", "sssp"):
                src = _random_vertices(algo.A, 1, rng, c)[0]
            out, sec = algo.timed(src)
            times.append(sec)
            if c in TRAVERSALS:
                results.append(algo.summary(out, sec, src)[0])
    t = np.array(times)
    r = {"runs": args.repeat, "median_ms": float(np.median(t) * 1e3), "min_ms": float(t.min() * 1e3),
         "mean_ms": float(t.mean() * 1e3), "times_ms": (t * 1e3).tolist()}
    line = f"bench:  {c}: median {r['median_ms']:.3f} ms, min {r['min_ms']:.3f} ms over {args.repeat} runs"
    if c in TRAVERSALS:
        g = np.array([x["gteps"] for x in results])
        r.update({"gteps_median": float(np.median(g)), "gteps_max": float(g.max()),
                  "edges_traversed_median": float(np.median([x["edges_traversed"] for x in results]))})
        line += f"; {r['gteps_median']:.3f} GTEPS median, {r['gteps_max']:.3f} best"
    s.print(line)
    s.print(s.time_line())
    return s.finish(r, float(np.median(t)), {"warmup": args.warmup, "repeat": args.repeat})


# ----------------------------------------------------------------------- info

def cmd_info(args) -> int:
    from .algorithms import _common
    from .formats import b2sr as b2sr_fmt
    from .formats import bvss as bvss_fmt
    from .formats import reorder as ro
    from .formats.b2sr import TILE_SIZES, csr_int32_bytes

    s = _Session(args)
    device = _command_device(args.device, "info")
    A = load_graph(s)
    s.record["device"] = device
    n, ncols, m = A.nrows, A.ncols, A.nvals
    square = n == ncols
    c = A._csr()
    r = {"nrows": n, "ncols": ncols, "nvals": m, "dtype": "structure-only" if A.iso else str(A.dtype)}
    if square:
        with s.step("analyse", "analysing"):
            sym = _common.is_symmetric(A)
            rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(c.indptr).astype(np.int64))
            loops = int(np.count_nonzero(rows == c.indices))
            out_deg = _common.out_degree(A)
            in_deg = out_deg if sym else np.bincount(c.indices, minlength=n).astype(np.int64)
        r.update({"symmetric": sym, "self_loops": loops,
                  "undirected_edges": (m - loops) // 2 + loops if sym else None,
                  "out_degree": _deg_stats(out_deg),
                  "in_degree": None if sym else _deg_stats(in_deg),
                  "isolated": int(np.count_nonzero((out_deg == 0) & (in_deg == 0)))})
        with s.step("degree-profile", "degree profile"):
            dp = ro.degree_profile(c)
        r["social"] = {k: dp[k] for k in ("top1_share", "top10_share", "heavy_tail", "alpha",
                                           "ks", "power_law", "social_like")}
    r["csr_int32_bytes"] = csr_int32_bytes(n, m)
    with s.step("sampling-profile", "sampling profile"):
        prof = A.profile()
    r["b2sr"] = {}
    for t in TILE_SIZES:
        b = s.build(f"b2sr-{t}", f"building B2SR-{t}", lambda t=t: A.b2sr(t))
        st = b2sr_fmt.stats(b, nnz=m)
        st["estimated_nbytes"] = float(prof[t]["nbytes"])
        st["estimated_ntiles"] = float(prof[t]["ntiles"])
        r["b2sr"][t] = st
    from .formats.profile import choose_tile

    r["b2sr_auto_t"] = choose_tile(c, prof)
    b = s.build("bvss", "building BVSS of A'", lambda: A.T.bvss())
    r["bvss"] = bvss_fmt.stats(b)
    if args.reorder and square:
        b = s.build("bvss-reordered", "building BVSS of A' (reorder auto)", lambda: A.T.bvss(reorder="auto"))
        st = bvss_fmt.stats(b)
        st["reordered"] = b.perm is not None  # auto keeps the natural order when it is better
        r["bvss_reorder_auto"] = st

    # ---- text
    kind = ""
    if square:
        kind = "symmetric" if r["symmetric"] else "directed"
        if r["symmetric"]:
            kind += f" ({r['undirected_edges']:,} undirected edges)"
    s.print(f"graph:   {args.graph}: {n:,} x {ncols:,}, {m:,} stored entries, {r['dtype']}"
            + (f", {kind}" if kind else ", not square (not a graph: no degree or BFS statistics)"))
    if square:
        s.print(f"         {r['self_loops']:,} self-loops, {r['isolated']:,} isolated vertices")
        s.print("degree:  out " + _deg_text(r["out_degree"])
                + ("" if r["in_degree"] is None else "\n         in  " + _deg_text(r["in_degree"])))
        so = r["social"]
        alpha = "no power-law tail" if not math.isfinite(so["alpha"]) else \
            f"power-law alpha {so['alpha']:.2f} (KS {so['ks']:.3f})"
        s.print(f"social:  top 1% of vertices hold {so['top1_share']:.1%} of the edge ends, top 10% "
                f"{so['top10_share']:.1%}; {alpha}: {'social-like' if so['social_like'] else 'not social-like'}")
    s.print(f"CSR:     {_bytes(r['csr_int32_bytes'])} (int32 indptr + indices)")
    s.print("B2SR:    t   tiles        entries/tile  fill     bytes        vs CSR  (profile estimate)")
    for t, st in r["b2sr"].items():
        s.print(f"         {t:<3d} {st['ntiles']:<12,d} {st['nnz_per_tile']:<13.2f} {st['fill']:<8.4f} "
                f"{_bytes(st['nbytes']):<12s} {st['compression']:<6.2f}x ({_bytes(st['estimated_nbytes'])})")
    s.print(f"         the profile picks t = {r['b2sr_auto_t']}")
    for key, title in (("bvss", "BVSS:   "), ("bvss_reorder_auto", "BVSS ro:")):
        if key in r:
            st = r[key]
            s.print(f"{title} of A', sigma {st['sigma']}: {st['vss']:,} VSS in {st['slice_sets']:,} slice "
                    f"sets, {st['slices']:,} slices ({st['padded_slices']:,} padding), fill "
                    f"{st['compression']:.3f}, U_div {st['update_divergence']:.1f}, "
                    f"{_bytes(st['nbytes'])} ({st['bytes_per_entry']:.2f} B/entry, "
                    f"{r['csr_int32_bytes'] / st['nbytes']:.2f}x vs CSR)"
                    + ("" if key == "bvss" or st.get("reordered") else "; reordering did not pay, natural kept"))
    s.print(s.time_line(label="time:    "))
    return s.finish(r)


def _deg_stats(d) -> dict:
    if d.size == 0:
        return {"min": 0, "mean": 0.0, "median": 0.0, "max": 0}
    return {"min": int(d.min()), "mean": float(d.mean()), "median": float(np.median(d)), "max": int(d.max())}


def _deg_text(st) -> str:
    return f"min {st['min']:,}, mean {st['mean']:.2f}, median {st['median']:g}, max {st['max']:,}"


# -------------------------------------------------------------------- convert

def cmd_convert(args) -> int:
    from . import io
    from .algorithms import _common

    s = _Session(args)
    _command_device(args.device, "convert")
    out = args.output
    _check_output("convert", out)  # before the load
    low = out.lower()
    base = low[:-3] if low.endswith(".gz") else low
    if base.endswith(_MTX_OUT):
        kind = "mtx"
    elif base.endswith(_EDGELIST_OUT):
        kind = "edgelist"
    else:
        raise UsageError(f"convert: cannot tell the format of {out!r}: name it .mtx or .el "
                         "(.txt, .edges, .tsv, .csv), optionally .gz")
    A = load_graph(s)
    s.print(_graph_line(A, s))
    if kind == "mtx":
        sym = (not args.general) and A.nrows == A.ncols and _common.is_symmetric(A)
        with _Writing("convert", out), s.step("write", f"writing {os.path.basename(out)}"):
            if sym:
                try:
                    io.write_mtx(out, A, symmetric=True)
                except ValueError:  # the pattern is symmetric, the values are not
                    sym = False
            if not sym:
                io.write_mtx(out, A)
        what = "Matrix Market, " + ("symmetric (lower triangle)" if sym else "general")
    else:
        with _Writing("convert", out), s.progress.step("write", spin=False):  # track() shows the chunks
            io.write_edgelist(out, A, delimiter="," if base.endswith(".csv") else " ",
                              progress=lambda chunks, total: s.progress.track(
                                  chunks, "writing edges", total=total))
        what = "edge list, 0-based 'src dst" + ("'" if A.iso else " weight'")
    s.print(f"wrote:  {out}: {what} ({_dur(s.progress.times['write'])})")
    r = {"output": out, "format": kind, "bytes": os.path.getsize(out) if os.path.exists(out) else None}
    return s.finish(r, extra={"times_write": s.progress.times["write"]})


_COMMANDS = {name: cmd_algorithm for name in ALGORITHMS}
_COMMANDS.update({"bench": cmd_bench, "info": cmd_info, "convert": cmd_convert})
