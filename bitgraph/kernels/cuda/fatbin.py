"""The precompiled CUDA modules, built and read: every ``.cu`` here built
by nvcc into one fatbin (SASS for ``SASS_TARGETS``, PTX for
``PTX_TARGET``) with every instantiation a launcher asks for, and a JSON of
each name expression's mangled (lowered) name. ``precompile.py`` is the
command; the wheel build runs ``build`` where nvcc exists (``setup.py``);
at run time ``bitgraph.kernels.cuda.module`` loads a shipped fatbin
instead of compiling the source with NVRTC.

The instantiations of a source are the union of the name tuples its
launchers pass to ``module`` (each launcher declares them in ``SPECS``);
``modules.json`` holds them, generated from the launchers by
``python -m bitgraph.kernels.cuda.precompile --specs`` and committed (the
build runs without numpy or a GPU; a test checks it is current). nvcc
compiles a wrapper that includes the source and takes each name
expression's address in host code; the mangled names come from the PTX
``.entry`` lines, matched to the name expressions by demangling
(``cu++filt``, else binutils' ``c++filt``) and comparing without
whitespace. A name no symbol matches fails the build.

Options are NVRTC's (``OPTIONS``: IEEE results, no FMA contraction, C++17).
Each fatbin's JSON carries ``key(text)``, a hash of the source text (local
headers expanded) and the options: a fatbin built from another text is
never loaded. This module uses the standard library only (``setup.py``
loads it by path, before numpy is installed).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# IEEE results, as the CPU kernels give them: denormals kept, correctly
# rounded division and square root, no fused multiply-add contraction
# (the NVRTC path adds -arch=sm_XX of the device)
OPTIONS = ("-std=c++17", "-ftz=false", "-prec-div=true", "-prec-sqrt=true", "-fmad=false")

# SASS shipped per architecture (sm_80's also runs on 8.6/8.7/8.9), and the
# PTX the driver can compile for a later one
SASS_TARGETS = ("sm_80", "sm_90")
PTX_TARGET = "compute_90"

SPECS_FILE = "modules.json"    # source -> every name expression, in HERE
SHIPPED_DIR = "precompiled"    # <stem>.fatbin + <stem>.json, in HERE (the wheel)
FORMAT = "bitgraph-fatbin-1"    # the layout of the JSON beside a fatbin


def source_text(source: str, directory: Path = HERE) -> str:
    """The source with its local ``#include "x.cuh"`` lines replaced by the
    headers' text (a header edit changes the text, so its hash)."""
    def expand(m):
        return (directory / m.group(1)).read_text()
    return re.sub(r'^#include "([\w.]+)"[ \t]*(?://.*)?$', expand,
                  (directory / source).read_text(), flags=re.M)


def key(text: str) -> str:
    """The hash a shipped fatbin is kept under: source text and options."""
    return hashlib.sha256(json.dumps([text, list(OPTIONS)]).encode()).hexdigest()[:32]


def read_specs(directory: Path = HERE) -> dict:
    """``{source: [name expression, ...]}`` of ``modules.json``."""
    return json.loads((directory / SPECS_FILE).read_text())


def wrapper(text: str, names) -> str:
    """A translation unit of the source whose host code takes the address
    of every name expression: nvcc instantiates each kernel template."""
    refs = ",\n".join(f"    (const void*)&{name}" for name in names)
    return (f"{text}\n\n// every kernel a launcher asks for, instantiated\n"
            f"extern const void* const bitgraph_precompiled_kernels[];\n"
            f"const void* const bitgraph_precompiled_kernels[] = {{\n{refs}\n}};\n")


def _normal(name: str) -> str:
    # a name expression or a demangled name, comparable: no whitespace,
    # integer literals without the suffixes and casts a demangler writes
    # ("4u", "(char)1")
    s = re.sub(r"\s+", "", name)
    s = re.sub(r"\((?:unsigned)?(?:char|short|int|long|longlong|signedchar)\)(-?\d+)", r"\1", s)
    return re.sub(r"(?<![\w.])(-?\d+)(?:ull|ll|ul|u|l)\b", r"\1", s, flags=re.I)


def kernel_name(demangled: str) -> str:
    """``f<int, 4>`` of a demangled ``void f<int, 4>(int*, ...)``: the
    return type and the parameter list dropped."""
    s = demangled.strip()
    depth = 0
    for i, ch in enumerate(s):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0 and i > 0:
            s = s[:i]
            break
    if s.startswith("void "):
        s = s[len("void "):]
    return s


def demangler() -> list:
    """The command that demangles symbols given as arguments: cu++filt,
    else binutils' c++filt, else llvm-cxxfilt."""
    for tool in ("cu++filt", "c++filt", "llvm-cxxfilt"):
        path = shutil.which(tool)
        if path:
            return [path]
    raise RuntimeError("precompile: no demangler (cu++filt, c++filt or llvm-cxxfilt) on PATH")


def constants(text: str) -> dict:
    """``{NAME: value}`` of the source's integer ``constexpr`` and
    ``#define`` constants (a demangler writes ``f<0>`` for ``f<FMT_CSR>``)."""
    found = dict(re.findall(r"^\s*#define\s+(\w+)\s+\(?(-?\d+)[uUlL]*\)?\s*$", text, flags=re.M))
    found.update(re.findall(r"\bconstexpr\s+(?:static\s+)?(?:unsigned\s+|signed\s+)?"
                            r"(?:int|long\s+long|long|short|char|bool)\s+(\w+)\s*=\s*"
                            r"\(?(-?\d+)[uUlL]*\)?\s*;", text))
    return found


