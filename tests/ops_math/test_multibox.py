"""MultiBoxPrior, MultiBoxTarget and MultiBoxDetection (and npx.multibox_prior) against MXNet
1.9.1's results (tests/fixtures/multibox_mxnet.json from make_multibox.py, the calls in
multibox_cases.py): anchors, matching with and without negative mining, decoding and
non-maximum suppression, each entry exact to float32 rounding."""
import importlib.util
import json
import os

import numpy as np
import pytest

import gluonlite as mx

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")


def _cases():
    spec = importlib.util.spec_from_file_location("multibox_cases",
                                                  os.path.join(FIX, "multibox_cases.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.cases(mx)


with open(os.path.join(FIX, "multibox_mxnet.json"), encoding="utf-8") as _f:
    WANT = json.load(_f)
GOT = {}


@pytest.mark.parametrize("case", sorted(WANT))
def test_matches_mxnet(case):
    if not GOT:
        GOT.update(_cases())
    want, got = WANT[case], GOT[case]
    parts = zip(want, got) if case.startswith("target") else [(want, got)]
    for w, g in parts:
        np.testing.assert_allclose(np.array(g), np.array(w), rtol=1e-5, atol=1e-6,
                                   err_msg=case)


def test_shape_errors_name_the_operator():
    with pytest.raises(Exception, match="MultiBoxPrior"):
        mx.nd.contrib.MultiBoxPrior(mx.nd.zeros((2, 3)))
    anchors = mx.nd.zeros((1, 4, 4))
    with pytest.raises(Exception, match="MultiBoxDetection: cls_prob has 5 anchors but anchor "
                                        "has 4"):
        mx.nd.contrib.MultiBoxDetection(mx.nd.zeros((1, 2, 5)), mx.nd.zeros((1, 20)), anchors)


def test_symbolic_shapes():
    a = mx.sym.contrib.MultiBoxPrior(mx.sym.var("x"), sizes=(0.5, 0.25), ratios=(1, 2))
    assert a.infer_shape(x=(1, 3, 4, 4))[1] == [(1, 48, 4)]
