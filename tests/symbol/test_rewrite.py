"""`gluonlite.symbol.rewrite`: replacing entries of a graph and counting their readers."""
from gluonlite import sym
from gluonlite.ops.registry import get
from gluonlite.symbol.rewrite import entry_uses, substitute
from gluonlite.symbol.symbol import Node, topo_nodes


def _names(symbol):
    return [n.name for n in topo_nodes(symbol.outputs) if n.op is not None]


def test_a_replacement_built_on_the_old_graph_reads_the_new_one():
    """Two tanh nodes in a chain, each replaced by a sigmoid built on the old graph's
    entries: the second replacement must read the first, so nothing of the old graph stays."""
    x = sym.var("x")
    t1 = sym.tanh(x, name="t1")
    t2 = sym.tanh(t1 * 2, name="t2")
    y = t2 + 1
    sig = get("sigmoid")
    mapping = {}
    for n in topo_nodes(y.outputs):
        if n.op is not None and n.op.name == "tanh":
            mapping[(id(n), 0)] = (Node(sig, "s" + n.name, {}, sig.parse({})[0],
                                        list(n.inputs), n.source), 0)
    new = substitute(y, mapping)
    names = _names(new)
    assert "t1" not in names and "t2" not in names
    assert names.count("st1") == 1 and names.count("st2") == 1
    assert new.list_inputs() == ["x"]


def test_entry_uses_counts_node_inputs_and_graph_outputs():
    x = sym.var("x")
    t = sym.tanh(x)
    y = sym.Group([t + t, t])
    uses = entry_uses(y)
    assert uses[(id(t.outputs[0][0]), 0)] == 3
    assert uses[(id(x.outputs[0][0]), 0)] == 1
