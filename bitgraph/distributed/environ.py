"""Where a rank learns who it is: the launcher's environment variables, and
``init()``, which builds the NCCL communicator from them.

Launchers read, first match wins:

- torchrun and ``python -m bitgraph.distributed``: ``RANK``, ``WORLD_SIZE``,
  ``LOCAL_RANK``, ``MASTER_ADDR``, ``MASTER_PORT``;
- mpirun (Open MPI): ``OMPI_COMM_WORLD_RANK``, ``OMPI_COMM_WORLD_SIZE``,
  ``OMPI_COMM_WORLD_LOCAL_RANK``;
- mpirun (MPICH, Intel MPI): ``PMI_RANK``, ``PMI_SIZE``, ``MPI_LOCALRANKID``;
- srun (Slurm): ``SLURM_PROCID``, ``SLURM_NTASKS``, ``SLURM_LOCALID``.

The NCCL unique id travels through CuPy's TCP store, served by rank 0 at
``MASTER_ADDR`` on ``BITGRAPH_STORE_PORT`` (default ``MASTER_PORT + 1``:
torchrun's own store holds ``MASTER_PORT``). Under mpirun or srun without
``MASTER_ADDR`` it travels through mpi4py instead (rank 0's id broadcast),
or, on one node, through a store on 127.0.0.1 (Slurm: port from the job
id).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from bitgraph.errors import DistributedError

__all__ = ["Launch", "environment", "init", "cpu_list", "gpu_cpus"]


@dataclass(frozen=True)
class Launch:
    """Who this rank is and where the NCCL id is exchanged.

    launcher: which variables named the rank ("torchrun", "bitgraph",
    "mpirun", "srun"); host/port: the store rank 0 serves (None with
    ``use_mpi``: mpi4py passes the id)."""
    rank: int
    size: int
    local_rank: int
    launcher: str
    host: str | None
    port: int | None
    use_mpi: bool = False


# (launcher, rank, size, local rank) variables, in the order they are tried
LAUNCHERS = (
    ("torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"),
    ("mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"),
    ("mpirun", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"),
    ("srun", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"),
)


def _int(env, name, where, low=0):
    text = env.get(name)
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise DistributedError(f"{where}: the environment variable {name}={text!r} is not an"
                               f" integer") from None
    if value < low:
        raise DistributedError(f"{where}: the environment variable {name}={value} must be"
                               f" >= {low}")
    return value


def environment(env=None) -> Launch:
    """The ``Launch`` that ``env`` (default ``os.environ``) describes, or a
    ``DistributedError`` naming what is missing or wrong.

    >>> environment({"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1",
    ...              "MASTER_ADDR": "10.0.0.5", "MASTER_PORT": "29500"})
    Launch(rank=1, size=2, local_rank=1, launcher='torchrun', host='10.0.0.5', port=29501, use_mpi=False)
    >>> environment({"SLURM_PROCID": "0", "SLURM_NTASKS": "4", "SLURM_LOCALID": "0",
    ...              "SLURM_NNODES": "1", "SLURM_JOB_ID": "1234"}).port
    21234
    """
    where = "bitgraph.distributed.init"
    env = os.environ if env is None else env
    for launcher, rank_var, size_var, local_var in LAUNCHERS:
        if rank_var in env:
            break
    else:
        raise DistributedError(
            f"{where}: the environment names no rank (none of RANK, OMPI_COMM_WORLD_RANK,"
            f" PMI_RANK, SLURM_PROCID is set); start the script with"
            f" 'python -m bitgraph.distributed --nproc N script.py', torchrun, mpirun or srun")
    if launcher == "torchrun" and env.get("BITGRAPH_LAUNCHER") == "bitgraph":
        launcher = "bitgraph"
    if size_var not in env:
        raise DistributedError(f"{where}: {rank_var} is set but {size_var} (the number of"
                               f" ranks) is not")
    rank = _int(env, rank_var, where)
    size = _int(env, size_var, where, low=1)
    if rank >= size:
        raise DistributedError(f"{where}: {rank_var}={rank} is not a rank of"
                               f" {size_var}={size} (0..{size - 1})")
    local_rank = _int(env, local_var, where) if local_var in env else 0
    store = env.get("BITGRAPH_STORE_PORT")
    if "MASTER_ADDR" in env:
        if "MASTER_PORT" not in env and store is None:
            raise DistributedError(f"{where}: MASTER_ADDR is set but MASTER_PORT is not")
        port = _int(env, "BITGRAPH_STORE_PORT", where) if store is not None \
            else _int(env, "MASTER_PORT", where) + 1
        return Launch(rank, size, local_rank, launcher, env["MASTER_ADDR"], port)
    if launcher == "torchrun":
        raise DistributedError(f"{where}: RANK is set but MASTER_ADDR is not (torchrun and"
                               f" 'python -m bitgraph.distributed' set both)")
    if launcher == "srun" and env.get("SLURM_NNODES", env.get("SLURM_JOB_NUM_NODES")) == "1":
        port = _int(env, "BITGRAPH_STORE_PORT", where) if store is not None \
            else 20000 + _int(env, "SLURM_JOB_ID", where) % 20000
        return Launch(rank, size, local_rank, launcher, "127.0.0.1", port)
    if _has_mpi4py():
        return Launch(rank, size, local_rank, launcher, None, None, use_mpi=True)
    raise DistributedError(f"{where}: under {launcher} on several nodes the NCCL id needs"
                           f" MASTER_ADDR and MASTER_PORT (rank 0's host and a free port) or"
                           f" mpi4py (pip install mpi4py)")


def cpu_list(text: str) -> set:
    """The CPUs of a Linux cpulist (``"0-3,8,10-11"``; empty: none).

    >>> sorted(cpu_list("0-3,8,10-11\\n"))
    [0, 1, 2, 3, 8, 10, 11]
    """
    cpus = set()
    for part in text.strip().split(","):
        if part:
            a, _, b = part.partition("-")
            cpus.update(range(int(a), int(b or a) + 1))
    return cpus


def gpu_cpus(bus_id: str, sysfs: str = "/sys/bus/pci/devices") -> set:
    """The CPUs on the NUMA node of the PCI device ``bus_id`` (``"0000:18:00.0"``,
    as CUDA names a GPU), from sysfs's ``local_cpulist``; empty where sysfs
    does not say (not Linux, a virtual machine without the node).

    >>> gpu_cpus("0000:ff:ff.9", sysfs="/nonexistent")
    set()
    """
    try:
        with open(os.path.join(sysfs, bus_id.lower(), "local_cpulist")) as f:
            return cpu_list(f.read())
    except (OSError, ValueError):
        return set()


def _bind_cpus(bus_id) -> None:
    # a rank waits on its GPU once a level (msbfs and the partitioned calls read a count):
    # from the GPU's own NUMA node that round trip is shorter than across the host
    near = gpu_cpus(bus_id) & os.sched_getaffinity(0) if bus_id else set()
    if near:
        os.sched_setaffinity(0, near)


def _has_mpi4py() -> bool:
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None


def init(env=None):
    """The ``NcclComm`` of this process, from the launcher's environment
    (``environment``): selects the GPU ``local_rank`` (and, with
    ``settings.distributed.bind_cpus``, keeps the process on the CPUs of
    that GPU's NUMA node, those it may use), makes the NCCL
    communicator, then checks that the ranks agree (each rank once, the
    same size). Raises ``DistributedError`` when the environment names no
    rank or the ranks disagree, ``DeviceError`` when CuPy or NCCL is
    missing.

    >>> try:
    ...     init({})
    ... except DistributedError as e:
    ...     print(str(e)[:60])
    bitgraph.distributed.init: the environment names no rank (no
    """
    import numpy as np

    from bitgraph.device import host
    from bitgraph.distributed.comm import NcclComm

    from bitgraph import settings

    launch = environment(env)
    comm = NcclComm(launch.rank, launch.size, local_rank=launch.local_rank, host=launch.host or "",
                    port=launch.port or 0, use_mpi=launch.use_mpi)
    if settings.current().distributed.bind_cpus and hasattr(os, "sched_setaffinity"):
        _bind_cpus(getattr(comm, "pci_bus_id", None))
    seen = host(comm.allgather(np.array([launch.rank, launch.size], np.int64))).reshape(-1, 2)
    if sorted(seen[:, 0].tolist()) != list(range(launch.size)) or (seen[:, 1] != launch.size).any():
        raise DistributedError(f"bitgraph.distributed.init: the ranks disagree: (rank, size) of"
                               f" each process: {[tuple(x) for x in seen.tolist()]}")
    return comm
