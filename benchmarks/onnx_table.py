"""The README's ONNX export/import table: what exports, runs in ONNX Runtime and round-trips,
with the largest differences.

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 python benchmarks/onnx_table.py [--families linalg ...]

Three parts, each a Markdown table:
- operators, by walk family (`tests/core/walk_specs/<family>.py`): every walk entry of every
  converted operator exported (entries whose attributes have no ONNX form are refused by
  name: counted), checked, run in ONNX Runtime (one thread) against gluonlite, then imported
  back (`import_to_gluon`, hybridized) against gluonlite; the operators whose import fails
  are listed with the ONNX operator the importer lacks;
- the MXNet-made fixtures (tests/fixtures/mxnet): ONNX Runtime vs gluonlite, import vs
  gluonlite;
- the PyTorch-written models (tests/fixtures/torch_onnx): ONNX Runtime and the import
  (hybridized) against torch's outputs.
Needs onnx and onnxruntime; not part of the test suite (tests/onnx checks the same at 1e-5).
"""
import argparse
import os
import re
import sys
import tempfile

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "onnx"))
sys.path.insert(0, os.path.join(ROOT, "tests", "core"))


def _maxdiff(got, want):
    got = got if isinstance(got, (list, tuple)) else [got]
    want = want if isinstance(want, (list, tuple)) else [want]
    worst = 0.0
    for g, w in zip(got, want):
        g, w = np.asarray(g, np.float64).reshape(-1), np.asarray(w, np.float64).reshape(-1)
        if g.shape != w.shape:
            return float("inf")
        both = ~(np.isnan(g) & np.isnan(w)) & ~((g == w) & np.isinf(w))
        worst = max(worst, float(np.abs(g[both] - w[both]).max(initial=0.0)))
    return worst


def _as_numpy(y):
    return [v.asnumpy() for v in (y if isinstance(y, (list, tuple)) else [y])]


def _family_of_ops():
    import importlib
    import pkgutil

    import walk_specs
    fam = {}
    for info in pkgutil.iter_modules(walk_specs.__path__):
        if info.name != "common":
            for name in importlib.import_module(f"walk_specs.{info.name}").SPECS:
                fam[name] = info.name
    return fam


def _entry(name, check, tmp):
    """(ort diff or None, import diff or None, refused?, import error or None)."""
    import onnx_check
    from walk_specs import make

    import gluonlite as mx
    from gluonlite.ops import registry
    from gluonlite.symbol.symbol import apply_op
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
    order = sym.list_inputs()
    data = {nm: arrays[int(nm[1:])] for nm in order}
    path = os.path.join(tmp, "op.onnx")
    try:
        mx.onnx.export_model(sym, {}, [data[nm].shape for nm in order],
                             [data[nm].dtype for nm in order], path)
    except mx.onnx.ExportError:
        return None, None, True, None
    got, _ = onnx_check.run_onnx(path, [data[nm] for nm in order])
    feeds = [mx.nd.array(data[nm]) for nm in order]
    if op.shape_from_values:
        want = [getattr(mx.nd, name)(*feeds, **attrs).asnumpy()]
    else:
        want = onnx_check._eval(sym, {nm: mx.nd.array(v) for nm, v in data.items()})
    ort = _maxdiff(got, want)
    try:
        net = mx.onnx.import_to_gluon(path)
        net.hybridize()
        back = _maxdiff(_as_numpy(net(*feeds)), want)
        return ort, back, False, None
    except Exception as e:  # noqa: BLE001 - reported in the table
        missing = re.findall(r"ONNX operator '(\w+)', node [^:]*: no importer", str(e))
        why = f"no importer for {', '.join(sorted(set(missing)))}" if missing else \
            f"{type(e).__name__}: {' '.join(str(e).split())[:160]}"
        return ort, None, False, why


def operator_rows(families):
    from walk_specs import SPECS

    from gluonlite.onnx import _converters
    from gluonlite.ops import registry
    fam = _family_of_ops()
    stats, fails = {}, {}
    tmp = tempfile.mkdtemp(prefix="onnx_table_")
    for name in sorted(n for n in _converters.CONVERTERS if registry.exists(n) and n in SPECS):
        f = fam[name]
        if families and f not in families or name in ("RNN", "_rnn_unpacked"):
            continue
        s = stats.setdefault(f, dict(ops=set(), entries=0, refused=0, ort=0.0, rt=0,
                                     rt_ops=set(), back=0.0, failed_ops=set()))
        checks = SPECS[name] if isinstance(SPECS[name], list) else [SPECS[name]]
        for check in checks:
            ort, back, refused, why = _entry(name, check, tmp)
            s["ops"].add(name)
            s["entries"] += 1
            if refused:
                s["refused"] += 1
                continue
            s["ort"] = max(s["ort"], ort)
            if why is None:
                s["rt"] += 1
                s["back"] = max(s["back"], back)
            else:
                s["failed_ops"].add(name)
                fails.setdefault(why, set()).add(name)
        s["rt_ops"] = s["ops"] - s["failed_ops"]
    rows = [[f, len(s["ops"]), s["entries"], s["refused"], f"{s['ort']:.1e}",
             f"{len(s['rt_ops'])} ops, {s['rt']} entries", f"{s['back']:.1e}"]
            for f, s in sorted(stats.items())]
    return rows, fails


