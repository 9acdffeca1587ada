"""MXNet 1.9.1's graph operators for DGL (``nd.contrib.edge_id``, ``dgl_adjacency``,
``dgl_subgraph``, ``dgl_graph_compact``, ``dgl_csr_neighbor_uniform_sample``,
``dgl_csr_neighbor_non_uniform_sample``).

A graph is a square csr matrix: row ``u`` holds the out-edges of vertex ``u``, column ``v`` an
edge ``u -> v`` and the stored value that edge's id (int64 for every operator here but
`edge_id`). Each operator's meaning is one function on the csr parts (`_edge_id`,
`_adjacency`, `_subgraph`, `_compact`, `_sample`); `_register` turns it into a registry entry
whose storage rule runs it on the sparse arrays of an imperative call (a dense graph is
refused there, as in MXNet) and whose dense kernel runs it in a graph (Symbol, hybridized
block), where a csr input arrives as its dense values: there an edge is a nonzero entry, so
an edge whose id is 0 is not seen, and a csr output leaves the graph as its dense values
(an output edge id 0 is then not stored either).

The samplers' breadth-first walk, as a reference loop (one seed array)::

    queue = unique(seeds)            # in order, layer 0
    i = 0
    while i < len(queue) and len(queue) < max_num_vertices:
        u, layer = queue[i]; i += 1
        if layer < num_hops:
            picked[u] = pick(neighbours of u, num_neighbor)   # all of them if there are few
            for v in picked[u]:                      # new ones join, while there is room
                if len(queue) < max_num_vertices and v not in queue:
                    queue.append((v, layer + 1))

The outputs are laid out by vertex id: the sorted vertices (then -1 up to max_num_vertices,
then their count), the csr of the picked edges (row k: the edges of the k-th vertex, columns
the original vertex ids, values the original edge ids), each vertex's probability
(non-uniform) and the layer where the walk met it (-1 past the count). MXNet leaves the
entries past the count unwritten; here they are -1 (0 for probabilities). The draws are
MXNet's after ``mx.random.seed``: a call reads one word of the single stream, and every
vertex draws from a twister of its own seeded with that word (so vertices of one degree
draw the same positions, as in MXNet). MXNet adds the number of the OpenMP thread that
samples a seed array to the word: 0 with one thread (and on the two-core machine the
reference draws come from); where MXNet runs seed arrays on several threads, the arrays
after the first draw other numbers there. A vertex with at most `num_neighbor` neighbours
keeps all of them in stored order, so nothing is random when no vertex has more.

Example::

    g = nd.sparse.csr_matrix((np.array([1, 2, 3], np.int64), np.array([1, 2, 0]),
                              np.array([0, 2, 3, 3])), shape=(3, 3))
    nd.contrib.edge_id(g, nd.array([0, 1, 2]), nd.array([2, 0, 0])).asnumpy()   # [ 2  3 -1]
"""
import math
import warnings

import numpy as np

from .. import attrs as A
from .. import mxnet_rng, mxnet_samplers
from ..mxnet_rng import canonical
from ..registry import ShapeError, register
from .arrays import CSR, from_dense, host
from .rule import StorageRule, stype_of
from ...base import MXNetTypeError, MXNetValueError

__all__ = []

_I64 = np.dtype(np.int64)
_F32 = np.dtype(np.float32)


# ---- checks shared by the shape and dtype rules and the imperative kernels ----------------
def _shape_of(name, what, s, ndim):
    if s is not None and len(s) != ndim:
        kind = "a graph (a 2-D csr matrix)" if ndim == 2 else "1-D"
        raise ShapeError(f"{name}: {what} must be {kind}, got shape {tuple(s)}")


def _square(name, what, s):
    _shape_of(name, what, s, 2)
    if s is not None and s[0] != s[1]:
        raise ShapeError(f"{name}: {what} must be square (vertices x vertices), got shape "
                         f"{tuple(s)}")


def _need(name, what, d, want):
    if d is not None and np.dtype(d) != want:
        raise MXNetTypeError(f"{name}: {what} must have dtype {want.name}, got "
                             f"{np.dtype(d).name} (convert it with astype('{want.name}'))")


def _at_least(name, what, value, low):
    if value < low:
        raise MXNetValueError(f"{name}: {what} must be at least {low}, got {value}")


