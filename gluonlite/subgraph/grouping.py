"""Finding the subgraphs: seeds, breadth-first growth, filtering, and cycle breaking.

Nodes are numbered in topological order (``topo_nodes``). Subgraphs already accepted count
as single "units" when looking for cycles, since each will become one node: a candidate is
acceptable only when no path leaves it and comes back into it, through plain nodes or through
other subgraphs.
"""
from collections import deque

from ..symbol.symbol import topo_nodes

__all__ = ["IndexedGraph", "Units", "components", "break_cycles", "find_groups", "ask"]


class IndexedGraph:
    """The nodes of a symbol in topological order with input and consumer lists by index.

    Attributes:
        nodes: the nodes (inputs before users).
        index: {id(node): position}.
        preds: per node, the positions of its input nodes (distinct, in input order).
        succs: per node, the positions of its consumers (distinct, ascending).

    Args:
        symbol: the `Symbol` whose nodes are indexed.

    Example::

        from gluonlite.subgraph.grouping import IndexedGraph
        x = sym.var('x'); g = IndexedGraph(sym.tanh(sym.exp(x)) + x)   # x, exp, tanh, +
        g.preds, g.succs   # ([[], [0], [1], [2, 0]], [[1, 3], [2], [3], []])
    """

    def __init__(self, symbol):
        self.symbol = symbol
        self.nodes = topo_nodes(symbol.outputs)
        self.index = {id(n): i for i, n in enumerate(self.nodes)}
        self.preds = []
        succs = [set() for _ in self.nodes]
        for i, n in enumerate(self.nodes):
            ps = list(dict.fromkeys(self.index[id(s)] for s, _ in n.inputs))
            self.preds.append(ps)
            for p in ps:
                succs[p].add(i)
        self.succs = [sorted(s) for s in succs]

    def __len__(self):
        return len(self.nodes)


def _describe(node):
    return f"{node.name!r} ({'variable' if node.op is None else 'op ' + node.op.name})"


def ask(backend, selector, method, node, other=None, relation=None):
    """Call ``selector.method(node[, other])`` and return its answer as a bool.

    Args:
        backend: the backend's name, for the message.
        selector: the backend's selector.
        method: the name of the selector method to call ('select', 'select_input', 'select_output').
        node: the node the selector looks at.
        other: default None: the neighbour node, passed as the second argument when given.
        relation: default None: what `other` is to `node` ('input', 'output'), for the message.

    Returns:
        The selector's answer, as a bool.

    Raises:
        RuntimeError: the selector raised; the message names the backend, the method, the
            node it was looking at (and the neighbour) and the original error.

    Example::

        from gluonlite.subgraph.grouping import IndexedGraph
        x = sym.var('x'); g = IndexedGraph(sym.tanh(sym.exp(x)) + x)   # x, exp, tanh, +
        from gluonlite.subgraph.grouping import ask
        sel = mx.subgraph.ContainOpSelector(['exp'])
        ask('default', sel, 'select', g.nodes[1])   # True
    """
    args = (node,) if other is None else (node, other)
    try:
        return bool(getattr(selector, method)(*args))
    except Exception as e:  # a user selector's bug, reported with the node it looked at
        where = f"node {_describe(node)}"
        if other is not None:
            where += f" and its {relation} {_describe(other)}"
        raise RuntimeError(f"partition_graph(backend={backend!r}): {type(selector).__name__}."
                           f"{method} raised {type(e).__name__}: {e} while looking at "
                           f"{where}") from e


