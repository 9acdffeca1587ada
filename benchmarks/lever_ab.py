"""One lever of a model, on and off, in one process: the in-process A/B of issue 42's passes.

    PYTHONPATH=. python benchmarks/lever_ab.py MODEL BATCH MODE MODULE:FLAG
        [--rounds 8] [--compiled]

The model (`_bench_models.py`: resnet18_v1, resnet50_v1, mobilenet0.25, mobilenetv2_1.0,
vgg11_bn, dcgan_g, bert_base, lstm_lm), hybridized with static_alloc and static_shape, and
its call (MODE ``infer``: one forward; ``train``: forward, loss, backward and an SGD step with
momentum) timed in interleaved rounds (each round starts with the other variant) with the
module attribute MODULE.FLAG set to True ("on") and to False ("off"), on one thread, CPU
time. The same weights and inputs for both.

A flag read on every call (``gluonlite.ops.conv_shifted:ENABLED``) is switched around each
call of one network. A flag read when a plan compiles (``gluonlite.executor.bn_relu:RESIDUAL``,
a graph pass) needs ``--compiled``: two networks with the same weights, each compiled with
the flag in its state, called alternately.

Prints the medians, their spreads, and the ratio on / off per round: median and range (below
1, the lever helps). Separate processes per variant (`models.py --ab`) see different memory
layouts and schedules; on a shared machine their ratios drift by more than a few percent, so
the levers' small ratios are measured here.

Example:
    PYTHONPATH=. python benchmarks/lever_ab.py resnet18_v1 32 train \\
        gluonlite.executor.bn_relu:RESIDUAL --compiled
"""
import argparse
import importlib
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import interleaved, median  # noqa: E402

import numpy as np  # noqa: E402

import _bench_models as bm  # noqa: E402
from models import _gluonlite_call, _make_inputs  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", choices=bm.MODELS)
    ap.add_argument("batch", type=int)
    ap.add_argument("mode", choices=("infer", "train"))
    ap.add_argument("switch", help="MODULE:FLAG, a module attribute that turns the lever on")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--compiled", action="store_true",
                    help="the flag is read when a plan compiles: two networks")
    a = ap.parse_args(argv)
    modname, _, flag = a.switch.partition(":")
    try:
        module = importlib.import_module(modname)
    except ImportError as e:
        ap.error(f"switch {a.switch!r}: cannot import {modname!r} ({e})")
    if not hasattr(module, flag):
        ap.error(f"switch {a.switch!r}: {modname} has no attribute {flag!r}")
    xs, label = _make_inputs(a.model, a.batch, np.random.default_rng(0))
    saved = getattr(module, flag)

    def setting(on, fn):
        def run():
            setattr(module, flag, on)
            fn()
        return run

    try:
        if a.compiled:
            calls = {}
            for on in (True, False):
                setattr(module, flag, on)
                calls[on] = _gluonlite_call(a.model, a.mode, a.batch, xs, label)[0]
                calls[on]()            # compiled now, with the flag in this state
            variants = {"on": setting(True, calls[True]), "off": setting(False, calls[False])}
        else:
            call = _gluonlite_call(a.model, a.mode, a.batch, xs, label)[0]
            variants = {"on": setting(True, call), "off": setting(False, call)}
        times = interleaved(variants, rounds=a.rounds, warmup=1, clock=time.process_time)
    finally:
        setattr(module, flag, saved)
    ratios = [x / y for x, y in zip(times["on"], times["off"])]
    spread = {k: 100 * (max(v) - min(v)) / median(v) for k, v in times.items()}
    print(f"{a.model} {a.mode} batch {a.batch}, {a.switch}: on {median(times['on']):.1f} ms "
          f"±{spread['on']:.0f}%, off {median(times['off']):.1f} ms ±{spread['off']:.0f}%; "
          f"on / off {median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}, "
          f"{a.rounds} rounds)")


if __name__ == "__main__":
    sys.exit(main())