def _ids(name, what, a, n):
    """int64 vertex ids in [0, n), from host array `a`."""
    ids = np.asarray(a).astype(np.int64).reshape(-1)
    bad = ids[(ids < 0) | (ids >= n)]
    if bad.size:
        raise MXNetValueError(f"{name}: {what} holds vertex id {int(bad[0])}, outside a graph "
                              f"of {n} vertices (ids are 0 .. {n - 1})")
    return ids


# ---- the operators' meaning on csr parts ---------------------------------------------------
def _edge_id(g, u, v):
    """out[i] = g[u[i], v[i]] where row u[i] stores column v[i] (its first such entry), else
    -1; u and v are cast to int64 (a fraction is cut)."""
    u = _ids("edge_id", "u", u, g.shape[0])
    v = np.asarray(v).astype(np.int64).reshape(-1)
    out = np.full(u.shape, -1, g.dtype)
    rows = np.repeat(np.arange(g.shape[0], dtype=np.int64), np.diff(g.indptr))
    keys = rows * g.shape[1] + g.indices
    order = np.argsort(keys, kind="stable")  # equal keys keep their stored order
    keys = keys[order]
    if not len(keys):
        return out
    want = u * g.shape[1] + v
    at = np.minimum(np.searchsorted(keys, want), len(keys) - 1)
    hit = (v >= 0) & (v < g.shape[1]) & (keys[at] == want)
    out[hit] = g.data[order[at[hit]]]
    return out


def _adjacency(g):
    """The same edges, each of value 1 (float32)."""
    return CSR(np.ones(len(g.indices), _F32), g.indices.copy(), g.indptr.copy(), g.shape)


def _rows_of(g, vids):
    """(positions in g's parts of every stored entry of rows `vids`, in row order, and the
    index into `vids` of each one's row)."""
    starts, counts = g.indptr[vids], g.indptr[vids + 1] - g.indptr[vids]
    owner = np.repeat(np.arange(len(vids), dtype=np.int64), counts)
    first = np.cumsum(counts) - counts
    pos = starts[owner] + np.arange(len(owner), dtype=np.int64) - first[owner]
    return pos, owner


def _subgraph(g, vids, what):
    """The subgraph induced by sorted vertex ids `vids`: (new-id csr, original-id csr), both
    (len(vids), len(vids)); vertex k of the subgraph is vids[k] (the last of equal ids), an
    edge's new id is its number in row order."""
    vids = _ids("dgl_subgraph", what, vids, g.shape[0])
    if np.any(np.diff(vids) < 0):
        raise MXNetValueError(f"dgl_subgraph: {what} must be sorted in ascending order, got "
                              f"{vids.tolist()}")
    pos, owner = _rows_of(g, vids)
    cols = g.indices[pos]
    new = np.searchsorted(vids, cols, side="right") - 1
    keep = (new >= 0) & (vids[np.maximum(new, 0)] == cols)
    n = len(vids)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(owner[keep], minlength=n))])
    indices = new[keep]
    nnz = len(indices)
    shape = (n, n)
    return (CSR(np.arange(nnz, dtype=np.int64).astype(g.dtype), indices, indptr, shape),
            CSR(g.data[pos[keep]], indices.copy(), indptr.copy(), shape))


def _compact(g, vids, size, what_g, what_v):
    """Sampler output `g` renumbered by `vids` (the sampler's vertex ids, their count last):
    rows and columns 0 .. size-1, column c becoming the position of c in vids[:size] (the
    first), edge ids 0 .. nnz-1 in row order."""
    name = "dgl_graph_compact"
    vids = np.asarray(vids).astype(np.int64).reshape(-1)
    if int(vids[-1]) != size:
        raise MXNetValueError(f"{name}: {what_v} ends with the vertex count {int(vids[-1])} but "
                              f"graph_sizes gives {size}; pass the sampler's count "
                              f"({what_v}[-1]) as graph_sizes")
    ids = vids[:size]
    if np.any(ids < 0):
        raise MXNetValueError(f"{name}: {what_v}[:{size}] holds {int(ids[ids < 0][0])}, not a "
                              f"vertex id; graph_sizes counts more vertices than were sampled")
    nnz = len(g.indices)
    if int(g.indptr[size]) != nnz:
        raise MXNetValueError(f"{name}: {what_g} stores edges in rows {size} and beyond, past "
                              f"graph_sizes ({size} vertices)")
    order = np.argsort(ids, kind="stable")  # the first of equal ids is found first
    sorted_ids = ids[order]
    at = np.minimum(np.searchsorted(sorted_ids, g.indices), max(size - 1, 0))
    found = (sorted_ids[at] == g.indices) if size else np.zeros(nnz, bool)
    if not np.all(found):
        raise MXNetValueError(f"{name}: {what_g} has an edge to vertex "
                              f"{int(g.indices[~found][0])}, which is not among {what_v}"
                              f"[:{size}]")
    return CSR(np.arange(nnz, dtype=np.int64), order[at].astype(np.int64),
               g.indptr[:size + 1].copy(), (size, size))


