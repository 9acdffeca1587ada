"""``_bn_clip`` (gluonlite/ops/bn_clip.py), clip(BatchNorm(x), a_min, a_max), and the part of
the training pass (gluonlite/executor/bn_relu.py) that puts it in place of BatchNorm -> clip
(relu6 in MobileNet v2).

The operator against the two operators it fuses: outputs, gradients and moving statistics,
training and inference, float32 and float64, its fast path on and off, imperatively and in a
static-alloc plan; normalized values exactly on a bound (where clip's gradient passes and
the clipped output alone cannot tell); NaN as clip has it; bounds the wrong way round;
samples cut into blocks; gradients against finite differences. The pass: what it fuses and
what it leaves, a hybridized training step equal with it on and off, inference plans and
exports untouched."""

import numpy as np
import pytest

from gluonlite import autograd, gluon, nd, sym
from gluonlite.executor import bn_relu as bn_relu_pass
from gluonlite.ops import bn_fast
from bn_runs import (assert_fused_in_training_only, assert_pass_leaves, batchnorm_read,
                     central_differences, each_setting, graph_ops, norm_case, norm_stats, run_norm,
                     steps_with_switch)

FUSED = "_bn_clip"
NAMES = ["y", "dx", "dgamma", "dbeta", "mean", "var"]


def _run(fused, x, stats, gy, train, hybrid, dtype, a_min=0.0, a_max=6.0, **attrs):
    """(y, dx, dgamma, dbeta, moving mean, moving var) of the fused operator or of
    BatchNorm -> clip."""
    def f(F, a, g, b, m, v):
        if fused:
            return F._bn_clip(a, g, b, m, v, a_min=a_min, a_max=a_max, **attrs)
        return F.clip(F.BatchNorm(a, g, b, m, v, **attrs), a_min, a_max)
    return run_norm(f, [x] + stats, gy, train, hybrid, dtype, fuse=fused)


def _assert_same(got, want, tol):
    for name, a, b in zip(NAMES, got, want):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol * max(1.0, np.abs(b).max()),
                                   err_msg=name)


@each_setting
def test_matches_batchnorm_then_clip(dtype, train, hybrid, fast, monkeypatch):
    monkeypatch.setattr(bn_fast, "ENABLED", fast)
    x, stats, gy, attrs = norm_case()
    got = _run(True, x, stats, gy, train, hybrid, dtype, a_min=-0.5, a_max=1.0, **attrs)
    want = _run(False, x, stats, gy, train, hybrid, dtype, a_min=-0.5, a_max=1.0, **attrs)
    assert (got[0] == -0.5).any() and (got[0] == 1.0).any()
    _assert_same(got, want, 1e-6 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "plain"])
def test_values_exactly_on_a_bound_pass_their_gradient(fast, monkeypatch):
    """A channel of zeros normalizes to exactly beta: 0 (on a_min) and 6 (on a_max). clip's
    gradient passes there (its rule is a_min <= y <= a_max), which the clipped output alone
    could not tell from a value beyond the bound."""
    monkeypatch.setattr(bn_fast, "ENABLED", fast)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 4, 3, 5)) * 4
    x[:, 1] = 0
    x[:, 2] = 0
    gamma, beta, mean, var = norm_stats(rng, 4)
    beta[1], beta[2] = 0.0, 6.0
    gy = rng.standard_normal(x.shape)
    for train in (True, False):
        got = _run(True, x, [gamma, beta, mean, var], gy, train, True, "float32",
                   fix_gamma=False)
        want = _run(False, x, [gamma, beta, mean, var], gy, train, True, "float32",
                    fix_gamma=False)
        if train:   # normalized with the batch's statistics: exactly beta
            assert (got[0][:, 1] == 0).all() and (got[0][:, 2] == 6).all()
            # the whole gradient of those channels reaches beta
            np.testing.assert_allclose(got[3][1:3], gy[:, 1:3].sum(axis=(0, 2, 3)),
                                       rtol=1e-5)
        _assert_same(got, want, 1e-6)


