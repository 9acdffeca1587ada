"""mx.np's dtype rules against MXNet 1.9.1's, entry by entry: every elementwise function on
each input dtype (unary; binary with every pair of dtypes; a Python scalar on either side),
the reductions' and cumsum's result dtypes, and the creation functions' defaults
(tests/fixtures/np_dtypes_mxnet.json, made by make_np_dtypes.py from the calls in
np_dtype_cases.py). An entry MXNet refuses must raise here too, an exception of the same
kind (MXNet's MXNetError is gluonlite's MXNetError or one of its subclasses)."""
import importlib.util
import json
import os

import numpy as onp
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")


def _load_cases():
    spec = importlib.util.spec_from_file_location("np_dtype_cases",
                                                  os.path.join(FIX, "np_dtype_cases.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


with open(os.path.join(FIX, "np_dtypes_mxnet.json"), encoding="utf-8") as _f:
    EXPECTED = json.load(_f)

_KINDS = {"MXNetError": MXNetError, "TypeError": TypeError, "ValueError": ValueError,
          "AttributeError": AttributeError, "NotImplementedError": NotImplementedError}


@pytest.fixture(scope="module")
def ours():
    return _load_cases().cases(mx)


def _values(text):
    """The nested list of a ``str(list)`` of numbers, bools, nan and inf."""
    return eval(text, {"__builtins__": {}}, {"nan": onp.nan, "inf": onp.inf})  # noqa: S307


def _parse(entry):
    dtype, _, values = entry.partition(":")
    return dtype, values


def _compare(section, fn, case, want, got):
    where = f"{section} {fn} {case}"
    if want.startswith("ERR:"):
        assert got.startswith("ERR:"), f"{where}: MXNet raises {want[4:]}, gluonlite gives {got}"
        return
    assert not got.startswith("ERR:"), f"{where}: MXNet gives {want}, gluonlite raises {got[4:]}"
    wd, wv = _parse(want)
    gd, gv = _parse(got)
    assert gd == wd, f"{where}: dtype {gd}, MXNet's {wd}"
    a = onp.array(_values(gv), dtype=float)
    b = onp.array(_values(wv), dtype=float)
    assert a.shape == b.shape and onp.allclose(a, b, rtol=1e-3, atol=1e-3, equal_nan=True), \
        f"{where}: values {gv}, MXNet's {wv}"


@pytest.mark.parametrize("section", ["unary", "binary", "scalar", "reduce"])
def test_table_matches_mxnet(ours, section):
    checked = 0
    for fn, table in EXPECTED[section].items():
        if table is None:  # MXNet 1.9.1 lacks the function: so must mx.np
            assert ours[section][fn] is None, f"mx.np.{fn} exists but MXNet 1.9.1 has none"
            continue
        for case, want in table.items():
            _compare(section, fn, case, want, ours[section][fn][case])
            checked += 1
    assert checked > 0


def test_creation_defaults_match_mxnet(ours):
    for case, want in EXPECTED["create"].items():
        _compare("create", case, "", want, ours["create"][case])


def test_refusals_are_of_mxnets_kind():
    """Where MXNet raises, the class matches (an MXNetError for operator refusals)."""
    cases = _load_cases()
    np = mx.np
    mx.npx.set_np()
    try:
        for fn, table in EXPECTED["binary"].items():
            if table is None:
                continue
            for case, want in table.items():
                if not want.startswith("ERR:"):
                    continue
                a, b = case.split(",")
                with pytest.raises(_KINDS[want[4:]]):
                    getattr(np, fn)(np.array([1, 2], dtype=a), np.array([2, 1], dtype=b))
    finally:
        mx.npx.reset_np()
    assert cases.DTYPES


def test_set_np_dtype_true_gives_float64_defaults():
    """``npx.set_np(dtype=True)`` (MXNet 2.0's switch, offered here as an extension): the
    creation functions and integer division default to float64."""
    mx.npx.set_np(dtype=True)
    try:
        assert mx.np.zeros((1,)).dtype == onp.float64
        assert mx.np.array([1, 2]).dtype == onp.float64
        assert mx.np.arange(2).dtype == onp.float64
        i = mx.np.array([1, 2], dtype="int32")
        assert (i / i).dtype == onp.float64
    finally:
        mx.npx.reset_np()
    mx.npx.set_np()
    try:
        assert mx.np.zeros((1,)).dtype == onp.float32
    finally:
        mx.npx.reset_np()
