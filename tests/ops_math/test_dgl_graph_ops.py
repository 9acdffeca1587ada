"""nd.contrib / sym.contrib DGL graph operators (gluonlite.ops.sparse.dgl): edge_id,
dgl_adjacency, dgl_subgraph, dgl_graph_compact and the two neighbour samplers.

MXNet 1.9.1's numbers (tests/fixtures/dgl_graph_mxnet.json, made by
tests/fixtures/make_dgl_graph.py) pin every deterministic case: all of edge_id,
dgl_adjacency, dgl_subgraph and dgl_graph_compact, and the samplers where num_neighbor is
at least every degree. The random samples are held to what every sample must be (real
edges, counts, layers, layout) and to their chances; imperative calls against symbolic ones;
bad inputs against the messages they raise.
"""
import json
import os
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "dgl_graph_mxnet.json")) as f:
    MX = json.load(f)
GRAPHS = MX["graphs"]


def csr(g):
    """A csr NDArray from stored parts."""
    return nd.sparse.csr_matrix((np.array(g["data"], dtype=g["dtype"]),
                                 np.array(g["indices"], np.int64),
                                 np.array(g["indptr"], np.int64)), shape=tuple(g["shape"]))


def ids(values):
    return nd.array(values, dtype="int64")


def assert_csr(c, want):
    """c (a csr NDArray) has exactly the parts, shape and dtype of `want`."""
    assert c.stype == "csr"
    assert list(c.shape) == want["shape"]
    assert np.dtype(c.dtype) == np.dtype(want["dtype"])
    for part in ("indptr", "indices", "data"):
        got = getattr(c, part).asnumpy()
        np.testing.assert_array_equal(got, np.array(want[part], dtype=got.dtype), err_msg=part)
    c.check_format(full_check=True)


def as_list(out):
    return out if isinstance(out, list) else [out]


def sample(uniform, g, seeds, prob=None, **attrs):
    """The sampler's outputs grouped per seed array: [(ids, csr, prob or None, layers)]."""
    k = len(seeds)
    if uniform:
        outs = nd.contrib.dgl_csr_neighbor_uniform_sample(g, *seeds, **attrs)
        return [(outs[i], outs[k + i], None, outs[2 * k + i]) for i in range(k)]
    outs = nd.contrib.dgl_csr_neighbor_non_uniform_sample(g, prob, *seeds, **attrs)
    return [(outs[i], outs[k + i], outs[2 * k + i], outs[3 * k + i]) for i in range(k)]


# ---- MXNet 1.9.1's numbers ------------------------------------------------------------------
@pytest.mark.parametrize("case", MX["edge_id"], ids=lambda c: f"{c['graph']}-{c['udtype']}")
def test_edge_id_matches_mxnet(case):
    out = nd.contrib.edge_id(csr(GRAPHS[case["graph"]]), nd.array(case["u"], dtype=case["udtype"]),
                             nd.array(case["v"], dtype=case["udtype"]))
    assert out.stype == "default" and np.dtype(out.dtype) == np.dtype(case["dtype"])
    np.testing.assert_array_equal(out.asnumpy(), case["out"])


@pytest.mark.parametrize("case", MX["adjacency"], ids=lambda c: c["graph"])
def test_dgl_adjacency_matches_mxnet(case):
    assert_csr(nd.contrib.dgl_adjacency(csr(GRAPHS[case["graph"]])), case["out"])


@pytest.mark.parametrize("case", MX["subgraph"], ids=lambda c: f"{c['graph']}-{c['varrays']}")
def test_dgl_subgraph_matches_mxnet(case):
    outs = as_list(nd.contrib.dgl_subgraph(csr(GRAPHS[case["graph"]]),
                                           *[ids(v) for v in case["varrays"]],
                                           return_mapping=case["return_mapping"]))
    assert len(outs) == len(case["outs"])
    for got, want in zip(outs, case["outs"]):
        assert_csr(got, want)


@pytest.mark.parametrize("case", MX["samplers"], ids=lambda c: "{}-{}-{}-{}".format(
    "uniform" if c["uniform"] else "non_uniform", c["graph"], c["seeds"],
    c["attrs"]["num_hops"]))
