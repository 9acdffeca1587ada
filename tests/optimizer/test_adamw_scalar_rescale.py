"""nd.contrib.adamw_update / mp_adamw_update take a number as rescale_grad, as MXNet 1.9.1's
wrappers do (a one-element float32 array on weight's context); numbers made by MXNet
(tests/fixtures/make_adamw_scalar.py)."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                       "adamw_scalar_rescale.json")) as _f:
    FIX = json.load(_f)


@pytest.mark.parametrize("case", FIX["cases"], ids=lambda c: f"{c['rescale']}-mp{c['mp']}")
def test_scalar_rescale_matches_mxnet(case):
    w = mx.nd.array(FIX["W"], dtype="float16" if case["mp"] else "float32")
    g = mx.nd.array(FIX["G"], dtype=w.dtype)
    m, v, w32 = mx.nd.array(FIX["M"]), mx.nd.array(FIX["V"]), mx.nd.array(FIX["W"])
    if case["mp"]:
        mx.nd.contrib.mp_adamw_update(w, g, m, v, w32, case["rescale"], out=w, **FIX["attrs"])
    else:
        mx.nd.contrib.adamw_update(w, g, m, v, case["rescale"], out=w, **FIX["attrs"])
    tol = 1e-3 if case["mp"] else 1e-5
    np.testing.assert_allclose(w.asnumpy(), case["weight"], rtol=tol, atol=tol)
    np.testing.assert_allclose(m.asnumpy(), case["mean"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v.asnumpy(), case["var"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w32.asnumpy(), case["weight32"], rtol=1e-5, atol=1e-6)


def test_scalar_and_array_rescale_agree_and_nan_skips():
    def step(rescale):
        w, g = mx.nd.array(FIX["W"]), mx.nd.array(FIX["G"])
        m, v = mx.nd.array(FIX["M"]), mx.nd.array(FIX["V"])
        mx.nd.contrib.adamw_update(w, g, m, v, rescale, out=w, **FIX["attrs"])
        return w.asnumpy()
    np.testing.assert_array_equal(step(1.5), step(mx.nd.array([1.5])))
    np.testing.assert_array_equal(step(float("nan")), np.asarray(FIX["W"], np.float32))


def test_symbol_wrapper_takes_a_number():
    s = mx.sym.contrib.adamw_update(mx.sym.var("w"), mx.sym.var("g"), mx.sym.var("m"),
                                    mx.sym.var("v"), 3.0, **FIX["attrs"])
    ex = s.bind(mx.cpu(), {"w": mx.nd.array(FIX["W"]), "g": mx.nd.array(FIX["G"])},
                aux_states={"m": mx.nd.array(FIX["M"]), "v": mx.nd.array(FIX["V"])})
    case = FIX["cases"][0]
    assert case["rescale"] == 3.0 and not case["mp"]
    np.testing.assert_allclose(ex.forward()[0].asnumpy(), case["weight"], rtol=1e-5, atol=1e-5)
