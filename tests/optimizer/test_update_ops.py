"""The optimizer update operators called directly against MXNet 1.9.1: outputs and the
states they update in place (tests/fixtures/loss_op_expectations.json, made by
make_loss_op_expectations.py), and their symbolic form."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "fixtures", "loss_op_expectations.json")) as f:
    OPS = json.load(f)["ops"]


def _kw(kw):
    return {k: tuple(v) if isinstance(v, list) else v for k, v in kw.items()}


@pytest.mark.parametrize("name", sorted(OPS))
def test_update_operator_matches_mxnet(name):
    case = OPS[name]
    mp = name.startswith("mp_") or "_mp_" in name
    xs = [nd.array(a, dtype="float16" if mp and i < 2 else "float32")
          for i, a in enumerate(case["inputs"])]
    extra = ({"out": [xs[0], xs[3]]} if name.startswith(("multi_sgd", "preloaded")) else
             {"out": [xs[0], xs[4]]} if name.startswith("_multi") else
             {"out": xs[0]} if name == "nag_mom_update" else {})
    res = getattr(nd, name)(*xs, **_kw(case["kwargs"]), **extra)
    res = res if isinstance(res, list) else [res]
    tol = 2e-3 if mp else 1e-5
    assert len(res) == len(case["outputs"])
    for r, want in zip(res, case["outputs"]):
        np.testing.assert_allclose(r.asnumpy().astype(np.float64), want, rtol=tol, atol=tol)
    for i, (x, want) in enumerate(zip(xs, case["after"])):  # states updated in place
        if name in ("_adamw_update", "_multi_adamw_update") and i % 4 == 1:
            continue  # MXNet's kernel also overwrites the gradient input; gluonlite does not
        np.testing.assert_allclose(x.asnumpy().astype(np.float64), want, rtol=tol, atol=tol)


def test_states_are_auxiliary_states_of_the_symbol():
    w, g, m, v = (mx.sym.var(n) for n in ("w", "g", "m", "v"))
    s = mx.sym.adam_update(w, g, m, v, lr=0.1)
    assert s.list_arguments() == ["w", "g"]
    assert s.list_auxiliary_states() == ["m", "v"]
    ex = s.bind(mx.cpu(), {"w": nd.ones((2,)), "g": nd.ones((2,))},
                aux_states={"m": nd.zeros((2,)), "v": nd.zeros((2,))})
    out = ex.forward()[0].asnumpy()
    np.testing.assert_allclose(ex.aux_dict["m"].asnumpy(), [0.1, 0.1], rtol=1e-6)
    np.testing.assert_allclose(out, 1 - 0.1 * 0.1 / (np.sqrt(0.001) + 1e-8), rtol=1e-5)


def test_bad_shapes_and_counts_are_named():
    with pytest.raises(ValueError, match="sgd_mom_update: weight, gradient and states must "
                                         "share one shape"):
        nd.sgd_mom_update(nd.ones((2,)), nd.ones((2,)), nd.ones((3,)), lr=0.1)
    with pytest.raises(ValueError, match=r"multi_sgd_update: num_weights=2 needs 4 inputs"):
        nd.multi_sgd_update(nd.ones((2,)), nd.ones((2,)), lrs=(0.1, 0.1), wds=(0, 0),
                            num_weights=2)
    with pytest.raises(TypeError, match="missing required argument 'lr'"):
        nd.sgd_update(nd.ones((2,)), nd.ones((2,)))


def test_reset_arrays_and_all_finite():
    a, b = nd.ones((2, 2)), nd.ones((3,))
    nd.reset_arrays(a, b, num_arrays=2)
    assert not a.asnumpy().any() and not b.asnumpy().any()
    assert nd.multi_all_finite(nd.ones((2,)), nd.array([np.nan]),
                               num_arrays=2).asnumpy().tolist() == [0.0]


def test_adamw_skips_the_step_for_a_zero_or_nonfinite_rescale():
    for bad in (0.0, np.nan, np.inf):
        w, m, v = nd.array([1.0, 2.0]), nd.array([0.1, 0.2]), nd.array([0.3, 0.4])
        nd.contrib.adamw_update(w, nd.ones((2,)), m, v, nd.array([bad]), lr=0.1, eta=1.0,
                                out=w)
        assert w.asnumpy().tolist() == [1.0, 2.0]
        np.testing.assert_allclose(m.asnumpy(), [0.1, 0.2])
        np.testing.assert_allclose(v.asnumpy(), [0.3, 0.4])
