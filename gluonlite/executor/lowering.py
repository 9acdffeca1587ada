"""Lowerings: an operator's faster way to run inside a compiled plan, registered apart.

An operator's kernel and vjp say what it computes (for the loops, a plain loop over the
body's plan). A lowering is an optional second way, for a compiled plan only, that computes
the same thing faster (for the loops: hoisted projections, counted trips, deferred weight
sums, generated step loops; `gluonlite.control_flow.lowering`). The layer that defines it
registers it here; the compiler, which sits below that layer, looks it up once per plan step
when it compiles (`gluonlite.executor.plan`) and never imports it.

A lowering has three rules (and an optional fourth):

- ``decide(p, in_shapes, in_dtypes, is_train, xp) -> spec``: what the step does, decided
  once when the plan is compiled (a printable, frozen object), or None to run the plain
  kernel;
- ``kernel(p, rc, *xs)`` and ``vjp(p, rc, xs, ys, gys, need, dests=None)``: the operator's
  rules run the lowered way, reading the decision as ``rc.spec`` and the step's runtime as
  ``rc.runtime``;
- ``runtime(spec, store) -> object`` (optional): what the step keeps from call to call
  (buffers, its body plans); ``store`` is a dict the node's plans of one graph share.

`lowerings(False)` (the loops' ``loop_optimizations``) compiles plans that run the plain
kernels; the switch is read when a plan is compiled, never when it runs.

Example::

    # gluonlite.control_flow.lowering registers the loops' lowerings when it is imported:
    #     register_lowering("_foreach", decide=plan_foreach, kernel=lowered_kernel,
    #                       vjp=lowered_vjp, runtime=LoopRuntime)
    from gluonlite.executor.lowering import lowering_of
    lowering_of("_foreach").decide          # what compile_plan calls
"""
from collections import namedtuple

__all__ = ["Lowering", "register_lowering", "lowering_of", "lowerings", "lowerings_enabled"]

Lowering = namedtuple("Lowering", ["decide", "kernel", "vjp", "runtime"])
Lowering.__doc__ = """An operator's lowering: its `decide`, `kernel`, `vjp` and `runtime` rules (see
the module docstring).

Example::

    from gluonlite.executor.lowering import lowering_of
    low = lowering_of('_foreach')   # a Lowering
    low.runtime is not None         # True: a loop keeps buffers from call to call
"""

_LOWERINGS = {}
_ENABLED = {"on": True}


def register_lowering(op_name, *, decide, kernel, vjp, runtime=None):
    """Register the lowering of operator `op_name` (see the module docstring); returns it.

    Args:
        op_name: the operator's registered name, e.g. '_foreach'.
        decide: ``decide(p, in_shapes, in_dtypes, is_train, xp) -> spec``: what a step does, decided
            when the plan is compiled.
        kernel: ``kernel(p, rc, *xs)``: the lowered forward.
        vjp: ``vjp(p, rc, xs, ys, gys, need, dests=None)``: the lowered backward.
        runtime: default None: ``runtime(spec, store) -> object``, what a step keeps from call to
            call.

    Returns:
        The new `Lowering`.

    Raises:
        ValueError: `op_name` has a lowering already.

    Example::

        from gluonlite.executor.lowering import register_lowering, lowering_of
        low = lowering_of('_foreach')   # what control_flow registered
        try:
            register_lowering('_foreach', decide=low.decide, kernel=low.kernel,
                              vjp=low.vjp)
        except ValueError as err:
            print(err)   # '_foreach' has a lowering already
    """
    if op_name in _LOWERINGS:
        raise ValueError(f"register_lowering: {op_name!r} has a lowering already")
    low = _LOWERINGS[op_name] = Lowering(decide, kernel, vjp, runtime)
    return low


def lowering_of(op_name):
    """The `Lowering` a plan compiled now uses for `op_name`: None when it has none or the
    lowerings are off (`lowerings(False)`).

    Example::

        from gluonlite.executor.lowering import lowering_of, lowerings
        lowering_of('_foreach').decide   # what compile_plan calls
        with lowerings(False):
            print(lowering_of('_foreach'))   # None: plain kernels
    """
    return _LOWERINGS.get(op_name) if _ENABLED["on"] else None


def lowerings_enabled():
    """Whether plans compiled now use the registered lowerings (default on).

    Example::

        from gluonlite.executor.lowering import lowerings_enabled, lowerings
        with lowerings(False):
            print(lowerings_enabled())   # False
        lowerings_enabled()   # True again
    """
    return _ENABLED["on"]


class lowerings:
    """Turn the registered lowerings on or off for the plans compiled inside a block (to
    compare them with the plain kernels; results are the same either way). Plans compiled
    inside the block keep the setting wherever they run later.

    Args:
        enabled: True to use the registered lowerings in the plans compiled inside the block, False
            for the plain kernels.

    Example::

        from gluonlite.executor.lowering import lowerings
        net = gluon.rnn.LSTM(4); net.initialize()
        x = nd.ones((5, 2, 3))
        with lowerings(False):
            net.hybridize()
            plain = net(x)      # a net hybridized inside the block runs its plain kernels
    """

    def __init__(self, enabled):
        self.enabled = bool(enabled)

    def __enter__(self):
        self._old, _ENABLED["on"] = _ENABLED["on"], self.enabled
        return self

    def __exit__(self, *exc):
        _ENABLED["on"] = self._old
