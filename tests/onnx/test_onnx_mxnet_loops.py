"""MXNet's own loop and branch exports (tests/fixtures/mxnet_loops, made by real MXNet 1.9.1
with tests/fixtures/make_mxnet_loops.py): each loads in gluonlite with MXNet's numbers,
exports with mx.onnx.export_model given its input shapes, passes onnx's checker and runs
in ONNX Runtime with MXNet's numbers, 24 of 24."""
import os

import numpy as np
import pytest
from onnx_check import assert_close, run_onnx

import gluonlite as mx

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "mxnet_loops")
NAMES = sorted(f[:-len("-symbol.json")] for f in os.listdir(HERE) if f.endswith("-symbol.json"))
LOOP_OPS = {"foreach": "Scan", "while": "Loop", "cond": "If"}


def _load(name):
    io = np.load(os.path.join(HERE, f"{name}-io.npz"))
    ins = [io[f"in{k}"] for k in range(sum(k.startswith("in") for k in io.files))]
    outs = [io[f"out{k}"] for k in range(sum(k.startswith("out") for k in io.files))]
    names = ["data"] if len(ins) == 1 else [f"data{k}" for k in range(len(ins))]
    return dict(zip(names, ins)), outs


def test_there_are_24_fixtures():
    assert len(NAMES) == 24


@pytest.mark.parametrize("name", NAMES)
def test_mxnet_loop_fixture_runs_in_onnx_runtime_with_mxnets_numbers(name, tmp_path):
    data, mx_outs = _load(name)
    sym_file = os.path.join(HERE, f"{name}-symbol.json")
    params_file = os.path.join(HERE, f"{name}-0000.params")
    block = mx.gluon.SymbolBlock.imports(sym_file, list(data), params_file)
    want = block(*[mx.nd.array(data[nm]) for nm in data])
    want = [w.asnumpy() for w in (want if isinstance(want, (list, tuple)) else [want])]
    assert_close(want, mx_outs, 1e-5, f"{name}: gluonlite vs MXNet")
    order = [nm for nm in mx.sym.load(sym_file).list_inputs() if nm in data]
    path = str(tmp_path / f"{name}.onnx")
    mx.onnx.export_model(sym_file, params_file, [data[nm].shape for nm in order], np.float32,
                         path)
    got, model = run_onnx(path, [data[nm] for nm in order])
    assert_close(got, mx_outs, 1e-5, f"{name}: ONNX Runtime vs MXNet")
    ops = {n.op_type for n in model.graph.node}
    assert LOOP_OPS[name.split("_")[0]] in ops  # the loop stays a loop node


@pytest.mark.parametrize("name", ["while_gru", "cond_then"])
def test_shapes_in_call_order_are_named_as_not_fitting_and_a_dict_works(name, tmp_path):
    # MXNet matches a list of shapes to list_inputs(): data1, data0, ... for these graphs
    data, mx_outs = _load(name)
    sym_file = os.path.join(HERE, f"{name}-symbol.json")
    params_file = os.path.join(HERE, f"{name}-0000.params")
    path = tmp_path / f"{name}.onnx"
    with pytest.raises(mx.onnx.ExportError, match=r"in_shapes do not fit the graph: they are "
                                                  r"matched to the data inputs in "
                                                  r"list_inputs\(\) order \(data1 "):
        mx.onnx.export_model(sym_file, params_file, [v.shape for v in data.values()],
                             np.float32, str(path))
    assert not path.exists()
    mx.onnx.export_model(sym_file, params_file, {nm: v.shape for nm, v in data.items()},
                         {nm: np.float32 for nm in data}, str(path))
    order = [nm for nm in mx.sym.load(sym_file).list_inputs() if nm in data]
    got, _ = run_onnx(str(path), [data[nm] for nm in order])
    assert_close(got, mx_outs, 1e-5, name)
