"""Running a loop whose input projections are hoisted (`hoisting.Hoist`, the decision):
the projections of every step computed once before the loop (`prologue`), the rewritten
loop run by the lowered kernel, and the projections' gradients after its reverse pass
(`pullback`).
"""
import weakref

from ...ops import registry
from .deferred import add_into, free_dest

__all__ = ["HoistedSaved", "run_hoisted", "hoisted_vjp", "prologue", "pullback"]


def _fc():
    return registry.get("FullyConnected")


def _rows(pr, d):
    """Every step's rows of data `d` as one matrix, and the projection's output shape."""
    if pr.p.flatten:
        rows = d.reshape(d.shape[0] * d.shape[1], -1)
        return rows, (d.shape[0], d.shape[1], pr.p.num_hidden)
    return d.reshape(-1, d.shape[-1]), d.shape[:-1] + (pr.p.num_hidden,)


def _fc_inputs(pr, xs, rows):
    return [rows, xs[pr.weight]] + ([] if pr.bias is None else [xs[pr.bias]])


def prologue(hoist, rc, xs, buffers, used=None):
    """The inputs of the loop `hoist` rewrote: the node's inputs and every projection,
    computed once over all steps, into the node's buffers (`buffers`, its
    `runtime.LoopBuffers`) unless a live saved state holds them. `used` (a list) receives
    the keys of the buffers written (a training call marks them held by its saved state,
    `run_hoisted`).

    Args:
        hoist: the `Hoist` that rewrote the loop.
        rc: the step's `RunCtx` (its array module, mode, spec and runtime).
        xs: the node's inputs.
        buffers: the node's `LoopBuffers`.
        used: default None: a list receiving the keys of the buffers written.

    Returns:
        The rewritten loop's inputs, in `hoist.layout` order.

    Example::

        from gluonlite.symbol.symbol import topo_nodes
        from gluonlite.ops.registry import RunCtx
        from gluonlite.control_flow.lowering import decisions, hoisting, hoisted
        def step(x, h):   # x's projection by w does not depend on the state: hoisted
            new = sym.tanh(sym.FullyConnected(x, sym.var('w'), no_bias=True, num_hidden=4) + h[0])
            return new, [new]
        outs, _ = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])
        node = [n for n in topo_nodes(outs.outputs) if n.op and n.op.name == '_foreach'][0]
        hoist = hoisting.foreach_hoist(node.params, lambda q: decisions.LoopSpec('_foreach', q))
        xs = [np.ones((5, 2, 3), np.float32), np.zeros((2, 4), np.float32),   # data, h0,
              np.ones((4, 3), np.float32)]                                      # w
        from gluonlite.control_flow.lowering.runtime import LoopBuffers
        rc = RunCtx(is_train=False, xp=np)
        proj, h0 = hoisted.prologue(hoist, rc, xs, LoopBuffers())   # hoist.layout's order
        print(proj.shape, proj[0, 0])   # (5, 2, 4) [3. 3. 3. 3.]: every step's x @ w.T at once
    """
    # One buffer per projection and shape, reused by the node's runs. A body may save
    # its projection rows for the backward (a product of the projection, a cond in the
    # step), so a buffer is held by the saved state of the training run that filled it
    # (a weak reference: until that state is gone, after its backward); a run meanwhile
    # (a second call before the backward, an inner loop run at every outer step)
    # computes its projections into fresh arrays.
    buffers, holders, proj = buffers.projections, buffers.holders, []
    for k, pr in enumerate(hoist.projections):
        rows, shape = _rows(pr, xs[pr.data])
        key = (k, shape, rows.dtype, rc.xp.__name__)
        y = buffers.get(key)
        holder = holders.get(key)
        if y is not None and holder is not None and holder() is not None:
            y = rc.xp.empty(shape, dtype=rows.dtype)
        else:
            if y is None:
                y = buffers[key] = rc.xp.empty(shape, dtype=rows.dtype)
            if used is not None:
                used.append(key)
        y2 = y.reshape(-1, pr.p.num_hidden)
        ins = _fc_inputs(pr, xs, rows)
        if pr.folded is not None and pr.bias is not None:  # one add of both biases
            ins[2] = ins[2] + xs[pr.folded]
        _fc().forward(pr.p, rc, ins, out=[y2])
        if pr.folded is not None and pr.bias is None:
            y2 += xs[pr.folded]
        proj.append(y)
    return [xs[i] if kind == "in" else proj[i] for kind, i in hoist.layout]


