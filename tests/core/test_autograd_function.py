"""autograd.Function (hand-written backward), get_symbol, mark_variables' grad_reqs,
NDArray._fresh_grad, and storage types (dense only)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.test_utils import assert_almost_equal, finite_difference


class DivMul(autograd.Function):
    """(x / y, x * y) with its gradient written by hand."""

    def forward(self, x, y):
        self.save_for_backward(x, y)
        return x / y, x * y

    def backward(self, dm, dn):
        x, y = self.saved_tensors
        return dm / y + dn * y, dn * x - dm * x / (y * y)


def _rand(rng, *shape):
    return nd.array(rng.uniform(0.5, 1.5, size=shape), dtype="float64")


def test_function_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    x, y = _rand(rng, 3, 2), _rand(rng, 3, 2)
    wm, wn = rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    x.attach_grad()
    y.attach_grad()
    with autograd.record():
        m, n = DivMul()(x, y)
        loss = (m * nd.array(wm, dtype="float64") + n * nd.array(wn, dtype="float64")).sum()
    loss.backward()

    def f(xv, yv):
        return float((xv / yv * wm + xv * yv * wn).sum())

    gx, gy = finite_difference(f, [x.asnumpy(), y.asnumpy()], eps=1e-6)
    assert_almost_equal(x.grad, gx, rtol=1e-6, atol=1e-8, names=("x.grad", "numeric"))
    assert_almost_equal(y.grad, gy, rtol=1e-6, atol=1e-8, names=("y.grad", "numeric"))


def test_function_backward_replaces_the_chain_rule():
    class ScaledGrad(autograd.Function):
        def forward(self, x):
            return x * 2

        def backward(self, dy):
            return dy * 3

    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = ScaledGrad()(x)
    y.backward()
    assert_almost_equal(y, np.array([2.0, 4.0]))
    assert_almost_equal(x.grad, np.array([3.0, 3.0]))


def test_function_output_not_used_gets_zero_gradient():
    x, y = nd.array([1.0, 2.0]), nd.array([4.0, 5.0])
    x.attach_grad()
    y.attach_grad()
    with autograd.record():
        m, _ = DivMul()(x, y)
    m.backward()
    assert_almost_equal(x.grad, 1 / y.asnumpy())


def test_function_outside_record_and_with_inputs_without_gradients():
    class AddOne(autograd.Function):
        def forward(self, x):
            return x + 1

        def backward(self, dy):
            return dy

    out = AddOne()(nd.zeros((2,)))
    assert not autograd.is_recording() and out._entry is None
    with autograd.record():
        z = nd.zeros((3, 4))
        for _ in range(3):
            z = AddOne()(z)
    assert_almost_equal(z, 3 * np.ones((3, 4)))


def test_function_forward_runs_without_recording():
    seen = []

    class Probe(autograd.Function):
        def forward(self, x):
            seen.append((autograd.is_recording(), autograd.is_training()))
            return x.copy()

        def backward(self, dy):
            return dy

    x = nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        Probe()(x).backward()
    assert seen == [(False, True)]
    assert_almost_equal(x.grad, np.ones(2))


def test_function_returning_its_input_keeps_the_input_history():
    class Same(autograd.Function):
        def forward(self, x):
            return x

        def backward(self, dy):
            return dy * 5

    x = nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        h = x * 2
        y = Same()(h)
        (y + h).backward()
    assert_almost_equal(x.grad, np.full(2, 12.0))


def test_function_errors():
    class Identity(autograd.Function):
        def forward(self, x):
            return x * 1

        def backward(self, dy):
            return dy

    f = Identity()
    f(nd.ones((1,)))
    with pytest.raises(RuntimeError, match="Identity: a Function instance can be called once"):
        f(nd.ones((1,)))
    with pytest.raises(TypeError, match="Identity: input 0 must be an NDArray, got list"):
        Identity()([1.0])

    class Bad(autograd.Function):
        def __init__(self, rets):
            super().__init__()
            self.rets = rets

        def forward(self, x, y):
            return x + y

        def backward(self, dy):
            return self.rets(dy)

    x, y = nd.ones((2,)), nd.ones((2,))
    x.attach_grad()
    cases = [(lambda dy: dy, ValueError,
              r"Bad.backward returned 1 gradient\(s\) for 2 input\(s\) of forward"),
             (lambda dy: (dy, 1.0), TypeError, "Bad.backward: gradient 1 must be an NDArray, "
                                               "got float"),
             (lambda dy: (dy, nd.ones((3,))), ValueError,
              r"Bad.backward: gradient 1 has shape \(3,\) but input 1 has shape \(2,\)")]
    for rets, err, pattern in cases:
        with autograd.record():
            out = Bad(rets)(x, y)
        with pytest.raises(err, match=pattern):
            out.backward()


def test_function_not_written():
    x = nd.ones((1,))
    with pytest.raises(NotImplementedError, match="Function.forward is not written"):
        autograd.Function()(x)


# ---- get_symbol -------------------------------------------------------------------------------
def test_get_symbol_rebuilds_the_recorded_graph():
    x, z = nd.array([1.5, -2.0]), nd.array([0.5, 3.0])
    c = nd.array([10.0, 20.0])
    x.attach_grad()
    z.attach_grad()
    with autograd.record():
        y = nd.tanh(x * x + 2 * z - 1) + c
    s = autograd.get_symbol(y)
    assert s.list_arguments() == ["var0", "var1", "null0"]
    assert len(s.list_outputs()) == 1
    out = s.eval(var0=x, var1=z, null0=c)[0]
    assert_almost_equal(out, y)
    with autograd.record():
        w = x * x
    assert autograd.get_symbol(w).list_arguments() == ["var0"]


def test_get_symbol_keeps_operator_attributes():
    x = nd.ones((2, 3))
    x.attach_grad()
    with autograd.record():
        y = nd.sum(x, axis=1, keepdims=True)
    s = autograd.get_symbol(y)
    assert s.infer_shape(var0=(2, 3))[1] == [(2, 1)]


def test_get_symbol_of_views():
    x = nd.array(np.arange(12.0).reshape(4, 3))
    x.attach_grad()
    with autograd.record():
        row, rows, tail = x[1], x[1:3], x[-2:]
    for view in (row, rows, tail):
        s = autograd.get_symbol(view)
        assert s.list_arguments() == ["var0"]
        assert_almost_equal(s.eval(var0=x)[0], view)
    assert autograd.get_symbol(row).infer_shape(var0=(4, 3))[1] == [(3,)]


def test_get_symbol_errors():
    with pytest.raises(TypeError, match="get_symbol: x must be an NDArray, got ndarray"):
        autograd.get_symbol(np.ones(2))
    with pytest.raises(mx.MXNetError, match="get_symbol: x is not part of a recorded"):
        autograd.get_symbol(nd.ones((2,)) * 2)
    x = nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        y = DivMul()(x, x)[0]
    with pytest.raises(NotImplementedError, match="the history holds a 'DivMul' step"):
        autograd.get_symbol(y)


# ---- mark_variables, _fresh_grad --------------------------------------------------------------
def test_mark_variables_with_grad_reqs_per_variable():
    x, y, z = nd.ones((2,)), nd.ones((2,)), nd.ones((2,))
    gx, gy, gz = nd.ones((2,)), nd.ones((2,)), nd.ones((2,))
    autograd.mark_variables([x, y, z], [gx, gy, gz], grad_reqs=["write", "add", "null"])
    with autograd.record():
        out = 3 * x + 4 * y + 5 * z
    out.backward()
    assert_almost_equal(gx, np.full(2, 3.0))
    assert_almost_equal(gy, np.full(2, 5.0))
    assert_almost_equal(gz, np.ones(2))
    with pytest.raises(ValueError, match="grad_req must be one of 'write', 'add', 'null', got"):
        autograd.mark_variables([x], [gx], grad_reqs="sum")


def test_fresh_grad_is_set_by_backward_for_reached_variables():
    x, y = nd.ones((2, 2)), nd.ones((2, 2))
    autograd.mark_variables([x, y], [nd.zeros((2, 2)), nd.zeros((2, 2))])
    assert x._fresh_grad is False and y._fresh_grad is False
    with autograd.record():
        (x + 2 + y).backward()
    assert x._fresh_grad and y._fresh_grad
    x._fresh_grad = False
    y._fresh_grad = False
    with autograd.record():
        ((x + 2).detach() + y).backward()
    assert not x._fresh_grad and y._fresh_grad
    x.attach_grad()
    assert x._fresh_grad is False
    assert nd.ones((1,))._fresh_grad is False
    with pytest.raises(ValueError, match="_fresh_grad: the array is not marked for gradients"):
        nd.ones((1,))._fresh_grad = True


# ---- storage types ----------------------------------------------------------------------------
def test_dense_storage_type():
    x = nd.array([1.0, 2.0])
    assert x.stype == "default"
    y = x.tostype("default")
    assert y is not x and y.stype == "default"
    assert_almost_equal(y, x)
    x.attach_grad(stype="default")
    with autograd.record():
        z = (x.tostype("default") * 2).sum()
    z.backward()
    assert_almost_equal(x.grad, np.full(2, 2.0))
    assert nd.zeros((2,), stype="default").stype == "default"


@pytest.mark.parametrize("call,stype", [
    (lambda: nd.ones((2, 2)).tostype("row_sparse"), "row_sparse"),
    (lambda: nd.ones((2, 2)).tostype("csr"), "csr"),
    (lambda: nd.zeros((2, 2), stype="row_sparse"), "row_sparse"),
    (lambda: nd.ones((2, 2), stype="csr"), "csr"),
])
def test_sparse_storage_types_are_made(call, stype):
    x = call()
    assert x.stype == stype
    x.attach_grad()
    assert x.grad.stype == stype  # a gradient takes the array's storage type by default


def test_unknown_storage_type():
    with pytest.raises(ValueError, match="tostype: unknown storage type 'dense'; expected"):
        nd.ones((2,)).tostype("dense")


def test_star_import_brings_ndarray_and_function():
    scope = {}
    exec("from gluonlite.autograd import *", scope)
    assert scope["NDArray"] is nd.NDArray and scope["Function"] is autograd.Function
    for name in ("record", "pause", "backward", "mark_variables", "get_symbol", "is_training",
                 "is_recording", "train_mode", "predict_mode"):
        assert callable(scope[name]), name
