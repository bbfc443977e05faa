"""Mutation fuzzing of the readers, with a differential oracle: hypothesis
draws mutations of the test graphs and of edge lists made from them (header
words, size lines, tokens, type lines, truncation, byte flips, long tokens,
repeated and mirrored lines, line endings, compression); a child process
reads a batch of them with ``bitgraph.io.read`` under a memory limit and a
time limit, so that a crash, a hang or a blowup is seen as such rather than
taking the test run down; and the reference reader
(``tests/io/reference_reader.py``: plain Python, written from the Matrix
Market spec and the GraphBLAS rules) says what each input must give.

Every input is counted in the rows of issue 30's table it falls in (``ROWS``);
the test asserts each is zero. ``BITGRAPH_FUZZ_BATCHES`` (default 20 batches
of 200 inputs) sets the size; ``python tests/io/test_fuzz_readers.py N`` runs
N batches outside pytest and prints the table.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/, when run as a script
sys.path.insert(0, str(HERE))
from reference_reader import Invalid, Loaded, loaded_digest, reference_read  # noqa: E402
from testdata import DATA  # noqa: E402

BATCH = 200
BATCHES = int(os.environ.get("BITGRAPH_FUZZ_BATCHES", "20"))
ROOT = HERE.parents[1]
SEEDS = sorted(p for p in [*DATA.glob("*.mtx"), *DATA.glob("lagraph/*.mtx")]
               if p.stat().st_size < 200_000)
MAX_MESSAGE = 2000  # characters a reader's error may take (issue 30 counted those over 20,000)

# issue 30's table: every input must land in none of these rows
ROWS = (
    "process killed",
    "hang (> 30 s)",
    "an exception that is not a bitgraph error",
    "memory blowup (4 GiB address space)",
    "invalid file silently accepted",
    "valid file loaded wrong",
    "valid file rejected",
    "error names a line with no problem",
    f"error message over {MAX_MESSAGE:,} characters or not naming the file",
)

# the child: read each file, report the outcome; 4 GiB of address space
CHILD = r"""
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
sys.path.insert(0, %r)
import bitgraph as bg
from bitgraph.errors import BitgraphError
from reference_reader import digest
out = []
for arg in sys.argv[1:]:
    how, p = arg.split(":", 1)  # P: scanned in parallel chunks from 64 bytes
    try:
        with bg.settings.use(io={"parallel_scan_min": 64} if how == "P" else {}):
            A = bg.io.read(p)
        r, c, v = A.to_coo()
        out.append(["ok", digest(A.nrows, A.ncols, A.dtype.name, A.iso, r, c, None if A.iso else v),
                    f"{A.nrows}x{A.ncols} {A.dtype} nvals={A.nvals} iso={A.iso}"])
    except BitgraphError as e:
        m = str(e)
        out.append(["error", type(e).__name__ + ": " + m[:300], getattr(e, "line", None),
                    len(m) <= %d and p in m])
    except MemoryError as e:
        out.append(["memory", str(e)[:300]])
    except Exception as e:
        out.append(["not a bitgraph error", type(e).__name__ + ": " + str(e)[:300]])
