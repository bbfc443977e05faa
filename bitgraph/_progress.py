"""Progress on the terminal for long steps, and the time each step took.

The CLI wraps each long step (reading a file, generating a graph, building a
transpose, a B2SR or a BVSS, reordering) in :meth:`Progress.step`: while the
step runs, stderr shows ``label  1.2s`` with a spinner (tqdm), and when it
ends the line is wiped and its elapsed time is added to ``.times``. Nothing
is shown unless stderr is a terminal (a pipe, a file, a notebook, CI logs and
``--json`` / ``--quiet`` stay clean), nor for steps shorter than ``delay``.
``BITGRAPH_PROGRESS=0`` turns it off, ``=1`` on even without a terminal.

>>> p = Progress(show=False)
>>> with p.step("load", "reading graph.mtx"):
...     pass
>>> sorted(p.times)
['load']
>>> sum(p.track(range(3), "repeats"))
3
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager

__all__ = ["Progress", "step", "should_show"]

DELAY = 0.5  # seconds before a step shows anything: quick steps never flicker
_TICK = 0.2  # seconds between refreshes of a shown step
_SPIN = "|/-\\"


def should_show(quiet: bool = False, stream=None) -> bool:
    """Whether progress goes to ``stream`` (default stderr): a terminal, not
    ``quiet``; the environment variable ``BITGRAPH_PROGRESS`` (0 or 1)
    overrides the terminal test (never ``quiet``)."""
    if quiet:
        return False
    env = os.environ.get("BITGRAPH_PROGRESS", "").strip()
    if env in ("0", "1"):
        return env == "1"
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or not a file
        return False


class Progress:
    """Named, timed steps; shown on a terminal (see the module docstring).

    ``show=None`` decides with :func:`should_show`; ``delay`` (default
    :data:`DELAY`) is how long a step runs before it is shown. ``times[key]`` sums the
    seconds of every step recorded under ``key``; ``order`` lists the keys
    in first-seen order.
    """

    def __init__(self, show: bool | None = None, *, stream=None, delay: float | None = None):
        self.stream = sys.stderr if stream is None else stream
        self.show = should_show(stream=self.stream) if show is None else bool(show)
        self.delay = DELAY if delay is None else float(delay)
        self.times: dict[str, float] = {}
        self.order: list[str] = []

    def _record(self, key, seconds):
        if key not in self.times:
            self.times[key] = 0.0
            self.order.append(key)
        self.times[key] += seconds

    @contextmanager
    def step(self, key: str, label: str | None = None, *, spin: bool = True):
        """Time the ``with`` block under ``key``; show ``label`` (default
        ``key``) with a spinner and the elapsed time while it runs
        (``spin=False``: time only, e.g. around a :meth:`track` bar)."""
        bar = stop = ticker = None
        if self.show and spin:
            bar, stop, ticker = self._spinner(label or key)
        t0 = time.perf_counter()
        try:
            yield self
        finally:
            self._record(key, time.perf_counter() - t0)
            if bar is not None:
                stop.set()
                ticker.join()
                bar.close()

    def _spinner(self, label):
        from tqdm import tqdm

        # no total: an elapsed-time indicator; drawn by a thread because the
        # step itself is one long call (numpy / numba) that never reports
        bar = tqdm(total=None, desc=label, file=self.stream, leave=False,
                   bar_format="{desc}  {elapsed_s:.1f}s", delay=self.delay, mininterval=_TICK / 4)
        stop = threading.Event()

        def tick():
            if stop.wait(self.delay):
                return
            i = 0
            while True:
                bar.set_description_str(f"{_SPIN[i % len(_SPIN)]} {label}", refresh=False)
                bar.update(0)  # redraws (and lets close() wipe the line)
                i += 1
                if stop.wait(_TICK):
                    return

        ticker = threading.Thread(target=tick, name="bitgraph-progress", daemon=True)
        ticker.start()
        return bar, stop, ticker

    def track(self, iterable, label: str, total: int | None = None):
        """Iterate, showing ``label`` and a bar of ``total`` items on a terminal."""
        if not self.show:
            yield from iterable
            return
        from tqdm import tqdm

        with tqdm(iterable, desc=label, total=total, file=self.stream, leave=False,
                  delay=self.delay) as bar:
            yield from bar


@contextmanager
def step(label: str, *, show: bool | None = None):
    """One timed step outside a :class:`Progress`: ``with step("building
    BVSS") as p: ...``, then ``p.times[label]`` holds the seconds.

    >>> with step("nothing", show=False) as p:
    ...     pass
    >>> list(p.times)
    ['nothing']
    """
    p = Progress(show)
    with p.step(label):
        yield p
