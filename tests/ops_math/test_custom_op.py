"""`mx.operator` custom operators through nd.Custom, autograd, bound symbols, hybridized
blocks and JSON, with MXNet 1.9.1's conventions (keyword arguments reach the property as
strings, outputs named after list_outputs, auxiliary states, req='add')."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd, sym


class _Softmax(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        y = np.exp(x - x.max(axis=1, keepdims=True))
        self.assign(out_data[0], req[0], mx.nd.array(y / y.sum(axis=1, keepdims=True)))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        label = in_data[1].asnumpy().astype(int)
        y = out_data[0].asnumpy().copy()
        y[np.arange(label.shape[0]), label] -= 1.0
        self.assign(in_grad[0], req[0], mx.nd.array(y))


@mx.operator.register("test_softmax")
class _SoftmaxProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ["data", "label"]

    def infer_shape(self, in_shape):
        return [in_shape[0], (in_shape[0][0],)], [in_shape[0]], []

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _Softmax()


class _Counter(mx.operator.CustomOp):
    """Scales by `factor` and counts its calls in an auxiliary state."""

    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, is_train, req, in_data, out_data, aux):
        aux[0][:] = aux[0] + 1
        self.assign(out_data[0], req[0], in_data[0] * self.factor)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * self.factor)


@mx.operator.register("test_counter")
class _CounterProp(mx.operator.CustomOpProp):
    def __init__(self, factor="1"):
        super().__init__()
        assert isinstance(factor, str)  # MXNet hands keyword arguments over as strings
        self.factor = float(factor)

    def list_auxiliary_states(self):
        return ["count"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], [(1,)]

    def create_operator(self, ctx, in_shapes, in_dtypes):
        assert ctx == mx.cpu() and in_shapes == [[2, 3]]
        return _Counter(self.factor)


class _Sigmoid(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], 1 / (1 + nd.exp(-in_data[0])))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_data[0] - in_data[1])


@mx.operator.register("test_same_shape_label")
class _SameShapeLabelProp(mx.operator.CustomOpProp):
    """MXNet's weighted_logistic_regression example's rule: the label has the data's shape."""

    def __init__(self):
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ["data", "label"]

    def infer_shape(self, in_shape):
        return [in_shape[0], in_shape[0]], [in_shape[0]]

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _Sigmoid()


def test_imperative_forward_backward_with_two_inputs():
    x = nd.array([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
    label = nd.array([2, 0])
    x.attach_grad()
    with autograd.record():
        y = nd.Custom(x, label, op_type="test_softmax")
    y.backward()
    e = np.exp(x.asnumpy() - x.asnumpy().max(1, keepdims=True))
    p = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(y.asnumpy(), p, rtol=1e-6)
    want = p.copy()
    want[[0, 1], [2, 0]] -= 1
    np.testing.assert_allclose(x.grad.asnumpy(), want, rtol=1e-6)


def test_keyword_arguments_reach_the_property_as_strings_and_aux_states_update():
    x = nd.ones((2, 3))
    count = nd.zeros((1,))
    x.attach_grad()
    with autograd.record():
        y = nd.Custom(x, count, op_type="test_counter", factor=2.5)
    y.backward(nd.ones((2, 3)))
    np.testing.assert_allclose(y.asnumpy(), 2.5)
    np.testing.assert_allclose(x.grad.asnumpy(), 2.5)
    assert count.asscalar() == 1


def test_symbol_bind_hybridize_and_json_round_trip():
    data, label = sym.var("data"), sym.var("label")
    s = sym.Custom(data, label, op_type="test_softmax", name="sm")
    assert s.list_arguments() == ["data", "label"]
    assert s.list_outputs() == ["sm_output"]
    assert '"op_type": "test_softmax"' in s.tojson()
    s2 = sym.load_json(s.tojson())
    x = nd.array([[0.5, -1.0, 2.0]])
    ex = s2.bind(mx.cpu(), {"data": x, "label": nd.array([1])},
                 args_grad={"data": nd.zeros((1, 3))})
    out = ex.forward(is_train=True)[0].asnumpy()
    ex.backward()
    want = out.copy()
    want[0, 1] -= 1
    np.testing.assert_allclose(ex.grad_dict["data"].asnumpy(), want, rtol=1e-6)
    c = sym.Custom(sym.var("x"), op_type="test_counter", factor="3", name="c")
    assert c.list_auxiliary_states() == ["c_count"]
    assert c.infer_shape(x=(2, 3)) == ([(2, 3)], [(2, 3)], [(1,)])


def test_custom_in_a_hybridized_block_matches_imperative():
    class Net(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x, label):
            return F.Custom(x * 2, label, op_type="test_softmax")

    x = nd.array(np.random.RandomState(0).normal(size=(3, 4)))
    label = nd.array([0, 3, 1])
    outs = []
    for hybrid in (False, True):
        net = Net()
        if hybrid:
            net.hybridize()
        x.attach_grad()
        with autograd.record():
            y = net(x, label)
        y.backward()
        outs.append((y.asnumpy(), x.grad.asnumpy()))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-6)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-6)


