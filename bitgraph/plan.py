"""Choose the format and kernel for each operation.

``ops`` says *what* to compute; this module picks *how*: which registered
kernel (``bitgraph.kernels.registry``), on which storage, on which device.
The rules, each beside its switch:

- ``matvec``: push (SpMSpV over the transposed operator, touching only the
  columns of u's entries) when u is sparse, pull (SpMV over the operator's
  rows, skipping rows the mask forbids) otherwise (``Plan.push_density``).
- ``mxm``: Gustavson SpGEMM on CSR with the mask's pattern pushed down, or
  masked dot products when the mask is sparse enough (see ``mxm``).
- bit formats: a product that reads no matrix value may run on B2SR
  (``bit_kernel``/``mxm_bit_kind`` say which kernel computes it exactly,
  ``use_bits`` whether it pays: on this CPU, a BFS-like mxv or a masked
  mxm on full tiles; ``method="bits"`` asks for it). Blest's BVSS step
  (tensor cores on CUDA) computes the Boolean-like matvecs
  (``tensor_core_kind``) when ``method="tensor_core"`` asks for it; "auto"
  never picks it.

The rules' numbers are the ``settings.Plan`` family, which ``ops`` reads
once per call and passes here as ``rules``.
- element-wise ops, unary ops and reductions: dense value kernels.
"""

from __future__ import annotations

import numpy as np

from . import _array as ar
from .errors import InvalidValue
from .kernels import registry

# the methods a caller may ask for (``ops.mxv(..., method=)``, ``ops.mxm``)
MXV_METHODS = ("auto", "pull", "push", "bits", "tensor_core")
MXM_METHODS = ("auto", "dot", "gustavson", "bits")


def _kernel(op, fmt, variant, device="cpu"):
    return registry.lookup(op, fmt=fmt, device=device, variant=variant)


def semiring_spec(dtype, add, mult, identity, terminal):
    """The semiring as kernels take it (``registry.SemiringSpec``)."""
    return registry.SemiringSpec(dtype, add, mult, identity, terminal)


def matvec(get_csr, get_csr_t, M, u, x_values, allowed, spec, flipped, pattern_only, method,
           rules):
    """t = M ⊕.⊗ u as (values, present) dense arrays of M.nrows entries.

    ``get_csr()``/``get_csr_t()`` give M's CSR / M's transpose's CSR with
    values ready for the kernel (built lazily: the transpose may be cached).
    ``pattern_only``: the product reads no value of M (every a_ik acts as
    1), so a bit format may serve (see ``bit_kernel`` and ``use_bits``).
    ``method``: one of ``MXV_METHODS``; "bits" runs the B2SR BMV (tile
    ``rules.bits_tile``, else the profile's) where the product is
    pattern-only, the pull otherwise; "tensor_core" Blest's step on M's
    BVSS (sigma 8, natural order), for the products ``tensor_core_kind``
    accepts only (``ops`` raises for the others). ``rules``: the
    ``settings.Plan``.
    """
    device = M.device
    if method == "tensor_core":
        kind = tensor_core_kind(spec, flipped, pattern_only)
        if kind is None:
            raise InvalidValue("plan.matvec: method='tensor_core' cannot compute this product"
                               " (not Boolean-like, or it reads the matrix's values)")
        step = _kernel("mxv", "bvss", "tensor_core", device)
        t_true, present = step(M.bvss(8, "none"), u._bitmap, _true_bits(kind, u, x_values), allowed)
        return t_true.astype(spec.dtype), present
    # push when nvals(u) <= push_density * size(u): the push kernel's work is
    # the out-degree sum of u's entries, pull's is every (allowed) row
    # nvals is a popcount and a host read on the GPU (0.3 ms on 4M entries): read once
    nvals = u.nvals if method == "auto" or device == "cuda" else None
    if method == "push" or method == "auto" and nvals <= rules.push_density * u.size:
        push = _kernel("mxv", "csr", "push", device)
        return push(get_csr_t(), u.indices(), x_values, allowed, spec, flipped, M.nrows)
    if pattern_only and method in ("auto", "bits"):
        kind = bit_kernel(spec, flipped)
        t = use_bits(M, kind, "mxv", rules, force=method == "bits")
        if t:
            return _bit_matvec(kind, M.b2sr(t), u, x_values, allowed, spec, flipped, device)
    pull = _kernel("mxv", "csr", "pull", device)
    csr = get_csr()
    if device != "cuda":
        return pull(csr, x_values, u._bitmap, allowed, spec, flipped)
    return pull(csr, x_values, u._bitmap, allowed, spec, flipped, plan=_pull_plan(M, csr),
                x_full=nvals == u.size)


