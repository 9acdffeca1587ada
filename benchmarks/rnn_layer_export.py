"""gluonlite's gluon.rnn layer exports load in MXNet 1.9.1 and compute the same numbers.

    PYTHONPATH=. python benchmarks/rnn_layer_export.py [--mxnet-python /work/mxvenv/bin/python]
        [--keep DIR]

For each layer (LSTM 2 layers bidirectional, GRU NTC, RNN relu 2 layers, LSTM with a
projection, LSTM called without states), gluonlite hybridizes it, runs it once on random
inputs under autograd.record() with random head gradients, and exports it
(``HybridBlock.export``). Then this same file runs under the MXNet interpreter
(``--mxnet-python``, default $GLUONLITE_MXNET_PYTHON) with ``--mxnet-side DIR``: there it
imports nothing of gluonlite, loads every export with ``SymbolBlock.imports`` and runs it
on the same inputs and head gradients (in training mode, except the projection case,
which MXNet's CPU kernel runs in inference only), and writes its outputs and gradients.
The table gives, per layer, the largest absolute difference of the outputs, of the input
gradients and of the parameter gradients; the exit status is 1 when one exceeds 1e-4.
Not part of the test suite (it needs MXNet).
"""
import os
import sys

import numpy as np

from _export_check import export_check_main

CASES = [
    ("lstm_bi2", "LSTM", {"num_layers": 2, "bidirectional": True}, "TNC", True),
    ("gru_ntc", "GRU", {"layout": "NTC"}, "NTC", True),
    ("rnn_relu2", "RNN", {"num_layers": 2, "activation": "relu"}, "TNC", True),
    ("lstm_proj", "LSTM", {"projection_size": 3}, "TNC", True),
    ("lstm_nostate", "LSTM", {}, "TNC", False),
]
TOL = 1e-4


def _gluonlite_side(tmp):
    """Export every case from gluonlite; returns {name: (files, inputs, outputs, grads)}."""
    from gluonlite import autograd, nd
    from gluonlite.gluon import rnn
    rng = np.random.default_rng(0)
    made = {}
    for name, cls, kw, layout, with_states in CASES:
        layer = getattr(rnn, cls)(5, input_size=4, prefix=f"{name}_", **kw)
        layer.initialize()
        for p in layer.collect_params().values():
            p.set_data(nd.array(rng.uniform(-0.5, 0.5, p.shape)))
        layer.hybridize()
        x = rng.uniform(-1, 1, (3, 2, 4) if layout == "TNC" else (2, 3, 4)).astype("float32")
        ins = [x]
        if with_states:
            ins += [rng.uniform(-1, 1, i["shape"]).astype("float32")
                    for i in layer.state_info(2)]
        arrays = [nd.array(a) for a in ins]
        for a in arrays:
            a.attach_grad()
        with autograd.record():
            out = layer(*arrays) if not with_states else layer(arrays[0], arrays[1:])
        outs = [out] if not with_states else [out[0]] + list(out[1])
        heads = [rng.uniform(-1, 1, o.shape).astype("float32") for o in outs]
        autograd.backward(outs, [nd.array(h) for h in heads])
        base = os.path.join(tmp, name)
        layer.export(base)
        np.savez(base + "-io.npz", **{f"in{i}": a for i, a in enumerate(ins)},
                 **{f"head{i}": h for i, h in enumerate(heads)})
        made[name] = {"outs": [o.asnumpy() for o in outs],
                      "grad_in": [a.grad.asnumpy() for a in arrays],
                      "grad_params": {k: p.grad().asnumpy()
                                      for k, p in layer.collect_params().items()}}
    return made


def _mxnet_side(tmp):
    """Under MXNet: load each export, run it, save outputs and gradients (no gluonlite)."""
    import mxnet as mx
    from mxnet import autograd, gluon, nd
    for name, _, kw, _, _ in CASES:
        base = os.path.join(tmp, name)
        io = np.load(base + "-io.npz")
        n_in = sum(k.startswith("in") for k in io.files)
        names = ["data"] if n_in == 1 else [f"data{i}" for i in range(n_in)]
        block = gluon.SymbolBlock.imports(base + "-symbol.json", names, base + "-0000.params",
                                          ctx=mx.cpu())
        arrays = [nd.array(io[f"in{i}"]) for i in range(n_in)]
        for a in arrays:
            a.attach_grad()
        train = "projection_size" not in kw  # MXNet's CPU kernel: projection in inference only
        if train:
            with autograd.record():
                outs = block(*arrays)
        else:
            outs = block(*arrays)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        result = {f"out{i}": o.asnumpy() for i, o in enumerate(outs)}
        if train:
            autograd.backward(outs, [nd.array(io[f"head{i}"]) for i in range(len(outs))])
            result.update({f"grad_in{i}": a.grad.asnumpy() for i, a in enumerate(arrays)})
            result.update({f"grad_{k}": p.grad().asnumpy()
                           for k, p in block.collect_params().items()})
        np.savez(base + "-mxnet.npz", **result)


def _err(a, b):
    return float(np.abs(np.asarray(a) - np.asarray(b)).max()) if np.size(a) else 0.0


def main(argv=None):
    """Export, check under MXNet, print the table; returns the exit status (0, 1 on a
    difference above 1e-4, 2 when MXNet is not available)."""
    return export_check_main(argv, __doc__, __file__, _gluonlite_side, _mxnet_side,
                             [case[0] for case in CASES], _err, TOL, "export")


if __name__ == "__main__":
    sys.exit(main())
