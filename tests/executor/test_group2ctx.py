"""simple_bind(group2ctx=...): inputs are placed on the context of their ``ctx_group``, and
outputs on their node's, as MXNet 1.9.1 places them (tests/fixtures/make_group2ctx.py); the
numbers are those of one context."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                       "group2ctx_mxnet.json")) as _f:
    FIX = json.load(_f)


def _net():
    with mx.AttrScope(ctx_group="stage1"):
        data = mx.sym.Variable("data")
        fc1 = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=3)
    with mx.AttrScope(ctx_group="stage2"):
        return mx.sym.FullyConnected(mx.sym.tanh(fc1), name="fc2", num_hidden=2)


def test_placement_and_numbers_match_mxnet():
    exe = _net().simple_bind(mx.cpu(0), group2ctx={"stage1": mx.cpu(1), "stage2": mx.cpu(2)},
                             data=(2, 4))
    assert {n: str(a.context) for n, a in exe.arg_dict.items()} == FIX["arg_ctx"]
    assert {n: str(a.context) for n, a in exe.grad_dict.items()} == FIX["grad_ctx"]
    for a in exe.arg_dict.values():
        a[:] = np.arange(a.size).reshape(a.shape) / 10.0 - 0.3
    out = exe.forward(is_train=True)[0]
    exe.backward(mx.nd.ones((2, 2)))
    assert str(out.context) == FIX["out_ctx"]
    np.testing.assert_allclose(out.asnumpy(), FIX["out"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(exe.grad_dict["fc1_weight"].asnumpy(), FIX["grad_fc1_weight"],
                               rtol=1e-5, atol=1e-6)


def test_a_group_on_another_device_is_refused():
    with pytest.raises(NotImplementedError, match="simple_bind: group2ctx puts 'data' on gpu"):
        _net().simple_bind(mx.cpu(), group2ctx={"stage1": mx.gpu(0)}, data=(2, 4))
    with pytest.raises(TypeError, match="group2ctx must be a dict"):
        _net().simple_bind(mx.cpu(), group2ctx=[mx.cpu(1)], data=(2, 4))
