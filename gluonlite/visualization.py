"""MXNet's `mxnet.visualization` (``mx.viz``): a graph as a table (`print_summary`) or as a
Graphviz drawing (`plot_network`, which needs the optional ``graphviz`` package).

Example::

    import gluonlite as mx
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc1")
    mx.viz.print_summary(net, shape={"data": (2, 3)})
"""
import warnings

import numpy as np

from .symbol import Symbol

__all__ = ["print_summary", "plot_network", "Symbol"]


def _check_symbol(fname, symbol):
    if not isinstance(symbol, Symbol):
        raise TypeError(f"{fname}: symbol must be a Symbol, got {type(symbol).__name__}")


def _shapes(symbol, shape):
    """{(node name, output index): shape} of every entry of the graph, from input `shape`s."""
    internals = symbol.get_internals()
    _, out_shapes, _ = internals.infer_shape_partial(**shape)
    return {(n.name, i): tuple(s) for (n, i), s in zip(internals.outputs, out_shapes)}


def _layers(symbol, shape):
    """The rows of the summary: the graph's operator nodes (and its data inputs) in order,
    with their inputs split into layers and parameters."""
    nodes = symbol._nodes()
    aux = symbol._aux_ids()
    inputs = set(shape or ()) | {nodes[0].name}
    consumed_by_op = {}
    for n in nodes:
        for src, _ in n.inputs:
            consumed_by_op.setdefault(id(src), n)
    heads = {id(n) for n, _ in symbol.outputs}
    rows = []
    for n in nodes:
        if n.op is None and n.name not in inputs and id(n) not in heads:
            continue
        prev, params = [], []
        for src, _ in n.inputs:
            if src.op is not None or src.name in inputs:
                prev.append(src.name)
            elif id(src) not in aux:
                params.append(src)
        rows.append((n, prev, params))
    return rows


def print_summary(symbol, shape=None, line_length=120, positions=(.44, .64, .74, 1.)):
    """Print a table of the graph's layers: name (operator), output shape (batch axis
    left out), number of parameters, and the layers that feed it.

    A layer's parameters are the variables it reads that are neither graph inputs named in
    `shape` nor auxiliary states (FullyConnected's weight and bias, BatchNorm's gamma and
    beta); their sizes come from shape inference. MXNet counts parameters only for
    Convolution, FullyConnected, BatchNorm and Embedding, by a formula of its own; the two
    agree on those, and here every other layer with parameters is counted too.

    Args:
        symbol: the Symbol to describe.
        shape: {input name: shape}; without it, shapes (and parameter counts that need
            them) are left blank.
        line_length: the width of the table.
        positions: where each of the four columns ends, as fractions of `line_length` (or
            in characters when the last one is more than 1).

    Raises:
        TypeError: `symbol` is not a Symbol.
        ValueError: `shape` that does not fit the graph (shape inference's error).

    Example::

        mx.viz.print_summary(net, shape={"data": (1, 3, 224, 224)})
    """
    _check_symbol("print_summary", symbol)
    shapes = _shapes(symbol, dict(shape)) if shape is not None else _shapes(symbol, {})
    positions = list(positions)
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    def row(fields):
        line = ""
        for field, end in zip(fields, positions):
            line = (line + str(field))[:end]
            line += " " * (end - len(line))
        print(line)

    print("_" * line_length)
    row(["Layer (type)", "Output Shape", "Param #", "Previous Layer"])
    print("=" * line_length)
    total = 0
    rows = _layers(symbol, shape)
    for k, (node, prev, params) in enumerate(rows):
        out = shapes.get((node.name, 0), ())
        count = 0
        for p in params:
            s = shapes.get((p.name, 0), ())
            if s and all(s):
                count += int(np.prod(s))
        total += count
        op = "null" if node.op is None else node.op.name
        shown = "x".join(str(d) for d in out[1:]) if out and all(out) else ""
        row([f"{node.name}({op})", shown, count, prev[0] if prev else ""])
        for p in prev[1:]:
            row(["", "", "", p])
        print(("=" if k == len(rows) - 1 else "_") * line_length)
    print(f"Total params: {total}")
    print("_" * line_length)


def plot_network(symbol, title="plot", save_format="pdf", shape=None, dtype=None,
                 node_attrs=None, hide_weights=True):
    """A Graphviz drawing of the graph (a ``graphviz.Digraph``): one box per operator, the
    data inputs as ovals, edges labelled with shapes when `shape` is given.

    Args:
        symbol: the Symbol to draw.
        title: the drawing's name.
        save_format: the file format ``render()`` writes ('pdf', 'png', ...).
        shape: {input name: shape}, to label the edges with shapes.
        dtype: {input name: dtype}, to label the edges with dtypes.
        node_attrs: Graphviz attributes for every node (``{"shape": "oval"}``).
        hide_weights: leave out variables named ``*_weight``, ``*_bias`` (and the other
            parameters: ``*_gamma``, ``*_beta``, ``*_moving_*``).

    Returns:
        A ``graphviz.Digraph``.

    Raises:
        TypeError: `symbol` is not a Symbol.
        ImportError: the ``graphviz`` Python package is not installed (``pip install
            graphviz``; rendering also needs Graphviz's ``dot`` program).

    Example::

        # not run: needs the graphviz package (and Graphviz's dot to render)
        net = sym.FullyConnected(sym.var("data"), num_hidden=2)
        mx.viz.plot_network(net, shape={"data": (1, 8)}).render()
    """
    _check_symbol("plot_network", symbol)
    try:
        import graphviz
    except ImportError as e:
        raise ImportError("plot_network: the graphviz Python package is required to draw a "
                          "graph and is not installed; install it with `pip install "
                          "graphviz` (rendering also needs Graphviz's `dot` program), or use "
                          "mx.viz.print_summary for a text table") from e
    names = [n.name for n in symbol._nodes() if n.op is None]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        # graphviz keys nodes by name: same-named variables become one node
        warnings.warn("plot_network: There are multiple variables with the same name in your "
                      f"graph ({', '.join(repeated)}); graphviz draws each name as one node, "
                      "so the drawing may show a cycle", stacklevel=2)
    shapes = _shapes(symbol, dict(shape)) if shape is not None else {}
    types = {}
    if dtype is not None:
        internals = symbol.get_internals()
        _, out_types, _ = internals.infer_type_partial(**dtype)
        types = {(n.name, i): t for (n, i), t in zip(internals.outputs, out_types)}
    attrs = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034",
             "style": "filled"}
    attrs.update(node_attrs or {})
    dot = graphviz.Digraph(name=title, format=save_format)
    hidden_suffixes = ("_weight", "_bias", "_gamma", "_beta", "_moving_mean", "_moving_var")
    shown = set()
    for node in symbol._nodes():
        if node.op is None:
            if hide_weights and node.name.endswith(hidden_suffixes):
                continue
            dot.node(name=node.name, label=node.name, **dict(attrs, shape="oval"))
        else:
            dot.node(name=node.name, label=f"{node.op.name}\n{node.name}", **attrs)
        shown.add(node.name)
        for src, i in node.inputs:
            if src.name not in shown:
                continue
            label = []
            if (src.name, i) in shapes:
                label.append("x".join(str(d) for d in shapes[(src.name, i)][1:]))
            if types.get((src.name, i)) is not None:
                label.append(np.dtype(types[(src.name, i)]).name)
            dot.edge(tail_name=node.name, head_name=src.name, label=" ".join(label),
                     dir="back", arrowtail="open")
    return dot
