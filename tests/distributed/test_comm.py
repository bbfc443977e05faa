"""The communicator interface on LocalGroup (ranks as threads), the
launcher's environment (``environment``) and the launcher itself (two CPU
processes)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import bitgraph as bg
from bitgraph.distributed import DistributedError, LocalGroup, environment, init
from bitgraph.distributed.__main__ import free_ports, rank_environment
from bitgraph.errors import InvalidType, InvalidValue

ROOT = Path(__file__).resolve().parents[2]
SIZES = (1, 2, 3, 5)


@pytest.mark.parametrize("size", SIZES)
def test_allreduce_every_op(size):
    def work(comm):
        a = np.array([comm.rank, -comm.rank, 7], np.int64)
        f = np.array([0.1 * (comm.rank + 1)])
        return (comm.allreduce(a, "sum"), comm.allreduce(a, "max"), comm.allreduce(a, "min"),
                comm.allreduce(f))

    out = LocalGroup(size).run(work)
    r = np.arange(size)
    for s, mx, mn, f in out:
        assert s.dtype == np.int64 and s.tolist() == [r.sum(), -r.sum(), 7 * size]
        assert mx.tolist() == [size - 1, 0, 7] and mn.tolist() == [0, -(size - 1), 7]
        # a sum in rank order: the same bits on every rank
        want = 0.1
        for i in range(1, size):
            want = want + 0.1 * (i + 1)
        assert f.tolist() == [want]
    assert all(o[3].tolist() == out[0][3].tolist() for o in out)


@pytest.mark.parametrize("size", SIZES)
def test_allgather_allgatherv_broadcast_barrier(size):
    counts = [(r * 3) % 4 for r in range(size)]  # zeros among them

    def work(comm):
        r = comm.rank
        g2 = comm.allgather(np.full((2, 3), r, np.int32))
        g0 = comm.allgather(np.array(r * 1.5))
        v = comm.allgatherv(np.full((counts[r], 2), r, np.uint8), counts)
        b = comm.broadcast(np.array([r, r], np.int64), root=size - 1)
        comm.barrier()
        return g2, g0, v, b

    for g2, g0, v, b in LocalGroup(size).run(work):
        assert g2.shape == (2 * size, 3) and g2[:, 0].tolist() == np.repeat(np.arange(size), 2).tolist()
        assert g0.tolist() == [r * 1.5 for r in range(size)]
        assert v.dtype == np.uint8 and v.shape == (sum(counts), 2)
        assert v[:, 0].tolist() == np.repeat(np.arange(size), counts).tolist()
        assert b.tolist() == [size - 1, size - 1]


@pytest.mark.parametrize("size", SIZES)
def test_allgather_started_waits_for_the_allgathers_result(size):
    def work(comm):
        with comm.recording() as log:
            pending = comm.allgather_started(np.array([comm.rank, -comm.rank], np.int32))
        got = pending.wait()
        return got.tolist(), pending.wait() is got, [name for name, _, _ in log]

    want = np.stack([np.arange(size), -np.arange(size)], 1).ravel().tolist()
    assert LocalGroup(size).run(work) == [(want, True, ["allgather"])] * size
    with pytest.raises(InvalidType, match="Comm.allgather_started: NCCL carries no bool"):
        LocalGroup(1).run(lambda comm: comm.allgather_started(np.zeros(2, bool)))


def test_each_rank_gets_its_own_array():
    def work(comm):
        out = comm.broadcast(np.zeros(3), root=0)
        out[comm.rank] = 1.0  # must not show on another rank
        comm.barrier()
        return out

    out = LocalGroup(3).run(work)
    assert [o.tolist() for o in out] == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]


def test_allgatherv_with_no_rows_anywhere_needs_no_collective():
    def work(comm):
        with comm.recording() as log:
            out = comm.allgatherv(np.zeros((0, 4), np.int32), [0] * comm.size)
        return out.shape, len(log)

    assert LocalGroup(2).run(work) == [((0, 4), 0)] * 2


def test_recording_names_each_collective_and_its_bytes():
    def work(comm):
        with comm.recording() as log:
            comm.allreduce(np.zeros(5, np.float32), "max")
            comm.allgather(np.zeros(3, np.int64))
            comm.broadcast(np.zeros(2, np.uint8), 0)
        comm.allreduce(np.zeros(1))  # outside: not recorded
        return [(name, nbytes) for name, nbytes, seconds in log if seconds >= 0]

    assert LocalGroup(2).run(work)[0] == [("allreduce", 20), ("allgather", 24), ("broadcast", 2)]


def test_rank_exception_is_raised_in_the_caller_and_releases_the_others():
    def work(comm):
        if comm.rank == 2:
            raise KeyError("rank two")
        comm.allreduce(np.zeros(1))  # the others wait here: released
        return comm.rank

    with pytest.raises(KeyError, match="rank two"):
        LocalGroup(4).run(work)


def test_lowest_failing_rank_wins():
    def work(comm):
        raise ValueError(f"from {comm.rank}")

    with pytest.raises(ValueError, match="from 0"):
        LocalGroup(3).run(work)


def test_a_rank_that_skips_a_collective_is_named_not_a_hang():
    def work(comm):
        if comm.rank == 0:
            comm.allreduce(np.zeros(2))
        return comm.rank

    with pytest.raises(DistributedError, match=r"rank 0: allreduce.*rank 1: end of fn"):
        LocalGroup(2).run(work)


def test_mismatched_shapes_or_ops_are_named():
    def shapes(comm):
        return comm.allgather(np.zeros(comm.rank + 1))

    with pytest.raises(DistributedError, match=r"allgather\(\(1,\).*allgather\(\(2,\)"):
        LocalGroup(2).run(shapes)

    def ops(comm):
        return comm.allreduce(np.zeros(1), "max" if comm.rank else "sum")

    with pytest.raises(DistributedError, match="different collectives"):
        LocalGroup(2).run(ops)


def test_timeout_names_where_each_rank_waits():
    import time

    def work(comm):
        if comm.rank == 1:
            comm._shared.turn.release()  # let rank 0 reach its collective
            time.sleep(0.5)
            comm._shared.turn.acquire()
        comm.barrier()

    with pytest.raises(DistributedError, match="waited more than 0.1 s: rank 0: barrier"):
        LocalGroup(2, timeout=0.1).run(work)


def test_settings_of_the_caller_hold_on_every_rank():
    def work(comm):
        return bg.settings.current().bfs.alpha

    with bg.settings.use(bfs={"alpha": 0.25}):
        assert LocalGroup(3).run(work) == [0.25] * 3


def test_arguments_are_checked():
    with pytest.raises(InvalidValue, match="size must be >= 1"):
        LocalGroup(0)
    with pytest.raises(InvalidType, match="size must be an integer"):
        LocalGroup(2.0)
    with pytest.raises(InvalidValue, match="device must be"):
        LocalGroup(2, device="tpu")

    def bad_op(comm):
        comm.allreduce(np.zeros(1), "prod")

    with pytest.raises(InvalidValue, match="op must be one of"):
        LocalGroup(1).run(bad_op)

    def bad_dtype(comm):
        comm.allgather(np.zeros(2, bool))

    with pytest.raises(InvalidType, match="NCCL carries no bool"):
        LocalGroup(1).run(bad_dtype)

    def bad_root(comm):
        comm.broadcast(np.zeros(1), root=2)

    with pytest.raises(InvalidValue, match=r"root must be a rank in 0\.\.1"):
        LocalGroup(2).run(bad_root)

    def bad_counts(comm):
        comm.allgatherv(np.zeros(2), [2])

    with pytest.raises(InvalidValue, match="counts has 1 entries for 2 ranks"):
        LocalGroup(2).run(bad_counts)


# ---------------------------------------------------------------------------
# the launcher's environment
# ---------------------------------------------------------------------------

TORCHRUN = {"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "1", "MASTER_ADDR": "node7",
            "MASTER_PORT": "29500"}


def test_environment_of_each_launcher():
    e = environment(TORCHRUN)
    assert (e.rank, e.size, e.local_rank, e.launcher, e.host, e.port, e.use_mpi) == \
        (3, 4, 1, "torchrun", "node7", 29501, False)
    ours = environment(rank_environment({}, 1, 2, 4000, 4100))
    assert (ours.rank, ours.size, ours.local_rank, ours.launcher, ours.host, ours.port) == \
        (1, 2, 1, "bitgraph", "127.0.0.1", 4100)
    ompi = environment({"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "8",
                        "OMPI_COMM_WORLD_LOCAL_RANK": "2", "MASTER_ADDR": "h", "MASTER_PORT": "7"})
    assert (ompi.rank, ompi.size, ompi.local_rank, ompi.launcher, ompi.port) == (2, 8, 2, "mpirun", 8)
    pmi = environment({"PMI_RANK": "1", "PMI_SIZE": "2", "MPI_LOCALRANKID": "1",
                       "MASTER_ADDR": "h", "BITGRAPH_STORE_PORT": "9000"})
    assert (pmi.rank, pmi.local_rank, pmi.port) == (1, 1, 9000)
    slurm = environment({"SLURM_PROCID": "5", "SLURM_NTASKS": "6", "SLURM_LOCALID": "1",
                         "SLURM_NNODES": "1", "SLURM_JOB_ID": "77"})
    assert (slurm.rank, slurm.size, slurm.local_rank, slurm.launcher, slurm.host, slurm.port) == \
        (5, 6, 1, "srun", "127.0.0.1", 20077)


def test_environment_without_master_addr_uses_mpi4py_or_says_what_to_set(monkeypatch):
    import bitgraph.distributed.environ as E

    env = {"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2"}
    monkeypatch.setattr(E, "_has_mpi4py", lambda: True)
    e = environment(env)
    assert e.use_mpi and e.host is None and e.local_rank == 0
    monkeypatch.setattr(E, "_has_mpi4py", lambda: False)
    with pytest.raises(DistributedError, match="MASTER_ADDR and MASTER_PORT.*or mpi4py"):
        environment(env)


@pytest.mark.parametrize("env,match", [
    ({}, "names no rank"),
    ({"RANK": "0"}, "WORLD_SIZE"),
    ({"RANK": "2", "WORLD_SIZE": "2", "MASTER_ADDR": "h", "MASTER_PORT": "1"},
     r"RANK=2 is not a rank of WORLD_SIZE=2"),
    ({"RANK": "x", "WORLD_SIZE": "2"}, "RANK='x' is not an integer"),
    ({"RANK": "0", "WORLD_SIZE": "0"}, "WORLD_SIZE=0 must be >= 1"),
    ({"RANK": "0", "WORLD_SIZE": "2"}, "MASTER_ADDR is not"),
    ({"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "h"}, "MASTER_PORT is not"),
])
def test_environment_errors(env, match):
    with pytest.raises(DistributedError, match=match):
        environment(env)


def test_init_without_cuda_names_what_is_missing():
    if bg.device.cuda_status() is None:
        pytest.skip("CUDA is usable here: tests/gpu/test_distributed_gpu.py runs init")
    with pytest.raises(bg.DeviceError, match="NcclComm"):
        init(rank_environment({}, 0, 1, *free_ports(2)))


def test_init_passes_the_environment_and_checks_that_the_ranks_agree(monkeypatch):
    import bitgraph.distributed.comm as C

    made = {}

    class Fake(C.Comm):  # stands in for NcclComm: what init hands it, what it gathers
        def __init__(self, rank, size, **kw):
            super().__init__()
            self.rank, self.size = rank, size
            made.update(kw, rank=rank, size=size)

        def _allgather(self, array):
            seen = np.array([[0, 2], [made["claim"], 2]], np.int64)
            return seen.ravel()

    monkeypatch.setattr(C, "NcclComm", Fake)
    env = rank_environment({}, 1, 2, 4000, 4100)
    made["claim"] = 1
    comm = init(env)
    assert (comm.rank, comm.size) == (1, 2)
    assert made == {"rank": 1, "size": 2, "local_rank": 1, "host": "127.0.0.1", "port": 4100,
                    "use_mpi": False, "claim": 1}
    made["claim"] = 0  # two processes call themselves rank 0
    with pytest.raises(DistributedError, match=r"the ranks disagree.*\(0, 2\), \(0, 2\)"):
        init(env)


# ---------------------------------------------------------------------------
# the launcher: two CPU processes
# ---------------------------------------------------------------------------

def _launch(tmp_path, body, nproc=2, grace=5.0):
    script = tmp_path / "rank.py"
    script.write_text(textwrap.dedent(body))
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "bitgraph.distributed", "--nproc", str(nproc),
                           "--grace", str(grace), str(script), "a b", "c"],
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)


def test_launcher_starts_ranks_with_torchruns_environment(tmp_path):
    p = _launch(tmp_path, """
        import os, sys
        from bitgraph.distributed import environment
        e = environment()
        with open(f"rank{e.rank}.txt", "w") as f:  # a file each: no interleaved lines
            f.write(f"rank {e.rank} of {e.size} local {e.local_rank} {e.launcher} {e.host} "
                    f"{os.environ['MASTER_PORT'] != str(e.port)} {os.environ['NCCL_NVLS_ENABLE']} "
                    f"{sys.argv[1:]}")
        """)
    assert p.returncode == 0, p.stderr
    lines = sorted((tmp_path / f"rank{r}.txt").read_text() for r in range(2))
    assert lines == [f"rank {r} of 2 local {r} bitgraph 127.0.0.1 True 0 ['a b', 'c']"
                     for r in range(2)]


def test_launcher_returns_the_failure_and_stops_the_others(tmp_path):
    p = _launch(tmp_path, """
        import os, sys, time
        if os.environ["RANK"] == "1":
            sys.exit(3)
        time.sleep(60)  # stopped by the launcher
        """, grace=1.0)
    assert p.returncode == 3
    assert "rank 1 exited with status 3; stopping the others" in p.stderr


def test_launcher_ignores_the_status_of_the_ranks_it_stopped(tmp_path):
    p = _launch(tmp_path, """
        import os, sys, time
        rank = int(os.environ["RANK"])
        if rank == 2:
            time.sleep(60)  # stopped: its SIGTERM status (143) is not the answer
        sys.exit(2 * rank)
        """, nproc=3, grace=1.0)
    assert p.returncode == 2, p.stderr


def test_free_ports_differ():
    ports = free_ports(3)
    assert len(set(ports)) == 3 and all(0 < p < 65536 for p in ports)


def test_cpu_list_and_the_gpus_numa_cpus(tmp_path):
    # sysfs's local_cpulist of the GPU's PCI device (its name lowercased); nothing when absent
    from bitgraph.distributed.environ import cpu_list, gpu_cpus

    assert cpu_list("") == set() and cpu_list("5\n") == {5}
    assert cpu_list("0-2,7,9-10") == {0, 1, 2, 7, 9, 10}
    dev = tmp_path / "0000:1b:00.0"
    dev.mkdir()
    (dev / "local_cpulist").write_text("16-19,48\n")
    assert gpu_cpus("0000:1B:00.0", sysfs=str(tmp_path)) == {16, 17, 18, 19, 48}
    assert gpu_cpus("0000:1c:00.0", sysfs=str(tmp_path)) == set()
    (dev / "local_cpulist").write_text("garbage\n")
    assert gpu_cpus("0000:1b:00.0", sysfs=str(tmp_path)) == set()


# ---------------------------------------------------------------------------
# out=: one buffer reused, allgatherv without padded copies
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("equal", [True, False])
def test_allgatherv_into_out_every_call(size, equal):
    counts = [3] * size if equal else [(r * 3) % 4 + (r == 0) for r in range(size)]
    offsets = np.concatenate([[0], np.cumsum(counts)])

    def work(comm):
        r = comm.rank
        out = np.full((sum(counts), 2), -1.0)
        got = []
        for step in range(3):  # the same buffer every step
            mine = np.full((counts[r], 2), 10.0 * step + r)
            with comm.recording() as log:
                res = comm.allgatherv(mine, counts, out=out)
            got.append((res is out, out.copy(), [(op, b) for op, b, _ in log]))
        fresh = comm.allgatherv(np.full((counts[r], 2), 7.0 + r), counts)
        return got, fresh

    for got, fresh in LocalGroup(size).run(work):
        for step, (same, out, log) in enumerate(got):
            assert same
            want = np.repeat(10.0 * step + np.arange(size), counts)
            assert out[:, 0].tolist() == want.tolist() and out[:, 1].tolist() == want.tolist()
            assert [op for op, _ in log] == ["allgather"]
        assert fresh.shape == (sum(counts), 2) and fresh[:, 0].tolist() == (
            np.repeat(7.0 + np.arange(size), counts)).tolist()
        assert offsets[-1] == fresh.shape[0]


def test_allgatherv_records_this_ranks_rows():
    def work(comm):
        with comm.recording() as log:
            comm.allgatherv(np.zeros(2 + 3 * comm.rank, np.int32), [2, 5])
            comm.allgatherv(np.zeros(4, np.int32), [4, 4])
        return [(op, b) for op, b, _ in log]

    assert LocalGroup(2).run(work) == [[("allgather", 8), ("allgather", 16)],
                                       [("allgather", 20), ("allgather", 16)]]


@pytest.mark.parametrize("size", SIZES)
def test_allreduce_and_allgather_into_out(size):
    def work(comm):
        r = comm.rank
        a = np.array([r, -r, 7], np.int64)
        same = comm.allreduce(a, "min", out=a)  # in place
        f = np.array([0.1 * (r + 1), 1.0])
        into = np.empty(2)
        s = comm.allreduce(f, out=into)
        g = np.empty((2 * comm.size, 3), np.int32)
        h = comm.allgather(np.full((2, 3), r, np.int32), out=g)
        z = np.empty(comm.size)
        comm.allgather(np.array(r * 1.5), out=z)
        return same is a, a, s is into, into, comm.allreduce(f), h is g, g, z

    for same, a, s_is, s, plain, h_is, g, z in LocalGroup(size).run(work):
        assert same and a.tolist() == [0, -(size - 1), 7]
        assert s_is and s.tolist() == plain.tolist()  # the same bits as without out
        assert h_is and g[:, 0].tolist() == np.repeat(np.arange(size), 2).tolist()
        assert z.tolist() == [r * 1.5 for r in range(size)]


def test_out_is_checked():
    def run(fn):
        with pytest.raises((InvalidValue, InvalidType)) as e:
            LocalGroup(2).run(fn)
        return str(e.value)

    assert "shape (4,) and dtype float64, got (3,) float64" in run(
        lambda c: c.allgatherv(np.zeros(2), [2, 2], out=np.zeros(3)))
    assert "dtype float32" in run(lambda c: c.allreduce(np.zeros(2, np.float32), out=np.zeros(2)))
    assert "C-contiguous" in run(lambda c: c.allgather(np.zeros(2), out=np.zeros(8)[::2]))
    assert "out must be an array of the input's module" in run(
        lambda c: c.allgather(np.zeros(2), out=[0.0] * 4))
    assert "counts must be >= 0" in run(lambda c: c.allgatherv(np.zeros(2), [2, -1]))
