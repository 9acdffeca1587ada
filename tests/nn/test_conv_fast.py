"""nd.Convolution / nd.Deconvolution through the numpy fast path (gluonlite/ops/conv_fast.py)
against direct references written here (one shifted product per kernel offset, no im2col):
outputs and the data, weight and bias gradients, in float32 and float64, on the geometries
the fast path treats apart (1x1, stride 1 with the data gradient as a convolution, strides
with the phase-wise col2im, dilation, groups, padding wider than the kernel, 1-D and 3-D)
and with chunks of samples small enough that a batch spans several, the last one partial."""
import itertools

import numpy as np
import pytest

from gluonlite import autograd, nd
from gluonlite.ops import conv_fast


def _ref_conv(x, w, b, stride, pad, dilate, groups):
    """y, and the gradient maps (gy -> dx, dw), of a grouped N-D convolution."""
    nd_ = x.ndim - 2
    n, c = x.shape[:2]
    f, cg = w.shape[:2]
    k = w.shape[2:]
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    out = [(xp.shape[2 + i] - dilate[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(nd_)]
    fg = f // groups

    def window(off):
        return (slice(None), slice(None)) + tuple(
            slice(off[i] * dilate[i], off[i] * dilate[i] + stride[i] * (out[i] - 1) + 1,
                  stride[i]) for i in range(nd_))

    y = np.zeros((n, f) + tuple(out))
    for off in itertools.product(*map(range, k)):
        xs = xp[window(off)]
        for gi in range(groups):
            wk = w[(slice(gi * fg, (gi + 1) * fg), slice(None)) + off]
            y[:, gi * fg:(gi + 1) * fg] += np.einsum("fc,nc...->nf...", wk,
                                                     xs[:, gi * cg:(gi + 1) * cg])
    if b is not None:
        y += b.reshape((1, -1) + (1,) * nd_)

    def grads(gy):
        dxp = np.zeros(xp.shape)
        dw = np.zeros(w.shape)
        for off in itertools.product(*map(range, k)):
            sl = window(off)
            xs = xp[sl]
            for gi in range(groups):
                fs, cs = slice(gi * fg, (gi + 1) * fg), slice(gi * cg, (gi + 1) * cg)
                wk = w[(fs, slice(None)) + off]
                dxp[sl][:, cs] += np.einsum("fc,nf...->nc...", wk, gy[:, fs])
                ax = [0] + list(range(2, gy.ndim))
                dw[(fs, slice(None)) + off] += np.tensordot(gy[:, fs], xs[:, cs], (ax, ax))
        crop = (slice(None), slice(None)) + tuple(slice(p, p + s)
                                                  for p, s in zip(pad, x.shape[2:]))
        return dxp[crop], dw
    return y, grads


_CONV = [  # (data shape, kernel, stride, pad, dilate, groups, num_filter)
    ((5, 6, 9, 8), (3, 3), (1, 1), (1, 1), (1, 1), 1, 7),     # stride 1: dx as a conv
    ((5, 6, 9, 8), (1, 1), (1, 1), (0, 0), (1, 1), 2, 4),     # 1x1: plain products
    ((1, 8, 3, 2), (3, 3), (1, 1), (1, 1), (1, 1), 1, 16),    # stride 1, weight > columns
    ((5, 6, 9, 8), (1, 1), (2, 1), (0, 0), (1, 1), 1, 4),     # 1x1 strided: columns
    ((5, 4, 10, 9), (3, 2), (2, 3), (1, 0), (1, 1), 2, 6),    # strides: phase col2im
    ((5, 4, 10, 9), (3, 3), (1, 1), (2, 1), (2, 1), 1, 3),    # dilation at stride 1
    ((5, 4, 7, 7), (2, 2), (1, 1), (3, 2), (1, 1), 1, 3),     # pad > dilated kernel - 1
    ((5, 6, 11), (3,), (2,), (1,), (2,), 3, 6),               # 1-D, groups
    ((3, 6, 7, 8), (3, 2), (1, 1), (1, 1), (1, 2), 3, 9),     # groups at stride 1: dx conv
    ((5, 2, 5, 6, 4), (2, 3, 2), (1, 2, 1), (1, 1, 0), (1, 1, 2), 1, 3),  # 3-D
    # taps that read only padding (atrous rates past the map, as DeepLab's): the kernel
    # trimmed to the taps that reach the input, the dead taps' weight gradient zero
    ((3, 4, 6, 5), (3, 3), (1, 1), (6, 6), (6, 6), 1, 5),     # the centre tap alone
    ((3, 4, 5, 6), (5, 3), (1, 1), (6, 3), (3, 3), 2, 6),     # 3 of 5 rows, groups
    ((3, 4, 7, 7), (3, 3), (2, 2), (8, 8), (8, 8), 1, 3),     # strided: a 1x1 stride 2
]


@pytest.mark.parametrize("product", ["plain", "swapped"])
@pytest.mark.parametrize("tiles", ["samples", "rows"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", _CONV, ids=lambda c: f"{c[0]}-k{c[1]}-s{c[2]}-p{c[3]}-"
                                                       f"d{c[4]}-g{c[5]}")
def test_convolution_matches_reference(case, dtype, tiles, product, monkeypatch):
    shape, k, s, p, d, groups, f = case
    # plain: every product as a @ b; swapped: those with a transposed left operand as
    # (b^T a^T)^T, as layers with few output columns take them
    monkeypatch.setattr(conv_fast, "_FEW_COLUMNS", 0 if product == "plain" else 1 << 30)
    monkeypatch.setattr(conv_fast, "_LONG_INNER", 1)
    # samples: chunks of two samples' columns (the batch of 5 spans 3 chunks, the last
    # partial); rows: each sample's columns in blocks of about a third of its output rows.
    cols_per_sample = shape[1] * int(np.prod(k)) * int(np.prod(shape[2:]))
    for chunk in ("_CHUNK", "_FEW_ROWS_CHUNK"):  # columns of many rows, and of few
        monkeypatch.setattr(conv_fast, chunk, 2 * cols_per_sample)
    monkeypatch.setattr(conv_fast, "_BLOCK", cols_per_sample // 3 if tiles == "rows"
                        else 1 << 30)
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape)
    w = rng.standard_normal((f, shape[1] // groups) + k)
    b = rng.standard_normal(f)
    ref, grads = _ref_conv(x, w, b, s, p, d, groups)
    gy = rng.standard_normal(ref.shape)
    X, W, B = (nd.array(a, dtype=dtype) for a in (x, w, b))
    for a in (X, W, B):
        a.attach_grad()
    with autograd.record():
        y = nd.Convolution(X, W, B, kernel=k, stride=s, pad=p, dilate=d, num_group=groups,
                           num_filter=f)
    y.backward(nd.array(gy, dtype=dtype))
    tol = 2e-4 if dtype == "float32" else 1e-10
    dx, dw = grads(gy)
    assert y.dtype == np.dtype(dtype) and X.grad.dtype == np.dtype(dtype)
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(X.grad.asnumpy(), dx, rtol=tol, atol=tol)
    np.testing.assert_allclose(W.grad.asnumpy(), dw, rtol=tol, atol=tol)
    np.testing.assert_allclose(B.grad.asnumpy(), gy.sum(axis=(0,) + tuple(range(2, gy.ndim))),
                               rtol=tol, atol=tol)


_DEPTHWISE = [  # (data shape, kernel, stride, pad, dilate): groups = channels = filters
    ((3, 6, 9, 8), (3, 3), (1, 1), (1, 1), (1, 1)),      # MobileNet's stride 1
    ((3, 4, 10, 9), (3, 3), (2, 2), (1, 1), (1, 1)),     # stride 2: four phases
    ((2, 5, 9, 11), (3, 2), (2, 3), (2, 0), (2, 1)),     # odd strides, dilation, no pad
    ((2, 3, 7, 6), (5, 5), (1, 1), (3, 3), (1, 1)),      # pad wider than half the kernel
]


@pytest.mark.parametrize("block", [1, 2, 12])
@pytest.mark.parametrize("kernel", ["phases", "phases-scatter", "axpy", "axpy-stack",
                                    "banded", "im2col"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", _DEPTHWISE + [
    ((1, 3, 5, 12), (3, 3), (1, 2), (0, 1), (1, 1)),     # batch 1, non-square, no top pad
    ((2, 3, 9, 10), (1, 2), (2, 3), (0, 0), (1, 1)),     # strides wider than the kernel
], ids=str)
def test_depthwise_matches_reference(case, dtype, kernel, block, monkeypatch):
    """Depthwise layers (num_group = channels = num_filter) through each kernel of
    conv_fast: the per-tap one (its blocks: one sample's channel, two samples' (the last
    block of three with one), or every sample by one to twelve channels (the last with
    fewer); each tap's runs span the block's samples) with numpy passes or BLAS axpy and
    dot per tap, its data gradient through the forward kernel per stride phase or
    scattered tap by tap ("-scatter"), its weight gradient per channel or as one stack of
    products per tap ("-stack"); the banded products of narrow maps, and im2col; against
    the reference: output and data, weight and bias gradients."""
    shape, k, s, p, d = case
    c = shape[1]
    monkeypatch.setattr(conv_fast, "DIRECT_DEPTHWISE", kernel != "im2col")
    monkeypatch.setattr(conv_fast, "_DW_BANDED_WIDTH", 64 if kernel == "banded" else 0)
    monkeypatch.setattr(conv_fast, "_DW_AXPY", 1 if kernel.startswith("axpy") else 1 << 30)
    monkeypatch.setattr(conv_fast, "DW_DX_AS_FORWARD", kernel != "phases-scatter")
    monkeypatch.setattr(conv_fast, "_DW_STACK", 1 if kernel == "axpy-stack" else 1 << 30)
    if kernel.startswith("axpy"):  # the runs of small maps are short: send them to axpy too
        monkeypatch.setattr(conv_fast, "_DW_SHORT", 0)
    lay = conv_fast._Phases(type("G", (), dict(kernel=k, stride=s, dilate=d, pad=p,
                                               out=(1, 1)))(), shape[2:])
    monkeypatch.setattr(conv_fast, "_DW_BLOCK", block * lay.n_phase * lay.size)
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape)
    w = rng.standard_normal((c, 1) + k)
    b = rng.standard_normal(c)
    ref, grads = _ref_conv(x, w, b, s, p, d, c)
    gy = rng.standard_normal(ref.shape)
    X, W, B = (nd.array(a, dtype=dtype) for a in (x, w, b))
    for a in (X, W, B):
        a.attach_grad()
    with autograd.record():
        y = nd.Convolution(X, W, B, kernel=k, stride=s, pad=p, dilate=d, num_group=c,
                           num_filter=c)
    y.backward(nd.array(gy, dtype=dtype))
    tol = 2e-4 if dtype == "float32" else 1e-10
    dx, dw = grads(gy)
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(X.grad.asnumpy(), dx, rtol=tol, atol=tol)
    np.testing.assert_allclose(W.grad.asnumpy(), dw, rtol=tol, atol=tol)
    np.testing.assert_allclose(B.grad.asnumpy(), gy.sum(axis=(0, 2, 3)), rtol=tol, atol=tol)


def _depthwise_run(x, w, case, dtype):
    """(y, dx, dw) of a depthwise nd.Convolution with geometry `case` on x, w."""
    _, k, s, p, d = case
    c = x.shape[1]
    X, W = nd.array(x, dtype=dtype), nd.array(w, dtype=dtype)
    X.attach_grad()
    W.attach_grad()
    with autograd.record():
        y = nd.Convolution(X, W, kernel=k, stride=s, pad=p, dilate=d, num_group=c,
                           num_filter=c, no_bias=True)
    y.backward(nd.array(np.cos(np.arange(y.size)).reshape(y.shape), dtype=dtype))
    return y.asnumpy(), X.grad.asnumpy(), W.grad.asnumpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", _DEPTHWISE, ids=str)
def test_banded_depthwise_bands_by_product_equal_the_scattered_ones(case, dtype, monkeypatch):
    """The banded kernel's matrices made by a product (conv_fast.BAND_PRODUCT) give the
    output and both gradients bit for bit as the scattered ones; an infinite or NaN weight
    (which the product would spread along its band row) gives them too."""
    monkeypatch.setattr(conv_fast, "_DW_BANDED_WIDTH", 64)
    shape, k = case[:2]
    rng = np.random.default_rng(11)
    x = rng.standard_normal(shape)
    w = rng.standard_normal((shape[1], 1) + k)
    w_bad = w.copy()
    w_bad[1, 0, 0, 0], w_bad[2, 0, -1, -1] = np.inf, np.nan
    for weights in (w, w_bad):
        runs = []
        for product in (True, False):
            monkeypatch.setattr(conv_fast, "BAND_PRODUCT", product)
            runs.append(_depthwise_run(x, weights, case, dtype))
        for a, b in zip(*runs):
            np.testing.assert_array_equal(a, b)
    # the non-finite weight reaches only its own channel, as in a direct correlation
    y_bad = runs[0][0]
    assert np.isfinite(np.delete(y_bad, [1, 2], axis=1)).all()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", [  # (data shape, kernel, stride, pad, adj, groups, num_filter)
    ((5, 6, 7, 6), (4, 4), (2, 2), (1, 1), (0, 0), 1, 4),    # the DCGAN layer
    ((5, 4, 5, 6), (3, 3), (2, 3), (1, 0), (1, 2), 2, 6),    # adj, groups
    ((5, 4, 6, 5), (3, 3), (1, 1), (1, 1), (0, 0), 1, 3),    # stride 1
], ids=str)
def test_deconvolution_is_the_data_gradient(case, dtype, monkeypatch):
    """Deconvolution(x, w) is the data gradient of the Convolution with the same geometry
    taken at x (adj: the Convolution's input is adj longer); its gradients are that
    Convolution's output (data) and its weight gradient with the roles swapped."""
    shape, k, s, p, adj, groups, f = case
    monkeypatch.setattr(conv_fast, "_CHUNK", 2 * f * int(np.prod(k)) * 4 * int(
        np.prod(shape[2:])))
    # The weight gradient (a Convolution's, from gy's columns) in blocks of output rows.
    monkeypatch.setattr(conv_fast, "_BLOCK", 2 * shape[1] * int(np.prod(k)) * shape[3])
    rng = np.random.default_rng(4)
    x = rng.standard_normal(shape)
    w = rng.standard_normal((shape[1], f // groups) + k)
    out = tuple(s[i] * (shape[2 + i] - 1) + k[i] - 2 * p[i] + adj[i] for i in range(len(k)))
    z = rng.standard_normal((shape[0], f) + out)   # the Convolution's input
    y_conv, grads = _ref_conv(z, w, None, s, p, (1,) * len(k), groups)
    assert y_conv.shape == x.shape
    ref = grads(x)[0]                              # d<conv(z), x>/dz
    gy = rng.standard_normal(ref.shape)
    X, W = nd.array(x, dtype=dtype), nd.array(w, dtype=dtype)
    X.attach_grad()
    W.attach_grad()
    with autograd.record():
        y = nd.Deconvolution(X, W, kernel=k, stride=s, pad=p, adj=adj, num_group=groups,
                             num_filter=f)
    y.backward(nd.array(gy, dtype=dtype))
    tol = 2e-4 if dtype == "float32" else 1e-10
    conv_gy, grads_gy = _ref_conv(gy, w, None, s, p, (1,) * len(k), groups)
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(X.grad.asnumpy(), conv_gy, rtol=tol, atol=tol)
    # <deconv(x, w), gy> = <x, conv(gy, w)>, so dw is the Convolution's weight gradient at
    # (data gy, output gradient x).
    np.testing.assert_allclose(W.grad.asnumpy(), grads_gy(x)[1], rtol=tol, atol=tol)


@pytest.mark.parametrize("channels, few", [(3, True), (40, False)])
def test_columns_of_few_rows_come_in_their_own_chunks(channels, few, monkeypatch):
    """A stride-2 3x3 layer whose columns have at most `_FEW_ROWS` rows (3 channels: 27)
    makes them in chunks of `_FEW_ROWS_CHUNK` entries of samples, one with more rows (40
    channels: 360) in chunks of `_CHUNK`; either way the output and the weight gradient are
    the reference's."""
    n, hw, f = 5, 12, 4
    cols_per_sample = channels * 9 * (hw // 2) ** 2
    monkeypatch.setattr(conv_fast, "_FEW_ROWS_CHUNK", 2 * cols_per_sample)   # 3 chunks
    monkeypatch.setattr(conv_fast, "_CHUNK", 5 * cols_per_sample)            # 1 chunk
    samples = []
    real = conv_fast._im2col
    monkeypatch.setattr(conv_fast, "_im2col",
                        lambda x, s, e, *a: samples.append((s, e)) or real(x, s, e, *a))
    rng = np.random.default_rng(13)
    x = rng.standard_normal((n, channels, hw, hw))
    w = rng.standard_normal((f, channels, 3, 3))
    ref, grads = _ref_conv(x, w, None, (2, 2), (1, 1), (1, 1), 1)
    gy = rng.standard_normal(ref.shape)
    X, W = nd.array(x), nd.array(w)
    W.attach_grad()
    with autograd.record():
        y = nd.Convolution(X, W, kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_filter=f,
                           no_bias=True)
    y.backward(nd.array(gy))
    chunks = [(0, 2), (2, 4), (4, 5)] if few else [(0, 5)]
    assert samples == chunks * 2    # the forward's columns, then the weight gradient's
    _, dw = grads(gy)
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=2e-4, atol=2e-4 * np.abs(ref).max())
    np.testing.assert_allclose(W.grad.asnumpy(), dw, rtol=2e-4, atol=2e-4 * np.abs(dw).max())


@pytest.mark.parametrize("shape, stride, banded", [
    ((4, 3, 28, 28), 1, False),   # runs across 4 samples long enough for BLAS: per tap
    ((2, 3, 28, 28), 1, True),    # two samples' runs are short: the band
    ((4, 3, 14, 14), 1, True),    # narrow: the band at any batch
    ((4, 3, 28, 28), 2, True),    # strided: the band
])
def test_depthwise_default_rule_between_band_and_taps(shape, stride, banded, monkeypatch):
    """With the default settings, which kernel a narrow depthwise layer takes depends on its
    width, stride and batch (conv_fast's `_banded`); either way the output and the
    gradients are the reference's."""
    taken = []
    for name in ("_banded_forward", "_banded_backward"):
        real = getattr(conv_fast, name)
        monkeypatch.setattr(conv_fast, name,
                            lambda *a, _real=real: taken.append(True) or _real(*a))
    rng = np.random.default_rng(12)
    c = shape[1]
    x, w = rng.standard_normal(shape), rng.standard_normal((c, 1, 3, 3))
    ref, grads = _ref_conv(x, w, None, (stride,) * 2, (1, 1), (1, 1), c)
    gy = rng.standard_normal(ref.shape)
    X, W = nd.array(x, dtype="float32"), nd.array(w, dtype="float32")
    X.attach_grad()
    W.attach_grad()
    with autograd.record():
        y = nd.Convolution(X, W, kernel=(3, 3), stride=(stride,) * 2, pad=(1, 1), num_group=c,
                           num_filter=c, no_bias=True)
    y.backward(nd.array(gy, dtype="float32"))
    assert taken == ([True, True] if banded else [])
    dx, dw = grads(gy)
    for got, want in ((y, ref), (X.grad, dx), (W.grad, dw)):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=2e-4,
                                   atol=2e-4 * np.abs(want).max())


@pytest.mark.parametrize("kernel", ["phases", "phases-scatter", "axpy", "banded"])
def test_depthwise_gradients_match_finite_differences(kernel, monkeypatch):
    """The depthwise kernels' data, weight and bias gradients against central finite
    differences (float64), stride 2, padding, dilation, a non-square map."""
    from gluonlite import sym
    from gluonlite.test_utils import check_numeric_gradient
    monkeypatch.setattr(conv_fast, "_DW_BANDED_WIDTH", 64 if kernel == "banded" else 0)
    monkeypatch.setattr(conv_fast, "_DW_AXPY", 1 if kernel == "axpy" else 1 << 30)
    monkeypatch.setattr(conv_fast, "DW_DX_AS_FORWARD", kernel != "phases-scatter")
    y = sym.Convolution(sym.var("x"), sym.var("w"), sym.var("b"), kernel=(3, 2),
                        stride=(2, 1), pad=(1, 1), dilate=(1, 2), num_group=3, num_filter=3)
    rng = np.random.default_rng(8)
    check_numeric_gradient(y, {"x": rng.standard_normal((2, 3, 6, 5)),
                               "w": rng.standard_normal((3, 1, 3, 2)),
                               "b": rng.standard_normal(3)}, dtype=np.float64)


@pytest.mark.parametrize("kernel", ["phases", "axpy", "banded"])
def test_depthwise_block_hybridized_matches_imperative(kernel, monkeypatch):
    """A MobileNet depthwise block (3x3 depthwise, BatchNorm, relu; then stride 2) on a
    map wider than the banded kernel's limit: the fused static-alloc inference and a
    hybridized training step against the imperative block."""
    from gluonlite import gluon
    monkeypatch.setattr(conv_fast, "_DW_BANDED_WIDTH", 64 if kernel == "banded" else 0)
    monkeypatch.setattr(conv_fast, "_DW_AXPY", 1 if kernel == "axpy" else 1 << 30)
    nn = gluon.nn
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, 1, 1, groups=4, use_bias=False), nn.BatchNorm(),
            nn.Activation("relu"), nn.Conv2D(4, 3, 2, 1, groups=4))
    net.initialize()
    x = nd.array(np.random.default_rng(9).standard_normal((2, 4, 9, 40)))
    net(x)
    with autograd.record():
        loss = net(x).sum()
    loss.backward()
    ref_grads = [p.grad().asnumpy() for p in net.collect_params().values()
                 if p.grad_req != "null"]
    ref = net(x).asnumpy()  # with the moving statistics the training step updated
    net.hybridize(static_alloc=True, static_shape=True)
    for _ in range(2):
        np.testing.assert_allclose(net(x).asnumpy(), ref, rtol=1e-5, atol=1e-5)
    with autograd.record():
        loss = net(x).sum()
    loss.backward()
    grads = [p.grad().asnumpy() for p in net.collect_params().values()
             if p.grad_req != "null"]
    for a, b in zip(grads, ref_grads):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)