def resolve(name: str, values: dict) -> str:
    """The name expression with each constant of ``values`` replaced by its
    value: ``bfs_fused<FMT_CSR, int>`` -> ``bfs_fused<0, int>``."""
    return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: values.get(m.group(0), m.group(0)), name)


def match(names, symbols, demangle, values=None) -> dict:
    """``{name expression: mangled symbol}``; ``demangle(list) -> list``;
    ``values``: the source's constants (``constants``). Raises
    ``RuntimeError`` naming every name expression no symbol matches."""
    plain = [s for s in symbols if not s.startswith("_Z")]
    mangled = [s for s in symbols if s.startswith("_Z")]
    found = {s: s for s in plain}  # extern "C" kernels keep their name
    for sym, dem in zip(mangled, demangle(mangled) if mangled else []):
        found.setdefault(_normal(kernel_name(dem)), sym)
    lowered, missing = {}, []
    for name in names:
        sym = found.get(_normal(resolve(name, values or {})))
        if sym is None:
            missing.append(name)
        else:
            lowered[name] = sym
    if missing:
        raise RuntimeError(f"precompile: no kernel symbol matches {missing}; symbols: "
                           f"{sorted(demangle(mangled) if mangled else []) + plain}")
    return lowered


def _demangle(symbols) -> list:
    out = subprocess.run(demangler() + list(symbols), check=True, capture_output=True,
                         text=True).stdout.splitlines()
    if len(out) != len(symbols):
        raise RuntimeError(f"precompile: the demangler gave {len(out)} lines for "
                           f"{len(symbols)} symbols")
    return out


def nvcc_command(nvcc: str, src: Path, out: Path, keep: Path) -> list:
    """nvcc's command line for one wrapper: the fatbin of every target."""
    gencode = [f"-gencode=arch=compute_{t[3:]},code={t}" for t in SASS_TARGETS]
    gencode.append(f"-gencode=arch={PTX_TARGET},code={PTX_TARGET}")
    # --threads: the targets compiled in parallel (the largest source is
    # the build's critical path); --compress-mode=size: 4.3x smaller than
    # uncompressed (nvcc 13's default here) for 1.1x the time (6 bmv_b2sr
    # kernels: 918 -> 212 KB)
    return [nvcc, "-fatbin", *OPTIONS, *gencode, f"--threads={len(gencode)}",
            "--compress-mode=size",
            "-keep", f"-keep-dir={keep}",
            "-o", str(out), str(src)]


def build_one(source: str, names, outdir: Path, nvcc: str = "nvcc",
              directory: Path = HERE) -> dict:
    """Compile ``source`` (a file in ``directory``) with ``names`` into
    ``outdir/<stem>.fatbin`` and write ``outdir/<stem>.json``; returns the JSON."""
    import tempfile

    text = source_text(source, directory)
    stem = Path(source).stem
    with tempfile.TemporaryDirectory(prefix=f"bitgraph-{stem}-") as tmp:
        tmp = Path(tmp)
        src = tmp / f"{stem}_precompiled.cu"
        src.write_text(wrapper(text, names))
        fatbin = tmp / f"{stem}.fatbin"
        got = subprocess.run(nvcc_command(nvcc, src, fatbin, tmp), capture_output=True,
                             text=True)
        if got.returncode:
            raise RuntimeError(f"precompile: nvcc could not compile {source}:\n"
                               f"{got.stdout}{got.stderr}")
        ptx = (tmp / f"{src.stem}.{PTX_TARGET}.ptx").read_text()
        symbols = list(dict.fromkeys(re.findall(r"^\s*(?:\.\w+\s+)*\.entry\s+([\w$]+)\s*\(",
                                                ptx, flags=re.M)))
        lowered = match(names, symbols, _demangle, constants(text))
        outdir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(fatbin, outdir / f"{stem}.fatbin")
    meta = {"format": FORMAT, "source": source, "key": key(text), "options": list(OPTIONS),
            "sass": list(SASS_TARGETS), "ptx": PTX_TARGET, "lowered": lowered}
    (outdir / f"{stem}.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def build(outdir, sources=None, jobs=None, nvcc="nvcc", directory: Path = HERE,
          log=print) -> dict:
    """Every source of ``modules.json`` (or those named) compiled into
    ``outdir``, ``jobs`` nvcc processes at once (default: the CPU count);
    ``{source: seconds}``. The largest go first."""
    from concurrent.futures import ThreadPoolExecutor

    specs = read_specs(directory)
    todo = list(sources) if sources else list(specs)
    unknown = [s for s in todo if s not in specs]
    if unknown:
        raise RuntimeError(f"precompile: {unknown} not in {SPECS_FILE}")
    todo.sort(key=lambda s: -len(specs[s]))
    outdir = Path(outdir)

    def one(source):
        t0 = time.perf_counter()
        build_one(source, specs[source], outdir, nvcc, directory)
        took = time.perf_counter() - t0
        log(f"precompiled {source}: {len(specs[source])} kernels, {took:.1f} s")
        return source, took
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        return dict(pool.map(one, todo))
