"""Generating the `nd` functions from the operator registry (the same registry `sym` reads)."""
from itertools import repeat

from ..ops.call import bind_call, name_generated, populate as _populate
from .invoke import plan_for, run_plan
from .ndarray import NDArray, refuse_np_arrays

_gen_cache = {}


def _is_nd(x):
    return isinstance(x, NDArray)


def order_inputs(op, names, inputs):
    """The inputs given by name (a dict) as a list in `names` order.

    Args:
        op: the registry entry called (named in the errors).
        names: the input names this call's attributes give the operator, in order.
        inputs: {input name: array}.

    Returns:
        The arrays as a list, in `names` order.

    Raises:
        TypeError: an unknown input name or a missing input.

    Example::

        from gluonlite.ndarray.register import order_inputs
        from gluonlite.ops import registry
        order_inputs(registry.get('dot'), ['lhs', 'rhs'], {'rhs': 'b', 'lhs': 'a'})   # ['a', 'b']
    """
    unknown = [n for n in inputs if n not in names]
    if unknown:
        raise TypeError(f"{op.name}: unknown input(s) {', '.join(sorted(unknown))}; "
                        f"inputs are {', '.join(names) or 'none'}")
    missing = [n for n in names if n not in inputs]
    if missing:
        raise TypeError(f"{op.name}: missing input(s) {', '.join(map(repr, missing))}; "
                        f"inputs are {', '.join(names)}")
    return [inputs[n] for n in names]


def make_function(op, public_name):
    """The nd function for `op`: ``f(*inputs, *attrs, out=None, name=None, **attrs)``.

    Inputs come first by position or by name; positional arguments past the inputs bind the
    attributes in MXNet's order (``nd.clip(x, 0, 1)``).

    Args:
        op: the registry entry (a `gluonlite.ops.registry.Operator`).
        public_name: the name the function is called by (``clip``, ``box_nms``); a name
            starting with ``_np`` accepts ``mx.np`` arrays.

    Returns:
        The function, named and documented (`gluonlite.ops.call.name_generated`). It
        returns one NDArray, or a list when the operator has several visible outputs.

    Example::

        from gluonlite.ndarray.register import make_function
        from gluonlite.ops import registry
        clip = make_function(registry.get('clip'), 'clip')
        clip(nd.array([-2, 0.5, 3]), 0, 1).asnumpy()   # [0. 0.5 1. ]
    """
    legacy = not public_name.startswith("_np")
    sig_names = frozenset(op.signature)

    def f(*args, out=None, name=None, ctx=None, **kwargs):
        if op.variadic:
            for i, a in enumerate(args):
                if not isinstance(a, NDArray):
                    raise TypeError(f"{op.name}: every positional argument must be an NDArray, "
                                    f"got {type(a).__name__} at position {i}")
                if legacy and getattr(a, "_np_array", False):
                    refuse_np_arrays(public_name, [a])
            inputs = list(args)
            kwargs.setdefault(op.variadic, len(inputs))
            plan = plan_for(op, kwargs)
        else:
            sig = op.signature
            simple = len(args) <= len(sig)
            if simple:  # the common call: every input by position, attributes by name
                for a in args:
                    # an NDArray subclass of the legacy dialect (sparse, a lazily packed
                    # vector) is an input as well; an mx.np array goes the long way round
                    if type(a) is not NDArray and (not isinstance(a, NDArray) or a._np_array):
                        simple = False
                        break
                # no input named, no array among the attributes: tested at C speed, as
                # a layer's call passes a dozen attributes every time
                if kwargs and simple and (not sig_names.isdisjoint(kwargs) or any(
                        map(isinstance, kwargs.values(), repeat(NDArray)))):
                    simple = False
            if simple:
                attrs, given = kwargs, args
            else:
                given, attrs = bind_call(op, args, kwargs, _is_nd)
                if legacy:
                    refuse_np_arrays(public_name, given)
            if ctx is not None and "ctx" in op.attrs:
                attrs["ctx"] = str(ctx)
            plan = plan_for(op, attrs)
            names = plan.names
            if isinstance(given, dict):
                inputs = order_inputs(op, names, given)
            elif len(given) == len(names):
                inputs = list(given)
            else:
                inputs = order_inputs(op, names, dict(zip(sig, given)))
        res = run_plan(plan, inputs, ctx)
        if out is not None:
            outs = out if isinstance(out, (list, tuple)) else [out]
            for o, r in zip(outs, res):
                if o is not r:  # an operator updating its input in place returns it
                    o[:] = r
            return out
        return res[0] if len(res) == 1 else res
    return name_generated(f, op, public_name, "nd")


def populate(namespace):
    """Add a function for every registered operator name to `namespace` (a module dict).

    Example::

        from gluonlite.ndarray.register import populate
        ns = {}
        populate(ns)
        ns['relu'](nd.array([-1, 2])).asnumpy()   # [0. 2.]
    """
    _populate(namespace, _gen_cache, make_function)
