"""`partition_graph`: replace the subgraphs a backend selects by one node each.

The pass (after MXNet's PartitionGraph):

1. Nodes are numbered in topological order. Each node not yet in a subgraph that the
   selector's `select` accepts seeds a subgraph, which grows breadth-first through
   `select_input` / `select_output` (variables never join).
2. If a path leaves the candidate set and re-enters it (through plain nodes or through
   subgraphs found earlier, each counting as one node), the latest node on such a path
   (never the seed) is excluded and the growth restarts, until no cycle is left.
3. `filter` has the last word; what it keeps is split into connected parts, and each part
   is checked again before it is accepted: for a cycle (a dropped node can open one), and
   for the order of ``list_inputs()`` (contracting a part must not make the graph reach a
   variable earlier than before, e.g. one read between two of the part's inputs). A part
   that fails loses its latest node on the cycle (or its latest node) and is re-split.
   Nodes dropped in steps 2 and 3 stay free to seed or join later subgraphs.
4. Each subgraph becomes a Symbol whose variables stand for its distinct input entries and
   whose outputs are the distinct entries that the rest of the graph (or the graph's heads)
   reads; the backend's `create_subgraph_node` gives the replacing node, whose inputs are
   connected in the subgraph's ``list_inputs()`` order and whose outputs are rewired.

So a partitioned symbol keeps the inputs, arguments, auxiliary states and outputs of the
original, in order, and never has a cycle between a subgraph and the rest of the graph.

The original symbol is not modified: the result is built from copies of its nodes.
"""
from ..symbol.symbol import Node, Symbol, topo_nodes
from .default_op import default_subgraph_node
from .grouping import IndexedGraph, find_groups
from .registry import create_subgraph_property

__all__ = ["partition_graph", "partition_with"]


def partition_graph(symbol, backend, op_names=None):
    """Partition `symbol` with the registered backend `backend`.

    Args:
        symbol: the Symbol to partition (left unchanged).
        backend: a name registered with `register_subgraph_property` (``'default'`` is
            built in).
        op_names: operator names for the backend's ``op_names`` attribute (the ``'default'``
            backend groups exactly these); None uses what `set_subgraph_property_op_names`
            gave the backend, if anything.

    Returns:
        A Symbol with the same `list_inputs`, `list_arguments`, `list_auxiliary_states` and
        outputs, computing the same values; `symbol` itself when nothing is selected.

    Raises:
        TypeError: `symbol` is not a Symbol; `op_names` is a bare string.
        ValueError: an unknown backend (the registered ones are listed) or operator name; a
            `filter` that returned a node it was not given; a backend node whose outputs do
            not match its subgraph.
        RuntimeError: a selector raised (the message names the node it was looking at).

    Example::

        x = sym.var('x')
        y = sym.tanh(sym.exp(x)) + x
        p = mx.subgraph.partition_graph(y, 'default', ['exp', 'tanh'])
        # p: _default_subgraph_op0(x) -> elemwise_add(., x)
    """
    if not isinstance(symbol, Symbol):
        raise TypeError(f"partition_graph: symbol must be a Symbol, got "
                        f"{type(symbol).__name__}")
    return partition_with(symbol, create_subgraph_property(backend, op_names), backend)


def partition_with(symbol, prop, backend):
    """`partition_graph` with a backend instance made by the caller (settings that only the
    caller knows, such as the graph's inferred shapes, set on it); `backend` names it in
    messages.

    Args:
        symbol: the `Symbol` to partition.
        prop: the backend's `SubgraphProperty` instance.
        backend: the backend's name, used in messages.

    Returns:
        A `Symbol` with each subgraph found replaced by the node `prop.create_subgraph_node` makes;
        `symbol` itself when none is found.

    Raises:
        RuntimeError: a selector raised (see `ask`).
        ValueError: a selector's `filter` returned a node not among its candidates.

    Example::

        from gluonlite.subgraph.partition import partition_with
        x = sym.var('x'); y = sym.tanh(sym.exp(x)) + x
        prop = mx.subgraph.DefaultSubgraphProperty().set_attr('op_names', ['exp', 'tanh'])
        p = partition_with(y, prop, 'default')   # as partition_graph(y, 'default', [...])
    """
    prop.pre_partition(symbol)
    g = IndexedGraph(symbol)
    touch = _touch_order(symbol)
    want = symbol.list_inputs()

    def keeps_input_order(groups, piece=None):
        # The structure alone decides the order, so placeholder nodes will do.
        trial = _rebuild(g, groups + ([piece] if piece else []), touch, default_subgraph_node)
        return trial.list_inputs() == want

    # Grouping almost never reorders the inputs, and checking each piece rebuilds the whole
    # graph (seconds on a network of hundreds of chains), so the groups are found first and
    # checked once; only when that check fails are they found again, piece by piece.
    groups = find_groups(g, prop, backend)
    if groups and not keeps_input_order(groups):
        groups = find_groups(g, prop, backend, keeps_input_order)
    if not groups:
        return symbol
    return _rebuild(g, groups, touch, _backend_node(prop, backend))


