"""In-process A/B of the convolution, pooling and BatchNorm kernels of two gluonlite trees on
the shapes of real models, interleaved.

    PYTHONPATH=. python benchmarks/kernel_trees.py --old /path/to/old/tree [--rounds 15]
        [--only conv depthwise depthwise_grad taps pool bn]
        [--models resnet18_v1:1:train vgg11_bn:8:train]

The old tree's kernel modules (`conv_fast`, `conv_winograd`, `pool_fast`, `bn_fast` of
gluonlite/ops) are loaded beside this tree's under other names. A kernel case calls the old
module's function and this tree's on the same arrays, in alternating order (old first in
even rounds), and checks that they agree. A model row builds the model once (benchmarks/
_bench_models.py) and, per round, points the module attributes gluonlite's operators call
(`conv_fast.forward`/`backward`, `conv_winograd.weight_grad`, `pool_fast.max_forward`/
`max_backward`, `bn_fast.moments`/`normalize_into`/`vjp`) at one tree's functions, then the
other's. The figure is CPU time; each row gives the median over the rounds of each tree,
and the median, min and max of the per-round ratios new / old; a kernel row also the
largest difference of the two trees' results over their largest magnitude.

One thread (OMP_NUM_THREADS=1 and OPENBLAS_NUM_THREADS=1 are set when not given).
Example:

    git worktree add /tmp/old HEAD~5
    PYTHONPATH=. python benchmarks/kernel_trees.py --old /tmp/old --only pool --rounds 9
"""
import argparse
import importlib.util
import os
import sys
import time
from statistics import median

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import gluonlite as mx  # noqa: E402
from gluonlite.ops import bn_fast, conv, conv_fast, conv_winograd, pool_fast  # noqa: E402

MODULES = {"conv_fast": conv_fast, "conv_winograd": conv_winograd, "pool_fast": pool_fast,
           "bn_fast": bn_fast}
# what the operators call, per module: a model row switches these
SWITCHED = {"conv_fast": ("forward", "backward"), "conv_winograd": ("weight_grad",),
            "pool_fast": ("max_forward", "max_backward"),
            "bn_fast": ("moments", "normalize_into", "vjp")}


def load_old(tree):
    """{name: the old tree's module} for the kernel modules, loaded under other names."""
    old = {}
    for name in MODULES:
        path = os.path.join(tree, "gluonlite", "ops", name + ".py")
        spec = importlib.util.spec_from_file_location(f"gluonlite.ops._old_{name}", path)
        mod = importlib.util.module_from_spec(spec)
        mod.__package__ = "gluonlite.ops"
        spec.loader.exec_module(mod)
        old[name] = mod
    return old


def _geom(k, s, d, p, sp):
    out = [(n + 2 * pp - dd * (kk - 1) - 1) // ss + 1 for n, pp, dd, kk, ss in
           zip(sp, p, d, k, s)]
    return conv.Geom(k, s, d, p, p, out)


def conv_cases(rng):
    """(label, fn(module), ...) of ResNet-18's 3x3 and 1x1 layers' gradients (data and weight)."""
    for batch, layers in ((1, [(64, 64, 56, 1), (128, 128, 28, 1), (256, 256, 14, 1),
                              (512, 512, 7, 1), (512, 256, 14, 2)]),
                          (4, [(512, 512, 2, 1), (256, 256, 4, 1)]),
                          (8, [(256, 256, 14, 1), (512, 256, 14, 2)])):
        for f, c, hw, st in layers:
            g = _geom((3, 3), (st, st), (1, 1), (1, 1), (hw, hw))
            x = rng.standard_normal((batch, c, hw, hw)).astype(np.float32)
            w = rng.standard_normal((f, c, 3, 3)).astype(np.float32)
            gy = rng.standard_normal((batch, f) + tuple(g.out)).astype(np.float32)
            yield (f"conv gradient {f}x{c} on {hw}x{hw} /{st}, batch {batch}",
                   lambda m, gy=gy, w=w, g=g, x=x: m.backward(gy, w, 1, g, x.shape, x=x))