def _pick_uniform(seed, cols, eids, k):
    """k of the neighbours, uniformly without replacement, in stored order, as MXNet draws
    them: a twister seeded with the call's `seed` (every vertex's draw starts from it) picks
    k distinct positions, or, when k is more than half of them, the ones to leave out."""
    n = len(cols)
    if n <= k:
        return cols, eids
    tw = mxnet_rng.standalone(seed)
    if n > 2 * k:
        at = mxnet_samplers.distinct_ints(tw, n, k)
    else:
        at = np.setdiff1d(np.arange(n), mxnet_samplers.distinct_ints(tw, n, n - k))
    return cols[at], eids[at]


def _pick_weighted(seed, cols, eids, k, weight):
    """k of the neighbours drawn one at a time with chances in proportion to `weight`, as
    MXNet's sum tree draws them (float32 sums, one float32 uniform a draw from a twister
    seeded with `seed`, a drawn leaf's weight taken off its path); the columns and the edge
    ids come back each sorted on its own, as MXNet 1.9.1 returns them. Once the weights left
    are 0, MXNet's tree walks past the neighbour list (it reads other memory); here the
    neighbours not drawn yet follow in stored order."""
    n = len(cols)
    if n <= k:
        return cols, eids
    depth = math.ceil(math.log2(n))
    leaves = 1 << depth
    tree = np.zeros(2 * leaves, np.float32)
    tree[leaves:leaves + n] = weight[cols]
    for level in range(depth - 1, -1, -1):
        lo, hi = 1 << level, 1 << (level + 1)
        tree[lo:hi] = tree[2 * lo:2 * hi:2] + tree[2 * lo + 1:2 * hi:2]
    u = canonical(mxnet_rng.standalone(seed).words(k), np.float32)
    drawn = []
    for x in u.tolist():
        xi = np.float32(tree[1] * np.float32(x))
        node = 1
        while node < leaves:
            node <<= 1
            if xi >= tree[node]:
                xi = np.float32(xi - tree[node])
                node += 1
        leaf = node - leaves
        if leaf >= n or leaf in drawn:
            break
        drawn.append(leaf)
        w = tree[node]
        for _ in range(depth + 1):
            tree[node] = np.float32(tree[node] - w)
            node >>= 1
    at = np.array(drawn + [i for i in range(n) if i not in drawn][:k - len(drawn)], np.int64)
    return np.sort(cols[at]), np.sort(eids[at])


def _sample(g, seeds, prob, p, seed, what):
    """One seed array's sample (see the module docstring): (vertex ids, csr, probabilities
    or None, layers)."""
    name = "dgl_csr_neighbor_" + ("uniform" if prob is None else "non_uniform") + "_sample"
    seeds = _ids(name, what, seeds, g.shape[0])
    limit = p.max_num_vertices
    seen, queue = set(), []
    for s in seeds.tolist():
        if s not in seen:
            seen.add(s)
            queue.append((s, 0))
    picked = {}
    i = 0
    while i < len(queue) and len(seen) < limit:
        u, layer = queue[i]
        i += 1
        if layer >= p.num_hops:
            continue
        lo, hi = g.indptr[u], g.indptr[u + 1]
        if prob is None:
            cols, eids = _pick_uniform(seed, g.indices[lo:hi], g.data[lo:hi], p.num_neighbor)
        else:
            cols, eids = _pick_weighted(seed, g.indices[lo:hi], g.data[lo:hi], p.num_neighbor,
                                        prob)
        picked[u] = (cols, eids)
        for v in cols.tolist():
            if len(seen) >= limit:
                break
            if v not in seen:
                seen.add(v)
                queue.append((v, layer + 1))
    if any(layer < p.num_hops for _, layer in queue[i:]):
        warnings.warn(f"{name}: the sample of {what} stopped at max_num_vertices="
                      f"{limit} vertices before walking {p.num_hops} hops; use fewer seeds, "
                      "a smaller num_neighbor or a larger max_num_vertices")
    queue.sort()
    n = len(queue)
    ids = np.full(limit + 1, -1, np.int64)
    ids[:n] = [v for v, _ in queue]
    ids[limit] = n
    layers = np.full(limit, -1, np.int64)
    layers[:n] = [layer for _, layer in queue]
    empty = (g.indices[:0], g.data[:0])
    rows = [picked.get(v, empty) for v, _ in queue]
    counts = np.zeros(limit, np.int64)
    counts[:n] = [len(c) for c, _ in rows]
    indptr = np.concatenate([[0], np.cumsum(counts)])
    cols = np.concatenate([c for c, _ in rows] + [empty[0]]).astype(np.int64)
    eids = np.concatenate([e for _, e in rows] + [empty[1]])
    sub = CSR(eids, cols, indptr, (limit, g.shape[1]))
    if prob is None:
        return ids, sub, None, layers
    out_prob = np.zeros(limit, prob.dtype)
    out_prob[:n] = prob[ids[:n]]
    return ids, sub, out_prob, layers


