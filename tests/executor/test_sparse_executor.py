"""Executors bound with sparse arrays run their graph on the sparse storage, node by node, as
MXNet's graph executor dispatches each node: a csr batch stays csr (never made dense), and
`dot(csr, w)` gives `w` the rows of the features the batch holds."""
import tracemalloc

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym


def _linear(n_features, n_out=2):
    x = sym.var("data", stype="csr")
    w = sym.var("w", shape=(n_features, n_out), stype="row_sparse")
    b = sym.var("b", shape=(n_out,))
    return sym.broadcast_add(sym.sparse.dot(x, w), b)


def _batch(rows, cols, density, seed):
    r = np.random.RandomState(seed)
    d = r.rand(rows, cols).astype(np.float32)
    d[r.rand(rows, cols) > density] = 0
    return d


def _loss(y):
    return sym.MakeLoss(sym.sum(sym.square(y)))


def _bind(y, **shapes):
    """simple_bind as Module binds it: no gradient for the data."""
    return y.simple_bind(mx.cpu(), grad_req={"data": "null", "w": "write", "b": "write"},
                         **shapes)


def _values(exe, d, w, b, head=None):
    """The loss's value and its gradients to w and b, in float64 from the dense batch."""
    y = d.astype(np.float64) @ w + b
    return (y ** 2).sum(), d.T @ (2 * y), (2 * y).sum(0)


