"""Where objects live: ``"cpu"`` (numpy arrays) or ``"cuda"`` (CuPy arrays).

A Matrix or Vector is on the device its arrays are on; ``A.to("cuda")``
moves it, ``set_device`` picks where new objects go when a constructor is
given no ``device=``. ``import bitgraph`` never imports CuPy: it is imported
the first time the CUDA device is asked for, and a missing CuPy or GPU is
a ``DeviceError`` saying which.

>>> import bitgraph as bg
>>> bg.get_device()
'cpu'
>>> bg.device.resolve("cpu", "example")
'cpu'
"""

from __future__ import annotations

import contextlib
import re

import numpy as np

from .errors import DeviceError, InvalidValue

__all__ = ["DEVICES", "CUDA_INSTALL_HINT", "set_device", "get_device", "resolve", "cuda_status",
           "require_cuda", "asdevice", "oom_guard", "place", "on_gpu", "host"]

DEVICES = ("cpu", "cuda")

# How to add CuPy, in the words every DeviceError and the README use (a test
# checks that they agree and that the packages are pyproject's cuda extras).
# bitgraph is not on PyPI, so "pip install 'bitgraph[cuda13]'" finds nothing:
# the extra is named on a checkout, and beside an installed wheel the extra's
# own requirement is installed.
CUDA_INSTALL_HINT = ("pip install -e '.[cuda13]' in a bitgraph checkout, or "
                     "pip install 'cupy-cuda13x>=14' beside an installed bitgraph "
                     "(CUDA 12: '.[cuda12]' or 'cupy-cuda12x>=14')")

_default = "cpu"
_status = {}  # cached cuda_status() (a GPU does not appear mid-process)


def cuda_status() -> str | None:
    """None when CUDA is usable (CuPy imports and sees a GPU), else the
    reason, as a phrase ("CuPy is not installed ...")."""
    if "cuda" in _status:
        return _status["cuda"]
    try:
        import cupy
    except Exception as e:  # ImportError, or a broken CUDA install
        reason = (f"CuPy is not installed or does not import ({type(e).__name__}: {e}); "
                  f"install it with {CUDA_INSTALL_HINT}")
    else:
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except Exception as e:
            count, err = 0, f" ({type(e).__name__}: {e})"
        else:
            err = ""
        reason = None if count > 0 else f"CuPy is installed but sees no NVIDIA GPU{err}"
    _status["cuda"] = reason
    return reason


def require_cuda(where: str):
    """The cupy module, or ``DeviceError`` naming why CUDA cannot be used."""
    reason = cuda_status()
    if reason is not None:
        raise DeviceError(f"{where}: device 'cuda' was asked for, but {reason}")
    import cupy

    return cupy


def resolve(device, where: str) -> str:
    """``"cpu"`` or ``"cuda"`` for a ``device=`` argument: None is the
    default (``set_device``), ``"auto"`` is CUDA when usable, else CPU;
    ``"cuda"`` must be usable (``DeviceError`` otherwise)."""
    if device is None:
        return _default
    if device == "auto":
        return "cuda" if cuda_status() is None else "cpu"
    if device == "cuda":
        require_cuda(where)
        return "cuda"
    if device == "cpu":
        return "cpu"
    raise InvalidValue(f"{where}: unknown device {device!r}; expected 'auto', 'cpu' or 'cuda'")


def set_device(device) -> str:
    """Set where new objects go (``"auto"``, ``"cpu"`` or ``"cuda"``);
    returns the device now in effect.

    >>> import bitgraph as bg
    >>> bg.set_device("cpu")
    'cpu'
    """
    global _default
    _default = resolve(device, "set_device")
    return _default


def get_device() -> str:
    """The device new objects go to when none is given (``set_device``).

    >>> import bitgraph as bg
    >>> before = bg.get_device()
    >>> bg.set_device("cpu"), bg.get_device()
    ('cpu', 'cpu')
    >>> _ = bg.set_device(before)
    """
    return _default


def _needed_bytes(err) -> int | None:
    m = re.search(r"allocating ([\d,]+) bytes", str(err))
    return int(m.group(1).replace(",", "")) if m else None


@contextlib.contextmanager
def oom_guard(where: str, nbytes: int | None = None):
    """Turn CuPy's out-of-memory error into ``DeviceError`` naming the bytes
    the operation needed and the bytes free on the GPU."""
    try:
        yield
    except Exception as e:
        cupy = __import__("sys").modules.get("cupy")
        if cupy is None or not isinstance(e, cupy.cuda.memory.OutOfMemoryError):
            raise
        need = _needed_bytes(e) or nbytes
        try:
            free, total = cupy.cuda.runtime.memGetInfo()
            pool = cupy.get_default_memory_pool().free_bytes()
        except Exception:
            free = total = pool = None
        need_s = f"{need:,} bytes" if need is not None else "an unknown number of bytes"
        free_s = (f"{free:,} bytes free of {total:,} on the GPU (+{pool:,} cached in"
                  f" CuPy's pool)" if free is not None else "free memory unknown")
        raise DeviceError(f"{where}: CUDA out of memory: needed {need_s}, {free_s}") from e


def asdevice(a, device: str, where: str):
    """Array ``a`` on ``device`` ("cpu" or "cuda"; no copy when it is
    there already); None stays None."""
    if a is None:
        return None
    gpu = on_gpu(a)
    if device == "cpu":
        return a.get() if gpu else np.asarray(a)
    cupy = require_cuda(where)
    if gpu:
        return a
    with oom_guard(where, int(np.asarray(a).nbytes)):
        return cupy.asarray(a)


def on_gpu(a) -> bool:
    """Is ``a`` a CuPy array? (never imports CuPy)"""
    return type(a).__module__.startswith("cupy")


def host(a):
    """``a`` as a numpy array (copied off the GPU if it is a CuPy array);
    lists and scalars through ``np.asarray``."""
    return a.get() if on_gpu(a) else np.asarray(a)


def place(obj, device, where: str, *inputs):
    """A new object ``obj`` (built on the CPU) on the device a constructor's
    ``device=`` names: None is the inputs' device when any of ``inputs`` is
    a CuPy array, else the default (``set_device``).

    >>> import bitgraph as bg
    >>> place(bg.Vector(size=2), None, "example").device
    'cpu'
    """
    if device is None and any(on_gpu(a) for a in inputs):
        device = "cuda"
    return obj.to(resolve(device, where))