# ---- shape, dtype and storage rules ---------------------------------------------------------
def _n_seeds(p, first):
    return p.num_args - first


def _sampler_rules(name, first):
    """Shape, dtype and output-storage rules of a sampler whose seed arrays start at input
    `first` (1 uniform, 2 non-uniform)."""
    uniform = first == 1

    def check(p):
        _at_least(name, "num_args", p.num_args, first + 1)
        _at_least(name, "num_hops", p.num_hops, 0)
        _at_least(name, "num_neighbor", p.num_neighbor, 0)
        _at_least(name, "max_num_vertices", p.max_num_vertices, 1)

    def shape(p, ins):
        graph = ins[0]
        _square(name, "csr_matrix", graph)
        if not uniform:
            _shape_of(name, "probability", ins[1], 1)
            if graph is not None and ins[1] is not None and ins[1][0] != graph[0]:
                raise ShapeError(f"{name}: probability must hold one number per vertex, "
                                 f"({graph[0]},), got shape {tuple(ins[1])}")
        for k in range(_n_seeds(p, first)):
            s = ins[first + k]
            _shape_of(name, f"seed_arrays{k}", s, 1)
            if s is not None and s[0] > p.max_num_vertices:
                raise ShapeError(f"{name}: seed_arrays{k} holds {s[0]} seeds, more than "
                                 f"max_num_vertices={p.max_num_vertices}")
        n, m = _n_seeds(p, first), p.max_num_vertices
        csr = None if graph is None else (m, graph[1])
        outs = [(m + 1,)] * n + [csr] * n + ([] if uniform else [(m,)] * n) + [(m,)] * n
        return ins, outs

    def dtype(p, ins):
        want = [_I64] + ([] if uniform else [_F32]) + [_I64] * _n_seeds(p, first)
        names = ["csr_matrix"] + ([] if uniform else ["probability"]) + [
            f"seed_arrays{k}" for k in range(_n_seeds(p, first))]
        for d, w, what in zip(ins, want, names):
            _need(name, what, d, w)
        n = _n_seeds(p, first)
        return want, [_I64] * (2 * n) + ([] if uniform else [_F32] * n) + [_I64] * n

    def stypes(p, in_stypes):
        n = _n_seeds(p, first)
        return ["default"] * n + ["csr"] * n + ["default"] * (n * (3 - first))

    return shape, dtype, stypes, check


def _sampler_kernel(first):
    def run(p, graph, *rest):
        prob = None if first == 1 else np.asarray(rest[0])
        if prob is not None and not np.all(np.isfinite(prob) & (prob >= 0)):
            bad = prob[~(np.isfinite(prob) & (prob >= 0))][0]
            raise MXNetValueError("dgl_csr_neighbor_non_uniform_sample: probability must hold "
                                  f"finite numbers >= 0 (chances in proportion), got {bad}")
        # one word of the single stream a call seeds every seed array's draws (MXNet adds
        # the number of the OpenMP thread sampling an array: 0 with one thread, and on the
        # two-core machine its fixture comes from)
        seed = int(mxnet_rng.SINGLE.twister().words(1)[0])
        outs = [_sample(graph, s, prob, p, seed, f"seed_arrays{k}")
                for k, s in enumerate(rest[first - 1:])]
        groups = list(zip(*outs))
        if prob is None:
            groups.pop(2)
        return tuple(o for group in groups for o in group)
    return run


