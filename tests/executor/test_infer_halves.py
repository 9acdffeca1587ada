"""Shape and dtype inference asked for one half (`infer_graph(what=...)`), and a graph's
plans at new input shapes reusing the dtypes inferred for its first (`compile_plan`'s
`shared`): the same answers as inferring everything afresh, every time."""
import numpy as np
import pytest

from gluonlite import gluon, nd, sym
from gluonlite.executor import CachedOp, infer_graph
from gluonlite.symbol.symbol import topo_nodes


def _graph():
    x, idx = sym.var("x"), sym.var("idx")
    h = sym.FullyConnected(x, num_hidden=4, name="fc")
    return sym.Group([sym.Cast(h, dtype="float16") * 2, sym.Embedding(idx, input_dim=5,
                                                                      output_dim=3, name="e")])


@pytest.mark.parametrize("what", ["shape", "dtype"])
def test_one_half_is_the_same_as_that_half_of_both(what):
    y = _graph()
    shapes, dtypes = {"x": (2, 7), "idx": (6,)}, {"x": np.float64, "idx": np.int32}
    both = infer_graph(y, shapes, dtypes)
    half = infer_graph(y, shapes, dtypes, what=what,
                       nodes=topo_nodes(y.outputs) if what == "dtype" else None)
    got, other = (half[0], half[1]) if what == "shape" else (half[1], half[0])
    assert got == (both[0] if what == "shape" else both[1]) and other == {}
    fc = y.outputs[0][0].inputs[0][0].inputs[0][0]
    if what == "shape":
        assert got[(id(fc), 0)] == (2, 4)
    else:
        assert got[(id(fc), 0)] == np.float64 and got[(id(y.outputs[0][0]), 0)] == np.float16


def test_a_bad_half_is_refused_by_name():
    with pytest.raises(ValueError, match="what must be 'both', 'shape' or 'dtype'.*'shapes'"):
        infer_graph(_graph(), {"x": (2, 7)}, what="shapes")


def test_each_half_still_reports_its_own_conflict():
    x = sym.var("x")
    y = sym.elemwise_add(x, sym.var("w", dtype="float16"))
    with pytest.raises(ValueError, match="infer_type"):
        infer_graph(y, None, {"x": np.float32}, what="dtype")
    with pytest.raises(ValueError, match="infer_shape"):
        infer_graph(y, {"x": (2, 3), "w": (3, 2)}, what="shape")
    infer_graph(y, None, {"x": np.float32}, what="shape")   # the other half is not asked


def test_plans_at_new_shapes_and_dtypes_infer_what_a_fresh_graph_does():
    # a graph compiled at many shapes (a decoder's steps) keeps the dtypes it inferred for
    # its inputs' dtypes; a call with other dtypes infers its own
    x = sym.var("x")
    y = sym.FullyConnected(sym.relu(x), num_hidden=3, name="fc", flatten=False)
    op = CachedOp(sym.Cast(y, dtype="float16") + 1)
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((3, 4)), rng.standard_normal(3)
    for dtype in (np.float32, np.float64, np.float32):
        for t in (1, 2, 5):
            a = rng.standard_normal((2, t, 4)).astype(dtype)
            out, = op(nd.array(a, dtype=dtype), nd.array(w, dtype=dtype),
                      nd.array(b, dtype=dtype))
            want = (np.maximum(a, 0) @ w.T.astype(dtype) + b.astype(dtype)).astype(
                np.float16) + 1
            assert out.dtype == np.float16 and out.shape == (2, t, 3)
            np.testing.assert_allclose(out.asnumpy(), want, rtol=2e-3)
    assert len(op.plans) == 6


def test_a_hybridized_block_with_fused_nodes_gives_imperative_results_at_each_new_shape():
    # the inference backend's fused chains, compiled again at each new shape with the
    # dtypes kept from the block's first plan
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(6, flatten=False), gluon.nn.BatchNorm(axis=-1),
            gluon.nn.Activation("relu"), gluon.nn.Dense(2, flatten=False))
    net.initialize()
    rng = np.random.default_rng(1)
    xs = [nd.array(rng.standard_normal((3, t, 5))) for t in (1, 4, 2, 7)]
    want = [net(x).asnumpy() for x in xs]
    net.hybridize(static_alloc=True)
    for x, w in zip(xs, want):
        np.testing.assert_allclose(net(x).asnumpy(), w, rtol=1e-5, atol=1e-6)
    xs64 = [x.astype("float64") for x in xs[:2]]
    net.cast("float64")
    for x in xs64:
        assert net(x).dtype == np.float64


def test_a_subgraph_node_infers_each_half_at_each_new_shape():
    # a partitioned graph's node runs its subgraph as a nested plan: its shape rule infers
    # the subgraph's shapes alone at each new shape, its dtype rule its dtypes alone, once
    # (the graph's plans keep them)
    from gluonlite.subgraph import partition_graph
    x, w = sym.var("x"), sym.var("w")
    y = sym.Cast(sym.tanh(sym.dot(x, w)) * 2, dtype="float64") + 1
    part = partition_graph(y, "default", ["dot", "tanh", "_mul_scalar"])
    assert any(n.op is not None and n.op.name == "_default_subgraph_op"
               for n in topo_nodes(part.outputs))
    op = CachedOp(part)
    rng = np.random.default_rng(2)
    wv = rng.standard_normal((3, 2)).astype(np.float32)
    for n in (1, 4, 2):
        xv = rng.standard_normal((n, 3)).astype(np.float32)
        out, = op(*[nd.array(xv if name == "x" else wv) for name in op.input_names])
        assert out.dtype == np.float64 and out.shape == (n, 2)
        np.testing.assert_allclose(out.asnumpy(), np.tanh(xv @ wv) * 2 + 1, rtol=1e-6)
