"""Storage formats: CSR (canonical) and the derived bit formats.

- ``csr``: the CSR tuple every kernel takes.
- ``b2sr``: Bit-GraphBLAS's blocked CSR of t x t bit tiles (t = 4, 8, 16, 32).
- ``bvss``: Blest's virtual slice sets (sigma-column row slices, 128 per VSS).
- ``profile``: the sampling profile that estimates B2SR sizes and picks t.
- ``reorder``: vertex orderings (RCM, degree, Gorder, Jaccard-with-windows).

Importing this package imports none of them (nor numba).
"""