def _subgraph_shape(p, ins):
    _shape_of("dgl_subgraph", "graph", ins[0], 2)
    outs = []
    for k, s in enumerate(ins[1:]):
        _shape_of("dgl_subgraph", f"varray{k}", s, 1)
        outs.append(None if s is None else (s[0], s[0]))
    return ins, outs * (2 if p.return_mapping else 1)


def _subgraph_dtype(p, ins):
    for k, d in enumerate(ins):
        _need("dgl_subgraph", "graph" if k == 0 else f"varray{k - 1}", d, _I64)
    n = (p.num_args - 1) * (2 if p.return_mapping else 1)
    return [_I64] * len(ins), [_I64] * n


def _compact_check(p):
    name = "dgl_graph_compact"
    _at_least(name, "num_args", p.num_args, 2)
    if p.num_args % 2:
        raise MXNetValueError(f"{name}: num_args must be even (each graph, then each one's "
                              f"vertex ids), got {p.num_args}")
    if len(p.graph_sizes) != p.num_args // 2:
        raise MXNetValueError(f"{name}: graph_sizes must give one size per graph "
                              f"({p.num_args // 2}), got {tuple(p.graph_sizes)}")
    for k, size in enumerate(p.graph_sizes):
        _at_least(name, f"graph_sizes[{k}]", size, 0)


def _compact_shape(p, ins):
    name = "dgl_graph_compact"
    n = p.num_args // 2
    for k in range(n):
        g, v, size = ins[k], ins[n + k], p.graph_sizes[k]
        _shape_of(name, f"graph{k}", g, 2)
        _shape_of(name, f"varray{k}", v, 1)
        if g is not None and min(g) < size:
            raise ShapeError(f"{name}: graph{k} of shape {tuple(g)} is smaller than "
                             f"graph_sizes[{k}]={size}")
        if g is not None and v is not None and v[0] != g[0] + 1:
            raise ShapeError(f"{name}: varray{k} must hold one vertex id per row of graph{k} "
                             f"and the count last, ({g[0] + 1},), got shape {tuple(v)}")
    outs = [(s, s) for s in p.graph_sizes]
    return ins, outs * (2 if p.return_mapping else 1)


def _compact_dtype(p, ins):
    n = p.num_args // 2
    for k, d in enumerate(ins):
        _need("dgl_graph_compact", f"graph{k}" if k < n else f"varray{k - n}", d, _I64)
    return [_I64] * len(ins), [_I64] * (n * (2 if p.return_mapping else 1))


def _edge_id_shape(p, ins):
    data, u, v = ins
    _shape_of("edge_id", "data", data, 2)
    _shape_of("edge_id", "u", u, 1)
    _shape_of("edge_id", "v", v, 1)
    if u is not None and v is not None and u[0] != v[0]:
        raise ShapeError(f"edge_id: u and v must have the same length (one edge each), got "
                         f"shapes {tuple(u)} and {tuple(v)}")
    out = u if u is not None else v
    return [data, out, out], [out]


def _adjacency_shape(p, ins):
    _shape_of("dgl_adjacency", "data", ins[0], 2)
    return ins, [ins[0]]


def _adjacency_dtype(p, ins):
    _need("dgl_adjacency", "data", ins[0], _I64)
    return [_I64], [_F32]


