"""`DataParallelExecutorGroup` built as MXNet builds it (symbol, contexts, shapes, parameter
names; `shared_group` for a bucket over the same parameters) and driven by MXNet's methods."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym
from gluonlite.module.executor_group import DataParallelExecutorGroup

CTXS = [mx.cpu(0), mx.cpu(1)]


def _net(layers):
    x = sym.var("data")
    for i in range(layers):
        x = sym.FullyConnected(x, num_hidden=3, name=f"fc{i}")
        x = sym.Activation(x, act_type="tanh")
    return sym.SoftmaxOutput(x, name="softmax")


def _group(layers, shared=None, params=None, **kw):
    net = _net(layers)
    params = params or [n for n in net.list_arguments() if n not in ("data", "softmax_label")]
    return DataParallelExecutorGroup(net, CTXS, [1, 1], [("data", (4, 5))],
                                     [("softmax_label", (4,))], params, True, False,
                                     shared_group=shared, **kw)


def test_a_shared_group_shares_parameters_and_data_arrays():
    g1 = _group(2)
    shared = g1.param_names
    for i in range(len(CTXS)):
        assert sorted(g1.shared_data_arrays[i]) == ["data", "softmax_label"]
    g2 = _group(3, shared=g1, params=shared)
    for i, (e1, e2) in enumerate(zip(g1.execs, g2.execs)):
        for n in shared:
            assert e2.arg_dict[n] is e1.arg_dict[n] and e2.grad_dict[n] is e1.grad_dict[n]
        # the second group's own arrays went into the one buffer both groups hold
        assert g1.shared_data_arrays[i] is g2.shared_data_arrays[i]
        assert sorted(g2.shared_data_arrays[i]) == sorted(
            ["data", "softmax_label", "fc2_weight", "fc2_bias"])
        assert e2.arg_dict["data"] is e1.arg_dict["data"]
    assert g2.grad_req["fc0_weight"] == "write" and g2.grad_req["data"] == "null"
    assert [e.arg_dict["data"].shape for e in g1.execs] == [(2, 5), (2, 5)]


def test_mxnet_methods_give_what_one_executor_gives():
    g = _group(2)
    r = np.random.RandomState(0)
    params = {n: nd.array(r.randn(*g.execs[0].arg_dict[n].shape)) for n in g.param_names}
    g.set_params(params, {})
    x, y = r.randn(4, 5), np.array([0, 1, 2, 1])
    g.forward(mx.io.DataBatch([nd.array(x)], [nd.array(y)]), is_train=True)
    g.backward()
    one = _net(2).simple_bind(mx.cpu(), data=(4, 5), softmax_label=(4,))
    one.copy_params_from(params)
    want = one.forward(is_train=True, data=nd.array(x), softmax_label=nd.array(y))[0].asnumpy()
    one.backward()
    np.testing.assert_allclose(g.get_outputs()[0].asnumpy(), want, rtol=1e-5)
    per = g.get_outputs(merge_multi_context=False)
    assert [a.shape for a in per[0]] == [(2, 3), (2, 3)]
    assert g.get_output_shapes() == [("softmax_output", (4, 3))]
    # the two halves' gradients add up to the whole batch's
    total = sum(a.asnumpy() for a in g.grad_arrays[0])
    np.testing.assert_allclose(total, one.grad_dict[g.param_names[0]].asnumpy(), rtol=1e-5,
                               atol=1e-7)
    out = {n: nd.zeros(a.shape) for n, a in params.items()}
    g.get_params(out, {})
    np.testing.assert_allclose(out["fc1_weight"].asnumpy(), params["fc1_weight"].asnumpy())
    acc = mx.metric.Accuracy()
    g.update_metric(acc, [nd.array(y)], False)
    assert acc.get()[1] == pytest.approx((want.argmax(1) == y).mean())
    assert len(g.data_arrays[0]) == 2 and g.data_arrays[0][1][0] == slice(2, 4)
    assert g.input_grad_arrays is None
    with pytest.raises(ValueError, match="inputs_need_grad"):
        g.get_input_grads()
    g.reshape([("data", (8, 5))], [("softmax_label", (8,))])
    assert [e.arg_dict["data"].shape for e in g.execs] == [(4, 5), (4, 5)]
    assert g.get_output_shapes() == [("softmax_output", (8, 3))]


def test_grad_req_forms_and_bad_input():
    g = _group(1, grad_req={"fc0_bias": "null"}, fixed_param_names=["fc0_weight"])
    assert g.grad_req == {"data": "null", "fc0_weight": "null", "fc0_bias": "null",
                          "softmax_label": "null"}
    g = _group(1, grad_req="add")
    assert g.grad_req["fc0_weight"] == "add"
    with pytest.raises(ValueError, match="grad_req has 2 entries"):
        _group(1, grad_req=["write", "write"])
    with pytest.raises(ValueError, match="grad_req must be"):
        _group(1, grad_req=3)
    with pytest.raises(ValueError, match="one batch size.*softmax_label"):
        DataParallelExecutorGroup(_net(1), CTXS, [1, 1], [("data", (4, 5))],
                                  [("softmax_label", (6,))], ["fc0_weight", "fc0_bias"],
                                  True, False)
    with pytest.raises(ValueError, match="exactly one of states and value"):
        _group(1).set_states()


def test_group2ctxs_place_each_contexts_group_as_mxnet_reads_them():
    with mx.AttrScope(ctx_group="dev1"):
        fc = sym.FullyConnected(sym.var("data"), num_hidden=3, name="fc0")
    net = sym.SoftmaxOutput(fc, name="softmax")
    g = DataParallelExecutorGroup(net, CTXS, [1, 1], [("data", (4, 5))],
                                  [("softmax_label", (4,))], ["fc0_weight", "fc0_bias"], True,
                                  False, group2ctxs={"dev1": [mx.cpu(2), mx.cpu(3)]})
    assert [e.arg_dict["fc0_weight"].context for e in g.execs] == [mx.cpu(2), mx.cpu(3)]
    with pytest.raises(ValueError, match=r"DataParallelExecutorGroup: group2ctxs\['dev1'\] "
                                         r"lists 3 Contexts"):
        DataParallelExecutorGroup(net, CTXS, [1, 1], [("data", (4, 5))], None,
                                  ["fc0_weight", "fc0_bias"], True, False,
                                  group2ctxs={"dev1": [mx.cpu(2)] * 3})