def _backend_node(prop, backend):
    def make(sub, subgraph_id):
        node = prop.create_subgraph_node(sub, subgraph_id)
        if not isinstance(node, Node) or node.op is None:
            raise TypeError(f"partition_graph(backend={backend!r}): "
                            f"{type(prop).__name__}.create_subgraph_node must return an "
                            f"operator Node, got {node!r}")
        if node.num_visible() != len(sub.outputs):
            raise ValueError(f"partition_graph(backend={backend!r}): node {node.name!r} "
                             f"({node.op.name}) has {node.num_visible()} outputs but its "
                             f"subgraph has {len(sub.outputs)} ({sub.list_outputs()})")
        return node
    return make


def _touch_order(symbol):
    """{(id(node), index): n}: the order in which the depth-first walk of `topo_nodes` first
    reaches each entry. Subgraph outputs in this order make the new graph's walk visit the
    inputs in the original order whenever that is possible."""
    touch = {}
    topo_nodes(symbol.outputs, lambda node, k: touch.setdefault((id(node), k), len(touch)))
    return touch


def _entry_name(node, k):
    if node.op is None:
        return node.name
    names = node.op.output_names(node.params)
    return f"{node.name}_{names[k] if k < len(names) else f'output{k}'}"


def _rebuild(g, groups, touch, make_node):
    """The partitioned Symbol: `groups` (lists of node positions) replaced by nodes from
    `make_node(subgraph_symbol, subgraph_id)`."""
    group_of = {j: gid for gid, grp in enumerate(groups) for j in grp}
    new_entry = {}  # (position, output index) in the old graph -> entry in the new graph
    for unit in _unit_order(g, groups, group_of):
        if isinstance(unit, tuple):
            gid = unit[1]
            _contract(g, groups[gid], gid, touch, new_entry, make_node)
        else:
            n = g.nodes[unit]
            ins = [new_entry[(g.index[id(s)], k)] for s, k in n.inputs]
            copy = Node(n.op, n.name, n.attrs, n.params, ins, n.source)
            for k in range(max(n.num_outputs(), 1)):
                new_entry[(unit, k)] = (copy, k)
    return Symbol([new_entry[(g.index[id(n)], k)] for n, k in g.symbol.outputs])


def _unit_order(g, groups, group_of):
    """Plain nodes (positions) and groups (``('g', id)``) in an order where every unit comes
    after the units it reads from (Kahn's algorithm, earliest node first)."""
    import heapq
    unit_of = [('g', group_of[j]) if j in group_of else j for j in range(len(g))]
    first = {u: (min(groups[u[1]]) if isinstance(u, tuple) else u) for u in set(unit_of)}
    deps = {u: set() for u in first}
    users = {u: set() for u in first}
    for j in range(len(g)):
        for p in g.preds[j]:
            a, b = unit_of[p], unit_of[j]
            if a != b:
                deps[b].add(a)
                users[a].add(b)
    heap = [(first[u], i, u) for i, u in enumerate(first) if not deps[u]]
    heapq.heapify(heap)
    order, tie = [], len(first)
    while heap:
        _, _, u = heapq.heappop(heap)
        order.append(u)
        for v in users[u]:
            deps[v].discard(u)
            if not deps[v]:
                tie += 1
                heapq.heappush(heap, (first[v], tie, v))
    if len(order) != len(first):
        raise RuntimeError("partition_graph: the partitioned graph has a cycle (a bug in the "
                           "cycle check); please report the graph")
    return order


def _contract(g, members, gid, touch, new_entry, make_node):
    """Build subgraph `gid` from `members`, make its node, and record its outputs in
    `new_entry`."""
    inside = set(members)
    ext, names, inner = {}, set(), {}
    for m in members:
        n = g.nodes[m]
        ins = []
        for s, k in n.inputs:
            p = g.index[id(s)]
            if p in inside:
                ins.append((inner[p], k))
                continue
            if (p, k) not in ext:
                ext[(p, k)] = Node(None, _unique(_entry_name(s, k), names))
            ins.append((ext[(p, k)], 0))
        inner[m] = Node(n.op, n.name, n.attrs, n.params, ins, n.source)
    outs = set()
    for m in members:
        for c in g.succs[m]:
            if c not in inside:
                outs.update((m, k) for s, k in g.nodes[c].inputs if g.index[id(s)] == m)
    for n, k in g.symbol.outputs:
        if g.index[id(n)] in inside:
            outs.add((g.index[id(n)], k))
    outs = sorted(outs, key=lambda e: touch[(id(g.nodes[e[0]]), e[1])])
    sub = Symbol([(inner[m], k) for m, k in outs])
    node = make_node(sub, gid)
    var_key = {id(v): key for key, v in ext.items()}
    node.inputs = [new_entry[var_key[id(v)]]
                   for v in topo_nodes(sub.outputs) if v.op is None]
    for pos, e in enumerate(outs):
        new_entry[e] = (node, pos)


def _unique(name, taken):
    new, i = name, 0
    while new in taken:
        new, i = f"{name}{i}", i + 1
    taken.add(new)
    return new
