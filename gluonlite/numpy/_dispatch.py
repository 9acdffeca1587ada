"""How one `mx.np` / `mx.npx` function runs: as ONE registry operator, imperatively on
`mx.np.ndarray`s or symbolically on numpy symbols (`mx.sym.np._Symbol`).

A front-end function translates NumPy's signature into an operator name, its inputs and its
attributes, then calls `invoke`; what happens next depends on the inputs:

- an input is a Symbol: a graph node is created (a numpy symbol comes back);
- inputs are `mx.np.ndarray`s: the operator runs (recorded by autograd as any `nd` call is) and
  `mx.np.ndarray`s come back, written into `out=` when given;
- no array input at all (``np.zeros``): the face the function was reached through decides
  (`mx.sym.np` builds a node, `mx.np` and `mx.nd.np` compute), see `symbolic_face`.

A legacy `mx.nd.NDArray` (or a legacy Symbol) given to a numpy function is refused, naming the
function, the argument and both types, as MXNet refuses it.

Example::

    invoke("_npi_add", [a, b], {}, fname="add")        # a + b
"""
import threading

import numpy as _onp

from ..base import MXNetTypeError
from ..ndarray.invoke import plan_for, run_plan
from ..ndarray.ndarray import NDArray
from ..ops import registry
from ..symbol.symbol import Symbol, create_node
from ..util import is_np_default_dtype

__all__ = ["invoke", "symbolic_face", "is_symbolic", "wrap", "np_class", "sym_class",
           "from_nd", "np_array", "register_upper", "refuse_legacy", "default_float",
           "check_out"]

_face = threading.local()
_OPS = {}
# What the modules built on this one register when they load (`register_upper`): the array
# and symbol classes and the two array makers, which this module and the modules beside it
# call without importing upward. gluonlite.numpy's __init__ loads both registrants before
# any function can run.
_UPPER = {}
_UPPER_NAMES = {"ndarray": "gluonlite.numpy.multiarray", "from_nd": "gluonlite.numpy.multiarray",
                "array": "gluonlite.numpy.multiarray", "symbol": "gluonlite.numpy._symbol"}


def register_upper(**entries):
    """Register what a module above this one defines, for the functions here to use.

    `gluonlite.numpy.multiarray` registers ``ndarray`` (the class), ``from_nd`` and
    ``array``; `gluonlite.numpy._symbol` registers ``symbol`` (the numpy symbol class).

    Args:
        **entries: name -> class or function, each name one of ``ndarray``, ``from_nd``,
            ``array``, ``symbol``.

    Raises:
        ValueError: an unknown name.

    Example::

        from gluonlite.numpy import _dispatch
        _dispatch.register_upper(ndarray=mx.np.ndarray)   # what multiarray does on load
    """
    unknown = sorted(set(entries) - set(_UPPER_NAMES))
    if unknown:
        raise ValueError(f"register_upper: unknown name(s) {', '.join(unknown)}; expected "
                         f"some of {', '.join(sorted(_UPPER_NAMES))}")
    _UPPER.update(entries)


def _upper(name):
    try:
        return _UPPER[name]
    except KeyError:
        raise RuntimeError(f"gluonlite.numpy._dispatch: {name!r} is not registered; "
                           f"{_UPPER_NAMES[name]} registers it when it loads (import "
                           "gluonlite.numpy first)") from None


def np_class():
    """`mx.np.ndarray` (registered by `gluonlite.numpy.multiarray`, which imports this
    module).

    Example::

        from gluonlite.numpy._dispatch import np_class
        np_class() is mx.np.ndarray   # True
    """
    try:
        return _UPPER["ndarray"]
    except KeyError:
        return _upper("ndarray")


def sym_class():
    """`mx.sym.np._Symbol` (registered by `gluonlite.numpy._symbol`).

    Example::

        from gluonlite.numpy._dispatch import sym_class
        sym_class().__name__   # '_Symbol'
    """
    try:
        return _UPPER["symbol"]
    except KeyError:
        return _upper("symbol")


