"""The decisions of the loops' lowering: what a compiled plan's loop step does beyond the
plain per-step loop, decided once when the plan is compiled.

The compiler calls a lowering's ``decide`` rule once per plan step
(`gluonlite.executor.lowering`); for `_foreach`, `_while_loop` and `_cond` it is a function
here. It reads the node's params and the input shapes the plan inferred, decides every
loop optimization once, and returns a frozen, printable `LoopSpec`, which the plan keeps on
its step and hands to the lowered kernel and vjp (``rc.spec``). What the step keeps from
call to call (its body plans, its buffers) is apart, in the step's runtime
(`runtime.LoopRuntime`, ``rc.runtime``), so nothing is decided again when the loop runs.

What is decided, in the order a loop runs:

- ``hoist``: the input projections moved out of the loop (`hoisting`); the loop then runs a
  rewritten body, described by its own spec (``hoist.loop``).
- ``counter``: a `_while_loop` whose trip count follows from its counter at entry
  (`counting`).
- defer sums: gradients of loop-invariant inputs summed once after the reverse pass instead
  of per step (which ones: `deferred.LoopBody`, once per body plan; always on).
- ``weight_layout``: the loop-invariant FullyConnected weights read in a transposed
  contiguous copy (`runtime.fast_weight_layout`), for loops large enough to repay the copy.

Example::

    from gluonlite.executor import compile_plan
    def step(x, h):   # an RNN step
        new = sym.tanh(sym.FullyConnected(x, num_hidden=4, name='i2h') + h[0])
        return new, [new]
    rnn_loop = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])[0]
    shapes, dtypes = [(5, 2, 3), (2, 4), (4, 3), (4,)], ['float32'] * 4   # data, h0, w, b
    plan = compile_plan(rnn_loop, shapes, dtypes, is_train=True, grad_inputs=[True] * 4)
    print(next(st.spec for st in plan.steps if st.spec is not None))
    # LoopSpec(_foreach: hoist 1 projection, defer_sums; rewritten loop: defer_sums)
"""
import numpy as np

from ...symbol.symbol import topo_nodes
from ..body import body_vars
from ..while_loop import WhileRoles
from .counting import find_counter
from .hoisting import foreach_hoist, while_hoist

__all__ = ["LoopSpec", "plan_foreach", "plan_while", "plan_cond"]

# A loop multiplies by the transpose of an invariant FullyConnected weight at every step;
# OpenBLAS does `x @ W.T` about 1.5x faster at 8 to a few hundred rows when W.T is
# C-contiguous (benchmarks/README.md). One contiguous copy per loop call repays itself
# when a loop has at least this many rows per step and steps.
_LAYOUT_ROWS, _LAYOUT_STEPS = 8, 16