def fixture_rows():
    import onnx_check

    import gluonlite as mx
    here = os.path.join(ROOT, "tests", "fixtures", "mxnet")
    tmp = tempfile.mkdtemp(prefix="onnx_table_")
    rows = []
    for name in ["mlp", "bnnet", "cnn_lenet", "cnn_dcgan_gen", "cnn_conv1d", "layer_lstm",
                 "layer_gru", "layer_rnn_relu", "foreach_lstm", "while_gru", "cond_then"]:
        io = np.load(os.path.join(here, f"{name}-io.npz"))
        ins = [io[f"in{k}"] for k in range(sum(k.startswith("in") for k in io.files))]
        names = ["data"] if len(ins) == 1 else [f"data{k}" for k in range(len(ins))]
        data = dict(zip(names, ins))
        sym_file = os.path.join(here, f"{name}-symbol.json")
        params_file = os.path.join(here, f"{name}-0000.params")
        order = [nm for nm in mx.sym.load(sym_file).list_inputs() if nm in data]
        path = os.path.join(tmp, f"{name}.onnx")
        mx.onnx.export_model(sym_file, params_file, [data[nm].shape for nm in order],
                             np.float32, path)
        got, model = onnx_check.run_onnx(path, [data[nm] for nm in order])
        want = _as_numpy(mx.gluon.SymbolBlock.imports(sym_file, names, params_file)(
            *[mx.nd.array(a) for a in ins]))
        net = mx.onnx.import_to_gluon(path)
        net.hybridize()
        back = _as_numpy(net(*[mx.nd.array(data[nm]) for nm in order]))
        ops = sorted({n.op_type for n in model.graph.node} & {"Scan", "Loop", "If", "LSTM",
                                                              "GRU", "RNN"})
        rows.append([name, ", ".join(ops) or "-", f"{os.path.getsize(path) / 1024:.0f}",
                     f"{_maxdiff(got, want):.1e}", f"{_maxdiff(back, want):.1e}"])
    return rows


def torch_rows():
    import onnx
    import onnx_check

    import gluonlite as mx
    here = os.path.join(ROOT, "tests", "fixtures", "torch_onnx")
    rows = []
    for name in sorted(f[:-len(".onnx")] for f in os.listdir(here) if f.endswith(".onnx")):
        path = os.path.join(here, f"{name}.onnx")
        io = np.load(os.path.join(here, f"{name}-io.npz"))
        ins = [io[f"in{k}"] for k in range(sum(k.startswith("in") for k in io.files))]
        outs = [io[f"out{k}"] for k in range(sum(k.startswith("out") for k in io.files))]
        got, _ = onnx_check.run_onnx(path, ins)
        net = mx.onnx.import_to_gluon(path)
        net.hybridize()
        back = _as_numpy(net(*[mx.nd.array(a) for a in ins]))
        ops = sorted({n.op_type for n in onnx.load(path).graph.node} - {"Constant"})
        rows.append([name, ", ".join(ops), f"{_maxdiff(got, outs):.1e}",
                     f"{_maxdiff(back, outs):.1e}"])
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--families", nargs="*", default=None,
                    help="walk families to run (default: all)")
    a = ap.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _tables import markdown_table
    rows, fails = operator_rows(a.families)
    print(markdown_table(["walk family", "operators", "entries", "refused by name",
                          "ORT vs gluonlite", "round-trips (import, hybridized)",
                          "import vs gluonlite"], rows))
    print()
    for why, names in sorted(fails.items()):
        print(f"- {why}: {', '.join(sorted(names))}")
    print()
    print(markdown_table(["MXNet fixture", "loop/RNN nodes", "file KiB", "ORT vs gluonlite",
                          "import vs gluonlite"], fixture_rows()))
    print()
    print(markdown_table(["torch.onnx.export model", "ONNX operators", "ORT vs torch",
                          "import vs torch"], torch_rows()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
