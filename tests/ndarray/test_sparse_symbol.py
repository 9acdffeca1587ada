"""mx.sym.sparse and storage types in graphs: the graph computes the dense values of MXNet's
sparse results (numbers from MXNet 1.9.1 written below, made with the same calls)."""
import importlib.util
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym

A = np.array([[0.5, 0, 0.2], [0, 0, 0], [0.1, 0, 0.3]], np.float32)
FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")


def test_sparse_symbols_compute_mxnet_values_on_sparse_inputs():
    y = sym.sparse.dot(sym.var("x", stype="csr"), sym.var("w"))
    exe = y.bind(mx.cpu(), {"x": nd.array(A).tostype("csr"),
                            "w": nd.array(np.arange(6.0).reshape(3, 2))})
    # MXNet 1.9.1: [[0.8, 1.5], [0, 0], [1.2, 1.6]]
    np.testing.assert_allclose(exe.forward()[0].asnumpy(), [[0.8, 1.5], [0, 0], [1.2, 1.6]],
                               rtol=1e-6)
    z = sym.sparse.retain(sym.var("r", stype="row_sparse"), sym.var("i"))
    out = z.bind(mx.cpu(), {"r": nd.array(A).tostype("row_sparse"),
                            "i": nd.array([0, 1])}).forward()[0]
    want = A.copy()
    want[2] = 0
    np.testing.assert_array_equal(out.asnumpy(), want)


def test_storage_nodes_are_written_as_mxnet_writes_them():
    c = sym.cast_storage(sym.var("d"), stype="csr")
    assert [(n["op"], n.get("attrs")) for n in json.loads(c.tojson())["nodes"]] == [
        ("null", None), ("cast_storage", {"stype": "csr"})]
    z = sym.sparse.retain(sym.var("r", stype="row_sparse"), sym.var("i"))
    assert [(n["op"], n.get("attrs")) for n in json.loads(z.tojson())["nodes"]] == [
        ("null", {"__storage_type__": "1"}), ("null", None), ("_sparse_retain", None)]
    np.testing.assert_array_equal(c.eval(d=nd.array(A))[0].asnumpy(), A)


def test_sparse_adagrad_update_matches_mxnet():
    w, h = nd.ones((4, 2)), nd.zeros((4, 2))
    g = nd.sparse.row_sparse_array(([[1.0, 2.0]], [2]), shape=(4, 2))
    nd.sparse.adagrad_update(w, g, h, lr=0.1, out=w)
    # MXNet 1.9.1 gives row 2 = 0.9 (1 - 0.1 * g / sqrt(g * g)), history row 2 = [1, 4]
    want_w = np.ones((4, 2), np.float32)
    want_w[2] = 0.9
    np.testing.assert_allclose(w.asnumpy(), want_w, rtol=1e-6)
    want_h = np.zeros((4, 2), np.float32)
    want_h[2] = [1, 4]
    np.testing.assert_array_equal(h.asnumpy(), want_h)


_spec = importlib.util.spec_from_file_location(
    "sparse_stype_graphs", os.path.join(FIX, "sparse_stype_graphs.py"))
_graphs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_graphs)
with open(os.path.join(FIX, "sparse_stypes_mxnet.json")) as _f:
    STYPES = json.load(_f)
GRAPHS = _graphs.graphs(mx)


def _inputs(spec):
    # the inputs make_sparse_stypes.py binds (same seed, same rule)
    rng = np.random.RandomState(0)
    out = {}
    for name, (stype, shape) in sorted(spec.items()):
        if name == "i":
            out[name] = np.array([0, 3], np.float32)
            continue
        v = rng.rand(*shape) * (rng.rand(*shape) > 0.5)
        v[0] = 1.0
        out[name] = v.astype(np.float32)
    return out


