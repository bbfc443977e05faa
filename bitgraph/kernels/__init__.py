"""Pure compute kernels: ``t = A (+).(x) u`` in one format on one device.

Kernels know no GraphBLAS semantics (no mask complement, accum or replace):
``bitgraph.ops`` hands them plain arrays (an ``allowed`` bitmap at most) and
merges their raw result. Each launcher is registered in
``bitgraph.kernels.registry`` under (op, fmt, device, variant); print the
table with ``python -m bitgraph.kernels``.

This package imports nothing heavy: numba (``cpu/``) and CuPy (``cuda/``)
are imported when ``registry.load(device)`` or the first ``lookup`` of that
device runs. ``opcodes`` holds the integer codes of the operators.
"""
