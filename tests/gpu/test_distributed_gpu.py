"""bitgraph.distributed on the GPUs of this host (two to four): the launcher starts a
rank a GPU of ``_dist_worker.py`` (NcclComm through ``bitgraph.distributed.init``),
each checks the collectives, every batch call and the partitioned graph's
calls against the one-process calls on its GPU. Skipped with fewer than two GPUs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).resolve().parent / "_dist_worker.py"


def _gpus():
    import cupy

    return cupy.cuda.runtime.getDeviceCount()


def test_distributed_calls_over_the_gpus_equal_the_one_process_calls():
    if _gpus() < 2:
        pytest.skip("needs two GPUs")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    nproc = min(_gpus(), 4)
    p = subprocess.run([sys.executable, "-m", "bitgraph.distributed", "--nproc", str(nproc),
                        str(WORKER)],
                       capture_output=True, text=True, timeout=900, env=env, cwd=ROOT)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out[-6000:]
    assert "FAILED" not in out
    for r in range(nproc):
        assert f"rank {r} done" in p.stdout, out[-6000:]
        assert f"rank {r} ok betweenness kron" in p.stdout
        assert f"rank {r} ok allgatherv out cupy 1" in p.stdout
        assert f"rank {r} ok allreduce in place big cupy" in p.stdout
        assert f"rank {r} ok partitioned pagerank kron:12" in p.stdout
        assert f"rank {r} ok partitioned directed" in p.stdout
        assert f"rank {r} ok partitioned bfs exchanges" in p.stdout
