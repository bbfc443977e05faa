"""Mutation fuzzing of the readers: hypothesis draws mutations of the test
graphs (header words, size lines, tokens, type lines, truncation, byte
flips, long tokens, line endings, compression), and a child process reads a
batch of them under a memory limit and a time limit, so that a crash, a hang
or a blowup is seen as such rather than taking the test run down.

Every input must either load or raise a ``bitgraph`` error whose message
names the file and stays short. ``BITGRAPH_FUZZ_BATCHES`` (default 10 batches
of 200 inputs) sets the size; ``python tests/io/test_fuzz_readers.py N`` runs
N batches outside pytest and prints the counts of every outcome.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, when run as a script
from testdata import DATA  # noqa: E402

BATCH = 200
BATCHES = int(os.environ.get("BITGRAPH_FUZZ_BATCHES", "10"))
ROOT = Path(__file__).resolve().parents[2]
SEEDS = sorted(p for p in DATA.glob("*.mtx") if p.stat().st_size < 200_000)
MAX_MESSAGE = 2000  # characters a reader's error may take

# the child: read each file, report the outcome; 4 GiB of address space
CHILD = r"""
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
import bitgraph as bg
from bitgraph.errors import BitgraphError
out = []
for p in sys.argv[1:]:
    try:
        A = bg.io.read(p)
        out.append(["ok", ""])
    except BitgraphError as e:
        m = str(e)
        ok = len(m) <= %d and p in m
        out.append(["error" if ok else "bad message", type(e).__name__ + ": " + m[:300]])
    except MemoryError as e:
        out.append(["memory", str(e)[:300]])
    except Exception as e:
        out.append(["not a bitgraph error", type(e).__name__ + ": " + str(e)[:300]])
print(json.dumps(out))
""" % MAX_MESSAGE

TOKENS = [b"", b"-1", b"0", b"1", b"2", b"+1", b"1.5", b"1e300", b"-1e400", b"nan", b"inf", b"-inf",
          b"x", b"9" * 40, b"18446744073709551616", b"9223372036854775808", b"1099511627776",
          b"0x10", b"1,2", b"\t"]
WORDS = [b"matrix", b"coordinate", b"array", b"real", b"integer", b"pattern", b"complex",
         b"general", b"symmetric", b"skew-symmetric", b"hermitian", b"vector", b""]
TYPES = [b"bool", b"int8_t", b"uint8_t", b"int16_t", b"int32_t", b"uint32_t", b"int64_t",
         b"uint64_t", b"float", b"double", b"float complex", b"junk"]


@st.composite
def mutated(draw):
    """(bytes, suffix): a test graph with 1-3 mutations."""
    data = SEEDS[draw(st.integers(0, len(SEEDS) - 1))].read_bytes()
    for _ in range(draw(st.integers(1, 3))):
        lines = data.split(b"\n")
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        k = draw(st.integers(0, 11))
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
        else:
            lines.insert(i, b"1 1 " + b"1" * draw(st.integers(10, 60_000)) + b"x")
        data = b"\n".join(lines)
    suffix = draw(st.sampled_from([".mtx", ".mtx", ".txt", ".el", ".mtx.gz"]))
    if suffix.endswith(".gz"):
        data = gzip.compress(data)
        if draw(st.booleans()):
            data = data[:draw(st.integers(0, len(data)))]
    return data, suffix


def read_batch(files, timeout=120):
    """Outcomes [(kind, detail)] of reading ``files`` in a child process; a
    crash or a hang is attributed to its file by reading one at a time."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    try:
        r = subprocess.run([sys.executable, "-c", CHILD, *map(str, files)], capture_output=True,
                           text=True, timeout=timeout, env=env)
        if r.returncode == 0:
            return [tuple(o) for o in json.loads(r.stdout)]
    except subprocess.TimeoutExpired:
        pass
    out = []
    for f in files:
        try:
            r = subprocess.run([sys.executable, "-c", CHILD, str(f)], capture_output=True,
                               text=True, timeout=30, env=env)
            out.append(tuple(json.loads(r.stdout)[0]) if r.returncode == 0
                       else ("crash", f"exit {r.returncode}: {r.stderr[-300:]}"))
        except subprocess.TimeoutExpired:
            out.append(("hang", str(f)))
    return out


@settings(max_examples=BATCHES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.lists(mutated(), min_size=BATCH, max_size=BATCH))
def test_readers_load_or_reject_every_mutation(inputs):
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for n, (data, suffix) in enumerate(inputs):
            f = Path(tmp) / f"f{n}{suffix}"
            f.write_bytes(data)
            files.append(f)
        outcomes = read_batch(files)
    bad = [(f.name, kind, detail) for f, (kind, detail) in zip(files, outcomes)
           if kind not in ("ok", "error")]
    assert not bad, bad[:5]


def main(batches):
    """Count every outcome over ``batches`` batches of random mutations."""
    import random

    counts, examples = {}, {}
    strategy = mutated()
    rng = random.Random(0)
    for b in range(batches):
        with tempfile.TemporaryDirectory() as tmp:
            files = []
            for n in range(BATCH):
                data, suffix = strategy.example()
                f = Path(tmp) / f"f{b}_{n}{suffix}"
                f.write_bytes(data)
                files.append(f)
            for f, (kind, detail) in zip(files, read_batch(files)):
                counts[kind] = counts.get(kind, 0) + 1
                if kind not in ("ok", "error"):
                    examples.setdefault(kind, []).append((f.name, detail))
        if rng.random() < 0.1 or b == batches - 1:
            print(f"batch {b + 1}/{batches}: {counts}", flush=True)
    print(json.dumps(counts))
    for kind, ex in examples.items():
        print(kind, ex[:3])


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore")
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
