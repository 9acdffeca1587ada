"""Loop and branch bodies: shape/dtype inference through them, the loop-optimization switch,
and the small helpers the loop kernels share.

A body is a Symbol; its inputs are addressed by position in ``body.list_inputs()`` (the
index maps of the loop node point there). Its plans are compiled with ``static_alloc=True``
and kept in the loop step's `LoopSpec` (`gluonlite.control_flow.passes.LoopSpec.body`).
"""
import numpy as np

from ..symbol.symbol import topo_nodes

__all__ = ["LoopBuffers", "body_vars", "infer_body", "wants_grad", "add_into",
           "loop_optimizations", "loop_optimizations_enabled", "fast_weight_layout"]

_OPTIMIZE = {"on": True}


def loop_optimizations_enabled():
    """Whether plans compiled now hoist invariant work out of their loops and defer
    invariant gradients (default on; read by the loop pass when a plan is compiled)."""
    return _OPTIMIZE["on"]


class loop_optimizations:
    """Turn the loop optimizations on or off inside a block (to compare plans; results are
    the same either way). Graphs compiled inside the block keep the setting wherever they
    run later: the switch is read when a plan is compiled (`gluonlite.control_flow.passes`),
    never when it runs.

    Example::

        with loop_optimizations(False):
            plain = net(x)      # a net hybridized inside the block: per-step plans only
    """

    def __init__(self, enabled):
        self.enabled = bool(enabled)

    def __enter__(self):
        self._old, _OPTIMIZE["on"] = _OPTIMIZE["on"], self.enabled
        return self

    def __exit__(self, *exc):
        _OPTIMIZE["on"] = self._old


class LoopBuffers:
    """A loop node's large per-call arrays, made once and refilled by every call of every
    plan of its graph: a `CachedOp`'s (or an `Executor`'s) training and inference plans
    share one (their calls never overlap; `compile_plan`'s `shared`), so a block keeps one
    hoisted projection, not one per plan.

    Attributes:
        projections: the hoisted projections {(projection, shape, dtype, xp name): array};
        holders: {the same key: weak reference to the saved state of the training call
            whose backward still reads that array}: a call meanwhile computes into a fresh
            array (`gluonlite.control_flow.hoisting.Hoist.prologue`).
        layouts: the transposed weight copies (`fast_weight_layout`), read only while a
            call's steps run.
        bodies: the `shared` dict the loop's body plans are compiled with: the loops
            nested in them share theirs likewise.
    """

    def __init__(self):
        self.projections, self.holders, self.layouts, self.bodies = {}, {}, {}, {}


def body_vars(body):
    """The variable nodes of `body`, in `list_inputs()` order."""
    return [n for n in topo_nodes(body.outputs) if n.op is None]


def infer_body(fname, which, body, in_shapes=None, in_dtypes=None):
    """Infer a body's shapes (or dtypes) from what is known of its inputs.

    Args:
        fname, which: operator and body names for messages ('while_loop', 'func').
        in_shapes / in_dtypes: per body input (position), None where unknown; give one.

    Returns:
        (inputs, outputs): the inferred value per body input and per body output.

    Raises:
        ValueError: the body does not fit its inputs (the message names the body and node).
    """
    from ..executor.infer import infer_graph
    vars_ = body_vars(body)
    if in_shapes is not None:
        known = {v.name: s for v, s in zip(vars_, in_shapes) if s is not None}
        try:
            values, _ = infer_graph(body, known, None, default_dtype=None)
        except ValueError as e:
            raise ValueError(f"{fname}: in {which}: {e}") from None
    else:
        known = {v.name: d for v, d in zip(vars_, in_dtypes) if d is not None}
        try:
            _, values = infer_graph(body, None, known, default_dtype=None)
        except ValueError as e:
            raise ValueError(f"{fname}: in {which}: {e}") from None
    ins = [values.get((id(v), 0)) for v in vars_]
    outs = [values.get((id(n), i)) for n, i in body.outputs]
    return ins, outs


def wants_grad(dtype):
    """Whether a body input of this dtype can take a gradient (floating point only)."""
    return np.dtype(dtype).kind == "f"


def fast_weight_layout(xp, weights, buffers, steps_as_lists=False):
    """{index: the same weight laid out for `x @ W.T`} for `weights` {index: array} (the
    ones the loop pass chose, `LoopSpec.weight_layout`): a copy of W with W's shape and
    values whose transpose is contiguous (2-D C-contiguous floating weights only).

    Args:
        buffers: a dict (`LoopBuffers.layouts`) holding one such array per weight
            position, shape and dtype, refilled on every call instead of allocated anew.
        steps_as_lists: the loop keeps its steps as lists of their values (they cannot be
            stacked): those would hold the copy, which the next run refills, so none is
            made. (Stacked steps keep the original weights for the backward.)
    """
    if steps_as_lists or not weights:
        return {}
    fast = {}
    for i, w in weights.items():
        if w.ndim != 2 or not w.flags.c_contiguous or w.dtype.kind != "f":
            continue
        key = (i, w.shape, w.dtype, xp.__name__)
        buf = buffers.get(key)
        if buf is None:
            buf = buffers[key] = xp.empty(w.shape[::-1], dtype=w.dtype)
        xp.copyto(buf, w.T)
        fast[i] = buf.T
    return fast


def free_dest(dests, acc, i):
    """Where node input i's gradient may be written (`Fast.writes_dests`): dests[i]
    while no gradient of that input was made yet (`acc[i]` is None), else None.

    Example: ``g = fc.vjp(p, rc, xs, ys, gys, need, dests=[free_dest(dests, acc, 1)])``
    then ``add_into(acc, 1, g[1], fresh=True)``: the first gradient lands in the caller's
    array, later ones add into it."""
    return None if dests is None or acc[i] is not None else dests[i]


def add_into(acc, i, g, fresh=False):
    """acc[i] += g in place, so accumulating over many steps allocates once. The first
    contribution is copied (g may be a buffer reused later) unless `fresh` says that g was
    just computed for this call and nothing else holds it."""
    if g is None:
        return
    if acc[i] is None:
        acc[i] = g if fresh else g.copy()
    else:
        acc[i] += g
