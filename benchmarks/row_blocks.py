"""The whole-array rules against their block-at-a-time fast paths, on the models' shapes:
log_softmax and softmax (`gluonlite/ops/softmax_fast.py`), GELU (`gelu_fast.py`), LayerNorm
(`ln_fast.py`), 2-D max pooling a stride phase at a time (`pool_fast.py`), the SGD momentum
update (`optimizer_fast.sgd_mom_into`, against the pass order it had before it took MXNet's
kernel order), and MobileNet's narrow depthwise layers with their bands made by a product or
scattered (`conv_fast.BAND_PRODUCT`).

    PYTHONPATH=. python benchmarks/row_blocks.py [--rounds 9] [--scale 1.0] [--only TEXT]

Each case runs the operator's forward and gradient (an SGD step for the update) through
the registered rules (`Operator.rules_on(np)`), with the fast path on and off, in one
process, interleaved, on the same arrays; the table gives CPU ms medians and on / off
with its range over the rounds. `--scale` shrinks the arrays (the tests run it tiny). One
thread: run with OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1.
"""
import argparse
import contextlib
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _tables import ab_cells  # noqa: E402  (first: one BLAS thread)

import numpy as np  # noqa: E402

import gluonlite as mx  # noqa: E402
from gluonlite.ops import (conv_fast, gelu_fast, ln_fast, optimizer_fast,  # noqa: E402
                           pool_fast, softmax_fast)
from gluonlite.ops.registry import Params, RunCtx  # noqa: E402

_STEM = {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "pool_type": "max"}


def _depthwise(c, stride):
    return {"kernel": (3, 3), "stride": (stride, stride), "pad": (1, 1), "num_filter": c,
            "num_group": c, "no_bias": True}


# (what, operator, attributes, shape): the LSTM LM's logits (35 steps x batch rows of its
# 10000 words), BERT-base's attention scores (batch, 12 heads, 128 x 128), its
# feed-forward activations (batch x 128 tokens, 3072), its LayerNorms (batch x 128 tokens,
# 768), ResNet's stem pooling and MobileNet v1 1.0's depthwise layers on 28-, 14- and
# 7-wide maps (the weight is (C, 1, 3, 3))
OPERATOR_CASES = [
    ("LSTM LM logits, batch 1", "log_softmax", {}, (35, 10000)),
    ("LSTM LM logits, batch 32", "log_softmax", {}, (35 * 32, 10000)),
    ("BERT attention, batch 1", "softmax", {}, (1, 12, 128, 128)),
    ("BERT attention, batch 32", "softmax", {}, (32, 12, 128, 128)),
    ("BERT feed-forward, batch 1", "LeakyReLU", {"act_type": "gelu"}, (128, 3072)),
    ("BERT feed-forward, batch 32", "LeakyReLU", {"act_type": "gelu"}, (32 * 128, 3072)),
    ("BERT LayerNorm, batch 1", "LayerNorm", {}, (128, 768)),
    ("BERT LayerNorm, batch 32", "LayerNorm", {}, (32 * 128, 768)),
    ("ResNet stem, batch 1", "Pooling", _STEM, (1, 64, 112, 112)),
    ("ResNet stem, batch 32", "Pooling", _STEM, (32, 64, 112, 112)),
    ("MobileNet dw 28x28x256, batch 1", "Convolution", _depthwise(256, 1), (1, 256, 28, 28)),
    ("MobileNet dw 14x14x512, batch 1", "Convolution", _depthwise(512, 1), (1, 512, 14, 14)),
    ("MobileNet dw 14x14x512 /2, batch 1", "Convolution", _depthwise(512, 2),
     (1, 512, 14, 14)),
    ("MobileNet dw 7x7x1024, batch 1", "Convolution", _depthwise(1024, 1), (1, 1024, 7, 7)),
    ("MobileNet dw 14x14x512, batch 32", "Convolution", _depthwise(512, 1),
     (32, 512, 14, 14)),
    ("MobileNet dw 7x7x1024, batch 32", "Convolution", _depthwise(1024, 1),
     (32, 1024, 7, 7)),
]
# (what, weights): ResNet-18's and ResNet-50's parameter counts
SGD_CASES = [("ResNet-18 weights", 11_689_512), ("ResNet-50 weights", 25_557_032)]
# (module, flag) switching each operator's fast path
_SWITCHES = {"log_softmax": (softmax_fast, "ENABLED"), "softmax": (softmax_fast, "ENABLED"),
             "LeakyReLU": (gelu_fast, "ENABLED"), "LayerNorm": (ln_fast, "ENABLED"),
             "Pooling": (pool_fast, "ENABLED"),
             "Convolution": (conv_fast, "BAND_PRODUCT")}


