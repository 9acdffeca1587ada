"""Elementwise fusion: a graph pass that gathers neighbouring elementwise operators of one
shape into `_fused_elementwise` nodes (`gluonlite.ops.fused`), for plans on a device.

On a GPU each operator of a plan is at least one kernel launch, and the gate math of a
recurrent cell is a dozen small elementwise operators per step (three sigmoids, two tanh,
products and sums): at the sizes of a step their launches cost more than their arithmetic.
This pass, a partitioning backend on the subgraph API, selects the operators that have an
elementwise form (`Fast.elementwise`) for their params, whose float inputs and output all
have one shape (known from shape inference: the shapes the plan is compiled for) and one
dtype; the partitioner keeps the graph acyclic and its inputs in order. Each group becomes
one node whose device path is one kernel each way.

It runs where a plan is compiled for an array module that compiles kernels (CuPy) with
device kernels on (`gluonlite.ops.fast.device_kernels`): `compile_plan` applies it, so a
hybridized block's graph and every loop body's plan are fused alike, and the symbol a block
exports is unchanged.

Example::

    from gluonlite.subgraph import fuse_elementwise
    x = sym.var("x"); y = sym.tanh(sym.exp(x)) * x
    fused = fuse_elementwise(y, {"x": (2, 3)}, {"x": "float32"})
    'fused_elementwise0' in fused.tojson()   # True: exp, tanh and * are one node
"""
import numpy as np

from ..executor.hooks import register_device_pass
from ..executor.infer import infer_graph
from ..ops.fused import Program, elementwise_form
from ..ops.registry import get
from ..symbol.symbol import Node, topo_nodes
from .partition import partition_with
from .property import SubgraphProperty
from .selector import SubgraphSelector

__all__ = ["ElementwiseFusion", "fuse_elementwise"]


class _Fusable(SubgraphSelector):
    """Selects operators with an elementwise form whose inputs and output share one shape
    and one float dtype (`info`: {(id(node), output): (shape, dtype)})."""

    def __init__(self, info):
        self.info = info

    def _ok(self, node):
        if node.op is None or node.op.num_outputs(node.params) != 1 or \
                elementwise_form(node.op, node.params) is None:
            return False
        out = self.info.get((id(node), 0))
        if out is None or out[0] is None or np.dtype(out[1]).kind != "f":
            return False
        return all(self.info.get((id(s), k)) == out for s, k in node.inputs)

    def select(self, node):
        return self._ok(node)

    def select_input(self, node, input_node):
        return self._ok(input_node)

    def select_output(self, node, output_node):
        return self._ok(output_node)

    def filter(self, candidates):
        # one operator is one kernel either way
        return list(candidates) if len(candidates) > 1 else []


class ElementwiseFusion(SubgraphProperty):
    """The partitioning backend of `fuse_elementwise`.

    Args:
        info: {(id(node), output index): (shape, dtype)} of the graph to partition.

    Example::

        from gluonlite.subgraph import ElementwiseFusion
        prop = ElementwiseFusion()   # no shapes known: selects nothing
        prop.get_attr('info')   # {}
    """

    def __init__(self, info=None):
        super().__init__()
        self.set_attr("info", info or {})

    def create_subgraph_selector(self):
        return _Fusable(self.get_attr("info"))

    def create_subgraph_node(self, symbol, subgraph_id):
        inputs = [n for n in topo_nodes(symbol.outputs) if n.op is None]
        value = {id(v): k for k, v in enumerate(inputs)}
        steps = []
        for n in topo_nodes(symbol.outputs):
            if n.op is None:
                continue
            steps.append((n.op, n.params, [value[id(s)] for s, _ in n.inputs]))
            value[id(n)] = len(inputs) + len(steps) - 1
        name = f"fused_elementwise{subgraph_id}"
        prog = Program(len(inputs), steps, [value[id(n)] for n, _ in symbol.outputs], name)
        op = get("_fused_elementwise")
        params = op.parse({"num_args": len(inputs)})[0]
        params["program"] = prog
        return Node(op, name, {"num_args": str(len(inputs))}, params, [], None)


def fuse_elementwise(symbol, shapes, dtypes):
    """`symbol` with its fusable elementwise operators gathered into `_fused_elementwise`
    nodes (see the module docstring), or `symbol` itself when none are.

    Args:
        symbol: the graph.
        shapes: {input name: shape} of the inputs.
        dtypes: {input name: dtype} of the inputs.

    Returns:
        A Symbol with the same inputs and outputs, computing the same values.

    Example::

        x = sym.var('x'); y = sym.tanh(sym.exp(x)) + x
        fused = mx.subgraph.fuse_elementwise(y, {'x': (2, 3)}, {'x': 'float32'})
        fused.list_inputs()   # ['x']: exp, tanh and + are one node
    """
    eshape, edtype = infer_graph(symbol, shapes, dtypes)
    info = {key: (None if s is None else tuple(s), edtype.get(key))
            for key, s in eshape.items()}
    for n in topo_nodes(symbol.outputs):  # variables: their given shapes
        if n.op is None and n.name in shapes:
            info[(id(n), 0)] = (tuple(shapes[n.name]), np.dtype(dtypes[n.name]))
    info = {k: (s, None if d is None else np.dtype(d)) for k, (s, d) in info.items()}
    return partition_with(symbol, ElementwiseFusion(info), "fused_elementwise")


register_device_pass(fuse_elementwise)
