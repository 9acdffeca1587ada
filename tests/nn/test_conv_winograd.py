"""Convolution's Winograd F(2x2, 3x3) fast path (gluonlite/ops/conv_winograd.py) against the
plain im2col kernel and against float64: outputs and gradients through nd.Convolution on odd
geometries (padding 0/1/2, batch 1, odd and non-square maps, maps smaller than a tile, chunks
of samples with a partial last one), the data gradient (a 3x3 stride-1 convolution, so the
same path) against finite differences, float32 error at the im2col path's own scale, the rule
table, and the fused inference backend (Conv + BatchNorm + relu) against the unfused graph."""
import numpy as np
import pytest

from gluonlite import autograd, gluon, nd
from gluonlite.ops import conv, conv_winograd


@pytest.fixture
def everywhere(monkeypatch):
    """Winograd on every 3x3 stride-1 layer, however narrow or small."""
    monkeypatch.setattr(conv_winograd, "ENABLED", True)
    monkeypatch.setattr(conv_winograd, "WEIGHT_GRAD", True)
    monkeypatch.setattr(conv_winograd, "RULES", dict(conv_winograd.RULES, min_channels=1,
                                                     min_filters=1, min_side=1, min_work=1,
                                                     grad_min_side=1))


def _conv_and_grads(x, w, b, pad, gy, dtype, winograd, monkeypatch):
    monkeypatch.setattr(conv_winograd, "ENABLED", winograd)
    X, W, B = (nd.array(a, dtype=dtype) for a in (x, w, b))
    for a in (X, W, B):
        a.attach_grad()
    with autograd.record():
        y = nd.Convolution(X, W, B, kernel=(3, 3), pad=pad, num_filter=w.shape[0])
    y.backward(nd.array(gy, dtype=dtype))
    return [a.asnumpy() for a in (y, X.grad, W.grad, B.grad)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape, f, pad", [
    ((1, 3, 7, 9), 5, (1, 1)),      # batch 1, odd sides: a padded last tile row and column
    ((3, 4, 6, 5), 2, (0, 0)),      # no padding: 4 x 3 output
    ((2, 5, 5, 4), 6, (2, 1)),      # padding 2 on one axis
    ((5, 2, 2, 3), 3, (1, 0)),      # a map smaller than a tile
    ((4, 6, 8, 8), 7, (1, 1)),      # even sides: tiles written straight into the output
    ((2, 3, 4, 5), 2, (3, 1)),      # pad 3: dx by col2im, dw still by Winograd
], ids=str)
def test_winograd_matches_plain_kernel(shape, f, pad, dtype, everywhere, monkeypatch):
    # two samples' tiles per chunk: a batch of 3-5 spans several chunks, the last partial
    th, tw = (-(-(s + 2 * p - 2) // 2) for s, p in zip(shape[2:], pad))
    monkeypatch.setattr(conv_winograd, "_CHUNK", 2 * 16 * shape[1] * (th + 1) * (tw + 1))
    rng = np.random.default_rng(11)
    x = rng.standard_normal(shape)
    w = rng.standard_normal((f, shape[1], 3, 3))
    b = rng.standard_normal(f)
    gy = rng.standard_normal((shape[0], f) + tuple(s + 2 * p - 2 for s, p in
                                                    zip(shape[2:], pad)))
    fast = _conv_and_grads(x, w, b, pad, gy, dtype, True, monkeypatch)
    plain = _conv_and_grads(x, w, b, pad, gy, dtype, False, monkeypatch)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for name, a, r in zip(("y", "dx", "dw", "db"), fast, plain):
        assert a.dtype == np.dtype(dtype), name
        np.testing.assert_allclose(a, r, rtol=tol, atol=tol * np.abs(r).max(), err_msg=name)


def test_winograd_data_gradient_matches_finite_differences(everywhere):
    from gluonlite import sym
    from gluonlite.test_utils import check_numeric_gradient
    y = sym.Convolution(sym.var("x"), sym.var("w"), sym.var("b"), kernel=(3, 3), pad=(1, 1),
                        num_filter=3)
    rng = np.random.default_rng(12)
    check_numeric_gradient(y, {"x": rng.standard_normal((2, 2, 5, 4)),
                               "w": rng.standard_normal((3, 2, 3, 3)),
                               "b": rng.standard_normal(3)}, dtype=np.float64)


@pytest.mark.parametrize("n, c, f, h", [(1, 64, 32, 9), (2, 128, 128, 14)])
def test_winograd_float32_error_is_im2col_scale(n, c, f, h, monkeypatch):
    """Against a float64 reference, Winograd's float32 error stays within a small multiple
    of the im2col product's own (both ~1e-7 of the largest output; the transforms are
    additions and halvings only)."""
    rng = np.random.default_rng(13)
    x = rng.standard_normal((n, c, h, h)).astype(np.float32)
    w = (rng.standard_normal((f, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
    g = conv.Geom((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (h, h))
    ref = conv.conv_forward(np, x.astype(np.float64), w.astype(np.float64), 1, g)
    scale = np.abs(ref).max()
    err_w = np.abs(conv_winograd.forward(x, w, g) - ref).max() / scale
    monkeypatch.setattr(conv_winograd, "ENABLED", False)
    err_i = np.abs(conv.conv_forward(np, x, w, 1, g) - ref).max() / scale
    assert err_w < 3 * err_i + 1e-7 and err_w < 1e-5, (err_w, err_i)


def test_winograd_rules(monkeypatch):
    monkeypatch.setattr(conv_winograd, "ENABLED", True)
    monkeypatch.setattr(conv_winograd, "WEIGHT_GRAD", True)
    g = conv.Geom((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (28, 28))
    r = conv_winograd.RULES
    wide = (32, r["min_channels"], 28, 28), (r["min_filters"], r["min_channels"], 3, 3)
    assert conv_winograd.applies(*wide, 1, g)
    assert not conv_winograd.applies((1, r["min_channels"], 2, 2), wide[1], 1, conv.Geom(
        (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (2, 2)))                # 2 x 2 map, 1 tile
    assert not conv_winograd.applies(*wide, 2, g)                       # grouped
    narrow = (32, r["min_channels"] - 1, 28, 28), (r["min_filters"], 8, 3, 3)
    assert not conv_winograd.applies(*narrow, 1, g)
    assert not conv_winograd.applies_to_weight_grad(*wide, 1, g)        # 28 x 28 < 48
    big = conv.Geom((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (56, 56))
    assert conv_winograd.applies_to_weight_grad((1, 256, 56, 56), (256, 256, 3, 3), 1, big)
    for other in (conv.Geom((3, 3), (2, 2), (1, 1), (1, 1), (1, 1), (14, 14)),   # stride
                  conv.Geom((3, 3), (1, 1), (2, 2), (2, 2), (2, 2), (28, 28)),   # dilation
                  conv.Geom((5, 5), (1, 1), (1, 1), (2, 2), (2, 2), (28, 28))):  # kernel
        assert not conv_winograd.applies(*wide, 1, other)


def test_winograd_fused_inference_matches_unfused(everywhere, monkeypatch):
    """Conv + BatchNorm + relu (+ a residual add) hybridized with the inference backend
    (the convolution's output blocks get the folded BatchNorm and relu as an epilogue)
    against the same block run imperatively through im2col: 1e-5 relative."""
    nn = gluon.nn

    class Block(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2D(6, 3, padding=1, use_bias=False)
            self.bn1 = nn.BatchNorm()
            self.conv2 = nn.Conv2D(6, 3, padding=1)
            self.bn2 = nn.BatchNorm()

        def hybrid_forward(self, F, x):
            h = F.relu(self.bn1(self.conv1(x)))
            return F.relu(self.bn2(self.conv2(h)) + x)

    net = Block()
    net.initialize()
    rng = np.random.default_rng(14)
    x = nd.array(rng.standard_normal((3, 6, 7, 10)).astype(np.float32))
    net(x)
    for p in net.collect_params().values():   # BatchNorm statistics away from 0 and 1
        if p.name.endswith(("running_mean", "running_var", "gamma", "beta")):
            p.set_data(nd.array(rng.uniform(0.5, 1.5, p.shape).astype(np.float32)))
    monkeypatch.setattr(conv_winograd, "ENABLED", False)
    ref = net(x).asnumpy()          # imperative, im2col
    monkeypatch.setattr(conv_winograd, "ENABLED", True)
    net.hybridize(static_alloc=True, static_shape=True)
    for _ in range(2):
        np.testing.assert_allclose(net(x).asnumpy(), ref, rtol=1e-5, atol=1e-5 * np.abs(
            ref).max())


def test_winograd_deconvolution_matches_plain_kernel(everywhere, monkeypatch):
    """A 3x3 stride-1 Deconvolution is a convolution's data gradient (its output) and
    takes Winograd for its output, data and weight gradients: against the plain kernel."""
    rng = np.random.default_rng(15)
    x, w = rng.standard_normal((2, 5, 7, 6)), rng.standard_normal((5, 4, 3, 3))
    gy = rng.standard_normal((2, 4, 7, 6))

    def run(winograd):
        monkeypatch.setattr(conv_winograd, "ENABLED", winograd)
        X, W = nd.array(x, dtype="float64"), nd.array(w, dtype="float64")
        X.attach_grad()
        W.attach_grad()
        with autograd.record():
            y = nd.Deconvolution(X, W, kernel=(3, 3), pad=(1, 1), num_filter=4, no_bias=True)
        y.backward(nd.array(gy, dtype="float64"))
        return y.asnumpy(), X.grad.asnumpy(), W.grad.asnumpy()
    for name, a, r in zip(("y", "dx", "dw"), run(True), run(False)):
        np.testing.assert_allclose(a, r, rtol=1e-12, atol=1e-12 * np.abs(r).max(),
                                   err_msg=name)
