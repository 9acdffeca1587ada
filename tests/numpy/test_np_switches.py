"""The switches of NumPy semantics (`mx.np_shape`, `mx.util.np_array`, `npx.set_np`, the
`use_np*` decorators) and what they mean for the legacy dialect (mx.nd / mx.sym) too, as in
MXNet 1.9.1: 0-d and zero-size arrays, a 0 in a shape being a size, indexing every axis giving
a 0-d array, graph JSON flagged ``is_np_shape``, the V3 parameter format."""
import json
import threading

import numpy as onp
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError


def test_switches_and_scopes(legacy):
    assert not mx.is_np_shape() and not mx.is_np_array()
    with mx.np_shape():
        assert mx.is_np_shape() and not mx.is_np_array()
    with mx.util.np_array():
        assert mx.is_np_array()
    assert not mx.is_np_shape()
    mx.npx.set_np()
    try:
        assert mx.is_np_shape() and mx.is_np_array()
    finally:
        mx.npx.reset_np()
    with pytest.raises(ValueError):
        mx.npx.set_np(shape=False, array=True)   # array semantics needs shape semantics


def test_use_np_decorates_functions_and_classes(legacy):
    @mx.use_np
    def f():
        return mx.is_np_shape(), mx.is_np_array()

    @mx.use_np
    class C:
        def m(self):
            return mx.is_np_array()

    assert f() == (True, True) and C().m() and not mx.is_np_array()


def test_switches_are_per_thread(legacy):
    seen = []
    mx.npx.set_np()
    try:
        t = threading.Thread(target=lambda: seen.append(mx.is_np_array()))
        t.start()
        t.join()
    finally:
        mx.npx.reset_np()
    assert seen == [False]


def test_legacy_shapes_outside_np_shape(legacy):
    with pytest.raises(MXNetError):
        mx.nd.zeros(())            # MXNet: () is not a shape then
    with pytest.raises(MXNetError):
        mx.nd.ones((0, 3))         # ... and 0 means unknown
    assert mx.nd.ones((2, 3))[1, 2].shape == (1,)
    with mx.np_shape():
        assert mx.nd.ones(()).shape == ()
        assert mx.nd.zeros((0, 3)).shape == (0, 3)
        assert mx.nd.ones((2, 3))[1, 2].shape == ()
        assert mx.nd.array(3.0).shape == ()
        assert mx.nd.linalg.det(mx.nd.ones((2, 2))).shape == ()
        assert mx.nd.ones((2, 3)).sum().shape == (1,)  # reductions keep MXNet's (1,)


def test_symbol_json_flag_and_legacy_files(legacy):
    def net():
        w = mx.sym.var("weight", shape=(4, 0))
        return mx.sym.FullyConnected(mx.sym.var("data"), w, num_hidden=4)

    assert "is_np_shape" not in json.loads(net().tojson())["attrs"]
    legacy_json = net().tojson()
    with mx.np_shape():
        assert json.loads(net().tojson())["attrs"]["is_np_shape"] == ["int", 1]
        # a file written without NumPy semantics: its 0s are unknown dimensions
        s = mx.sym.load_json(legacy_json)
        args, outs, _ = s.infer_shape(data=(2, 5))
        assert args[1] == (4, 5) and outs[0] == (2, 4)


def test_partial_shapes_keep_unknown_dimensions(legacy):
    data = mx.sym.var("data", shape=(0, 20))
    out = mx.sym.slice(data, begin=(None, 3), end=(5, 10))
    assert out.infer_shape_partial()[1][0] == (0, 7)
    with mx.np_shape():
        data = mx.sym.var("data", shape=(-1, 20))
        out = mx.sym.slice(data, begin=(None, 3), end=(5, 10))
        assert out.infer_shape_partial()[1][0] == (-1, 7)


def test_v3_params_and_the_semantics_check(tmp_path, legacy):
    f = str(tmp_path / "a.params")
    with mx.np_shape():
        mx.nd.save(f, {"s": mx.nd.array(2.0), "z": mx.nd.zeros((0, 2))})
        back = mx.nd.load(f)
        assert back["s"].shape == () and back["z"].shape == (0, 2)
    with pytest.raises(MXNetError, match="is_np_shape"):
        mx.nd.load(f)                      # MXNet refuses it outside NumPy semantics
    g = str(tmp_path / "b.params")
    mx.nd.save(g, {"x": mx.nd.ones((2,))})
    with mx.np_shape():
        with pytest.raises(MXNetError, match="is_np_shape"):
            mx.nd.load(g)


def test_npx_save_load_round_trip(tmp_path):
    f = str(tmp_path / "c.npx")
    mx.npx.save(f, {"a": mx.np.arange(3), "b": mx.np.array(1.5)})
    back = mx.npx.load(f)
    assert isinstance(back["a"], mx.np.ndarray) and back["b"].shape == ()
    onp.testing.assert_array_equal(back["a"].asnumpy(), [0, 1, 2])
