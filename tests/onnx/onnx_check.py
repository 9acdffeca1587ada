"""Export a gluonlite graph to ONNX, check it with onnx.checker, run it in ONNX Runtime."""
import numpy as np
import onnx
import onnxruntime as ort

import gluonlite as mx


def run_onnx(path, feeds):
    """Run the ONNX file at `path` on one thread; `feeds` are the inputs in graph order."""
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    assert len(names) == len(feeds), (names, [f.shape for f in feeds])
    return sess.run(None, dict(zip(names, feeds))), model


def export_and_run(sym, params, data, path, opset=None):
    """Export `sym` with `params` (dict name -> array) for `data` ({input name: array}),
    run it; returns (onnx outputs, gluonlite outputs, model)."""
    order = [nm for nm in sym.list_inputs() if nm not in params]
    mx.onnx.export_model(sym, params, [data[nm].shape for nm in order],
                         [data[nm].dtype for nm in order], str(path), opset_version=opset)
    got, model = run_onnx(str(path), [data[nm] for nm in order])
    args = {nm: mx.nd.array(v, dtype=v.dtype) for nm, v in data.items()}
    args.update({nm: mx.nd.array(v, dtype=np.asarray(v).dtype) for nm, v in params.items()})
    want = _eval(sym, args)
    return got, want, model


def _eval(sym, args):
    """gluonlite's outputs of `sym` bound to `args` (inference)."""
    ex = sym.bind(mx.cpu(), {nm: args[nm] for nm in sym.list_arguments()},
                  aux_states={nm: args[nm] for nm in sym.list_auxiliary_states()},
                  grad_req="null")
    return [o.asnumpy() for o in ex.forward(is_train=False)]


def assert_close(got, want, tol=1e-5, where=""):
    assert len(got) == len(want), f"{where}: {len(got)} outputs, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"{where} output {k}: shape {g.shape}, expected {w.shape}"
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=f"{where} output {k}")
