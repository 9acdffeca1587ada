"""mx.mod.Module (bind, init_params, forward, backward, outputs, parameters) against numpy,
with an unrolled cell and valid lengths, and the errors it promises."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd
from gluonlite.gluon import rnn

R = np.random.RandomState(5)


def _dense_module(**kwargs):
    x = mx.sym.var("data")
    y = mx.sym.FullyConnected(x, num_hidden=3, name="fc")
    return mx.mod.Module(mx.sym.tanh(y, name="out"), label_names=None, **kwargs)


def test_forward_backward_match_numpy():
    mod = _dense_module()
    mod.bind(data_shapes=[("data", (4, 5))], inputs_need_grad=True)
    w, b = R.uniform(-1, 1, (3, 5)), R.uniform(-1, 1, (3,))
    mod.init_params(arg_params={"fc_weight": nd.array(w), "fc_bias": nd.array(b)})
    x = R.uniform(-1, 1, (4, 5)).astype(np.float32)
    mod.forward(mx.io.DataBatch([nd.array(x)]))
    want = np.tanh(x @ w.T + b)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), want, rtol=1e-5, atol=1e-6)
    head = R.uniform(-1, 1, (4, 3))
    mod.backward([nd.array(head)])
    g = head * (1 - want ** 2)
    np.testing.assert_allclose(mod.get_param_grads()["fc_weight"].asnumpy(), g.T @ x,
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mod.get_input_grads()[0].asnumpy(), g @ w, rtol=1e-5,
                               atol=1e-6)
    assert mod.output_shapes == [("out_output", (4, 3))]
    assert [d.shape for d in mod.data_shapes] == [(4, 5)]
    # a batch of another size rebinds, keeping the parameters
    mod.forward(mx.io.DataBatch([nd.array(x[:2])]), is_train=False)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), want[:2], rtol=1e-5, atol=1e-6)


def test_init_params_default_and_variable_initializers():
    stack = rnn.SequentialRNNCell()
    stack.add(rnn.LSTMCell(4, i2h_bias_initializer=mx.init.LSTMBias(2.0), prefix="l0_"))
    out, _ = stack.unroll(1, mx.sym.var("data"), merge_outputs=True)
    mod = mx.mod.Module(out, label_names=None, context=mx.cpu(0))
    mod.bind(data_shapes=[("data", (2, 1, 3))])
    mod.init_params()
    args, aux = mod.get_params()
    assert sorted(args) == ["l0_h2h_bias", "l0_h2h_weight", "l0_i2h_bias", "l0_i2h_weight"]
    assert aux == {}
    np.testing.assert_array_equal(args["l0_i2h_bias"].asnumpy(), np.repeat([0, 2, 0, 0], 4))
    assert not args["l0_h2h_bias"].asnumpy().any()
    w = args["l0_i2h_weight"].asnumpy()
    assert w.any() and np.abs(w).max() <= 0.01  # init.Uniform(0.01), MXNet's default
    args["l0_i2h_weight"][:] = 5  # get_params hands out copies
    assert mod.get_params()[0]["l0_i2h_weight"].asnumpy().max() <= 0.01


def test_unroll_with_valid_length_matches_the_imperative_cell():
    cell = rnn.GRUCell(3, prefix="g_")
    outs, states = cell.unroll(4, mx.sym.var("data"), valid_length=mx.sym.var("valid_length"),
                               merge_outputs=True, layout="NTC")
    mod = mx.mod.Module(mx.sym.Group([outs, states[0]]),
                        data_names=("data", "valid_length"), label_names=None)
    mod.bind(data_shapes=[("data", (3, 4, 2)), ("valid_length", (3,))], for_training=False)
    mod.init_params(mx.init.Uniform(0.5))
    x, lengths = nd.array(R.uniform(-1, 1, (3, 4, 2))), nd.array([4, 1, 2])
    mod.forward(mx.io.DataBatch([x, lengths]))
    cell.initialize()
    for name, value in mod.get_params()[0].items():
        cell.collect_params()[name].set_data(value)
    want_out, want_states = cell.unroll(4, x, valid_length=lengths, merge_outputs=True)
    got_out, got_state = mod.get_outputs()
    np.testing.assert_allclose(got_out.asnumpy(), want_out.asnumpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state.asnumpy(), want_states[0].asnumpy(), rtol=1e-5,
                               atol=1e-6)


def test_module_errors():
    x = mx.sym.var("data")
    y = mx.sym.FullyConnected(x, num_hidden=2, name="fc")
    with pytest.raises(ValueError, match=r"Module: data_names \['img'\] are not arguments of "
                                         r"the symbol; its arguments are \['data', "):
        mx.mod.Module(y, data_names=("img",), label_names=None)
    with pytest.warns(UserWarning, match=r"label_names \['softmax_label'\] are not arguments"):
        mod = mx.mod.Module(y)
    with pytest.raises(ValueError, match=r"Module.forward: call bind\(\) first"):
        mod.forward(mx.io.DataBatch([nd.ones((1, 3))]))
    with pytest.raises(ValueError, match=r"Module.bind: data_shapes name\(s\) \['x'\] do not "
                                         r"match the module's data_names \['data'\]"):
        mod.bind(data_shapes=[("x", (1, 3))])
    mod.bind(data_shapes=[("data", (1, 3))])
    with pytest.raises(ValueError, match=r"Module.get_params: call init_params\(\)"):
        mod.get_params()
    with pytest.raises(ValueError, match=r"Module: arg_params\['fc_weight'\] has shape "
                                         r"\(2, 4\), the symbol wants \(2, 3\)"):
        mod.init_params(arg_params={"fc_weight": nd.ones((2, 4)), "fc_bias": nd.ones((2,))})
    with pytest.raises(mx.MXNetError, match=r"Module: arg_params lacks \['fc_bias'\]"):
        mod.init_params(arg_params={"fc_weight": nd.ones((2, 3))})
    # as MXNet 1.9.1: names the symbol does not use are ignored by set_params
    mod.set_params({"fc_weight": nd.ones((2, 3)), "fc_bias": nd.ones((2,)),
                    "extra": nd.ones(1)})
    assert sorted(mod.get_params()[0]) == ["fc_bias", "fc_weight"]
    mod.init_params(force_init=True)
    before = mod.get_params()[0]["fc_weight"].asnumpy()
    with pytest.raises(ValueError, match=r"arg_params\['fc_bias'\] has shape \(3,\)"):
        mod.set_params({"fc_weight": nd.ones((2, 3)), "fc_bias": nd.ones((3,))})
    # a rejected set changes nothing
    np.testing.assert_array_equal(mod.get_params()[0]["fc_weight"].asnumpy(), before)
    with pytest.raises(ValueError, match=r"Module.forward: the batch has 2 data and 0 label "
                                         r"arrays; the module takes data \['data'\]"):
        mod.forward(mx.io.DataBatch([nd.ones((1, 3)), nd.ones((1, 3))]))
    with pytest.raises(ValueError, match="bind with inputs_need_grad=True"):
        mod.get_input_grads()
    with pytest.raises(ValueError, match="Module.bind: shared_module must be bound and "
                                         "initialized"):
        mod.bind(data_shapes=[("data", (1, 3))], shared_module=_dense_module(),
                 force_rebind=True)
    with pytest.raises(ValueError, match="Module.bind: inputs_need_grad=True needs "
                                         "for_training=True"):
        mod.bind(data_shapes=[("data", (1, 3))], for_training=False, inputs_need_grad=True,
                 force_rebind=True)
    with pytest.raises(ValueError, match=r"Module: work_load_list has 3 entries for 2 contexts; "
                                         "give one per context"):
        mx.mod.Module(y, label_names=None, context=[mx.cpu(0), mx.cpu(1)],
                      work_load_list=[1, 1, 1])
    with pytest.raises(TypeError, match="DataBatch: data must be a list of NDArrays, got "
                                        "NDArray"):
        mx.io.DataBatch(nd.ones((1, 3)))
