"""Gradient rules run on recorded NDArrays: the backward pass of ``autograd.grad(...,
create_graph=True)``, whose result can be differentiated again.

Every operator writes its gradient rule once, against an array module ``xp`` (numpy or CuPy)
and that module's arrays (see `gluonlite.ops.registry`). A second-order gradient needs the
first-order one built from recorded operations. Rather than a second set of rules, the same
rule runs here on NDArrays, with `RECORDING_XP` standing in for ``xp``: arithmetic and
comparisons on NDArrays are registered operators already, and `RECORDING_XP` maps the array
module's functions a rule calls (``exp``, ``where``, ``dot``, ...) to registered operators
too. Under ``autograd.record()`` every step is then taped like user code.

A rule that writes into a buffer (``out=``, ``copyto``) gets numpy's meaning: the NDArray
passed as ``out`` becomes the result, recorded like any other step (the values it held before
stay with the tape). A rule that calls a function no operator stands behind, or reads what an
NDArray does not have, raises `NotRecordable`; autograd turns that into an error naming the
operator.

Functions that are constant almost everywhere (``sign``, ``floor``) return constants: their
derivative is zero wherever it exists, as MXNet's rules for them say.

Example::

    x = nd.array([1.0]); x.attach_grad()
    with autograd.record():
        y = nd.exp(x)
    dx, = autograd.grad(y, [x], create_graph=True)   # exp(x), itself recorded
    dx.backward()                                    # x.grad == exp(x)
"""
import numpy as np

from ..ops.registry import RunCtx, get
from .invoke import plan_for, run_plan
from .ndarray import NDArray

__all__ = ["NotRecordable", "RECORDING_XP", "recorded_vjp"]


class NotRecordable(Exception):
    """A gradient rule does something that has no recorded form (the message says what).

    Example::

        from gluonlite.ndarray.recorded_rules import RECORDING_XP, NotRecordable
        try:
            RECORDING_XP.unique
        except NotRecordable as e:
            print(e)   # calls xp.unique, which has no recorded form
    """


def _call(name, inputs, **attrs):
    return run_plan(plan_for(get(name), attrs), inputs)[0]


def _scalar(v):
    """A Python number from a numpy scalar (NDArray's operators take Python numbers)."""
    return v.item() if isinstance(v, np.generic) else v


def _into(out, result, name):
    """numpy's ``out=``: the NDArray `out` takes the result's values and its place on the tape
    (the rule goes on reading `out`, as it would read a written buffer)."""
    if out is None:
        return result
    if not isinstance(out, NDArray):
        raise NotRecordable(f"writes xp.{name}'s result into a raw array")
    if not isinstance(result, NDArray):
        result = _as_array(result, out)
    if result.shape != out.shape:
        result = result.broadcast_to(out.shape)
    out._data, out._entry = result._data, result._entry
    return out


def _binary(name, op):
    def f(a, b, out=None):
        a, b = _scalar(a), _scalar(b)
        if not isinstance(a, NDArray) and not isinstance(b, NDArray):
            return _into(out, getattr(np, name)(a, b), name)
        return _into(out, op(a, b), name)
    f.__name__ = name
    return f


def _unary(name, op_name):
    def f(x, out=None):
        if not isinstance(x, NDArray):
            return _into(out, getattr(np, name)(x), name)
        return _into(out, _call(op_name, [x]), name)
    f.__name__ = name
    return f


def _constant(name):
    """A function whose derivative is zero almost everywhere (a mask, a rounding): computed on
    the values, recorded as a constant."""
    def f(*args, out=None):
        if not any(isinstance(a, NDArray) for a in args):
            return _into(out, getattr(np, name)(*args), name)
        like = next(a for a in args if isinstance(a, NDArray))
        raw = [a._data if isinstance(a, NDArray) else a for a in args]
        value = getattr(like._ctx.xp, name)(*raw)
        return _into(out, NDArray(value.astype(like._data.dtype, copy=False), like._ctx), name)
    f.__name__ = name
    return f


def _like(value):
    def f(x, dtype=None):
        if not isinstance(x, NDArray):
            return np.full_like(x, value, dtype=dtype)
        xp = x._ctx.xp
        return NDArray(xp.full(x.shape, value, dtype=dtype or x._data.dtype), x._ctx)
    return f


