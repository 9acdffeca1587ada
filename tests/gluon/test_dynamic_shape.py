"""Hybridized blocks holding an operator whose output shape depends on values
(contrib.boolean_mask): the compiled plan lets the kernel decide that shape when it runs,
forward and backward, and the result matches MXNet 1.9.1 (expectations made by
tests/fixtures/make_dynamic_shape.py from tests/fixtures/dynamic_shape_cases.py)."""
import json
import os
import sys

import numpy as np
import pytest

import gluonlite as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
from dynamic_shape_cases import KINDS, run  # noqa: E402

with open(os.path.join(HERE, "..", "fixtures", "dynamic_shape_mxnet.json")) as f:
    EXPECTED = json.load(f)

MODES = {"imperative": None, "hybridized": {}, "static_alloc": {"static_alloc": True},
         "static_shape": {"static_alloc": True, "static_shape": True}}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("kind", KINDS)
def test_dynamic_shape_block_matches_mxnet(kind, mode):
    got = run(mx, kind, MODES[mode])
    for m, (out, gdata, gweight) in EXPECTED[kind].items():
        for g, want in zip(got[m], (out, gdata, gweight)):
            np.testing.assert_allclose(np.array(g), np.array(want), rtol=1e-5, atol=1e-6)


def test_plan_marks_only_value_dependent_slots_dynamic():
    from gluonlite.executor import compile_plan
    data, index = mx.sym.var("data"), mx.sym.var("index")
    masked = mx.sym.contrib.boolean_mask(data, index)
    # as in MXNet, nothing is inferred downstream of the mask (not even a sum's shape)
    y = mx.sym.Group([mx.sym.relu(masked), mx.sym.sum(masked), mx.sym.tanh(data)])
    plan = compile_plan(y, [(4, 2), (4,)], ["float32", "float32"])
    assert plan.out_shapes == [None, None, (4, 2)]
    assert [st.dynamic for st in plan.steps] == [True, True, True, False]
    assert len(plan.dynamic) == 3
    outs, _ = plan.forward([np.ones((4, 2), np.float32), np.array([1, 0, 1, 1], np.float32)])
    assert [o.shape for o in outs] == [(3, 2), (1,), (4, 2)]


def test_unknown_shape_without_value_dependent_op_still_raises():
    from gluonlite.executor import compile_plan
    x, y = mx.sym.var("x"), mx.sym.var("y")
    with pytest.raises(ValueError, match="cannot infer the shape"):
        compile_plan(x + y, [(0, 3), (0, 3)], ["float32"] * 2)


def test_bound_executor_runs_a_value_dependent_shape():
    # (MXNet 1.9.1's simple_bind refuses this graph; gluonlite runs it, values by hand)
    d, i = mx.sym.var("d"), mx.sym.var("i")
    y = mx.sym.relu(mx.sym.contrib.boolean_mask(d, i)) * 3
    exe = y.simple_bind(mx.cpu(), d=(4, 2), i=(4,), grad_req={"d": "write", "i": "null"})
    exe.arg_dict["d"][:] = mx.nd.array(np.arange(8).reshape(4, 2) - 3)
    exe.arg_dict["i"][:] = mx.nd.array([1, 0, 1, 1])
    assert exe.forward(is_train=True)[0].asnumpy().tolist() == [[0, 0], [3, 6], [9, 12]]
    exe.backward()
    assert exe.grad_dict["d"].asnumpy().tolist() == [[0, 0], [0, 0], [3, 3], [3, 3]]
    exe.backward(mx.nd.ones((3, 2)) * 2)
    assert exe.grad_dict["d"].asnumpy().tolist() == [[0, 0], [0, 0], [6, 6], [6, 6]]
    with pytest.raises(ValueError, match=r"out_grad for .* has shape \(2, 2\)"):
        exe.backward(mx.nd.ones((2, 2)))
    exe.arg_dict["i"][:] = mx.nd.array([0, 0, 0, 1])
    assert exe.forward()[0].shape == (1, 2)