def old_sgd_mom(p, out, w, g, mom):
    """The blocked momentum step as it ran before it took MXNet's kernel order: seven
    passes per block, ``lr * (rescale_grad * g)`` and the decay term always."""
    wf, gf, mf, of = w.reshape(-1), g.reshape(-1), mom.reshape(-1), out.reshape(-1)
    step = max(1, optimizer_fast.BLOCK_BYTES // wf.itemsize)
    t = np.empty(min(wf.size, step), wf.dtype)
    for s in range(0, wf.size, step):
        e = min(wf.size, s + step)
        tb, mb, wb = t[:e - s], mf[s:e], wf[s:e]
        np.multiply(mb, p.momentum, out=mb)
        np.multiply(wb, p.lr * p.wd, out=tb)
        np.subtract(mb, tb, out=mb)
        np.multiply(gf[s:e], p.rescale_grad, out=tb)
        np.multiply(tb, p.lr, out=tb)
        np.subtract(mb, tb, out=mb)
        np.add(wb, mb, out=of[s:e])
    return out


@contextlib.contextmanager
def _enabled(module, flag, on):
    old = getattr(module, flag)
    setattr(module, flag, on)
    try:
        yield
    finally:
        setattr(module, flag, old)


def _operator_call(name, attrs, shape, rng):
    """f(): the operator's forward then its gradient on fixed arrays (the data of `shape`,
    and a depthwise weight for a Convolution, gamma and beta for a LayerNorm)."""
    op = mx.ops.get(name)
    p = op.parse(attrs)[0]
    rc = RunCtx(True, np)
    xs = [rng.standard_normal(shape).astype(np.float32)]
    if name == "Convolution":
        xs.append(rng.standard_normal((shape[1], 1) + attrs["kernel"]).astype(np.float32))
    if name == "LayerNorm":
        xs += [rng.standard_normal(shape[-1]).astype(np.float32) for _ in range(2)]
    y = op.rules_on(np)[0](p, rc, *xs)
    gy = rng.standard_normal((y[0] if isinstance(y, tuple) else y).shape).astype(np.float32)

    def call():
        kernel, vjp = op.rules_on(np)
        y = kernel(p, rc, *xs)
        ys = list(y) if isinstance(y, tuple) else [y]
        vjp(p, rc, xs, ys, [gy] + [None] * (len(ys) - 1), [True] * len(xs))
    return call


def _time(fs, rounds):
    """{key: [CPU seconds per round]}, the calls interleaved in each round."""
    res = {k: [] for k in fs}
    for _ in range(rounds):
        for k, f in fs.items():
            t = time.process_time()
            f()
            res[k].append(time.process_time() - t)
    return res


def _row(what, name, on, off):
    """A table row from the per-round CPU seconds with the fast path on and off."""
    ms = [[t * 1e3 for t in times] for times in (on, off)]
    return "| " + " | ".join([what, name] + ab_cells(*ms)) + " |"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--scale", type=float, default=1.0,
                    help="fraction of each array's rows (or weights) to run on")
    ap.add_argument("--only", default="",
                    help="run only the cases whose name or operator contains this text")
    a = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    print("| case | operator | off ms | on ms | on / off | range |")
    print("|---|---|---:|---:|---:|---|")
    for what, name, attrs, shape in OPERATOR_CASES:
        if a.only not in what + name:
            continue
        shape = (max(1, round(shape[0] * a.scale)),) + shape[1:]
        call, (module, flag) = _operator_call(name, attrs, shape, rng), _SWITCHES[name]

        def run(on, call=call, module=module, flag=flag):
            with _enabled(module, flag, on):
                call()
        res = _time({True: lambda run=run: run(True), False: lambda run=run: run(False)},
                    a.rounds)
        print(_row(what, f"{name} {attrs.get('act_type', '')}".strip(), res[True],
                   res[False]), flush=True)
    p = Params(dict(lr=0.1, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, momentum=0.9))
    for what, n in SGD_CASES:
        if a.only not in what + " sgd_mom_update":
            continue
        n = max(1, round(n * a.scale))
        w, g, m = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
        res = _time({"new": lambda: optimizer_fast.sgd_mom_into(p, w, w, g, m),
                     "old": lambda: old_sgd_mom(p, w, w, g, m)}, a.rounds)
        print(_row(what, "sgd_mom_update (wd 0)", res["new"], res["old"]), flush=True)


if __name__ == "__main__":
    main()