@pytest.mark.parametrize("name", sorted(STYPES))
def test_infer_storage_type_and_values_match_mxnet_executor(name):
    s, spec = GRAPHS[name]
    _, out_stypes, _ = s.infer_storage_type(**{k: v[0] for k, v in spec.items()})
    assert out_stypes == [STYPES[name][0]]
    vals = _inputs(spec)
    exe = s.bind(mx.cpu(), {k: nd.array(v).tostype(spec[k][0]) for k, v in vals.items()})
    for _ in range(2):  # the outputs keep MXNet's storage from call to call
        out = exe.forward()[0]
        assert out.stype == STYPES[name][0] and exe.outputs[0] is out
        np.testing.assert_allclose(out.asnumpy(), STYPES[name][1], rtol=1e-5, atol=1e-6)


def test_infer_storage_type_reads_var_attributes_and_refuses_unknown_names():
    w = sym.var("w", stype="row_sparse")
    assert sym.square(w).infer_storage_type() == (["row_sparse"], ["row_sparse"], [])
    with pytest.raises(ValueError, match="unknown input"):
        sym.square(w).infer_storage_type(v="csr")
    with pytest.raises(ValueError, match="node .*clip.*a_min <= 0"):
        sym.clip(w, 0.5, 1.0, name="clip0").infer_storage_type()


def test_executor_writes_sparse_gradient_buffers_in_their_storage():
    x, y = sym.var("x"), sym.var("y")
    args = [nd.array(A).tostype("row_sparse"), nd.array(A).tostype("csr")]
    grads = [nd.zeros((3, 3), stype="row_sparse"), nd.zeros((3, 3), stype="csr")]
    exe = sym.add_n(x, y).bind(mx.cpu(), args=args, args_grad=grads)
    exe.forward(is_train=True)
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), 2 * A)
    head = np.arange(9.0, dtype=np.float32).reshape(3, 3)
    exe.backward([nd.array(head)])
    for g, stype in zip(grads, ("row_sparse", "csr")):
        assert g.stype == stype
        np.testing.assert_array_equal(g.asnumpy(), head)


def test_executor_writes_back_a_sparse_auxiliary_state():
    data = sym.var("data")
    bn = sym.BatchNorm(data, fix_gamma=False, momentum=0.5, name="bn")
    x = np.array([[1.0, 2.0], [3.0, 6.0]], np.float32)
    mean = nd.zeros((2,), stype="row_sparse")
    exe = bn.bind(mx.cpu(), {"data": nd.array(x), "bn_gamma": nd.ones((2,)),
                             "bn_beta": nd.zeros((2,))},
                  aux_states={"bn_moving_mean": mean, "bn_moving_var": nd.ones((2,))})
    exe.forward(is_train=True)
    assert mean.stype == "row_sparse"
    np.testing.assert_allclose(mean.asnumpy(), 0.5 * x.mean(axis=0), rtol=1e-6)


@pytest.mark.parametrize("stype", ["row_sparse", "csr"])
def test_maximum_minimum_hypot_keep_sparse_storage_imperatively(stype):
    a = np.array([[0, -1, 0], [2, 0, 0], [0, 0, 0]], np.float32)
    b = np.array([[3, 0, 0], [0, 0, 0], [0, 0, -4]], np.float32)
    for fn, want in ((nd._internal._maximum, np.maximum), (nd._internal._minimum, np.minimum),
                     (nd._internal._hypot, np.hypot)):
        out = fn(nd.array(a).tostype(stype), nd.array(b).tostype(stype))
        assert out.stype == stype
        np.testing.assert_allclose(out.asnumpy(), want(a, b), rtol=1e-6)
    with pytest.raises(ValueError, match="_maximum: shapes must be equal"):
        nd._internal._maximum(nd.array(a).tostype(stype), nd.ones((2, 3)).tostype(stype))


