"""MXNet's ``mx.nd.CachedOp(sym, flags=())``: a Symbol called like an operator on NDArrays.
Installed into `gluonlite.ndarray` when this package loads (the imperative layer never
imports the compiled one)."""
from ..ndarray.ndarray import NDArray
from .cached_op import CachedOp as _CompiledCall

_BOOL_FLAGS = ("static_alloc", "static_shape")
# flags MXNet takes that change only how its engine schedules work
_SCHEDULING_FLAGS = ("forward_bulk_size", "backward_bulk_size", "data_indices",
                     "param_indices", "is_dynamic")


def _flag_bool(name, v):
    if isinstance(v, str):
        if v.strip().lower() in ("true", "1"):
            return True
        if v.strip().lower() in ("false", "0"):
            return False
        raise ValueError(f"CachedOp: flag {name}={v!r}: expected True or False")
    return bool(v)


class CachedOp(_CompiledCall):
    """A Symbol compiled once and called on NDArrays, as MXNet's ``mx.nd.CachedOp``.

    Args:
        sym: the graph; call it with one NDArray per ``sym.list_inputs()``, in that order.
        flags: ``(name, value)`` pairs or a dict: ``static_alloc``, ``static_shape``,
            ``inline_limit`` as in `gluonlite.executor.CachedOp`; MXNet's scheduling flags
            (``forward_bulk_size``, ``backward_bulk_size``, ``data_indices``,
            ``param_indices``, ``is_dynamic``) are accepted and change nothing here.

    Raises:
        ValueError: an unknown flag or a flag value that does not parse.

    Example::

        op = nd.CachedOp(sym.var("x") * 2 + 1)
        op(nd.ones((2,)))          # [3, 3]
    """

    def __init__(self, sym, flags=()):
        flags = dict(flags)
        unknown = sorted(set(flags) - set(_BOOL_FLAGS) - set(_SCHEDULING_FLAGS) -
                         {"inline_limit"})
        if unknown:
            raise ValueError(f"CachedOp: unknown flag(s) {unknown}; known: "
                             f"{sorted(_BOOL_FLAGS + _SCHEDULING_FLAGS + ('inline_limit',))}")
        super().__init__(sym, static_alloc=_flag_bool("static_alloc",
                                                      flags.get("static_alloc", False)),
                         static_shape=_flag_bool("static_shape",
                                                 flags.get("static_shape", False)),
                         inline_limit=int(flags.get("inline_limit", 2)))

    def __call__(self, *args, out=None, default_ctx=None):
        """Run on NDArrays; returns one NDArray for a one-output graph, else a list. With
        `out` (an NDArray or a list, one per output) the results are written there and
        `out` is returned. `default_ctx` is accepted for MXNet's signature (a graph without
        inputs is not callable here).

        Raises:
            ValueError: a wrong number of inputs, or `out` of the wrong count or shapes.
            TypeError: an input that is not an NDArray.
        """
        results = super().__call__(*args)
        if out is None:
            return results[0] if len(results) == 1 else results
        outs = [out] if isinstance(out, NDArray) else list(out)
        if len(outs) != len(results):
            raise ValueError(f"CachedOp: out has {len(outs)} arrays for {len(results)} "
                             "outputs")
        for o, r in zip(outs, results):
            if o.shape != r.shape:
                raise ValueError(f"CachedOp: out of shape {o.shape} for an output of shape "
                                 f"{r.shape}")
            o[:] = r
        return out
