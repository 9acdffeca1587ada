"""The convolution, pooling, normalization and activation operators against MXNet 1.9.1:
outputs and input gradients for the cases in tests/fixtures/mxnet/nn_ops.npz (made by
tests/fixtures/make_nn_ops.py), imperatively and through a bound symbol."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd

_FILE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "mxnet", "nn_ops.npz")
_DATA = np.load(_FILE)
_N = int(_DATA["n"])


def _case(i):
    meta = json.loads(str(_DATA[f"{i}_meta"]))
    ins = []
    k = 0
    while f"{i}_in{k}" in _DATA:
        ins.append(_DATA[f"{i}_in{k}"])
        k += 1
    return meta, ins


# MXNet 1.9.1's SELU gradient below 0 is lambda * (alpha + y), y the output; the derivative is
# y + lambda * alpha (the registry walk holds ours against finite differences), so only SELU's
# forward is compared.
_NO_GRAD = {"selu"}


def _grads_compared(meta):
    return meta["name"] not in _NO_GRAD


def _ids():
    return [json.loads(str(_DATA[f"{i}_meta"]))["name"] for i in range(_N)]


@pytest.mark.parametrize("i", range(_N), ids=_ids())
def test_imperative_matches_mxnet(i):
    meta, ins = _case(i)
    xs = [nd.array(a) for a in ins]
    for x in xs:
        x.attach_grad()
    with autograd.record():
        y = getattr(nd, meta["op"])(*xs, **meta["attrs"])
    y.backward(nd.array(_DATA[f"{i}_head"]))
    np.testing.assert_allclose(y.asnumpy(), _DATA[f"{i}_out"], rtol=1e-4, atol=1e-5)
    for k, x in enumerate(xs if _grads_compared(meta) else []):
        np.testing.assert_allclose(x.grad.asnumpy(), _DATA[f"{i}_grad{k}"], rtol=1e-4,
                                   atol=1e-5, err_msg=f"{meta['name']}: gradient of input {k}")


@pytest.mark.parametrize("i", range(_N), ids=_ids())
def test_symbolic_matches_mxnet(i):
    meta, ins = _case(i)
    names = [f"x{k}" for k in range(len(ins))]
    s = getattr(mx.sym, meta["op"])(*[mx.sym.var(n) for n in names], **meta["attrs"])
    s = mx.sym.load_json(s.tojson())  # the attributes' string forms read back the same
    _, out_shapes, _ = s.infer_shape(**{n: a.shape for n, a in zip(names, ins)})
    assert tuple(out_shapes[0]) == _DATA[f"{i}_out"].shape
    args = {n: nd.array(a) for n, a in zip(names, ins)}
    grads = {n: nd.zeros(a.shape) for n, a in zip(names, ins)}
    ex = s.bind(mx.cpu(), args, args_grad=grads)
    y = ex.forward(is_train=True)[0]
    ex.backward([nd.array(_DATA[f"{i}_head"])])
    np.testing.assert_allclose(y.asnumpy(), _DATA[f"{i}_out"], rtol=1e-4, atol=1e-5)
    for k, n in enumerate(names if _grads_compared(meta) else []):
        np.testing.assert_allclose(grads[n].asnumpy(), _DATA[f"{i}_grad{k}"], rtol=1e-4,
                                   atol=1e-5)


_CONV_CASES = [i for i in range(_N) if json.loads(str(_DATA[f"{i}_meta"]))["op"] in
               ("Convolution", "Deconvolution", "UpSampling")]


@pytest.mark.parametrize("i", _CONV_CASES, ids=[_ids()[i] for i in _CONV_CASES])
def test_convolutions_in_one_sample_chunks_match_mxnet(i, monkeypatch):
    # The kernels walk the batch in chunks of about _CHUNK column entries; one sample each.
    from gluonlite.ops import conv
    monkeypatch.setattr(conv, "_CHUNK", 1)
    test_imperative_matches_mxnet(i)
