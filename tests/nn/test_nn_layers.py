"""gluon.nn and gluon.contrib.nn layers against MXNet 1.9.1 (tests/fixtures/mxnet/nn_layers.json,
made by make_nn_layers.py): repr, parameter names and declared shapes (deferred ones 0), and
outputs with MXNet's weights, imperative and hybridized; then layout and bad input."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd
from gluonlite.gluon import nn
from gluonlite.gluon.contrib import nn as cnn

_CASES = json.load(open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "mxnet",
                                     "nn_layers.json")))


def _params(layer):
    n = len(layer.prefix)
    return [[k[n:], list(p.shape)] for k, p in layer.collect_params().items()]


@pytest.mark.parametrize("case", _CASES, ids=[c["src"] for c in _CASES])
def test_layer_matches_mxnet(case):
    layer = eval(case["src"], {"nn": nn, "cnn": cnn})
    # A childless block's repr is Block's generic one, "Name(\n\n)" in MXNet: not this file's.
    if not case["repr"].endswith("(\n\n)"):
        assert repr(layer) == case["repr"]
    assert layer.prefix.rstrip("_0123456789") == case["prefix"]
    assert _params(layer) == case["params"]
    if "input" not in case:
        return
    x = nd.array(np.array(case["input"], dtype=np.float32))
    layer.initialize()
    layer(x)  # deferred shapes resolved, then MXNet's values set
    n = len(layer.prefix)
    for k, p in layer.collect_params().items():
        p.set_data(nd.array(np.array(case["weights"][k[n:]], dtype=np.float32)))
    want = np.array(case["output"], dtype=np.float32)
    np.testing.assert_allclose(layer(x).asnumpy(), want, rtol=1e-4, atol=1e-5)
    layer.hybridize()
    np.testing.assert_allclose(layer(x).asnumpy(), want, rtol=1e-4, atol=1e-5)


def test_conv_nhwc_equals_nchw_with_moved_axes():
    rng = np.random.RandomState(0)
    a = nn.Conv2D(4, (3, 2), padding=1, in_channels=3)
    b = nn.Conv2D(4, (3, 2), padding=1, in_channels=3, layout="NHWC")
    a.initialize()
    b.initialize()
    w = rng.uniform(-1, 1, (4, 3, 3, 2)).astype(np.float32)
    a.weight.set_data(nd.array(w))
    b.weight.set_data(nd.array(w.transpose(0, 2, 3, 1)))
    x = rng.uniform(-1, 1, (2, 3, 5, 4)).astype(np.float32)
    ya = a(nd.array(x)).asnumpy()
    yb = b(nd.array(x.transpose(0, 2, 3, 1))).asnumpy()
    np.testing.assert_allclose(yb.transpose(0, 3, 1, 2), ya, rtol=1e-5, atol=1e-6)


def test_concurrent_and_hybrid_concurrent_concatenate_children():
    for cls in (cnn.Concurrent, cnn.HybridConcurrent):
        net = cls(axis=1)
        net.add(nn.Dense(3, in_units=2), cnn.Identity(), nn.Dense(1, in_units=2))
        net.initialize()
        x = nd.array([[1.0, 2.0]])
        y = net(x)
        assert y.shape == (1, 6)
        np.testing.assert_allclose(y.asnumpy()[:, 3:5], x.asnumpy())


def test_sparse_embedding_has_a_row_sparse_weight_and_gradient():
    emb = cnn.SparseEmbedding(10, 4)
    assert emb.weight.stype == "row_sparse" and emb.weight.grad_stype == "row_sparse"
    assert repr(emb) == "SparseEmbedding(10 -> 4, float32)"


@pytest.mark.parametrize("make,msg", [
    (lambda: nn.Conv2D(4, 3, layout="NCW"), r"Conv2D: layout='NCW' is not supported"),
    (lambda: nn.Conv2DTranspose(4, 3, layout="NHWC"),
     r"Conv2DTranspose: layout='NHWC' is not supported"),
    (lambda: nn.Conv2D(4, 3, groups=3), r"Conv2D: groups=3 must divide channels=4"),
    (lambda: nn.MaxPool2D(0), r"MaxPool2D: pool_size=\(0, 0\) must be positive"),
    (lambda: nn.Conv1D(4, (3, 3)), r"Conv1D: kernel_size must be an int or a tuple of 1 ints"),
    (lambda: nn.LeakyReLU(-0.1), r"LeakyReLU: alpha .* must be >= 0"),
    (lambda: nn.ReflectionPad2D((1, 2)), r"ReflectionPad2D: padding must be an int or 8 ints"),
])
def test_bad_layer_arguments_fail_at_construction(make, msg):
    with pytest.raises(ValueError, match=msg):
        make()


def test_layer_errors_name_the_operator_and_shapes():
    conv = nn.Conv2D(4, 5, in_channels=3)
    conv.initialize()
    with pytest.raises(mx.MXNetError, match=r"Convolution: kernel=\(5, 5\).*larger than the "
                                           r"padded input: spatial shape \(3, 3\)"):
        conv(nd.ones((1, 3, 3, 3)))
    conv = nn.Conv2D(4, 3, groups=2)
    conv.initialize()
    with pytest.raises(mx.MXNetError, match=r"Convolution: num_group=2 must divide the input "
                                           r"channels \(3, data \(1, 3, 5, 5\)\)"):
        conv(nd.ones((1, 3, 5, 5)))


def test_loading_a_conv_of_another_shape_names_the_parameter_and_both_shapes(tmp_path):
    a = nn.Conv2D(3, 3, in_channels=2, prefix="c_")
    a.initialize()
    a.save_parameters(str(tmp_path / "c.params"))
    b = nn.Conv2D(4, 3, in_channels=2, prefix="c_")
    with pytest.raises(ValueError, match=r"c\.params: .*weight \(expected \(4, 2, 3, 3\), "
                                         r"file has \(3, 2, 3, 3\)\)"):
        b.load_parameters(str(tmp_path / "c.params"))


def test_gradient_penalty_through_a_convolution_matches_finite_differences():
    # WGAN-GP's penalty: |d loss / d x|^2, differentiated again with respect to the weight.
    rng = np.random.RandomState(3)
    x0 = rng.uniform(-1, 1, (2, 2, 5, 4))
    w0 = rng.uniform(-1, 1, (3, 2, 3, 2))
    attrs = dict(kernel=(3, 2), num_filter=3, stride=(2, 1), pad=(1, 0), no_bias=True)

    def input_grad(w, create_graph):
        x = nd.array(x0, dtype=np.float64)
        x.attach_grad()
        with mx.autograd.record():
            loss = nd.tanh(nd.Convolution(x, w, **attrs)).sum()
            gx, = mx.autograd.grad(loss, [x], create_graph=create_graph)
            pen = (gx * gx).sum()
        return pen

    w = nd.array(w0, dtype=np.float64)
    w.attach_grad()
    with mx.autograd.record():
        pen = input_grad(w, True)
    pen.backward()
    num = np.zeros_like(w0)
    for k in np.ndindex(w0.shape):
        d = np.zeros_like(w0)
        d[k] = 1e-6
        hi = input_grad(nd.array(w0 + d, dtype=np.float64), False).asscalar()
        lo = input_grad(nd.array(w0 - d, dtype=np.float64), False).asscalar()
        num[k] = (hi - lo) / 2e-6
    np.testing.assert_allclose(w.grad.asnumpy(), num, rtol=1e-5, atol=1e-7)
