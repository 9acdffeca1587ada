"""Generating the `sym` functions from the operator registry (the same one `nd` reads)."""
from ..ops import registry
from ..ops.call import bind_call, name_generated, populate as _populate
from .symbol import Symbol, create_node

_gen_cache = {}


def _is_sym(x):
    return isinstance(x, Symbol)


def make_function(op, public_name):
    """The sym function for `op`: ``f(*inputs, name=None, attr=None, **attrs)``.

    Args:
        op: the registry entry (a `gluonlite.ops.registry.Operator`).
        public_name: the name the function is called by; it also names the nodes the
            function makes (``clip0``, ``clip1``, ...) when no `name` is given.

    Returns:
        The function, named and documented (`gluonlite.ops.call.name_generated`); it
        returns the new node as a Symbol.

    Example::

        from gluonlite.ops import registry
        from gluonlite.symbol.register import make_function
        relu = make_function(registry.get('relu'), 'relu')
        relu(sym.var('x'), name='r').list_outputs()   # ['r_output']
    """
    def f(*args, name=None, attr=None, ctx=None, out=None, **kwargs):
        inputs, attrs = bind_call(op, args, kwargs, _is_sym)
        if ctx is not None and "ctx" in op.attrs:
            attrs["ctx"] = str(ctx)
        return create_node(op, inputs, attrs, name=name, hint=public_name, attr=attr)
    return name_generated(f, op, public_name, "sym")


def populate(namespace):
    """Add a function for every registered operator name to `namespace` (a module dict).

    Example::

        from gluonlite.symbol.register import populate
        ns = {}
        populate(ns)
        ns['relu'](sym.var('x')).list_arguments()   # ['x']
    """
    _populate(namespace, _gen_cache, make_function)


def fn(name):
    """The generated sym function of operator `name` (registered after import included).

    Example::

        from gluonlite.symbol.register import fn
        fn('exp')(sym.var('x')).eval(x=nd.array([0]))[0].asnumpy()   # [1.]
    """
    f = _gen_cache.get(name)
    if f is None:
        f = _gen_cache[name] = make_function(registry.get(name), name)
    return f