def test_simple_bind_gives_a_rows_gradient_a_row_sparse_buffer():
    # MXNet 1.9.1's test_sparse_operator.py::test_sparse_embedding checks this storage
    for sparse_grad, want in ((True, "row_sparse"), (False, "default")):
        e = sym.Embedding(sym.var("data"), sym.var("w"), input_dim=6, output_dim=2,
                          sparse_grad=sparse_grad)
        exe = e.simple_bind(mx.cpu(), grad_req={"data": "null", "w": "write"}, data=(3,))
        exe.arg_dict["data"][:] = np.array([4, 1, 4])
        exe.arg_dict["w"][:] = np.arange(12.0).reshape(6, 2)
        exe.forward(is_train=True)
        exe.backward([nd.ones((3, 2))])
        g = exe.grad_dict["w"]
        assert g.stype == want
        want_g = np.zeros((6, 2), np.float32)
        want_g[1], want_g[4] = 1, 2
        np.testing.assert_array_equal(g.asnumpy(), want_g)


def _factorization_machine(n_features=8, factors=2):
    """MXNet's sparse/factorization_machine example's graph: a csr batch, a linear weight and
    factors declared row_sparse, `_square_sum` of the factors, a logistic output."""
    x = sym.var("data", stype="csr")
    normal = mx.init.Normal(0.1)
    v = sym.var("v", shape=(n_features, factors), stype="row_sparse", init=normal)
    w = sym.var("w", shape=(n_features, 1), stype="row_sparse", init=normal)
    w0 = sym.var("w0", shape=(1,), init=normal)
    linear = sym.broadcast_add(sym.dot(x, w), w0)
    v_s = sym._internal._square_sum(data=v, axis=1, keepdims=True)
    pairs = 0.5 * sym.square(sym.dot(x, v))
    model = sym.sum(sym.Concat(linear, pairs, dim=1), axis=1, keepdims=True) \
        - 0.5 * sym.dot(x.square(), v_s)
    return sym.LogisticRegressionOutput(model, sym.var("softmax_label"))


def test_dot_of_a_csr_batch_gives_its_weights_row_sparse_gradients():
    """As MXNet's backward storage inference: the weight of dot(csr, w) and a row_sparse
    input of _square_sum (axis=1, keepdims) get row_sparse gradients; the csr batch not."""
    from gluonlite.symbol.storage import gradient_storage_types
    stypes = gradient_storage_types(_factorization_machine())
    assert stypes == {"data": "default", "w": "row_sparse", "w0": "default",
                      "v": "row_sparse", "softmax_label": "default"}
    # Embedding's weight: sparse_grad alone decides, whatever the weight declares
    for sparse_grad, want in ((False, "default"), (True, "row_sparse")):
        e = sym.Embedding(sym.var("d"), sym.var("ew", stype="row_sparse"), input_dim=6,
                          output_dim=2, sparse_grad=sparse_grad)
        assert gradient_storage_types(e)["ew"] == want
    # imperatively, the same gradients as rows
    xc = nd.array(A).tostype("csr")
    wv = nd.array(np.arange(6.0).reshape(3, 2)).tostype("row_sparse")
    wv.attach_grad(stype="row_sparse")
    with mx.autograd.record():
        y = nd.sum(nd.sparse.dot(xc, wv)) + \
            nd.sum(nd._internal._square_sum(wv, axis=1, keepdims=True))
    y.backward()
    assert wv.grad.stype == "row_sparse"
    want = A.T @ np.ones((3, 2)) + 2 * np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(wv.grad.asnumpy(), want, rtol=1e-6)


# `w` and `v` after three Adam steps of the module below, on MXNet 1.9.1 (the same script)
_FM_W_MXNET = [0.1501520425081253, -0.01951582171022892, 0.03194558247923851,
               -0.08604838699102402, -0.25329798460006714, 0.06610599160194397,
               0.08591531962156296, -0.07421649992465973]
_FM_V_MXNET = [0.17647960782051086, 0.040090132504701614, 0.0979737788438797,
               0.22418931126594543, 0.1868196725845337, -0.09766392409801483,
               0.09494496136903763, -0.01507184375077486, -0.010130089707672596,
               0.04125959798693657, 0.014478771016001701, 0.1455017626285553,
               0.07628088444471359, 0.012262634932994843, 0.04438632354140282,
               0.03336743265390396]


