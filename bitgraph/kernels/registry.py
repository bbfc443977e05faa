"""The kernel registry: one hop from an op name to the function that runs it.

A kernel launcher registers itself at its definition site with literal keys::

    @register("mxv", fmt="csr", device="cpu", variant="pull",
              warmup=_warm_pull)
    def spmv_pull(A, x_values, x_bitmap, allowed, sr, flipped): ...

and ``plan``/``ops`` find it with ``lookup("mxv", fmt="csr", device="cpu",
variant="pull")``. ``python -m bitgraph.kernels`` prints the table.

Importing this module imports neither numba nor CuPy: the kernel modules of a
device are imported by ``load(device)``, which ``lookup`` calls the first time
a key of that device is missing. ``import bitgraph`` stays light.

``warmup`` (optional) is ``f(dtype, index_dtype)``: it runs the launcher on
tiny inputs so that every numba specialisation for that dtype is compiled
(``python -m bitgraph.kernels.warmup``).
"""

import importlib
from typing import Any, Callable, NamedTuple, Optional

import numpy as np

from bitgraph.formats.csr import CSR  # the one CSR tuple, shared with ops

__all__ = [
    "CSR", "SemiringSpec", "Entry", "register", "lookup", "load", "entries",
    "table",
    "DTYPES", "INDEX_DTYPES",
]

# the dtypes every generic kernel is specialised on (and warmed up for)
DTYPES = tuple(np.dtype(t) for t in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "float32", "float64"))
INDEX_DTYPES = (np.dtype("int32"), np.dtype("int64"))

# the modules of each device, imported by load(device)
_DEVICE_MODULES = {
    "cpu": "bitgraph.kernels.cpu",
    "cuda": "bitgraph.kernels.cuda",
}


class SemiringSpec(NamedTuple):
    """A semiring as kernels see it: dtype T, op codes and monoid scalars.

    add: monoid code (PLUS, TIMES, MIN, MAX, ANY, LOR, LAND, LXOR, EQ);
    mult: any binary code, positional ones included; identity: T scalar;
    terminal: T scalar or None (a reduction may stop once it is reached; ANY
    always stops after its first value).
    """
    dtype: np.dtype
    add: int
    mult: int
    identity: Any
    terminal: Any = None


class Entry(NamedTuple):
    op: str
    fmt: str
    device: str
    variant: str
    func: Callable
    module: str
    warmup: Optional[Callable]


_REGISTRY: dict = {}
_LOADED: set = set()


def register(op, *, fmt, device, variant, warmup=None):
    """Decorator: register ``func`` under (op, fmt, device, variant)."""
    key = (op, fmt, device, variant)

    def deco(func):
        old = _REGISTRY.get(key)
        if old is not None and (old.module, old.func.__qualname__) != (
                func.__module__, func.__qualname__):
            raise ValueError(
                f"register: {key} is already registered by "
                f"{old.module}.{old.func.__qualname__}")
        _REGISTRY[key] = Entry(op, fmt, device, variant, func,
                               func.__module__, warmup)
        return func

    return deco


def load(device="cpu"):
    """Import the kernel modules of ``device`` (they register themselves)."""
    if device in _LOADED:
        return
    try:
        package = _DEVICE_MODULES[device]
    except KeyError:
        raise ValueError(f"kernels.load: unknown device {device!r}; "
                         f"known: {sorted(_DEVICE_MODULES)}") from None
    pkg = importlib.import_module(package)
    for name in pkg.MODULES:
        importlib.import_module(f"{package}.{name}")
    _LOADED.add(device)


def lookup(op, *, fmt, device, variant):
    """The launcher registered under (op, fmt, device, variant)."""
    key = (op, fmt, device, variant)
    entry = _REGISTRY.get(key)
    if entry is None and device not in _LOADED and device in _DEVICE_MODULES:
        load(device)
        entry = _REGISTRY.get(key)
    if entry is None:
        have = sorted(k for k in _REGISTRY if k[0] == op)
        raise KeyError(f"kernels.lookup: no kernel {key}; registered for "
                       f"{op!r}: {have or 'none'}")
    return entry.func


def entries(device=None):
    """Registered entries (of ``device``, or of every device), by key."""
    for dev in ([device] if device is not None else _DEVICE_MODULES):
        load(dev)
    return [e for k, e in sorted(_REGISTRY.items())
            if device is None or e.device == device]


def table(device=None):
    """Rows (op, fmt, device, variant, 'module.function') for printing."""
    return [(e.op, e.fmt, e.device, e.variant,
             f"{e.module}.{e.func.__name__}") for e in entries(device)]
