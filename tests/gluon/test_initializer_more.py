"""The initializers MXNet 1.9.1 has beyond the basic ones: Bilinear, MSRAPrelu, FusedRNN,
Load, Mixed, dumps() and creation from JSON, against MXNet-made numbers
(tests/fixtures/init_expectations.json, made by make_init_expectations.py) or closed
forms."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import init, nd

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "fixtures", "init_expectations.json")) as f:
    FX = json.load(f)


def test_bilinear_matches_mxnet():
    w = nd.zeros((2, 1, 3, 5))
    init.Bilinear()._init_weight("up", w)
    np.testing.assert_array_equal(w.asnumpy(), np.asarray(FX["bilinear"], np.float32))
    w4 = nd.empty((1, 1, 4, 4))
    init.Bilinear()._init_weight(None, w4)
    one = np.array([[0.25, 0.75, 0.75, 0.25]])
    assert (w4.asnumpy() == one * one.T).all()


@pytest.mark.parametrize("case", FX["fused"], ids=[c[0] for c in FX["fused"]])
def test_fused_rnn_layout_matches_mxnet(case):
    mode, hidden, layers, bidir, size, inner, forget, want = case
    inner = init.One() if inner == "one" else init.Constant(0.5)
    arr = nd.zeros((size,))
    init.FusedRNN(inner, hidden, layers, mode, bidir, forget)._init_weight(
        init.InitDesc("rnn_parameters"), arr)
    np.testing.assert_array_equal(arr.asnumpy(), np.asarray(want, np.float32))


def test_fused_rnn_refuses_a_size_that_fits_no_layout():
    with pytest.raises(ValueError, match="does not fit 1 lstm layer"):
        init.FusedRNN(init.One(), 2, 1, "lstm")._init_weight(init.InitDesc("p"), nd.zeros((7,)))


@pytest.mark.parametrize("name", sorted(FX["dumps"]))
def test_dumps_match_mxnet(name):
    made = {"xavier": init.Xavier(rnd_type="gaussian", magnitude=2),
            "msraprelu": init.MSRAPrelu(slope=0.1),
            "fusedrnn": init.FusedRNN(init.One(), 2, 1, "lstm"),
            "bilinear": init.Bilinear()}[name]
    assert made.dumps() == FX["dumps"][name]
    assert type(init.create(made.dumps())) is type(made)


def test_msraprelu_is_gaussian_with_he_magnitude():
    mx.random.seed(0)
    w = nd.zeros((400, 300))
    init.MSRAPrelu(factor_type="in", slope=0.0)._init_weight("w", w)
    assert abs(float(w.asnumpy().std()) - np.sqrt(2.0 / 300)) < 2e-3


def test_constant_dumps_arrays_as_lists():
    c = init.Constant(nd.ones((2,)))
    assert c.dumps() == '["constant", {"value": [1.0, 1.0]}]'
    assert init.Constant(1).dumps() == '["constant", {"value": 1}]'


def test_mixed_and_load(tmp_path):
    mixed = init.Mixed(["bias", ".*"], [init.Zero(), init.One()])
    b, w = nd.ones((2,)), nd.zeros((2,))
    mixed("fc_bias", b)
    mixed("fc_weight", w)
    assert b.asnumpy().tolist() == [0, 0] and w.asnumpy().tolist() == [1, 1]
    with pytest.raises(ValueError, match="did not match any pattern"):
        init.Mixed(["bias"], [init.Zero()])("fc_weight", w)
    fname = str(tmp_path / "p.params")
    nd.save(fname, {"arg:fc_weight": nd.array([3.0, 4.0])})
    load = init.Load(fname, default_init=init.Constant(7))
    load("fc_weight", w)
    load("fc2_weight", b)  # not saved: default_init, by its name pattern
    assert w.asnumpy().tolist() == [3, 4] and b.asnumpy().tolist() == [7, 7]
    with pytest.raises(ValueError, match="shape mismatch"):
        load("fc_weight", nd.zeros((3,)))
    with pytest.raises(ValueError, match="no default_init"):
        init.Load({"a": nd.ones((1,))})("b", nd.zeros((1,)))


def test_prelu_gamma_starts_at_a_quarter_in_a_module():
    data = mx.sym.Variable("data")
    sym = mx.sym.LeakyReLU(data=data, act_type="prelu")
    mod = mx.mod.Module(sym, label_names=None)
    mod.bind(data_shapes=[("data", (4, 4))])
    mod.init_params()
    assert (list(mod.get_params()[0].values())[0].asnumpy() == 0.25).all()


def test_constant_with_an_array_dumps_the_same_string_twice():
    made = mx.init.Constant(mx.nd.array([[1, 2], [3, 4]]))
    first = made.dumps()
    assert first == made.dumps() == json.dumps(["constant", {"value": [[1.0, 2.0], [3.0, 4.0]]}])
