"""The storage-type rules of operators on sparse arrays, in one table (`RULES`).

Each row maps an operator name to a kernel with MXNet's signature. A kernel returns the
result with the storage type MXNet 1.9.1 gives (computed with numpy/scipy on the compressed
parts), or ``None`` where MXNet falls back to dense storage: the registered dense operator then
runs on the dense values (a sparse array's ``_data``) and returns a dense array. Combinations
MXNet refuses raise ValueError naming the operator and the storage types.

The same table serves ``nd.sparse.<name>`` and, for sparse inputs, ``nd.<name>`` (the
generated function asks `dispatch` only on its slow path, when an input is not a plain
NDArray, so dense calls pay nothing). Under ``autograd.record()`` the dense operator is run
too, for its recorded gradient, and the sparse result takes its place in the graph.

Example::

    x = nd.ones((2, 3)).tostype('csr')
    nd.sparse.square(x).stype        # 'csr'  (zero-preserving: storage kept)
    nd.sparse.exp(x).stype           # 'default' (exp(0) = 1: dense fallback)
"""
import numpy as np
import scipy.sparse as spsp

from .. import autograd_tape
from .ndarray import NDArray
from . import sparse as _sp

_IDX = np.int64


def _st(x):
    return x.stype if isinstance(x, NDArray) else "scalar"


def _refuse(name, *xs, why=""):
    kinds = ", ".join(_st(x) for x in xs)
    return ValueError(f"{name}: storage types ({kinds}) are not supported{why}")


def _dense_nd(name):
    from . import register
    return register._gen_cache[name]


def _is_sparse(x):
    return isinstance(x, _sp.BaseSparseNDArray)


# ---- kernels on the compressed parts ---------------------------------------------------------
def _map_values(x, fn):
    """`fn` applied to the stored values only (a zero-preserving function)."""
    with np.errstate(all="ignore"):
        vals = np.asarray(fn(x._sdata)).astype(x._sdata.dtype, copy=False)
    return _sp._like(x, vals, tuple(a.copy() for a in x._aux()))


def _rsp_union(a, b, fn):
    """`fn` of two row_sparse arrays of one shape, on the union of their stored rows."""
    idx = np.union1d(a._sindices, b._sindices).astype(_IDX)
    rest = a.shape[1:]
    da = np.zeros((idx.size,) + rest, a._sdata.dtype)
    db = np.zeros((idx.size,) + rest, b._sdata.dtype)
    da[np.searchsorted(idx, a._sindices)] = a._sdata
    db[np.searchsorted(idx, b._sindices)] = b._sdata
    with np.errstate(all="ignore"):
        out = np.asarray(fn(da, db)).astype(a._sdata.dtype, copy=False)
    return _sp._new_row_sparse(out, idx, a.shape, a.context)


def _csr_pair(a, b, kind):
    A, B = a._scipy(), b._scipy()
    m = {"add": lambda: A + B, "sub": lambda: A - B, "mul": lambda: A.multiply(B)}[kind]()
    return _sp._from_scipy(spsp.csr_matrix(m).astype(a._sdata.dtype), a.context)


def _csr_times_dense(a, d, fn):
    """`fn(values, dense[row, col])` at the stored entries of csr `a` (`d` broadcast to a's
    shape): csr * dense and csr / dense keep a's pattern."""
    rows = np.repeat(np.arange(a.shape[0]), np.diff(a._sindptr))
    other = np.broadcast_to(_sp._host(d), a.shape)[rows, a._sindices]
    with np.errstate(all="ignore"):
        vals = np.asarray(fn(a._sdata, other)).astype(a._sdata.dtype, copy=False)
    return _sp._like(a, vals, tuple(x.copy() for x in a._aux()))


def _rsp_times_dense(a, d, fn):
    other = _sp._host(d)[a._sindices]
    with np.errstate(all="ignore"):
        vals = np.asarray(fn(a._sdata, other)).astype(a._sdata.dtype, copy=False)
    return _sp._like(a, vals, (a._sindices.copy(),))


