import os, sys, time, numpy as np, scipy.sparse as sp
t0 = time.perf_counter()
from bitgraph.kernels.warmup import warmup
if "warm" in sys.argv:
    warmup(0, 1); sys.exit()
from bitgraph.kernels import opcodes as oc, registry
from bitgraph.kernels.registry import CSR, SemiringSpec
from bitgraph.kernels import cpu
from bitgraph.kernels.cpu import spmv_csr as S, spgemm_csr as G, spmspv_csr as P, ewise as E
from numba import njit
def best(f, r=5):
    ts=[]
    for _ in range(r):
        t=time.perf_counter(); f(); ts.append(time.perf_counter()-t)
    return "%.4f" % min(ts)
rng = np.random.default_rng(1)
def rgraph(n, deg):
    M = sp.csr_matrix((rng.random(deg*n), (rng.integers(0,n,deg*n), rng.integers(0,n,deg*n))), shape=(n,n)); M.sum_duplicates(); M.sort_indices(); return M
n = 2_000_000
M = rgraph(n, 10)
A = CSR(M.indptr.astype(np.int32), M.indices.astype(np.int32), M.data, n, n)
x = rng.random(n); bm = np.full((n+31)//32, 0xFFFFFFFF, np.uint32)
@njit(nogil=True)
def plain(ip, ix, v, x, out):
    for r in range(np.uint64(out.size)):
        acc = 0.0
        for p in range(np.uint64(ip[r]), np.uint64(ip[r+1])):
            acc += v[p] * x[np.uint64(ix[p])]
        out[r] = acc
out = np.empty(n); plain(A.indptr, A.indices, A.data if hasattr(A,'data') else M.data, x, out)
print("threads", cpu.num_threads(), "nnz", M.nnz)
print("spmv f64: scipy", best(lambda: M @ x), "plain-numba", best(lambda: plain(A.indptr, A.indices, M.data, x, out)))
for name, add, mult in [("plus_times", oc.PLUS, oc.TIMES), ("min_plus", oc.MIN, oc.PLUS), ("plus_second", oc.PLUS, oc.SECOND)]:
    sr = SemiringSpec(np.dtype("float64"), add, mult, 0, None)
    print(" pull", name, "serial", best(lambda: S.spmv_pull(A, x, bm, None, sr, parallel=False)), "parallel", best(lambda: S.spmv_pull(A, x, bm, None, sr, parallel=True)))
# BFS-like bool pull with terminal, frontier 10%
Ab = A._replace(values=None)
xb = np.ones(n, bool); fb = rng.random(n) < 0.1
from numpy import packbits
words = np.packbits(fb, bitorder="little"); words = np.concatenate([words, np.zeros((-len(words)) % 4, np.uint8)]).view(np.uint32)
sr = SemiringSpec(np.dtype(bool), oc.LOR, oc.LAND, False, True)
print(" pull lor_land bool terminal serial", best(lambda: S.spmv_pull(Ab, xb, words, None, sr, parallel=False)), "parallel", best(lambda: S.spmv_pull(Ab, xb, words, None, sr, parallel=True)))
sr2 = sr._replace(terminal=None)
print(" pull lor_land bool no-terminal serial", best(lambda: S.spmv_pull(Ab, xb, words, None, sr2, parallel=False)))
# push small frontier
AT = A  # random symmetric-ish enough
xi = np.sort(rng.choice(n, 2000, replace=False)).astype(np.int64)
sr = SemiringSpec(np.dtype("float64"), oc.PLUS, oc.TIMES, 0, None)
print(" push 2000-frontier plus_times", best(lambda: P.spmspv_push(AT, xi, x, None, sr, False, n)))
# ewise
y = rng.random(n*5); z = rng.random(n*5)
print("ewise plus 10M: numpy", best(lambda: np.add(y, z)), "serial", best(lambda: E.ewise(oc.PLUS, y, z, parallel=False)), "parallel", best(lambda: E.ewise(oc.PLUS, y, z, parallel=True)))
# spgemm
n2 = 200_000
M2 = rgraph(n2, 8)
A2 = CSR(M2.indptr.astype(np.int32), M2.indices.astype(np.int32), M2.data, n2, n2)
sr = SemiringSpec(np.dtype("float64"), oc.PLUS, oc.TIMES, 0, None)
G.spgemm(A2, A2, None, False, sr)
print("spgemm A@A n=200k deg8: scipy", best(lambda: M2 @ M2, 3), "serial", best(lambda: G.spgemm(A2, A2, None, False, sr, parallel=False), 3), "parallel", best(lambda: G.spgemm(A2, A2, None, False, sr, parallel=True), 3))
row_nnz = np.empty(n2, np.int64); d = np.zeros(1, np.int32)
print("   symbolic only (serial)", best(lambda: G._count_rows(np.uint64(0), np.uint64(n2), A2.indptr, A2.indices, A2.indptr, A2.indices, d, d, False, n2, row_nnz), 3))
# triangles
U = sp.triu(M2 + M2.T, 1).tocsr(); Sym = (U + U.T).tocsr(); Sym.sort_indices()
L = sp.tril(Sym, -1).tocsr(); L.sort_indices(); Lt = L.T.tocsr(); Lt.sort_indices()
Lc = CSR(L.indptr.astype(np.int32), L.indices.astype(np.int32), None, n2, n2)
Ltc = CSR(Lt.indptr.astype(np.int32), Lt.indices.astype(np.int32), None, n2, n2)
sr = SemiringSpec(np.dtype("int64"), oc.PLUS, oc.PAIR, 0, None)
Lb = L.astype(bool).astype(np.int64)
ntri = int(G.spgemm(Lc, Ltc, Lc, False, sr)[2].sum())
print("triangles", ntri, "== scipy", int((Lb @ Lb.T).multiply(Lb).sum()))
print("tri C<L>=L plus_pair L': scipy (L@L.T).multiply(L)", best(lambda: (Lb @ Lb.T).multiply(Lb).sum(), 3), "serial", best(lambda: G.spgemm(Lc, Ltc, Lc, False, sr, parallel=False), 3), "parallel", best(lambda: G.spgemm(Lc, Ltc, Lc, False, sr, parallel=True), 3))
