"""MXNet 1.9.1's edge semantics where real programs meet them, against numbers its CPU build
made (fixtures/make_edges.py): relu and Activation('relu') of NaN, softmax and log_softmax
over rows holding NaN or infinity, topk/sort/argsort with NaN and ties (libstdc++'s
algorithms), BatchNorm(fix_gamma=True) writing 1 into gamma, mod's zero gradients
through integer data, and division and power of integer data."""

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd

from fixture_makers import maker, reference

make_edges = maker("make_edges")
_REF = reference("edges_mxnet.npz")


_PARTS = ["activations", "softmaxes", "orderings", "batchnorm_gamma", "mod_gradients",
          "integer_division_and_power"]
_EXACT = ("orderings", "activations", "mod_gradients", "integer_division_and_power")


@pytest.mark.parametrize("part", _PARTS)
def test_edges_match_mxnet(part):
    got = getattr(make_edges, part)(mx)
    want = {k: _REF[k] for k in got}
    for k, w in want.items():
        assert got[k].shape == w.shape and got[k].dtype == w.dtype, k
        if part in _EXACT:
            np.testing.assert_array_equal(got[k], w, err_msg=k)
        else:
            np.testing.assert_allclose(got[k], w, rtol=1e-5, atol=1e-6, err_msg=k)


def test_activation_relu_zeroes_nan_in_float32_only_where_mxnet_does():
    x = nd.array([np.nan, -1.0, 3.0])
    assert np.isnan(nd.relu(x).asnumpy()[0])                        # relu keeps NaN
    assert nd.Activation(x, act_type="relu").asnumpy()[0] == 0      # Activation zeroes it
    assert gluon.nn.Activation("relu")(x).asnumpy()[0] == 0
    x64 = nd.array([np.nan, -1.0, 3.0], dtype="float64")
    assert np.isnan(nd.Activation(x64, act_type="relu").asnumpy()[0])
    net = gluon.nn.HybridLambda(lambda F, v: F.Activation(v, act_type="relu"))
    net.hybridize(static_alloc=True)
    np.testing.assert_array_equal(net(x).asnumpy(), [0, 0, 3])


def test_batchnorm_fix_gamma_writes_one_into_gamma_in_training_hybridized_too():
    for hybrid in (False, True):
        net = gluon.nn.HybridSequential()
        net.add(gluon.nn.Conv2D(3, 1), gluon.nn.BatchNorm(scale=False))
        net.initialize()
        net(nd.ones((1, 2, 3, 3)))
        net[1].gamma.set_data(nd.array([2.0, 3.0, 4.0]))
        if hybrid:
            net.hybridize(static_alloc=True)
        x = nd.random.uniform(shape=(2, 2, 3, 3))
        net(x)
        np.testing.assert_array_equal(net[1].gamma.data().asnumpy(), [2, 3, 4])  # inference
        with autograd.record():
            y = net(x)
        y.backward()
        np.testing.assert_array_equal(net[1].gamma.data().asnumpy(), [1, 1, 1])


def test_every_fixture_entry_is_checked():
    names = set()
    for part in _PARTS:
        names |= set(getattr(make_edges, part)(mx))
    assert names == set(_REF.files)


def test_gamma_and_gammaln_gradients_are_plus_inf_at_the_poles():
    # MXNet's digamma (Cephes' psi) is +inf at 0, -1, -2, ...; scipy's is -inf at 0
    for fn in (mx.nd.gamma, mx.nd.gammaln):
        x = mx.nd.array([0.0, -1.0, 0.5])
        x.attach_grad()
        with autograd.record():
            y = fn(x)
        y.backward()
        g = x.grad.asnumpy()
        assert g[0] == np.inf and (np.isnan(g[1]) or g[1] == np.inf) and np.isfinite(g[2])


@pytest.mark.parametrize("hybrid", [False, True])
def test_integer_division_and_power_on_ndarrays_give_the_bound_graphs_numbers(hybrid):
    # the same rules reached through autograd on int32 NDArrays (and a compiled plan), not
    # through the cast nodes of a bound float graph; its gradients reached float32 inputs,
    # so they are compared in float32
    a = nd.array([[5, 7, 9], [-4, 11, 3]], dtype="int32")
    b = nd.array([[3, -2, 4], [1, 5, 19]], dtype="int32")
    cases = {"div": lambda F, u, v: u / v, "power": lambda F, u, v: F.abs(u) ** v,
             "rdiv_scalar": lambda F, u: 17.5 / u, "power_scalar": lambda F, u: u ** 2.5,
             "rpower_scalar": lambda F, u: 2.5 ** F.abs(u)}
    for name, fn in cases.items():
        net = gluon.nn.HybridLambda(fn)
        if hybrid:
            net.hybridize(static_alloc=True)
        args = (a, b) if name in ("div", "power") else (a,)
        for x in args:
            x.attach_grad()
        with autograd.record():
            y = net(*args)
        y.backward(nd.ones(y.shape, dtype="int32") * 7)
        assert y.dtype == np.int32, name
        np.testing.assert_array_equal(y.asnumpy(), _REF[f"int_{name}_y"], err_msg=name)
        da = a.grad.asnumpy()
        if "power" in name:  # through abs: the sign of a
            da = da * np.sign(a.asnumpy())
        np.testing.assert_array_equal(da.astype(np.float32), _REF[f"int_{name}_da"],
                                      err_msg=name)
        if len(args) == 2:
            np.testing.assert_array_equal(b.grad.asnumpy().astype(np.float32),
                                          _REF[f"int_{name}_db"], err_msg=name)