# ---- registration ---------------------------------------------------------------------------
def _register(name, run, *, inputs, graphs, shape, dtype, stypes, doc, params=None,
              **keywords):
    """Register `name` from `run(p, *inputs)`, its meaning on raw inputs (csr parts for
    the graph inputs, host numpy arrays for the others), returning its outputs (`CSR` or
    numpy). `inputs`: the input names, or ``num_args -> names`` for a variadic operator;
    `graphs(p)`: the input positions that are graphs; `stypes(p, in_stypes)`: the outputs'
    storage types; `params(p)`: checks the attributes, before the inputs are counted and
    before the shape and dtype rules run."""
    short = name[len("_contrib_"):]

    def names_of(p):
        return inputs(p.num_args) if callable(inputs) else list(inputs)

    params = params or (lambda p: None)

    def check_storage(p, in_stypes):
        where = set(graphs(p))
        for k, (what, st) in enumerate(zip(names_of(p), in_stypes)):
            want = "csr" if k in where else "default"
            if st != want:
                raise MXNetValueError(
                    f"{short}: {what} must be a {'csr' if want == 'csr' else 'dense'} "
                    f"NDArray, got storage type {st!r}" + (
                        "; make it one with .tostype('csr') or nd.sparse.csr_matrix"
                        if want == "csr" else "; make it dense with .tostype('default')"))
        return stypes(p, in_stypes)

    def counted(rule):
        def checked(p, ins):
            params(p)
            names = names_of(p)
            if callable(inputs) and len(ins) != len(names):
                raise MXNetValueError(f"{short}: num_args={p.num_args} means {len(names)} "
                                      f"input{'s' * (len(names) != 1)} ({', '.join(names)}), "
                                      f"got {len(ins)}; leave "
                                      "num_args out to count them")
            return rule(p, ins)
        return checked

    shape, dtype = counted(shape), counted(dtype)

    def sparse_kernel(p, rc, *xs):
        check_storage(p, [stype_of(x) for x in xs])
        shape(p, [tuple(x.shape) for x in xs])
        dtype(p, [np.dtype(x.dtype) for x in xs])
        outs = run(p, *[x if stype_of(x) == "csr" else host(x) for x in xs])
        return tuple(o if o.__class__ is CSR else rc.xp.asarray(o) for o in outs)

    def dense_kernel(p, rc, *xs):
        where = set(graphs(p))
        outs = run(p, *[from_dense(host(x), "csr") if k in where else host(x)
                        for k, x in enumerate(xs)])
        outs = tuple(rc.xp.asarray(o.dense() if o.__class__ is CSR else o) for o in outs)
        return outs[0] if len(outs) == 1 else outs

    sig = dict(inputs=inputs) if not callable(inputs) else dict(
        variadic=("num_args", inputs, ()))
    kw = dict(nondiff=inputs if not callable(inputs) else (), same_dtype=(), **sig,
              shape=shape, dtype=dtype, doc=doc,
              storage=StorageRule(sparse_kernel, dense_too=lambda p: True,
                                  stypes=check_storage),
              **keywords)
    return register(name, **kw)(dense_kernel)


_register(
    "_contrib_edge_id", lambda p, g, u, v: (_edge_id(g, u, v),),
    inputs=("data", "u", "v"), graphs=lambda p: (0,), shape=_edge_id_shape,
    dtype=lambda p, ins: (ins, [ins[0]]), stypes=lambda p, ins: ["default"],
    doc="""edge_id(data, u, v): the id of each edge u[i] -> v[i] of the graph `data` (a csr
    matrix whose values are edge ids; u and v 1-D, cast to int64), -1 where there is none.
    Same length as u, data's dtype.""")

_register(
    "_contrib_dgl_adjacency", lambda p, g: (_adjacency(g),),
    inputs=("data",), graphs=lambda p: (0,), shape=_adjacency_shape, dtype=_adjacency_dtype,
    stypes=lambda p, ins: ["csr"],
    doc="""dgl_adjacency(data): the adjacency matrix of the graph `data` (an int64 csr matrix of
    edge ids): the same edges, each of value 1, float32, csr.""")


def _subgraph_run(p, g, *varrays):
    subs = [_subgraph(g, v, f"varray{k}") for k, v in enumerate(varrays)]
    return tuple(s[0] for s in subs) + (tuple(s[1] for s in subs) if p.return_mapping else ())


_register(
    "_contrib_dgl_subgraph", _subgraph_run,
    inputs=lambda n: ["graph"] + [f"varray{k}" for k in range(n - 1)], graphs=lambda p: (0,),
    attrs={"num_args": A.Int(), "return_mapping": A.Bool()},
    outputs=lambda p: (p.num_args - 1) * (2 if p.return_mapping else 1),
    shape=_subgraph_shape, dtype=_subgraph_dtype,
    params=lambda p: _at_least("dgl_subgraph", "num_args", p.num_args, 2),
    stypes=lambda p, ins: ["csr"] * ((p.num_args - 1) * (2 if p.return_mapping else 1)),
    doc="""dgl_subgraph(graph, *varrays, return_mapping, num_args): for each sorted int64 array
    of vertex ids, the subgraph of `graph` they induce, a (len, len) csr matrix: vertex k is
    varray[k], its edges those of graph between the vertices kept, in row order, numbered
    0, 1, ... (its values). With return_mapping, then for each array the same csr holding the
    edges' ids in `graph`.""")


