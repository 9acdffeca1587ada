"""MXNet's deprecated Python operators (`mx.operator.PythonOp`, `NumpyOp`, `NDArrayOp`): the
defaults, user overrides of forward/backward/shape/names, bound graphs with gradients checked
against finite differences, and the deprecation warning."""
import numpy as np
import pytest

import gluonlite as mx


def _bind(sym, **arrays):
    args = {k: mx.nd.array(v) for k, v in arrays.items()}
    grads = {k: mx.nd.zeros(v.shape) for k, v in args.items()}
    return sym.bind(mx.cpu(), args=args, args_grad=grads), grads


def test_numpy_op_defaults_are_identity_and_a_gradient_of_one():
    with pytest.warns(UserWarning, match="NumpyOp is deprecated"):
        op = mx.operator.NumpyOp()
    s = op.get_symbol(mx.sym.Variable("X"), name="numpy_op")
    assert s.list_arguments() == ["X"]
    assert s.list_outputs() == ["numpy_op_output"]
    ex, grads = _bind(s, X=np.full(10, 10.0))
    ex.forward(is_train=True)
    np.testing.assert_array_equal(ex.outputs[0].asnumpy(), np.full(10, 10.0))
    ex.backward(mx.nd.full((10,), 3.0))
    np.testing.assert_array_equal(grads["X"].asnumpy(), np.ones(10))   # MXNet's default: 1


class _Affine(mx.operator.NumpyOp):
    """y = a * x + b with two outputs, a shape rule and its own argument names."""

    def list_arguments(self):
        return ["x", "a"]

    def list_outputs(self):
        return ["y", "x_sum"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0], [1]]

    def forward(self, in_data, out_data):
        x, a = in_data
        assert isinstance(x, np.ndarray)
        out_data[0][:] = a * x + 1
        out_data[1][:] = x.sum()

    def backward(self, out_grad, in_data, out_data, in_grad):
        x, a = in_data
        in_grad[0][:] = a * out_grad[0] + out_grad[1]
        in_grad[1][:] = x * out_grad[0]


def test_numpy_op_with_two_outputs_matches_finite_differences():
    with pytest.warns(UserWarning):
        op = _Affine()
    s = op(mx.sym.Variable("x"), mx.sym.Variable("a"), name="aff")
    assert s.list_outputs() == ["aff_y", "aff_x_sum"]
    _, out_shapes, _ = s.infer_shape(x=(2, 3), a=(2, 3))
    assert out_shapes == [(2, 3), (1,)]
    rng = np.random.default_rng(0)
    x, a = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    gy, gs = rng.standard_normal((2, 3)), rng.standard_normal(1)
    ex, grads = _bind(s, x=x, a=a)
    ex.forward(is_train=True)
    np.testing.assert_allclose(ex.outputs[0].asnumpy(), a * x + 1, rtol=1e-6)
    np.testing.assert_allclose(ex.outputs[1].asnumpy(), [x.sum()], rtol=1e-6)
    ex.backward([mx.nd.array(gy), mx.nd.array(gs)])

    def loss(x_, a_):
        return ((a_ * x_ + 1) * gy).sum() + x_.sum() * gs[0]
    eps = 1e-3
    for name, v in (("x", x), ("a", a)):
        num = np.zeros_like(v)
        for i in np.ndindex(v.shape):
            up, dn = v.copy(), v.copy()
            up[i] += eps
            dn[i] -= eps
            f = (lambda t: loss(t, a)) if name == "x" else (lambda t: loss(x, t))
            num[i] = (f(up) - f(dn)) / (2 * eps)
        np.testing.assert_allclose(grads[name].asnumpy(), num, rtol=1e-3, atol=1e-4)


def test_ndarray_op_works_on_ndarrays():
    class Neg(mx.operator.NDArrayOp):
        def forward(self, in_data, out_data):
            assert isinstance(in_data[0], mx.nd.NDArray)
            out_data[0][:] = -in_data[0]

        def backward(self, out_grad, in_data, out_data, in_grad):
            in_grad[0][:] = -out_grad[0]

    with pytest.warns(UserWarning, match="NDArrayOp is deprecated"):
        op = Neg()
    s = op(mx.sym.Variable("x"))
    ex, grads = _bind(s, x=np.array([3.0, 4.0]))
    ex.forward(is_train=True)
    np.testing.assert_array_equal(ex.outputs[0].asnumpy(), [-3, -4])
    ex.backward(mx.nd.array([1.0, 5.0]))
    np.testing.assert_array_equal(grads["x"].asnumpy(), [-1, -5])
    assert op.declare_backward_dependency([0], [1], [2]) == [0, 1, 2]


def test_python_op_base_has_no_symbol_and_names_the_subclasses():
    with pytest.warns(UserWarning, match="PythonOp is deprecated"):
        op = mx.operator.PythonOp(need_top_grad=False)
    assert op.need_top_grad() is False
    with pytest.raises(NotImplementedError, match="NumpyOp or NDArrayOp"):
        op(mx.sym.Variable("x"))
    with pytest.raises(AttributeError, match="no attribute 'NoSuchOp'"):
        mx.operator.NoSuchOp    # noqa: B018