def pullback(hoist, rc, xs, grads, need, dests=None):
    """Gradients of the node's inputs from those of the rewritten loop's inputs (a loop
    hoisted by `hoist`): the
    projections' gradients go through one FullyConnected backward each (computing only
    what `need`, per node input, asks for). A node input's first gradient is written
    into its array in `dests` when there is one (`Fast.writes_dests`).

    Args:
        hoist: the `Hoist` that rewrote the loop.
        rc: the step's `RunCtx` (its array module, mode, spec and runtime).
        xs: the node's inputs.
        grads: the gradients of the rewritten loop's inputs (None where none).
        need: per node input, whether its gradient is wanted.
        dests: default None: per node input None or the caller's array.

    Returns:
        A list of gradients, one per node input (None where none).

    Example::

        from gluonlite.symbol.symbol import topo_nodes
        from gluonlite.ops.registry import RunCtx
        from gluonlite.control_flow.lowering import decisions, hoisting, hoisted
        def step(x, h):   # x's projection by w does not depend on the state: hoisted
            new = sym.tanh(sym.FullyConnected(x, sym.var('w'), no_bias=True, num_hidden=4) + h[0])
            return new, [new]
        outs, _ = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])
        node = [n for n in topo_nodes(outs.outputs) if n.op and n.op.name == '_foreach'][0]
        hoist = hoisting.foreach_hoist(node.params, lambda q: decisions.LoopSpec('_foreach', q))
        xs = [np.ones((5, 2, 3), np.float32), np.zeros((2, 4), np.float32),   # data, h0,
              np.ones((4, 3), np.float32)]                                      # w
        rc = RunCtx(is_train=False, xp=np)
        gproj = np.ones((5, 2, 4), np.float32)   # the rewritten loop's gradient of the projection
        g_data, g_h0, g_w = hoisted.pullback(hoist, rc, xs, [gproj, None], [True, True, True])
        print(g_data.shape, g_h0, g_w.shape)   # (5, 2, 3) None (4, 3)
    """
    acc = [None] * len(xs)
    proj_g = [None] * len(hoist.projections)
    for (kind, i), g in zip(hoist.layout, grads):
        if kind == "in":
            add_into(acc, i, g, fresh=True)  # the loop's own accumulators
        else:
            proj_g[i] = g
    for pr, g in zip(hoist.projections, proj_g):
        if g is None:
            continue
        d = xs[pr.data]
        rows, _ = _rows(pr, d)
        ins = _fc_inputs(pr, xs, rows)
        wanted = [need[pr.data] and d.dtype.kind == "f", need[pr.weight]]
        into = [free_dest(dests, acc, pr.data), free_dest(dests, acc, pr.weight)]
        if pr.bias is not None:
            wanted.append(need[pr.bias])
            into.append(free_dest(dests, acc, pr.bias))
        g2 = g.reshape(-1, pr.p.num_hidden)
        gxs = _fc().fast.vjp(pr.p, rc, ins, [None], [g2], wanted,
                                dests=[t if t is None or t.shape == r.shape else
                                       t.reshape(r.shape) for t, r in zip(into, ins)])
        gx = gxs[0]
        if gx is not None:  # the data's own array when written there (not a view)
            gx = gx.reshape(d.shape) if into[0] is None else into[0]
        add_into(acc, pr.data, gx, fresh=True)
        add_into(acc, pr.weight, gxs[1], fresh=True)
        if pr.bias is not None:
            add_into(acc, pr.bias, gxs[2], fresh=True)
        if pr.folded is not None and need[pr.folded]:  # the same sum as the bias's
            gf = free_dest(dests, acc, pr.folded)
            if pr.bias is None or gxs[2] is None:
                gf = g2.sum(axis=0, out=gf)
            elif gf is None:
                gf = gxs[2].copy()
            else:
                rc.xp.copyto(gf, gxs[2])
            add_into(acc, pr.folded, gf, fresh=True)
    return acc


