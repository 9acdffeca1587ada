"""MXNet's JSON layout: byte-identical output for a graph MXNet 1.9.1 wrote, round trips,
the exported fixtures, and messages for malformed files."""
import glob
import json
import os
import re

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym
from gluonlite.ndarray.serialization import load as load_params

from make_mxnet_expectations import build

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "mxnet")
CONTROL_FLOW = ("cond_then", "foreach_lstm", "while_gru")


def _read(path):
    with open(path) as f:
        return f.read()


def test_tojson_is_byte_identical_to_mxnet():
    with sym.Prefix(""):
        g = build(mx)
    assert g.tojson() == _read(os.path.join(DATA, "mxnet_small_graph.json"))


def test_mxnet_layout_details():
    d = json.loads(_read(os.path.join(DATA, "mxnet_small_graph.json")))
    with sym.Prefix(""):
        ours = json.loads(build(mx).tojson())
    assert ours == d
    bn = next(n for n in ours["nodes"] if n["op"] == "BatchNorm")
    # aux inputs carry their mutation version; attributes are strings
    assert [e[2] for e in bn["inputs"]] == [0, 0, 0, 1, 1]
    assert all(isinstance(v, str) for n in ours["nodes"] for v in n.get("attrs", {}).values())
    assert ours["attrs"] == {"mxnet_version": ["int", 10901]}


def _round_trip_graphs():
    x, w = sym.var("x", shape=(2, 3)), sym.var("w")
    yield sym.FullyConnected(x, w, num_hidden=4, no_bias=True, name="fc") * 2
    yield sym.Group([sym.BatchNorm(x, name="bn"), sym.split(x, num_outputs=3)[1]])
    yield sym.softmax(sym.Reshape(x, shape=(3, -1)), axis=0, temperature=2.0)
    yield sym.Concat(*[x] * 12, dim=0)
    m = sym.var("m")
    yield sym.BatchNorm(sym.BatchNorm(x, moving_mean=m, name="b1"), moving_mean=m, name="b2")


@pytest.mark.parametrize("i", range(5))
def test_round_trip_is_identical(i, tmp_path):
    g = list(_round_trip_graphs())[i]
    text = g.tojson()
    again = sym.load_json(text)
    assert again.tojson() == text
    assert again.list_inputs() == g.list_inputs()
    assert again.list_outputs() == g.list_outputs()
    assert again.list_auxiliary_states() == g.list_auxiliary_states()
    path = tmp_path / "g-symbol.json"
    g.save(str(path))
    assert _read(path) == text
    assert sym.load(str(path)).tojson() == text


def test_shared_aux_variable_versions_count_up():
    m = sym.var("m")
    x = sym.var("x")
    g = sym.BatchNorm(sym.BatchNorm(x, moving_mean=m, name="b1"), moving_mean=m, name="b2")
    nodes = json.loads(g.tojson())["nodes"]
    b1, b2 = (n for n in nodes if n["op"] == "BatchNorm")
    assert b1["inputs"][3][2] == 1 and b2["inputs"][3][2] == 2  # as NNVM numbers them


