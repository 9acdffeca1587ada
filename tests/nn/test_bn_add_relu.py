"""``_bn_add_relu`` (gluonlite/ops/bn_relu.py), relu(BatchNorm(x) + addend), and the half of
the training pass (gluonlite/executor/bn_relu.py) that puts it in place of a residual
block's BatchNorm -> elemwise_add -> Activation(relu).

The operator against the three operators it fuses: outputs, gradients (the addend's
included) and moving statistics, training and inference, float32 and float64, its fast path
on and off, imperatively and in a static-alloc plan; NaN as Activation's relu has it; a
mismatched addend refused by name; gradients against finite differences. The pass: which
BatchNorm of an addition it takes, what it leaves, inputs kept in order, and a hybridized
residual network's training steps equal with it on and off, its inference and export
untouched."""

import numpy as np
import pytest

from gluonlite import autograd, gluon, nd, sym
from gluonlite.base import MXNetError
from gluonlite.executor import bn_relu as bn_relu_pass
from gluonlite.ops import bn_fast
from gluonlite.symbol.symbol import topo_nodes
from bn_runs import (assert_fused_in_training_only, assert_pass_leaves, central_differences,
                     each_setting, graph_ops, norm_case, norm_stats, run_norm, steps_with_switch)

FUSED = "_bn_add_relu"



def _run(fused, x, stats, addend, gy, train, hybrid, dtype, **attrs):
    """(y, dx, dgamma, dbeta, moving mean, moving var, daddend) of the fused operator or of
    BatchNorm -> elemwise_add -> Activation(relu)."""
    def f(F, a, g, b, m, v, s):
        if fused:
            return F._bn_add_relu(a, g, b, m, v, s, **attrs)
        return F.Activation(F.elemwise_add(F.BatchNorm(a, g, b, m, v, **attrs), s),
                            act_type="relu")
    return run_norm(f, [x] + stats + [addend], gy, train, hybrid, dtype, fuse=fused)


@each_setting
def test_matches_batchnorm_add_relu(dtype, train, hybrid, fast, monkeypatch):
    monkeypatch.setattr(bn_fast, "ENABLED", fast)
    x, stats, gy, attrs = norm_case()
    addend = np.random.default_rng(2).standard_normal(x.shape)
    got = _run(True, x, stats, addend, gy, train, hybrid, dtype, **attrs)
    want = _run(False, x, stats, addend, gy, train, hybrid, dtype, **attrs)
    assert (got[0] >= 0).all() and (got[0] == 0).any()
    tol = 1e-6 if dtype == "float32" else 1e-12
    for name, a, b in zip(["y", "dx", "dgamma", "dbeta", "mean", "var", "daddend"], got, want):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol * max(1.0, np.abs(b).max()),
                                   err_msg=name)


