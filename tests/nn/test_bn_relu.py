"""``contrib.BatchNormWithReLU`` (gluonlite/ops/bn_relu.py) and the training pass that puts it
in place of BatchNorm -> Activation(relu) (gluonlite/executor/bn_relu.py).

The operator against the two operators it fuses: outputs, gradients and moving statistics,
training and inference, float32 and float64, its fast path on and off, imperatively and in a
static-alloc plan; NaN as Activation's relu has it; gradients against finite differences.
The pass: what it fuses and what it leaves, inputs kept in order, a hybridized training step
equal with it on and off, inference plans and exports untouched."""

import numpy as np
import pytest

from gluonlite import autograd, gluon, nd, sym
from gluonlite.executor import bn_relu as bn_relu_pass
from gluonlite.ops import bn_fast
from bn_runs import (assert_fused_in_training_only, assert_pass_leaves, batchnorm_read,
                     central_differences, each_setting, graph_ops, norm_case, run_norm,
                     steps_with_switch)

FUSED = "_contrib_BatchNormWithReLU"



def _run(fused, x, stats, gy, train, hybrid, dtype, **attrs):
    """(y, dx, dgamma, dbeta, moving mean, moving var) of the fused operator or of
    BatchNorm -> Activation(relu)."""
    def f(F, a, g, b, m, v):
        if fused:
            return F.contrib.BatchNormWithReLU(a, g, b, m, v, **attrs)
        return F.Activation(F.BatchNorm(a, g, b, m, v, **attrs), act_type="relu")
    return run_norm(f, [x] + stats, gy, train, hybrid, dtype, fuse=fused)


@each_setting
def test_matches_batchnorm_then_relu(dtype, train, hybrid, fast, monkeypatch):
    monkeypatch.setattr(bn_fast, "ENABLED", fast)
    x, stats, gy, attrs = norm_case()
    got = _run(True, x, stats, gy, train, hybrid, dtype, **attrs)
    want = _run(False, x, stats, gy, train, hybrid, dtype, **attrs)
    assert (got[0] >= 0).all() and (got[0] == 0).any()
    tol = 1e-6 if dtype == "float32" else 1e-12
    for name, a, b in zip(["y", "dx", "dgamma", "dbeta", "mean", "var"], got, want):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol * max(1.0, np.abs(b).max()),
                                   err_msg=name)


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "plain"])
def test_nan_is_activations_relu(fast, monkeypatch):
    """A float32 NaN gives 0 (Activation's relu, MXNet's CPU build); float64 keeps it."""
    monkeypatch.setattr(bn_fast, "ENABLED", fast)
    c = 2
    ones, zeros = nd.ones(c), nd.zeros(c)
    for dtype, want_nan in (("float32", False), ("float64", True)):
        x = nd.array([[np.nan, -1.0], [2.0, 3.0]], dtype=dtype)
        y = nd.contrib.BatchNormWithReLU(x, ones.astype(dtype), zeros.astype(dtype),
                                         zeros.astype(dtype), ones.astype(dtype),
                                         use_global_stats=True).asnumpy()
        assert bool(np.isnan(y[0, 0])) == want_nan
        assert y[0, 1] == 0 and y[1, 0] > 0


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 4)) + 0.2
    gamma, beta = rng.uniform(0.5, 1.5, 3), rng.standard_normal(3) * 0.3
    w = rng.standard_normal(x.shape)

    def loss(xv, gv, bv):   # in training mode: normalized with the batch's statistics
        with autograd.train_mode():
            y = nd.contrib.BatchNormWithReLU(
                nd.array(xv, dtype="float64"), nd.array(gv, dtype="float64"),
                nd.array(bv, dtype="float64"), nd.zeros(3, dtype="float64"),
                nd.ones(3, dtype="float64"), fix_gamma=False)
        return float((y.asnumpy() * w).sum())

    arrs = [nd.array(a, dtype="float64") for a in (x, gamma, beta)]
    for a in arrs:
        a.attach_grad()
    with autograd.record():
        y = nd.contrib.BatchNormWithReLU(*arrs, nd.zeros(3, dtype="float64"),
                                         nd.ones(3, dtype="float64"), fix_gamma=False)
    y.backward(nd.array(w, dtype="float64"))
    for a, num in zip(arrs, central_differences(loss, [x, gamma, beta])):
        np.testing.assert_allclose(a.grad.asnumpy(), num, rtol=1e-5, atol=1e-7)


def _conv_bn_relu(x):
    h = sym.Convolution(x, num_filter=4, kernel=(3, 3), pad=(1, 1), name="conv")
    return sym.Activation(sym.BatchNorm(h, name="bn"), act_type="relu", name="act")



def test_pass_fuses_a_batchnorm_read_only_by_its_relu():
    x = sym.var("x")
    y = _conv_bn_relu(_conv_bn_relu(x))
    fused = bn_relu_pass.fuse_bn_relu(y)
    assert graph_ops(fused) == ["Convolution", FUSED, "Convolution", FUSED]
    assert fused.list_inputs() == y.list_inputs()
    assert fused.list_auxiliary_states() == y.list_auxiliary_states()
    assert fused.list_outputs() == y.list_outputs()


@pytest.mark.parametrize("case", ["read twice", "graph output", "mean and var", "sigmoid",
                                  "switched off"])
def test_pass_leaves_what_it_cannot_fuse(case, monkeypatch):
    y = batchnorm_read(case, lambda bn: sym.Activation(
        bn, act_type="sigmoid" if case == "sigmoid" else "relu"))
    assert_pass_leaves(y, case, monkeypatch)


def _net():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Conv2D(6, 3, padding=1, in_channels=3), gluon.nn.BatchNorm(in_channels=6),
            gluon.nn.Activation("relu"), gluon.nn.Conv2D(4, 3, in_channels=6),
            gluon.nn.BatchNorm(in_channels=4), gluon.nn.Activation("relu"), gluon.nn.Dense(5))
    return net


def test_hybridized_training_is_the_same_with_and_without_the_pass(monkeypatch):
    x = nd.array(np.random.default_rng(4).standard_normal((4, 3, 7, 7)))
    on, off = (steps_with_switch(monkeypatch, "ENABLED", v, _net, x) for v in (True, False))
    assert_fused_in_training_only(on, off, x, (4, 5), FUSED, 2, {"BatchNorm": 2, "Activation": 2})


def test_batchnorm_relu_layer_runs_the_fused_operator():
    layer = gluon.nn.BatchNormReLU(in_channels=2)
    layer.initialize()
    out = layer(sym.var("data"))
    assert FUSED in graph_ops(out)
    y = layer(nd.array([[-1.0, 2.0], [3.0, -4.0]]))
    assert (y.asnumpy() >= 0).all()