print(json.dumps(out))
""" % (str(HERE), MAX_MESSAGE)

TOKENS = [b"", b"-1", b"0", b"1", b"2", b"+1", b"1.5", b"1e300", b"-1e400", b"nan", b"inf", b"-inf",
          b"x", b"9" * 40, b"18446744073709551616", b"9223372036854775808", b"1099511627776",
          b"0x10", b"1,2", b"\t", b"-0", b"-128", b"255", b"-9223372036854775808", b"1.0", b"1e-400",
          b"3.5e38", b"-2147483648", b"65535", b"1e2", b"67108865"]
WORDS = [b"matrix", b"coordinate", b"array", b"real", b"integer", b"pattern", b"complex",
         b"general", b"symmetric", b"skew-symmetric", b"hermitian", b"vector", b""]
TYPES = [b"bool", b"int8_t", b"uint8_t", b"int16_t", b"int32_t", b"uint32_t", b"int64_t",
         b"uint64_t", b"float", b"double", b"float complex", b"junk"]


def _edge_seeds():
    """(text, suffixes): edge lists made from small test graphs: a SNAP
    undirected one (each edge once), a weighted directed one, a CSV."""
    out = []
    for name, how in (("karate.mtx", "undirected"), ("west0067.mtx", "weighted"),
                      ("ldbc-directed-example.mtx", "csv"), ("msf1.mtx", "weighted")):
        g = reference_read((DATA / name).read_bytes(), name)
        assert isinstance(g, Loaded), name
        if how == "undirected":
            lines = [f"{i}\t{j}" for (i, j) in sorted(g.entries) if i >= j]
            head = f"# Undirected graph: {name}\n# Nodes: {g.nrows} Edges: {len(lines)}\n"
        elif how == "csv":
            lines = [f"{i}, {j},{v!r}" for (i, j), v in sorted(g.entries.items())]
            head = "% src,dst,weight\n"
        else:
            lines = [f"{i} {j} {v!r}" for (i, j), v in sorted(g.entries.items())]
            head = f"# {name}: src dst weight\n"
        suffixes = [".csv", ".csv.gz"] if how == "csv" else [".el", ".txt", ".snap", ".el.gz"]
        out.append(((head + "\n".join(lines) + "\n").encode(), suffixes))
    return out


MTX_SUFFIXES = [".mtx", ".mtx", ".txt", ".el", ".mtx.gz"]
ALL_SEEDS = [(p.read_bytes(), MTX_SUFFIXES) for p in SEEDS] + _edge_seeds()


@st.composite
def mutated(draw):
    """(bytes, suffix): a test graph with 1-3 mutations."""
    data, suffixes = ALL_SEEDS[draw(st.integers(0, len(ALL_SEEDS) - 1))]
    for _ in range(draw(st.integers(1, 3))):
        lines = data.split(b"\n")
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        k = draw(st.integers(0, 13))
        if k == 0:
            del lines[i]
        elif k == 1:
            lines.insert(i, lines[i])
        elif k == 2:
            toks = lines[i].split(b" ")
            toks[draw(st.integers(0, len(toks) - 1))] = draw(st.sampled_from(TOKENS))
            lines[i] = b" ".join(toks)
        elif k == 3 and lines[0].startswith(b"%%"):
            toks = lines[0].split(b" ")
            toks[draw(st.integers(0, len(toks) - 1))] = draw(st.sampled_from(WORDS))
            lines[0] = b" ".join(toks)
        elif k == 4:
            lines = data[:draw(st.integers(0, len(data)))].split(b"\n")
        elif k == 5:
            lines = (data.rstrip(b"\n") + draw(st.sampled_from([b" ", b"\t", b""]))).split(b"\n")
        elif k == 6:
            lines.insert(1, b"%%GraphBLAS type " + draw(st.sampled_from(TYPES)))
        elif k == 7:
            j = next((j for j, ln in enumerate(lines) if ln and not ln.startswith(b"%")), 0)
            toks = lines[j].split(b" ")
            toks[draw(st.integers(0, len(toks) - 1))] = draw(st.sampled_from(TOKENS))
            lines[j] = b" ".join(toks)
        elif k == 8 and data:
            b = bytearray(data)
            b[draw(st.integers(0, len(b) - 1))] = draw(st.integers(0, 255))
            lines = bytes(b).split(b"\n")
        elif k == 9:
            lines[0] = lines[0].lower()
        elif k == 10:
            lines = data.replace(b"\n", b"\r\n").split(b"\n")
        elif k == 11:  # a line with its first two tokens swapped: a mirror
            toks = lines[i].replace(b"\t", b" ").split(b" ")
            if len(toks) >= 2:
                toks[0], toks[1] = toks[1], toks[0]
            lines.insert(draw(st.integers(0, len(lines))), b" ".join(toks))
        elif k == 12:  # a line moved
            ln = lines.pop(i)
            lines.insert(draw(st.integers(0, len(lines))), ln)
        else:
            lines.insert(i, b"1 1 " + b"1" * draw(st.integers(10, 60_000)) + b"x")
        data = b"\n".join(lines)
    suffix = draw(st.sampled_from(suffixes))
    if suffix.endswith(".gz"):
        data = gzip.compress(data)
        if draw(st.booleans()):
            data = data[:draw(st.integers(0, len(data)))]
    return data, suffix


def read_batch(files, timeout=120):
    """Outcomes (kind, ...) of reading ``files`` in a child process (every
    other one with the body scanned in parallel chunks); a crash or a hang
    is attributed to its file by reading one at a time."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    files = [f"{'SP'[n % 2]}:{f}" for n, f in enumerate(files)]
    try:
        r = subprocess.run([sys.executable, "-c", CHILD, *files], capture_output=True,
                           text=True, timeout=timeout, env=env)
        if r.returncode == 0:
            return [tuple(o) for o in json.loads(r.stdout)]
    except subprocess.TimeoutExpired:
        pass
    out = []
    for f in files:
        try:
            r = subprocess.run([sys.executable, "-c", CHILD, f], capture_output=True,
                               text=True, timeout=30, env=env)
            out.append(tuple(json.loads(r.stdout)[0]) if r.returncode == 0
                       else ("crash", f"exit {r.returncode}: {r.stderr[-300:]}"))
        except subprocess.TimeoutExpired:
            out.append(("hang", f))
    return out


