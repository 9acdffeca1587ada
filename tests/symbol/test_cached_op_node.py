"""`sym._internal._CachedOp(*args, subgraph=json)`: a node running a whole graph, as MXNet's
test_subgraph builds them; values and gradients equal the graph's own (closed forms)."""
import numpy as np
import pytest

import gluonlite as mx


def _bind(y, a, b):
    grads = {"a": mx.nd.zeros(a.shape), "b": mx.nd.zeros(b.shape)}
    return y.bind(mx.cpu(), {"a": mx.nd.array(a), "b": mx.nd.array(b)}, args_grad=grads)


def test_cached_op_node_runs_its_subgraph_forward_and_backward():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    sub = mx.sym.Group([a * b, mx.sym.exp(a)])
    node = mx.sym._internal._CachedOp(mx.sym.var("a"), mx.sym.var("b"), subgraph=sub.tojson())
    y = mx.sym.broadcast_add(node[0] * 2, mx.sym.sum(node[1]))
    assert y.list_arguments() == ["a", "b"]
    av, bv = np.array([[1., 2.]]), np.array([[3., -1.]])
    exe = _bind(y, av, bv)
    out = exe.forward(is_train=True)[0].asnumpy()
    np.testing.assert_allclose(out, 2 * av * bv + np.exp(av).sum(), rtol=1e-6)
    exe.backward(mx.nd.ones((1, 2)))
    np.testing.assert_allclose(exe.grad_dict["a"].asnumpy(), 2 * bv + 2 * np.exp(av),
                               rtol=1e-6)
    np.testing.assert_allclose(exe.grad_dict["b"].asnumpy(), 2 * av, rtol=1e-6)


def test_cached_op_node_survives_json():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    y = mx.sym._internal._CachedOp(a, b, subgraph=a - b) * 3
    again = mx.sym.load_json(y.tojson())
    exe = _bind(again, np.array([5.]), np.array([2.]))
    assert exe.forward()[0].asnumpy().tolist() == [9.]


def test_cached_op_node_arguments_are_checked():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    with pytest.raises(ValueError, match="the subgraph has 2 inputs"):
        mx.sym._internal._CachedOp(a, subgraph=(a + b).tojson())
    with pytest.raises(TypeError, match="subgraph must be a Symbol or its JSON string"):
        mx.sym._internal._CachedOp(a, subgraph=3)