_BIN = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}


def _elemwise(kind):
    """elemwise_<kind>: MXNet keeps csr+csr, rsp+rsp (add, sub, mul), csr*dense, rsp*dense
    (either order, mul); everything else is dense."""
    def kernel(lhs, rhs):
        if tuple(lhs.shape) != tuple(rhs.shape):
            raise ValueError(f"elemwise_{kind}: shapes must be equal, got {lhs.shape} and "
                             f"{rhs.shape}")
        s = (lhs.stype, rhs.stype)
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
    kernel.__name__ = f"elemwise_{kind}"
    return kernel


def _broadcast(kind):
    """broadcast_<kind>: csr * dense and csr / dense (the dense one broadcast) keep csr."""
    def kernel(lhs, rhs):
        if kind in ("mul", "div") and lhs.stype == "csr" and rhs.stype == "default":
            try:
                np.broadcast_shapes(tuple(rhs.shape), tuple(lhs.shape))
            except ValueError:
                return None  # the dense operator reports the shapes
            if kind == "div" and tuple(rhs.shape) == tuple(lhs.shape):
                raise ValueError("broadcast_div: division of a csr array by a dense one of "
                                 "the same shape is not supported; use elemwise_div")
            if np.broadcast_shapes(tuple(rhs.shape), tuple(lhs.shape)) == tuple(lhs.shape):
                return _csr_times_dense(lhs, rhs, _BIN[kind])
        return None
    kernel.__name__ = f"broadcast_{kind}"
    return kernel


_CMP = {"eq": np.equal, "ne": np.not_equal, "gt": np.greater, "ge": np.greater_equal,
        "lt": np.less, "le": np.less_equal}


def _scalar(kind):
    """Sparse with a scalar: the storage is kept where the function maps 0 to 0 (``x * s``,
    ``x + 0``, ``x == 1``, ``x > 0``, ...), as MXNet does; ``x / s`` always keeps it
    (MXNet's rule), ``s / x`` never does."""
    def kernel(x, scalar, reverse=False):
        fn = _BIN.get(kind) or _CMP[kind]
        if kind == "div":
            if reverse:
                return None
        else:
            with np.errstate(all="ignore"):
                at_zero = fn(scalar, 0) if reverse else fn(0, scalar)
            if at_zero != 0:
                return None
        if reverse:
            return _map_values(x, lambda v: fn(scalar, v))
        return _map_values(x, lambda v: fn(v, scalar))
    return kernel


def true_divide(lhs, rhs):
    """``lhs / rhs`` with a sparse operand, as MXNet 1.9.1 computes it under Python 3 (its
    NDArray's ``__truediv__``: broadcast_div, or the scalar operators)."""
    if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
        return dispatch("broadcast_div", lhs, rhs)
    return arithmetic("divide", lhs, rhs)


def arithmetic(name, lhs, rhs):
    """MXNet's sparse add/subtract/multiply/divide (and the `+ - * /` of sparse arrays): two
    arrays of one shape go by the elemwise rules, other shapes by the broadcast rules, a
    scalar by the scalar rules; a dense result where MXNet gives one."""
    kind = {"add": "add", "subtract": "sub", "multiply": "mul", "divide": "div"}[name]
    la, ra = isinstance(lhs, NDArray), isinstance(rhs, NDArray)
    if la and ra:
        if tuple(lhs.shape) == tuple(rhs.shape):
            return dispatch(f"elemwise_{kind}", lhs, rhs)
        return dispatch(f"broadcast_{kind}", lhs, rhs)
    if la or ra:
        x, s = (lhs, rhs) if la else (rhs, lhs)
        if not isinstance(s, (int, float, np.number, bool)):
            return NotImplemented
        if not _is_sparse(x):
            return x._binary(s, None, _SCALAR_OPS[kind][0 if la else 1], reverse=not la)
        res = _scalar(kind)(x, s, reverse=not la)
        return _finish(res, _SCALAR_OPS[kind][0 if la else 1], [x], [x], {"scalar": s})
    return {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
            "mul": lambda a, b: a * b, "div": lambda a, b: a / b}[kind](lhs, rhs)