def test_simple_bind_holds_a_csr_input_as_csr_and_runs_on_it():
    exe = _bind(_loss(_linear(10)), data=(4, 10))
    assert exe.arg_dict["data"].stype == "csr"
    assert exe.grad_dict["w"].stype == "row_sparse"
    assert "data" not in exe.grad_dict
    d = _batch(4, 10, 0.3, 0)
    r = np.random.RandomState(1)
    w, b = r.randn(10, 2).astype(np.float32), r.randn(2).astype(np.float32)
    exe.arg_dict["w"][:] = w
    exe.arg_dict["b"][:] = b
    out = exe.forward(is_train=True, data=nd.array(d).tostype("csr"))
    assert exe.arg_dict["data"].stype == "csr"
    loss, gw, gb = _values(exe, d, w, b)
    np.testing.assert_allclose(out[0].asnumpy(), [loss], rtol=1e-5)
    exe.backward()
    g = exe.grad_dict["w"]
    assert g.stype == "row_sparse"
    # the rows of the features the batch holds, no others
    np.testing.assert_array_equal(g.indices.asnumpy(), np.flatnonzero(d.any(axis=0)))
    np.testing.assert_allclose(g.asnumpy(), gw, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(exe.grad_dict["b"].asnumpy(), gb, rtol=1e-5)


def test_sparse_gradients_match_finite_differences():
    exe = _loss(_linear(6, 3)).simple_bind(mx.cpu(), data=(3, 6))
    d = _batch(3, 6, 0.5, 2)
    r = np.random.RandomState(3)
    w, b = r.randn(6, 3), r.randn(3)
    exe.arg_dict["data"][:] = nd.array(d).tostype("csr")
    exe.arg_dict["w"][:] = w
    exe.arg_dict["b"][:] = b
    exe.forward(is_train=True)
    exe.backward()
    got = exe.grad_dict["w"].asnumpy()
    eps = 1e-3
    for i, j in [(0, 0), (2, 1), (5, 2), (3, 0)]:
        step = np.zeros_like(w)
        step[i, j] = eps
        up = _values(exe, d, w + step, b)[0]
        down = _values(exe, d, w - step, b)[0]
        assert abs(got[i, j] - (up - down) / (2 * eps)) < 1e-3 * max(1, abs(got[i, j]))


def test_a_csr_batch_of_a_million_features_is_never_made_dense():
    n, batch = 1_000_000, 64
    tracemalloc.start()
    try:
        exe = _bind(_loss(_linear(n)), data=(batch, n))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # the weight and its buffers are 8 MB each; a dense batch would be 256 MB
    assert peak < 40 * 2 ** 20, peak
    r = np.random.RandomState(4)
    cols = r.randint(0, n, (batch, 10))
    rows = np.repeat(np.arange(batch), 10)
    import scipy.sparse as sp
    m = sp.csr_matrix((r.rand(batch * 10).astype(np.float32), (rows, cols.ravel())),
                      shape=(batch, n))
    x = nd.sparse.csr_matrix((m.data, m.indices, m.indptr), shape=(batch, n))
    exe.forward(is_train=True, data=x)   # plans whatever is planned once
    exe.backward()
    tracemalloc.start()
    try:
        exe.forward(is_train=True, data=x)
        exe.backward()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # a dense batch alone is 256 MB; the weight's dense gradient 8 MB
    assert peak < 4 * 2 ** 20, peak
    assert exe.grad_dict["w"].indices.shape[0] == len(np.unique(cols))


def test_grad_req_add_accumulates_and_write_clears_rows_not_reached():
    y = _loss(_linear(5))
    d1, d2 = np.zeros((2, 5), np.float32), np.zeros((2, 5), np.float32)
    d1[:, 1], d2[:, 3] = 1, 2
    w, b = np.ones((5, 2), np.float32), np.zeros(2, np.float32)
    for req in ("write", "add"):
        exe = y.simple_bind(mx.cpu(), data=(2, 5), grad_req={"w": req, "b": req,
                                                               "data": "null"})
        exe.arg_dict["w"][:] = w
        for d in (d1, d2):
            exe.forward(is_train=True, data=nd.array(d).tostype("csr"))
            exe.backward()
        got = exe.grad_dict["w"].asnumpy()
        want = _values(exe, d2, w, b)[1]
        if req == "add":
            want = want + _values(exe, d1, w, b)[1]
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_outputs_stay_the_same_arrays_and_backward_checks_out_grads():
    y = _linear(4)
    exe = y.simple_bind(mx.cpu(), data=(2, 4))
    first = exe.forward(is_train=True, data=nd.array(_batch(2, 4, 0.5, 5)).tostype("csr"))[0]
    again = exe.forward(is_train=True, data=nd.array(_batch(2, 4, 0.5, 6)).tostype("csr"))[0]
    assert first is again
    with pytest.raises(ValueError, match="out_grad for .* has shape"):
        exe.backward([nd.ones((3, 2))])
    with pytest.raises(ValueError, match="got 0 out_grads for 1 outputs"):
        exe.backward([])
    head = np.arange(4.0, dtype=np.float32).reshape(2, 2)
    exe.backward([nd.array(head)])
    d = exe.arg_dict["data"].asnumpy()
    np.testing.assert_allclose(exe.grad_dict["w"].asnumpy(), d.T @ head, rtol=1e-6)
    np.testing.assert_allclose(exe.grad_dict["b"].asnumpy(), head.sum(0), rtol=1e-6)


def test_backward_after_an_inference_forward_or_none_uses_the_bound_values():
    y = _loss(_linear(4))
    exe = y.simple_bind(mx.cpu(), data=(2, 4))
    d = _batch(2, 4, 0.6, 7)
    exe.arg_dict["data"][:] = nd.array(d).tostype("csr")
    exe.arg_dict["w"][:] = 0.5
    exe.backward()   # no forward yet: on the bound values, as MXNet
    want = _values(exe, d, np.full((4, 2), 0.5), np.zeros(2))[1]
    np.testing.assert_allclose(exe.grad_dict["w"].asnumpy(), want, rtol=1e-6)
    exe.arg_dict["w"][:] = 1.0
    exe.forward(is_train=False)
    exe.backward()
    want = _values(exe, d, np.ones((4, 2)), np.zeros(2))[1]
    np.testing.assert_allclose(exe.grad_dict["w"].asnumpy(), want, rtol=1e-6)


def test_the_bound_arrays_autograd_state_is_left_alone():
    exe = _loss(_linear(3)).simple_bind(mx.cpu(), data=(2, 3))
    w = exe.arg_dict["w"]
    exe.forward(is_train=True, data=nd.ones((2, 3)).tostype("csr"))
    exe.backward()
    assert w.grad is None
    # and the user's own recording of the same array is unaffected
    w.attach_grad()
    with mx.autograd.record():
        z = (w * 3).sum()
    z.backward()
    np.testing.assert_array_equal(w.grad.asnumpy(), np.full((3, 2), 3.0))


def test_a_sparse_module_trains_as_the_dense_one():
    """The same linear model trained on the same batches, declared csr and dense: the csr
    one runs on sparse storage, the dense one through compiled plans; SGD without weight
    decay steps every row the same either way."""
    def train(stype):
        x = sym.var("data", stype=stype)
        w = sym.var("fc_weight", shape=(12, 3))
        out = sym.SoftmaxOutput(sym.dot(x, w), sym.var("softmax_label"))
        mod = mx.mod.Module(out)
        mod.bind(data_shapes=[("data", (4, 12))], label_shapes=[("softmax_label", (4,))])
        mod.init_params(mx.init.Constant(0.1))
        mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.5})
        r = np.random.RandomState(8)
        for _ in range(4):
            d = _batch(4, 12, 0.3, r.randint(1000))
            label = nd.array(r.randint(0, 3, 4))
            data = nd.array(d).tostype(stype) if stype == "csr" else nd.array(d)
            mod.forward_backward(mx.io.DataBatch([data], [label]))
            mod.update()
        return mod, mod.get_params()[0]["fc_weight"].asnumpy()

    sparse_mod, sparse_w = train("csr")
    assert sparse_mod._exec_group.execs[0].arg_dict["data"].stype == "csr"
    _, dense_w = train("default")
    np.testing.assert_allclose(sparse_w, dense_w, rtol=1e-5, atol=1e-7)