def from_nd(nd):
    """`gluonlite.numpy.multiarray.from_nd`: the legacy NDArray `nd` as an `mx.np.ndarray`
    sharing its data, gradient and autograd history.

    Args:
        nd: a legacy `mx.nd.NDArray`.

    Example::

        from gluonlite.numpy._dispatch import from_nd
        type(from_nd(mx.nd.ones((2,)))).__name__   # 'ndarray'
    """
    return _upper("from_nd")(nd)


def np_array(obj, dtype=None, ctx=None):
    """`mx.np.array` (`gluonlite.numpy.multiarray.array`): a new array holding `obj`'s
    values.

    Args:
        obj: array-like (an array, a nested list, a number).
        dtype: the dtype (default: `obj`'s own, else the default float).
        ctx: the context (default: `obj`'s for an array, else the current one).

    Example::

        from gluonlite.numpy._dispatch import np_array
        np_array([1, 2], dtype='int64')   # array([1, 2], dtype=int64)
    """
    return _upper("array")(obj, dtype=dtype, ctx=ctx)


class symbolic_face:
    """A ``with`` scope in which numpy functions given no array build graph nodes (the
    `mx.sym.np` face); scopes nest. Example::

        with symbolic_face():
            z = zeros((2, 3))      # a numpy symbol
    """

    __slots__ = ("old",)

    def __enter__(self):
        self.old = getattr(_face, "symbolic", False)
        _face.symbolic = True
        return self

    def __exit__(self, *exc):
        _face.symbolic = self.old
        return False


class imperative_face(symbolic_face):
    """The `mx.np` face inside a symbolic one (a function that computes eagerly even when
    reached from `mx.sym.np`, e.g. a helper that needs values)."""

    __slots__ = ()

    def __enter__(self):
        self.old = getattr(_face, "symbolic", False)
        _face.symbolic = False
        return self


def is_symbolic(inputs=()):
    """Whether a call with `inputs` (arrays, symbols, None or scalars) builds a graph node."""
    for x in inputs:
        if isinstance(x, Symbol):
            return True
    for x in inputs:
        if isinstance(x, NDArray):
            return False
    return getattr(_face, "symbolic", False)


def default_float():
    """The dtype a float array gets when none is asked for: float32 (MXNet's default), or
    float64 under ``npx.set_np(dtype=True)``."""
    return _onp.float64 if is_np_default_dtype() else _onp.float32


def _op(name):
    op = _OPS.get(name)
    if op is None:
        op = _OPS[name] = registry.get(name)
    return op


def refuse_legacy(fname, what, x):
    """Raise the TypeError MXNet raises when a legacy array meets a numpy function.

    Args:
        fname: the numpy function's name (``sum``).
        what: the argument (``'a'`` or ``input 1``).
        x: the legacy NDArray or Symbol.
    """
    kind = "mxnet.symbol.Symbol" if isinstance(x, Symbol) else "mxnet.ndarray.NDArray"
    want = "mxnet.symbol.numpy._Symbol" if isinstance(x, Symbol) else "mxnet.numpy.ndarray"
    raise MXNetTypeError(
        f"{fname}: argument {what} is a legacy {kind}, but this numpy operator takes "
        f"{want} only (mixing the two dialects needs a conversion); call as_np_ndarray() "
        "on it first, and activate numpy semantics with npx.set_np()")


def wrap(nd, cls=None):
    """The NDArray `nd` as an `mx.np.ndarray` sharing its data and its autograd entry (a
    numpy scalar a kernel returned for a 0-d result becomes a 0-d array)."""
    cls = cls or np_class()
    data = nd._data
    if isinstance(data, _onp.generic):  # a numpy scalar a kernel gave for a 0-d result
        data = nd._ctx.xp.asarray(data)
    a = cls(data, nd._ctx)
    a._entry = nd._entry
    return a


