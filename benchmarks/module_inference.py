"""Symbolic inference with and without the inference backend: a Module bound for inference
(`Module.bind(for_training=False)`, as MXNet's image-classification `benchmark_score.py`
binds its networks) runs the fused graph by default, as MXNet 1.9.1's CPU builds do with
their MKLDNN backend; ``MXNET_SUBGRAPH_BACKEND=NONE`` at bind time runs the graph as bound.

    PYTHONPATH=. python benchmarks/module_inference.py [--models mobilenet0.25 resnet18_v1]
        [--batch 1] [--rounds 10]

Each model zoo network is traced to a Symbol (`net(sym.var('data'))`) and bound twice with
the same parameters; the two Modules are timed in interleaved rounds on one thread (CPU time
of this process). Prints per model the medians, their spreads (max - min, % of the median),
the ratio fused / unfused per round (median and range; below 1, the backend helps) and the
largest difference between the two outputs over the largest output.

Example:
    PYTHONPATH=. python benchmarks/module_inference.py --models mobilenet0.25 --rounds 5
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
from _timing import interleaved, median  # noqa: E402

import numpy as np  # noqa: E402

MODELS = ("mobilenet0.25", "mobilenet1.0", "resnet18_v1", "resnet50_v1", "vgg11_bn")


def _module(mx, symbol, shape, params, fused):
    """A Module of `symbol` bound for inference on `shape`, with `params` set; `fused`
    False binds it with MXNET_SUBGRAPH_BACKEND=NONE."""
    saved = os.environ.pop("MXNET_SUBGRAPH_BACKEND", None)
    if not fused:
        os.environ["MXNET_SUBGRAPH_BACKEND"] = "NONE"
    try:
        mod = mx.mod.Module(symbol=symbol, context=mx.cpu(), label_names=None)
        mod.bind(for_training=False, data_shapes=[("data", shape)])
    finally:
        os.environ.pop("MXNET_SUBGRAPH_BACKEND", None)
        if saved is not None:
            os.environ["MXNET_SUBGRAPH_BACKEND"] = saved
    mod.set_params(*params)
    return mod


def run_model(mx, name, batch, rounds):
    """{variant: [ms per round]} of one model, and the outputs' relative difference."""
    net = mx.gluon.model_zoo.vision.get_model(name)
    mx.random.seed(0)
    net.initialize(mx.init.Xavier(magnitude=2.0))
    shape = (batch, 3, 224, 224)
    x = mx.nd.array(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    net(x)
    rng = np.random.default_rng(1)
    for pname, p in net.collect_params().items():
        # BatchNorm statistics away from their initial 0 and 1, so the folding shows
        if pname.endswith(("running_mean", "running_var")):
            lo = 0.5 if pname.endswith("running_var") else -0.5
            p.set_data(mx.nd.array(rng.uniform(lo, lo + 1.0, p.shape)))
    symbol = net(mx.sym.var("data"))
    values = {p.name: p.data() for p in net.collect_params().values()}
    aux_names = set(symbol.list_auxiliary_states())
    params = ({k: v for k, v in values.items() if k not in aux_names},
              {k: v for k, v in values.items() if k in aux_names})
    batch_ = mx.io.DataBatch([x], [])
    mods = {v: _module(mx, symbol, shape, params, v == "fused") for v in ("fused", "unfused")}
    outs = {}

    def call(v):
        def body():
            mods[v].forward(batch_, is_train=False)
            outs[v] = mods[v].get_outputs()[0].asnumpy()
        return body
    times = interleaved({v: call(v) for v in mods}, rounds, warmup=1, clock=time.process_time)
    diff = float(np.abs(outs["fused"] - outs["unfused"]).max() / np.abs(outs["unfused"]).max())
    return times, diff


def _spread(ms):
    return 100.0 * (max(ms) - min(ms)) / median(ms)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=10)
    a = ap.parse_args(argv)
    if a.batch < 1 or a.rounds < 1:
        ap.error("--batch and --rounds must be at least 1")
    import gluonlite as mx
    print(f"Module inference, batch {a.batch}, {a.rounds} rounds, one thread, CPU ms")
    print("| model | fused ms | unfused ms | fused / unfused (range) | difference |")
    print("|---|---:|---:|---:|---:|")
    for name in a.models:
        t, diff = run_model(mx, name, a.batch, a.rounds)
        ratios = [f / u for f, u in zip(t["fused"], t["unfused"])]
        print(f"| {name} | {median(t['fused']):.1f} ±{_spread(t['fused']):.0f}% "
              f"| {median(t['unfused']):.1f} ±{_spread(t['unfused']):.0f}% "
              f"| {median(ratios):.3f} ({min(ratios):.2f}-{max(ratios):.2f}) | {diff:.1e} |",
              flush=True)


if __name__ == "__main__":
    main()