class Units:
    """Reachability on the graph where each accepted subgraph is contracted to one unit.

    Args:
        g: the `IndexedGraph`.
        group_of: per node position, its group (-1 for none); shared, updated by the caller.
        groups: the accepted groups (lists of positions); shared, appended to by the caller.

    Example::

        from gluonlite.subgraph.grouping import IndexedGraph, Units
        x = sym.var('x'); a = sym.exp(x); y = a + sym.sin(a)   # x, exp, sin, +
        g = IndexedGraph(y); units = Units(g, [-1] * len(g), [])
        units.cycle({1, 3})   # ({3}, {1}): exp -> sin -> + leaves {exp, +} and returns
    """

    def __init__(self, g, group_of, groups):
        self.g, self.group_of, self.groups = g, group_of, groups
        self.n = len(g)

    def unit(self, i):
        """Node `i`'s unit: `i` itself, or ``len(graph) + group`` for a grouped node.

        Example::

            from gluonlite.subgraph.grouping import IndexedGraph, Units
            x = sym.var('x'); g = IndexedGraph(sym.tanh(sym.exp(x)))   # x, exp, tanh
            units = Units(g, [-1, 0, 0], [[1, 2]])   # exp and tanh form group 0
            units.unit(0), units.unit(1)   # (0, 3)
        """
        grp = self.group_of[i]
        return i if grp < 0 else self.n + grp

    def _members(self, u):
        return (u,) if u < self.n else self.groups[u - self.n]

    def _reach(self, starts, inside, forward):
        seen, q = set(starts), deque(starts)
        while q:
            u = q.popleft()
            for m in self._members(u):
                for j in (self.g.succs[m] if forward else self.g.preds[m]):
                    if j in inside:
                        continue
                    v = self.unit(j)
                    if v != u and v not in seen:
                        seen.add(v)
                        q.append(v)
        return seen

    def cycle(self, cand):
        """The nodes of `cand` (a set of plain node positions) on a path that leaves `cand`
        and re-enters it, as (re-entry nodes, exit nodes); None when there is none.

        Example::

            from gluonlite.subgraph.grouping import IndexedGraph, Units
            x = sym.var('x'); a = sym.exp(x); y = a + sym.sin(a)   # x, exp, sin, +
            g = IndexedGraph(y); units = Units(g, [-1] * len(g), [])
            units.cycle({1, 3})   # ({3}, {1})
            units.cycle({1, 2})   # None
        """
        g = self.g
        exits_to = {s: [c for c in g.succs[s] if c not in cand] for s in cand}
        enters_from = {s: [p for p in g.preds[s] if p not in cand] for s in cand}
        starts = {self.unit(c) for cs in exits_to.values() for c in cs}
        reach = self._reach(starts, cand, forward=True)
        reentry = {s for s, ps in enters_from.items() if any(self.unit(p) in reach for p in ps)}
        if not reentry:
            return None
        back = self._reach({self.unit(p) for ps in enters_from.values() for p in ps}, cand,
                           forward=False)
        on_cycle = reach & back
        exits = {s for s, cs in exits_to.items() if any(self.unit(c) in on_cycle for c in cs)}
        return reentry, exits


def components(g, members):
    """`members` (positions) split into weakly connected parts, each sorted, ordered by their
    first node.

    Args:
        g: the `IndexedGraph`.
        members: node positions in `g`.

    Returns:
        A list of sorted lists of positions.

    Example::

        from gluonlite.subgraph.grouping import IndexedGraph
        x = sym.var('x'); g = IndexedGraph(sym.tanh(sym.exp(x)) + x)   # x, exp, tanh, +
        from gluonlite.subgraph.grouping import components
        components(g, [1, 3])   # [[1], [3]]: exp and + are not neighbours
    """
    left, parts = set(members), []
    for start in sorted(members):
        if start not in left:
            continue
        left.discard(start)
        part, q = [start], deque([start])
        while q:
            cur = q.popleft()
            for j in g.preds[cur] + g.succs[cur]:
                if j in left:
                    left.discard(j)
                    part.append(j)
                    q.append(j)
        parts.append(sorted(part))
    return parts


def break_cycles(units, part, accept, acceptable=None):
    """Split `part` until each piece is acceptable: no path leaves it and comes back, and
    `acceptable(piece)` (when given) agrees. The latest node on a cycle (or, for a piece
    `acceptable` refuses, the piece's latest node) is dropped and the rest re-split. Each
    good piece (a sorted list) goes to `accept(piece)` at once, so that later pieces see it
    contracted. Dropped nodes stay free to join later subgraphs.

    Args:
        units: the `Units` of the graph (its accepted groups contracted).
        part: the sorted list of node positions to split.
        accept: ``accept(piece)``: called with each good piece at once.
        acceptable: default None: ``acceptable(piece) -> bool`` refusing pieces; None accepts every
            piece without a cycle.

    Example::

        from gluonlite.subgraph.grouping import IndexedGraph, Units
        x = sym.var('x'); a = sym.exp(x); y = a + sym.sin(a)   # x, exp, sin, +
        g = IndexedGraph(y); units = Units(g, [-1] * len(g), [])
        from gluonlite.subgraph.grouping import break_cycles
        kept = []; break_cycles(units, [1, 3], kept.append)
        kept   # [[1]]: + was dropped to break the cycle through sin
    """
    todo = [part]
    while todo:
        cur = todo.pop(0)
        found = units.cycle(set(cur))
        if found is None and (acceptable is None or len(cur) == 1 or acceptable(cur)):
            accept(cur)
            continue
        drop = max(found[0] | found[1]) if found is not None else cur[-1]
        todo[:0] = components(units.g, [i for i in cur if i != drop])