def test_geometry_memo_keeps_none_results():
    """conv_fast's per-geometry memo remembers a None result (what `_live` gives for a layer
    whose taps all reach the input) instead of working it out again on every call, and
    tells geometries apart by every field."""
    calls = []

    @conv_fast._memo
    def probe(g, sp):
        calls.append((g, sp))
        return None if g.pad == (1, 1) else g.pad

    from gluonlite.ops import conv
    same = conv.Geom((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (8, 8))
    other = conv.Geom((3, 3), (1, 1), (1, 1), (0, 0), (0, 0), (6, 6))
    assert [probe(same, (8, 8)) for _ in range(3)] == [None] * 3
    assert probe(other, (8, 8)) == (0, 0) and probe(other, (8, 8)) == (0, 0)
    assert probe(same, (9, 9)) is None
    assert calls == [(same, (8, 8)), (other, (8, 8)), (same, (9, 9))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_depthwise_data_gradient_per_phase_when_the_phases_are_narrow(dtype, monkeypatch):
    """A stride-2 depthwise layer whose input is too wide for the banded kernel while its
    output gradient is narrow enough for it: the data gradient goes through the per-tap
    forward kernel on each phase (never the bands), and equals the scattered one and the
    reference."""
    monkeypatch.setattr(conv_fast, "_DW_BANDED_WIDTH", 8)     # input 12 wide, gy 6 wide
    monkeypatch.setattr(conv_fast, "_DW_AXPY", 1 << 30)
    case = ((2, 3, 9, 12), (3, 3), (2, 2), (1, 1), (1, 1))
    shape, k, s, p, d = case
    rng = np.random.default_rng(12)
    x = rng.standard_normal(shape)
    w = rng.standard_normal((shape[1], 1) + k)
    banded = []
    real = conv_fast._depthwise_forward

    def spy(x_, w_, g_, y_, b_, banded_=None, epilogue=None):
        banded.append(banded_)
        return real(x_, w_, g_, y_, b_, banded_, epilogue=epilogue)
    monkeypatch.setattr(conv_fast, "_depthwise_forward", spy)
    runs = {}
    for as_forward in (True, False):
        monkeypatch.setattr(conv_fast, "DW_DX_AS_FORWARD", as_forward)
        runs[as_forward] = _depthwise_run(x, w, case, dtype)
    assert False in banded   # the phases' forward calls were told not to band
    _, grads = _ref_conv(x, w, None, s, p, d, shape[1])
    dx_ref = grads(np.cos(np.arange(runs[True][0].size)).reshape(runs[True][0].shape))[0]
    tol = 2e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(runs[True][1], dx_ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(runs[True][1], runs[False][1], rtol=tol, atol=tol)


def test_bands_of_a_weight_nothing_can_write_are_kept():
    """A depthwise weight that is read-only and owns its data (the inference backend's folded
    weight) has its bands made once and kept while it lives; a writable weight, or a read-only
    view of a writable one, gets them made on every call. Kept or not, the output is the
    same."""
    from gluonlite.ops import conv
    g = conv.Geom((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (6, 6))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    w = rng.standard_normal((4, 1, 3, 3)).astype(np.float32)
    ref = conv_fast.forward(x, w, 4, g).copy()
    assert conv_fast._bands(w, g, (6, 6), np.float32) is not \
        conv_fast._bands(w, g, (6, 6), np.float32)
    frozen = w.copy()
    frozen.flags.writeable = False
    before = len(conv_fast._KEPT_BANDS)
    first = conv_fast._bands(frozen, g, (6, 6), np.float32)
    assert conv_fast._bands(frozen, g, (6, 6), np.float32) is first
    assert not first.flags.writeable
    np.testing.assert_array_equal(first, conv_fast._bands(w, g, (6, 6), np.float32))
    np.testing.assert_array_equal(conv_fast.forward(x, frozen, 4, g), ref)
    view = np.ones((8, 1, 3, 3), np.float32)[:4]
    view.flags.writeable = False
    assert conv_fast._bands(view, g, (6, 6), np.float32) is not \
        conv_fast._bands(view, g, (6, 6), np.float32)
    assert len(conv_fast._KEPT_BANDS) == before + 1
    del frozen, first
    assert len(conv_fast._KEPT_BANDS) == before  # gone with its weight