class LoopSpec:
    """What the lowering decided for one loop step of a compiled plan (see the module
    docstring): frozen once made.

    Attributes:
        op_name: the loop operator.
        params: the loop node's params (for a hoisted loop's `hoist.loop`: the rewritten
            loop's).
        hoist: a `hoisting.Hoist` (its `loop`: the rewritten loop's spec), or None.
        counter: a `_while_loop`'s `counting.Counter`, or None.
        weight_layout: the inputs read as FullyConnected weights in the transposed copy
            (`_foreach`: body input positions; `_while_loop`: node input indices).
        roles: a `_while_loop`'s `WhileRoles` (None for the others).
        defer_sums: body plans leave invariant inputs' gradients to the loop (always).

    Example::

        from gluonlite.control_flow.lowering import decisions
        from gluonlite.symbol.symbol import topo_nodes
        def step(x, h):   # an RNN step: its input projection can move out of the loop
            proj = sym.FullyConnected(x, sym.var('w'), no_bias=True, num_hidden=4)
            new = sym.tanh(proj + h[0])
            return new, [new]
        outs, _ = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])
        node = [n for n in topo_nodes(outs.outputs) if n.op and n.op.name == '_foreach'][0]
        spec = decisions.plan_foreach(node.params, [(5, 2, 3), (2, 4), (4, 3)], ['float32'] * 3,
                                      True, np)
        spec   # LoopSpec(_foreach: hoist 1 projection, defer_sums; rewritten loop: ...)
    """

    __slots__ = ("op_name", "params", "hoist", "counter", "weight_layout", "roles")
    defer_sums = True

    def __init__(self, op_name, params, hoist=None, counter=None, weight_layout=(),
                 roles=None):
        for k, v in (("op_name", op_name), ("params", params), ("hoist", hoist),
                     ("counter", counter), ("weight_layout", tuple(weight_layout)),
                     ("roles", roles)):
            object.__setattr__(self, k, v)

    def __setattr__(self, name, value):
        raise AttributeError(f"LoopSpec is frozen: {name} is decided when the plan is "
                             "compiled")

    def describe(self):
        """The decisions as one line of text (what `repr` shows).

        Example::

            from gluonlite.control_flow.lowering import decisions
            from gluonlite.symbol.symbol import topo_nodes
            def step(x, h):   # an RNN step: its input projection can move out of the loop
                proj = sym.FullyConnected(x, sym.var('w'), no_bias=True, num_hidden=4)
                new = sym.tanh(proj + h[0])
                return new, [new]
            outs, _ = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])
            node = [n for n in topo_nodes(outs.outputs) if n.op and n.op.name == '_foreach'][0]
            spec = decisions.plan_foreach(node.params, [(5, 2, 3), (2, 4), (4, 3)], ['float32'] * 3,
                                          True, np)
            spec.describe()
            # 'hoist 1 projection, defer_sums; rewritten loop: defer_sums'
        """
        parts = []
        if self.hoist is not None:
            n = len(self.hoist.projections)
            folded = sum(pr.folded is not None for pr in self.hoist.projections)
            parts.append(f"hoist {n} projection{'s' * (n != 1)}" +
                         (f" ({folded} bias folded)" if folded else ""))
        if self.counter is not None:
            parts.append(f"counted (loop var {self.counter.k})")
        parts.append("defer_sums")
        if self.weight_layout:
            parts.append(f"weight_layout {list(self.weight_layout)}")
        text = ", ".join(parts)
        if self.hoist is not None:
            text += f"; rewritten loop: {self.hoist.loop.describe()}"
        return text

    def __repr__(self):
        return f"LoopSpec({self.op_name}: {self.describe()})"


def _fc_weight_inputs(body):
    """Positions of `body`'s inputs that a FullyConnected reads as its weight."""
    pos = {id(v): j for j, v in enumerate(body_vars(body))}
    return sorted({pos[id(n.inputs[1][0])] for n in topo_nodes(body.outputs)
                   if n.op is not None and n.op.name == "FullyConnected"
                   and id(n.inputs[1][0]) in pos})


def _large(rows, steps):
    return rows >= _LAYOUT_ROWS and steps >= _LAYOUT_STEPS


def _first_dim(shape):
    return shape[0] if shape is not None and len(shape) else 0


def plan_foreach(p, shapes, dtypes, is_train, xp):
    """The decisions for a `_foreach` node with input shapes `shapes` (see the module
    docstring).

    Args:
        p: the loop node's params (its `Params`, with the bodies in ``_subgraphs``).
        shapes: the node's input shapes (data, then states, then free variables).
        dtypes: the node's input dtypes (not read).
        is_train: whether the plan is compiled for training (not read).
        xp: the array module (numpy or cupy).

    Returns:
        A `LoopSpec` for '_foreach' (with its `Hoist` when a projection can be hoisted).

    Example::

        from gluonlite.control_flow.lowering import decisions
        from gluonlite.symbol.symbol import topo_nodes
        def step(x, h):   # an RNN step: its input projection can move out of the loop
            proj = sym.FullyConnected(x, sym.var('w'), no_bias=True, num_hidden=4)
            new = sym.tanh(proj + h[0])
            return new, [new]
        outs, _ = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])
        node = [n for n in topo_nodes(outs.outputs) if n.op and n.op.name == '_foreach'][0]
        spec = decisions.plan_foreach(node.params, [(5, 2, 3), (2, 4), (4, 3)], ['float32'] * 3,
                                      True, np)
        spec.hoist is not None   # True: x's projection is hoisted
    """
    n_d, n_s = len(p.in_data_locs), len(p.in_state_locs)
    large = _large(_first_dim(shapes[n_d]) if n_s else 0, _first_dim(shapes[0]) if n_d else 0)
    # the rewritten loop has the node's steps and state rows
    hoist = foreach_hoist(p, lambda q: _foreach_spec(q, large))
    return _foreach_spec(p, large, hoist)


