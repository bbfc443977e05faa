"""Value generators for tests, free of python-graphblas (the GPU machine's
tests use them too, where graphblas is not installed)."""

from __future__ import annotations

import numpy as np

BOOL = np.dtype(bool)


def _int_specials(dt):
    info = np.iinfo(dt)
    s = [0, 1, info.max, info.max - 1, info.min, info.min + 1, 2, info.max // 2 + 1]
    if info.min < 0:
        s += [-1, -2]
    return np.array(s, dtype=dt)


def _float_specials(dt):
    fi = np.finfo(dt)
    return np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, fi.max, -fi.max, fi.tiny, 0.5, 3.0],
                    dtype=dt)


def gen_values(rng, dtype, n, mode, *, nan=False):
    """``n`` values of ``dtype``. mode 'nice': small integers (floats: small
    dyadic values) whose sums are exact; 'wild': extremes, wrap-around, inf,
    -0.0, huge and tiny floats (NaN only when ``nan``)."""
    dt = np.dtype(dtype)
    if dt == BOOL:
        p = rng.choice([0.5, 0.9, 1.0])
        return rng.random(n) < p
    if dt.kind in "iu":
        info = np.iinfo(dt)
        if mode == "nice":
            return rng.integers(max(int(info.min), -4), min(int(info.max), 5), n).astype(dt)
        out = rng.integers(int(info.min), int(info.max), n, dtype=dt, endpoint=True)
        sp = _int_specials(dt)
        pick = rng.random(n) < 0.4
        out[pick] = sp[rng.integers(0, sp.size, int(pick.sum()))]
        return out
    if mode == "nice":
        return (rng.integers(-8, 9, n) / rng.choice([1.0, 2.0, 4.0], n)).astype(dt)
    emax = 5 if dt == np.float32 else 40
    out = (rng.choice([-1.0, 1.0], n) * rng.random(n) * 10.0 ** rng.uniform(-emax, emax, n)).astype(dt)
    sp = _float_specials(dt)
    pick = rng.random(n) < 0.25
    out[pick] = sp[rng.integers(0, sp.size, int(pick.sum()))]
    small = rng.random(n) < 0.25
    out[small] = rng.integers(-3, 4, int(small.sum()))
    if nan:
        out[rng.random(n) < 0.05] = np.nan
    return out


def semiring_spec(add, mult, dtype, *, eq_any_type=False):
    """The kernels' SemiringSpec of ``add_mult`` on ``dtype``, or None when
    that semiring is not defined there. EQ is a monoid (LXNOR) on bool only:
    elsewhere the order of its fold shows, so it is None unless
    ``eq_any_type`` (for kernels that fold in the CPU's order)."""
    from bitgraph.ops import _semiring_spec
    from bitgraph.semiring import lookup_semiring

    try:
        spec = _semiring_spec(lookup_semiring(f"{add}_{mult}"), np.dtype(dtype))[0]
    except Exception:
        return None
    if add == "eq" and spec.dtype != BOOL and not eq_any_type:
        return None
    return spec


def pack(present, garbage_rng=None):
    """bool[n] -> packed uint32 words (bit i of word i // 32); with
    ``garbage_rng``, random bits past n in the last word (kernels must
    ignore them)."""
    n = present.size
    words = np.zeros((n + 31) // 32, np.uint32)
    idx = np.flatnonzero(present)
    np.bitwise_or.at(words, idx >> 5, (np.uint32(1) << (idx & 31).astype(np.uint32)))
    if garbage_rng is not None and n % 32:
        words[-1] |= np.uint32(garbage_rng.integers(0, 2**32, dtype=np.uint64)) & ~np.uint32(
            (1 << (n % 32)) - 1)
    return words
