"""The graph as text: one node per line, loop and branch bodies indented under their node."""
from .symbol import topo_nodes


def graph_str(symbol, shapes=None, indent=""):
    """Lines ``name = op(inputs) attrs`` for every node; `shapes` maps entry name -> shape.

    Args:
        symbol: the Symbol whose graph to print.
        shapes: {entry name: shape}; passed down to the subgraphs but not printed by this
            version (default None).
        indent: the text put before every line (default ''; subgraphs add 4 spaces).

    Returns:
        str: the lines, the last one ``outputs: ...`` naming the outputs.

    Example::

        from gluonlite.symbol.printing import graph_str
        print(graph_str(sym.relu(sym.var('x'), name='r')))
        # x = var
        # r = relu(x)
        # outputs: r_output
    """
    lines = []
    for n in topo_nodes(symbol.outputs):
        if n.op is None:
            lines.append(f"{indent}{n.name} = var{_attr_str(n.attrs)}")
            continue
        ins = ", ".join(src.name if src.num_outputs() == 1 else f"{src.name}[{i}]"
                        for src, i in n.inputs)
        attrs = {k: v for k, v in n.attrs.items() if not k.startswith("__")}
        lines.append(f"{indent}{n.name} = {n.op.name}({ins}){_attr_str(attrs)}")
        for j, sub in enumerate(n.subgraphs):
            lines.append(f"{indent}  subgraph {j}:")
            lines.append(graph_str(sub, shapes, indent + "    "))
    outs = ", ".join(symbol.list_outputs())
    lines.append(f"{indent}outputs: {outs}")
    return "\n".join(lines)


def _attr_str(attrs):
    return (" {" + ", ".join(f"{k}={v}" for k, v in attrs.items()) + "}") if attrs else ""