class HoistedSaved:
    """The saved state of a hoisted loop: the rewritten loop's inputs and its own state.

    Args:
        hoist: the `Hoist` that rewrote the loop.
        xs: the rewritten loop's inputs (the node's, then the projections).
        inner: the rewritten loop's own saved state (None when it keeps none).

    Example::

        from gluonlite.symbol.symbol import topo_nodes
        from gluonlite.ops.registry import RunCtx
        from gluonlite.control_flow.lowering import decisions, hoisting, hoisted
        def step(x, h):   # x's projection by w does not depend on the state: hoisted
            new = sym.tanh(sym.FullyConnected(x, sym.var('w'), no_bias=True, num_hidden=4) + h[0])
            return new, [new]
        outs, _ = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])
        node = [n for n in topo_nodes(outs.outputs) if n.op and n.op.name == '_foreach'][0]
        hoist = hoisting.foreach_hoist(node.params, lambda q: decisions.LoopSpec('_foreach', q))
        xs = [np.ones((5, 2, 3), np.float32), np.zeros((2, 4), np.float32),   # data, h0,
              np.ones((4, 3), np.float32)]                                      # w
        from gluonlite.control_flow.lowering.runtime import LoopBuffers
        rc = RunCtx(is_train=False, xp=np, runtime=type('R', (), {'buffers': LoopBuffers()})())
        run = lambda spec, rc, inputs, keep: ([inputs[0].sum(0)], None)   # a stand-in loop run
        state = hoisted.run_hoisted(run, hoist, rc, xs)[-1]
        print(type(state).__name__, [x.shape for x in state.xs])
        # HoistedSaved [(5, 2, 4), (2, 4)]
    """

    __slots__ = ("hoist", "xs", "inner", "__weakref__")

    def __init__(self, hoist, xs, inner):
        self.hoist, self.xs, self.inner = hoist, xs, inner


def run_hoisted(run, hoist, rc, xs):
    """Run a loop hoisted by `hoist`: the prologue on the node's inputs `xs`, then
    `run(spec, rc, inputs, keep)` (a lowered loop's run) on the rewritten loop. Returns the
    loop's outputs, its last one a `HoistedSaved`.

    Args:
        run: the lowered loop's run, ``run(spec, rc, inputs, keep) -> (outputs, state)``.
        hoist: the `Hoist` that rewrote the loop.
        rc: the step's `RunCtx` (its array module, mode, spec and runtime).
        xs: the node's inputs.

    Example::

        from gluonlite.symbol.symbol import topo_nodes
        from gluonlite.ops.registry import RunCtx
        from gluonlite.control_flow.lowering import decisions, hoisting, hoisted
        def step(x, h):   # x's projection by w does not depend on the state: hoisted
            new = sym.tanh(sym.FullyConnected(x, sym.var('w'), no_bias=True, num_hidden=4) + h[0])
            return new, [new]
        outs, _ = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])
        node = [n for n in topo_nodes(outs.outputs) if n.op and n.op.name == '_foreach'][0]
        hoist = hoisting.foreach_hoist(node.params, lambda q: decisions.LoopSpec('_foreach', q))
        xs = [np.ones((5, 2, 3), np.float32), np.zeros((2, 4), np.float32),   # data, h0,
              np.ones((4, 3), np.float32)]                                      # w
        from gluonlite.control_flow.lowering.runtime import LoopBuffers
        rc = RunCtx(is_train=False, xp=np, runtime=type('R', (), {'buffers': LoopBuffers()})())
        run = lambda spec, rc, inputs, keep: ([inputs[0].sum(0)], None)   # a stand-in loop run
        out, state = hoisted.run_hoisted(run, hoist, rc, xs)
        print(out[0], state.inner)   # [15. 15. 15. 15.] None: the projections summed over 5 steps
    """
    inner_rc = rc._replace(spec=hoist.loop)
    used = [] if rc.need_grad else None
    buffers = rc.runtime.buffers
    xs2 = prologue(hoist, rc, xs, buffers, used)
    outs, state = run(hoist.loop, inner_rc, xs2, keep=rc.need_grad)
    if not rc.need_grad:
        return (*outs, HoistedSaved(hoist, xs2, state))
    # The pullback reads only the projections' shapes (what the steps saved of them,
    # `state` holds): keep stubs here, so the memory kept for the backward is what the
    # steps saved.
    xs2 = [x if kind == "in" else buffers.shape_stub(rc.xp, x)
           for (kind, _), x in zip(hoist.layout, xs2)]
    saved = HoistedSaved(hoist, xs2, state)
    ref = weakref.ref(saved)  # the buffers written are held while `saved` lives
    for key in used:
        buffers.holders[key] = ref
    return (*outs, saved)