def _compact_run(p, *xs):
    n = p.num_args // 2
    outs = tuple(_compact(xs[k], xs[n + k], p.graph_sizes[k], f"graph{k}", f"varray{k}")
                 for k in range(n))
    if not p.return_mapping:
        return outs
    # MXNet 1.9.1 computes no mapping: those outputs hold no edge
    return outs + tuple(CSR(np.zeros(0, np.int64), np.zeros(0, np.int64),
                            np.zeros(s + 1, np.int64), (s, s)) for s in p.graph_sizes)


_register(
    "_contrib_dgl_graph_compact", _compact_run,
    inputs=lambda n: [f"graph{k}" for k in range(n // 2)] + [f"varray{k}"
                                                            for k in range(n // 2)],
    graphs=lambda p: range(p.num_args // 2),
    attrs={"num_args": A.Int(), "return_mapping": A.Bool(), "graph_sizes": A.Shape()},
    outputs=lambda p: p.num_args // 2 * (2 if p.return_mapping else 1),
    shape=_compact_shape, dtype=_compact_dtype, params=_compact_check,
    stypes=lambda p, ins: ["csr"] * (p.num_args // 2 * (2 if p.return_mapping else 1)),
    doc="""dgl_graph_compact(*graphs, *varrays, graph_sizes, return_mapping, num_args): each
    csr output of a sampler (graph k, with the sampler's vertex ids varray k: sorted ids,
    then their count) renumbered to its graph_sizes[k] vertices: a (size, size) int64 csr
    matrix whose column c is the position of c in varray k, edges numbered 0, 1, ... in row
    order. With return_mapping, then one csr per graph holding no edge (MXNet 1.9.1 fills
    nothing there).""")

_SAMPLER_ATTRS = {"num_args": A.Int(), "num_hops": A.Int(1), "num_neighbor": A.Int(2),
                  "max_num_vertices": A.Int(100)}

for _first, _name, _inputs, _doc in (
        (1, "_contrib_dgl_csr_neighbor_uniform_sample",
         lambda n: ["csr_matrix"] + [f"seed_arrays{k}" for k in range(n - 1)],
         """dgl_csr_neighbor_uniform_sample(csr_matrix, *seed_arrays, num_hops=1,
    num_neighbor=2, max_num_vertices=100, num_args): for each int64 seed array, a
    breadth-first sample of the int64 csr graph of at most max_num_vertices vertices,
    num_hops hops from the seeds, num_neighbor neighbours per vertex drawn uniformly without
    replacement (all of them if it has no more): the vertex ids (max_num_vertices + 1, the
    count last), the csr of the sampled edges (max_num_vertices, vertices), the layer of each
    vertex (max_num_vertices,); all the id arrays first, then the csr matrices, then the
    layers (see gluonlite.ops.sparse.dgl)."""),
        (2, "_contrib_dgl_csr_neighbor_non_uniform_sample",
         lambda n: ["csr_matrix", "probability"] + [f"seed_arrays{k}" for k in range(n - 2)],
         """dgl_csr_neighbor_non_uniform_sample(csr_matrix, probability, *seed_arrays,
    num_hops=1, num_neighbor=2, max_num_vertices=100, num_args): as
    dgl_csr_neighbor_uniform_sample, neighbours drawn without replacement with chances in
    proportion to their float32 probability (a vertex with more than num_neighbor neighbours
    gets its columns and its edge ids back each sorted on its own, as in MXNet 1.9.1); a
    third group of outputs gives each sampled vertex's probability (max_num_vertices,)
    before the layers (see gluonlite.ops.sparse.dgl).""")):
    _shape, _dtype, _stypes, _check = _sampler_rules(_name[len("_contrib_"):], _first)
    _register(_name, _sampler_kernel(_first), inputs=_inputs, graphs=lambda p: (0,),
              attrs=dict(_SAMPLER_ATTRS), random=True,
              outputs=lambda p, _f=_first: (p.num_args - _f) * (2 + _f),
              shape=_shape, dtype=_dtype, stypes=_stypes, params=_check, doc=_doc)
