"""The ``Custom`` operator: a node whose forward and backward are a user's Python class
(`gluonlite.operator.CustomOp`, described by a registered `CustomOpProp`).

The registry entry reads everything from the property class registered under the node's
``op_type``: its input names (`list_arguments` + `list_auxiliary_states`), outputs
(`list_outputs`), shape and dtype rules (`infer_shape`, `infer_type`), and the operator it
creates (`create_operator`), whose `forward`/`backward` run on NDArrays. Every other attribute
of the node is handed to the property's constructor as a string, as MXNet does.

The operator is stateful: its hidden last output keeps the `CustomOp` instance and the arrays
of its forward, so the backward runs on the same instance (which may keep what it needs).

This module sits in the operator layer: NDArrays, contexts and autograd's pause come from the
layer above through `ARRAYS`, installed by `gluonlite.ndarray.custom` when `nd` is imported.
"""
import contextlib

import numpy as np

from .. import _profiling
from ..base import MXNetError, MXNetTypeError, MXNetValueError
from . import attrs as A
from .registry import Operator, Params, Rules, Signature, Traits, add

# op_type -> CustomOpProp subclass (gluonlite.operator.register fills it)
PROPS = {}
# the op_types registered under NumPy array semantics (`mx.util.np_array`): their CustomOp
# receives `mx.np.ndarray`s, as MXNet fixes the array class when the property is registered
NP_ARRAYS = set()


class _ArrayHooks:
    """What the Custom kernel needs from the imperative layer (installed on `nd` import)."""
    wrap = None          # raw array -> NDArray
    wrap_np = None       # raw array -> mx.np.ndarray
    unwrap = None        # NDArray -> raw array
    context = None       # raw array -> its Context
    paused = None        # is_train -> context manager pausing autograd


ARRAYS = _ArrayHooks()

_PROP_CACHE = {}


def prop_of(p):
    """The property instance of a Custom node's params (one per distinct attribute set).

    Args:
        p: the Custom node's parsed attributes (op_type and the property's keywords).

    Returns:
        CustomOpProp: the registered property class built with the other attributes
        (cached: the same attributes give the same instance).

    Raises:
        ValueError: no property is registered under op_type.

    Example::

        class Ident(mx.operator.CustomOp):
            def forward(self, is_train, req, in_data, out_data, aux):
                self.assign(out_data[0], req[0], in_data[0])
        @mx.operator.register("_doc_ident")
        class IdentProp(mx.operator.CustomOpProp):
            def create_operator(self, ctx, shapes, dtypes):
                return Ident()
        from gluonlite.ops.custom import prop_of
        op = mx.ops.get("Custom")
        type(prop_of(op.parse({"op_type": "_doc_ident"})[0])).__name__     # 'IdentProp'
    """
    kwargs = {k: v for k, v in p.items() if k != "op_type"}
    key = (p.op_type, tuple(sorted(kwargs.items())))
    prop = _PROP_CACHE.get(key)
    if prop is None:
        cls = PROPS.get(p.op_type)
        if cls is None:
            known = ", ".join(sorted(PROPS)) or "none"
            raise MXNetValueError(f"Custom: no operator registered as op_type={p.op_type!r} "
                                  f"(registered: {known}); register one with "
                                  "@mx.operator.register(name)")
        prop = _PROP_CACHE[key] = cls(**kwargs)
    return prop


def _input_names(p):
    prop = prop_of(p)
    return list(prop.list_arguments()) + list(prop.list_auxiliary_states())


def _n_args(p):
    return len(prop_of(p).list_arguments())


def _n_visible(p):
    return len(prop_of(p).list_outputs())


def _known(shape):
    """A shape the property returned as a tuple, or None where it stays unknown: MXNet's
    legacy shapes read an empty shape or a 0 extent as "not known yet"."""
    shape = tuple(shape)
    return shape if shape and all(shape) else None


def _ask(rule, values, partial):
    """``rule(values)``, the property's answer; None when some input is unknown (`partial`)
    and the rule cannot answer without it. With every input known its error is raised."""
    try:
        return rule(values)
    except Exception:
        if partial:
            return None
        raise


