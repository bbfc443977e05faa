"""CUDA kernels: ``.cu`` sources, precompiled by nvcc into the fatbins the
wheel ships (``precompile.py``) or compiled by NVRTC (through CuPy's
bindings) once per process, and one small launcher module per source.

Importing this package imports nothing heavy; ``registry.load("cuda")``
imports the launcher modules in ``MODULES`` (they register themselves, with
the CPU launchers' signatures), and a launcher imports CuPy when first
called. ``module(source, names)`` returns a module with every
instantiation a process may ask for, by name expression (``ewise<double>``),
and caches it; each launcher declares the ``(source, names)`` it asks for
in ``SPECS`` (``SPEC_MODULES`` lists those launchers).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

import numpy as np

from bitgraph.kernels.cuda import fatbin as _fatbin

# imported (in this order) by bitgraph.kernels.registry.load("cuda")
MODULES = ("ewise", "spmv_csr", "spmspv_csr", "spgemm_csr", "reduce", "bmv_b2sr", "bmv_bvss",
           "convert_b2sr", "bmm_b2sr", "convert_bvss", "bfs_fused", "bfs_async", "bfs_window",
           "bfs_hops", "msbfs", "triangles", "pagerank", "components", "sssp", "graph_prep", "betweenness",
           "dist_traversal")

# the launchers whose SPECS name every (source, names) module() is asked
# for: one fatbin per source is built from their union (precompile.py)
SPEC_MODULES = ("ewise", "spmv_csr", "spmspv_csr", "spgemm_csr", "reduce", "bmv_b2sr",
                "bmv_bvss", "convert_b2sr", "bmm_b2sr", "convert_bvss", "bfs_fused", "bfs_async",
                "bfs_window", "bfs_hops", "msbfs_state", "triangles", "pagerank", "components", "sssp", "timing", "graph_prep",
                "betweenness", "dist_traversal", "loops")

HERE = Path(__file__).resolve().parent

# numpy dtype -> the C type the templates are instantiated with
C_TYPES = {
    np.dtype("bool"): "bool", np.dtype("int8"): "signed char", np.dtype("int16"): "short",
    np.dtype("int32"): "int", np.dtype("int64"): "long long",
    np.dtype("uint8"): "unsigned char", np.dtype("uint16"): "unsigned short",
    np.dtype("uint32"): "unsigned int", np.dtype("uint64"): "unsigned long long",
    np.dtype("float32"): "float", np.dtype("float64"): "double",
}

# IEEE results, as the CPU kernels give them: denormals kept, correctly
# rounded division and square root, no fused multiply-add contraction
# (one tuple for NVRTC and the precompiled fatbins)
OPTIONS = _fatbin.OPTIONS


def c_type(dtype) -> str:
    """The C type of a numpy dtype (``ValueError`` for one with no kernel)."""
    try:
        return C_TYPES[np.dtype(dtype)]
    except KeyError:
        raise ValueError(f"CUDA kernels: unsupported dtype {np.dtype(dtype)}") from None


def module(source: str, names: tuple):
    """``(module, lowered names)``: ``source`` (a file here) with the
    kernels ``names`` (name expressions) for the current GPU, once per
    process and device (a loaded module belongs to one device's context).

    The fatbin shipped in the wheel (``shipped_module``) when the settings
    allow it (``cuda.precompiled``), its source text is this one, it holds
    SASS for this GPU and every name; else compiled with NVRTC directly,
    not ``cupy.RawModule``: RawModule appends ``-ftz=true`` after the
    caller's options, and float32 results that are denormal came back as 0
    (measured on the H100, CuPy 14.2), where the CPU kernels keep them. The
    NVRTC binary is kept on disk (``cache_dir()``), keyed by the source
    text, options, names, GPU architecture and NVRTC version: a module with
    many instantiations takes seconds to compile. Where NVRTC fails (absent,
    or too old for the GPU) the shipped fatbin's PTX is the last resort.
    """
    import cupy

    from bitgraph.settings import current

    return _module(source, names, cupy.cuda.runtime.getDevice(),
                   bool(current().cuda.precompiled))


@functools.lru_cache(maxsize=None)
def _module(source: str, names: tuple, device: int, shipped: bool):
    # device: the current device's id, part of the key (loaded while current)
    meta = shipped_meta(source) if shipped else None
    if meta is not None and not all(name in meta["lowered"] for name in names):
        meta = None  # a name the fatbin lacks (a launcher's SPECS out of date)
    got = None if meta is None else shipped_module(source, device)
    if got is not None:
        return got[0], {name: got[1][name] for name in names}
    try:
        return _nvrtc_module(source, names, device)
    except Exception:
        got = None if meta is None else shipped_module(source, device, ptx=True)
        if got is None:
            raise
        return got[0], {name: got[1][name] for name in names}


def _nvrtc_module(source: str, names: tuple, device: int):
    import cupy
    from cupy_backends.cuda.libs import nvrtc

    arch = "sm_%s" % cupy.cuda.Device(device).compute_capability
    text = source_text(source)
    options = list(OPTIONS) + [f"-arch={arch}"]
    version = list(getattr(nvrtc, "getVersion", tuple)())
    key = hashlib.sha256(json.dumps([text, options, list(names), version])
                         .encode()).hexdigest()[:32]
    path = cache_dir() / f"{Path(source).stem}-{key}"
    try:
        cubin = path.with_suffix(".cubin").read_bytes()
        lowered = json.loads(path.with_suffix(".json").read_text())
    except (OSError, ValueError):
        cubin, lowered = _compile(nvrtc, text, source, names, options)
        _store(path, cubin, lowered)
    mod = cupy.cuda.function.Module()
    mod.load(cubin)
    return mod, lowered


def shipped_dir() -> Path:
    """Where the precompiled fatbins are: ``$BITGRAPH_CUDA_PRECOMPILED``,
    else ``precompiled/`` beside the sources (the wheel's)."""
    return Path(os.environ.get("BITGRAPH_CUDA_PRECOMPILED") or HERE / _fatbin.SHIPPED_DIR)


def shipped_meta(source: str):
    """The JSON of ``source``'s shipped fatbin (``precompile.build_one``)
    when there is one built from this source text with these options, else
    None: a fatbin of an edited source is never used.

    >>> shipped_meta("no_such.cu") is None
    True
    """
    return _shipped_meta(source, str(shipped_dir()))


@functools.lru_cache(maxsize=None)
def _shipped_meta(source: str, where: str):
    path = Path(where) / f"{Path(source).stem}.json"
    try:
        meta = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if (meta.get("format") != _fatbin.FORMAT or meta.get("source") != source
            or meta.get("options") != list(OPTIONS)
            or meta.get("key") != _fatbin.key(source_text(source))):
        return None
    return meta


def covers(meta: dict, capability: str, ptx: bool = False) -> bool:
    """Whether a shipped fatbin runs natively on a GPU of compute
    ``capability`` (CuPy's string: "90", "86", "100"): SASS of the same
    major version at or below its minor one (sm_80 runs on 8.6 and 8.9);
    with ``ptx``, also where the driver can compile its PTX (a later GPU).

    >>> covers({"sass": ["sm_80", "sm_90"], "ptx": "compute_90"}, "89")
    True
    >>> covers({"sass": ["sm_80", "sm_90"], "ptx": "compute_90"}, "100")
    False
    """
    major, minor = int(capability[:-1]), int(capability[-1])
    for target in meta.get("sass", ()):
        t = target.split("_")[1]
        if int(t[:-1]) == major and int(t[-1]) <= minor:
            return True
    target = meta.get("ptx")
    return bool(ptx and target) and int(capability) >= int(target.split("_")[1])


def shipped_module(source: str, device: int = None, ptx: bool = False):
    """``(module, lowered names)`` of ``source``'s shipped fatbin on
    ``device`` (None: the current one), or None where there is none for
    this source text, it does not cover the GPU (``covers``; ``ptx``:
    its PTX may serve) or the driver cannot load it. Loaded once per
    process and device.

    >>> shipped_module("bfs_fused.cu")  # doctest: +SKIP
    """
    import cupy

    if device is None:
        device = cupy.cuda.runtime.getDevice()
    return _shipped_module(source, device, ptx, str(shipped_dir()))


@functools.lru_cache(maxsize=None)
def _shipped_module(source: str, device: int, ptx: bool, where: str):
    import cupy

    meta = _shipped_meta(source, where)
    if meta is None or not covers(meta, cupy.cuda.Device(device).compute_capability, ptx):
        return None
    try:
        fatbin = (Path(where) / f"{Path(source).stem}.fatbin").read_bytes()
        mod = cupy.cuda.function.Module()
        mod.load(fatbin)  # the driver picks the SASS (or compiles the PTX)
    except Exception:  # unreadable, or a driver older than the fatbin's toolkit
        return None
    return mod, dict(meta["lowered"])


def cache_dir() -> Path:
    """Where compiled modules are kept: ``$BITGRAPH_CUDA_CACHE``, else
    ``~/.cache/bitgraph/cuda``."""
    return Path(os.environ.get("BITGRAPH_CUDA_CACHE")
                or Path.home() / ".cache" / "bitgraph" / "cuda")


def _store(path, cubin, lowered):
    # written under temporary names and renamed: a concurrent reader sees
    # a whole file or none; a read-only home only costs the next process
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        for suffix, data in ((".cubin", cubin), (".json", json.dumps(lowered).encode())):
            tmp = path.with_suffix(f"{suffix}.{os.getpid()}")
            tmp.write_bytes(data)
            os.replace(tmp, path.with_suffix(suffix))
    except OSError:
        pass


def _compile(nvrtc, text, source, names, options):
    prog = nvrtc.createProgram(text, source, [], [])
    try:
        for name in names:
            nvrtc.addNameExpression(prog, name)
        try:
            nvrtc.compileProgram(prog, options)
        except Exception as e:
            raise RuntimeError(f"NVRTC could not compile {source}:\n"
                               f"{nvrtc.getProgramLog(prog)}") from e
        cubin = nvrtc.getCUBIN(prog)
        lowered = {name: nvrtc.getLoweredName(prog, name) for name in names}
    finally:
        nvrtc.destroyProgram(prog)
    return cubin, lowered


def function_names(templates) -> tuple:
    """The name expressions ``function`` compiles for ``templates``: each
    template for every C type.

    >>> function_names(("unary",))[:2]
    ('unary<bool>', 'unary<signed char>')
    """
    return tuple(f"{t}<{c}>" for t in templates for c in C_TYPES.values())


def function(source: str, template: str, dtype, templates=()):
    """The kernel ``template<C type of dtype>`` of ``source``. The module is
    compiled with every template in ``templates`` for all dtypes at once,
    so a process compiles each source once."""
    mod, lowered = module(source, function_names(templates or (template,)))
    return mod.get_function(lowered[f"{template}<{c_type(dtype)}>"])


def source_text(source: str) -> str:
    """The source with its local ``#include "x.cuh"`` lines replaced by the
    headers' text: CuPy caches compiled modules by their code string, so a
    header edit must change that string (an -I include would reuse a
    stale binary)."""
    return _fatbin.source_text(source, HERE)


_COOPERATIVE = {}


def cooperative_blocks(fn, threads: int, per_sm_max: int, smem: int = 0) -> int:
    """Blocks of a cooperative launch of ``fn`` (``threads`` a block, ``smem``
    bytes of dynamic shared memory): all must be resident at once, so at
    most what the occupancy allows per multiprocessor, capped at
    ``per_sm_max`` (every block arrives at each grid barrier, so fewer
    blocks make a barrier cheaper); asked of the driver once per kernel,
    shape and device.

    >>> blocks = cooperative_blocks(fn, 1024, 1)  # doctest: +SKIP
    """
    import cupy
    from cupy.cuda import driver

    device = cupy.cuda.runtime.getDevice()
    key = (fn.ptr, threads, per_sm_max, smem, device)
    got = _COOPERATIVE.get(key)
    if got is None:
        # past 48 KiB of dynamic shared memory a kernel must opt in; the
        # attribute is the kernel's, so it only grows (a launch asking for
        # less must not lower it below what an earlier shape was given)
        most = _COOPERATIVE.get((fn.ptr, device), 0)
        if smem > most:
            driver.funcSetAttribute(fn.ptr, getattr(
                driver, "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", 8), smem)
            _COOPERATIVE[(fn.ptr, device)] = smem
        try:
            per_sm = driver.occupancyMaxActiveBlocksPerMultiprocessor(fn.ptr, threads, smem)
        except Exception:  # older CuPy: the thread count bounds it
            per_sm = 2048 // threads
        got = _COOPERATIVE[key] = max(1, min(per_sm, per_sm_max)) * multiprocessors()
    return got


def captured(kept: dict, key: tuple, work):
    """The CUDA graph of ``work(stream_ptr)``'s launches, captured on a new
    stream the first time ``key`` is asked of ``kept`` (a dict the
    launcher keeps) and kept: ``key`` names every value the launches bake
    in (pointers, sizes, constants). A few graphs a dict are kept (msbfs's
    closeness alternates batches of 64 and its last one); a capture costs
    its launches' host time and an instantiation. A replay costs one
    launch's host time.

    >>> captured({}, ("noop",), lambda sp: None).launch(stream)  # doctest: +SKIP
    """
    import cupy

    def capture():
        cs = cupy.cuda.Stream(non_blocking=True)
        with cs:
            cs.begin_capture()
            try:
                work(cs.ptr)
            finally:
                got = cs.end_capture()
        return got

    return kept_graph(kept, key, capture)


def kept_graph(kept: dict, key: tuple, make):
    """``kept[key]``, made by ``make()`` the first time it is asked for; the
    dict keeps its last four graphs (the oldest go first): what ``captured``
    and ``loops.while_loop`` keep per launcher.

    >>> kept = {}
    >>> [kept_graph(kept, (i,), lambda: i * i) for i in range(6)], sorted(kept)
    ([0, 1, 4, 9, 16, 25], [(2,), (3,), (4,), (5,)])
    """
    got = kept.get(key)
    if got is None:
        old = list(kept)
        for x in old[:max(0, len(old) - 3)]:
            del kept[x]
        got = kept[key] = make()
    return got


def arg_word(a) -> int:
    """A launch argument as the 64-bit word a kernel parameter slot holds:
    a CuPy array (anything with ``.data.ptr``) its device address, None a
    null pointer, a numpy scalar its bytes (zero-extended: the driver copies
    the parameter's own size from the slot's start, little-endian), a
    Python int as int64 (as CuPy passes it).

    >>> import numpy as np
    >>> hex(arg_word(np.int32(-1))), arg_word(np.int64(-1)) == 2**64 - 1, arg_word(None)
    ('0xffffffff', True, 0)
    >>> hex(arg_word(np.float32(1.0)))
    '0x3f800000'
    """
    if a is None:
        return 0
    ptr = getattr(getattr(a, "data", None), "ptr", None)
    if ptr is not None:
        return int(ptr)
    if isinstance(a, (bool, np.bool_)):
        raise TypeError("launch argument: a bool has no fixed C size; pass np.int32 or np.uint8")
    if isinstance(a, int):
        return a & 0xFFFF_FFFF_FFFF_FFFF  # two's complement, 64 bits
    if isinstance(a, np.generic) and a.dtype.itemsize <= 8 and a.dtype.kind in "iuf":
        return int(np.asarray(a).reshape(1).view(np.dtype(f"u{a.dtype.itemsize}"))[0])
    raise TypeError(f"launch argument: expected a CuPy array, None or a numpy scalar of at"
                    f" most 8 bytes, got {type(a).__name__}")


class PackedLaunch:
    """One kernel's launch with its arguments packed once into parameter
    slots (8 bytes each), launched through the driver: CuPy's launch
    converts every argument on every call (bfs_fused's 29: ~15 us of host
    time), this one copies nothing but the slots ``set`` changes.

    fn: a loaded kernel (``module(...)[0].get_function``; kept alive here);
    grid, block: 1-D sizes; args: what CuPy's launch would take (CuPy
    arrays, numpy scalars of the parameters' exact C types, None for a null
    pointer; the arrays are kept alive here); smem: dynamic shared memory;
    cooperative: ``cuLaunchCooperativeKernel``. ``set(i, word)`` changes
    parameter i (a device address, or ``arg_word`` of a scalar); calling
    ``launch(stream_ptr)`` queues the kernel on that stream. The driver
    copies the parameters at the launch, so the slots may change right
    after it. Not for two threads at once: the caller serialises ``set``
    and ``launch`` (a lock).

    >>> run = PackedLaunch(fn, 132, 1024, (levels, np.int64(n)), cooperative=True)  # doctest: +SKIP
    >>> run.set(0, other.data.ptr); run.launch(stream.ptr)  # doctest: +SKIP
    """

    __slots__ = ("fn", "grid", "block", "smem", "cooperative", "words", "slots", "params", "keep",
                 "_view", "_driver")

    def __init__(self, fn, grid: int, block: int, args, *, smem: int = 0,
                 cooperative: bool = False):
        self._driver = None  # cupy.cuda.driver, bound at the first launch (an import
        #                      statement per launch costs ~0.5 us)
        self.fn = fn
        self.grid, self.block, self.smem = int(grid), int(block), int(smem)
        self.cooperative = bool(cooperative)
        self.keep = tuple(args)
        self.words = np.array([arg_word(a) for a in self.keep] or [0], np.uint64)
        # slot i's address: what kernelParams[i] points at
        self.slots = np.uint64(self.words.ctypes.data) + 8 * np.arange(
            self.words.shape[0], dtype=np.uint64)
        self.params = int(self.slots.ctypes.data)
        self._view = memoryview(self.words).cast("B").cast("Q")  # item sets without numpy

    def set(self, i: int, word: int) -> None:
        """Parameter ``i`` becomes ``word`` (a device address or ``arg_word``)."""
        self._view[i] = word

    def put(self, i: int, arg) -> None:
        """Parameter ``i`` becomes ``arg``, given as the constructor takes
        it (a CuPy array, None, a numpy scalar of the parameter's C type);
        the caller keeps an array alive until the launch is queued."""
        self._view[i] = arg_word(arg)

    def launch(self, stream_ptr: int) -> None:
        """Queue the kernel on the stream ``stream_ptr`` (0: the legacy default)."""
        driver = self._driver
        if driver is None:
            from cupy.cuda import driver

            self._driver = driver
        if self.cooperative:
            driver.launchCooperativeKernel(self.fn.ptr, self.grid, 1, 1, self.block, 1, 1,
                                           self.smem, stream_ptr, self.params)
        else:
            driver.launchKernel(self.fn.ptr, self.grid, 1, 1, self.block, 1, 1, self.smem,
                                stream_ptr, self.params, 0)


def settings(cfg=None):
    """The ``Cuda`` settings of a launch: ``cfg``, or those in force
    (``bitgraph.settings.current().cuda``) when None.

    >>> settings().threads
    256
    """
    if cfg is None:
        from bitgraph.settings import current
        cfg = current().cuda
    return cfg


def grid(n: int, cfg=None) -> int:
    """Blocks for a grid-stride launch over n items: enough for n at
    ``cfg.threads`` a block, at most ``cfg.blocks_per_sm`` per
    multiprocessor (cfg: the ``Cuda`` settings; None: those in force)."""
    cfg = settings(cfg)
    threads = int(cfg.threads)
    return max(1, min((n + threads - 1) // threads, multiprocessors() * int(cfg.blocks_per_sm)))


def shape(n: int, cfg=None) -> tuple:
    """``((blocks,), (threads,))`` of a grid-stride launch over n items, by
    the ``Cuda`` settings ``cfg`` (None: those in force): ``fn(*shape(n), args)``."""
    cfg = settings(cfg)
    return (grid(n, cfg),), (int(cfg.threads),)


def multiprocessors() -> int:
    """The current GPU's multiprocessor count (cached per device: reading
    ``Device().attributes`` costs 15-30 us a call, as much as a small kernel)."""
    import cupy

    dev = cupy.cuda.runtime.getDevice()
    return _sm_count(dev)


@functools.lru_cache(maxsize=None)
def _sm_count(dev: int) -> int:
    import cupy

    return cupy.cuda.runtime.deviceGetAttribute(
        cupy.cuda.runtime.cudaDevAttrMultiProcessorCount, dev)


def optin_shared_bytes() -> int:
    """Bytes of dynamic shared memory a block of the current GPU may opt in
    to (cached per device, as ``multiprocessors``)."""
    import cupy

    return _optin_bytes(cupy.cuda.runtime.getDevice())


@functools.lru_cache(maxsize=None)
def _optin_bytes(dev: int) -> int:
    import cupy

    return cupy.cuda.runtime.deviceGetAttribute(
        cupy.cuda.runtime.cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)
