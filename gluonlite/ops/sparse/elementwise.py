"""Elementwise operators on sparse storage: the storage rules of the unary, binary, scalar
and comparison operators of `gluonlite.ops.elementwise` and `gluonlite.ops.compare`, on the
compressed parts (`arrays`).

MXNet keeps a sparse storage type where the function maps 0 to 0: zero-preserving unary
functions (``abs``, ``sqrt``, ``tanh``, ...), ``x * s``, ``x + 0``, ``x > 0``, ``x / s``
(always kept, MXNet's rule), sums and differences of two arrays of one sparse type, products
of a sparse array with a dense one; everything else falls back to dense storage (the rules
return None).

Example::

    from gluonlite.ops.sparse.elementwise import UNARY_RULES
    from gluonlite.ops.sparse.arrays import from_dense
    csr = from_dense(np.array([[0.0, 3.0], [2.0, 0.0]]), "csr")
    UNARY_RULES["square"].kernel(None, None, csr).data  # array([9., 4.]): still a CSR
"""
import numpy as np
import scipy.sparse as spsp

from .arrays import RowSparse, from_scipy, host, is_sparse, like, zeros
from .rule import StorageRule, stype_of

__all__ = ["UNARY_RULES", "elemwise_rule", "broadcast_rule", "scalar_rule", "IDENTITY",
           "CLIP", "ZEROS_LIKE", "ADD_N", "QUADRATIC", "refuse"]

_IDX = np.int64
_BIN = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
        "maximum": np.maximum, "minimum": np.minimum, "hypot": np.hypot}
_CMP = {"eq": np.equal, "ne": np.not_equal, "gt": np.greater, "ge": np.greater_equal,
        "lt": np.less, "le": np.less_equal}


def refuse(name, *xs, why=""):
    """The ValueError of a storage combination operator `name` does not take.

    Args:
        name: the operator's name, starting the message.
        *xs: the raw inputs, whose storage types the message lists (None: 'none').
        why: text appended to the message (default '').

    Returns:
        ValueError: for the caller to raise.

    Example::

        from gluonlite.ops.sparse.elementwise import refuse
        from gluonlite.ops.sparse.arrays import zeros
        print(refuse("dot", zeros("csr", (2, 2), np.float32), np.zeros(2)))
        # dot: storage types (csr, default) are not supported
    """
    kinds = ", ".join(stype_of(x) or "none" for x in xs)
    return ValueError(f"{name}: storage types ({kinds}) are not supported{why}")


def map_values(x, fn):
    """`fn` applied to the stored values of raw sparse `x` only (a zero-preserving function).

    Example::

        from gluonlite.ops.sparse.arrays import from_dense
        from gluonlite.ops.sparse.elementwise import map_values
        m = from_dense(np.array([[0.0, 3.0], [0.0, 0.0]]), "csr")
        map_values(m, np.square).data       # array([9.]): only stored values are touched
    """
    with np.errstate(all="ignore"):
        vals = np.asarray(fn(x.data)).astype(x.data.dtype, copy=False)
    return like(x, vals, tuple(a.copy() for a in x.aux()))


def _rsp_union(a, b, fn):
    """`fn` of two row_sparse arrays of one shape, on the union of their stored rows."""
    idx = np.union1d(a.indices, b.indices).astype(_IDX)
    rest = a.shape[1:]
    da = np.zeros((idx.size,) + rest, a.data.dtype)
    db = np.zeros((idx.size,) + rest, b.data.dtype)
    da[np.searchsorted(idx, a.indices)] = a.data
    db[np.searchsorted(idx, b.indices)] = b.data
    with np.errstate(all="ignore"):
        out = np.asarray(fn(da, db)).astype(a.data.dtype, copy=False)
    return RowSparse(out, idx, a.shape)


def _csr_pair(a, b, kind):
    A, B = a.scipy(), b.scipy()
    m = {"add": lambda: A + B, "sub": lambda: A - B, "mul": lambda: A.multiply(B),
         "maximum": lambda: A.maximum(B), "minimum": lambda: A.minimum(B),
         "hypot": lambda: (A.multiply(A) + B.multiply(B)).sqrt()}[kind]()
    return from_scipy(spsp.csr_matrix(m).astype(a.data.dtype))


