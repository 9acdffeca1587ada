"""Higher-order gradients: `autograd.grad(..., create_graph=True)` records the backward pass,
so its result can be differentiated again.

The walk runs every operator of the registry walk (its SPECS examples) through a second
derivative and holds it against central finite differences of the first-order gradient (which
the registry walk holds against finite differences of the forward). An operator whose rule
cannot be recorded must say so, naming itself; a core set must be recordable.
"""
import zlib

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from test_registry_walk import SPECS, _fn, _numeric_grad, _params, make

# The rules a second derivative must work through: every elementwise math and arithmetic
# operator, reductions, products and reshapes.
MUST_RECORD = {
    "exp", "log", "sqrt", "square", "reciprocal", "tanh", "sigmoid", "negative", "abs",
    "relu", "softsign", "Activation", "_copy", "Cast", "clip", "where", "add_n",
    "broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div", "broadcast_power",
    "broadcast_maximum", "broadcast_minimum", "elemwise_add", "elemwise_sub", "elemwise_mul",
    "elemwise_div", "_power", "_maximum", "_minimum", "_plus_scalar", "_minus_scalar",
    "_rminus_scalar", "_mul_scalar", "_div_scalar", "_rdiv_scalar", "_power_scalar",
    "_rpower_scalar", "_maximum_scalar", "_minimum_scalar", "LeakyReLU",
    "sum", "mean", "dot", "batch_dot", "FullyConnected", "Reshape", "Flatten", "transpose",
    "expand_dims", "reshape_like", "broadcast_to", "softmax", "log_softmax", "Concat",
    "stack", "SliceChannel", "Dropout", "SwapAxis",
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh",
    "arctanh", "degrees", "radians", "log2", "log10", "log1p", "expm1", "cbrt", "rsqrt", "rcbrt",
    "norm",
}


def _forward(op, xs, attrs):
    mx.random.seed(7)  # random operators draw the same numbers on every call
    out = _fn(op)(*xs, **attrs)
    return list(out) if isinstance(out, (list, tuple)) else [out]


# The loss is sum(w * out**2) / 2, so the output gradients a rule receives (w * out) depend on
# the inputs too: a rule that drops its output gradient's place in the graph is caught.


def _first_order(op, arrays, attrs, weights, train):
    """The gradient of the loss with respect to each input, as numpy arrays."""
    xs = [nd.array(a, dtype=np.float64) for a in arrays]
    for x in xs:
        x.attach_grad()
    with autograd.record(train_mode=train):
        outs = _forward(op, xs, attrs)
    heads = [nd.array(w * o.asnumpy(), dtype=np.float64) for w, o in zip(weights, outs)]
    gs = autograd.grad(outs, xs, head_grads=heads, train_mode=train)
    return [g.asnumpy() for g in gs]


def _second_order(op, arrays, attrs, weights, probes, train):
    """d/dx_j of sum_i <grad_i, v_i> by create_graph, as numpy arrays (one per input)."""
    xs = [nd.array(a, dtype=np.float64) for a in arrays]
    for x in xs:
        x.attach_grad()
    with autograd.record(train_mode=train):
        outs = _forward(op, xs, attrs)
        # an integer output (sampled indices) takes a float head like any other
        heads = [nd.array(w, dtype=np.float64) * (o if np.dtype(o.dtype).kind == "f" else o.astype(
            np.float64)) for w, o in zip(weights, outs)]
        gs = autograd.grad(outs, xs, heads, create_graph=True, train_mode=train)
        s = sum((g * nd.array(v, dtype=np.float64)).sum() for g, v in zip(gs, probes))
    s.backward(train_mode=train)
    return [x.grad.asnumpy() for x in xs]


def check_second_order(op, check, rng):
    """Returns True when the operator's second derivative matched finite differences; False
    when it refused with the error that names it."""
    attrs, train = check["attrs"], check["train"]
    arrays = [make(s, rng) for s in check["inputs"]]
    p = _params(op, attrs, len(arrays))
    outs = _forward(op, [nd.array(a, dtype=np.float64) for a in arrays], attrs)
    weights = [rng.normal(size=o.shape) for o in outs]
    probes = [rng.normal(size=a.shape) for a in arrays]
    try:
        got = _second_order(op, arrays, attrs, weights, probes, train)
    except mx.MXNetError as e:
        assert "create_graph=True" in str(e) and f"'{op.name}'" in str(e), \
            f"{op.name}: a refused second derivative must name the operator: {e}"
        return False

    def f(arrs):
        gs = _first_order(op, arrs, attrs, weights, train)
        return sum(float((g * v).sum()) for g, v in zip(gs, probes))

    for i, a in enumerate(arrays):
        if not op.differentiable(i, p):
            continue
        num = _numeric_grad(f, [b.copy() for b in arrays], i, eps=1e-5)
        np.testing.assert_allclose(
            got[i], num, rtol=1e-4, atol=1e-5,
            err_msg=f"{op.name}{attrs}: second derivative of input {op.input_names(p)[i]} "
                    "vs finite differences of the first")
    return True