def depthwise_cases(rng):
    """MobileNet's depthwise 3x3 layers that take the per-tap kernel (maps too wide for
    the banded one, and 28 x 28 at stride 1 in batches), forward; v1 0.25's at batch 32."""
    for c, hw, st, batch in ((32, 112, 1, 1), (64, 112, 2, 1), (128, 56, 1, 1),
                             (128, 56, 2, 1), (128, 56, 1, 8), (8, 112, 1, 32),
                             (16, 112, 2, 32), (32, 56, 1, 32), (32, 56, 2, 32),
                             (64, 28, 1, 32)):
        g = _geom((3, 3), (st, st), (1, 1), (1, 1), (hw, hw))
        x = rng.standard_normal((batch, c, hw, hw)).astype(np.float32)
        w = rng.standard_normal((c, 1, 3, 3)).astype(np.float32)
        yield (f"depthwise {c}x{hw}x{hw} /{st}, batch {batch}",
               lambda m, x=x, w=w, g=g, c=c: m.forward(x, w, c, g))


def depthwise_grad_cases(rng):
    """MobileNet v2's depthwise 3x3 layers that take the per-tap kernel (as
    `depthwise_cases`), gradient (data and weight); v2's and v1 0.25's at batch 32."""
    for c, hw, st, batch in ((32, 112, 1, 1), (96, 112, 2, 1), (144, 56, 1, 1),
                             (144, 56, 2, 1), (144, 56, 1, 8), (32, 112, 1, 32),
                             (96, 112, 2, 32), (144, 56, 1, 32), (192, 28, 1, 32),
                             (16, 112, 2, 32), (64, 28, 1, 32)):
        g = _geom((3, 3), (st, st), (1, 1), (1, 1), (hw, hw))
        x = rng.standard_normal((batch, c, hw, hw)).astype(np.float32)
        w = rng.standard_normal((c, 1, 3, 3)).astype(np.float32)
        gy = rng.standard_normal((batch, c) + tuple(g.out)).astype(np.float32)
        yield (f"depthwise gradient {c}x{hw}x{hw} /{st}, batch {batch}",
               lambda m, gy=gy, w=w, g=g, x=x, c=c: m.backward(gy, w, c, g, x.shape, x=x))


def taps_cases(rng):
    """DeepLab's atrous branches on a 16 x 16 map: dilation 12, 24 and 36, forward."""
    x = rng.standard_normal((1, 2048, 16, 16)).astype(np.float32)
    w = rng.standard_normal((256, 2048, 3, 3)).astype(np.float32)
    for d in (12, 24, 36):
        g = _geom((3, 3), (1, 1), (d, d), (d, d), (16, 16))
        yield (f"atrous 2048 -> 256, dilation {d} on 16x16",
               lambda m, g=g: m.forward(x, w, 1, g))


def pool_cases(rng):
    """Max pooling forward and gradient: ResNet's stem (3x3 /2) and VGG's 2x2 /2."""
    for name, k, pad, c, hw, batch in (("ResNet stem", 3, 1, 64, 112, 1),
                                       ("ResNet stem", 3, 1, 64, 112, 32),
                                       ("VGG 2x2", 2, 0, 64, 224, 1),
                                       ("VGG 2x2", 2, 0, 64, 224, 8)):
        g = _geom((k, k), (2, 2), (1, 1), (pad, pad), (hw, hw))
        x = rng.standard_normal((batch, c, hw, hw)).astype(np.float32)
        y = pool_fast.max_forward(x, g, -np.inf)
        gy = rng.standard_normal(y.shape).astype(np.float32)
        yield (f"{name} {c}x{hw}x{hw}, batch {batch}",
               lambda m, x=x, y=y, gy=gy, g=g: (m.max_forward(x, g, -np.inf),
                                                m.max_backward(x, y, gy, g, -np.inf)))


def bn_cases(rng):
    """BatchNorm in training: statistics, output and gradient."""
    p = mx.ops.get("BatchNorm").parse({"fix_gamma": False})[0]
    for shape in ((1, 64, 112, 112), (8, 64, 112, 112), (32, 64, 56, 56), (32, 512, 7, 7)):
        x = rng.standard_normal(shape).astype(np.float32)
        gamma = rng.uniform(0.5, 1.5, shape[1]).astype(np.float32)
        beta = rng.standard_normal(shape[1]).astype(np.float32)
        gy = rng.standard_normal(shape).astype(np.float32)

        def run(m, x=x, gamma=gamma, beta=beta, gy=gy):
            mean, var = m.moments(x)
            outs = [np.empty_like(x), np.empty_like(gamma), np.empty_like(gamma)]
            m.normalize_into(p, outs, x, gamma, beta, mean, var)
            return outs[0], m.vjp(p, [x, gamma, beta], outs, [gy], True)[0]
        yield f"BatchNorm {shape}", run