def _csr_times_dense(a, d, fn):
    """`fn(values, dense[row, col])` at the stored entries of csr `a` (`d` broadcast to a's
    shape): csr * dense and csr / dense keep a's pattern."""
    rows = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr))
    other = np.broadcast_to(host(d), a.shape)[rows, a.indices]
    with np.errstate(all="ignore"):
        vals = np.asarray(fn(a.data, other)).astype(a.data.dtype, copy=False)
    return like(a, vals, tuple(x.copy() for x in a.aux()))


def _rsp_times_dense(a, d, fn):
    other = host(d)[a.indices]
    with np.errstate(all="ignore"):
        vals = np.asarray(fn(a.data, other)).astype(a.data.dtype, copy=False)
    return RowSparse(vals, a.indices.copy(), a.shape)


def elemwise_rule(kind):
    """elemwise_<kind> (and _maximum, _minimum, _hypot): MXNet keeps csr with csr and rsp
    with rsp (every kind but div: each maps two zeros to zero), csr*dense and rsp*dense
    (either order, mul); everything else is dense.

    Args:
        kind: 'add', 'sub', 'mul', 'div', 'maximum', 'minimum' or 'hypot'.

    Returns:
        StorageRule: whose kernel ``kernel(p, rc, lhs, rhs)`` gives the sparse result, or None
        for the dense operator to compute; it raises ValueError for shapes that differ.

    Example::

        from gluonlite.ops.sparse.arrays import from_dense
        from gluonlite.ops.sparse.elementwise import elemwise_rule
        a = from_dense(np.eye(2), "csr")
        elemwise_rule("add").kernel(None, None, a, a).stype   # 'csr': csr + csr stays csr
    """
    name = f"elemwise_{kind}" if kind in ("add", "sub", "mul", "div") else f"_{kind}"

    def kernel(p, rc, lhs, rhs):
        if tuple(lhs.shape) != tuple(rhs.shape):
            raise ValueError(f"{name}: shapes must be equal, got {tuple(lhs.shape)} "
                             f"and {tuple(rhs.shape)}")
        s = (stype_of(lhs), stype_of(rhs))
        if kind != "div" and s == ("row_sparse", "row_sparse"):
            return _rsp_union(lhs, rhs, _BIN[kind])
        if kind != "div" and s == ("csr", "csr"):
            return _csr_pair(lhs, rhs, kind)
        if kind == "mul":
            if s == ("csr", "default"):
                return _csr_times_dense(lhs, rhs, np.multiply)
            if s == ("default", "csr"):
                return _csr_times_dense(rhs, lhs, np.multiply)
            if s == ("row_sparse", "default"):
                return _rsp_times_dense(lhs, rhs, np.multiply)
            if s == ("default", "row_sparse"):
                return _rsp_times_dense(rhs, lhs, np.multiply)
        return None
    return StorageRule(kernel)


def broadcast_rule(kind):
    """broadcast_<kind>: csr * dense and csr / dense (the dense one broadcast) keep csr.

    Args:
        kind: 'add', 'sub', 'mul' or 'div' (only 'mul' and 'div' keep csr).

    Returns:
        StorageRule: whose kernel ``kernel(p, rc, lhs, rhs)`` gives the sparse result, or None
        for the dense operator to compute; it raises ValueError for a csr divided by a dense
        array of its shape.

    Example::

        from gluonlite.ops.sparse.arrays import from_dense
        from gluonlite.ops.sparse.elementwise import broadcast_rule
        a = from_dense(np.eye(2), "csr")
        broadcast_rule("mul").kernel(None, None, a, np.array([2.0, 3.0])).dense()
        # array([[2., 0.], [0., 3.]]): a csr result
    """
    def kernel(p, rc, lhs, rhs):
        if kind in ("mul", "div") and stype_of(lhs) == "csr" and stype_of(rhs) == "default":
            try:
                shape = np.broadcast_shapes(tuple(rhs.shape), tuple(lhs.shape))
            except ValueError:
                return None  # the dense operator reports the shapes
            if kind == "div" and tuple(rhs.shape) == tuple(lhs.shape):
                raise ValueError("broadcast_div: division of a csr array by a dense one of "
                                 "the same shape is not supported; use elemwise_div")
            if shape == tuple(lhs.shape):
                return _csr_times_dense(lhs, rhs, _BIN[kind])
        return None
    return StorageRule(kernel)