_SCALAR_OPS = {"add": ("_plus_scalar", "_plus_scalar"), "sub": ("_minus_scalar", "_rminus_scalar"),
               "mul": ("_mul_scalar", "_mul_scalar"), "div": ("_div_scalar", "_rdiv_scalar")}


def _add_n(*args, num_args=None):
    if all(a.stype == "row_sparse" for a in args):
        out = args[0]
        for a in args[1:]:
            out = _rsp_union(out, a, np.add)
        return out if len(args) > 1 else out.copy()
    return None


def _dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None):
    """MXNet's output storage: forward_stype when given; else row_sparse for dot(csr.T, dense
    or row_sparse), csr for dot(dense, csr) without transpose_a, dense otherwise."""
    s = (lhs.stype, rhs.stype)
    if forward_stype is None:
        if s[0] == "csr" and s[1] in ("default", "row_sparse") and transpose_a and \
                not transpose_b:
            forward_stype = "row_sparse"
        elif s == ("default", "csr") and not transpose_a:
            forward_stype = "csr"
        else:
            forward_stype = "default"
    A = lhs._scipy() if lhs.stype == "csr" else _sp._host(lhs)
    B = rhs._scipy() if rhs.stype == "csr" else _sp._host(rhs)
    if lhs.ndim != 2 and lhs.stype != "default" or rhs.ndim != 2 and rhs.stype != "default":
        raise _refuse("dot", lhs, rhs, why=" for arrays that are not 2-D")
    if transpose_a:
        A = A.T
    if transpose_b:
        B = B.T
    if A.shape[-1] != B.shape[0]:
        raise ValueError(f"dot: shapes {lhs.shape} and {rhs.shape} (transpose_a="
                         f"{transpose_a}, transpose_b={transpose_b}) do not fit")
    if spsp.issparse(A):
        m = A @ B
    elif spsp.issparse(B):
        m = (B.T @ A.T).T
    else:
        m = A @ B
    dt = lhs.dtype
    if forward_stype == "csr" and spsp.issparse(m):
        return _sp._from_scipy(spsp.csr_matrix(m).astype(dt), lhs.context)
    dense = (m.toarray() if spsp.issparse(m) else np.asarray(m)).astype(dt, copy=False)
    if forward_stype == "default":
        return NDArray(lhs.context.xp.asarray(dense), lhs.context)
    return _sp._from_dense(dense, forward_stype, lhs.context)


def _retain(data, indices):
    """The rows of row_sparse `data` whose numbers are in `indices` (others dropped)."""
    if data.stype != "row_sparse":
        raise _refuse("retain", data, why="; retain takes a row_sparse array")
    want = np.asarray(_sp._host(indices) if isinstance(indices, NDArray) else indices)
    keep = np.isin(data._sindices, want.astype(_IDX))
    return _sp._new_row_sparse(data._sdata[keep].copy(), data._sindices[keep].copy(),
                               data.shape, data.context)


def _slice(data, begin, end, step=()):
    """slice of a csr array (rows, then columns) stays csr; other storage: dense."""
    if data.stype != "csr":
        return None
    if isinstance(step, (int, np.integer)):
        step = (step,)
    if step and any(s not in (None, 1) for s in step):
        return None  # MXNet computes a stepped slice on the dense values
    begin = (begin,) if isinstance(begin, (int, np.integer)) else tuple(begin)
    end = (end,) if isinstance(end, (int, np.integer)) else tuple(end)
    spans = []
    for ax in range(2):
        n = data.shape[ax]
        b = begin[ax] if ax < len(begin) and begin[ax] is not None else 0
        e = end[ax] if ax < len(end) and end[ax] is not None else n
        b, e, _ = slice(b, e).indices(n)
        spans.append((b, max(b, e)))
    m = data._scipy()[spans[0][0]:spans[0][1], spans[1][0]:spans[1][1]]
    return _sp._from_scipy(m, data.context, data._sdata.dtype)