def _differentiable():
    names = []
    for name in sorted(SPECS):
        op = mx.ops.get(name)
        check = SPECS[name][0] if isinstance(SPECS[name], list) else SPECS[name]
        if op.vjp is not None and check["inputs"] and not op.stateful:
            names.append(name)
    return names


@pytest.mark.parametrize("name", _differentiable())
def test_second_derivative(name):
    op = mx.ops.get(name)
    checks = SPECS[name] if isinstance(SPECS[name], list) else [SPECS[name]]
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    # a defined (not derived) first-order gradient has no finite-difference second order;
    # the NumPy dialect's operators run under NumPy shape semantics (0-d arrays), as in the
    # registry walk
    with mx.np_shape(name.startswith("_np")):
        results = [check_second_order(op, c, rng) for c in checks if c.get("grad") is None]
    if name in MUST_RECORD:
        assert all(results), f"{name}: its gradient rule must be recordable"


def test_the_core_set_is_walked():
    missing = MUST_RECORD - set(_differentiable())
    assert not missing, f"MUST_RECORD names operators the walk does not reach: {missing}"


def test_exp_plus_x_first_and_second_derivative():
    x = nd.array([1.0])
    x.attach_grad()
    with autograd.record():
        z = nd.elemwise_add(nd.exp(x), x)
    dx, = autograd.grad(z, [x], create_graph=True)
    assert abs(dx.asscalar() - (np.e + 1)) < 1e-6
    dx.backward()  # the first graph is kept: retain_graph defaults to create_graph
    assert abs(x.grad.asscalar() - np.e) < 1e-6


# Closed forms of the inverse hyperbolic functions' second derivatives. MXNet 1.9.1's
# _backward_arcsinh (and _backward_arccosh) record +x * f'(x)**3, the wrong sign, and its
# test_higher_order_grad.py::test_arcsinh expects that sign; gluonlite keeps the true one.
@pytest.mark.parametrize("name, x, second", [
    ("arcsinh", [-2.0, -0.5, 0.5, 2.0], lambda x: -x / (x * x + 1) ** 1.5),
    ("arccosh", [1.5, 2.0, 4.0], lambda x: -x / (x * x - 1) ** 1.5),
    ("arctanh", [-0.6, -0.1, 0.3, 0.8], lambda x: 2 * x / (1 - x * x) ** 2),
])
def test_inverse_hyperbolic_second_derivative_sign(name, x, second):
    x = nd.array(x, dtype=np.float64)
    x.attach_grad()
    with autograd.record():
        y = getattr(nd, name)(x)
        dx, = autograd.grad(y, [x], create_graph=True)
    dx.backward()
    xn = x.asnumpy()
    np.testing.assert_allclose(x.grad.asnumpy(), second(xn), rtol=1e-10)
    eps = 1e-6  # and the first derivative's own central difference agrees
    first = {"arcsinh": lambda v: 1 / np.sqrt(v * v + 1),
             "arccosh": lambda v: 1 / np.sqrt(v * v - 1),
             "arctanh": lambda v: 1 / (1 - v * v)}[name]
    np.testing.assert_allclose(x.grad.asnumpy(),
                               (first(xn + eps) - first(xn - eps)) / (2 * eps), rtol=1e-6)


def test_third_derivative_through_repeated_grad():
    x = nd.array([0.3, -0.7], dtype=np.float64)
    x.attach_grad()
    with autograd.record():
        y = nd.tanh(x)
        d1, = autograd.grad(y, [x], create_graph=True)
        d2, = autograd.grad(d1, [x], create_graph=True)
    d2.backward()
    t = np.tanh(x.asnumpy())
    np.testing.assert_allclose(d1.asnumpy(), 1 - t ** 2, rtol=1e-12)
    np.testing.assert_allclose(d2.asnumpy(), -2 * t * (1 - t ** 2), rtol=1e-12)
    np.testing.assert_allclose(x.grad.asnumpy(), (6 * t ** 2 - 2) * (1 - t ** 2), rtol=1e-12)


def test_head_gradient_that_is_recorded_gets_its_own_gradient():
    x = nd.array([2.0], dtype=np.float64)
    w = nd.array([3.0], dtype=np.float64)
    x.attach_grad()
    w.attach_grad()
    with autograd.record():
        y = x * x
        hg = w * 1.0
        g, = autograd.grad(y, [x], head_grads=hg, create_graph=True)  # 2 x w
    g.backward()
    assert x.grad.asscalar() == 2 * 3.0
    assert w.grad.asscalar() == 2 * 2.0


