"""gluonlite's convolutional models (gluon.nn layers, model_zoo) export to files that MXNet
1.9.1 loads and computes the same numbers with.

    PYTHONPATH=. python benchmarks/cnn_export.py [--mxnet-python /work/mxvenv/bin/python]
        [--keep DIR]

For each model (the three CNNs of tests/fixtures/mxnet/cnn_*, a few more layers, two model
zoo networks), gluonlite hybridizes it, runs it once on random inputs under
autograd.record() with random head gradients, and exports it (``HybridBlock.export``). Then
this same file runs under the MXNet interpreter (``--mxnet-python``, default
$GLUONLITE_MXNET_PYTHON) with ``--mxnet-side DIR``: there it imports nothing of gluonlite,
loads every export with ``SymbolBlock.imports``, runs it on the same inputs and head gradients
under autograd.record() and writes its outputs and gradients. The table gives, per model, the
largest difference (relative to the largest MXNet value when that is above 1) of the outputs,
of the input gradients and of the parameter gradients; the exit status is 1 when one exceeds
1e-4. Not part of the test suite (it needs
MXNet).
"""
import os
import sys

import numpy as np

from _export_check import export_check_main

# Models with Dropout (squeezenet, vgg, alexnet, inception) are left out: under
# autograd.record() each framework draws its own masks.
# name, builder source (gluonlite.gluon.nn as nn, contrib.nn as cnn, model_zoo.vision as
# vision), input shape
CASES = [
    ("lenet", "seq(nn.Conv2D(6, 5, padding=2, activation='relu'), nn.MaxPool2D(2), "
              "nn.Conv2D(8, 3), nn.BatchNorm(), nn.Activation('relu'), nn.AvgPool2D(2), "
              "nn.Flatten(), nn.Dense(16, activation='relu'), nn.Dense(10))", (2, 1, 16, 16)),
    ("dcgan_gen", "seq(nn.Conv2DTranspose(8, 4, use_bias=False), nn.BatchNorm(), "
                  "nn.LeakyReLU(0.2), nn.Conv2DTranspose(3, 4, strides=2, padding=1), "
                  "nn.Activation('tanh'))", (2, 4, 1, 1)),
    ("conv1d", "seq(nn.Conv1D(5, 3, strides=2, padding=1), nn.ELU(), nn.MaxPool1D(2), "
               "nn.Conv1D(4, 2, dilation=2), nn.GlobalAvgPool1D())", (3, 2, 17)),
    ("conv3d_norms", "seq(nn.Conv3D(4, 2, padding=1, groups=2), nn.InstanceNorm(), "
                     "nn.GELU(), nn.AvgPool3D(2, ceil_mode=True, count_include_pad=False), "
                     "nn.GlobalMaxPool3D())", (2, 2, 3, 4, 4)),
    ("groupnorm_pad", "seq(nn.Conv2D(4, 3), nn.GroupNorm(2), nn.GELU(), nn.ReflectionPad2D(1), "
                      "nn.Conv2DTranspose(2, 3, strides=2, output_padding=1), nn.PReLU(), "
                      "cnn.PixelShuffle2D(1))", (2, 3, 6, 6)),
    ("resnet18_v1_thumb", "vision.resnet18_v1(classes=5, thumbnail=True)", (2, 3, 16, 16)),
    ("mobilenetv2_0.25", "vision.mobilenet_v2_0_25(classes=4)", (2, 3, 96, 96)),
]
TOL = 1e-4


def _gluonlite_side(tmp):
    """Export every case from gluonlite; returns {name: results}."""
    import gluonlite as mx
    from gluonlite import autograd, nd
    from gluonlite.gluon import nn
    from gluonlite.gluon.contrib import nn as cnn
    from gluonlite.gluon.model_zoo import vision

    def seq(*layers):
        net = nn.HybridSequential()
        net.add(*layers)
        return net

    rng = np.random.default_rng(0)
    made = {}
    for name, src, shape in CASES:
        net = eval(src, {"nn": nn, "cnn": cnn, "vision": vision, "seq": seq})
        net.initialize(mx.init.Xavier(magnitude=2))
        x = rng.uniform(-1, 1, shape).astype("float32")
        net(nd.array(x))
        if not src.startswith("vision."):  # the zoo's deep nets keep their Xavier weights
            for p in net.collect_params().values():
                if p.grad_req != "null":
                    p.set_data(nd.array(rng.uniform(-0.5, 0.5, p.shape)))
        net.hybridize()
        a = nd.array(x)
        a.attach_grad()
        with autograd.record():
            out = net(a)
        head = rng.uniform(-1, 1, out.shape).astype("float32")
        out.backward(nd.array(head))
        base = os.path.join(tmp, name)
        net.export(base)
        np.savez(base + "-io.npz", in0=x, head0=head)
        made[name] = {"outs": [out.asnumpy()], "grad_in": [a.grad.asnumpy()],
                      "grad_params": {k: p.grad().asnumpy()
                                      for k, p in net.collect_params().items()
                                      if p.grad_req != "null"}}
    return made


def _mxnet_side(tmp):
    """Under MXNet: load each export, run it, save outputs and gradients (no gluonlite)."""
    import mxnet as mx
    from mxnet import autograd, gluon, nd
    for name, _, _ in CASES:
        base = os.path.join(tmp, name)
        io = np.load(base + "-io.npz")
        block = gluon.SymbolBlock.imports(base + "-symbol.json", ["data"],
                                          base + "-0000.params", ctx=mx.cpu())
        a = nd.array(io["in0"])
        a.attach_grad()
        with autograd.record():
            out = block(a)
        out.backward(nd.array(io["head0"]))
        result = {"out0": out.asnumpy(), "grad_in0": a.grad.asnumpy()}
        result.update({f"grad_{k}": p.grad().asnumpy()
                       for k, p in block.collect_params().items() if p.grad_req != "null"})
        np.savez(base + "-mxnet.npz", **result)


def _err(a, b):
    """The largest difference relative to the largest MXNet value (deep nets with BatchNorm
    on small batches amplify float32 rounding; their values are far from 1)."""
    a, b = np.asarray(a), np.asarray(b)
    if not np.size(a):
        return 0.0
    return float(np.abs(a - b).max() / max(1.0, float(np.abs(b).max())))


def main(argv=None):
    """Export, check under MXNet, print the table; returns the exit status (0, 1 on a
    difference above 1e-4, 2 when MXNet is not available)."""
    # MXNet's native kernels (its MKL-DNN ones lack dilated transposed convolutions)
    env = dict(os.environ, MXNET_MKLDNN_ENABLED="0", MXNET_STORAGE_FALLBACK_LOG_VERBOSE="0")
    return export_check_main(argv, __doc__, __file__, _gluonlite_side, _mxnet_side,
                             [case[0] for case in CASES], _err, TOL, "model", env=env)


if __name__ == "__main__":
    sys.exit(main())