def hoisted_vjp(vjp, rc, xs, ys, gys, need, dests=None):
    """The gradient of a loop run by `run_hoisted` (its state is ``ys[-1]``): `vjp(spec, rc,
    xs, ys, gys, need, dests)` (a loop's gradient) on the rewritten loop, then the
    projections' pullback.

    Args:
        vjp: the lowered loop's gradient function.
        rc: the step's `RunCtx` (its array module, mode, spec and runtime).
        xs: the node's inputs.
        ys: the node's outputs, the last a `HoistedSaved`.
        gys: the gradients of the visible outputs (None where none).
        need: per node input, whether its gradient is wanted.
        dests: default None: per node input None or the caller's array for its gradient.

    Returns:
        The gradients of the node's inputs (None where none).

    Example::

        from gluonlite.symbol.symbol import topo_nodes
        from gluonlite.ops.registry import RunCtx
        from gluonlite.control_flow.lowering import decisions, hoisting, hoisted
        def step(x, h):   # x's projection by w does not depend on the state: hoisted
            new = sym.tanh(sym.FullyConnected(x, sym.var('w'), no_bias=True, num_hidden=4) + h[0])
            return new, [new]
        outs, _ = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])
        node = [n for n in topo_nodes(outs.outputs) if n.op and n.op.name == '_foreach'][0]
        hoist = hoisting.foreach_hoist(node.params, lambda q: decisions.LoopSpec('_foreach', q))
        xs = [np.ones((5, 2, 3), np.float32), np.zeros((2, 4), np.float32),   # data, h0,
              np.ones((4, 3), np.float32)]                                      # w
        from gluonlite.control_flow.lowering.runtime import LoopBuffers
        rc = RunCtx(is_train=False, xp=np, runtime=type('R', (), {'buffers': LoopBuffers()})())
        run = lambda spec, rc, inputs, keep: ([inputs[0].sum(0)], None)   # a stand-in loop run
        ys = hoisted.run_hoisted(run, hoist, rc, xs)
        vjp = lambda spec, rc, xs2, ys, gys, need, dests: [np.ones_like(xs2[0]), None]
        g_data, g_h0, g_w = hoisted.hoisted_vjp(vjp, rc, xs, ys, [None], [True, True, True])
        print(g_data.shape, g_w[0])   # (5, 2, 3) [10. 10. 10.]: w's gradient sums 5 x 2 rows
    """
    state = ys[-1]
    h, xs2 = state.hoist, state.xs
    if state.inner is not None and state.inner.steps is None:
        # the loop re-runs: its projections may be overwritten
        xs2 = prologue(h, rc, xs, rc.runtime.buffers)
    inner = None
    if dests is not None:  # a node input's array goes to its first place in the loop
        inner, seen = [None] * len(xs2), set()
        for k, (kind, i) in enumerate(h.layout):
            if kind == "in" and i not in seen:
                seen.add(i)
                inner[k] = dests[i]
    grads = vjp(h.loop, rc._replace(spec=h.loop), xs2, list(ys[:-1]) + [state.inner], gys,
                [True] * len(xs2), inner)
    return pullback(h, rc, xs, grads, need, dests)