def test_large_samples_go_a_block_at_a_time():
    """Samples larger than a block of the fast path (several blocks of channels per sample),
    with a channel whose mean is not folded inside one of those blocks."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 8, 128, 160)).astype(np.float32)
    x[:, 5] += 400
    assert x[0].size > bn_fast._BLOCK
    stats = norm_stats(rng, 8)
    gy = rng.standard_normal(x.shape)
    got = _run(True, x, stats, gy, True, True, "float32", a_min=0.0, a_max=1.0,
               fix_gamma=False)
    want = _run(False, x, stats, gy, True, True, "float32", a_min=0.0, a_max=1.0,
                fix_gamma=False)
    _assert_same(got, want, 1e-5)


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "plain"])
def test_nan_and_bounds_the_wrong_way_round_are_clips(fast, monkeypatch):
    """NaN passes through as clip passes it (and gets no gradient); with a_min > a_max
    every value becomes a_max, as numpy's clip and MXNet's give, and no gradient passes."""
    monkeypatch.setattr(bn_fast, "ENABLED", fast)
    c = 2
    ones, zeros = nd.ones(c), nd.zeros(c)
    x = nd.array([[np.nan, -1.0], [2.0, 3.0], [0.5, 9.0]])
    x.attach_grad()
    with autograd.record(train_mode=False):
        y = nd._bn_clip(x, ones, zeros, zeros, ones, a_min=0, a_max=6, use_global_stats=True)
    y.backward(nd.ones(y.shape))
    assert np.isnan(y.asnumpy()[0, 0]) and y.asnumpy()[0, 1] == 0
    assert x.grad.asnumpy()[0, 0] == 0 and x.grad.asnumpy()[2, 1] == 0
    assert x.grad.asnumpy()[1, 0] > 0
    rng = np.random.default_rng(3)
    xv = rng.standard_normal((3, 2, 4))
    gy = rng.standard_normal(xv.shape)
    stats = norm_stats(rng, 2)
    got = _run(True, xv, stats, gy, True, False, "float32", a_min=1.0, a_max=-1.0,
               fix_gamma=False)
    want = _run(False, xv, stats, gy, True, False, "float32", a_min=1.0, a_max=-1.0,
                fix_gamma=False)
    assert (got[0] == -1).all() and not got[1].any()
    _assert_same(got, want, 1e-6)


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 4)) + 0.2
    gamma, beta = rng.uniform(0.5, 1.5, 3), rng.standard_normal(3) * 0.3
    w = rng.standard_normal(x.shape)
    f64 = dict(dtype="float64")
    bounds = dict(a_min=-0.4, a_max=0.6, fix_gamma=False)

    def loss(xv, gv, bv):   # in training mode: normalized with the batch's statistics
        with autograd.train_mode():
            y = nd._bn_clip(nd.array(xv, **f64), nd.array(gv, **f64), nd.array(bv, **f64),
                            nd.zeros(3, **f64), nd.ones(3, **f64), **bounds)
        return float((y.asnumpy() * w).sum())

    vals = [x, gamma, beta]
    arrs = [nd.array(a, **f64) for a in vals]
    for a in arrs:
        a.attach_grad()
    with autograd.record():
        y = nd._bn_clip(*arrs, nd.zeros(3, **f64), nd.ones(3, **f64), **bounds)
    y.backward(nd.array(w, **f64))
    clipped = y.asnumpy()
    assert ((clipped == -0.4) | (clipped == 0.6)).any() and (abs(clipped) < 0.4).any()
    for a, num in zip(arrs, central_differences(loss, vals)):
        np.testing.assert_allclose(a.grad.asnumpy(), num, rtol=1e-5, atol=1e-7)


# ---- the pass --------------------------------------------------------------------------------
def _conv_bn_relu6(h, name):
    conv = sym.Convolution(h, num_filter=4, kernel=(3, 3), pad=(1, 1), name=name + "_conv")
    return sym.clip(sym.BatchNorm(conv, name=name + "_bn"), 0, 6, name=name + "_relu6")


def test_pass_fuses_a_batchnorm_read_only_by_its_clip():
    x = sym.var("x")
    y = _conv_bn_relu6(_conv_bn_relu6(x, "a"), "b")
    fused = bn_relu_pass.fuse_bn_relu(y)
    assert graph_ops(fused) == ["Convolution", FUSED, "Convolution", FUSED]
    node = fused.outputs[0][0]
    assert node.name == "b_relu6" and node.params.a_max == 6.0
    assert fused.list_inputs() == y.list_inputs()
    assert fused.list_auxiliary_states() == y.list_auxiliary_states()
    assert fused.list_outputs() == y.list_outputs()


@pytest.mark.parametrize("case", ["read twice", "graph output", "mean and var",
                                  "clip of another", "clip off", "switched off"])
def test_pass_leaves_what_it_cannot_fuse(case, monkeypatch):
    y = batchnorm_read(case, lambda bn: sym.clip(
        sym.tanh(bn) if case == "clip of another" else bn, 0, 6))
    assert_pass_leaves(y, case, monkeypatch, "CLIP")


class _Relu6(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.clip(x, 0, 6)


def _net():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Conv2D(6, 3, padding=1, in_channels=3), gluon.nn.BatchNorm(in_channels=6),
            _Relu6(), gluon.nn.Conv2D(4, 3, in_channels=6, groups=2),
            gluon.nn.BatchNorm(in_channels=4), _Relu6(), gluon.nn.Dense(5))
    return net


def test_hybridized_training_is_the_same_with_and_without_the_fusion(monkeypatch):
    x = nd.array(np.random.default_rng(4).standard_normal((4, 3, 7, 7)) * 3)
    on, off = (steps_with_switch(monkeypatch, "CLIP", v, _net, x) for v in (True, False))
    assert_fused_in_training_only(on, off, x, (4, 5), FUSED, 2, {"BatchNorm": 2, "clip": 2})