def _clip(data, a_min, a_max):
    """clip of a sparse array keeps its storage when 0 lies in [a_min, a_max] (MXNet refuses
    other bounds on sparse input)."""
    if not a_min <= 0 <= a_max:
        raise _refuse("clip", data, why=f" with a_min={a_min}, a_max={a_max}: a sparse input "
                      "needs a_min <= 0 <= a_max (zeros must stay zero)")
    return _map_values(data, lambda v: np.clip(v, a_min, a_max))


def _concat(*data, dim=1, num_args=None):
    if dim == 0 and all(d.stype == "csr" for d in data):
        return _sp._from_scipy(spsp.vstack([d._scipy() for d in data], format="csr"),
                               data[0].context, data[0]._sdata.dtype)
    return None


def _take(a, indices, axis=0, mode="clip"):
    """take of csr rows (axis 0, mode clip or wrap) stays csr, as in MXNet."""
    if a.stype != "csr" or axis != 0 or mode not in ("clip", "wrap"):
        return None
    idx = np.asarray(_sp._host(indices) if isinstance(indices, NDArray) else indices)
    idx = idx.astype(np.int64).ravel()
    n = a.shape[0]
    idx = np.clip(idx, 0, n - 1) if mode == "clip" else idx % n
    return _sp._from_scipy(a._scipy()[idx], a.context, a._sdata.dtype)


def _getnnz(data, axis=None):
    """The stored values of a csr matrix (explicit zeros included), from its parts."""
    if data.stype != "csr":
        raise _refuse("getnnz", data, why="; getnnz takes a csr array")
    if axis is None:
        n = np.array([data._sdata.shape[0]])
    elif axis == 1:
        n = np.diff(data._sindptr)
    elif axis == 0:
        n = np.bincount(data._sindices, minlength=data.shape[1])
    else:
        raise ValueError(f"getnnz: axis must be None, 0 or 1, got {axis}")
    return NDArray(data.context.xp.asarray(n.astype(np.int64)), data.context)


def _quadratic(data, a=0.0, b=0.0, c=0.0):
    """contrib.quadratic (a x^2 + b x + c) keeps a sparse storage when c == 0."""
    if c != 0:
        return None
    return _map_values(data, lambda v: a * v * v + b * v)


def _zeros_like(data):
    return _sp.zeros(data.stype, data.shape, ctx=data.context, dtype=data.dtype)


def _identity(data):
    return data.copy()


def _unary(fn):
    def kernel(data):
        return _map_values(data, fn)
    return kernel


def _cast_storage(data, stype):
    return _sp.cast_storage(data, stype)


# Zero-preserving unary functions: MXNet keeps csr/row_sparse storage (the others, such as exp,
# cos, log or sigmoid, map 0 elsewhere and fall back to dense).
_ZERO_PRESERVING = {
    "abs": np.abs, "arcsin": np.arcsin, "arcsinh": np.arcsinh, "arctan": np.arctan,
    "arctanh": np.arctanh, "cbrt": np.cbrt, "ceil": np.ceil, "degrees": np.degrees,
    "expm1": np.expm1, "fix": np.fix, "floor": np.floor, "log1p": np.log1p,
    "negative": np.negative, "radians": np.radians, "relu": lambda v: np.maximum(v, 0),
    "rint": np.rint, "round": lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5),
    "sign": np.sign, "sin": np.sin, "sinh": np.sinh, "sqrt": np.sqrt, "square": np.square,
    "tan": np.tan, "tanh": np.tanh, "trunc": np.trunc,
}

