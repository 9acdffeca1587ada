"""Each differentiable mx.np / npx function's gradient against central finite differences
(float64, a random head gradient), imperatively and through a hybridized block, which must
agree with the imperative result."""
import numpy as onp
import pytest

import gluonlite as mx
from gluonlite import np
from gluonlite.gluon import HybridBlock

RNG = onp.random.RandomState(7)


def _spd(n):
    a = RNG.uniform(-1, 1, (n, n))
    return a @ a.T + n * onp.eye(n)


# name -> (function of mx.np arrays (F given for the hybridized run), input arrays)
CASES = {
    "exp": (lambda F, x: F.np.exp(x), [(3, 4)]),
    "log": (lambda F, x: F.np.log(x), ["pos", (3, 4)]),
    "sqrt": (lambda F, x: F.np.sqrt(x), ["pos", (5,)]),
    "tanh": (lambda F, x: F.np.tanh(x), [(2, 3)]),
    "arctan2": (lambda F, x, y: F.np.arctan2(x, y), [(3,), (3,)]),
    "power": (lambda F, x, y: F.np.power(x, y), ["pos", (2, 3), (2, 3)]),
    "divide_broadcast": (lambda F, x, y: x / y, [(2, 3), "pos", (3,)]),
    "matmul": (lambda F, x, y: F.np.matmul(x, y), [(2, 3, 4), (4, 5)]),
    "dot": (lambda F, x, y: F.np.dot(x, y), [(3, 4), (4,)]),
    "tensordot": (lambda F, x, y: F.np.tensordot(x, y, axes=([1, 2], [0, 1])),
                  [(2, 3, 4), (3, 4, 2)]),
    "einsum": (lambda F, x, y: F.np.einsum("ij,jk->ik", x, y), [(2, 3), (3, 2)]),
    "sum_axis": (lambda F, x: F.np.sum(x, axis=1), [(3, 4)]),
    "mean": (lambda F, x: F.np.mean(x, axis=(0, 2), keepdims=True), [(2, 3, 4)]),
    "prod": (lambda F, x: F.np.prod(x, axis=0), [(3, 4)]),
    "max": (lambda F, x: F.np.max(x, axis=1), [(3, 4)]),
    "std": (lambda F, x: F.np.std(x, axis=0), [(5, 3)]),
    "var": (lambda F, x: F.np.var(x), [(5, 3)]),
    "cumsum": (lambda F, x: F.np.cumsum(x, axis=1), [(2, 4)]),
    "transpose": (lambda F, x: F.np.transpose(x, (2, 0, 1)), [(2, 3, 4)]),
    "reshape": (lambda F, x: F.np.reshape(x, (4, -1)), [(2, 3, 4)]),
    "concatenate": (lambda F, x, y: F.np.concatenate([x, y], axis=1), [(2, 3), (2, 1)]),
    "stack": (lambda F, x, y: F.np.stack([x, y], axis=1), [(2, 3), (2, 3)]),
    "split": (lambda F, x: F.np.split(x, 2, axis=1)[1], [(2, 4)]),
    "where": (lambda F, x, y: F.np.where(x > 0, x, y), [(3, 3), (3, 3)]),
    "clip": (lambda F, x: F.np.clip(x, -0.5, 0.5), [(4, 4)]),
    "broadcast_to": (lambda F, x: F.np.broadcast_to(x, (3, 2, 4)), [(2, 1)]),
    "pad": (lambda F, x: F.np.pad(x, ((1, 1), (0, 2)), mode="constant"), [(2, 3)]),
    "flip": (lambda F, x: F.np.flip(x, 1), [(2, 3)]),
    "tril": (lambda F, x: F.np.tril(x), [(3, 3)]),
    "norm": (lambda F, x: F.np.linalg.norm(x, axis=1), [(3, 4)]),
    "inv": (lambda F, x: F.np.linalg.inv(x), ["spd", 3]),
    "det": (lambda F, x: F.np.linalg.det(x), ["spd", 3]),
    "slogdet": (lambda F, x: F.np.linalg.slogdet(x)[1], ["spd", 3]),
    "solve": (lambda F, x, y: F.np.linalg.solve(x, y), ["spd", 3, (3, 2)]),
    "pinv": (lambda F, x: F.np.linalg.pinv(x), [(3, 2)]),
    "eigvalsh": (lambda F, x: F.np.linalg.eigvalsh(x), ["spd", 3]),
    "relu": (lambda F, x: F.npx.relu(x), [(3, 4)]),
    "softmax": (lambda F, x: F.npx.softmax(x, axis=-1), [(2, 5)]),
    "fully_connected": (lambda F, x, w: F.npx.fully_connected(x, w, num_hidden=3,
                                                              no_bias=True),
                        [(2, 4), (3, 4)]),
}


