"""``python -m bitgraph.distributed --nproc N script.py args...``: N ranks of
``script.py`` on this host, with the environment torchrun would give each
(``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``, ``LOCAL_WORLD_SIZE``,
``MASTER_ADDR=127.0.0.1``, ``MASTER_PORT`` a free port) plus
``BITGRAPH_STORE_PORT`` (a second free port, for the NCCL id's store) and
``NCCL_NVLS_ENABLE=0`` unless set. Waits for them; when one fails, the
others are stopped (SIGTERM, then SIGKILL after ``--grace`` seconds).
Exit status: 0 when every rank exits 0, else the worst status among the
ranks that ended by themselves (a signal as 128 + its number).

In a script: ``comm = bitgraph.distributed.init()``.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time

__all__ = ["main", "free_ports", "rank_environment"]


def free_ports(count: int) -> list:
    """``count`` distinct TCP ports free on 127.0.0.1 now (the OS picks
    them; all held open together so they differ)."""
    socks = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def rank_environment(base, rank: int, nproc: int, master_port: int, store_port: int) -> dict:
    """The environment of rank ``rank`` of ``nproc`` on this host.

    >>> env = rank_environment({}, 1, 2, 29500, 29501)
    >>> env["RANK"], env["WORLD_SIZE"], env["LOCAL_RANK"], env["MASTER_ADDR"], env["MASTER_PORT"]
    ('1', '2', '1', '127.0.0.1', '29500')
    """
    env = dict(base)
    env.update(RANK=str(rank), WORLD_SIZE=str(nproc), LOCAL_RANK=str(rank),
               LOCAL_WORLD_SIZE=str(nproc), GROUP_RANK="0", MASTER_ADDR="127.0.0.1",
               MASTER_PORT=str(master_port), BITGRAPH_STORE_PORT=str(store_port),
               BITGRAPH_LAUNCHER="bitgraph")
    env.setdefault("NCCL_NVLS_ENABLE", "0")
    return env


def _status(code: int) -> int:
    return 128 - code if code < 0 else code  # -SIGTERM -> 143


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bitgraph.distributed",
        description="Start N ranks of a script on this host, with torchrun's environment.")
    parser.add_argument("--nproc", type=int, required=True, help="the number of ranks (processes)")
    parser.add_argument("--grace", type=float, default=5.0,
                        help="seconds between SIGTERM and SIGKILL for the ranks stopped after"
                             " a failure (default 5)")
    parser.add_argument("script", help="the Python script every rank runs")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    a = parser.parse_args(argv)
    if a.nproc < 1:
        parser.error(f"--nproc must be >= 1, got {a.nproc}")
    master_port, store_port = free_ports(2)
    procs = [subprocess.Popen([sys.executable, a.script, *a.args],
                              env=rank_environment(os.environ, r, a.nproc, master_port, store_port))
             for r in range(a.nproc)]
    codes = [None] * a.nproc
    stopped = set()  # ranks this launcher stopped: their status is not theirs
    try:
        while any(c is None for c in codes):
            for r, p in enumerate(procs):
                if codes[r] is None:
                    codes[r] = p.poll()
            failed = [r for r, c in enumerate(codes) if c not in (None, 0) and r not in stopped]
            if failed and any(c is None for c in codes):
                print(f"bitgraph.distributed: rank {failed[0]} exited with status"
                      f" {_status(codes[failed[0]])}; stopping the others", file=sys.stderr)
                _stop(procs, codes, stopped, a.grace)
            time.sleep(0.05)
    except KeyboardInterrupt:
        _stop(procs, codes, stopped, a.grace)
        return 130
    own = [_status(c) for r, c in enumerate(codes) if r not in stopped]
    return max(own, default=0)


def _stop(procs, codes, stopped, grace):
    """SIGTERM every running rank, SIGKILL those still running after ``grace``
    seconds; their statuses are recorded in ``codes``."""
    running = [r for r, c in enumerate(codes) if c is None]
    for r in running:
        stopped.add(r)
        procs[r].send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for r in running:
        try:
            codes[r] = procs[r].wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            procs[r].kill()
            codes[r] = procs[r].wait()


if __name__ == "__main__":
    sys.exit(main())
