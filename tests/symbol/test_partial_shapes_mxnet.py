"""Symbol.infer_shape_partial / infer_shape with partly known shapes (0: an unknown
dimension), inferred forwards and backwards as MXNet 1.9.1 does; the expectations were made
by tests/fixtures/make_partial_shapes.py from tests/fixtures/partial_shape_cases.py."""
import json
import os
import sys

import pytest

import gluonlite as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
from partial_shape_cases import CASES  # noqa: E402

with open(os.path.join(HERE, "..", "fixtures", "partial_shapes_mxnet.json")) as f:
    EXPECTED = json.load(f)


@pytest.mark.parametrize("name", sorted(CASES))
def test_infer_shape_partial_matches_mxnet(name):
    sym, given = CASES[name](mx)
    args, outs, _ = sym.infer_shape_partial(**given)
    assert [list(s) for s in args] == EXPECTED[name]["arguments"]
    assert [list(s) for s in outs] == EXPECTED[name]["outputs"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_infer_shape_is_complete_or_none(name):
    sym, given = CASES[name](mx)
    args, outs, _ = sym.infer_shape(**given)
    complete = all(s and 0 not in s for s in EXPECTED[name]["arguments"] +
                   EXPECTED[name]["outputs"])
    if complete:
        assert [list(s) for s in args] == EXPECTED[name]["arguments"]
    else:
        assert (args, outs) == (None, None)


def test_conflicting_partial_shapes_raise():
    a = mx.sym.Variable("a", shape=(0, 10))
    b = mx.sym.Variable("b", shape=(12, 9))
    with pytest.raises(ValueError, match="12, 9"):
        (a + b).infer_shape()


def test_identity_with_attr_like_rhs_values_and_gradient():
    lhs, rhs = mx.nd.array([[1., 2.], [3., 4.]]), mx.nd.ones((2, 2))
    lhs.attach_grad()
    rhs.attach_grad()
    with mx.autograd.record():
        y = mx.nd._internal._identity_with_attr_like_rhs(lhs, rhs)
    y.backward(mx.nd.array([[1., 2.], [3., 5.]]))
    assert y.asnumpy().tolist() == [[1., 2.], [3., 4.]]
    assert lhs.grad.asnumpy().tolist() == [[1., 2.], [3., 5.]]
    assert rhs.grad.asnumpy().tolist() == [[0., 0.], [0., 0.]]