def test_reshape_keeps_a_csr_input_csr():
    exe = _linear(6).simple_bind(mx.cpu(), data=(4, 6))
    small = exe.reshape(data=(2, 6))
    assert small.arg_dict["data"].stype == "csr" and small.arg_dict["data"].shape == (2, 6)
    d = _batch(2, 6, 0.5, 9)
    out = small.forward(data=nd.array(d).tostype("csr"))[0]
    w = small.arg_dict["w"].asnumpy()
    np.testing.assert_allclose(out.asnumpy(), d @ w, rtol=1e-6)


def test_the_monitor_sees_the_nodes_of_a_sparse_graph():
    exe = _bind(_loss(_linear(4)), data=(2, 4))
    seen = []
    exe.set_monitor_callback(lambda name, a: seen.append(name))
    exe.forward(is_train=True, data=nd.ones((2, 4)).tostype("csr"))
    assert any(n.startswith("dot") for n in seen) and any("broadcast_add" in n for n in seen)
    seen.clear()
    exe.backward()   # the gradients each node passes back, as the compiled path reports them
    assert any(n.startswith("makeloss") and n.endswith("_backward_output") for n in seen)
    assert any(n.startswith("dot") and n.endswith("_backward_output1") for n in seen)


def test_a_fallback_updates_a_sparse_auxiliary_state_in_place():
    """An operator without a kernel for sparse storage runs densely on a copy (MXNet's
    storage fallback); what it updates in place is written back into the sparse array."""
    x = nd.array(np.random.RandomState(10).rand(4, 3))
    gamma, beta = nd.ones(3), nd.zeros(3)
    mean = nd.zeros(3).tostype("row_sparse")
    var = nd.ones(3)
    with mx.autograd.train_mode():
        nd.BatchNorm(x, gamma, beta, mean, var, momentum=0.5, fix_gamma=False)
    assert mean.stype == "row_sparse"
    np.testing.assert_allclose(mean.asnumpy(), 0.5 * x.asnumpy().mean(0), rtol=1e-5)


def test_the_gradient_of_a_csr_input_is_dense():
    exe = _linear(4).simple_bind(mx.cpu(), data=(2, 4))
    assert exe.arg_dict["data"].stype == "csr" and exe.grad_dict["data"].stype == "default"
    exe.arg_dict["w"][:] = np.arange(8.0).reshape(4, 2)
    exe.forward(is_train=True, data=nd.array(_batch(2, 4, 0.5, 11)).tostype("csr"))
    exe.backward([nd.ones((2, 2))])
    np.testing.assert_allclose(exe.grad_dict["data"].asnumpy(),
                               np.ones((2, 2)) @ np.arange(8.0).reshape(4, 2).T)