def _inputs(spec):
    out, i = [], 0
    while i < len(spec):
        s = spec[i]
        if s == "pos":
            out.append(RNG.uniform(0.5, 2.0, spec[i + 1]))
            i += 2
        elif s == "spd":
            out.append(_spd(spec[i + 1]))
            i += 2
        else:
            out.append(RNG.uniform(-1, 1, s))
            i += 1
    return out


def _numeric_grad(f, xs, head, eps=1e-6):
    grads = []
    for k, x in enumerate(xs):
        g = onp.zeros_like(x)
        for idx in onp.ndindex(x.shape):
            xp, xm = [a.copy() for a in xs], [a.copy() for a in xs]
            xp[k][idx] += eps
            xm[k][idx] -= eps
            g[idx] = ((f(xp) * head).sum() - (f(xm) * head).sum()) / (2 * eps)
        grads.append(g)
    return grads


class _Block(HybridBlock):
    def __init__(self, fn):
        super().__init__()
        self._fn = fn

    def hybrid_forward(self, F, *xs):
        return self._fn(F, *xs)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name):
    fn, spec = CASES[name]
    xs = _inputs(spec)

    def value(arrs):
        return fn(mx, *[np.array(a, dtype="float64") for a in arrs]).asnumpy()

    y0 = value(xs)
    head = RNG.uniform(-1, 1, y0.shape)
    want = _numeric_grad(value, xs, head)
    results = []
    for hybridize in (False, True):
        arrs = [np.array(a, dtype="float64") for a in xs]
        for a in arrs:
            a.attach_grad()
        block = _Block(fn)
        if hybridize:
            block.hybridize()
        with mx.autograd.record():
            y = block(*arrs)
        assert isinstance(y, np.ndarray)
        y.backward(np.array(head, dtype="float64"))
        onp.testing.assert_allclose(y.asnumpy(), y0, rtol=1e-10, atol=1e-10)
        got = [a.grad.asnumpy() for a in arrs]
        for g, w in zip(got, want):
            onp.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=name)
        results.append(got)
    for a, b in zip(*results):  # hybridized == imperative
        onp.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_take_and_indexing_gradients():
    x = np.array(RNG.uniform(-1, 1, (2, 3)), dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        y = np.take(x, np.array([0, 2, 2]), axis=1).sum()
    y.backward()
    onp.testing.assert_allclose(x.grad.asnumpy(), [[1, 0, 2], [1, 0, 2]])


def test_null_grad_req_reads_none_after_backward():
    """As MXNet: a variable whose grad_req is 'null' has no gradient after backward."""
    a, b = np.ones((2,)), np.ones((2,))
    a.attach_grad()
    b.attach_grad(grad_req="null")
    with mx.autograd.record():
        y = (a * b).sum()
    y.backward()
    assert b.grad is None and a.grad is not None


def test_grad_add_accumulates():
    x = np.array([1., 2.])
    x.attach_grad(grad_req="add")
    for _ in range(2):
        with mx.autograd.record():
            y = (x * x).sum()
        y.backward()
    onp.testing.assert_allclose(x.grad.asnumpy(), [4., 8.])