def test_samplers_match_mxnet_where_nothing_is_drawn(case):
    prob = None if case["uniform"] else nd.array(case["prob"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # some cases stop at max_num_vertices
        got = sample(case["uniform"], csr(GRAPHS[case["graph"]]),
                     [ids(s) for s in case["seeds"]], prob, **case["attrs"])
    limit = case["attrs"]["max_num_vertices"]
    for (vids, sub, p, layers), want in zip(got, case["outs"]):
        n = want["count"]
        assert vids.shape == (limit + 1,) and layers.shape == (limit,)
        assert vids.dtype == np.int64 and layers.dtype == np.int64
        vids, layers = vids.asnumpy(), layers.asnumpy()
        assert vids[-1] == n
        np.testing.assert_array_equal(vids[:n], want["ids"])
        np.testing.assert_array_equal(layers[:n], want["layers"])
        # the entries MXNet leaves unwritten are -1 here
        assert np.all(vids[n:limit] == -1) and np.all(layers[n:] == -1)
        assert_csr(sub, want["csr"])
        if p is not None:
            assert p.shape == (limit,) and p.dtype == np.float32
            np.testing.assert_array_equal(p.asnumpy()[:n], np.float32(want["prob"]))
            assert np.all(p.asnumpy()[n:] == 0)


@pytest.mark.parametrize("case", MX["compact"], ids=lambda c: str(c["graph_sizes"]))
def test_dgl_graph_compact_matches_mxnet(case):
    outs = as_list(nd.contrib.dgl_graph_compact(
        *[csr(g) for g in case["graphs"]], *[ids(v) for v in case["varrays"]],
        graph_sizes=tuple(case["graph_sizes"]), return_mapping=False))
    assert len(outs) == len(case["outs"])
    for got, want in zip(outs, case["outs"]):
        assert_csr(got, want)


def test_dgl_graph_compact_return_mapping_holds_no_edge_as_mxnet():
    case = MX["compact"][0]
    size = case["graph_sizes"][0]
    compact, mapping = nd.contrib.dgl_graph_compact(
        csr(case["graphs"][0]), ids(case["varrays"][0]), graph_sizes=size, return_mapping=True)
    assert_csr(compact, case["outs"][0])
    assert mapping.stype == "csr" and mapping.shape == (size, size)
    assert mapping.data.shape == (0,) and not mapping.asnumpy().any()


def test_examples_of_mxnet_docs():
    x = nd.array([[1, 0, 0], [0, 2, 0], [0, 0, 3]]).tostype("csr")
    out = nd.contrib.edge_id(x, nd.array([0, 0, 1, 1, 2, 2]), nd.array([0, 1, 1, 2, 0, 2]))
    np.testing.assert_array_equal(out.asnumpy(), [1, -1, 2, -1, -1, 3])
    adj = nd.contrib.dgl_adjacency(x.astype("int64"))
    np.testing.assert_array_equal(adj.asnumpy(), np.eye(3, dtype=np.float32))
    x = nd.array([[1, 0, 0, 2], [3, 0, 4, 0], [0, 5, 0, 0], [0, 6, 7, 0]],
                 dtype="int64").tostype("csr")
    new, old = nd.contrib.dgl_subgraph(x, ids([0, 1, 2]), return_mapping=True)
    np.testing.assert_array_equal(new.asnumpy(), [[0, 0, 0], [1, 0, 2], [0, 3, 0]])
    np.testing.assert_array_equal(old.asnumpy(), [[1, 0, 0], [3, 0, 4], [0, 5, 0]])
    # the edge ids start at 0, as MXNet numbers them: the csr keeps the first one stored
    np.testing.assert_array_equal(new.data.asnumpy(), [0, 1, 2, 3])


# ---- the random samples ---------------------------------------------------------------------
def _edges(g):
    """{(u, v): edge id} of a fixture graph."""
    rows = np.repeat(np.arange(g["shape"][0]), np.diff(g["indptr"]))
    return {(int(u), int(v)): int(e) for u, v, e in zip(rows, g["indices"], g["data"])}


def check_sample(g, seeds, vids, sub, layers, hops, k, limit, prob=None, sub_prob=None):
    """What every sample is, whatever was drawn."""
    edges = _edges(g)
    degree = np.diff(g["indptr"])
    vids, layers = vids.asnumpy(), layers.asnumpy()
    n = int(vids[-1])
    verts = vids[:n]
    assert 0 < n <= limit and np.all(np.diff(verts) > 0)  # sorted, distinct
    assert set(seeds) <= set(verts.tolist())
    sub.check_format(full_check=True)
    assert sub.shape == (limit, g["shape"][1])
    indptr, cols, eids = sub.indptr.asnumpy(), sub.indices.asnumpy(), sub.data.asnumpy()
    assert np.all(indptr[n:] == indptr[n])  # no edge past the vertices
    layer_of = dict(zip(verts.tolist(), layers[:n].tolist()))
    assert all(layer_of[s] == 0 for s in seeds)
    assert all(0 <= lay <= hops for lay in layer_of.values())
    walked = set()
    for r, u in enumerate(verts.tolist()):
        row_cols = cols[indptr[r]:indptr[r + 1]].tolist()
        row_eids = eids[indptr[r]:indptr[r + 1]].tolist()
        if not row_cols:
            continue
        walked.add(u)
        assert layer_of[u] < hops
        assert len(row_cols) == min(degree[u], k) and len(set(row_cols)) == len(row_cols)
        if prob is None:
            # each picked neighbour with its own edge id, in stored order
            assert [edges[(u, v)] for v in row_cols] == row_eids
        else:
            # columns and edge ids each sorted (as MXNet), each a real one of u's
            assert row_cols == sorted(row_cols) and row_eids == sorted(row_eids)
            assert {edges[(u, v)] for v in row_cols} == set(row_eids)
    # every vertex past the seeds was reached from a walked vertex one layer up
    for v, lay in layer_of.items():
        if lay > 0:
            assert any((u, v) in edges and layer_of[u] == lay - 1 for u in walked)
    if sub_prob is not None:
        np.testing.assert_array_equal(sub_prob.asnumpy()[:n], prob[verts])


@pytest.mark.parametrize("uniform", [True, False])
@pytest.mark.parametrize("name,seeds,hops,k,limit", [
    ("full5", [[0, 1, 2, 3, 4]], 1, 2, 5), ("full5", [[0]], 2, 1, 3),
    ("full5", [[0, 2, 4]], 1, 2, 5), ("g30", [[0, 7], [12]], 2, 2, 30),
    ("g30", [[3, 9, 27]], 3, 3, 12), ("g12", [[1]], 2, 1, 12)])
def test_random_samples_are_real_neighbours(uniform, name, seeds, hops, k, limit):
    g = GRAPHS[name]
    prob = np.linspace(1.0, 0.1, g["shape"][0]).astype(np.float32)
    mx.random.seed(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(5):
            got = sample(uniform, csr(g), [ids(s) for s in seeds],
                         None if uniform else nd.array(prob), num_hops=hops, num_neighbor=k,
                         max_num_vertices=limit)
            for s, (vids, sub, p, layers) in zip(seeds, got):
                check_sample(g, s, vids, sub, layers, hops, k, limit,
                             None if uniform else prob, p)
                # MXNet's own check: the sample compacts to a graph of its vertices (unless
                # it stopped at max_num_vertices within a row: then edges lead out of it)
                n = int(vids.asnumpy()[-1])
                if set(sub.indices.asnumpy().tolist()) <= set(vids.asnumpy()[:n].tolist()):
                    compact = nd.contrib.dgl_graph_compact(sub, vids, graph_sizes=n,
                                                           return_mapping=False)
                    assert compact.shape == (n, n)
                    np.testing.assert_array_equal(compact.indptr.asnumpy(),
                                                  sub.indptr.asnumpy()[:n + 1])
                    np.testing.assert_array_equal(
                        vids.asnumpy()[compact.indices.asnumpy()], sub.indices.asnumpy())


@pytest.mark.parametrize("uniform", [True, False])
def test_samples_follow_the_seed(uniform):
    g, seeds = csr(GRAPHS["g30"]), [ids([0, 5, 9])]
    prob = None if uniform else nd.array(np.linspace(1, 2, 30))

    def draw():
        vids, sub, _, _ = sample(uniform, g, seeds, prob, num_hops=2, num_neighbor=2,
                                 max_num_vertices=30)[0]
        return vids.asnumpy().tolist(), sub.indices.asnumpy().tolist()
    mx.random.seed(11)
    first = draw()
    mx.random.seed(11)
    assert draw() == first
    assert any(draw() != first for _ in range(10))


def test_uniform_picks_each_neighbour_equally_often():
    g = csr(GRAPHS["full5"])  # vertex 0 has 4 neighbours: each is one of 2 picked in 1/2
    mx.random.seed(5)
    counts = np.zeros(5)
    runs = 400
    for _ in range(runs):
        _, sub, _ = nd.contrib.dgl_csr_neighbor_uniform_sample(
            g, ids([0]), num_hops=1, num_neighbor=2, max_num_vertices=5)
        counts[sub.indices.asnumpy()] += 1
    np.testing.assert_allclose(counts[1:] / runs, 0.5, atol=0.1)
    assert counts[0] == 0


def test_non_uniform_picks_in_proportion_to_probability():
    g = csr(GRAPHS["full5"])
    prob = nd.array([0.0, 8.0, 1.0, 1.0, 0.0])  # vertex 0's neighbours 1..4
    mx.random.seed(5)
    counts = np.zeros(5)
    runs = 400
    for _ in range(runs):
        outs = nd.contrib.dgl_csr_neighbor_non_uniform_sample(
            g, prob, ids([0]), num_hops=1, num_neighbor=1, max_num_vertices=5)
        counts[outs[1].indices.asnumpy()] += 1
    np.testing.assert_allclose(counts / runs, [0, 0.8, 0.1, 0.1, 0], atol=0.06)
    # a neighbour of probability 0 comes only once those above 0 are taken
    for _ in range(20):
        outs = nd.contrib.dgl_csr_neighbor_non_uniform_sample(
            g, prob, ids([0]), num_hops=1, num_neighbor=3, max_num_vertices=5)
        row = outs[1].indices.asnumpy()
        assert {1, 2, 3} == set(row.tolist())


def test_truncated_sample_warns():
    g = csr(GRAPHS["g30"])
    with pytest.warns(UserWarning, match="max_num_vertices=3 vertices before walking 2 hops"):
        nd.contrib.dgl_csr_neighbor_uniform_sample(g, ids([0]), num_hops=2, num_neighbor=30,
                                                   max_num_vertices=3)


# ---- imperative against symbolic ------------------------------------------------------------
def _dense(x):
    return x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)


# the graph's edge ids start at 1 here: in a graph a csr arrives as its dense values, where
# an edge of id 0 cannot be told from no edge
def _sym_cases():
    g12 = dict(GRAPHS["g12"], data=[e + 1 for e in GRAPHS["g12"]["data"]])
    full5 = GRAPHS["full5"]
    return [
        ("edge_id", [csr(g12), nd.array([0, 1, 2, 11]), nd.array([3, 4, 5, 2])], {}),
        ("dgl_adjacency", [csr(g12)], {}),
        ("dgl_subgraph", [csr(g12), ids([0, 2, 3, 7, 9]), ids([1, 4])],
         {"return_mapping": True}),
        ("dgl_csr_neighbor_uniform_sample", [csr(full5), ids([0]), ids([4])],
         {"num_hops": 1, "num_neighbor": 4, "max_num_vertices": 5}),
        ("dgl_csr_neighbor_non_uniform_sample",
         [csr(g12), nd.array(np.linspace(0.1, 1, 12)), ids([3])],
         {"num_hops": 2, "num_neighbor": 12, "max_num_vertices": 12}),
    ]


@pytest.mark.parametrize("name,inputs,attrs", _sym_cases(), ids=lambda c: str(c)[:30])
def test_symbolic_matches_imperative(name, inputs, attrs):
    want = as_list(getattr(nd.contrib, name)(*inputs, **attrs))
    names = [f"x{i}" for i in range(len(inputs))]
    z = getattr(sym.contrib, name)(*[sym.var(n) for n in names], **attrs)
    feed = dict(zip(names, inputs))
    got = z.eval(**feed)
    assert len(got) == len(want)
    for g_, w in zip(got, want):
        assert g_.shape == w.shape and np.dtype(g_.dtype) == np.dtype(w.dtype)
        np.testing.assert_array_equal(_dense(g_), _dense(w))
    # shapes, dtypes and storage types are inferred as the imperative call makes them
    shapes = {n: x.shape for n, x in feed.items()}
    _, out_shapes, _ = z.infer_shape(**shapes)
    assert out_shapes == [w.shape for w in want]
    _, out_types, _ = z.infer_type(**{n: x.dtype for n, x in feed.items()})
    assert [np.dtype(t) for t in out_types] == [np.dtype(w.dtype) for w in want]
    _, out_stypes, _ = z.infer_storage_type(**{n: x.stype for n, x in feed.items()})
    assert out_stypes == [w.stype for w in want]


def test_symbolic_compact_of_a_sample():
    g = csr(GRAPHS["g12"])
    vids, sub, _ = nd.contrib.dgl_csr_neighbor_uniform_sample(
        g, ids([0, 5]), num_hops=1, num_neighbor=12, max_num_vertices=12)
    n = int(vids.asnumpy()[-1])
    want = nd.contrib.dgl_graph_compact(sub, vids, graph_sizes=n, return_mapping=False)
    z = sym.contrib.dgl_graph_compact(sym.var("g"), sym.var("v"), graph_sizes=n,
                                      return_mapping=False)
    got = z.eval(g=sub, v=vids)[0]
    # in the graph, edge 0 (the first, numbered from 0) is a zero of the dense values
    expect = want.asnumpy()
    np.testing.assert_array_equal(_dense(got), expect)
    assert z.infer_storage_type(g="csr", v="default")[1] == ["csr"]


# ---- bad input ------------------------------------------------------------------------------
G5 = GRAPHS["full5"]


@pytest.mark.parametrize("call,error,match", [
    (lambda: nd.contrib.dgl_csr_neighbor_uniform_sample(csr(G5).tostype("default"), ids([0])),
     ValueError, "csr_matrix must be a csr NDArray, got storage type 'default'"),
    (lambda: nd.contrib.edge_id(nd.ones((3, 3)), nd.array([0]), nd.array([0])),
     ValueError, "edge_id: data must be a csr NDArray"),
    (lambda: nd.contrib.dgl_adjacency(nd.ones((3, 3), dtype="int64")),
     ValueError, "dgl_adjacency: data must be a csr NDArray"),
    (lambda: nd.contrib.dgl_subgraph(csr(G5), ids([0]).tostype("row_sparse"),
                                     return_mapping=False),
     ValueError, "varray0 must be a dense NDArray, got storage type 'row_sparse'"),
    (lambda: nd.contrib.dgl_csr_neighbor_uniform_sample(csr(G5), ids([[0, 1]])),
     ValueError, r"seed_arrays0 must be 1-D, got shape \(1, 2\)"),
    (lambda: nd.contrib.dgl_csr_neighbor_uniform_sample(csr(G5), nd.array([0])),
     TypeError, "seed_arrays0 must have dtype int64, got float32"),
    (lambda: nd.contrib.dgl_csr_neighbor_uniform_sample(csr(G5).astype("float32"), ids([0])),
     TypeError, "csr_matrix must have dtype int64, got float32"),
    (lambda: nd.contrib.dgl_csr_neighbor_uniform_sample(csr(G5), ids([0]), num_args=3),
     ValueError, r"num_args=3 means 3 inputs \(csr_matrix, seed_arrays0, seed_arrays1\), "
                 "got 2"),
    (lambda: nd.contrib.dgl_csr_neighbor_uniform_sample(csr(G5), ids([0, 1, 2]),
                                                        max_num_vertices=2),
     ValueError, "seed_arrays0 holds 3 seeds, more than max_num_vertices=2"),
    (lambda: nd.contrib.dgl_csr_neighbor_uniform_sample(csr(G5), ids([7])),
     ValueError, "seed_arrays0 holds vertex id 7, outside a graph of 5 vertices"),
    (lambda: nd.contrib.dgl_csr_neighbor_non_uniform_sample(csr(G5), ids([0])),
     ValueError, "num_args must be at least 3, got 2"),
    (lambda: nd.contrib.dgl_csr_neighbor_non_uniform_sample(csr(G5), nd.ones(4), ids([0])),
     ValueError, r"probability must hold one number per vertex, \(5,\), got shape \(4,\)"),
    (lambda: nd.contrib.dgl_csr_neighbor_non_uniform_sample(
        csr(G5), nd.array([1, -1, 1, 1, 1]), ids([0]), num_neighbor=1),
     ValueError, "probability must hold finite numbers >= 0"),
    (lambda: nd.contrib.dgl_csr_neighbor_non_uniform_sample(
        csr(G5), nd.array([1, np.inf, 1, 1, 1]), ids([0]), num_neighbor=1),
     ValueError, "probability must hold finite numbers >= 0 .*, got inf"),
    (lambda: nd.contrib.edge_id(csr(G5), nd.array([0, 1]), nd.array([0])),
     ValueError, r"u and v must have the same length \(one edge each\), got shapes \(2,\) "
                 r"and \(1,\)"),
    (lambda: nd.contrib.edge_id(csr(G5), nd.array([5]), nd.array([0])),
     ValueError, "u holds vertex id 5, outside a graph of 5 vertices"),
    (lambda: nd.contrib.dgl_adjacency(csr(G5).astype("float32")),
     TypeError, "dgl_adjacency: data must have dtype int64, got float32"),
    (lambda: nd.contrib.dgl_subgraph(csr(G5), ids([3, 1]), return_mapping=False),
     ValueError, r"varray0 must be sorted in ascending order, got \[3, 1\]"),
    (lambda: nd.contrib.dgl_subgraph(csr(G5), ids([1]), ids([2, 1]), return_mapping=False),
     ValueError, "varray1 must be sorted"),
    (lambda: nd.contrib.dgl_subgraph(csr(G5), ids([1])),
     TypeError, "missing required argument 'return_mapping'"),
    (lambda: nd.contrib.dgl_graph_compact(csr(G5), ids([0] * 6), ids([0] * 6),
                                          graph_sizes=(1,), return_mapping=False),
     ValueError, "num_args must be even"),
    (lambda: nd.contrib.dgl_graph_compact(csr(G5), ids([0, 1, 2, 3, 4, 5]),
                                          graph_sizes=(5, 5), return_mapping=False),
     ValueError, r"graph_sizes must give one size per graph \(1\), got \(5, 5\)"),
    (lambda: nd.contrib.dgl_graph_compact(csr(G5), ids([0, 1, 2]), graph_sizes=2,
                                          return_mapping=False),
     ValueError, r"varray0 must hold one vertex id per row of graph0 and the count last, "
                 r"\(6,\), got shape \(3,\)"),
    (lambda: nd.contrib.dgl_graph_compact(csr(G5), ids([0, 1, 2, 3, 4, 4]), graph_sizes=5,
                                          return_mapping=False),
     ValueError, "varray0 ends with the vertex count 4 but graph_sizes gives 5"),
    (lambda: nd.contrib.dgl_graph_compact(csr(G5), ids([0, 1, 2, 3, -1, 4]), graph_sizes=4,
                                          return_mapping=False),
     ValueError, "graph0 stores edges in rows 4 and beyond"),
])
def test_bad_input_names_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_bad_symbol_inputs_name_the_argument():
    g, s = sym.var("g"), sym.var("s")
    z = sym.contrib.dgl_csr_neighbor_uniform_sample(g, s, max_num_vertices=4)
    with pytest.raises(ValueError, match=r"csr_matrix must be square"):
        z.infer_shape(g=(4, 5), s=(2,))
    with pytest.raises(ValueError, match="seed_arrays0 must be 1-D"):
        z.infer_shape(g=(4, 4), s=(2, 1))
    with pytest.raises(ValueError, match="seed_arrays0 must have dtype int64, got float32"):
        z.infer_type(g="int64", s="float32")
    # unknown input dtypes are the ones the operator takes
    arg_types, out_types, _ = z.infer_type(g="int64")
    assert [np.dtype(t) for t in arg_types + out_types] == [np.dtype(np.int64)] * 5
    with pytest.raises(ValueError, match="csr_matrix must be a csr NDArray, got storage type "
                                         "'default'"):
        z.infer_storage_type(g="default", s="default")
    assert z.infer_storage_type(g="csr", s="default")[1] == ["default", "csr", "default"]