def _pull_plan(M, csr):
    """The CUDA pull's split of M's rows (``kernels.cuda.spmv_csr.pull_plan``), kept with M
    (slot ``spmv_cuda_plan``: a few host reads once, none after)."""
    from bitgraph.kernels.cuda import settings as cuda_settings
    from bitgraph.kernels.cuda.spmv_csr import pull_plan

    cfg = cuda_settings()
    key = (int(cfg.spmv_split_above), int(cfg.spmv_chunk), int(cfg.spmv_warp_above))
    slots = M._slots()
    if slots.spmv_cuda_plan is None:
        slots.spmv_cuda_plan = {}
    if key not in slots.spmv_cuda_plan:
        slots.spmv_cuda_plan[key] = pull_plan(csr.indptr, split=key[0], chunk=key[1],
                                              warp_above=key[2])
    return slots.spmv_cuda_plan[key]


# --- bit formats ----------------------------------------------------------------
# "auto" takes B2SR where it pays, by the rules of ``settings.Plan`` (each
# field gives its measurement):
# - CPU mxv: the bit-only BMV (bin_bin_bin: LOR/ANY-like monoids, a BFS step)
#   on B2SR-``bits_mxv_tile`` when the profile estimates at least
#   ``bits_mxv_min_per_tile`` entries a tile. Counting (bin_bin_full) and
#   value-reading semirings (bin_full_full) stay on CSR: the CSR pull reads
#   ~1 ns per entry, and bin_full_full walks the bits one by one.
# - CPU masked mxm (triangle counting): bmm_bin_bin_sum on
#   B2SR-``bits_mxm_tile`` at ``bits_mxm_min_per_tile`` entries a tile.
# - CUDA mxv: a BFS-like step on B2SR-``cuda_bits_tile`` unless the top 1% of
#   rows hold more than ``hub_share`` of the entries; counting and valued
#   semirings on the CSR pull. CUDA masked mxm stays on CSR: its tiles fill
#   0.7-6%, and on kron-22 (H100) the masked dot products count the
#   triangles in 118 ms, the tensor-core bmm_bin_bin_sum in 362; it runs
#   when asked for (method="bits").
def _bit_rules(rules, device):
    """(op, kind) -> (tile size, least estimated entries per tile, most
    share of the entries in the top 1% longest rows)."""
    if device == "cuda":
        mxv = (rules.cuda_bits_tile, 0.0, rules.hub_share)
        return {("mxv", "ones"): mxv, ("mxv", "lor_x"): mxv}
    mxv = (rules.bits_mxv_tile, rules.bits_mxv_min_per_tile, 1.0)
    mxm = (rules.bits_mxm_tile, rules.bits_mxm_min_per_tile, 1.0)
    return {("mxv", "ones"): mxv, ("mxv", "lor_x"): mxv,
            ("mxm", "count"): mxm, ("mxm", "ones"): mxm, ("mxm", "parity"): mxm}