def test_gradient_penalty_trains_through_a_dense_layer():
    net = mx.gluon.nn.Dense(3, in_units=4, activation="tanh")
    net.initialize(mx.init.Normal(0.5))
    x = nd.array(np.random.RandomState(0).normal(size=(2, 4)))
    x.attach_grad()
    with autograd.record():
        y = net(x).sum()
        gx, = autograd.grad(y, [x], create_graph=True)
        penalty = (gx * gx).sum()
    penalty.backward()
    w = net.weight.data().asnumpy().astype(np.float64)
    b = net.bias.data().asnumpy().astype(np.float64)

    def pen(w):
        t = np.tanh(x.asnumpy().astype(np.float64) @ w.T + b)
        return float((((1 - t ** 2) @ w) ** 2).sum())

    num = np.zeros_like(w)
    for k in np.ndindex(w.shape):
        d = np.zeros_like(w)
        d[k] = 1e-6
        num[k] = (pen(w + d) - pen(w - d)) / 2e-6
    np.testing.assert_allclose(net.weight.grad().asnumpy(), num, rtol=1e-3, atol=1e-4)


def test_without_create_graph_the_gradient_is_not_recorded():
    x = nd.array([1.0])
    x.attach_grad()
    with autograd.record():
        y = nd.exp(x)
        g, = autograd.grad(y, [x])
    with pytest.raises(ValueError, match="not computed under autograd.record"):
        g.backward()


def test_a_step_without_a_recordable_rule_is_named():
    x = nd.array(np.ones((2, 3)))
    x.attach_grad()
    with autograd.record():
        y = x[0] * 2  # an indexing view: first-order only
    with pytest.raises(mx.MXNetError, match=r"create_graph=True.*'slice'"):
        autograd.grad(y, [x], create_graph=True)


def test_an_operator_whose_rule_cannot_be_recorded_is_named():
    x = nd.array(np.random.RandomState(1).normal(size=(3, 2)))
    x.attach_grad()
    with autograd.record():
        y = nd.take(nd.exp(x), nd.array([0, 2]))  # its rule scatters with xp.clip
    with pytest.raises(mx.MXNetError, match=r"create_graph=True.*'take' cannot be "
                                            r"differentiated again.*xp\.clip"):
        autograd.grad(y, [x], create_graph=True)


def test_a_rule_that_writes_into_an_array_is_named():
    x = nd.array(np.random.RandomState(4).normal(size=(3, 4)))
    x.attach_grad()
    with autograd.record():
        y = nd.slice_axis(nd.exp(x), axis=1, begin=1, end=3)
        hg = y * 2  # a recorded output gradient, which the rule assigns into zeros
    with pytest.raises(mx.MXNetError, match=r"'slice_axis' cannot be differentiated again: its "
                                            r"gradient rule does what an NDArray cannot "
                                            r"\(MXNetValueError: "):
        autograd.grad(y, [x], head_grads=hg, create_graph=True)


def test_saved_statistics_are_refused_not_treated_as_constants():
    x = nd.array(np.random.RandomState(2).normal(size=(4, 3)))
    x.attach_grad()
    with autograd.record():
        y = nd.LayerNorm(x, nd.ones((3,)), nd.zeros((3,)))
    with pytest.raises(mx.MXNetError, match="'LayerNorm'.*statistics its forward saved"):
        autograd.grad(y, [x], create_graph=True)


def test_a_dropout_mask_is_a_constant_of_the_second_derivative():
    x = nd.array(np.random.RandomState(3).normal(size=(50,)), dtype=np.float64)
    x.attach_grad()
    with autograd.record():
        y = nd.Dropout(x * x, p=0.5)
        g, = autograd.grad(y, [x], create_graph=True)  # 2 x mask
    g.backward()
    mask = g.asnumpy() / (2 * x.asnumpy())
    assert set(np.round(mask, 6)) <= {0.0, 2.0} and 0 < (mask == 0).sum() < 50
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * mask, rtol=1e-12)


def test_the_gradient_of_a_linear_function_differentiates_to_zeros():
    x = nd.array([0.5, -2.0])
    x.attach_grad()
    with autograd.record():
        y = nd.abs(x) * 3  # its gradient, 3 sign(x), does not depend on x's value
        g, = autograd.grad(y, [x], create_graph=True)
        gg, = autograd.grad(g, [x], create_graph=True)
    np.testing.assert_array_equal(g.asnumpy(), [3, -3])
    np.testing.assert_array_equal(gg.asnumpy(), [0, 0])


def test_a_hybridized_block_is_named_as_first_order_only():
    net = mx.gluon.nn.Dense(2, in_units=3)
    net.initialize()
    net.hybridize()
    x = nd.ones((1, 3))
    x.attach_grad()
    with autograd.record():
        y = net(x)
    with pytest.raises(mx.MXNetError, match="'CachedOp' has a first-order gradient only"):
        autograd.grad(y, [x], create_graph=True)
