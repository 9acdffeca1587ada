"""Executor (bind / simple_bind): forward, backward, grad_req modes, auxiliary states and the
messages for bad input."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd, sym


def _net():
    x = sym.var("x")
    fc = sym.FullyConnected(x, num_hidden=4, name="fc")
    return sym.sum(sym.tanh(fc) * fc, name="loss")


def _values(seed=0):
    rng = np.random.default_rng(seed)
    return {"x": rng.standard_normal((3, 5)).astype(np.float32),
            "fc_weight": rng.standard_normal((4, 5)).astype(np.float32),
            "fc_bias": rng.standard_normal(4).astype(np.float32)}


def _reference_grads(vals):
    arrs = {k: nd.array(v) for k, v in vals.items()}
    for a in arrs.values():
        a.attach_grad()
    with autograd.record():
        fc = nd.FullyConnected(arrs["x"], arrs["fc_weight"], arrs["fc_bias"], num_hidden=4)
        loss = (nd.tanh(fc) * fc).sum()
    loss.backward()
    return loss.asnumpy(), {k: a.grad.asnumpy() for k, a in arrs.items()}


def test_forward_backward_match_autograd():
    vals = _values()
    want_loss, want = _reference_grads(vals)
    args = {k: nd.array(v) for k, v in vals.items()}
    grads = {k: nd.zeros(v.shape) for k, v in vals.items()}
    exe = _net().bind(mx.cpu(), args, args_grad=grads)
    out = exe.forward(is_train=True)
    np.testing.assert_allclose(out[0].asnumpy(), want_loss, rtol=1e-5)
    exe.backward()
    for k in vals:
        np.testing.assert_allclose(exe.grad_dict[k].asnumpy(), want[k], rtol=1e-5, atol=1e-6)
    assert exe.arg_arrays[0] is exe.arg_dict["x"]
    assert [g is exe.grad_dict[k] for g, k in zip(exe.grad_arrays, vals)] == [True] * 3


def test_bind_takes_a_list_in_list_arguments_order():
    vals = _values()
    net = _net()
    exe = net.bind(mx.cpu(), [nd.array(vals[k]) for k in net.list_arguments()])
    np.testing.assert_allclose(exe.forward()[0].asnumpy(), _reference_grads(vals)[0],
                               rtol=1e-5)


def test_grad_req_write_add_null_per_argument():
    vals = _values()
    _, want = _reference_grads(vals)
    exe = _net().simple_bind(mx.cpu(), x=(3, 5),
                             grad_req={"x": "null", "fc_weight": "add", "fc_bias": "write"})
    assert sorted(exe.grad_dict) == ["fc_bias", "fc_weight"]
    assert exe.grad_arrays[0] is None
    for k, v in vals.items():
        exe.arg_dict[k][:] = nd.array(v)
    for _ in range(3):
        exe.forward(is_train=True)
        exe.backward()
    np.testing.assert_allclose(exe.grad_dict["fc_weight"].asnumpy(), 3 * want["fc_weight"],
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(exe.grad_dict["fc_bias"].asnumpy(), want["fc_bias"],
                               rtol=1e-5, atol=1e-6)


def test_grad_req_as_list_and_string():
    exe = _net().simple_bind(mx.cpu(), grad_req=["null", "write", "null"], x=(3, 5))
    assert sorted(exe.grad_dict) == ["fc_weight"]
    assert _net().simple_bind(mx.cpu(), grad_req="null", x=(3, 5)).grad_dict == {}


def test_batchnorm_running_statistics_follow_a_training_forward():
    x = sym.var("x")
    y = sym.BatchNorm(x, name="bn", fix_gamma=False, momentum=0.8)
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((6, 3, 2)).astype(np.float32) * 2 + 1
    exe = y.simple_bind(mx.cpu(), x=(6, 3, 2))
    exe.arg_dict["x"][:] = nd.array(xv)
    exe.arg_dict["bn_gamma"][:] = 1
    exe.aux_dict["bn_moving_var"][:] = 1
    mean0, var0 = np.zeros(3, np.float32), np.ones(3, np.float32)
    exe.forward(is_train=True)
    bmean, bvar = xv.mean(axis=(0, 2)), xv.var(axis=(0, 2))
    np.testing.assert_allclose(exe.aux_dict["bn_moving_mean"].asnumpy(),
                               0.8 * mean0 + 0.2 * bmean, rtol=1e-5)
    np.testing.assert_allclose(exe.aux_dict["bn_moving_var"].asnumpy(),
                               0.8 * var0 + 0.2 * bvar, rtol=1e-5)
    assert exe.aux_arrays[0] is exe.aux_dict["bn_moving_mean"]
    # inference uses (and leaves) the running statistics
    before = exe.aux_dict["bn_moving_mean"].asnumpy().copy()
    out = exe.forward(is_train=False)[0].asnumpy()
    rm, rv = before, exe.aux_dict["bn_moving_var"].asnumpy()
    want = (xv - rm[None, :, None]) / np.sqrt(rv[None, :, None] + 1e-3)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(exe.aux_dict["bn_moving_mean"].asnumpy(), before)


def test_forward_keyword_arrays_and_outputs_updated_in_place():
    exe = _net().simple_bind(mx.cpu(), x=(3, 5))
    vals = _values()
    for k in ("fc_weight", "fc_bias"):
        exe.arg_dict[k][:] = nd.array(vals[k])
    out = exe.forward(x=nd.array(vals["x"]))[0]
    np.testing.assert_allclose(out.asnumpy(), _reference_grads(vals)[0], rtol=1e-5)
    vals2 = dict(vals, x=vals["x"] * 2)
    exe.forward(x=nd.array(vals2["x"]))
    assert exe.outputs[0] is out  # MXNet keeps the output arrays
    np.testing.assert_allclose(out.asnumpy(), _reference_grads(vals2)[0], rtol=1e-5)


def test_backward_with_explicit_out_grads_of_a_group():
    x = sym.var("x")
    g = sym.Group([sym.square(x), sym.exp(x)])
    exe = g.simple_bind(mx.cpu(), x=(2, 2))
    xv = np.array([[0.1, 0.2], [0.3, -0.4]], np.float32)
    exe.arg_dict["x"][:] = nd.array(xv)
    exe.forward(is_train=True)
    exe.backward([nd.ones((2, 2)), None])
    np.testing.assert_allclose(exe.grad_dict["x"].asnumpy(), 2 * xv, rtol=1e-6)
    exe.backward([nd.ones((2, 2)) * 2, nd.ones((2, 2))])
    np.testing.assert_allclose(exe.grad_dict["x"].asnumpy(), 4 * xv + np.exp(xv), rtol=1e-6)


# ---- bad input ----------------------------------------------------------------------------
def test_bind_with_a_missing_argument_names_it():
    vals = _values()
    with pytest.raises(ValueError, match=r"bind: missing argument\(s\) \['fc_bias'\]"):
        _net().bind(mx.cpu(), {k: nd.array(vals[k]) for k in ("x", "fc_weight")})
    y = sym.BatchNorm(sym.var("x"), name="bn")
    args = {k: nd.ones((3,)) for k in ("bn_gamma", "bn_beta")}
    args["x"] = nd.ones((2, 3))
    with pytest.raises(ValueError, match=r"missing auxiliary state\(s\) \['bn_moving_var'\]"):
        y.bind(mx.cpu(), args, aux_states={"bn_moving_mean": nd.zeros((3,))})


def test_bind_ignores_names_the_symbol_lacks_and_reports_missing_ones():
    vals = {k: nd.array(v) for k, v in _values().items()}
    grads = {k: nd.zeros(v.shape) for k, v in vals.items()}
    exe = _net().bind(mx.cpu(), dict(vals, y=nd.ones((1,))),
                      args_grad=dict(grads, y=nd.ones((1,))))
    assert sorted(exe.arg_dict) == ["fc_bias", "fc_weight", "x"]
    assert sorted(exe.grad_dict) == ["fc_bias", "fc_weight", "x"]
    typo = {"X" if k == "x" else k: v for k, v in vals.items()}
    with pytest.raises(ValueError, match=r"bind: missing argument\(s\) \['x'\]"):
        _net().bind(mx.cpu(), typo)


def test_backward_ignores_out_grads_past_the_outputs_as_mxnet():
    vals = {k: nd.array(v) for k, v in _values().items()}
    grads = [{k: nd.zeros(v.shape) for k, v in vals.items()} for _ in range(2)]
    exes = [_net().bind(mx.cpu(), vals, args_grad=g) for g in grads]
    for exe in exes:
        exe.forward(is_train=True)
    exes[0].backward([nd.array([2.])])
    exes[1].backward([nd.array([2.]), nd.ones((7,))])
    for k in vals:
        np.testing.assert_array_equal(grads[0][k].asnumpy(), grads[1][k].asnumpy())
    assert np.abs(grads[0]["fc_weight"].asnumpy()).sum() > 0


def test_bind_with_wrong_count_of_arrays():
    with pytest.raises(ValueError, match="args has 1 arrays but the symbol has 3"):
        _net().bind(mx.cpu(), [nd.ones((1,))])
    with pytest.raises(TypeError, match="array for 'x' must be an NDArray"):
        sym.relu(sym.var("x")).bind(mx.cpu(), {"x": np.ones(2)})


def test_bind_with_inconsistent_shapes_names_node_and_shapes():
    vals = _values()
    args = {k: nd.array(v) for k, v in vals.items()}
    args["fc_weight"] = nd.ones((4, 6))
    exe = _net().bind(mx.cpu(), args)
    with pytest.raises(ValueError, match=r"node 'fc' \(FullyConnected\).*\(4, 5\).*\(4, 6\)"):
        exe.forward()


def test_simple_bind_errors():
    with pytest.raises(ValueError, match=r"simple_bind: unknown input name\(s\) \['q'\]"):
        _net().simple_bind(mx.cpu(), x=(3, 5), q=(1,))
    with pytest.raises(ValueError, match=r"cannot infer the shape of \['x'"):
        _net().simple_bind(mx.cpu())


def test_backward_before_forward_and_bad_out_grads():
    # as MXNet, backward runs with no forward before it, on the bound values
    vals = {k: nd.array(v) for k, v in _values().items()}
    exe = _net().bind(mx.cpu(), vals, args_grad={k: nd.zeros(v.shape) for k, v in vals.items()})
    exe.backward()
    first = exe.grad_dict["fc_weight"].asnumpy().copy()
    exe.forward(is_train=True)
    exe.backward()
    np.testing.assert_allclose(first, exe.grad_dict["fc_weight"].asnumpy(), rtol=1e-6)
    exe.forward(is_train=True)
    with pytest.raises(ValueError, match=r"got 0 out_grads for 1 outputs \(loss_output\)"):
        exe.backward([])
    with pytest.raises(ValueError, match="out_grad for 'loss_output' has shape \\(2,\\)"):
        exe.backward([nd.ones((2,))])
    with pytest.raises(ValueError, match="forward: unknown argument 'q'"):
        exe.forward(q=nd.ones((1,)))


def test_outputs_exist_after_bind_and_forward_writes_into_them():
    vals = {k: nd.array(v) for k, v in _values().items()}
    y = sym.FullyConnected(sym.var("x"), num_hidden=4, name="fc")
    exe = y.bind(mx.cpu(), vals)
    (before,) = exe.outputs
    assert before.shape == (3, 4) and before.dtype == np.float32
    (after,) = exe.forward()
    assert after is before
    ref = vals["x"].asnumpy() @ vals["fc_weight"].asnumpy().T + vals["fc_bias"].asnumpy()
    np.testing.assert_allclose(before.asnumpy(), ref, rtol=1e-5)


def test_bind_ignores_grad_req_names_that_are_not_arguments():
    # MXNet ignores them: code written for several symbols passes one dict to each
    x, w = sym.var("x"), sym.var("w")
    exe = (x * w).simple_bind(mx.cpu(), x=(2, 3), w=(2, 3),
                              grad_req={"x": "write", "b": "add"})
    assert exe.grad_dict.get("x") is not None and exe.grad_dict.get("w") is None
    exe.forward(is_train=True, x=nd.ones((2, 3)), w=nd.full((2, 3), 3))
    exe.backward(nd.ones((2, 3)))
    assert (exe.grad_dict["x"].asnumpy() == 3).all()


def test_simple_bind_takes_only_tuples_as_shapes():
    # as MXNet: force_rebind=True, axis=1, mode='clip' are not shapes and are ignored
    y = sym.take(sym.var("a"), sym.var("indices"), axis=0, mode="clip")
    exe = y.simple_bind(mx.cpu(), a=(4, 2), indices=(3,), axis=0, mode="clip",
                        force_rebind=True)
    assert exe.arg_dict["a"].shape == (4, 2)
    with pytest.raises(ValueError, match="unknown input name"):
        y.simple_bind(mx.cpu(), a=(4, 2), indices=(3,), b=(2,))


def test_backward_after_inference_forward_replays_its_random_draws():
    # Dropout(mode='always') drops in inference too: the gradient uses the same mask
    y = sym.Dropout(sym.var("data"), p=0.5, mode="always")
    exe = y.simple_bind(mx.cpu(), data=(20, 20))
    exe.arg_arrays[0][:] = 1
    exe.forward(is_train=False)
    exe.backward([nd.ones((20, 20))], is_train=False)
    out = exe.outputs[0].asnumpy()
    assert 0 < (out == 0).sum() < out.size
    np.testing.assert_array_equal(exe.grad_arrays[0].asnumpy(), out)


def test_head_gradient_is_cast_to_the_output_dtype():
    x = sym.var("x")
    y = sym.cast(x, dtype="int32") * 3
    g = nd.zeros((3,))
    exe = y.bind(mx.cpu(), {"x": nd.array([1, 2, 3])}, args_grad={"x": g})
    exe.forward(is_train=True)
    exe.backward(nd.array([0.7, 1.2, 2.9]))  # reaches the int32 output as 0, 1, 2
    np.testing.assert_array_equal(g.asnumpy(), [0, 3, 6])


def test_monitor_names_inputs_of_variadic_operators_arg_i():
    d, e = sym.var("d", shape=(2, 3)), sym.var("e", shape=(2, 3))
    names = []
    exe = sym.concat(d, e, dim=0, name="c").simple_bind(mx.cpu(), grad_req="null")
    exe.set_monitor_callback(lambda n, a: names.append(n), monitor_all=True)
    exe.forward()
    assert names == ["d", "c_arg0", "e", "c_arg1", "c_output"]


def test_reshaped_executor_keeps_the_monitor_callback():
    names = []
    y = sym.tanh(sym.var("x"), name="t")
    exe = y.simple_bind(mx.cpu(), x=(2, 3))
    exe.set_monitor_callback(lambda n, a: names.append((n, a.shape)))
    exe.reshape(x=(4, 3), allow_up_sizing=True).forward()
    assert names == [("t_output", (4, 3))]


def test_monitor_reports_a_begin_state_at_its_inferred_shape():
    # zeros((0, 4)) leaves the batch to inference, as Gluon's and mx.rnn's begin states do;
    # the monitor's values are the ones the run computed, not a (0, 4) array
    x = sym.var("x")
    h = sym.zeros((0, 4), name="h0")
    y = sym.FullyConnected(x, num_hidden=4, name="fc") + h
    exe = y.simple_bind(mx.cpu(), x=(3, 5), grad_req="null")
    seen = {}
    exe.set_monitor_callback(lambda n, a: seen.setdefault(n, a.shape), monitor_all=True)
    exe.forward()
    assert seen["h0_output"] == (3, 4)
    assert seen["fc_output"] == (3, 4)


def test_monitor_names_outputs_as_list_outputs_does():
    # MXNet's monitor names an output by the operator's name for it (BatchNorm: output, mean,
    # var), as list_outputs does
    y = sym.BatchNorm(sym.var("x"), output_mean_var=True, name="bn")
    exe = y.simple_bind(mx.cpu(), x=(2, 3), grad_req="null")
    names = []
    exe.set_monitor_callback(lambda n, a: names.append(n))
    exe.forward(is_train=True)
    assert names == y.list_outputs() == ["bn_output", "bn_mean", "bn_var"]
