"""The device seam on a machine without CUDA: defaults, names, and the
errors that say what is missing (tests/gpu/ covers a real GPU)."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

import bitgraph as bg
from bitgraph import device

pytestmark = pytest.mark.skipif(device.cuda_status() is None,
                                reason="CUDA is usable here: tests/gpu covers it")


def test_defaults_and_names():
    assert bg.get_device() == "cpu"
    assert device.resolve(None, "t") == "cpu"
    assert device.resolve("auto", "t") == "cpu"
    assert bg.set_device("auto") == "cpu" and bg.get_device() == "cpu"
    with pytest.raises(bg.InvalidValue, match=r"set_device: unknown device 'gpu'; expected"):
        bg.set_device("gpu")
    assert bg.get_device() == "cpu"  # a failed call changes nothing


def test_cuda_asked_for_without_it():
    A = bg.Matrix.from_coo([0, 1], [1, 0], [1.5, 2.5], nrows=2, ncols=2)
    v = bg.Vector.from_coo([1], [3], size=2)
    for call, where in ((lambda: A.to("cuda"), "Matrix.to"), (lambda: A.T.to("cuda"), "Matrix.to"),
                        (lambda: v.to("cuda"), "Vector.to"),
                        (lambda: bg.set_device("cuda"), "set_device")):
        with pytest.raises(bg.DeviceError, match=rf"^{where}: device 'cuda' was asked for, but "
                                                   rf"(CuPy is not installed|CuPy is installed but"
                                                   rf" sees no NVIDIA GPU)"):
            call()
    assert bg.get_device() == "cpu"
    assert A.to("cpu") is A and v.to("auto") is v and A.T.to("cpu").T is A


def test_oom_becomes_device_error(monkeypatch):
    """CuPy's OutOfMemoryError turns into a DeviceError with the bytes
    needed and free (a stand-in cupy module: no GPU here)."""
    class OutOfMemoryError(MemoryError):
        pass

    fake = types.ModuleType("cupy")
    fake.cuda = types.SimpleNamespace(
        memory=types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError),
        runtime=types.SimpleNamespace(memGetInfo=lambda: (1_000, 80_000)))
    fake.get_default_memory_pool = lambda: types.SimpleNamespace(free_bytes=lambda: 24)
    monkeypatch.setitem(sys.modules, "cupy", fake)
    with pytest.raises(bg.DeviceError, match=r"^mxv: CUDA out of memory: needed 4,096 bytes, "
                                             r"1,000 bytes free of 80,000 on the GPU"):
        with device.oom_guard("mxv"):
            raise OutOfMemoryError("Out of memory allocating 4,096 bytes (allocated so far: 0 bytes).")
    with pytest.raises(ValueError):  # other errors pass through unchanged
        with device.oom_guard("mxv"):
            raise ValueError("x")


def test_asdevice_cpu():
    a = np.arange(3)
    assert device.asdevice(a, "cpu", "t") is a
    assert device.asdevice(None, "cuda", "t") is None


def test_constructors_and_readers_take_device(tmp_path):
    A = bg.Matrix.from_coo([0, 1], [1, 0], [1.5, 2.5], nrows=2, ncols=2, device="cpu")
    assert A.device == "cpu" and bg.Matrix.from_coo([0], [1], device="auto").device == "cpu"
    path = tmp_path / "a.mtx"
    bg.io.write_mtx(path, A)
    calls = {
        "Matrix.from_coo": lambda: bg.Matrix.from_coo([0], [1], device="cuda"),
        "Matrix.from_csr": lambda: bg.Matrix.from_csr([0, 1], [0], device="cuda"),
        "Matrix.from_scipy": lambda: bg.Matrix.from_scipy(A.to_scipy(), device="cuda"),
        "Matrix": lambda: bg.Matrix(int, 2, 2, device="cuda"),
        "Vector": lambda: bg.Vector(int, 2, device="cuda"),
        "Vector.from_coo": lambda: bg.Vector.from_coo([0], [1], size=2, device="cuda"),
        "Vector.from_indices": lambda: bg.Vector.from_indices([0], size=2, device="cuda"),
        "Vector.from_dense": lambda: bg.Vector.from_dense([1, 2], device="cuda"),
        "Matrix.from_coo ": lambda: bg.io.read(path, device="cuda"),
        "from_spec": lambda: bg.io.generators.from_spec("grid:2x2", device="cuda"),
    }
    for where, call in calls.items():
        with pytest.raises(bg.DeviceError, match=rf"^{where.strip()}: device 'cuda' was asked for"):
            call()
    with pytest.raises(bg.InvalidValue, match=r"Vector.from_coo: unknown device 'gpu'"):
        bg.Vector.from_coo([0], size=1, device="gpu")
    assert bg.io.read(path, device="cpu").isequal(A)
