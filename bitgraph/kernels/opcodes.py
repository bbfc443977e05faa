"""Integer codes that name operators inside compiled kernels.

Kernels are specialised by numba on dtype only; the operator is a runtime
integer from this table (DESIGN.md, "numba"). The Python operator objects in
``bitgraph.semiring`` carry these codes; the scalar semantics of each code
live once, in ``bitgraph.kernels.cpu.scalar`` (and later its CUDA twin).

Every code computes in one dtype T (the operator's domain) and wraps the
result back into T, as SuiteSparse:GraphBLAS does. Comparisons produce 0/1 in
T (the caller casts to bool). Positional codes ignore the values and return
an index, computed by the kernel from (i, k, j) of the product a(i,k)*b(k,j).
"""

# binary operators (also used as monoid codes where they are associative)
FIRST = 0
SECOND = 1
PAIR = 2  # 1
ANY = 3  # either operand; kernels return the first one they meet
PLUS = 4
MINUS = 5
RMINUS = 6
TIMES = 7
DIV = 8  # C division with SuiteSparse's rules for integers (x/0 saturates)
RDIV = 9
MIN = 10  # fmin for floats (a NaN operand is ignored)
MAX = 11  # fmax for floats
LOR = 12
LAND = 13
LXOR = 14
EQ = 15  # also the LXNOR monoid on bool
NE = 16
GT = 17
LT = 18
GE = 19
LE = 20
FIRSTI = 21  # i of a(i,k)*b(k,j)
FIRSTJ = 22  # k
SECONDI = 23  # k
SECONDJ = 24  # j

POSITIONAL = (FIRSTI, FIRSTJ, SECONDI, SECONDJ)
COMPARISON = (EQ, NE, GT, LT, GE, LE)
# codes whose result does not read the value of the first / second operand
IGNORES_FIRST = (SECOND, PAIR) + POSITIONAL
IGNORES_SECOND = (FIRST, PAIR) + POSITIONAL

_FLIPPED = {
    FIRST: SECOND, SECOND: FIRST, MINUS: RMINUS, RMINUS: MINUS, DIV: RDIV, RDIV: DIV,
    GT: LT, LT: GT, GE: LE, LE: GE, FIRSTI: SECONDJ, SECONDJ: FIRSTI,
    ANY: SECOND,  # ANY returns its first operand: flipped, that is the second
}


def flipped(code: int) -> int:
    """The code g with g(y, x) == code(x, y), positional indices included.

    vxm computes x(k) * b(k, r) as b(k, r) (.) x(k) on row r of B', where a
    kernel passes (i, k, j) = (r, k, 0) for a product whose true indices are
    (0, k, r): so FIRSTI and SECONDJ swap too (FIRSTJ and SECONDI are both k).
    """
    return _FLIPPED.get(code, code)


# unary operators
IDENTITY = 0
AINV = 1
MINV = 2
ABS = 3
LNOT = 4
ONE = 5
BNOT = 6