def _foreach_spec(p, large, hoist=None):
    free = set(p.remain_locs)
    layout = [j for j in _fc_weight_inputs(p["_subgraphs"][0]) if j in free] if large else ()
    return LoopSpec("_foreach", p, hoist=hoist, weight_layout=layout)


def plan_while(p, shapes, dtypes, is_train, xp):
    """The decisions for a `_while_loop` node with input shapes `shapes`.

    Args:
        p: the loop node's params (its `Params`, with the bodies in ``_subgraphs``).
        shapes: the node's input shapes.
        dtypes: the node's input dtypes (not read).
        is_train: whether the plan is compiled for training (not read).
        xp: the array module (numpy or cupy).

    Returns:
        A `LoopSpec` for '_while_loop'.

    Example::

        from gluonlite.control_flow.lowering import decisions
        from gluonlite.symbol.symbol import topo_nodes
        from gluonlite.control_flow.lowering.counting import find_counter
        i, s = sym.var('i'), sym.var('s')
        out, _ = sym.contrib.while_loop(lambda i, s: i < 3, lambda i, s: (s * 2, [i + 1, s + 1]),
                                        [i, s], max_iterations=5)
        node = [n for n in topo_nodes(out.outputs) if n.op and n.op.name == '_while_loop'][0]
        decisions.plan_while(node.params, [(1,), (2,)], ['float32'] * 2, False, np)
        # LoopSpec(_while_loop: counted (loop var 0), defer_sums)
    """
    var_shapes = [shapes[p.func_input_locs[j]] for j in p.func_var_locs]
    rows = max((s[0] for s in var_shapes if s is not None and len(s) > 1), default=0)
    large = _large(rows, p.max_iterations)
    # the rewritten loop has the node's loop vars
    hoist = while_hoist(p, lambda q: _while_spec(q, var_shapes, large))
    return _while_spec(p, var_shapes, large, hoist)


def _while_spec(p, var_shapes, large, hoist=None):
    roles = WhileRoles(p)
    counter = find_counter(p)
    # Counter values are computed for a one-element counter only.
    if counter is not None and (var_shapes[counter.k] is None or
                                int(np.prod(var_shapes[counter.k])) != 1):
        counter = None
    layout = [roles.func[j][1] for j in _fc_weight_inputs(p["_subgraphs"][1])
              if roles.func[j][0] == "in"] if large else ()
    return LoopSpec("_while_loop", p, hoist=hoist, counter=counter, weight_layout=layout,
                    roles=roles)


def plan_cond(p, shapes, dtypes, is_train, xp):
    """The decisions for a `_cond` node: nothing beyond its branches' plans compiled with
    static alloc and kept on the step (`runtime.LoopRuntime`).

    Args:
        p: the loop node's params (its `Params`, with the bodies in ``_subgraphs``).
        shapes: the node's input shapes.
        dtypes: the node's input dtypes.
        is_train: whether the plan is compiled for training.
        xp: the array module (numpy or cupy).

    Returns:
        A `LoopSpec` for '_cond'.

    Example::

        from gluonlite.control_flow.lowering import decisions
        from gluonlite.symbol.symbol import topo_nodes
        x = sym.var('x'); y = sym.contrib.cond(x.sum() > 0, lambda: x * 2, lambda: x - 1)
        node = [n for n in topo_nodes(y.outputs) if n.op and n.op.name == '_cond'][0]
        decisions.plan_cond(node.params, [(2,)], ['float32'], False, np)
        # LoopSpec(_cond: defer_sums)
    """
    return LoopSpec("_cond", p)