CASES = {"conv": conv_cases, "depthwise": depthwise_cases,
         "depthwise_grad": depthwise_grad_cases, "taps": taps_cases,
         "pool": pool_cases, "bn": bn_cases}


def _flat(result):
    if isinstance(result, (tuple, list)):
        return [a for r in result for a in _flat(r)]
    return [] if result is None else [np.asarray(result)]


def _agree(a, b):
    """The largest difference over the largest magnitude, over the arrays of two results."""
    worst = 0.0
    for u, v in zip(_flat(a), _flat(b)):
        scale = float(np.abs(v).max()) or 1.0
        worst = max(worst, float(np.abs(u - v).max()) / scale)
    return worst


def time_pair(run_old, run_new, rounds):
    """({"old": [s], "new": [s]}, [new/old per round]): CPU seconds, interleaved."""
    times, ratios = {"old": [], "new": []}, []
    for i in range(rounds):
        got = {}
        for label in (("old", "new") if i % 2 == 0 else ("new", "old")):
            t = time.process_time()
            (run_old if label == "old" else run_new)()
            got[label] = time.process_time() - t
            times[label].append(got[label])
        ratios.append(got["new"] / got["old"])
    return times, ratios


def _row(label, times, ratios, apart="-"):
    return (f"| {label} | {median(times['old']) * 1e3:.1f} | {median(times['new']) * 1e3:.1f} "
            f"| {median(ratios):.2f} | {min(ratios):.2f}-{max(ratios):.2f} | {apart} |")


def model_row(old, spec, rounds):
    """A model's training step or inference with every switched kernel from one tree, then
    the other's."""
    import _bench_models as bm
    name, batch, mode = spec.split(":")
    batch = int(batch)
    mx.random.seed(0)
    net, loss = bm.build(mx, name, batch)
    shapes, (lshape, classes) = bm.input_specs(name, batch)
    rng = np.random.default_rng(0)
    xs = [mx.nd.array(rng.standard_normal(s).astype(np.float32)) if kind == "normal" else
          mx.nd.array(rng.integers(0, bm.VOCAB, s)) for s, kind in shapes]
    label = (mx.nd.array(rng.integers(0, classes, lshape)) if classes else
             mx.nd.array(rng.standard_normal(lshape).astype(np.float32)))
    net.hybridize(static_alloc=True, static_shape=True)
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd",
                               {"learning_rate": 0.01, "momentum": 0.9})
    new_fns = {(m, a): getattr(MODULES[m], a) for m, attrs in SWITCHED.items() for a in attrs}
    old_fns = {(m, a): getattr(old[m], a) for m, a in new_fns}

    def use(fns):
        for (m, a), fn in fns.items():
            setattr(MODULES[m], a, fn)

    def step():
        if mode == "infer":
            net(*xs).wait_to_read()
            return
        with mx.autograd.record():
            out = loss(net(*xs), label)
        out.backward()
        trainer.step(batch)
        out.wait_to_read()

    def run(fns):
        def call():
            use(fns)
            step()
        return call
    try:
        for fns in (old_fns, new_fns):
            run(fns)()
        times, ratios = time_pair(run(old_fns), run(new_fns), rounds)
    finally:
        use(new_fns)
    return _row(f"{name} {mode}, batch {batch}", times, ratios)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="the other gluonlite tree (a checkout)")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--only", nargs="*", choices=sorted(CASES), default=sorted(CASES))
    ap.add_argument("--models", nargs="*", default=[],
                    help="model:batch:mode rows, e.g. resnet18_v1:1:train")
    args = ap.parse_args(argv)
    if not os.path.isdir(os.path.join(args.old, "gluonlite", "ops")):
        ap.error(f"--old {args.old!r}: no gluonlite/ops folder there")
    old = load_old(args.old)
    rng = np.random.default_rng(0)
    print("| case | old ms | new ms | new / old | range | results apart |")
    print("|---|---:|---:|---:|---|---:|")
    for group in args.only:
        module = {"pool": "pool_fast", "bn": "bn_fast"}.get(group, "conv_fast")
        for label, fn in CASES[group](rng):
            diff = _agree(fn(MODULES[module]), fn(old[module]))
            times, ratios = time_pair(lambda: fn(old[module]), lambda: fn(MODULES[module]),
                                      args.rounds)
            print(_row(label, times, ratios, f"{diff:.1e}"), flush=True)
    for spec in args.models:
        print(model_row(old, spec, max(3, args.rounds // 3)), flush=True)


if __name__ == "__main__":
    main()
