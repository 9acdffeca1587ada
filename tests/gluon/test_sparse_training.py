"""Sparse gradients and sparse parameters through the public API: row_sparse gradients of
Embedding against the dense gradient and float64 finite differences, gradient buffers of
every storage type, Parameter(stype=, grad_stype=), the Trainer's kvstore rules (MXNet's), the
kvstore's row_sparse_pull, and SparseEmbedding training against a dense Embedding."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd


def _emb_loss(w, idx, c, sparse_grad):
    y = nd.Embedding(idx, w, input_dim=w.shape[0], output_dim=w.shape[1],
                     sparse_grad=sparse_grad)
    return (y * y * c).sum()


def test_embedding_sparse_grad_matches_dense_and_finite_differences():
    rng = np.random.RandomState(0)
    w0 = rng.uniform(-1, 1, (20, 3))
    idx = nd.array([[4, 1], [4, 17]], dtype="float64")
    c = nd.array(rng.uniform(0.5, 1.5, (2, 2, 3)), dtype="float64")
    grads = {}
    for sparse in (True, False):
        w = nd.array(w0, dtype="float64")
        w.attach_grad(stype="row_sparse" if sparse else "default")
        with autograd.record():
            loss = _emb_loss(w, idx, c, sparse)
        loss.backward()
        grads[sparse] = w.grad
    rsp = grads[True]
    assert rsp.stype == "row_sparse"
    np.testing.assert_array_equal(rsp.indices.asnumpy(), [1, 4, 17])  # only the rows read
    assert rsp.data.shape == (3, 3)
    np.testing.assert_allclose(rsp.asnumpy(), grads[False].asnumpy(), rtol=1e-12)
    # float64 central differences of the loss on the dense weight
    eps, num = 1e-6, np.zeros_like(w0)
    for i in range(w0.shape[0]):
        for j in range(w0.shape[1]):
            vals = []
            for d in (eps, -eps):
                wp = w0.copy()
                wp[i, j] += d
                vals.append(_emb_loss(nd.array(wp, dtype="float64"), idx, c, False).asscalar())
            num[i, j] = (vals[0] - vals[1]) / (2 * eps)
    np.testing.assert_allclose(rsp.asnumpy(), num, rtol=1e-5, atol=1e-8)


def test_sparse_grad_add_accumulates_the_union_of_rows():
    w = nd.ones((10, 2))
    w.attach_grad(grad_req="add", stype="row_sparse")
    for rows in ([1, 3], [3, 8]):
        with autograd.record():
            y = nd.Embedding(nd.array(rows), w, input_dim=10, output_dim=2, sparse_grad=True)
        y.backward()
    assert w.grad.stype == "row_sparse"
    np.testing.assert_array_equal(w.grad.indices.asnumpy(), [1, 3, 8])
    expect = np.zeros((10, 2), np.float32)
    expect[[1, 8]] = 1
    expect[3] = 2
    np.testing.assert_array_equal(w.grad.asnumpy(), expect)


def test_sparse_grad_into_dense_buffer_and_through_other_operators():
    # the rows reach a dense gradient buffer, and a later operator reading the embedding's
    # weight gradient (w is computed from v) gets it dense
    v = nd.ones((6, 2))
    v.attach_grad()
    with autograd.record():
        w = v * 3
        y = nd.Embedding(nd.array([2, 2, 5]), w, input_dim=6, output_dim=2, sparse_grad=True)
    y.backward()
    expect = np.zeros((6, 2), np.float32)
    expect[2], expect[5] = 6, 3
    np.testing.assert_array_equal(v.grad.asnumpy(), expect)


def test_autograd_grad_returns_row_sparse():
    w = nd.ones((5, 2))
    w.attach_grad(stype="row_sparse")
    with autograd.record():
        y = nd.Embedding(nd.array([0, 4]), w, input_dim=5, output_dim=2, sparse_grad=True)
    g, = autograd.grad(y, [w])
    assert g.stype == "row_sparse"
    np.testing.assert_array_equal(g.indices.asnumpy(), [0, 4])


@pytest.mark.parametrize("array_stype", ["default", "row_sparse", "csr"])
@pytest.mark.parametrize("grad_stype", [None, "default", "row_sparse", "csr"])
def test_attach_grad_storage_types(array_stype, grad_stype):
    x = nd.ones((3, 4)).tostype(array_stype)
    x.attach_grad(stype=grad_stype)
    assert x.grad.stype == (grad_stype or array_stype)
    with autograd.record():
        y = x * 2
    y.backward()
    assert x.grad.stype == (grad_stype or array_stype)
    np.testing.assert_array_equal(x.grad.asnumpy(), np.full((3, 4), 2, np.float32))


def test_mark_variables_with_sparse_gradient_buffer():
    x = nd.ones((4, 2))
    g = nd.sparse.zeros("row_sparse", (4, 2))
    autograd.mark_variables([x], [g])
    with autograd.record():
        y = nd.Embedding(nd.array([1]), x, input_dim=4, output_dim=2, sparse_grad=True)
    y.backward()
    assert x.grad is g and g.stype == "row_sparse"
    np.testing.assert_array_equal(g.indices.asnumpy(), [1])


def test_parameter_storage_types_and_errors():
    p = gluon.Parameter("w", shape=(6, 2), stype="row_sparse", grad_stype="row_sparse")
    p.initialize(init=mx.init.One(), ctx=[mx.cpu(0), mx.cpu(1)])
    assert p.grad(mx.cpu(0)).stype == "row_sparse"
    with pytest.raises(RuntimeError, match="row_sparse_data"):
        p.data()
    with pytest.raises(RuntimeError, match="no Trainer"):
        p.row_sparse_data(nd.array([0]))
    trainer = gluon.Trainer([p], "sgd")
    w = p.row_sparse_data(nd.array([4, 1, 4], ctx=mx.cpu(1)))
    assert w.stype == "row_sparse" and w.context == mx.cpu(1)
    np.testing.assert_array_equal(w.indices.asnumpy(), [1, 4])
    assert len(p.list_row_sparse_data(nd.array([0]))) == 2
    with pytest.raises(RuntimeError, match="More than one trainers"):
        gluon.Trainer([p], "sgd")
    assert trainer._update_on_kvstore is True and trainer._kvstore is not None
    with pytest.raises(ValueError, match="grad_stype must be one of"):
        gluon.Parameter("bad", shape=(2,), grad_stype="sparse")
    dense = gluon.Parameter("d", shape=(2, 2))
    dense.initialize()
    with pytest.raises(RuntimeError, match="data\\(\\) instead"):
        dense.row_sparse_data(nd.array([0]))


@pytest.mark.parametrize("stype,grad_stype,update_on_kv,expected", [
    ("default", "row_sparse", None, False),
    ("default", "row_sparse", True, True),
    ("row_sparse", "row_sparse", None, True),
    ("row_sparse", "row_sparse", False, ValueError),
])
def test_trainer_kvstore_rules_with_sparse_storage(stype, grad_stype, update_on_kv, expected):
    # MXNet's rules (test_gluon_trainer.test_trainer_sparse_kv): two contexts, lr 0.1,
    # gradient 1 per context -> every weight -0.2
    x = gluon.Parameter("x", shape=(10, 1), stype=stype, grad_stype=grad_stype)
    x.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="zeros")
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 0.1}, kvstore="device",
                            update_on_kvstore=update_on_kv)
    rows = nd.arange(0, 10)
    if expected is ValueError:
        with pytest.raises(ValueError, match="update_on_kvstore=False"):
            x.list_row_sparse_data(rows)
        return
    ws = x.list_data() if stype == "default" else x.list_row_sparse_data(rows)
    with autograd.record():
        for w in ws:
            (w + 1).backward()
    trainer.step(1)
    assert trainer._update_on_kvstore is expected
    got = x.data(mx.cpu(0)) if stype == "default" else x.row_sparse_data(rows)
    np.testing.assert_allclose(got.asnumpy(), -0.2, rtol=1e-6)


def test_kvstore_row_sparse_pull_keeps_only_the_rows_asked():
    kv = mx.kv.create("local")
    full = nd.array(np.arange(12, dtype=np.float32).reshape(6, 2)).tostype("row_sparse")
    kv.init("w", full)
    outs = [nd.sparse.zeros("row_sparse", (6, 2)), nd.sparse.zeros("row_sparse", (6, 2))]
    kv.row_sparse_pull("w", out=outs, row_ids=[nd.array([5, 0, 5]), nd.array([2])])
    np.testing.assert_array_equal(outs[0].indices.asnumpy(), [0, 5])
    np.testing.assert_array_equal(outs[0].data.asnumpy(), [[0, 1], [10, 11]])
    np.testing.assert_array_equal(outs[1].indices.asnumpy(), [2])
    with pytest.raises(ValueError, match="row_sparse"):
        kv.row_sparse_pull("w", out=nd.zeros((6, 2)), row_ids=nd.array([1]))
    # pushing row_sparse gradients sums their rows
    kv2 = mx.kv.create("local")
    kv2.init(0, nd.zeros((4, 1)))
    g = [nd.sparse.row_sparse_array(([[1.]], [1]), shape=(4, 1)),
         nd.sparse.row_sparse_array(([[2.], [3.]], [1, 3]), shape=(4, 1))]
    kv2.push(0, g)
    out = nd.zeros((4, 1))
    kv2.pull(0, out=out)
    np.testing.assert_array_equal(out.asnumpy().ravel(), [0, 3, 0, 3])


def test_sparse_embedding_trains_like_dense_embedding():
    # plain SGD (no momentum, no weight decay): lazy and dense updates agree exactly
    batches = [nd.array([[1, 3], [3, 7]]), nd.array([[0, 7], [9, 9]])]
    nets = [gluon.contrib.nn.SparseEmbedding(10, 4), gluon.nn.Embedding(10, 4)]
    w0 = np.random.RandomState(3).uniform(-1, 1, (10, 4)).astype(np.float32)
    trainers = []
    for net in nets:
        net.initialize(mx.init.Constant(0))
        trainers.append(gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5}))
    nets[0].weight._data[0][:] = w0
    nets[1].weight.set_data(nd.array(w0))
    for x in batches:
        for net, tr in zip(nets, trainers):
            with autograd.record():
                loss = (net(x) ** 2).sum()
            loss.backward()
            tr.step(2)
    sparse_w = nets[0].weight.row_sparse_data(nd.arange(0, 10)).asnumpy()
    np.testing.assert_allclose(sparse_w, nets[1].weight.data().asnumpy(), rtol=1e-6)
    assert not np.allclose(sparse_w, w0)


def test_gluon_embedding_sparse_grad_holds_only_used_rows():
    emb = gluon.nn.Embedding(1000, 8, sparse_grad=True)
    emb.initialize()
    assert emb.weight.grad_stype == "row_sparse"
    with autograd.record():
        y = emb(nd.array([[5, 900], [5, 6]]))
    y.backward()
    g = emb.weight.grad()
    assert g.stype == "row_sparse" and g.data.shape == (3, 8)
    np.testing.assert_array_equal(g.indices.asnumpy(), [5, 6, 900])


def test_symbol_block_refuses_row_sparse_variables():
    data = mx.sym.var("data")
    weight = mx.sym.var("weight", attr={"__storage_type__": "1"})  # MXNet's id of row_sparse
    with pytest.raises(ValueError, match="row_sparse"):
        gluon.SymbolBlock(mx.sym.dot(data, weight), data)


def test_clip_global_norm_keeps_sparse_storage():
    x1, x2 = nd.ones((3, 3)).tostype("row_sparse"), nd.ones((4, 4))
    assert gluon.utils.clip_global_norm([x1, x2], 1.0) == pytest.approx(5.0)
    assert x1.stype == "row_sparse"
    np.testing.assert_allclose(x1.asnumpy(), 0.2, rtol=1e-6)
    np.testing.assert_allclose(x2.asnumpy(), 0.2, rtol=1e-6)


def test_trainer_states_of_a_sparse_weight_stay_row_sparse(tmp_path):
    se = gluon.contrib.nn.SparseEmbedding(50, 4)
    se.initialize(mx.init.Zero())
    tr = gluon.Trainer(se.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    for _ in range(2):
        with autograd.record():
            out = se(nd.array([4, 8]))
        out.backward()
        tr.step(1)
    tr.save_states(str(tmp_path / "se.states"))
    tr.load_states(str(tmp_path / "se.states"))
    mom = tr._kvstore._updater.states[0]
    assert mom.stype == "row_sparse"
    # momentum after two lazy steps of gradient 1: -0.1, then 0.9 * -0.1 - 0.1
    np.testing.assert_allclose(mom.asnumpy()[[4, 8]], -0.19, rtol=1e-6)
    np.testing.assert_array_equal(mom.asnumpy()[[0, 9]], 0)


def test_split_and_load_keeps_csr_batches_sparse():
    batch = nd.sparse.csr_matrix(([2.0, 3.0], [999, 5], [0] * 10 + [1] * 90 + [2]),
                                 shape=(100, 1000))
    parts = gluon.utils.split_and_load(batch, [mx.cpu(0), mx.cpu(1)])
    assert [p.stype for p in parts] == ["csr", "csr"]
    assert [p.shape for p in parts] == [(50, 1000), (50, 1000)]
    np.testing.assert_array_equal(parts[0].asnumpy()[9, 999], 2.0)
    np.testing.assert_array_equal(parts[1].asnumpy()[49, 5], 3.0)


def test_embedding_of_a_row_sparse_weight_reads_stored_rows_only():
    w0 = np.arange(12, dtype=np.float32).reshape(6, 2)
    w = nd.array(w0).tostype("row_sparse")
    w = nd.sparse.retain(w, nd.array([1, 4]))  # rows 1 and 4 stored, the others read zero
    w.attach_grad()
    x = nd.array([[4, 0], [1, 1]])
    with autograd.record():
        y = nd.Embedding(x, w, input_dim=6, output_dim=2)
        loss = (y * nd.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]])).sum()
    loss.backward()
    expect = np.zeros((6, 2), np.float32)
    expect[[1, 4]] = w0[[1, 4]]
    np.testing.assert_array_equal(y.asnumpy(), expect[x.asnumpy().astype(int)])
    assert w.grad.stype == "row_sparse"
    np.testing.assert_array_equal(w.grad.indices.asnumpy(), [0, 1, 4])
    np.testing.assert_array_equal(w.grad.asnumpy()[[0, 1, 4]], [[3, 4], [12, 14], [1, 2]])


@pytest.mark.parametrize("grad_stype", ["row_sparse", "default"])
def test_dot_csr_weight_gradient_holds_the_batch_features(grad_stype):
    # dot(csr, w): w's gradient csr.T @ dy, made as the rows of the features present
    a = np.zeros((3, 10), np.float32)
    a[0, 2], a[1, 7], a[2, 2], a[2, 9] = 1.0, 2.0, 3.0, 4.0
    x = nd.array(a).tostype("csr")
    w = nd.array(np.random.RandomState(4).uniform(-1, 1, (10, 2)))
    w.attach_grad(stype=grad_stype)
    dy = np.random.RandomState(5).uniform(-1, 1, (3, 2)).astype(np.float32)
    with autograd.record():
        y = nd.dot(x, w)
    y.backward(nd.array(dy))
    np.testing.assert_allclose(y.asnumpy(), a @ w.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(w.grad.asnumpy(), a.T @ dy, rtol=1e-6)
    assert w.grad.stype == grad_stype
    if grad_stype == "row_sparse":
        np.testing.assert_array_equal(w.grad.indices.asnumpy(), [2, 7, 9])


def test_row_sparse_parameter_with_a_dense_gradient():
    # MXNet's default grad_stype: a row_sparse parameter whose gradient buffer is dense
    # (initialize() used to fail building it as a RowSparseNDArray)
    p = gluon.Parameter("w", shape=(4, 2), stype="row_sparse")
    p.initialize(init=mx.init.Constant(1.0))
    g = p.grad()
    assert g.stype == "default" and g.shape == (4, 2) and not g.asnumpy().any()
    gluon.Trainer([p], "sgd", {"learning_rate": 0.1})
    w = p.row_sparse_data(nd.array([0, 2]))
    assert w.stype == "row_sparse"
    np.testing.assert_allclose(w.asnumpy(), [[1, 1], [0, 0], [1, 1], [0, 0]])


def test_contrib_sparse_embedding_is_embedding_with_a_row_sparse_gradient():
    """MXNet's deprecated operator form: the same rows forward, the row_sparse gradient
    without asking for it (imperatively and in a bound graph)."""
    rng = np.random.RandomState(1)
    w0 = rng.uniform(-1, 1, (6, 4))
    idx = nd.array([[0, 2], [2, 5]])
    w = nd.array(w0)
    w.attach_grad(stype="row_sparse")
    with autograd.record():
        y = nd.contrib.SparseEmbedding(idx, w, input_dim=6, output_dim=4)
    np.testing.assert_array_equal(
        y.asnumpy(), nd.Embedding(idx, nd.array(w0), input_dim=6, output_dim=4).asnumpy())
    y.backward(nd.ones(y.shape) * 2)
    assert w.grad.stype == "row_sparse"
    np.testing.assert_array_equal(w.grad.indices.asnumpy(), [0, 2, 5])
    np.testing.assert_array_equal(w.grad.data.asnumpy(), [[2] * 4, [4] * 4, [2] * 4])
    s = mx.sym.contrib.SparseEmbedding(mx.sym.var("data"), mx.sym.var("w", stype="row_sparse"),
                                       input_dim=6, output_dim=4, name="embed")
    assert s.list_arguments() == ["data", "w"]
    assert s.infer_shape(data=(2, 2))[1] == [(2, 2, 4)]
    with pytest.raises(mx.MXNetError, match="input_dim"):
        nd.contrib.SparseEmbedding(idx, w, output_dim=4)
