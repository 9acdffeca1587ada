"""Generating the `nd` functions from the operator registry (the same registry `sym` reads)."""
from ..ops import registry
from ..ops.call import bind_call
from .invoke import invoke

_gen_cache = {}


def _is_nd(x):
    from .ndarray import NDArray
    return isinstance(x, NDArray)


def make_function(op, public_name):
    """The nd function for `op`: ``f(*inputs, out=None, name=None, **attrs)``."""
    def f(*args, out=None, name=None, ctx=None, **kwargs):
        inputs, attrs = bind_call(op, args, kwargs, _is_nd)
        if ctx is not None and "ctx" in op.attrs:
            attrs["ctx"] = str(ctx)
        if isinstance(inputs, dict):
            p = registry.Params(op.parse(attrs)[0]) if op.attrs else registry.Params()
            names = op.input_names(p)
            unknown = set(inputs) - set(names)
            if unknown:
                raise TypeError(f"{op.name}: unknown input(s) {', '.join(sorted(unknown))}; "
                                f"inputs are {', '.join(names)}")
            for n in names:
                if n not in inputs:
                    raise TypeError(f"{op.name}: missing input {n!r}")
            inputs = [inputs[n] for n in names]
        res = invoke(op, inputs, attrs, ctx=ctx)
        if out is not None:
            outs = out if isinstance(out, (list, tuple)) else [out]
            for o, r in zip(outs, res):
                o[:] = r
            return out
        return res[0] if len(res) == 1 else res
    f.__name__ = public_name
    f.__qualname__ = public_name
    f.__doc__ = op.__doc__
    return f


def populate(namespace):
    """Add a function for every registered operator name to `namespace` (a module dict)."""
    for n in registry.names():
        op = registry.get(n)
        f = _gen_cache.get(n) or make_function(op, n)
        _gen_cache[n] = f
        namespace.setdefault(n, f)
