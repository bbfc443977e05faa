"""Choose the format and kernel for each operation.

``ops`` says *what* to compute; this module picks *how*: which registered
kernel (``bitgraph.kernels.registry``), on which storage, on which device.
The rules, each beside its switch:

- ``matvec``: push (SpMSpV over the transposed operator, touching only the
  columns of u's entries) when u is sparse, pull (SpMV over the operator's
  rows, skipping rows the mask forbids) otherwise. See ``PUSH_DENSITY``.
- ``mxm``: Gustavson SpGEMM on CSR with the mask's pattern pushed down, or
  masked dot products when the mask is sparse enough (see ``mxm``).
- element-wise ops, unary ops and reductions: dense value kernels.
"""

from __future__ import annotations

import numpy as np

from .kernels import registry

# push when nvals(u) <= PUSH_DENSITY * size(u): the push kernel's work is the
# out-degree sum of u's entries, pull's is every (allowed) row; at 1/16 the
# expected push work on a uniform graph is ~6% of pull's and the transposed
# CSR (built once, cached on the matrix) amortises after a few calls.
PUSH_DENSITY = 1 / 16

# "auto" compares the two methods' work (see ``mxm``); "dot" or "gustavson"
# forces one (tests do, to cover both on the same inputs).
MXM_METHOD = "auto"


def _kernel(op, fmt, variant, device="cpu"):
    return registry.lookup(op, fmt=fmt, device=device, variant=variant)


def semiring_spec(dtype, add, mult, identity, terminal):
    """The semiring as kernels take it (``registry.SemiringSpec``)."""
    return registry.SemiringSpec(dtype, add, mult, identity, terminal)


def matvec(get_csr, get_csr_t, M, u, x_values, allowed, spec, flipped):
    """t = M ⊕.⊗ u as (values, present) dense arrays of M.nrows entries.

    ``get_csr()``/``get_csr_t()`` give M's CSR / M's transpose's CSR with
    values ready for the kernel (built lazily: the transpose may be cached).
    """
    nvals = u.nvals
    if nvals <= PUSH_DENSITY * u.size:
        push = _kernel("mxv", "csr", "push")
        return push(get_csr_t(), u.indices(), x_values, allowed, spec, flipped, M.nrows)
    pull = _kernel("mxv", "csr", "pull")
    return pull(get_csr(), x_values, u._bitmap, allowed, spec, flipped)


def mxm(a, get_b, get_bt, pattern, complement, spec):
    """C = A ⊕.⊗ B (restricted by the mask pattern) as (indptr, indices, values).

    ``get_b()``/``get_bt()`` give B's CSR / B' 's CSR, values ready (built
    lazily). With a mask (not complemented) the dot-product kernel is chosen
    when its work, sum over M(i,j) of |B(:,j)|, is below Gustavson's, sum
    over A(i,k) of |B(k,:)| (triangle counting: C<L> = L plus.pair L').
    """
    if pattern is not None and not complement and MXM_METHOD != "gustavson":
        bt = get_bt()
        if MXM_METHOD == "dot":
            return _kernel("mxm", "csr", "dot")(a, bt, pattern, spec)
        col_len = np.diff(bt.indptr.astype(np.int64))  # |B(:,j)|
        dot_work = int(col_len[pattern.indices].sum())
        row_len = np.bincount(bt.indices, minlength=bt.ncols)  # |B(k,:)|
        gustavson_work = int(row_len[a.indices].sum())
        if dot_work < gustavson_work:
            return _kernel("mxm", "csr", "dot")(a, bt, pattern, spec)
    return _kernel("mxm", "csr", "gustavson")(a, get_b(), pattern, complement, spec)


def ewise(code, x, y):
    return _kernel("ewise", "dense", "binop")(code, x, y)


def unary(code, x):
    return _kernel("unary", "dense", "unop")(code, x)


def reduce_segments(indptr, values, code, identity, terminal):
    return _kernel("reduce", "csr", "segments")(indptr, values, code, identity, terminal)