def _shape(p, ins):
    # MXNet hands the property every input's shape, an unknown one as [], so a rule such as
    # "the label has the data's shape" fills an input the graph left open (a loss's label
    # variable created by the node). A rule that cannot read an unknown input says nothing.
    prop = prop_of(p)
    n_args = _n_args(p)
    args, aux = ins[:n_args], ins[n_args:]
    partial = any(s is None for s in args)
    res = _ask(prop.infer_shape, [[] if s is None else list(s) for s in args], partial)
    if res is None:
        return ins, [None] * _n_visible(p)
    in_s, out_s = res[0], res[1]
    aux_s = res[2] if len(res) > 2 else []
    if partial:
        filled = [s if s is not None else _known(r) for s, r in zip(args, in_s)]
        filled += [_known(s) for s in aux_s] + list(aux[len(aux_s):])
        return filled, [_known(s) for s in out_s]
    filled = [tuple(s) for s in in_s] + [tuple(s) for s in aux_s] + list(aux[len(aux_s):])
    return filled, [tuple(s) for s in out_s]


def _dtype(p, ins):
    # as `_shape`: an unknown input's dtype goes to the property as None (MXNet's -1), and
    # what it returns as None stays unknown
    prop = prop_of(p)
    n_args = _n_args(p)
    args = ins[:n_args]
    partial = any(d is None for d in args)
    res = _ask(prop.infer_type, [None if d is None else np.dtype(d).type for d in args],
               partial)
    if res is None:
        return ins, [None] * _n_visible(p)
    in_t, out_t = res[0], res[1]
    aux_t = res[2] if len(res) > 2 else []

    def dt(d):
        return None if d is None else np.dtype(d)
    return ([dt(d) for d in in_t] + [dt(d) for d in aux_t] + list(ins[n_args + len(aux_t):]),
            [dt(d) for d in out_t])


class Saved:
    """The hidden output of a Custom node: the operator instance and its forward's arrays.

    Args:
        op: the `CustomOp` instance that ran the forward (its backward runs on it).
        in_data: the forward's input arrays, a list.
        out_data: the forward's output arrays, a list.
        aux: the auxiliary state arrays, a list.

    Example::

        from gluonlite.ops.custom import Saved
        s = Saved(None, [np.ones(2)], [np.zeros(2)], [])
        len(s.in_data), s.aux       # (1, [])
    """

    __slots__ = ("op", "in_data", "out_data", "aux")

    def __init__(self, op, in_data, out_data, aux):
        self.op, self.in_data, self.out_data, self.aux = op, in_data, out_data, aux


@contextlib.contextmanager
def _user_code(p, what):
    """An error raised by the user's CustomOp becomes an MXNetError naming the operator (as
    MXNet reports it), the original chained. The profiler times the code as MXNet's does
    (`gluonlite._profiling.custom_code`)."""
    try:
        with _profiling.custom_code(p.op_type if what == "forward" else
                                    f"_backward_{p.op_type}"):
            yield
    except MXNetError:
        raise
    except Exception as e:
        raise MXNetError(f"Custom(op_type={p.op_type!r}): {what} raised "
                         f"{type(e).__name__}: {e}") from e


def _check_hooks():
    if ARRAYS.wrap is None:
        raise RuntimeError("Custom: the NDArray layer is not loaded (import gluonlite.ndarray)")