def bit_kernel(spec, flipped):
    """Which B2SR BMV computes t = M ⊕.⊗ x when every a_ik acts as 1.

    With m the multiply as m(a, x) (vxm's operands flipped back):
    - products constant 1 (m = PAIR, or FIRST reading a = 1): PLUS counts
      set bits (``bin_bin_full``; LXOR their parity); any monoid that maps
      ones to 1 (LOR, ANY, MIN, MAX, LAND, TIMES, EQ; PLUS on bool) needs
      only "some bit in common" (``bin_bin_bin``);
    - products equal to x on bool (SECOND, TIMES, LAND, MIN) under LOR (or
      PLUS/MAX, which are LOR on bool): "some bit in common with the true
      entries of x" (``bin_bin_bin`` with x's true bits);
    - anything else: ``bin_full_full``, every semiring, op codes at run time.
    Returns "ones", "count", "parity", "lor_x" or "full".
    """
    from .kernels import opcodes as oc

    add, T = spec.add, np.dtype(spec.dtype)
    m = oc.flipped(spec.mult) if flipped else spec.mult
    is_bool = T == np.bool_
    if m in (oc.PAIR, oc.FIRST):
        kind = _sum_of_ones(add, is_bool)
        if kind:
            return kind
    if is_bool and m in (oc.SECOND, oc.TIMES, oc.LAND, oc.MIN) and add in (oc.LOR, oc.PLUS, oc.MAX):
        return "lor_x"
    return "full"


def tensor_core_kind(spec, flipped, pattern_only):
    """The ``bit_kernel`` kind of t = M ⊕.⊗ x when Blest's BVSS step
    computes it ("ones" or "lor_x": a row is present, or true, when it has
    a column in common with x's entries, or with its true entries), else
    None: a product that reads M's values (``pattern_only`` False), counts
    (PLUS_PAIR) or combines values (PLUS_TIMES, MIN_PLUS, ...).

    >>> from bitgraph.kernels import opcodes as oc
    >>> import numpy as np
    >>> tensor_core_kind(semiring_spec(np.bool_, oc.LOR, oc.LAND, False, True), False, True)
    'lor_x'
    >>> tensor_core_kind(semiring_spec(np.int64, oc.PLUS, oc.PAIR, 0, None), False, True) is None
    True
    """
    if not pattern_only:
        return None
    kind = bit_kernel(spec, flipped)
    return kind if kind in ("ones", "lor_x") else None


def use_bits(M, kind, op, rules, *, force=False):
    """The tile size to run ``kind`` of ``op`` on B2SR with, or 0 for CSR:
    the measured rules above (``rules``: the ``settings.Plan``), or with
    ``force`` (method="bits") ``rules.bits_tile`` or the profile's choice
    whenever a bit kernel computes the product."""
    if kind is None:
        return 0
    if force:
        return rules.bits_tile or M.b2sr("auto").t
    rule = _bit_rules(rules, M.device).get((op, kind))
    if rule is None:
        return 0
    t, least, hubs = rule
    if hubs < 1.0 and top1_share(M) > hubs:
        return 0
    return t if least <= 0 or M.profile()[t]["nnz_per_tile"] >= least else 0