@pytest.mark.parametrize("rows", [1000, 2 ** 18])
def test_an_embedding_gradient_is_its_rows_on_either_path(rows):
    """A sparse gradient buffer alone runs taped once it is large (its dense gradient would
    cost more than the per-node calls; TAPED_GRADIENT_ELEMENTS), compiled below: the same
    rows and values either way."""
    from gluonlite.executor.storage_run import TAPED_GRADIENT_ELEMENTS
    data = sym.var("data")
    y = sym.Embedding(data, sym.var("embed_weight"), input_dim=rows, output_dim=8,
                      sparse_grad=True)
    y = sym.MakeLoss(sym.sum(sym.square(y)))
    exe = y.simple_bind(mx.cpu(), data=(3, 4), grad_req={"data": "null",
                                                           "embed_weight": "write"})
    assert exe.grad_dict["embed_weight"].stype == "row_sparse"
    ids = np.array([[5, 9, 5, 0], [999, 9, 3, 3], [0, 1, 2, 5]])
    w = np.random.RandomState(12).rand(8).astype(np.float32)
    exe.arg_dict["embed_weight"][:] = np.ones((rows, 1), np.float32) * w
    tracemalloc.start()
    try:
        exe.forward(is_train=True, data=nd.array(ids))
        exe.backward()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    g = exe.grad_dict["embed_weight"]
    np.testing.assert_array_equal(g.indices.asnumpy(), np.unique(ids))
    counts = np.bincount(ids.ravel())[np.unique(ids)]
    np.testing.assert_allclose(g.data.asnumpy(), 2 * counts[:, None] * w, rtol=1e-6)
    if rows * 8 >= TAPED_GRADIENT_ELEMENTS:
        assert peak < rows * 8 * 4 // 2, peak   # never the dense gradient


def test_stype_dict_declares_a_csr_input_as_mxnet_simple_bind_takes_it():
    y = sym.dot(sym.var("x"), sym.var("w"))
    exe = y.simple_bind(mx.cpu(), stype_dict={"x": "csr"}, grad_req="null", x=(2, 3),
                        w=(3, 2))
    assert exe.arg_dict["x"].stype == "csr" and exe.arg_dict["w"].stype == "default"
    exe.arg_dict["w"][:] = 1
    d = np.array([[0, 2, 0], [1, 0, 0]], np.float32)
    np.testing.assert_allclose(exe.forward(x=nd.array(d).tostype("csr"))[0].asnumpy(),
                               d @ np.ones((3, 2)))
    with pytest.raises(ValueError, match="unknown input name.*'z'"):
        y.simple_bind(mx.cpu(), stype_dict={"z": "csr"}, x=(2, 3), w=(3, 2))
    with pytest.raises(ValueError, match="stype_dict"):
        y.simple_bind(mx.cpu(), stype_dict={"x": "sparse"}, x=(2, 3), w=(3, 2))


class _EmbedNet(mx.gluon.HybridBlock):
    def __init__(self, rows):
        super().__init__()
        self.emb = mx.gluon.nn.Embedding(rows, 8, sparse_grad=True)
        self.out = mx.gluon.nn.Dense(3, flatten=False)

    def hybrid_forward(self, F, x):
        return self.out(F.tanh(self.emb(x)))


