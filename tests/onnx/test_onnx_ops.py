"""Every operator with an ONNX converter: one small graph per walk entry
(tests/core/walk_specs), exported, checked, run in ONNX Runtime and compared with gluonlite
(1e-5). Converters without a walk entry here (the loops, RNN) are covered by the model
tests."""
import os
import sys

import numpy as np
import pytest
from onnx_check import assert_close, export_and_run, run_onnx

import gluonlite as mx
from gluonlite.onnx import _converters
from gluonlite.ops import registry
from gluonlite.symbol.symbol import apply_op

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "core"))
from walk_specs import SPECS, make  # noqa: E402

# converted operators whose walk entries exercise what ONNX cannot take as is
SKIP = {
    "_rnn_unpacked": "a compiled-plan form, refused with a message (test_onnx_errors)",
    "RNN": "checked by the fused-layer models (test_onnx_models, fixtures)",
}
# walk entries whose attributes have no ONNX form: the export must refuse them, naming the
# operator, the node and the attribute (or why)
REFUSED = {("UpSampling", 1): "only nearest UpSampling of one input",
           ("UpSampling", 2): "only nearest UpSampling of one input",
           ("_linalg_gemm2", 2): "axis=0",
           ("softmax", 2): "attribute use_length=True",
           ("_linalg_gemm", 2): "axis=-3",
           ("_contrib_AdaptiveAvgPooling2D", 0): "windows overlap",
           ("_contrib_ROIAlign", 1): "position_sensitive=True",
           ("_image_resize", 3): "interp=2", ("_image_resize", 4): "interp=4",
           ("_image_resize", 5): "interp=3", ("_image_resize", 6): "interp=2"}
CONVERTED = sorted(n for n in _converters.CONVERTERS
                   if registry.exists(n) and n in SPECS and n not in SKIP)


def _cases(name):
    checks = SPECS[name] if isinstance(SPECS[name], list) else [SPECS[name]]
    return [(name, i) for i in range(len(checks))]


@pytest.mark.parametrize("name,i", [c for n in CONVERTED for c in _cases(n)])
def test_operator_exports(name, i, tmp_path):
    check = (SPECS[name] if isinstance(SPECS[name], list) else [SPECS[name]])[i]
    rng = np.random.default_rng(0)
    arrays = [make(s, rng).astype(np.float32) for s in check["inputs"]]
    op = registry.get(name)
    attrs = dict(check["attrs"])
    if op.variadic:
        attrs.setdefault(op.variadic, len(arrays))
    xs = [mx.sym.var(f"x{k}") for k in range(len(arrays))]
    sym = apply_op(name, *xs, **attrs)
    if not isinstance(sym, mx.sym.Symbol):
        sym = mx.sym.Group(list(sym))
    n_vis = op.num_visible(op.parse(attrs)[0])
    if len(sym.list_outputs()) > n_vis:
        sym = mx.sym.Group([sym[k] for k in range(n_vis)])
    data = {nm: arrays[int(nm[1:])] for nm in sym.list_inputs()}
    path = tmp_path / "op.onnx"
    if (name, i) in REFUSED:
        with pytest.raises(mx.onnx.ExportError) as info:
            export_and_run(sym, {}, data, path)
        msg = str(info.value)
        assert f"operator {name!r}, node " in msg and REFUSED[(name, i)] in msg, msg
        assert not os.path.exists(path) and not os.listdir(tmp_path)
        return
    if op.shape_from_values:  # bound graphs cannot run it: the imperative call is the want
        order = sym.list_inputs()
        mx.onnx.export_model(sym, {}, [data[nm].shape for nm in order],
                             [data[nm].dtype for nm in order], str(path))
        got, _ = run_onnx(str(path), [data[nm] for nm in order])
        want = [getattr(mx.nd, name)(*[mx.nd.array(a) for a in arrays], **attrs).asnumpy()]
        assert_close(got, want, 1e-5, f"{name}{attrs}")
        return
    try:
        got, want, _ = export_and_run(sym, {}, data, path)
    except mx.onnx.ExportError as e:
        pytest.fail(f"{name}{attrs}: {e}")
    assert_close(got, want, 1e-5, f"{name}{attrs}")


def test_every_converter_names_a_registered_operator():
    unknown = sorted(n for n in _converters.CONVERTERS if not registry.exists(n))
    assert not unknown, unknown
