"""Graphs exported by MXNet 1.9.1 with _foreach/_while_loop/_cond nodes load and reproduce
MXNet's outputs; our own graphs serialize with the same node layout."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "mxnet")
MODELS = ["foreach_lstm", "while_gru", "cond_then", "mlp", "bnnet"]


def _load_params(name):
    loaded = nd.load(os.path.join(FIX, f"{name}-0000.params"))
    return {k: v.asnumpy() for k, v in loaded.items()}


def _bind(name):
    net = sym.load(os.path.join(FIX, f"{name}-symbol.json"))
    params = _load_params(name)
    io = np.load(os.path.join(FIX, f"{name}-io.npz"))
    n_in = len([k for k in io if k.startswith("in")])
    data_names = ["data"] if n_in == 1 else [f"data{i}" for i in range(n_in)]
    args = {n: nd.array(io[f"in{i}"]) for i, n in enumerate(data_names)}
    aux = {}
    for k, v in params.items():
        kind, pname = k.split(":", 1)
        (args if kind == "arg" else aux)[pname] = nd.array(v)
    return net, args, aux, io


@pytest.mark.parametrize("name", MODELS)
def test_fixture_reproduces_mxnet_outputs(name):
    net, args, aux, io = _bind(name)
    exe = net.bind(mx.cpu(), args, aux_states=aux or None)
    outs = exe.forward()
    n_out = len([k for k in io if k.startswith("out")])
    assert len(outs) == n_out
    for i, o in enumerate(outs):
        np.testing.assert_allclose(o.asnumpy(), io[f"out{i}"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["foreach_lstm", "while_gru", "cond_then"])
def test_fixture_json_round_trip_keeps_layout(name):
    text = open(os.path.join(FIX, f"{name}-symbol.json")).read()
    ours = json.loads(sym.load_json(text).tojson())
    theirs = json.loads(text)
    for a, b in zip(ours["nodes"], theirs["nodes"]):
        assert (a["op"], a["name"], a["inputs"]) == (b["op"], b["name"], b["inputs"])
        assert a.get("attrs", {}) == b.get("attrs", {})
        assert len(a.get("subgraphs", [])) == len(b.get("subgraphs", []))
        for sa, sb in zip(a.get("subgraphs", []), b.get("subgraphs", [])):
            assert [n["op"] for n in sa["nodes"]] == [n["op"] for n in sb["nodes"]]
            assert sa["heads"] == sb["heads"]


def test_fixture_gradients_match_finite_differences():
    """A loaded while_loop GRU trains: symbolic grads of the weights match a numeric check."""
    net, args, aux, io = _bind("while_gru")
    args64 = {k: nd.array(v.asnumpy().astype(np.float64), dtype="float64")
              for k, v in args.items()}
    args64["data1"] = nd.array([0.0], dtype="float64")
    w = "gru_h2h_weight"
    grads = {w: nd.zeros(args64[w].shape, dtype="float64")}
    exe = net.bind(mx.cpu(), args64, args_grad=grads, grad_req={w: "write"})
    outs = exe.forward(is_train=True)
    exe.backward([nd.ones(o.shape, dtype="float64") for o in outs[:1]] +
                 [None, nd.ones(outs[2].shape, dtype="float64")])

    def loss(wv):
        a = dict(args64)
        a[w] = nd.array(wv, dtype="float64")
        o = net.bind(mx.cpu(), a).forward()
        return o[0].asnumpy().sum() + o[2].asnumpy().sum()

    base = args64[w].asnumpy()
    num = np.zeros_like(base)
    for idx in [(0, 0), (3, 5), (17, 2), (23, 7)]:
        e = np.zeros_like(base)
        e[idx] = 1e-6
        num[idx] = (loss(base + e) - loss(base - e)) / 2e-6
        np.testing.assert_allclose(grads[w].asnumpy()[idx], num[idx], rtol=1e-5, atol=1e-7)