def classify(data, name, outcome):
    """(rows of ``ROWS`` the input falls in, "loaded"/"rejected"/"", detail):
    bitgraph's ``outcome`` judged against the reference reader."""
    kind = outcome[0]
    if kind == "crash":
        return [ROWS[0]], "", outcome[1]
    if kind == "hang":
        return [ROWS[1]], "", outcome[1]
    if kind == "not a bitgraph error":
        return [ROWS[2]], "", outcome[1]
    if kind == "memory":
        return [ROWS[3]], "", outcome[1]
    ref = reference_read(data, name)
    if kind == "ok":
        if isinstance(ref, Invalid):
            return [ROWS[4]], "", f"reference: {ref.reason} (lines {sorted(ref.lines)[:5]})"
        if outcome[1] != loaded_digest(ref):
            return [ROWS[5]], "", (f"bitgraph {outcome[2]}; reference {ref.nrows}x{ref.ncols} "
                                   f"{ref.dtype} nvals={len(ref.entries)} iso={ref.iso}")
        return [], "loaded", ""
    _, message, line, message_ok = outcome
    rows = [] if message_ok else [ROWS[8]]
    if isinstance(ref, Loaded):
        rows.append(ROWS[6])
    elif ref.lines and line not in ref.lines:
        rows.append(ROWS[7])
        message = f"{message} (reference: {ref.reason}, lines {sorted(ref.lines)[:5]})"
    return rows, "rejected", message


def run_batch(inputs, tmp, tag=""):
    """Write ``inputs`` [(bytes, suffix)] under ``tmp``, read them, and
    classify each: [(file name, rows, verdict, detail)]."""
    files = []
    for n, (data, suffix) in enumerate(inputs):
        f = Path(tmp) / f"f{tag}{n}{suffix}"
        f.write_bytes(data)
        files.append(f)
    return [(f.name, *classify(data, f.name, o))
            for f, (data, _), o in zip(files, inputs, read_batch(files))]


@settings(max_examples=BATCHES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.lists(mutated(), min_size=BATCH, max_size=BATCH))
def test_readers_agree_with_the_reference(inputs):
    with tempfile.TemporaryDirectory() as tmp:
        results = run_batch(inputs, tmp)
    bad = [(name, rows, detail) for name, rows, _, detail in results if rows]
    assert not bad, bad[:5]


def test_reference_reads_lagraph_files_as_lagraph():
    # the oracle against test_MMRead.c's table: shapes, entries, types, rejects
    import numpy as np
    from test_lagraph_mmread import LOADS, REJECTS, TYPES, _path

    for nrows, ncols, entries, gb_type, name in LOADS:
        r = reference_read(_path(name).read_bytes(), name)
        assert isinstance(r, Loaded), (name, r)
        assert (r.nrows, r.ncols, len(r.entries), r.dtype) == (
            nrows, ncols, entries, np.dtype(TYPES[gb_type]).name), name
    for name in REJECTS:
        assert isinstance(reference_read(_path(name).read_bytes(), name), Invalid), name


def test_classify_finds_each_row():
    # each way bitgraph could disagree with the reference lands in its row
    H = b"%%MatrixMarket matrix coordinate real general\n"
    good, bad = H + b"2 2 1\n1 1 1\n", H + b"2 2 1\n1 1 x\n"
    ref = loaded_digest(reference_read(good, "g.mtx"))
    assert classify(good, "g.mtx", ("ok", ref, "")) == ([], "loaded", "")
    assert classify(good, "g.mtx", ("ok", "other", ""))[0] == [ROWS[5]]
    assert classify(bad, "b.mtx", ("ok", ref, ""))[0] == [ROWS[4]]
    assert classify(good, "g.mtx", ("error", "FormatError: x", 3, True))[0] == [ROWS[6]]
    assert classify(bad, "b.mtx", ("error", "FormatError: x", 3, True))[:2] == ([], "rejected")
    assert classify(bad, "b.mtx", ("error", "FormatError: x", 2, True))[0] == [ROWS[7]]
    assert classify(bad, "b.mtx", ("error", "FormatError: x", 3, False))[0] == [ROWS[8]]
    for kind, row in (("crash", 0), ("hang", 1), ("not a bitgraph error", 2), ("memory", 3)):
        assert classify(good, "g.mtx", (kind, ""))[0] == [ROWS[row]]


def main(batches, keep=None):
    """Count every row of the table over ``batches`` batches of random
    mutations; with ``keep`` (a directory) keep the files of each bad input."""
    import random
    import shutil

    counts = dict.fromkeys(ROWS, 0)
    counts["loaded, as the reference"] = counts["rejected, as the reference"] = 0
    examples = {}
    strategy = mutated()
    rng = random.Random(0)
    for b in range(batches):
        with tempfile.TemporaryDirectory() as tmp:
            inputs = [strategy.example() for _ in range(BATCH)]
            for name, rows, verdict, detail in run_batch(inputs, tmp, f"{b}_"):
                for row in rows:
                    counts[row] += 1
                    examples.setdefault(row, []).append((name, detail))
                    if keep:
                        os.makedirs(keep, exist_ok=True)
                        shutil.copy(Path(tmp) / name, Path(keep) / name)
                if not rows:
                    counts[f"{verdict}, as the reference"] += 1
        if rng.random() < 0.1 or b == batches - 1:
            print(f"batch {b + 1}/{batches}: {sum(counts.values())} inputs", flush=True)
    print(f"| outcome | inputs |\n|---|---|")
    for row, c in counts.items():
        print(f"| {row} | {c:,} |")
    for row, ex in examples.items():
        print(row, ex[:3])
    return counts


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore")
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10, os.environ.get("BITGRAPH_FUZZ_KEEP"))
