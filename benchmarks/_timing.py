"""The timing helper the benchmark scripts share."""

import statistics
import time


def timeit(f, repeat, stat=statistics.median):
    """``(seconds, result)``: ``stat`` (median; ``min`` for the least
    disturbed run on a shared box) of ``repeat`` timed runs of ``f`` after
    one untimed warm-up run."""
    r = f()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = f()
        ts.append(time.perf_counter() - t0)
    return stat(ts), r