def _copyto(dst, src):
    _into(dst, src if isinstance(src, NDArray) else _as_array(src, dst), "copyto")


def _split(x, sections, axis=0):
    n = x.shape[axis]
    bounds = list(range(0, n, n // sections)) if isinstance(sections, int) else [0, *sections]
    ends = bounds[1:] + [n]
    return [_call("slice_axis", [x], axis=axis, begin=b, end=e) for b, e in zip(bounds, ends)]


def _concatenate(xs, axis=0):
    xs = list(xs)
    return _call("Concat", xs, dim=axis, num_args=len(xs))


def _stack(xs, axis=0):
    xs = list(xs)
    return _call("stack", xs, axis=axis, num_args=len(xs))


def _moveaxis(x, source, destination):
    axes = list(range(x.ndim))
    axes.insert(destination % x.ndim, axes.pop(source % x.ndim))
    return x.transpose(axes)


def _as_array(v, like):
    if isinstance(v, NDArray):
        return v
    return NDArray(like._ctx.xp.full(like.shape, _scalar(v), dtype=like._data.dtype), like._ctx)


def _where(cond, a, b):
    """numpy's where on NDArrays: scalars and smaller shapes broadcast to the result's shape."""
    arrays = [v for v in (cond, a, b) if isinstance(v, NDArray)]
    if not arrays:
        return np.where(cond, a, b)
    shape = np.broadcast_shapes(*(v.shape for v in arrays))
    like = next(v for v in (a, b, cond) if isinstance(v, NDArray))
    full = [_as_array(v, like) for v in (cond, a, b)]
    full = [v if v.shape == shape else v.broadcast_to(shape) for v in full]
    return _call("where", full)


def _dot(a, b, out=None):
    if a.ndim > 2 or b.ndim > 2:
        raise NotRecordable("calls xp.dot on arrays of more than 2 dimensions")
    return _into(out, _call("dot", [a, b]), "dot")


def _matmul(a, b, out=None):
    return _into(out, a @ b, "matmul")


def _sum(x, axis=None, keepdims=False, out=None, dtype=None):
    return _into(out, x.sum(axis=axis, keepdims=keepdims), "sum")


def _reshape(x, shape):
    return x.reshape(shape)


def _broadcast_to(x, shape):
    return x.broadcast_to(tuple(shape))


def _expand_dims(x, axis):
    return _call("expand_dims", [x], axis=axis)


def _transpose(x, axes=None):
    return x.transpose(axes) if axes is not None else x.transpose()


def _swapaxes(x, a, b):
    return _call("SwapAxis", [x], dim1=a, dim2=b)


def _operator(name, *inputs, **attrs):
    """A registered operator on recorded NDArrays: for gradient rules written from operators
    (`Rules.recorded_vjp`: a Convolution's data gradient is a Deconvolution), which call
    `gluonlite.ops.registry.apply`; plain array modules have no `operator`."""
    return _call(name, list(inputs), **attrs)


# The array module's one-argument functions that are registered operators of the same name.
_UNARY_OPERATORS = ("negative", "abs", "exp", "log", "sqrt", "square", "reciprocal", "tanh",
                    "sin", "cos", "tan", "sinh", "cosh", "arcsin", "arccos", "arctan",
                    "arcsinh", "arccosh", "arctanh", "log2", "log10", "log1p", "expm1", "cbrt")


def _pairwise(op_name, a, b):
    """A broadcasting binary operator on an NDArray and an NDArray or a number."""
    return _call(op_name, [_as_array(a, b), b] if not isinstance(a, NDArray)
                 else [a, _as_array(b, a)])


class _RecordingModule:
    """The array module gradient rules see while `recorded_vjp` runs them: each function
    builds its result from registered operators on NDArrays (or computes on plain numbers).
    Any other function raises `NotRecordable`; dtypes and constants read through to numpy."""

    _FUNCTIONS = {
        "add": _binary("add", lambda a, b: a + b),
        "subtract": _binary("subtract", lambda a, b: a - b),
        "multiply": _binary("multiply", lambda a, b: a * b),
        "divide": _binary("divide", lambda a, b: a / b),
        "true_divide": _binary("true_divide", lambda a, b: a / b),
        "power": _binary("power", lambda a, b: a ** b),
        "mod": _binary("mod", lambda a, b: a % b),
        "maximum": _binary("maximum", lambda a, b: _pairwise("broadcast_maximum", a, b)),
        "minimum": _binary("minimum", lambda a, b: _pairwise("broadcast_minimum", a, b)),
        "greater": _binary("greater", lambda a, b: a > b),
        "greater_equal": _binary("greater_equal", lambda a, b: a >= b),
        "less": _binary("less", lambda a, b: a < b),
        "less_equal": _binary("less_equal", lambda a, b: a <= b),
        "equal": _binary("equal", lambda a, b: a == b),
        "not_equal": _binary("not_equal", lambda a, b: a != b),
        **{name: _unary(name, name) for name in _UNARY_OPERATORS},
        **{name: _constant(name) for name in ("sign", "floor", "ceil", "logical_not",
                                              "logical_and", "logical_or")},
        "ones_like": _like(1),
        "zeros_like": _like(0),
        "empty_like": _like(0),  # a buffer the rule is about to write (`out=`)
        "copyto": _copyto,
        "split": _split,
        "concatenate": _concatenate,
        "stack": _stack,
        "moveaxis": _moveaxis,
        "where": _where,
        "dot": _dot,
        "matmul": _matmul,
        "sum": _sum,
        "reshape": _reshape,
        "broadcast_to": _broadcast_to,
        "expand_dims": _expand_dims,
        "transpose": _transpose,
        "swapaxes": _swapaxes,
        "operator": _operator,
    }

    def __getattr__(self, name):
        f = self._FUNCTIONS.get(name)
        if f is not None:
            return f
        value = getattr(np, name, None)
        if value is not None and not callable(value) or isinstance(value, type):
            return value  # dtypes, pi, newaxis: the same as numpy's
        raise NotRecordable(f"calls xp.{name}, which has no recorded form")


RECORDING_XP = _RecordingModule()


def _recorded(data, ctx, entry):
    a = NDArray(data, ctx)
    a._entry = entry
    return a


def recorded_vjp(node, gys, need):
    """Run one recorded call's gradient rule on NDArrays, recording every step.

    Args:
        node: the call's `gluonlite.autograd.TapeNode`: its ``call`` (the `CallPlan`:
            operator and parsed attributes), ``saved`` (the train mode the forward ran in,
            its context, its raw inputs and outputs) and ``inputs`` (the inputs' tape
            entries, None for inputs without a gradient); its outputs' entries are
            ``(node, i)``.
        gys: the output gradients, NDArrays (None where an output has none).
        need: per input, whether its gradient is wanted.

    Returns:
        One NDArray (or None) per input.

    Raises:
        NotRecordable: the rule cannot be run on recorded NDArrays; the message says why.

    Example::

        from gluonlite.ndarray.recorded_rules import recorded_vjp
        x = nd.array([1.0, 2.0])
        x.attach_grad()
        with autograd.record():
            y = nd.exp(x)
        dx, = recorded_vjp(y._entry[0], [nd.ones(2)], [True])
        dx.asnumpy()   # [2.7182817 7.389056 ]
    """
    plan, (is_train, ctx, xs, ys), entries = node.call, node.saved, node.inputs
    op = plan.op
    hidden = len(ys) - plan.n_visible
    if hidden and not op.random:
        raise NotRecordable("reads the statistics its forward saved as hidden outputs, which "
                            "have no gradient rule of their own")
    xs_nd = [None if x is None else _recorded(x, ctx, e) for x, e in zip(xs, entries)]
    # A random operator's hidden outputs are its draws (a dropout mask): constants.
    ys_nd = [_recorded(y, ctx, (node, i) if i < plan.n_visible else None)
             for i, y in enumerate(ys)]
    gys = [g if g is not None else NDArray(ctx.xp.zeros_like(y), ctx) for g, y in zip(gys, ys)]
    try:
        rule = op.rules.recorded_vjp or op.vjp  # the gradient's own recorded form, if any
        gxs = rule(plan.p, RunCtx(is_train, RECORDING_XP), xs_nd, ys_nd, gys, need)
    except (AttributeError, TypeError, ValueError) as e:  # e.g. an assignment into an array
        raise NotRecordable(f"does what an NDArray cannot ({type(e).__name__}: {e})") from e
    out = []
    for gx in gxs:
        if gx is not None and not isinstance(gx, NDArray):
            raise NotRecordable("returns a raw array computed outside the recorded operators")
        out.append(gx)
    return out
