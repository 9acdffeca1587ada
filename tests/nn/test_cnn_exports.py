"""MXNet 1.9.1's exports of three CNNs (tests/fixtures/mxnet/cnn_*: LeNet with BatchNorm, a
DCGAN generator with transposed convolutions, a 1-D convolution net) load with
`SymbolBlock.imports` and reproduce MXNet's outputs and its input and parameter gradients,
hybridized or not; the same models built with gluon.nn layers have MXNet's parameter names."""
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd
from gluonlite.gluon import nn

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "mxnet")
MODELS = ["cnn_lenet", "cnn_dcgan_gen", "cnn_conv1d"]


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("name", MODELS)
def test_mxnet_cnn_exports_match_outputs_and_gradients(name, hybridize):
    base = os.path.join(FIXTURES, name)
    io = np.load(base + "-io.npz")
    block = gluon.SymbolBlock.imports(base + "-symbol.json", ["data"], base + "-0000.params")
    if hybridize:
        block.hybridize()
    x = nd.array(io["in0"])
    x.attach_grad()
    with autograd.record():
        out = block(x)
    out.backward(nd.array(io["head0"]))
    np.testing.assert_allclose(out.asnumpy(), io["out0"], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(x.grad.asnumpy(), io["grad_in0"], rtol=1e-4, atol=1e-4)
    params = block.collect_params()
    want = sorted(k[5:] for k in io.files if k.startswith("grad_") and k != "grad_in0")
    assert sorted(k for k, p in params.items() if p.grad_req != "null") == want
    for k in want:
        np.testing.assert_allclose(params[k].grad().asnumpy(), io["grad_" + k], rtol=1e-4,
                                   atol=1e-4, err_msg=k)


def _lenet():
    net = nn.HybridSequential(prefix="lenet_")
    with net.name_scope():
        net.add(nn.Conv2D(6, 5, padding=2, activation="relu"), nn.MaxPool2D(2),
                nn.Conv2D(8, 3), nn.BatchNorm(), nn.Activation("relu"), nn.AvgPool2D(2),
                nn.Flatten(), nn.Dense(16, activation="relu"), nn.Dense(10))
    return net


def _dcgan():
    net = nn.HybridSequential(prefix="gen_")
    with net.name_scope():
        net.add(nn.Conv2DTranspose(8, 4, use_bias=False), nn.BatchNorm(), nn.LeakyReLU(0.2),
                nn.Conv2DTranspose(3, 4, strides=2, padding=1), nn.Activation("tanh"))
    return net


def _conv1d():
    net = nn.HybridSequential(prefix="c1d_")
    with net.name_scope():
        net.add(nn.Conv1D(5, 3, strides=2, padding=1), nn.ELU(), nn.MaxPool1D(2),
                nn.Conv1D(4, 2, dilation=2), nn.GlobalAvgPool1D())
    return net


@pytest.mark.parametrize("name,build", [("cnn_lenet", _lenet), ("cnn_dcgan_gen", _dcgan),
                                        ("cnn_conv1d", _conv1d)])
def test_the_same_models_from_gluon_nn_load_mxnets_parameters(name, build):
    base = os.path.join(FIXTURES, name)
    io = np.load(base + "-io.npz")
    net = build()
    net.collect_params().load(base + "-0000.params", ctx=mx.cpu())
    net.hybridize()
    x = nd.array(io["in0"])
    with autograd.record():
        out = net(x)
    np.testing.assert_allclose(out.asnumpy(), io["out0"], rtol=1e-4, atol=1e-4)
