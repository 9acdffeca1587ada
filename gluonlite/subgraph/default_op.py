"""`_default_subgraph_op`: the node that runs one partitioned subgraph, and the built-in
``'default'`` backend that creates it.

The node holds its subgraph in ``params['_subgraphs'][0]`` (a Symbol). Its inputs are the
subgraph's variables in ``list_inputs()`` order and its outputs the subgraph's outputs. It
runs the subgraph as a nested compiled plan (`gluonlite.executor.plan.compile_plan`), forward
and backward; being ``stateful``, its last (hidden) output carries the nested plan and its
saved values from the forward to the vjp. Every rule of the operator is in this file.
"""
from ..ops import registry
from ..ops.registry import Operator, Params, Rules, Signature, Traits
from ..symbol.symbol import Node, topo_nodes
from .property import SubgraphProperty
from .registry import register_subgraph_property
from .selector import ContainOpSelector
from ..executor.infer import infer_graph
from ..executor.plan import compile_plan

__all__ = ["DEFAULT_SUBGRAPH_OP", "CACHED_OP", "DefaultSubgraphProperty",
           "default_subgraph_node"]

OP_NAME = "_default_subgraph_op"


class _Meta:
    """What the rules need from the subgraph, computed once per subgraph object."""

    __slots__ = ("sub", "vars", "input_names", "output_names", "aux_mask", "grad_inputs")

    def __init__(self, sub):
        self.sub = sub
        self.vars = [n for n in topo_nodes(sub.outputs) if n.op is None]
        names = [v.name for v in self.vars]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"{OP_NAME}: the subgraph has several variables named {dup}; "
                             "subgraph input names must be unique")
        aux = set(sub.list_auxiliary_states())
        self.input_names = names
        self.output_names = sub.list_outputs()
        # the inputs that are auxiliary states inside (a BatchNorm's moving statistics) are
        # auxiliary states of the node too, so a partitioned graph lists the same ones
        self.aux_mask = [n in aux for n in names]
        self.grad_inputs = [not a for a in self.aux_mask]


def subgraph_meta(p):
    """The `_Meta` of params `p` (cached on `p`).

    Raises:
        ValueError: `p` holds no subgraph.

    Example::

        from gluonlite.subgraph.default_op import subgraph_meta
        node = mx.subgraph.default_subgraph_node(sym.exp(sym.var('a')), 0)
        subgraph_meta(node.params).input_names   # ['a']
    """
    subs = p.get("_subgraphs") or []
    if not subs:
        raise ValueError(f"{OP_NAME}: the node holds no subgraph (params['_subgraphs'] is "
                         "empty); create it with default_subgraph_node(symbol, id)")
    meta = p.get("_meta")
    if meta is None or meta.sub is not subs[0]:
        meta = p["_meta"] = _Meta(subs[0])
    return meta


def _input_names(p):
    return subgraph_meta(p).input_names


def _n_visible(p):
    return len(subgraph_meta(p).output_names)


class _State:
    """Per-call state handed from the forward to the vjp (the op's hidden last output)."""

    __slots__ = ("plan", "saved")

    def __init__(self, plan, saved):
        self.plan, self.saved = plan, saved


def _plan(p, rc, xs, is_train, grad):
    meta = subgraph_meta(p)
    shapes = tuple(tuple(x.shape) for x in xs)
    dtypes = tuple(x.dtype for x in xs)
    key = (shapes, dtypes, bool(is_train), bool(grad), rc.xp.__name__)
    plans = p.setdefault("_plans", {})
    plan = plans.get(key)
    if plan is None:
        plan = plans[key] = compile_plan(meta.sub, list(shapes), list(dtypes), is_train,
                                         meta.grad_inputs if grad else None, False, rc.xp)
    return plan


def _kernel(p, rc, *xs):
    """Run the subgraph (a nested compiled plan) on the inputs; in training mode keep what its
    backward needs in the hidden state output."""
    plan = _plan(p, rc, xs, rc.is_train, rc.is_train)
    outs, saved = plan.forward(list(xs))
    return (*outs, _State(plan, saved))


def _vjp(p, rc, xs, ys, gys, need):
    state = ys[-1]
    plan, saved = state.plan, state.saved
    if saved is None:
        # An inference forward kept nothing: run it again, keeping values this time (without
        # training mode, so BatchNorm statistics do not move twice).
        plan = _plan(p, rc, xs, rc.is_train, True)
        _, saved = plan.forward(list(xs))
    grads = plan.backward(saved, list(gys[:len(ys) - 1]))
    return [g if want else None for g, want in zip(grads, need)]


def _infer(p, known, what):
    meta = subgraph_meta(p)
    given = {v.name: k for v, k in zip(meta.vars, known) if k is not None}
    if what == "shape":
        values, _ = infer_graph(meta.sub, given, None, None, what="shape")
    else:
        _, values = infer_graph(meta.sub, None, given, None, what="dtype")
    ins = [values.get((id(v), 0)) for v in meta.vars]
    outs = [values.get((id(n), i)) for n, i in meta.sub.outputs]
    return ins, outs


