"""NDArray indexing, assignment, gradients through indexing and dtype rules, against what
MXNet 1.9.1 gives for the same cases (`ndsym_cases.py`; expectations made by
`tests/fixtures/make_ndsym.py` into `tests/fixtures/ndsym/expected.json`)."""
import builtins
import json
import os

import numpy as np
import pytest

import gluonlite as mx
import ndsym_cases as cases

_EXPECTED = os.path.join(os.path.dirname(__file__), "..", "fixtures", "ndsym", "expected.json")
with open(_EXPECTED) as _f:
    EXPECTED = json.load(_f)


def _error_class(name):
    """The class an MXNet error name stands for here (MXNetError: gluonlite's base error)."""
    return mx.MXNetError if name == "MXNetError" else getattr(builtins, name)


def _check(group, name):
    want = EXPECTED[group][name]
    f = getattr(cases, group)[name]
    if "error" in want:
        with pytest.raises(_error_class(want["error"])):
            f(mx).asnumpy()
        return
    got = f(mx).asnumpy()
    assert np.dtype(got.dtype).name == want["dtype"], (name, got.dtype, want["dtype"])
    assert list(got.shape) == want["shape"], (name, got.shape, want["shape"])
    np.testing.assert_allclose(got.astype(np.float64).ravel(), want["values"], rtol=1e-6)


@pytest.mark.parametrize("name", sorted(cases.GETITEM))
def test_getitem_as_mxnet(name):
    _check("GETITEM", name)


@pytest.mark.parametrize("name", sorted(cases.SETITEM))
def test_setitem_as_mxnet(name):
    _check("SETITEM", name)


@pytest.mark.parametrize("name", sorted(cases.GRADIENT))
def test_gradient_through_indexing_as_mxnet(name):
    _check("GRADIENT", name)


@pytest.mark.parametrize("name", sorted(cases.DTYPES))
def test_dtype_rules_as_mxnet(name):
    _check("DTYPES", name)


def test_every_case_has_an_expectation():
    for group in ("GETITEM", "SETITEM", "GRADIENT", "DTYPES"):
        assert sorted(getattr(cases, group)) == sorted(EXPECTED[group]), group