def test_assign_modes_and_errors():
    op = mx.operator.CustomOp()
    dst = nd.ones((2,))
    op.assign(dst, "add", nd.ones((2,)))
    op.assign(dst, "null", nd.zeros((2,)))
    assert dst.asnumpy().tolist() == [2, 2]
    with pytest.raises(ValueError, match="CustomOp.assign: req must be"):
        op.assign(dst, "sum", dst)
    with pytest.raises(ValueError, match="Custom: no operator registered as "
                                         "op_type='nope'"):
        nd.Custom(nd.ones((1,)), op_type="nope")
    with pytest.raises(TypeError, match="Custom: missing required argument 'op_type'"):
        nd.Custom(nd.ones((1,)))
    with pytest.raises(TypeError, match="expected a CustomOpProp subclass"):
        mx.operator.register("bad")(dict)
    assert "Custom" in mx.operator.get_all_registered_operators()
    args = mx.operator.get_operator_arguments("_linalg_gemm2")
    assert args.names[:2] == ["A", "B"] and "transpose_a" in args.names


class _Failing(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        raise KeyError("boom")


@mx.operator.register("test_failing")
class _FailingProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _Failing()


def test_an_error_in_the_users_forward_is_an_mxnet_error_naming_the_operator():
    with pytest.raises(mx.MXNetError, match=r"Custom\(op_type='test_failing'\): forward "
                                            r"raised KeyError: 'boom'"):
        nd.Custom(nd.ones((2,)), op_type="test_failing")


def test_the_property_fills_an_input_the_graph_leaves_unknown():
    """MXNet hands the property every input's shape, an unknown one as []: its rule gives
    the label variable the node made (``<name>_label``) the data's shape, so simple_bind
    needs only the data's (MXNet's numpy-ops/weighted_logistic_regression.py)."""
    s = sym.Custom(sym.var("data"), op_type="test_same_shape_label", name="wlr")
    assert s.list_arguments() == ["data", "wlr_label"]
    assert s.infer_shape(data=(4, 5)) == ([(4, 5), (4, 5)], [(4, 5)], [])
    exe = s.simple_bind(mx.cpu(), data=(4, 5))
    assert exe.arg_dict["wlr_label"].shape == (4, 5)
    assert exe.arg_dict["wlr_label"].dtype == np.float32
    exe.arg_dict["data"][:] = 1.0
    exe.arg_dict["wlr_label"][:] = np.vstack([np.ones((2, 5)), np.zeros((2, 5))])
    y = exe.forward(is_train=True)[0].asnumpy()
    exe.backward()
    np.testing.assert_allclose(y, 1 / (1 + np.exp(-1.0)), rtol=1e-6)
    np.testing.assert_allclose(exe.grad_dict["data"].asnumpy()[:2], y[:2] - 1, rtol=1e-6)


def test_a_property_that_cannot_read_an_unknown_input_leaves_it_unknown():
    """test_softmax's rule indexes the data's shape: with the data unknown it says nothing
    (the shapes stay unknown, no error); with the data known it fills the label's."""
    s = sym.Custom(sym.var("data"), sym.var("label"), op_type="test_softmax", name="sm")
    assert s.infer_shape_partial(label=(3,)) == ([(), (3,)], [()], [])
    assert s.infer_shape(data=(3, 4)) == ([(3, 4), (3,)], [(3, 4)], [])


@mx.operator.register("test_refusing_rule")
class _RefusingProp(mx.operator.CustomOpProp):
    def infer_shape(self, in_shape):
        raise ValueError(f"test_refusing_rule: no shape for {in_shape}")


def test_a_rule_that_fails_on_known_shapes_raises_its_error():
    s = sym.Custom(sym.var("x"), op_type="test_refusing_rule")
    assert s.infer_shape_partial() == ([()], [()], [])   # () is MXNet's "unknown"
    with pytest.raises(ValueError, match=r"test_refusing_rule: no shape for \[\[2, 3\]\]"):
        s.infer_shape(x=(2, 3))


class _ModeProbe(mx.operator.CustomOp):
    """Copies its input and records autograd's training mode inside each call."""
    seen = []

    def forward(self, is_train, req, in_data, out_data, aux):
        _ModeProbe.seen.append(("forward", is_train, autograd.is_training()))
        self.assign(out_data[0], req[0], in_data[0] * 1)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _ModeProbe.seen.append(("backward", autograd.is_training()))
        self.assign(in_grad[0], req[0], out_grad[0] * 1)


@mx.operator.register("test_mode_probe")
class _ModeProbeProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _ModeProbe()


def test_custom_calls_run_in_the_graphs_training_mode():
    # as MXNet's default (threaded) engine runs them: a training forward's NDArray calls
    # inside the op are in training mode (SoftmaxOutput takes its training kernel there),
    # an inference forward's are not; MXNet's NaiveEngine keeps the caller's mode instead
    s = sym.Custom(sym.var("data"), op_type="test_mode_probe")
    exe = s.simple_bind(mx.cpu(), data=(2, 3))
    _ModeProbe.seen.clear()
    exe.forward(is_train=True, data=nd.ones((2, 3)))
    exe.backward(nd.ones((2, 3)))
    exe.forward(is_train=False, data=nd.ones((2, 3)))
    assert _ModeProbe.seen == [("forward", True, True), ("backward", True),
                               ("forward", False, False)]