# name -> (kernel, which arguments are arrays: "all" for variadic, else their positions)
RULES = {name: (_unary(fn), (0,)) for name, fn in _ZERO_PRESERVING.items()}
RULES.update({
    "stop_gradient": (_identity, (0,)), "BlockGrad": (_identity, (0,)),
    "make_loss": (_identity, (0,)),
    "elemwise_add": (_elemwise("add"), (0, 1)), "elemwise_sub": (_elemwise("sub"), (0, 1)),
    "elemwise_mul": (_elemwise("mul"), (0, 1)), "elemwise_div": (_elemwise("div"), (0, 1)),
    "_grad_add": (_elemwise("add"), (0, 1)),
    "broadcast_mul": (_broadcast("mul"), (0, 1)), "broadcast_div": (_broadcast("div"), (0, 1)),
    "broadcast_add": (_broadcast("add"), (0, 1)), "broadcast_sub": (_broadcast("sub"), (0, 1)),
    "broadcast_plus": (_broadcast("add"), (0, 1)),
    "broadcast_minus": (_broadcast("sub"), (0, 1)),
    "add_n": (_add_n, "all"), "ElementWiseSum": (_add_n, "all"),
    "dot": (_dot, (0, 1)), "retain": (_retain, (0,)), "_sparse_retain": (_retain, (0,)),
    "slice": (_slice, (0,)), "clip": (_clip, (0,)), "take": (_take, (0,)),
    "concat": (_concat, "all"),
    "Concat": (_concat, "all"), "zeros_like": (_zeros_like, (0,)),
    "cast_storage": (_cast_storage, (0,)), "_contrib_getnnz": (_getnnz, (0,)),
    "_contrib_quadratic": (_quadratic, (0,)),
})


def _scalar_op(kind, reverse=False):
    def kernel(data, scalar):
        return _scalar(kind)(data, scalar, reverse=reverse)
    return kernel


RULES.update({"_mul_scalar": (_scalar_op("mul"), (0,)), "_div_scalar": (_scalar_op("div"), (0,)),
              "_plus_scalar": (_scalar_op("add"), (0,)),
              "_minus_scalar": (_scalar_op("sub"), (0,)),
              "_equal_scalar": (_scalar_op("eq"), (0,)),
              "_not_equal_scalar": (_scalar_op("ne"), (0,)),
              "_greater_scalar": (_scalar_op("gt"), (0,)),
              "_greater_equal_scalar": (_scalar_op("ge"), (0,)),
              "_lesser_scalar": (_scalar_op("lt"), (0,)),
              "_lesser_equal_scalar": (_scalar_op("le"), (0,))})


def compare(x, other, kind, dense_method):
    """``x <op> other`` for a sparse `x`: with a scalar, the scalar rules (storage kept where
    0 maps to 0); with an array, the dense comparison (a dense result)."""
    if isinstance(other, (int, float, np.number, bool)) and not isinstance(other, np.bool_):
        name = {"eq": "_equal_scalar", "ne": "_not_equal_scalar", "gt": "_greater_scalar",
                "ge": "_greater_equal_scalar", "lt": "_lesser_scalar",
                "le": "_lesser_equal_scalar"}[kind]
        return dispatch(name, x, scalar=other)
    return getattr(NDArray, dense_method)(x, other)
# The dense operator behind an nd.sparse name, where the names differ.
_DENSE_NAME = {"adagrad_update": "_sparse_adagrad_update", "retain": None,
               "_sparse_retain": None, "concat": "Concat", "cast_storage": None,
               "add_n": "add_n", "ElementWiseSum": "add_n"}


def _arrays(spec, args):
    if spec == "all":
        return [a for a in args if isinstance(a, NDArray)]
    return [args[i] for i in spec if i < len(args) and isinstance(args[i], NDArray)]


def _densified(v):
    """A sparse array as a dense NDArray holding the same autograd entry (so a dense operator
    run on it records its gradient to the sparse array's node)."""
    if not _is_sparse(v):
        return v
    d = NDArray(v._data, v._ctx)
    d._entry = v._entry
    return d