@pytest.mark.parametrize("rows", [1000, 2 ** 18])
def test_a_hybridized_sparse_grad_embedding_gives_the_imperative_rows(rows):
    """A hybridized block whose embedding has a large row_sparse gradient runs its training
    calls node by node, so the gradient is the rows the batch read, never a dense
    (rows x 8) array; a small one runs its compiled plan. Either gives the imperative
    block's numbers."""
    ids = nd.array([[5, 9, 5, 0], [999, 9, 3, 3]])
    grads = {}
    for hybrid in (False, True):
        mx.random.seed(13)
        net = _EmbedNet(rows)
        net.initialize(mx.init.Uniform(0.5))
        if hybrid:
            net.hybridize(static_alloc=True)
        net(ids)   # shapes known, plans made
        tracemalloc.start()
        try:
            with mx.autograd.record():
                y = net(ids)
            y.backward(nd.array(np.arange(24.0).reshape(2, 4, 3)))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        g = net.emb.weight.grad()
        assert g.stype == "row_sparse"
        np.testing.assert_array_equal(g.indices.asnumpy(), [0, 3, 5, 9, 999])
        grads[hybrid] = (y.asnumpy(), g.data.asnumpy(), net.out.weight.grad().asnumpy())
        if rows >= 2 ** 18:
            assert peak < rows * 8 * 4 // 2, peak
    for a, b in zip(grads[False], grads[True]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


class _CsrNet(mx.gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.w = self.params.get("w", shape=(6, 2), grad_stype="row_sparse")

    def hybrid_forward(self, F, x, w):
        return F.sparse.dot(x, w) * 2


def test_a_hybridized_block_runs_a_csr_batch_on_its_storage():
    d = _batch(3, 6, 0.4, 14)
    x = nd.array(d).tostype("csr")
    got = {}
    for hybrid in (False, True):
        net = _CsrNet()
        net.initialize(mx.init.Constant(0.5))
        if hybrid:
            net.hybridize()
        with mx.autograd.record():
            y = net(x)
        y.backward()
        g = net.w.grad()
        assert g.stype == "row_sparse"
        np.testing.assert_array_equal(g.indices.asnumpy(), np.flatnonzero(d.any(axis=0)))
        got[hybrid] = (y.asnumpy(), g.asnumpy())
        # inference, not recorded, on the csr batch too
        np.testing.assert_allclose(net(x).asnumpy(), d @ np.full((6, 2), 1.0), rtol=1e-6)
    np.testing.assert_allclose(got[True][0], got[False][0], rtol=1e-6)
    np.testing.assert_allclose(got[True][1], 2 * d.T @ np.ones((3, 2)), rtol=1e-6)


def test_the_sparse_and_the_compiled_executor_agree_on_every_head():
    """A loss, an input given back as an output, and a plain output, with the head gradients
    given per output (None: that output passes none) or not at all (ones): the executor of a
    csr batch gives the gradients the compiled one gives for the same dense batch."""
    got = {}
    for stype in ("csr", "default"):
        x, w, b = sym.var("data", stype=stype), sym.var("w"), sym.var("b")
        h = sym.dot(x, w)
        out = sym.Group([sym.MakeLoss(sym.sum(h * b)), b, h])
        exe = out.simple_bind(mx.cpu(), grad_req={"data": "null", "w": "write", "b": "add"},
                              data=(3, 4), w=(4, 2), b=(3, 2))
        assert (exe._taped is not None) == (stype == "csr")
        d = _batch(3, 4, 0.6, 15)
        exe.arg_dict["w"][:] = np.arange(8.0).reshape(4, 2)
        exe.arg_dict["b"][:] = 2
        exe.forward(is_train=True, data=nd.array(d).tostype(stype))
        seen = []
        for heads in ([None, nd.ones((3, 2)) * 3, None], None, [None, None, nd.ones((3, 2))]):
            exe.backward(heads)
            seen.append((exe.grad_dict["w"].asnumpy(), exe.grad_dict["b"].asnumpy()))
        got[stype] = seen
    for (w1, b1), (w2, b2) in zip(got["csr"], got["default"]):
        np.testing.assert_allclose(w1, w2, rtol=1e-6)
        np.testing.assert_allclose(b1, b2, rtol=1e-6)


def test_an_input_given_back_as_an_output_is_a_copy():
    x, w = sym.var("data", stype="csr"), sym.var("w")
    graph = sym.Group([sym.dot(x, w), w])
    exe = graph.simple_bind(mx.cpu(), grad_req="null", data=(2, 3), w=(3, 2))
    out = exe.forward(data=nd.ones((2, 3)).tostype("csr"))[1]
    out[:] = 7
    assert exe.arg_dict["w"].asnumpy().sum() == 0
    # a hybridized call on a csr batch, whose outputs are not copied into kept arrays
    op = mx.executor.CachedOp(graph)
    weight = nd.zeros((3, 2))
    out = op(nd.ones((2, 3)).tostype("csr"), weight)[1]
    assert out is not weight
    out[:] = 7
    assert weight.asnumpy().sum() == 0