@pytest.mark.parametrize("name", ["mlp", "bnnet"])
def test_fixture_loads_writes_back_identically_and_runs(name):
    path = f"{FIXTURES}/{name}-symbol.json"
    s = sym.load(path)
    assert s.tojson() == _read(path)
    params = load_params(f"{FIXTURES}/{name}-0000.params")
    io = np.load(f"{FIXTURES}/{name}-io.npz")
    args = {k[4:]: v for k, v in params.items() if k.startswith("arg:")}
    aux = {k[4:]: v for k, v in params.items() if k.startswith("aux:")}
    args["data"] = nd.array(io["in0"])
    out = s.bind(mx.cpu(), args, aux_states=aux).forward()
    np.testing.assert_allclose(out[0].asnumpy(), io["out0"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", CONTROL_FLOW)
def test_control_flow_fixture_loads_and_writes_back(name):
    path = f"{FIXTURES}/{name}-symbol.json"
    s = sym.load(path)
    assert s.tojson() == _read(path)
    loop = next(n for n in s.get_internals().outputs if n[0].subgraphs)[0]
    assert len(loop.subgraphs) >= 1


# Exports of gluon layers (fused RNN layers, CNNs); their numbers are checked in
# tests/gluon/test_rnn_layer_fused.py and tests/nn/test_cnn_exports.py.
LAYER_EXPORTS = ("layer_lstm", "layer_gru", "layer_rnn_relu", "cnn_lenet", "cnn_dcgan_gen",
                 "cnn_conv1d")


@pytest.mark.parametrize("name", LAYER_EXPORTS)
def test_layer_export_fixture_writes_back_identically(name):
    path = f"{FIXTURES}/{name}-symbol.json"
    got, want = json.loads(mx.sym.load(path).tojson()), json.loads(_read(path))
    # MXNet's MKL-DNN build gives max Pooling a hidden workspace output, which shifts
    # node_row_ptr (the running count of node outputs); everything else is the same.
    if any(n["op"] == "Pooling" for n in want["nodes"]):
        got.pop("node_row_ptr")
        want.pop("node_row_ptr")
    assert got == want


def test_every_fixture_is_covered():
    names = sorted(os.path.basename(p)[:-len("-symbol.json")]
                   for p in glob.glob(f"{FIXTURES}/*-symbol.json"))
    assert set(names) <= {"mlp", "bnnet", *CONTROL_FLOW, *LAYER_EXPORTS}


# ---- malformed input ----------------------------------------------------------------------
_GOOD_NODE = {"op": "null", "name": "x", "inputs": []}
_BAD = [
    ("{", "not valid JSON"),
    ("[1, 2]", "expected an object with 'nodes' and 'heads'"),
    (json.dumps({"nodes": [], "heads": [[0, 0, 0]]}), "'nodes' must be a non-empty list"),
    (json.dumps({"nodes": [_GOOD_NODE], "heads": []}), "'heads' must be a non-empty list"),
    (json.dumps({"nodes": [{"name": "x"}], "heads": [[0, 0, 0]]}),
     "node 0: .*each node needs 'op' and 'name'"),
    (json.dumps({"nodes": [_GOOD_NODE, {"op": "relu", "name": "r", "inputs": [[1, 0, 0]]}],
                 "heads": [[1, 0, 0]]}), "refers to node 1, which does not come before it"),
    (json.dumps({"nodes": [_GOOD_NODE, {"op": "relu", "name": "r", "inputs": [[0, 3, 0]]}],
                 "heads": [[1, 0, 0]]}), "input \\[0, 3\\] but node 'x' has 1 output"),
    (json.dumps({"nodes": [_GOOD_NODE, {"op": "relu", "name": "r", "inputs": "x"}],
                 "heads": [[1, 0, 0]]}), "'inputs' must be a list"),
    (json.dumps({"nodes": [_GOOD_NODE, {"op": "relu", "name": "r", "inputs": [["a", 0, 0]]}],
                 "heads": [[1, 0, 0]]}), "is not \\[node, index, version\\]"),
    (json.dumps({"nodes": [_GOOD_NODE], "heads": [[5, 0, 0]]}),
     "heads: .*refers to node 5"),
    (json.dumps({"nodes": [_GOOD_NODE], "heads": [[0, 1, 0]]}),
     "head \\[0, 1, 0\\] but node 'x' has 1 output"),
    # (a file that names its MXNet version: one without is taken as 0.8, whose missing
    # inputs are added as variables, as MXNet's upgrade does)
    (json.dumps({"nodes": [_GOOD_NODE, {"op": "FullyConnected", "name": "fc",
                                        "attrs": {"num_hidden": "4"}, "inputs": [[0, 0, 0]]}],
                 "heads": [[1, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}),
     "node 1 \\('fc'\\).*FullyConnected with these attributes takes 3 input\\(s\\), the node "
     "lists 1"),
    (json.dumps({"nodes": [_GOOD_NODE, {"op": "relu", "name": "r", "attrs": "x",
                                        "inputs": [[0, 0, 0]]}], "heads": [[1, 0, 0]]}),
     "'attrs' must be an object"),
    (json.dumps({"nodes": [_GOOD_NODE, {"op": "Activation", "name": "a",
                                        "attrs": {"act_type": "nope"}, "inputs": [[0, 0, 0]]}],
                 "heads": [[1, 0, 0]]}), "node 1 \\('a'\\): Activation: argument act_type"),
    (json.dumps({"nodes": [_GOOD_NODE], "arg_nodes": [3], "heads": [[0, 0, 0]]}),
     "'arg_nodes' \\[3\\] does not list the variable nodes \\[0\\]"),
    (json.dumps({"nodes": [{"op": "null", "name": "x", "inputs": [[0, 0, 0]]}],
                 "heads": [[0, 0, 0]]}), "refers to node 0, which does not come before it"),
]


@pytest.mark.parametrize("text,message", _BAD)
def test_malformed_json_says_what_is_wrong(text, message):
    with pytest.raises(ValueError, match="malformed symbol JSON|not valid JSON|Activation") as e:
        sym.load_json(text)
    assert re.search(message, str(e.value)), str(e.value)


def test_unknown_operator_is_named():
    text = json.dumps({"nodes": [_GOOD_NODE, {"op": "FancyConv", "name": "c",
                                              "inputs": [[0, 0, 0]]}], "heads": [[1, 0, 0]]})
    with pytest.raises(ValueError, match="node 1 \\('c'\\): unknown operator 'FancyConv'"):
        sym.load_json(text)


def test_bad_file_is_named(tmp_path):
    path = tmp_path / "broken-symbol.json"
    path.write_text(_read(f"{FIXTURES}/mlp-symbol.json")[:300])
    with pytest.raises(ValueError, match=f"{path}: not valid JSON"):
        sym.load(str(path))
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match="not UTF-8"):
        sym.load(str(path))


def test_save_leaves_no_partial_file(tmp_path, monkeypatch):
    g = sym.relu(sym.var("x"))
    path = tmp_path / "g-symbol.json"
    g.save(str(path))
    before = _read(path)

    def boom(*a, **k):
        raise OSError("disk full")
    monkeypatch.setattr(os, "replace", boom)  # the rename into place fails
    with pytest.raises(OSError):
        sym.relu(sym.var("y")).save(str(path))
    assert _read(path) == before
    assert sorted(os.listdir(tmp_path)) == ["g-symbol.json"]
