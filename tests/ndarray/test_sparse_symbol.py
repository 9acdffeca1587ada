"""mx.sym.sparse and storage types in graphs: the graph computes the dense values of MXNet's
sparse results (numbers from MXNet 1.9.1 written below, made with the same calls)."""
import json

import numpy as np

import gluonlite as mx
from gluonlite import nd, sym

A = np.array([[0.5, 0, 0.2], [0, 0, 0], [0.1, 0, 0.3]], np.float32)


def test_sparse_symbols_compute_mxnet_values_on_sparse_inputs():
    y = sym.sparse.dot(sym.var("x", stype="csr"), sym.var("w"))
    exe = y.bind(mx.cpu(), {"x": nd.array(A).tostype("csr"),
                            "w": nd.array(np.arange(6.0).reshape(3, 2))})
    # MXNet 1.9.1: [[0.8, 1.5], [0, 0], [1.2, 1.6]]
    np.testing.assert_allclose(exe.forward()[0].asnumpy(), [[0.8, 1.5], [0, 0], [1.2, 1.6]],
                               rtol=1e-6)
    z = sym.sparse.retain(sym.var("r", stype="row_sparse"), sym.var("i"))
    out = z.bind(mx.cpu(), {"r": nd.array(A).tostype("row_sparse"),
                            "i": nd.array([0, 1])}).forward()[0]
    want = A.copy()
    want[2] = 0
    np.testing.assert_array_equal(out.asnumpy(), want)


def test_storage_nodes_are_written_as_mxnet_writes_them():
    c = sym.cast_storage(sym.var("d"), stype="csr")
    assert [(n["op"], n.get("attrs")) for n in json.loads(c.tojson())["nodes"]] == [
        ("null", None), ("cast_storage", {"stype": "csr"})]
    z = sym.sparse.retain(sym.var("r", stype="row_sparse"), sym.var("i"))
    assert [(n["op"], n.get("attrs")) for n in json.loads(z.tojson())["nodes"]] == [
        ("null", {"__storage_type__": "1"}), ("null", None), ("_sparse_retain", None)]
    np.testing.assert_array_equal(c.eval(d=nd.array(A))[0].asnumpy(), A)


def test_sparse_adagrad_update_matches_mxnet():
    w, h = nd.ones((4, 2)), nd.zeros((4, 2))
    g = nd.sparse.row_sparse_array(([[1.0, 2.0]], [2]), shape=(4, 2))
    nd.sparse.adagrad_update(w, g, h, lr=0.1, out=w)
    # MXNet 1.9.1 gives row 2 = 0.9 (1 - 0.1 * g / sqrt(g * g)), history row 2 = [1, 4]
    want_w = np.ones((4, 2), np.float32)
    want_w[2] = 0.9
    np.testing.assert_allclose(w.asnumpy(), want_w, rtol=1e-6)
    want_h = np.zeros((4, 2), np.float32)
    want_h[2] = [1, 4]
    np.testing.assert_array_equal(h.asnumpy(), want_h)