def test_large_samples_go_a_block_at_a_time():
    """Samples larger than a block of the fast path (several blocks of channels per sample):
    each block adds its own part of the addend."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 8, 128, 160)).astype(np.float32)
    assert x[0].size > bn_fast._BLOCK
    stats = norm_stats(rng, 8)
    addend = rng.standard_normal(x.shape)
    gy = rng.standard_normal(x.shape)
    got = _run(True, x, stats, addend, gy, True, True, "float32", fix_gamma=False)
    want = _run(False, x, stats, addend, gy, True, True, "float32", fix_gamma=False)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(b).max()))


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "plain"])
def test_nan_is_activations_relu(fast, monkeypatch):
    """A float32 NaN, in the data or the addend, gives 0 (Activation's relu, MXNet's CPU
    build); float64 keeps it."""
    monkeypatch.setattr(bn_fast, "ENABLED", fast)
    c = 2
    for dtype, want_nan in (("float32", False), ("float64", True)):
        ones, zeros = nd.ones(c, dtype=dtype), nd.zeros(c, dtype=dtype)
        x = nd.array([[np.nan, -1.0], [2.0, 3.0]], dtype=dtype)
        addend = nd.array([[0.0, 0.5], [np.nan, 1.0]], dtype=dtype)
        y = nd._bn_add_relu(x, ones, zeros, zeros, ones, addend,
                            use_global_stats=True).asnumpy()
        assert bool(np.isnan(y[0, 0])) == want_nan and bool(np.isnan(y[1, 0])) == want_nan
        assert y[0, 1] == 0 and y[1, 1] > 0


def test_addend_of_another_shape_is_refused_by_name():
    c = 3
    with pytest.raises(MXNetError, match="addend must have data's shape"):
        nd._bn_add_relu(nd.ones((2, c, 4)), nd.ones(c), nd.zeros(c), nd.zeros(c), nd.ones(c),
                        nd.ones((2, c, 5)))


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 4)) + 0.2
    gamma, beta = rng.uniform(0.5, 1.5, 3), rng.standard_normal(3) * 0.3
    addend = rng.standard_normal(x.shape) * 0.5
    w = rng.standard_normal(x.shape)
    f64 = dict(dtype="float64")

    def loss(xv, gv, bv, av):   # in training mode: normalized with the batch's statistics
        with autograd.train_mode():
            y = nd._bn_add_relu(nd.array(xv, **f64), nd.array(gv, **f64), nd.array(bv, **f64),
                                nd.zeros(3, **f64), nd.ones(3, **f64), nd.array(av, **f64),
                                fix_gamma=False)
        return float((y.asnumpy() * w).sum())

    vals = [x, gamma, beta, addend]
    arrs = [nd.array(a, **f64) for a in vals]
    for a in arrs:
        a.attach_grad()
    with autograd.record():
        y = nd._bn_add_relu(*arrs[:3], nd.zeros(3, **f64), nd.ones(3, **f64), arrs[3],
                            fix_gamma=False)
    y.backward(nd.array(w, **f64))
    for a, num in zip(arrs, central_differences(loss, vals)):
        np.testing.assert_allclose(a.grad.asnumpy(), num, rtol=1e-5, atol=1e-7)


# ---- the pass --------------------------------------------------------------------------------
def _bn(h, name):
    return sym.BatchNorm(sym.Convolution(h, num_filter=4, kernel=(3, 3), pad=(1, 1),
                                         name=name + "_conv"), name=name)



def _fused_nodes(symbol):
    return [n for n in topo_nodes(symbol.outputs) if n.op is not None and n.op.name == FUSED]


def _check(y, fused):
    assert fused.list_inputs() == y.list_inputs()
    assert fused.list_auxiliary_states() == y.list_auxiliary_states()
    assert fused.list_outputs() == y.list_outputs()


@pytest.mark.parametrize("order", ["bn first", "bn second"])
def test_pass_fuses_a_residual_block(order):
    """Identity shortcut (ResNet v1's blocks add it on either side): BatchNorm, addition and
    relu become one node reading the shortcut last."""
    x = sym.var("x")
    h = sym.Activation(_bn(x, "bn1"), act_type="relu")
    body = _bn(h, "bn2")
    s = body + h if order == "bn first" else h + body
    y = sym.Activation(s, act_type="relu", name="out")
    fused = bn_relu_pass.fuse_bn_relu(y)
    _check(y, fused)
    (node,) = _fused_nodes(fused)
    assert node.name == "out" and node.inputs[0][0].name == "bn2_conv"
    assert node.inputs[5][0].op.name == "_contrib_BatchNormWithReLU"
    assert "elemwise_add" not in graph_ops(fused) and "BatchNorm" not in graph_ops(fused)


def test_pass_takes_the_first_of_two_batchnorms():
    """A downsampling block adds two BatchNorms: the first is fused (its inputs then come
    before the second's, as in the graph), the second stays."""
    x = sym.var("x")
    y = sym.Activation(_bn(x, "short") + _bn(x, "body"), act_type="relu")
    fused = bn_relu_pass.fuse_bn_relu(y)
    _check(y, fused)
    (node,) = _fused_nodes(fused)
    assert node.inputs[0][0].name == "short_conv" and node.inputs[5][0].name == "body"


def test_pass_keeps_the_inputs_order():
    """The BatchNorm second and the other operand reaching an input nothing before it reads:
    fused, the BatchNorm's inputs would be listed first, so the block is left as it is."""
    x, z = sym.var("x"), sym.var("z")
    y = sym.Activation(sym.tanh(z) + _bn(x, "bn"), act_type="relu")
    assert bn_relu_pass.fuse_bn_relu(y) is y


@pytest.mark.parametrize("case", ["sum read twice", "batchnorm read twice", "sigmoid",
                                  "residual off", "switched off"])
def test_pass_leaves_what_it_cannot_fuse(case, monkeypatch):
    x = sym.var("x")
    bn = _bn(x, "bn")
    s = bn + x
    act = sym.Activation(s, act_type="sigmoid" if case == "sigmoid" else "relu")
    if case == "sum read twice":
        y = sym.Group([act, s])
    elif case == "batchnorm read twice":
        y = act + bn
    else:
        y = act
    assert_pass_leaves(y, case, monkeypatch, "RESIDUAL")


class _Residual(gluon.HybridBlock):
    """conv-BN-relu-conv-BN, plus the input (or a 1x1 conv-BN of it), then relu."""

    def __init__(self, cin, cout, stride, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.body = gluon.nn.HybridSequential()
            self.body.add(gluon.nn.Conv2D(cout, 3, stride, 1, in_channels=cin),
                          gluon.nn.BatchNorm(in_channels=cout), gluon.nn.Activation("relu"),
                          gluon.nn.Conv2D(cout, 3, 1, 1, in_channels=cout),
                          gluon.nn.BatchNorm(in_channels=cout))
            self.down = None
            if stride != 1 or cin != cout:
                self.down = gluon.nn.HybridSequential()
                self.down.add(gluon.nn.Conv2D(cout, 1, stride, in_channels=cin),
                              gluon.nn.BatchNorm(in_channels=cout))

    def hybrid_forward(self, F, x):
        shortcut = x if self.down is None else self.down(x)
        return F.Activation(shortcut + self.body(x), act_type="relu")


def _net():
    net = gluon.nn.HybridSequential()
    net.add(_Residual(3, 6, 1), _Residual(6, 6, 1), _Residual(6, 8, 2),
            gluon.nn.Dense(5, in_units=8 * 4 * 4))
    return net


def test_hybridized_training_is_the_same_with_and_without_the_residual_fusion(monkeypatch):
    x = nd.array(np.random.default_rng(4).standard_normal((4, 3, 8, 8)))
    on, off = (steps_with_switch(monkeypatch, "RESIDUAL", v, _net, x) for v in (True, False))
    # inference and the exported graph keep the addition
    assert_fused_in_training_only(on, off, x, (4, 5), FUSED, 3, {"elemwise_add": 3})