def top1_share(M) -> float:
    """The share of M's entries in its 1% longest rows (cached): how much a
    few hub rows dominate.

    >>> import bitgraph as bg
    >>> round(top1_share(bg.Matrix.from_coo([0, 0, 0, 1], [0, 1, 2, 0], nrows=100, ncols=3)), 2)
    0.75
    """
    slots = M._slots()
    if slots.top1_share is None:
        c = M._csr()
        xp = ar.array_module(c.indptr)
        lens = xp.sort(xp.diff(c.indptr.astype(np.int64)))
        top = max(1, -(-c.nrows // 100))
        slots.top1_share = float(lens[-top:].sum()) / max(c.nnz, 1) if c.nrows else 0.0
    return slots.top1_share


def mxm_bit_kind(spec):
    """"count" / "parity" / "ones" when C(i,j) depends only on
    |A(i,:) ∩ B(:,j)| for pattern-only A and B (every product of two ones
    is 1: PAIR, FIRST, SECOND, TIMES, MIN, MAX, LAND, LOR), else None.
    As ``bit_kernel``: PLUS counts, LXOR takes the parity, the monoids
    that map ones to 1 give 1."""
    from .kernels import opcodes as oc

    if spec.mult not in (oc.PAIR, oc.FIRST, oc.SECOND, oc.TIMES, oc.MIN, oc.MAX, oc.LAND, oc.LOR):
        return None
    return _sum_of_ones(spec.add, np.dtype(spec.dtype) == np.bool_)


def _sum_of_ones(add, is_bool):
    """How monoid ``add`` reduces products that are all 1: "count" (PLUS),
    "parity" (LXOR), "ones" (LOR, ANY, MIN, MAX, LAND, TIMES, EQ, and PLUS
    on bool, which is LOR), or None."""
    from .kernels import opcodes as oc

    if add == oc.PLUS and not is_bool:
        return "count"
    if add == oc.LXOR:
        return "parity"
    if add in (oc.LOR, oc.ANY, oc.MIN, oc.MAX, oc.LAND, oc.TIMES, oc.EQ, oc.PLUS):
        return "ones"
    return None


def _bit_mxm(kind, A_bits, BT_bits, pattern, spec, device):
    counts, _ = _kernel("mxm", "b2sr", "bin_bin_sum", device)(A_bits, BT_bits, pattern)
    xp = ar.array_module(counts)
    keep = counts != 0
    rows = ar.rows_of(pattern.indptr)[keep]
    indptr = xp.zeros(pattern.nrows + 1, np.int64)
    indptr[1:] = xp.cumsum(xp.bincount(rows, minlength=pattern.nrows))
    vals = counts[keep]
    if kind == "parity":
        vals = vals & np.uint64(1)
    elif kind == "ones":
        vals = xp.ones(vals.size, np.uint64)
    return indptr, pattern.indices[keep], vals.astype(spec.dtype)


def _bit_matvec(kind, B, u, x_values, allowed, spec, flipped, device):
    T = np.dtype(spec.dtype)
    if kind == "full":
        return _kernel("mxv", "b2sr", "bin_full_full", device)(B, x_values, u._bitmap, allowed,
                                                               spec, flipped)
    if kind in ("count", "parity"):
        counts = _kernel("mxv", "b2sr", "bin_bin_full", device)(B, u._bitmap, allowed)
        present = counts != 0
        if kind == "parity":
            counts = counts & np.uint64(1)
        return counts.astype(T), present  # wraps like repeated PLUS
    x_true = _true_bits(kind, u, x_values)
    t_true, present = _kernel("mxv", "b2sr", "bin_bin_bin", device)(B, u._bitmap, x_true, allowed)
    return t_true.astype(T), present


def _true_bits(kind, u, x_values):
    """For "lor_x", u's true entries as a packed bitmap; else None (a bit
    kernel's ``x_true``: the same as u's entries)."""
    if kind != "lor_x":
        return None
    return ar.pack_bits(ar.unpack_bits(u._bitmap, u.size) & (x_values != 0))


def mxm(a, get_b, get_bt, pattern, complement, spec, bits, method, rules):
    """C = A ⊕.⊗ B (restricted by the mask pattern) as (indptr, indices, values).

    ``get_b()``/``get_bt()`` give B's CSR / B' 's CSR, values ready (built
    lazily). With a mask (not complemented) the dot-product kernel is chosen
    when its work, sum over M(i,j) of |B(:,j)|, is below Gustavson's, sum
    over A(i,k) of |B(k,:)| (triangle counting: C<L> = L plus.pair L').
    ``bits``: (A, B) when no value of either is read; then a masked product
    whose entries are counts or ones (see ``mxm_bit_kind``) may run as
    ``bmm_bin_bin_sum`` on the B2SR of A and of B' (see ``use_bits``).
    ``method``: one of ``MXM_METHODS``, a request as SuiteSparse's
    GxB_AxB_METHOD is: "dot" needs a mask, "bits" a masked product of
    counts or ones that reads no value; where the request cannot compute
    the product, the plan chooses among the others. ``rules``: the
    ``settings.Plan``.
    """
    device = _device_of(a.indptr)
    if bits is not None and pattern is not None and not complement and method in ("auto", "bits"):
        kind = mxm_bit_kind(spec)
        A, B = bits
        t = use_bits(A, kind, "mxm", rules, force=method == "bits")
        if t:
            return _bit_mxm(kind, A.b2sr(t), B.T.b2sr(t), pattern, spec, device)
    if pattern is not None and not complement and method != "gustavson":
        bt = get_bt()
        dot = _kernel("mxm", "csr", "dot", device)
        if method == "dot":
            return dot(a, bt, pattern, spec)
        xp = ar.array_module(bt.indptr)
        col_len = xp.diff(bt.indptr.astype(np.int64))  # |B(:,j)|
        dot_work = int(col_len[pattern.indices].sum())
        row_len = xp.bincount(bt.indices, minlength=bt.ncols)  # |B(k,:)|
        gustavson_work = int(row_len[a.indices].sum())
        if dot_work < gustavson_work:
            return dot(a, bt, pattern, spec)
    return _kernel("mxm", "csr", "gustavson", device)(a, get_b(), pattern, complement, spec)


def _device_of(a):
    return "cpu" if ar.array_module(a) is np else "cuda"


def ewise(code, x, y):
    return _kernel("ewise", "dense", "binop", _device_of(x))(code, x, y)


def unary(code, x):
    return _kernel("unary", "dense", "unop", _device_of(x))(code, x)


def reduce_segments(indptr, values, code, identity, terminal):
    return _kernel("reduce", "csr", "segments", _device_of(values))(indptr, values, code, identity,
                                                                     terminal)


# --- a Vector's bitmap ------------------------------------------------------------
# On the GPU our shipped kernels (kernels/cuda/graph_prep.py): one launch each, no CuPy
# kernel to compile, no n x 32 temporaries; on the CPU numpy (``_array``).

def pack_bits(present):
    """uint32 words of the flags ``present`` (``_array.pack_bits`` on either device)."""
    if _device_of(present) == "cpu":
        return ar.pack_bits(present)
    return _kernel("pack_bits", "dense", "bool", "cuda")(present.astype(np.bool_, copy=False))


def unpack_bits(words, n):
    """bool[n] of uint32 words (``_array.unpack_bits`` on either device)."""
    if _device_of(words) == "cpu":
        return ar.unpack_bits(words, n)
    return _kernel("unpack_bits", "dense", "bool", "cuda")(words.astype(np.uint32, copy=False), n)


def count_bits(words) -> int:
    """The set bits of uint32 words, a Python int (on the GPU a host read)."""
    if _device_of(words) == "cpu":
        return ar.popcount_words(words)
    return _kernel("popcount_words", "dense", "count", "cuda")(
        words.astype(np.uint32, copy=False))


def bit_indices(words, n, count):
    """int64 positions (< n) of the set bits of uint32 words, ascending, on
    either device (the GPU's: two launches sized by ``count``, their number,
    no host read; the CPU ignores ``count``)."""
    if _device_of(words) == "cpu":
        return np.flatnonzero(ar.unpack_bits(words, n)).astype(np.int64)
    return _kernel("bit_indices", "dense", "int64", "cuda")(words.astype(np.uint32, copy=False),
                                                            count)


def present_vector(present, values, allowed=None):
    """``(words, values')``: a Vector's bitmap and its values zeroed where
    absent (a new array), from flags and values on either device; with
    ``allowed`` (uint32 words) only the positions it has are present."""
    if _device_of(values) == "cpu":
        if allowed is not None:
            present = present & ar.unpack_bits(allowed, present.shape[0])
        return ar.pack_bits(present), np.where(present, values, values.dtype.type(0))
    return _kernel("present_vector", "dense", "bits", "cuda")(
        present.astype(np.bool_, copy=False), values, allowed)
