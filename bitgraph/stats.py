"""``Stats``: what a call ran and measured, when the caller asks.

Every algorithm and operation that takes ``stats=`` fills the record it is
given (Gunrock's ``collect_metrics`` / ``result_t``, LAGraph's returned
method): the method it chose, each kernel it ran (its registry key), and
the kernels' own metrics (levels, modes per level, kernel time, ...).
Nothing is measured unless a record is passed: the timing events and the
per-level traces cost time.

>>> import bitgraph as bg
>>> A = bg.io.generators.grid2d(3, 3)
>>> rec = bg.Stats()
>>> levels = bg.algorithms.bfs(A, 0, stats=rec)
>>> rec.method
'direction'
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Stats"]


@dataclass
class Stats:
    """A record filled by the call it is passed to (``stats=``).

    method: the method the call ran (``"direction"``, ``"async"``, ...);
    kernels: the registry keys ``(op, fmt, device, variant)`` it launched,
    in order, once each; metrics: what the kernels measured, by name
    (``"levels"``, ``"kernel_ms"``, ...); trace: asked for per-level
    traces (costly: the host waits for every level); traces: what they
    recorded.

    >>> rec = Stats()
    >>> rec.ran(("bfs", "csr", "cuda", "fused"))
    >>> rec.kernels
    [('bfs', 'csr', 'cuda', 'fused')]
    """
    method: str | None = None
    kernels: list = field(default_factory=list)
    metrics: dict = field(default_factory=dict)
    trace: bool = False
    traces: list = field(default_factory=list)

    def ran(self, key: tuple) -> None:
        """Note that the kernel registered under ``key`` ran (once, however
        often it is noted).

        >>> rec = Stats()
        >>> rec.ran(("mxv", "csr", "cpu", "push"))
        >>> rec.ran(("mxv", "csr", "cpu", "push"))
        >>> rec.kernels
        [('mxv', 'csr', 'cpu', 'push')]
        """
        if key not in self.kernels:
            self.kernels.append(tuple(key))