def _finish(res, dense_name, arrays, args, kwargs):
    """Record `res` for autograd (through the dense operator's gradient), or run the dense
    operator on the dense values when `res` is None (MXNet's storage fallback)."""
    recording = autograd_tape.is_recording() and any(a._entry is not None for a in arrays)
    if res is not None and (not recording or dense_name is None or res._entry is not None):
        return res  # (a kernel that recorded its own gradient set res._entry)
    dense = _dense_nd(dense_name)(*[_densified(a) for a in args],
                                  **{k: _densified(v) for k, v in kwargs.items()})
    if res is None:
        return dense
    res._entry = dense._entry
    return res


def dispatch(name, *args, out=None, **kwargs):
    """Run operator `name` on arguments holding sparse arrays by the `RULES` table (dense
    fallback where MXNet has one); `out`, when given, receives the result."""
    kwargs.pop("name", None)
    kernel, spec = RULES[name]
    arrays = _arrays(spec, args)
    if not any(_is_sparse(a) for a in arrays) and name not in (
            "cast_storage", "retain", "_sparse_retain") and \
            kwargs.get("forward_stype") in (None, "default"):
        res = None
    else:
        res = kernel(*args, **kwargs)
    dense_name = _DENSE_NAME.get(name, name)
    if res is None and dense_name is None:
        raise _refuse(name, *arrays)
    res = _finish(res, dense_name, arrays, args, kwargs)
    if out is not None and out is not res:  # in-place kernels return their output
        out[:] = res
        return out
    return res


def dispatch_op(name, args, kwargs, out):
    """`dispatch` for a call of the registered operator `name` (its nd function), inputs given
    by position or by name."""
    from ..ops import registry
    op = registry.get(name)
    if not op.variadic:
        args = list(args)
        for i, n in enumerate(op.signature):
            if n in kwargs and isinstance(kwargs[n], NDArray):
                while len(args) < i:
                    args.append(None)
                args.insert(i, kwargs.pop(n))
    return dispatch(name, *args, out=out, **kwargs)


def _axes(axis, ndim):
    if axis is None or axis == ():
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return tuple(sorted(int(a) % ndim for a in axes))


def _dense_out(v, like):
    v = np.asarray(v, dtype=like._sdata.dtype)
    return NDArray(like.context.xp.asarray(v.reshape(v.shape or (1,))), like.context)


def _reduce_parts(data, axes, fn):
    """`fn` (np.sum or the sum of squares) reduced over `axes` from the compressed parts: the
    missing entries are zeros, so only the stored values are read."""
    if data.stype == "csr":
        vals = fn(data._sdata)
        if axes == (0, 1):
            return np.sum(vals)
        m = spsp.csr_matrix((vals, data._sindices, data._sindptr), shape=data.shape)
        return np.asarray(m.sum(axis=axes[0])).reshape(-1)
    if 0 in axes:
        return np.sum(fn(data._sdata), axis=axes)
    part = np.sum(fn(data._sdata), axis=axes)
    out = np.zeros((data.shape[0],) + part.shape[1:], part.dtype)
    out[data._sindices] = part
    return out


def _sum_mean(mean):
    """sum/mean of a sparse array: a dense result (as in MXNet) computed from the stored values
    only, so a huge row_sparse array is never made dense."""
    def kernel(data, axis=None, keepdims=False, exclude=False, **kwargs):
        if exclude or kwargs:
            return None
        axes = _axes(axis, data.ndim)
        v = _reduce_parts(data, axes, lambda x: x)
        if mean:
            v = v / np.prod([data.shape[a] for a in axes])
        if keepdims:
            v = np.reshape(v, tuple(1 if i in axes else d for i, d in enumerate(data.shape)))
        return _dense_out(v, data)
    return kernel


def _norm(data, ord=2, axis=None, keepdims=False, out_dtype=None, **kwargs):
    """The 2-norm of all entries from the stored values (other forms: dense fallback)."""
    if ord != 2 or axis not in (None, ()) or keepdims or out_dtype is not None or kwargs:
        return None
    return _dense_out(np.sqrt(np.sum(np.square(data._sdata.astype(np.float64)))), data)


RULES.update({"sum": (_sum_mean(False), (0,)), "mean": (_sum_mean(True), (0,)),
              "norm": (_norm, (0,))})


