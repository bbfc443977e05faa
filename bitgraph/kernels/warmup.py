"""Compile every registered kernel for every dtype on tiny inputs.

``python -m bitgraph.kernels.warmup --shard i/N`` runs shard i (0-based) of
N: the (kernel, dtype, index dtype) jobs are dealt round-robin, so N
processes side by side (CI: ``--shard 0/2`` and ``--shard 1/2``) share the
work evenly and fill one numba cache (``NUMBA_CACHE_DIR``). Later processes
load the compiled kernels from the cache in milliseconds. Prints the time
taken; importable as ``warmup(shard=0, nshards=1)``.
"""

import argparse
import sys
import time

import numpy as np

from bitgraph.kernels import registry

__all__ = ["warmup"]


def warmup(shard=0, nshards=1, *, device="cpu", dtypes=None,
           index_dtypes=(np.int32,), verbose=True):
    """Run shard ``shard`` of ``nshards`` of the warm-up; returns seconds.

    dtypes: the value dtypes (default: all 11 of ``registry.DTYPES``);
    index_dtypes: int32 and/or int64.
    """
    if not 0 <= shard < nshards:
        raise ValueError(f"warmup: shard (={shard}) must be in "
                         f"[0, nshards (={nshards}))")
    t0 = time.perf_counter()
    entries = [e for e in registry.entries(device) if e.warmup is not None]
    if dtypes is None:
        dtypes = registry.DTYPES
    dtypes = [np.dtype(d) for d in dtypes]
    jobs = [(e, np.dtype(it), dt) for e in entries for it in index_dtypes
            for dt in dtypes]
    mine = jobs[shard::nshards]
    load = time.perf_counter() - t0
    per_kernel = {}
    for entry, index_dtype, dtype in mine:
        t = time.perf_counter()
        entry.warmup(dtype, index_dtype)
        key = f"{entry.op}/{entry.fmt}/{entry.variant}"
        per_kernel[key] = per_kernel.get(key, 0.0) + time.perf_counter() - t
    total = time.perf_counter() - t0
    if verbose:
        print(f"bitgraph.kernels.warmup: shard {shard}/{nshards}, device "
              f"{device}, {len(mine)} of {len(jobs)} jobs "
              f"({len(entries)} kernels x {len(index_dtypes)} index dtypes "
              f"x {len(dtypes)} dtypes)")
        print(f"  {'load':24s} {load:7.2f} s")
        for key, sec in per_kernel.items():
            print(f"  {key:24s} {sec:7.2f} s")
        print(f"  {'total':24s} {total:7.2f} s")
    return total


def _parse_shard(text):
    try:
        i, n = (int(v) for v in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--shard expects i/N (e.g. 0/2), got {text!r}") from None
    if not 0 <= i < n:
        raise argparse.ArgumentTypeError(f"--shard {text}: need 0 <= i < N")
    return i, n


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m bitgraph.kernels.warmup", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shard", type=_parse_shard, default=(0, 1),
                        help="i/N: run shard i (0-based) of N (default 0/1)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtypes", default=None,
                        help="comma-separated value dtypes (default: all 11)")
    parser.add_argument("--index-dtypes", default="int32",
                        help="comma-separated: int32,int64 (default int32)")
    args = parser.parse_args(argv)
    dtypes = args.dtypes.split(",") if args.dtypes else None
    warmup(*args.shard, device=args.device, dtypes=dtypes,
           index_dtypes=args.index_dtypes.split(","))
    return 0


if __name__ == "__main__":
    sys.exit(main())
