"""Generating the `sym` functions from the operator registry (the same one `nd` reads)."""
from ..ops import registry
from ..ops.call import bind_call, name_generated, populate as _populate
from .symbol import Symbol, create_node

_gen_cache = {}


def _is_sym(x):
    return isinstance(x, Symbol)


def make_function(op, public_name):
    """The sym function for `op`: ``f(*inputs, name=None, attr=None, **attrs)``."""
    def f(*args, name=None, attr=None, ctx=None, out=None, **kwargs):
        inputs, attrs = bind_call(op, args, kwargs, _is_sym)
        if ctx is not None and "ctx" in op.attrs:
            attrs["ctx"] = str(ctx)
        return create_node(op, inputs, attrs, name=name, hint=public_name, attr=attr)
    return name_generated(f, op, public_name, "sym")


def populate(namespace):
    """Add a function for every registered operator name to `namespace` (a module dict)."""
    _populate(namespace, _gen_cache, make_function)


def fn(name):
    """The generated sym function of operator `name` (registered after import included)."""
    f = _gen_cache.get(name)
    if f is None:
        f = _gen_cache[name] = make_function(registry.get(name), name)
    return f
