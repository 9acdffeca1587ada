"""Shape and dtype inference: partial inference, MXNet's (None, None, None) for incomplete
results, and errors that name the node and both shapes."""
import numpy as np
import pytest

from gluonlite import sym


def _mlp():
    x = sym.var("x")
    h = sym.relu(sym.FullyConnected(x, num_hidden=5, name="fc1"))
    return sym.FullyConnected(h, num_hidden=3, name="fc2")


def test_weights_are_inferred_from_data_and_num_hidden():
    arg, out, aux = _mlp().infer_shape(x=(4, 7))
    assert arg == [(4, 7), (5, 7), (5,), (3, 5), (3,)]
    assert out == [(4, 3)] and aux == []


def test_positional_shapes_follow_list_arguments():
    assert _mlp().infer_shape((4, 7))[1] == [(4, 3)]


def test_shapes_flow_backwards_to_an_unknown_input():
    a, b = sym.var("a"), sym.var("b")
    arg, out, _ = (a + b).infer_shape(a=(2, 3))
    assert arg == [(2, 3), (2, 3)] and out == [(2, 3)]


def test_incomplete_inference_returns_nones_like_mxnet():
    assert _mlp().infer_shape() == (None, None, None)
    x, y = sym.var("x"), sym.var("y")
    assert sym.Group([x + 1, y]).infer_shape(x=(2,)) == (None, None, None)


def test_partial_inference_fills_what_it_can():
    arg, out, aux = _mlp().infer_shape_partial()
    # the biases follow from num_hidden alone; the rest stays unknown, ()
    assert arg == [(), (), (5,), (), (3,)] and out == [()] and aux == []
    arg, out, _ = sym.Group([sym.var("x") + 1, sym.var("y")]).infer_shape_partial(x=(2,))
    assert arg == [(2,), ()] and out == [(2,), ()]


def test_declared_var_shapes_count():
    x = sym.var("x", shape=(2, 6))
    assert sym.FullyConnected(x, num_hidden=4, name="f").infer_shape()[0][1] == (4, 6)


def test_aux_shapes_of_batchnorm():
    y = sym.BatchNorm(sym.var("x"), name="bn")
    arg, out, aux = y.infer_shape(x=(8, 3, 4))
    assert arg == [(8, 3, 4), (3,), (3,)] and aux == [(3,), (3,)] and out == [(8, 3, 4)]


def test_inconsistent_shapes_name_the_node_and_both_shapes():
    a, b = sym.var("a"), sym.var("b")
    with pytest.raises(ValueError, match=r"node 'sum_ab' \(elemwise_add\).*\(2, 3\).*\(3, 2\)"):
        sym.elemwise_add(a, b, name="sum_ab").infer_shape(a=(2, 3), b=(3, 2))
    with pytest.raises(ValueError, match=r"node 'fc1' \(FullyConnected\).*created at .*"
                                         r"test_infer.py.*\(5, 7\).*\(5, 6\)"):
        _mlp().infer_shape(x=(4, 7), fc1_weight=(5, 6))


def test_conflict_found_through_a_shared_input_names_both_shapes():
    x = sym.var("x")
    y = sym.Group([sym.FullyConnected(x, num_hidden=2, name="f"), sym.Reshape(x, shape=(3, 3),
                                                                                name="r")])
    with pytest.raises(ValueError, match=r"\(3, 3\)|\(9,\)|\(2, 5\)") as e:
        y.infer_shape(x=(2, 5))
    assert "'r'" in str(e.value)


def test_unknown_input_name_is_rejected():
    with pytest.raises(ValueError, match=r"unknown input name\(s\) \['z'\]"):
        _mlp().infer_shape(z=(1, 2))
    with pytest.raises(ValueError, match=r"unknown input name\(s\) \['z'\]"):
        _mlp().infer_type(z="float32")


def test_infer_type_propagates_and_is_none_when_unknown():
    arg, out, aux = _mlp().infer_type(x="float64")
    assert arg == [np.float64] * 5 and out == [np.float64] and aux == []
    assert _mlp().infer_type() == (None, None, None)
    assert _mlp().infer_type_partial() == ([None] * 5, [None], [])
    cast = sym.Cast(sym.var("x"), dtype="float16")
    assert cast.infer_type(x=np.float32) == ([np.float32], [np.float16], [])
    idx = sym.one_hot(sym.var("i"), depth=3, dtype="int32")
    assert idx.infer_type(i="float32")[1] == [np.int32]


def test_infer_type_conflict_is_an_error():
    a, b = sym.var("a"), sym.var("b")
    with pytest.raises(ValueError, match=r"'_plus0'|elemwise_add.*float16.*float32|"
                                         r"float32.*float16"):
        with sym.Prefix(""):
            (a + b).infer_type(a="float16", b="float32")


def test_shape_inference_runs_backwards_through_fully_connected():
    """A zero state of unknown batch (0) gets it from the known output of the FC reading it
    (the weight's shape is declared, as Gluon's cells declare it)."""
    h0 = sym.zeros((0, 3))
    x = sym.var("x")
    y = sym.FullyConnected(x, num_hidden=4, name="i2h") + sym.FullyConnected(
        h0, sym.var("h2h_weight", shape=(4, 3)), num_hidden=4, name="h2h")
    args, outs, _ = y.infer_shape(x=(5, 7))
    assert outs == [(5, 4)]
    assert dict(zip(y.list_arguments(), args))["h2h_weight"] == (4, 3)
    exe = y.simple_bind(None, x=(5, 7))
    assert exe.forward()[0].shape == (5, 4)
