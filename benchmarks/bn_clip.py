"""BatchNorm -> clip (relu6) as one operator, ``_bn_clip``, against the two operators, on the
36 such layers of MobileNet v2 1.0 (224 x 224): forward and gradient of each, one thread,
CPU time, in interleaved rounds (each round alternates which variant goes first).

    PYTHONPATH=. python benchmarks/bn_clip.py [--batch 32] [--rounds 5]

Prints the summed medians, the per-round ratio fused / separate (median and range) and the
largest difference between the two variants' outputs and data gradients (0: the same bits). The
layers' shapes come from the model's graph (`_bench_models.build`), their data is random
(standard normal times 2, so that relu6 clips at both bounds).

Example:
    PYTHONPATH=. python benchmarks/bn_clip.py --batch 1 --rounds 15
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _bench_models as bm  # noqa: E402

import gluonlite as mx  # noqa: E402
from gluonlite.ops import registry  # noqa: E402
from gluonlite.ops.registry import RunCtx  # noqa: E402
from gluonlite.symbol.symbol import topo_nodes  # noqa: E402

BN, CLIP, FUSED = (registry.get(n) for n in ("BatchNorm", "clip", "_bn_clip"))
RC = RunCtx(True, np)
P_BN = BN.parse({"fix_gamma": False})[0]
P_CLIP = CLIP.parse({"a_min": 0, "a_max": 6})[0]
P_FUSED = FUSED.parse({"fix_gamma": False, "a_min": 0, "a_max": 6})[0]
NEED = (True, True, True)


def layer_shapes(batch):
    """The data shapes of MobileNet v2 1.0's BatchNorms that a clip reads, in graph order."""
    net, _ = bm.build(mx, "mobilenetv2_1.0", batch)
    y = net(mx.sym.var("data"))
    internals = y.get_internals()
    shapes = dict(zip(internals.list_outputs(),
                      internals.infer_shape(data=(batch, 3, 224, 224))[1]))
    return [shapes[n.inputs[0][0].name + "_output"] for n in topo_nodes(y.outputs)
            if n.op is CLIP and n.inputs[0][0].op is BN]


def separate(x, gamma, beta, mean, var, gy):
    """BatchNorm's fast paths, clip's rule: (output, data gradient)."""
    y, m, inv = BN.fast.kernel(P_BN, RC, x, gamma, beta, mean, var)
    z = CLIP.kernel(P_CLIP, RC, y)
    gz = CLIP.vjp(P_CLIP, RC, [y], [z], [gy], (True,))[0]
    return z, BN.fast.vjp(P_BN, RC, [x, gamma, beta, mean, var], [y, m, inv], [gz], NEED)[0]


def fused(x, gamma, beta, mean, var, gy):
    """``_bn_clip``'s fast paths: (output, data gradient)."""
    outs = FUSED.fast.kernel(P_FUSED, RC, x, gamma, beta, mean, var)
    return outs[0], FUSED.fast.vjp(P_FUSED, RC, [x, gamma, beta, mean, var], list(outs), [gy],
                                   NEED)[0]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    layers = []
    for s in layer_shapes(a.batch):
        c = s[1]
        layers.append(((rng.standard_normal(s) * 2).astype(np.float32),
                       np.ones(c, np.float32), np.ones(c, np.float32),
                       np.zeros(c, np.float32), np.ones(c, np.float32),
                       rng.standard_normal(s).astype(np.float32)))
    # the same numbers, bit for bit: the largest difference of the outputs and data gradients
    diff = max(float(np.abs(a - b).max()) for arrays in layers
               for a, b in zip(separate(*arrays), fused(*arrays)))
    times = {"separate": [], "fused": []}
    for r in range(a.rounds + 1):     # the first round warms up
        order = (("separate", separate), ("fused", fused))
        for name, f in (order if r % 2 else order[::-1]):
            t = time.process_time()
            for arrays in layers:
                f(*arrays)
            if r:
                times[name].append(time.process_time() - t)
    s, f = np.array(times["separate"]), np.array(times["fused"])
    ratio = f / s
    print(f"MobileNet v2 1.0, batch {a.batch}, {len(layers)} BatchNorm -> clip layers: "
          f"separate {np.median(s) * 1e3:.1f} ms, fused {np.median(f) * 1e3:.1f} ms; "
          f"fused / separate {np.median(ratio):.3f} ({ratio.min():.3f}-{ratio.max():.3f}, "
          f"{a.rounds} rounds); largest difference {diff:g}")


if __name__ == "__main__":
    main()
