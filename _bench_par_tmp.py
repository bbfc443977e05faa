import time, numpy as np, scipy.sparse as sp, threading
from bitgraph.kernels import opcodes as oc
from bitgraph.kernels.registry import CSR, SemiringSpec
from bitgraph.kernels import cpu
from bitgraph.kernels.cpu import spmv_csr as S, ewise as E
def best(f, r=5):
    ts=[]
    for _ in range(r):
        t=time.perf_counter(); f(); ts.append(time.perf_counter()-t)
    return "%.4f" % min(ts)
rng = np.random.default_rng(1)
n = 2_000_000; deg = 10
M = sp.csr_matrix((rng.random(deg*n), (rng.integers(0,n,deg*n), rng.integers(0,n,deg*n))), shape=(n,n)); M.sum_duplicates(); M.sort_indices()
A = CSR(M.indptr.astype(np.int32), M.indices.astype(np.int32), M.data, n, n)
x = rng.random(n); bm = np.full((n+31)//32, 0xFFFFFFFF, np.uint32)
sr = SemiringSpec(np.dtype("float64"), oc.PLUS, oc.TIMES, 0, None)
print("threads", cpu.num_threads())
print("pull serial", best(lambda: S.spmv_pull(A, x, bm, None, sr, parallel=False)), "parallel", best(lambda: S.spmv_pull(A, x, bm, None, sr, parallel=True)))
# manual: 2 python threads each half
tv = np.empty(n); tp = np.empty(n, bool)
args = (A.indptr, A.indices, M.data, False, x, bm, bm, False, 4, 7, 0.0, False, 0.0, tv, tp)
half = np.uint64(n//2)
def run2():
    t1 = threading.Thread(target=S._spmv_pull_rows, args=(np.uint64(0), half) + args)
    t2 = threading.Thread(target=S._spmv_pull_rows, args=(half, np.uint64(n)) + args)
    t1.start(); t2.start(); t1.join(); t2.join()
print("manual 2 threads", best(run2), "one half alone", best(lambda: S._spmv_pull_rows(np.uint64(0), half, *args)))
y = rng.random(n*5); z = rng.random(n*5)
print("ewise serial", best(lambda: E.ewise(oc.PLUS, y, z, parallel=False)), "parallel", best(lambda: E.ewise(oc.PLUS, y, z, parallel=True)), "numpy", best(lambda: np.add(y, z)))
