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