def _infer_back(p, ins, outs):
    """The inputs' shapes from what is known of the inputs and the outputs: the subgraph's
    inference run from both ends (a weight known only through the convolution that reads
    the subgraph's output)."""
    meta = subgraph_meta(p)
    given = {v.name: k for v, k in zip(meta.vars, ins) if k is not None}
    values, _ = infer_graph(meta.sub, given, None, None, output_shapes=outs, what="shape")
    return [values.get((id(v), 0)) for v in meta.vars]


def _signature(full_output_names):
    return Signature(_input_names, lambda p: _n_visible(p) + 1, visible=_n_visible,
                     output_names=lambda p: subgraph_meta(p).output_names, call_order=(),
                     aux=lambda p: subgraph_meta(p).aux_mask,
                     full_output_names=full_output_names)


# The rules of a node running its subgraph, and its traits: the hidden last output is the run
# kept for the vjp.
_RULES = Rules(_kernel, _vjp, shape=(lambda p, ins: _infer(p, ins, "shape"), _infer_back),
               dtype=lambda p, ins: _infer(p, ins, "dtype"))
_TRAITS = Traits(stateful=True)

# The output names are the subgraph's own full names ("exp0_output"), so that a partitioned
# symbol lists the same outputs as the original (Symbol.list_outputs uses them as they are,
# without the node-name prefix).
DEFAULT_SUBGRAPH_OP = Operator(
    OP_NAME, _signature(full_output_names=True), _RULES, _TRAITS,
    doc="_default_subgraph_op(*inputs): run the subgraph in params['_subgraphs'][0] on the "
        "inputs (its variables, in list_inputs() order); returns its outputs.")
if not registry.exists(OP_NAME):
    registry.add(DEFAULT_SUBGRAPH_OP)

# `_CachedOp`: a hybridized call as `autograd.get_symbol` shows it when its graph is above the
# block's inline_limit. The same rules as the node above; as in MXNet, its outputs are named
# after the node and the subgraph's outputs ("node_0_dense0_fwd_output").
CACHED_OP = Operator(
    "_CachedOp", _signature(full_output_names=False), _RULES, _TRAITS,
    doc="_CachedOp(*inputs): a hybridized block's call recorded by autograd; runs the graph "
        "in params['_subgraphs'][0] on the inputs (its variables, in list_inputs() order).")
if not registry.exists(CACHED_OP.name):
    registry.add(CACHED_OP)


def default_subgraph_node(symbol, subgraph_id, prefix=OP_NAME):
    """A `_default_subgraph_op` node running `symbol`, named ``{prefix}{subgraph_id}``, with
    no inputs yet (the partition pass connects them).

    Args:
        symbol: the `Symbol` of the subgraph the node runs.
        subgraph_id: the subgraph's number (an int), appended to the name.
        prefix: default '_default_subgraph_op': the start of the node name.

    Returns:
        A Node of operator `_default_subgraph_op` without inputs.

    Example::

        node = mx.subgraph.default_subgraph_node(sym.exp(sym.var('a')), 0)
        node.name   # '_default_subgraph_op0'
    """
    return Node(registry.get(OP_NAME), f"{prefix}{subgraph_id}", {},
                Params({"_subgraphs": [symbol]}), [], "")


class DefaultSubgraphProperty(SubgraphProperty):
    """The ``'default'`` backend: groups connected nodes whose operator is in the
    ``op_names`` attribute (none when unset) into `_default_subgraph_op` nodes.

    Example::

        prop = mx.subgraph.DefaultSubgraphProperty().set_attr('op_names', ['exp'])
        type(prop.create_subgraph_selector()).__name__   # 'ContainOpSelector'
    """

    def create_subgraph_selector(self):
        """A `ContainOpSelector` over ``op_names``.

        Example::

            prop = mx.subgraph.DefaultSubgraphProperty().set_attr('op_names', ['exp'])
            sel = prop.create_subgraph_selector()   # selects exp nodes
        """
        return ContainOpSelector(self.get_attr("op_names", []))

    def create_subgraph_node(self, symbol, subgraph_id):
        """`default_subgraph_node(symbol, subgraph_id)`.

        Args:
            symbol: the `Symbol` of the subgraph the node runs.
            subgraph_id: the subgraph's number, appended to the node name.

        Returns:
            A `_default_subgraph_op` Node without inputs.

        Example::

            prop = mx.subgraph.DefaultSubgraphProperty()
            prop.create_subgraph_node(sym.exp(sym.var('a')), 1).name   # '_default_subgraph_op1'
        """
        return default_subgraph_node(symbol, subgraph_id)


register_subgraph_property("default", DefaultSubgraphProperty)
# MXNet 1.9.1's second default backend: the same grouping, written on its newer selector API
register_subgraph_property("default_v2", DefaultSubgraphProperty)