def check_out(fname, out, shape, dtype=None):
    """Validate an ``out=`` array for a result of `shape`.

    Raises:
        TypeError: `out` is not an mx.np.ndarray.
        ValueError: its shape differs.
    """
    if not isinstance(out, np_class()):
        raise MXNetTypeError(f"{fname}: out must be an mxnet.numpy.ndarray, got "
                             f"{type(out).__name__}")
    if tuple(out.shape) != tuple(shape):
        raise ValueError(f"{fname}: out has shape {tuple(out.shape)} but the result has shape "
                         f"{tuple(shape)}")


def _write_out(fname, out, res):
    outs = out if isinstance(out, (list, tuple)) else [out]
    if len(outs) != len(res):
        raise ValueError(f"{fname}: out must hold {len(res)} array(s), got {len(outs)}")
    for i, (o, r) in enumerate(zip(outs, res)):
        check_out(fname, o, r.shape)
        if o.dtype != r.dtype:  # MXNet's type inference refuses a mismatched out=
            raise MXNetTypeError(f"{fname}: Incompatible attr at {i}-th output: expected "
                                 f"{_onp.dtype(r.dtype).name}, got {_onp.dtype(o.dtype).name} "
                                 "(the dtype of out=)")
        o._data[...] = r._data
        o._entry = r._entry
    return out


def invoke(op_name, inputs, attrs=None, out=None, fname=None, ctx=None, name=None):
    """Run registry operator `op_name` on `inputs` (in the operator's input order; None for an
    optional input left out) with attributes `attrs`.

    Returns one output (`mx.np.ndarray` or numpy symbol) or a list when the operator has
    several visible outputs (a list of single-output symbols, as MXNet 1.9.1 gives them);
    with `out`, the results are written there and `out` returned.

    Raises:
        TypeError: a legacy NDArray or Symbol among the inputs, or an input that is neither
            an array nor a symbol (naming `fname`).
    """
    op = _op(op_name)
    attrs = {} if attrs is None else attrs
    fname = fname or op_name
    if is_symbolic(inputs):
        return _node(op, inputs, attrs, fname, name, ctx)
    cls = np_class()
    for i, x in enumerate(inputs):
        if x is not None and x.__class__ is not cls and not isinstance(x, cls):
            if isinstance(x, (NDArray, Symbol)):
                refuse_legacy(fname, f"{i}", x)
            raise MXNetTypeError(f"{fname}: input {i} must be an mxnet.numpy.ndarray, got "
                                 f"{type(x).__name__}")
    if ctx is not None and "ctx" in op.attrs:
        attrs = dict(attrs, ctx=str(ctx))
    plan = plan_for(op, attrs)
    res = run_plan(plan, inputs, ctx)
    res = [wrap(r, cls) for r in res]
    if out is not None:
        return _write_out(fname, out, res)
    return res[0] if len(res) == 1 else res


def _node(op, inputs, attrs, fname, name, ctx):
    sym_cls = sym_class()
    for i, x in enumerate(inputs):
        if x is not None and not isinstance(x, sym_cls):
            if isinstance(x, Symbol):
                refuse_legacy(fname, f"{i}", x)
            raise MXNetTypeError(f"{fname}: input {i} must be a numpy symbol "
                                 f"(mxnet.symbol.numpy._Symbol), got {type(x).__name__}")
    if ctx is not None and "ctx" in op.attrs:
        attrs = dict(attrs, ctx=str(ctx))
    if op.variadic:
        ins = [x for x in inputs]
        attrs = dict(attrs)
        attrs.setdefault(op.variadic, len(ins))
    else:
        names = op.input_names(op.parse(attrs)[0])
        ins = {n: x for n, x in zip(names, inputs) if x is not None}
    s = create_node(op, ins, attrs, name=name, hint=op.name)
    if len(s._outputs) > 1:  # one symbol per output, in a list, as MXNet's are
        return [sym_cls([e]) for e in s._outputs]
    return sym_cls(s._outputs)
