"""The sparse operators against MXNet 1.9.1: for every call of tests/fixtures/sparse_cases.py,
the storage type, dtype and values MXNet gave (tests/fixtures/sparse_cases_mxnet.json, made
by make_sparse_cases.py), and against scipy / the dense computation."""
import importlib.util
import json
import os

import numpy as np
import pytest

import gluonlite as mx

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")
_spec = importlib.util.spec_from_file_location("sparse_cases",
                                               os.path.join(FIX, "sparse_cases.py"))
sparse_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sparse_cases)
with open(os.path.join(FIX, "sparse_cases_mxnet.json")) as _f:
    EXPECTED = json.load(_f)
CALLS = sparse_cases._calls(mx)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sparse_call_matches_mxnet(name):
    want = EXPECTED[name]
    if want[0] == "error":
        with pytest.raises((ValueError, TypeError)):
            CALLS[name]().asnumpy()
        return
    got = CALLS[name]()
    assert got.stype == want[0], f"{name}: storage {got.stype}, MXNet gives {want[0]}"
    assert np.dtype(got.dtype).name == want[1]
    vals = np.nan_to_num(got.asnumpy().astype(np.float64), nan=1e300)
    np.testing.assert_allclose(vals, np.array(want[2]), rtol=1e-5, atol=1e-6, err_msg=name)