def test_a_sparse_module_steps_only_the_rows_its_batches_hold():
    """MXNet's factorization-machine example's training, in small: Adam through a KVStore
    with weight decay, a csr batch per step. MXNet gives `w` and `v` row_sparse gradients,
    so only the rows a batch holds step (its lazy update); with dense gradients every row
    decayed here (3e-3 from MXNet's weights after three steps)."""
    f, k, b = 8, 2, 4
    x = sym.var("data", stype="csr")
    zero = mx.init.Zero()
    v = sym.var("v", shape=(f, k), stype="row_sparse", init=zero, lr_mult=0.0001,
                wd_mult=1e-5)
    w = sym.var("w", shape=(f, 1), stype="row_sparse", init=zero, lr_mult=0.001,
                wd_mult=0.001)
    w0 = sym.var("w0", shape=(1,), init=zero, lr_mult=0.1, wd_mult=0.01)
    linear = sym.broadcast_add(sym.dot(x, w), w0)
    v_s = sym._internal._square_sum(data=v, axis=1, keepdims=True)
    pairs = 0.5 * sym.square(sym.dot(x, v))
    model = sym.sum(sym.Concat(linear, pairs, dim=1), axis=1, keepdims=True) \
        - 0.5 * sym.dot(x.square(), v_s)
    mod = mx.mod.Module(sym.LogisticRegressionOutput(model, sym.var("softmax_label")))
    mod.bind(data_shapes=[("data", (b, f))], label_shapes=[("softmax_label", (b,))])
    mod.init_params()
    r = np.random.RandomState(0)
    vals = {"v": r.normal(0, 0.1, (f, k)), "w": r.normal(0, 0.1, (f, 1)),
            "w0": np.array([0.05])}
    mod.set_params({n: nd.array(a) for n, a in vals.items()}, {})
    mod.init_optimizer(kvstore=mx.kv.create("local"), optimizer="adam",
                       optimizer_params=(("learning_rate", 1), ("wd", 1)))
    for step in range(3):
        xx = np.zeros((b, f), np.float32)
        xx[:, [[1, 4, 6], [0, 4, 5], [2, 3, 6]][step]] = r.rand(b, 3) + 0.5
        batch = mx.io.DataBatch([nd.array(xx).tostype("csr")], [nd.array([1, 0, 1, 0])])
        mod.forward_backward(batch)
        mod.update()
    got = mod.get_params()[0]
    np.testing.assert_allclose(got["w"].asnumpy().ravel(), _FM_W_MXNET, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got["v"].asnumpy().ravel(), _FM_V_MXNET, rtol=1e-5, atol=1e-7)


def test_check_symbolic_backward_keeps_the_asked_gradient_storage():
    x, y = sym.var("x"), sym.var("y")
    grads = mx.test_utils.check_symbolic_backward(
        sym.elemwise_mul(x, y), {"x": A, "y": 2 * A}, [np.ones((3, 3))], [2 * A, A],
        grad_stypes={"x": "row_sparse", "y": "csr"})
    assert grads["x"].stype == "row_sparse" and grads["y"].stype == "csr"
    with pytest.raises(ValueError, match="grad_stypes"):
        mx.test_utils.check_symbolic_backward(x * 2, [A], None, [2 * np.ones((3, 3))],
                                              grad_stypes={"x": "dense"})


def test_backward_without_a_gradient_path_zeroes_sparse_buffers():
    x = sym.var("x")
    g = nd.array(A).tostype("csr")
    exe = sym.BlockGrad(x).bind(mx.cpu(), {"x": nd.array(A)}, args_grad={"x": g})
    exe.forward(is_train=True)
    exe.backward([nd.ones((3, 3))])
    assert g.stype == "csr"
    np.testing.assert_array_equal(g.asnumpy(), np.zeros((3, 3)))
