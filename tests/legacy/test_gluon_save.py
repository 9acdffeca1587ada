"""`Block.save` / `Block.load`: MXNet 1.9.1's whole-model files (``-model.json`` and
``-model.params``), read from MXNet-made files and written in MXNet's layout."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx

FIX = os.path.join(os.path.dirname(__file__), "..", "fixtures", "gluon_save")


class MyBlock(mx.gluon.nn.Block):
    # the block of tests/fixtures/make_gluon_save.py: children keyed by their names
    def add(self, block):
        self._children[block.name + str(len(self._children))] = block

    def forward(self, x, *args):
        out = (x,) + args
        for block in self._children.values():
            out = block(*out)
            out = out if isinstance(out, tuple) else (out,)
        return out[0]


def create_net():
    inside = MyBlock()
    inside.add(mx.gluon.nn.Dense(6, activation="tanh"))
    net = MyBlock()
    net.add(inside)
    net.add(mx.gluon.nn.Dense(3))
    return net


def _expected():
    with np.load(os.path.join(FIX, "expected.npz")) as f:
        return f["x"], f["out"]


def test_load_reads_mxnet_files():
    x, out = _expected()
    create_net()  # a first tree, so that the loaded one starts with other names
    net = create_net()
    net.load(os.path.join(FIX, "MyModel"))
    assert [k for k in net._children] == ["myblock00", "dense11"]
    assert net.name == "myblock1"
    np.testing.assert_allclose(net(mx.nd.array(x)).asnumpy(), out, rtol=1e-5, atol=1e-6)
    dense = net._children["dense11"]
    assert dense._active  # it was saved hybridized
    assert sorted(dense.params.keys()) == ["dense1_bias", "dense1_weight"]


def _strip(tree):
    """The saved tree without names and graphs (which depend on counters and JSON layout)."""
    out = {}
    for k, v in tree.items():
        if isinstance(v, dict) and "orig_name" in v:
            out[k] = {kk: vv for kk, vv in v.items()
                      if kk in ("in_format", "out_format", "hybridized")}
            out[k]["children"] = len(v["children"])
            out[k].update(_strip(v))
    return out


def test_save_writes_mxnet_layout_and_round_trips(tmp_path):
    x, _ = _expected()
    net = create_net()
    net.initialize(mx.init.Uniform(0.5))
    net.hybridize()
    out1 = net(mx.nd.array(x)).asnumpy()
    prefix = str(tmp_path / "m")
    net.save(prefix)
    with open(prefix + "-model.json") as f:
        mine = json.load(f)
    with open(os.path.join(FIX, "MyModel-model.json")) as f:
        theirs = json.load(f)
    assert _strip(mine) == _strip(theirs)
    dense = mine["myblock0"]["dense4"]
    assert json.loads(dense["inputs"][0])["nodes"][0]["name"] == "data"
    assert any(n["op"] == "FullyConnected" for n in json.loads(dense["symbol"])["nodes"])

    net2 = create_net()
    net2.load(prefix)
    np.testing.assert_allclose(net2(mx.nd.array(x)).asnumpy(), out1, rtol=1e-6)


def test_load_names_a_tree_that_does_not_match(tmp_path):
    net = create_net()
    net.initialize()
    net(mx.nd.ones((1, 4)))
    net.save(str(tmp_path / "m"))
    other = MyBlock()
    other.add(mx.gluon.nn.Dense(3))
    other.add(mx.gluon.nn.Dense(3))
    with pytest.raises(ValueError, match="Block.load: .* has no entry 'dense1' for block"):
        other.load(str(tmp_path / "m"))
    assert other.name != net.name and list(other._children)[0].startswith("dense")  # unchanged


def test_a_block_called_before_load_traces_again(tmp_path):
    x, _ = _expected()
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(3, activation="relu"), mx.gluon.nn.Dense(2))
    net.initialize(mx.init.Uniform(0.5))
    net.hybridize()
    want = net(mx.nd.array(x)).asnumpy()
    net.save(str(tmp_path / "h"))
    other = mx.gluon.nn.HybridSequential()
    other.add(mx.gluon.nn.Dense(3, activation="relu"), mx.gluon.nn.Dense(2))
    other.initialize()
    other.hybridize()
    other(mx.nd.array(x))  # traced before the load
    before = other._cached_graph[1]
    other.load(str(tmp_path / "h"))
    assert other.name == net.name
    np.testing.assert_allclose(other(mx.nd.array(x)).asnumpy(), want, rtol=1e-6)
    assert other._cached_graph[1] is not before