def scalar_rule(kind, reverse=False):
    """A sparse array with a scalar (``p.scalar``; `reverse`: the scalar comes first): the
    storage is kept where the function maps 0 to 0 (``x * s``, ``x + 0``, ``x == 1``, ``x >
    0``, ...), as MXNet does; ``x / s`` always keeps it (MXNet's rule), ``s / x`` never.

    Args:
        kind: 'add', 'sub', 'mul', 'div', or a comparison ('eq', 'ne', 'gt', 'ge', 'lt',
            'le').
        reverse: the scalar is the left operand (default False).

    Returns:
        StorageRule: whose kernel ``kernel(p, rc, x)`` gives the sparse result, or None for
        the dense operator to compute.

    Example::

        from gluonlite.ops.sparse.arrays import from_dense
        from gluonlite.ops.sparse.elementwise import scalar_rule
        from gluonlite.ops.registry import Params
        a = from_dense(np.eye(2), "row_sparse")
        scalar_rule("mul").kernel(Params(scalar=5.0), None, a).data     # rows times 5, row_sparse
        scalar_rule("add").kernel(Params(scalar=1.0), None, a)          # None: x + 1 is dense
    """
    fn = _BIN.get(kind) or _CMP[kind]

    def kernel(p, rc, x):
        if not is_sparse(x):
            return None
        s = p.scalar
        if kind == "div":
            if reverse:
                return None
        else:
            with np.errstate(all="ignore"):
                at_zero = fn(s, 0) if reverse else fn(0, s)
            if at_zero != 0:
                return None
        return map_values(x, (lambda v: fn(s, v)) if reverse else (lambda v: fn(v, s)))
    return StorageRule(kernel)


def _unary(fn):
    def kernel(p, rc, x):
        return map_values(x, fn) if is_sparse(x) else None
    return StorageRule(kernel)


# MXNet's degree/radian factors, float32 quotients in every dtype (as the dense operators)
_DEG = float(np.float32(180) / np.float32(np.pi))
_RAD = float(np.float32(np.pi) / np.float32(180))
# Zero-preserving unary functions: MXNet keeps csr/row_sparse storage (the others, such as
# exp, cos, log or sigmoid, map 0 elsewhere and fall back to dense).
UNARY_RULES = {name: _unary(fn) for name, fn in {
    "abs": np.abs, "arcsin": np.arcsin, "arcsinh": np.arcsinh, "arctan": np.arctan,
    "arctanh": np.arctanh, "cbrt": np.cbrt, "ceil": np.ceil, "degrees": lambda v: v * _DEG,
    "expm1": np.expm1, "fix": np.fix, "floor": np.floor, "log1p": np.log1p,
    "negative": np.negative, "radians": lambda v: v * _RAD, "relu": lambda v: np.maximum(v, 0),
    "rint": np.rint, "round": lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5),
    "sign": np.sign, "sin": np.sin, "sinh": np.sinh, "sqrt": np.sqrt, "square": np.square,
    "tan": np.tan, "tanh": np.tanh, "trunc": np.trunc}.items()}

# stop_gradient, BlockGrad, make_loss: the values as they are, in their storage
IDENTITY = StorageRule(lambda p, rc, x: like(x, x.data.copy(), tuple(a.copy() for a in x.aux()))
                       if is_sparse(x) else None)


def _clip(p, rc, x):
    """clip of a sparse array keeps its storage when 0 lies in [a_min, a_max] (MXNet refuses
    other bounds on sparse input)."""
    if not is_sparse(x):
        return None
    if not p.a_min <= 0 <= p.a_max:
        raise refuse("clip", x, why=f" with a_min={p.a_min}, a_max={p.a_max}: a sparse input "
                     "needs a_min <= 0 <= a_max (zeros must stay zero)")
    return map_values(x, lambda v: np.clip(v, p.a_min, p.a_max))


CLIP = StorageRule(_clip)
ZEROS_LIKE = StorageRule(lambda p, rc, x: zeros(x.stype, x.shape, x.data.dtype)
                         if is_sparse(x) else None)


def _add_n(p, rc, *xs):
    if all(stype_of(a) == "row_sparse" for a in xs):
        out = xs[0]
        for a in xs[1:]:
            out = _rsp_union(out, a, np.add)
        return out if len(xs) > 1 else RowSparse(out.data.copy(), out.indices.copy(), out.shape)
    return None


ADD_N = StorageRule(_add_n)


def _quadratic(p, rc, x):
    """contrib.quadratic (a x^2 + b x + c) keeps a sparse storage when c == 0."""
    if not is_sparse(x) or p.c != 0:
        return None
    return map_values(x, lambda v: p.a * v * v + p.b * v)


QUADRATIC = StorageRule(_quadratic)
