"""Generating the `nd` functions from the operator registry (the same registry `sym` reads)."""
import functools
import types
from itertools import repeat

from ..ops import registry
from ..ops.call import bind_call, name_generated, populate as _populate
from ..ops.sparse import FUNCTIONS as _SPARSE_FUNCTIONS
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


def fn(name):
    """The generated nd function of operator `name` (registered after import included).

    Example::

        from gluonlite.ndarray.register import fn
        fn('exp')(nd.array([0])).asnumpy()   # [1.]
    """
    f = _gen_cache.get(name)
    if f is None:
        f = _gen_cache[name] = make_function(registry.get(name), name)
    return f


# MXNet's generated operator modules (``gen_op``, ``gen_contrib``, ... of nd and sym alike):
# an operator whose name has one of these prefixes belongs to the module the prefix names,
# under its name without the prefix; another name starting with "_" to ``gen__internal``, the
# rest to ``gen_op``. The sparse operators (ops.sparse.FUNCTIONS, cast_storage, zeros_like)
# are in ``gen_sparse`` too, as MXNet's ``_sparse_`` aliases of them put them there; MXNet's
# NumPy operators are in none.
_GEN_PREFIXES = ("_contrib_", "_linalg_", "_sparse_", "_image_", "_random_")
_NUMPY_PREFIXES = ("_np_", "_npi_", "_npx_")


@functools.lru_cache(maxsize=1)
def _gen_partition(op_names):
    """{module: {function name: operator name}} of the generated modules, by the rule above."""
    out = {}
    for op_name in op_names:
        if op_name.startswith(_NUMPY_PREFIXES):
            continue
        prefix = next((p for p in _GEN_PREFIXES if op_name.startswith(p)), None)
        if prefix is not None:
            where, name = prefix[1:-1], op_name[len(prefix):]
        else:
            where, name = ("_internal" if op_name.startswith("_") else "op"), op_name
        out.setdefault(where, {})[name] = op_name
    sparse = out.setdefault("sparse", {})
    for name in [*_SPARSE_FUNCTIONS, "cast_storage", "zeros_like"]:
        sparse.setdefault(name, name)
    return out


def generated_module(module, namespace, raw):
    """The functions of MXNet's generated operator module ``gen_<module>``, as a dict.

    Args:
        module (str): 'op', '_internal', 'contrib', 'linalg', 'sparse', 'image' or 'random'.
        namespace: the namespace the module's functions are reached by (``nd`` for 'op',
            ``nd.contrib`` for 'contrib'); a name it has is its function (the Python front
            end where the namespace has one, as ``nd.random.uniform``).
        raw (callable): operator name -> its generated function, for the names the
            namespace lacks.

    Returns:
        dict: function name -> function.

    Example::

        from gluonlite.ndarray.register import fn, generated_module
        fs = generated_module('linalg', nd.linalg, fn)
        fs['gemm2'] is nd.linalg.gemm2            # True
    """
    ops = _gen_partition(tuple(registry.names())).get(module, {})
    out = {}
    for name, op_name in ops.items():
        f = getattr(namespace, name, None)
        out[name] = f if callable(f) and not isinstance(f, types.ModuleType) else raw(op_name)
    return out
