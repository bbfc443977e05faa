import time, numpy as np
from numba import njit
def best(f, r=3):
    ts=[]
    for _ in range(r):
        t=time.perf_counter(); f(); ts.append(time.perf_counter()-t)
    return "%.4f" % min(ts)
@njit(nogil=True)
def sort_slice(indptr, ind):
    for r in range(indptr.size - 1):
        ind[indptr[r]:indptr[r+1]].sort()
@njit(inline="always")
def _isort(a, lo, hi):
    for i in range(lo + 1, hi):
        v = a[i]
        j = i
        while j > lo and a[j - 1] > v:
            a[j] = a[j - 1]
            j -= 1
        a[j] = v
@njit(nogil=True)
def _qsort(a, lo, hi):
    # introsort-free quicksort, median of 3, insertion below 24; recursion on small side
    stack = np.empty(128, np.int64)
    sp = 0
    while True:
        while hi - lo > 24:
            mid = (lo + hi) >> 1
            x, y, z = a[lo], a[mid], a[hi - 1]
            if x > y: x, y = y, x
            if y > z:
                y = z
                if x > y: y = x
            pivot = y
            i = lo; j = hi - 1
            while True:
                while a[i] < pivot: i += 1
                while a[j] > pivot: j -= 1
                if i >= j: break
                a[i], a[j] = a[j], a[i]
                i += 1; j -= 1
            # [lo, j] <= pivot, [j+1, hi) >= pivot
            if j + 1 - lo < hi - j - 1:
                stack[sp] = j + 1; stack[sp + 1] = hi; sp += 2; hi = j + 1
            else:
                stack[sp] = lo; stack[sp + 1] = j + 1; sp += 2; lo = j + 1
        _isort(a, lo, hi)
        if sp == 0: break
        sp -= 2; lo = stack[sp]; hi = stack[sp + 1]
@njit(nogil=True)
def sort_custom(indptr, ind):
    for r in range(indptr.size - 1):
        _qsort(ind, indptr[r], indptr[r+1])
rng = np.random.default_rng(0)
for avg in (8, 64, 512):
    nrows = 12_800_000 // avg
    lens = rng.poisson(avg, nrows)
    indptr = np.concatenate([[0], np.cumsum(lens)])
    base = np.concatenate([np.sort(rng.choice(10**6, l, replace=False)) for l in lens[:2000]])  # not used
    data = rng.integers(0, 10**6, indptr[-1]).astype(np.int32)
    a = data.copy(); sort_slice(indptr, a); b = data.copy(); sort_custom(indptr, b); assert np.array_equal(a, b)
    print(avg, "slice.sort", best(lambda: sort_slice(indptr, data.copy())), "custom", best(lambda: sort_custom(indptr, data.copy())), "copy", best(lambda: data.copy()))
from bitgraph.kernels.cpu.spgemm_csr import _sort_range
@njit(nogil=True)
def sort_final(indptr, ind):
    for r in range(indptr.size - 1):
        _sort_range(ind, np.uint64(indptr[r]), np.uint64(indptr[r+1]))
for avg in (8, 64, 512):
    nrows = 12_800_000 // avg
    lens = rng.poisson(avg, nrows)
    indptr = np.concatenate([[0], np.cumsum(lens)])
    data = rng.integers(0, 10**6, indptr[-1]).astype(np.int32)
    print(avg, "slice.sort", best(lambda: sort_slice(indptr, data.copy())), "final", best(lambda: sort_final(indptr, data.copy())))
