"""Losses take labels whose shape differs from the prediction's only by a reshape, the same
way imperatively and hybridized (MXNet reshapes labels with reshape_like)."""
import numpy as np
import pytest

from gluonlite import autograd, gluon, nd

R = np.random.RandomState(3)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _log_softmax(x):
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


# (loss factory, prediction shape, label shape, numpy per-element loss of (pred, label))
CASES = {
    "l2": (gluon.loss.L2Loss, (4, 1), (4,), lambda p, y: 0.5 * (y - p) ** 2),
    "l1": (lambda: gluon.loss.L1Loss(weight=2.0), (4, 3), (12,), lambda p, y: 2 * abs(y - p)),
    "bce": (gluon.loss.SigmoidBCELoss, (4, 1, 2), (4, 2),
            lambda p, y: -(y * np.log(_sigmoid(p)) + (1 - y) * np.log(1 - _sigmoid(p)))),
    "softmax_dense": (lambda: gluon.loss.SoftmaxCELoss(sparse_label=False), (4, 3), (4, 1, 3),
                      lambda p, y: -(y * _log_softmax(p)).sum(-1, keepdims=True)),
}


def _run(make, pred, label, hybrid):
    loss_fn = make()
    if hybrid:
        loss_fn.hybridize()
    p, y = nd.array(pred), nd.array(label)
    p.attach_grad()
    with autograd.record():
        loss = loss_fn(p, y)
    loss.backward()
    return loss.asnumpy(), p.grad.asnumpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_loss_reshapes_label_imperative_and_hybridized(name):
    make, pshape, yshape, ref = CASES[name]
    pred = R.uniform(-2, 2, pshape).astype(np.float32)
    label = R.uniform(0, 1, yshape).astype(np.float32)
    want = ref(pred.astype(np.float64), label.reshape(pshape).astype(np.float64))
    want = want.reshape(pshape[0], -1).mean(axis=1)
    imp_loss, imp_grad = _run(make, pred, label, hybrid=False)
    np.testing.assert_allclose(imp_loss, want, rtol=1e-5, atol=1e-6)
    for _ in range(2):  # the second call reuses the cached graph
        hyb_loss, hyb_grad = _run(make, pred, label, hybrid=True)
        np.testing.assert_allclose(hyb_loss, imp_loss, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(hyb_grad, imp_grad, rtol=1e-5, atol=1e-6)


def test_label_of_another_size_is_rejected_with_shapes_named():
    loss_fn = gluon.loss.L2Loss()
    loss_fn.hybridize()
    with pytest.raises(ValueError, match=r"reshape_like.*\(5,\)"):
        loss_fn(nd.ones((4, 1)), nd.ones((5,)))
