"""Block API: naming, parameters, deferred init, errors, caching, save/load, export/import."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, gluon, autograd
from gluonlite.gluon import nn
from gluonlite.ndarray import serialization

# nd.save / nd.load are the public names (exposed by the ndarray package)
nd_save = getattr(nd, "save", serialization.save)
nd_load = getattr(nd, "load", serialization.load)

R = np.random.RandomState(5)
FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "mxnet")


class TwoDense(gluon.HybridBlock):
    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.a = nn.Dense(4, activation="tanh")
            self.b = nn.Dense(2)

    def hybrid_forward(self, F, x, y):
        return [self.a(x), self.b(y)]


def test_naming_and_collect_params():
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(nn.Dense(3), nn.Dense(2), nn.BatchNorm())
    keys = list(net.collect_params().keys())
    assert keys == ["net_dense0_weight", "net_dense0_bias", "net_dense1_weight",
                    "net_dense1_bias", "net_batchnorm0_gamma", "net_batchnorm0_beta",
                    "net_batchnorm0_running_mean", "net_batchnorm0_running_var"]
    assert list(net.collect_params(".*weight").keys()) == ["net_dense0_weight",
                                                           "net_dense1_weight"]
    assert list(net.collect_params("net_dense1").keys()) == ["net_dense1_weight",
                                                             "net_dense1_bias"]
    d1, d2 = nn.Dense(2), nn.Dense(2)
    n1, n2 = int(d1.prefix[5:-1]), int(d2.prefix[5:-1])
    assert d1.prefix.startswith("dense") and n2 == n1 + 1
    assert d1.name == d1.prefix[:-1]
    assert list(d1.params.keys()) == [d1.prefix + "weight", d1.prefix + "bias"]


def test_default_initialization():
    d = nn.Dense(50, in_units=40)
    d.initialize()
    w, b = d.weight.data().asnumpy(), d.bias.data().asnumpy()
    assert np.abs(w).max() <= 0.07 and w.std() > 0.03
    assert not b.any()
    bn = nn.BatchNorm(in_channels=3)
    bn.initialize()
    assert (bn.gamma.data().asnumpy() == 1).all() and (bn.running_var.data().asnumpy() == 1).all()


def test_deferred_init_and_reinference():
    net = nn.Dense(3)
    net.initialize()
    assert net.weight.shape == (3, 0)
    with pytest.raises(gluon.DeferredInitializationError, match=net.weight.name):
        net.weight.data()
    y = net(nd.ones((2, 7)))
    assert y.shape == (2, 3) and net.weight.shape == (3, 7)
    h = nn.Dense(3)
    h.initialize()
    h.hybridize()
    assert h(nd.ones((2, 5))).shape == (2, 3)
    assert h(nd.ones((4, 5))).shape == (4, 3)      # new batch size: same graph, new plan
    with pytest.raises(ValueError):
        h(nd.ones((2, 6)))                           # contradicts the inferred weight


def test_uninitialized_error_names_parameter():
    net = nn.Dense(3, in_units=2, prefix="mine_")
    with pytest.raises(RuntimeError, match="mine_weight"):
        net(nd.ones((1, 2)))


def test_bad_hybrid_forward_output():
    class Bad(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return "nope"
    b = Bad()
    assert b(nd.ones((2,))) == "nope"  # imperatively, MXNet returns whatever it returns
    b.hybridize()
    with pytest.raises(TypeError, match="must return an array"):
        b(nd.ones((2,)))


def test_a_child_may_return_more_than_arrays_inside_a_hybridized_parent():
    # GluonTS's self-attention returns (output, dict of cached keys and values); its parent
    # keeps the output, and the parent's graph has arrays only
    class Attention(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x * 2, {"key": x}

    class Parent(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.att = Attention()

        def hybrid_forward(self, F, x):
            out, cache = self.att(x)
            return out + cache["key"]
    net = Parent()
    x = nd.array([1.0, 2.0])
    out, cache = net.att(x)
    assert cache["key"] is x
    want = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_array_equal(net(x).asnumpy(), want)
    np.testing.assert_array_equal(want, [3.0, 6.0])


def test_hybridize_reaches_children_and_nested_io():
    outer = nn.Sequential()
    inner = TwoDense()
    outer.add(inner)
    outer.hybridize(static_alloc=True)
    assert inner._active and inner.a._active
    inner.initialize()
    x, y = nd.array(R.uniform(size=(2, 3))), nd.array(R.uniform(size=(2, 5)))
    out = inner(x, y)
    assert isinstance(out, list) and out[0].shape == (2, 4) and out[1].shape == (2, 2)
    assert inner._cached_graph[1].list_inputs()[0] == "data0"
    assert "data1" in inner._cached_graph[1].list_inputs()


@pytest.mark.parametrize("static_alloc", [False, True])
def test_one_symbol_of_several_outputs_comes_back_as_a_list(static_alloc):
    """hybrid_forward returning one Symbol with three outputs (not a list of them): the
    hybridized call gives the three, as the imperative call (and MXNet) does."""
    net = nn.HybridLambda(lambda F, a: F.split(a, num_outputs=3, axis=1))
    x = nd.array(R.uniform(size=(2, 6)))
    want = net(x)
    net.hybridize(static_alloc=static_alloc)
    got = net(x)
    assert isinstance(got, list) and len(got) == len(want) == 3
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())


def test_numpy_dialect_symbol_of_several_outputs_comes_back_as_a_list():
    """The same for a NumPy-dialect graph (whose symbols have no len()): npx.layer_norm with
    output_mean_var gives its three outputs as mx.np arrays, hybridized as imperatively."""
    from gluonlite import np as mnp, npx

    class Norm(gluon.HybridBlock):
        def hybrid_forward(self, F, a, g, b):
            return F.npx.layer_norm(a, g, b, output_mean_var=True)

    npx.set_np()
    try:
        net = Norm()
        args = [mnp.array(R.uniform(size=(2, 3)), dtype="float32"), mnp.ones(3), mnp.zeros(3)]
        want = net(*args)
        net.hybridize()
        got = net(*args)
        assert isinstance(got, list) and len(got) == len(want) == 3
        for g, w in zip(got, want):
            assert isinstance(g, mnp.ndarray)
            np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6)
    finally:
        npx.reset_np()


def test_children_of_hybridblock_must_be_hybrid():
    hs = nn.HybridSequential()
    with pytest.raises(ValueError, match="HybridSequential"):
        hs.add(nn.Lambda(lambda x: x))


def test_lambda_and_summary(capsys):
    net = nn.Sequential()
    net.add(nn.Dense(4, in_units=3), nn.Lambda("relu"))
    net.initialize()
    x = nd.array(R.uniform(-1, 1, (2, 3)))
    np.testing.assert_allclose(net(x).asnumpy(), np.maximum(net[0](x).asnumpy(), 0))
    net.summary(x)
    text = capsys.readouterr().out
    assert "Dense-1" in text and "(2, 4)" in text and "Total params: 16" in text


def test_save_load_parameters_roundtrip(tmp_path):
    def make():
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Dense(4, in_units=3), nn.Dense(2, in_units=4))
        return net
    a, b = make(), make()
    a.initialize()
    b.initialize(mx.init.Zero())
    f = str(tmp_path / "p.params")
    a.save_parameters(f)
    assert sorted(nd_load(f)) == ["0.bias", "0.weight", "1.bias", "1.weight"]
    b.load_parameters(f)
    x = nd.ones((1, 3))
    np.testing.assert_allclose(a(x).asnumpy(), b(x).asnumpy())
    single = nn.Dense(4, in_units=3)
    a[0].save_parameters(str(tmp_path / "d.params"))
    single.load_parameters(str(tmp_path / "d.params"))
    np.testing.assert_allclose(single.weight.data().asnumpy(), a[0].weight.data().asnumpy())


def test_load_parameters_lists_every_problem(tmp_path):
    f = str(tmp_path / "bad.params")
    nd_save(f, {"0.weight": nd.ones((4, 3)), "1.weight": nd.ones((5, 5)),
                "9.extra": nd.ones((1,))})
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(4, in_units=3), nn.Dense(2, in_units=4))
    net.initialize()
    with pytest.raises(ValueError) as e:
        net.load_parameters(f)
    msg = str(e.value)
    for part in ("0.bias", "1.bias", "9.extra", "1.weight (expected (2, 4)", "bad.params"):
        assert part in msg


def test_export_import_roundtrip(tmp_path):
    net = nn.HybridSequential(prefix="m_")
    with net.name_scope():
        net.add(nn.Dense(6), nn.BatchNorm(), nn.Activation("relu"), nn.Dense(3))
    net.initialize()
    with pytest.raises(ValueError, match="hybridize"):
        net.export(str(tmp_path / "m"))
    net.hybridize()
    x = nd.array(R.uniform(-1, 1, (4, 5)))
    with autograd.record():
        net(x)                      # a training step moves the running statistics
    y = net(x)
    sym_file, par_file = net.export(str(tmp_path / "m"), epoch=3)
    assert par_file.endswith("m-0003.params")
    saved = nd_load(par_file)
    assert "arg:m_dense0_weight" in saved and "aux:m_batchnorm0_running_mean" in saved
    graph = json.load(open(sym_file))
    assert graph["nodes"][0]["name"] == "data"
    back = gluon.SymbolBlock.imports(sym_file, ["data"], par_file)
    np.testing.assert_allclose(back(x).asnumpy(), y.asnumpy(), rtol=1e-5, atol=1e-6)
    # a SymbolBlock composes inside a hybridized parent too
    outer = nn.HybridSequential()
    outer.add(back)
    outer.hybridize()
    np.testing.assert_allclose(outer(x).asnumpy(), y.asnumpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["mlp", "bnnet", "foreach_lstm", "while_gru", "cond_then"])
def test_mxnet_fixture_models(name):
    io = np.load(os.path.join(FIX, f"{name}-io.npz"))
    ins = sorted(k for k in io if k.startswith("in"))
    outs = sorted(k for k in io if k.startswith("out"))
    names = ["data"] if len(ins) == 1 else [f"data{i}" for i in range(len(ins))]
    net = gluon.SymbolBlock.imports(os.path.join(FIX, f"{name}-symbol.json"), names,
                                    os.path.join(FIX, f"{name}-0000.params"))
    res = net(*[nd.array(io[k], dtype=io[k].dtype) for k in ins])
    res = res if isinstance(res, list) else [res]
    assert len(res) == len(outs)
    for got, k in zip(res, outs):
        np.testing.assert_allclose(got.asnumpy(), io[k], rtol=1e-5, atol=1e-5)


def test_shared_params_and_grad_req_add():
    a = nn.Dense(3, in_units=2, prefix="s_")
    b = nn.Dense(3, in_units=2, params=a.params)
    assert b.weight is a.weight
    a.initialize()
    a.collect_params().setattr("grad_req", "add")
    x = nd.ones((1, 2))
    for _ in range(2):
        with autograd.record():
            y = a(x).sum()
        y.backward()
    np.testing.assert_allclose(a.bias.grad().asnumpy(), 2 * np.ones(3))
    a.collect_params().zero_grad()
    assert not a.bias.grad().asnumpy().any()
