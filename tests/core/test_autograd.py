"""autograd: modes, grad_req, head gradients, retain_graph, grad(), mark_variables."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd

X = np.array([1.0, 2.0, -3.0], dtype=np.float32)


def var(values=X, req="write"):
    x = nd.array(values)
    x.attach_grad(req)
    return x


def test_modes():
    assert (autograd.is_recording(), autograd.is_training()) == (False, False)
    with autograd.record():
        assert (autograd.is_recording(), autograd.is_training()) == (True, True)
        with autograd.pause():
            assert (autograd.is_recording(), autograd.is_training()) == (False, False)
        with autograd.predict_mode():
            assert (autograd.is_recording(), autograd.is_training()) == (True, False)
    with autograd.record(train_mode=False):
        assert (autograd.is_recording(), autograd.is_training()) == (True, False)
    with autograd.train_mode():
        assert (autograd.is_recording(), autograd.is_training()) == (False, True)
    assert (autograd.is_recording(), autograd.is_training()) == (False, False)


def test_backward_without_and_with_head_gradient():
    x = var()
    with autograd.record():
        y = x * x
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * X)
    with autograd.record():
        y = x * x
    y.backward(nd.array([1, 10, 100]))
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * X * [1, 10, 100])


def test_fan_out_and_chain():
    x = var()
    with autograd.record():
        y = x * x
        z = y + x
        w = (z * y).sum()
    w.backward()
    # w = (x^2 + x) x^2 = x^4 + x^3
    np.testing.assert_allclose(x.grad.asnumpy(), 4 * X ** 3 + 3 * X ** 2, rtol=1e-6)


def test_grad_req_add_accumulates_and_write_overwrites():
    x, w = var(req="add"), var()
    for _ in range(3):
        with autograd.record():
            y = (x * w).sum()
        y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 3 * X)
    np.testing.assert_allclose(w.grad.asnumpy(), X)


def test_grad_req_null_leaves_the_gradient_alone():
    x, w = var(req="null"), var()
    with autograd.record():
        y = (x * w).sum()
    assert not x.grad.asnumpy().any()  # zeros until a backward pass, as in MXNet 1.9.1
    y.backward()
    assert x.grad is None  # MXNet 1.9.1 reads a null-req gradient as None after backward
    np.testing.assert_allclose(w.grad.asnumpy(), X)


def test_retain_graph_allows_a_second_backward():
    x = var()
    with autograd.record():
        y = x * x
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * X)


def test_second_backward_without_retain_graph_is_an_error():
    x = var()
    with autograd.record():
        y = x * x
    y.backward()
    with pytest.raises(ValueError, match="graph has been freed by a previous backward; pass "
                                         "retain_graph=True"):
        y.backward()


def test_backward_on_an_unrecorded_array_is_an_error():
    x = var()
    y = x * 2
    with pytest.raises(ValueError, match=r"backward: the array was not computed under "
                                         r"autograd.record\(\)"):
        y.backward()


def test_several_heads_with_head_grads():
    x = var()
    with autograd.record():
        a, b = x * 2, x * x
    autograd.backward([a, b], [nd.ones(3), nd.ones(3) * 3])
    np.testing.assert_allclose(x.grad.asnumpy(), 2 + 6 * X)
    with autograd.record():
        a, b = x * 2, x + 1
    autograd.backward([a, b])
    np.testing.assert_allclose(x.grad.asnumpy(), [3, 3, 3])


def test_oversized_head_grad_uses_its_leading_elements_with_a_warning():
    # MXNet reads a head gradient as a flat buffer of the head's size: a larger array runs
    x = var()
    with autograd.record():
        y = (x * 3).reshape((3, 1))
    hg = nd.array(np.arange(1, 6, dtype=np.float32).reshape(5, 1))
    with pytest.warns(UserWarning, match=r"head_grad of shape \(5, 1\) does not match its "
                                         r"head of shape \(3, 1\); its first 3 elements are "
                                         "used") as rec:
        y.backward(hg)
    np.testing.assert_allclose(x.grad.asnumpy(), [3, 6, 9])
    with autograd.record():
        y = (x * 3).reshape((3, 1))
    with pytest.warns(UserWarning, match="its first 3 elements are used") as rec2:
        autograd.grad([y], [x], [hg])
    # the warning names the caller's line, not one inside gluonlite
    assert [w.filename for w in rec.list + rec2.list] == [__file__, __file__]


def test_undersized_head_grad_is_an_error_naming_both_shapes():
    x = var()
    with autograd.record():
        y = x * 3
    with pytest.raises(ValueError, match=r"head_grad of shape \(2,\) does not match its head of "
                                         r"shape \(3,\) \(it has 2 elements, the head 3\)"):
        y.backward(nd.ones(2))


def test_autograd_grad_returns_a_list_and_leaves_grad_buffers_alone():
    x, w = var(), var(X * 2)
    with autograd.record():
        y = (x * w).sum()
    gx, gw = autograd.grad(y, [x, w], retain_graph=True)
    np.testing.assert_allclose(gx.asnumpy(), X * 2)
    np.testing.assert_allclose(gw.asnumpy(), X)
    g = autograd.grad(y, x)
    assert isinstance(g, list) and len(g) == 1
    np.testing.assert_allclose(g[0].asnumpy(), X * 2)
    assert not x.grad.asnumpy().any()


def test_autograd_grad_needs_marked_variables():
    x = var()
    with autograd.record():
        y = x * 2
    with pytest.raises(ValueError, match=r"autograd.grad: variables\[0\] is not marked"):
        autograd.grad(y, [nd.ones(3)])


def test_mark_variables():
    x, g = nd.array(X), nd.zeros(3)
    autograd.mark_variables([x], [g], grad_reqs="add")
    for _ in range(2):
        with autograd.record():
            y = x * 3
        y.backward()
    np.testing.assert_allclose(g.asnumpy(), [6, 6, 6])
    with pytest.raises(ValueError, match="mark_variables: got 1 variables, 2 gradients"):
        autograd.mark_variables([x], [g, g])


def test_non_differentiable_inputs_get_no_gradient():
    x = var([[1.0, 2.0], [3.0, 4.0]])
    i = var([1, 1, 0])
    with autograd.record():
        y = nd.take(x, i)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [[1, 1], [2, 2]])
    assert not i.grad.asnumpy().any()
    x = var()
    with autograd.record():
        c = x > 0
        y = c * x
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), X > 0)   # no gradient through the comparison
    x.grad[:] = 5
    with autograd.record():
        y = x > 0
    y.backward()                                           # backward from a comparison: zeros
    assert not x.grad.asnumpy().any()


def test_block_grad_and_detach_stop_gradients():
    x = var()
    with autograd.record():
        y = nd.BlockGrad(x) * x + (x * 2).detach() * x
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 3 * X)


_LOGITS = np.array([[1, 2, 3, 4], [4, 2, 2, 2], [1, 1, 1, 1]], dtype=np.float32)
_LABELS = np.array([1, 0, 2], dtype=np.float32)


def _softmax_minus_onehot():
    e = np.exp(_LOGITS - _LOGITS.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True) - np.eye(4, dtype=np.float32)[_LABELS.astype(int)]


def _cross_entropy_through_block_grad(F, logits, labels):
    # Sockeye 2's CrossEntropyLoss: the value read through BlockGrad, the gradient left to
    # SoftmaxOutput, whose gradient ignores the one it receives (MXNet 1.9.1: softmax -
    # one-hot, as its backward runs every node a head depends on)
    out = F.SoftmaxOutput(data=logits, label=labels, preserve_shape=True)
    return -F.sum(F.log(F.pick(F.BlockGrad(out), labels, axis=-1)))


@pytest.mark.parametrize("hybridize", [False, True])
def test_an_output_layer_behind_block_grad_still_gives_its_gradient(hybridize):
    class Loss(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, logits, labels):
            return _cross_entropy_through_block_grad(F, logits, labels)
    loss = Loss()
    if hybridize:
        loss.hybridize()
    x = var(_LOGITS)
    with autograd.record():
        value = loss(x, nd.array(_LABELS))
    value.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), _softmax_minus_onehot(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(value.asscalar(), -np.log(_softmax_minus_onehot()[
        np.arange(3), _LABELS.astype(int)] + 1).sum(), rtol=1e-5)
    # the regression outputs and MakeLoss too; an ordinary operator behind BlockGrad gives
    # none, and neither does SoftmaxOutput(out_grad=True), which scales by the gradient
    # it receives: zero there
    for make, want in [
            (lambda x: nd.LinearRegressionOutput(x, nd.ones((3, 4)), grad_scale=2.0),
             (_LOGITS - 1) * 2 / 4),
            (lambda x: nd.MakeLoss(x * 3, grad_scale=0.5), np.full((3, 4), 1.5)),
            (lambda x: x * 3, np.zeros((3, 4))),
            (lambda x: nd.SoftmaxOutput(x, nd.array(_LABELS), out_grad=True), np.zeros((3, 4)))]:
        x = var(_LOGITS)
        with autograd.record():
            y = nd.sum(nd.stop_gradient(make(x)))
        y.backward()
        np.testing.assert_allclose(x.grad.asnumpy(), want, rtol=1e-6)


def test_an_output_layer_behind_block_grad_in_a_bound_symbol():
    # MXNet's idiom: Group([BlockGrad(prediction), MakeLoss(loss)])
    x, lab = mx.sym.var("x"), mx.sym.var("label")
    out = mx.sym.SoftmaxOutput(x, lab, preserve_shape=True)
    net = mx.sym.Group([mx.sym.BlockGrad(out), mx.sym.MakeLoss(mx.sym.sum(x * x))])
    exe = net.simple_bind(mx.cpu(), x=(3, 4), label=(3,), grad_req={"x": "write",
                                                                      "label": "null"})
    exe.forward(is_train=True, x=nd.array(_LOGITS), label=nd.array(_LABELS))
    exe.backward()
    np.testing.assert_allclose(exe.grad_dict["x"].asnumpy(), _softmax_minus_onehot() + 2 * _LOGITS,
                               rtol=1e-5, atol=1e-6)


def test_dropout_is_active_only_in_training_mode():
    x = nd.ones((200,))
    mx.random.seed(1)
    with autograd.record():
        y = nd.Dropout(x, p=0.5)
    assert set(np.unique(y.asnumpy())) == {0.0, 2.0}
    with autograd.train_mode():
        assert (nd.Dropout(x, p=0.5).asnumpy() == 0).any()
    with autograd.record(train_mode=False):
        same = nd.Dropout(x, p=0.5)
    np.testing.assert_array_equal(same.asnumpy(), 1)
    np.testing.assert_array_equal(nd.Dropout(x, p=0.5).asnumpy(), 1)
    assert (nd.Dropout(x, p=0.5, mode="always").asnumpy() == 0).any()


def test_dropout_gradient_uses_the_mask():
    x = var(np.ones(50, dtype=np.float32))
    with autograd.record():
        y = nd.Dropout(x, p=0.3)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), y.asnumpy())


def test_inplace_arithmetic_under_record_rebinds_and_keeps_gradients_right():
    x = var()
    with autograd.record():
        y = x * 2
        y += 1
        z = (y * x).sum()
    z.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 4 * X + 1)


def test_inplace_update_of_a_variable_under_record_is_an_error():
    x = var()
    with autograd.record():
        with pytest.raises(ValueError, match=r"in-place update of an array with attach_grad\(\)"):
            x += 1
        y = x * 2
        with pytest.raises(ValueError, match="in-place assignment to an array that is part of a "
                                             "recorded graph"):
            y[:] = 0


def test_indexing_under_record_is_differentiated():
    x = var([[1.0, 2.0], [3.0, 4.0]])
    with autograd.record():
        y = x[1] * 3 + x[:, 0].sum() + x[0:1].sum()
    y.backward(nd.ones(2))
    np.testing.assert_allclose(x.grad.asnumpy(), [[2 + 2, 2], [3 + 2, 3]])


def test_backward_in_train_mode_runs_batchnorm_with_batch_statistics():
    x = var(np.arange(12, dtype=np.float32).reshape(3, 2, 2))
    g, b = nd.ones(2), nd.zeros(2)
    g.attach_grad()
    mm, mv = nd.zeros(2), nd.ones(2)
    with autograd.record():
        y = nd.BatchNorm(x, g, b, mm, mv, fix_gamma=False)
        loss = (y * y * nd.array([[[1.0], [2.0]]])).sum()   # weight 1, 2 per channel
    loss.backward()
    xa = x.asnumpy()
    mean, var_ = xa.mean(axis=(0, 2)), xa.var(axis=(0, 2))
    np.testing.assert_allclose(mm.asnumpy(), 0.1 * mean, rtol=1e-5)
    np.testing.assert_allclose(mv.asnumpy(), 0.9 + 0.1 * var_, rtol=1e-5)
    xhat = (xa - mean[None, :, None]) / np.sqrt(var_[None, :, None] + 1e-3)
    # d/dgamma of sum(c * (gamma * xhat)^2) = 2 * c * gamma * sum(xhat^2)
    np.testing.assert_allclose(g.grad.asnumpy(), 2 * np.array([1, 2]) * (xhat ** 2).sum((0, 2)),
                               rtol=1e-4)


def test_assigning_a_recorded_value_into_an_array_is_refused_inside_record():
    x = var()
    out = nd.zeros((3,))
    with autograd.record():
        y = x * 2
        with pytest.raises(ValueError, match=r"__setitem__: the value is part of a recorded"):
            out[:] = y
    out[:] = y  # outside record() it is a plain copy
    np.testing.assert_array_equal(out.asnumpy(), 2 * X)