def output_stypes(name, in_stypes, attrs, n_out=1):
    """The storage types of operator `name`'s outputs for inputs of storage types `in_stypes`
    and attributes `attrs` (parsed values): the `RULES` kernel run on small all-zero inputs of
    those storage types (2 x 2; (1, 2) for the dense operand of a broadcast), so inference
    and computation cannot disagree. Operators without a rule give 'default'.

    Raises:
        ValueError: the rule refuses the storage types (the message names the operator).

    Example: ``output_stypes('dot', ['csr', 'default'], {'transpose_a': True})`` is
    ``['row_sparse']``.
    """
    rule = RULES.get(name)
    if rule is None or (all(s == "default" for s in in_stypes) and name != "cast_storage"
                        and not attrs.get("forward_stype")):
        return ["default"] * n_out
    dense_shape = (1, 2) if name.startswith("broadcast_") else (2, 2)
    probes = [_sp.zeros(s, (2, 2)) if s != "default" else
              NDArray(np.zeros(dense_shape, np.float32)) for s in in_stypes]
    with autograd_tape.Mode(False, False):
        out = dispatch(name, *probes, **dict(attrs))
    outs = out if isinstance(out, (list, tuple)) else [out]
    return [o.stype for o in outs] + ["default"] * (n_out - len(outs))


def _public(name):
    def f(*args, out=None, **kwargs):
        if name in RULES:
            return dispatch(name, *args, out=out, **kwargs)
        return _dense_nd(_DENSE_NAME.get(name, name))(*args, out=out, **kwargs)
    f.__name__ = name
    f.__doc__ = (f"MXNet's `nd.sparse.{name}`: sparse inputs follow the storage rules of "
                 "`gluonlite.ndarray.sparse_ops.RULES`; other inputs run the dense operator "
                 f"`nd.{name}`.")
    return f


def retain(data=None, indices=None, out=None, name=None, **kwargs):
    """The rows of row_sparse `data` whose row numbers are in `indices`; the others dropped.

    Raises:
        ValueError: `data` is not row_sparse.
        MXNetError: an unknown argument, or a missing input.

    Example: ``nd.sparse.retain(r, nd.array([0, 3]))``.
    """
    if kwargs or data is None or indices is None:
        from ..base import MXNetError
        raise MXNetError(f"retain: takes data and indices (and out, name); got unknown "
                         f"argument(s) {sorted(kwargs)}" if kwargs else
                         "retain: data and indices are required")
    return dispatch("retain", data, indices, out=out)


# MXNet 1.9.1's public functions of nd.sparse (beside the constructors of sparse.py)
_FUNCTIONS = (
    "ElementWiseSum Embedding FullyConnected LinearRegressionOutput LogisticRegressionOutput "
    "MAERegressionOutput abs adagrad_update adam_update add_n arccos arccosh arcsin "
    "arcsinh arctan arctanh broadcast_add broadcast_div broadcast_minus broadcast_mul "
    "broadcast_plus broadcast_sub cbrt ceil clip concat cos cosh degrees dot "
    "elemwise_add elemwise_div elemwise_mul elemwise_sub exp expm1 fix floor ftrl_update "
    "gamma gammaln log log10 log1p log2 make_loss mean negative norm radians relu "
    "rint round rsqrt sgd_mom_update sgd_update sigmoid sign sin sinh slice sqrt square "
    "stop_gradient sum tan tanh trunc where").split()


def install(namespace, names):
    """Put MXNet's nd.sparse functions into `namespace` (the nd.sparse module) and their
    names into `names` (its __all__)."""
    for n in _FUNCTIONS:
        if n not in namespace:
            namespace[n] = _public(n)
            names.append(n)
    from . import register
    from ..ops import registry
    for n in RULES:
        op = registry._OPS.get(n)
        if op is not None and op.name in RULES:
            register._sparse_rules.add(op.name)
    namespace["retain"] = retain
    namespace["gs_retain"] = retain
    names.extend(["retain", "gs_retain"])