def _grow(g, selector, backend, seed, joinable):
    """Breadth-first growth from `seed` through select_input / select_output."""
    chosen, q = {seed}, deque([seed])
    while q:
        cur = q.popleft()
        node = g.nodes[cur]
        for p in g.preds[cur]:
            if p not in chosen and joinable(p) and \
                    ask(backend, selector, "select_input", node, g.nodes[p], "input node"):
                chosen.add(p)
                q.append(p)
        for c in g.succs[cur]:
            if c not in chosen and joinable(c) and \
                    ask(backend, selector, "select_output", node, g.nodes[c], "output node"):
                chosen.add(c)
                q.append(c)
    return chosen


def _preselect(g, units, selector, backend, seed):
    """The candidate set of `seed`: grown, and regrown without the latest node on a cycle
    (never the seed) until no cycle is left."""
    excluded = set()

    def joinable(j):
        return g.nodes[j].op is not None and units.group_of[j] < 0 and j not in excluded

    while True:
        cand = _grow(g, selector, backend, seed, joinable)
        found = units.cycle(cand)
        if found is None:
            return sorted(cand)
        choices = (found[0] | found[1]) - {seed}
        if not choices:  # a lone seed cannot close a cycle in an acyclic graph
            raise RuntimeError(f"partition_graph: cycle through seed node "
                               f"{_describe(g.nodes[seed])} alone; the graph is not acyclic")
        excluded.add(max(choices))


def find_groups(g, prop, backend, acceptable=None):
    """The subgraphs of `g` for the backend `prop`: lists of node positions (sorted), in the
    order they are found. `acceptable(groups, piece)`, when given, may refuse a piece given
    the groups accepted so far (see `break_cycles`).

    Args:
        g: the `IndexedGraph` to partition.
        prop: the backend's `SubgraphProperty`, making a selector per seed.
        backend: the backend's name, for messages.
        acceptable: default None: ``acceptable(groups, piece) -> bool``.

    Returns:
        A list of groups, each a sorted list of node positions.

    Raises:
        RuntimeError: a selector raised (see `ask`).
        ValueError: `filter` returned a node that was not among its candidates.

    Example::

        from gluonlite.subgraph.grouping import IndexedGraph
        x = sym.var('x'); g = IndexedGraph(sym.tanh(sym.exp(x)) + x)   # x, exp, tanh, +
        from gluonlite.subgraph.grouping import find_groups
        prop = mx.subgraph.create_subgraph_property('default', ['exp', 'tanh'])
        find_groups(g, prop, 'default')   # [[1, 2]]: exp and tanh
    """
    group_of = [-1] * len(g)
    groups = []
    units = Units(g, group_of, groups)

    def accept(piece):
        for j in piece:
            group_of[j] = len(groups)
        groups.append(piece)

    for i, node in enumerate(g.nodes):
        if node.op is None or group_of[i] >= 0:
            continue
        selector = prop.create_subgraph_selector()
        if not ask(backend, selector, "select", node):
            continue
        cand = _preselect(g, units, selector, backend, i)
        kept = _filter(g, selector, backend, cand)
        ok = None if acceptable is None else (lambda piece: acceptable(groups, piece))
        for part in components(g, kept):
            break_cycles(units, part, accept, ok)
    return groups


def _filter(g, selector, backend, cand):
    nodes = [g.nodes[j] for j in cand]
    try:
        kept = selector.filter(list(nodes))
    except Exception as e:  # a user selector's bug, reported with its candidates
        names = ", ".join(_describe(n) for n in nodes)
        raise RuntimeError(f"partition_graph(backend={backend!r}): {type(selector).__name__}."
                           f"filter raised {type(e).__name__}: {e} while looking at the "
                           f"candidates {names}") from e
    allowed = {id(n): j for n, j in zip(nodes, cand)}
    out = []
    for n in kept:
        if id(n) not in allowed:
            what = _describe(n) if hasattr(n, "op") and hasattr(n, "name") else repr(n)
            raise ValueError(f"partition_graph(backend={backend!r}): "
                             f"{type(selector).__name__}.filter returned node {what}, which "
                             f"is not among its candidates; filter may only drop nodes")
        out.append(allowed[id(n)])
    return sorted(set(out))
