"""A team of threads inside one numba call: the join, the barrier and the
spin-wait that the CPU kernels whose loop runs on every thread at once share
(``sssp.py``'s delta-stepping rounds, ``pagerank.py``'s power iteration).

Thread 0 runs on the caller's thread, the others on the pool
(``run_team``); each calls ``join`` first. A helper the pool does not start
(a busy pool) is not waited for: thread 0 closes the joining after a bounded
wait (``JOIN_SPINS`` checks) and the team is the threads that came, ranked in
order of arrival; one that comes later leaves at once. The shared state is
one int64 array ``sync`` per call, fresh (zeroed) for each: slot ``JOINED``
(threads joined, plus ``CLOSED`` once the team is closed), slot ``BAR``
(barrier arrivals: they only grow, so the k-th barrier waits for k * team),
and the caller's own slots from ``FIRST`` on, a cache line (8 slots) apart.

Waiting threads spin with ``pause`` and yield the CPU after ``spin_pauses``
checks (on a busy machine a spinning thread may hold the CPU its peer needs:
``settings.sssp.spin_pauses``).
"""

import numpy as np
from numba import njit

from bitgraph.kernels.cpu import _submit
from bitgraph.kernels.cpu.bits import arrive, cas, load_acquire, pause, yield_cpu

__all__ = ["JOINED", "BAR", "FIRST", "CLOSED", "JOIN_SPINS", "wait", "barrier", "join",
           "run_team"]

JOINED, BAR, FIRST = 0, 8, 16
CLOSED = 1 << 40
# join checks (each a pause, ~20-30 ns on Zen 3: ~25 ms in all) before
# thread 0 goes on without a helper that never started (a busy pool)
JOIN_SPINS = 1 << 20


@njit(inline="always")
def wait(spins, limit):
    """One check of a spin-wait that has made ``spins`` checks so far: a
    pause for the first ``limit``, then a yield of the CPU; returns spins + 1."""
    if spins < limit:
        pause()
    else:
        yield_cpu()
    return spins + 1


@njit(inline="always")
def barrier(sync, target, spin_pauses):
    """Arrive (publishing this thread's writes), then wait until ``target``
    arrivals in all (the k-th barrier of a team of m: k * m)."""
    arrive(sync, BAR, 1)
    spins = 0
    while load_acquire(sync, BAR) < target:
        spins = wait(spins, spin_pauses)


@njit(inline="always")
def join(t, threads, sync, spin_pauses):
    """``(rank, team)`` of thread ``t`` of ``threads``: thread 0 is rank 0 and
    closes the team once the other ``threads - 1`` joined or after
    ``JOIN_SPINS`` checks; a helper ranks in order of arrival and waits for
    the close. rank -1 (team 0): a helper that came after the close."""
    if t > 0:
        while True:
            j = load_acquire(sync, JOINED)
            if j >= CLOSED:
                return -1, 0
            if cas(sync, JOINED, j, j + 1):
                rank = j + 1
                break
        spins = 0
        while load_acquire(sync, JOINED) < CLOSED:
            spins = wait(spins, spin_pauses)
        return rank, load_acquire(sync, JOINED) - CLOSED + 1
    spins = 0
    while True:
        j = load_acquire(sync, JOINED)
        if j >= threads - 1 or spins >= JOIN_SPINS:
            if cas(sync, JOINED, j, j + CLOSED):
                return 0, j + 1
        spins += 1
        pause()


def run_team(fn, threads, *args):
    """``fn(t, threads, *args)`` for t in 0..threads-1, t = 0 on this thread
    (its result returned) and the others on the pool; returns once every
    helper that started has returned (one never started is dropped). ``fn``:
    an ``@njit(nogil=True)`` function that calls ``join`` first.

    >>> @njit(nogil=True)
    ... def ranks(t, threads, sync):
    ...     rank, team = join(t, threads, sync, 1024)
    ...     return team
    >>> run_team(ranks, 2, np.zeros(FIRST, np.int64)) in (1, 2)
    True
    """
    helpers = [_submit(fn, t, threads, *args) for t in range(1, threads)]
    try:
        return fn(0, threads, *args)
    finally:
        for h in helpers:  # joined ones leave at once; one never started is dropped
            if not h.cancel():
                h.result()