def _kernel(p, rc, *xs):
    _check_hooks()
    prop = prop_of(p)
    n_args = _n_args(p)
    in_shapes, out_shapes = _shape(p, [x.shape for x in xs])
    _, out_types = _dtype(p, [x.dtype for x in xs])
    ctx = ARRAYS.context(xs[0]) if xs else None
    op = prop.create_operator(ctx, [list(s) for s in in_shapes[:n_args]],
                              [np.dtype(x.dtype).type for x in xs[:n_args]])
    wrap = ARRAYS.wrap_np if p.op_type in NP_ARRAYS else ARRAYS.wrap
    in_data = [wrap(x) for x in xs[:n_args]]
    aux = [wrap(x) for x in xs[n_args:]]
    out_data = [wrap(rc.xp.zeros(s, dtype=t)) for s, t in zip(out_shapes, out_types)]
    with ARRAYS.paused(rc.is_train), _user_code(p, "forward"):
        op.forward(is_train=rc.is_train, req=["write"] * len(out_data), in_data=in_data,
                   out_data=out_data, aux=aux)
    outs = tuple(ARRAYS.unwrap(o) for o in out_data)
    return outs + (Saved(op, in_data, out_data, aux),)


def _vjp(p, rc, xs, ys, gys, need):
    _check_hooks()
    saved = ys[-1]
    n_args = _n_args(p)
    wrap = ARRAYS.wrap_np if p.op_type in NP_ARRAYS else ARRAYS.wrap
    out_grad = [wrap(g if g is not None else rc.xp.zeros_like(y))
                for g, y in zip(gys, ys[:-1])]
    in_grad = [wrap(rc.xp.zeros_like(x)) for x in xs[:n_args]]
    req = ["write" if need[i] else "null" for i in range(n_args)]
    with ARRAYS.paused(rc.is_train), _user_code(p, "backward"):
        saved.op.backward(req=req, out_grad=out_grad, in_data=saved.in_data,
                          out_data=saved.out_data, in_grad=in_grad, aux=saved.aux)
    grads = [ARRAYS.unwrap(g) if need[i] else None for i, g in enumerate(in_grad)]
    return tuple(grads) + (None,) * (len(xs) - n_args)


class _AnyAttrs(dict):
    """Custom's attributes: op_type, and any other name (a string for the property)."""

    def __missing__(self, key):
        return A.Str("")


class CustomOperator(Operator):
    """The ``Custom`` registry entry: attributes other than op_type are free-form strings.

    Args:
        name: the registered name ('Custom').
        signature: a `Signature` (its inputs come from the property).
        rules: a `Rules`.
        traits: a `Traits` (default None: none).
        fast: a `Fast` (default None: no fast paths).
        storage: a `StorageRule` (default None: dense storage only).
        doc: the docstring (default None: the kernel's).

    Raises:
        TypeError: a group of the wrong type (as `Operator`).

    Example::

        op = mx.ops.get("Custom")
        type(op).__name__, op.parse({"op_type": "my_op", "k": 1})[0]
        # ('CustomOperator', {'op_type': 'my_op', 'k': '1'})
    """

    def parse(self, given):
        """Parse `given`: op_type (required) and any other attribute, kept as a string.

        Raises:
            TypeError: op_type missing.

        Example::

            op = mx.ops.get("Custom")
            op.parse({"op_type": "my_op", "scale": 2})
            # ({'op_type': 'my_op', 'scale': '2'}, {'op_type': 'my_op', 'scale': '2'})
        """
        params, strings = Params(), {}
        for k, v in given.items():
            if k.startswith("__") and k.endswith("__"):
                strings[k] = str(v)
                continue
            params[k] = v if isinstance(v, str) else str(v)
            strings[k] = params[k]
        if "op_type" not in params:
            raise MXNetTypeError("Custom: missing required argument 'op_type' (the name a "
                                 "CustomOpProp was registered under)")
        return params, strings


CUSTOM = add(CustomOperator(
    "Custom",
    Signature(_input_names, lambda p: _n_visible(p) + 1, visible=_n_visible,
              output_names=lambda p: list(prop_of(p).list_outputs()),
              attrs=_AnyAttrs(op_type=A.Str()), call_order=(),
              aux=lambda p: [False] * _n_args(p) + [True] * len(
                  prop_of(p).list_auxiliary_states())),
    Rules(_kernel, _vjp, shape=_shape, dtype=_dtype),
    Traits(same_dtype=(), stateful=True),
    doc="Custom(*data, op_type, **kwargs): the operator registered as op_type with "
        "mx.operator.register, its other keyword arguments handed to its CustomOpProp."))
