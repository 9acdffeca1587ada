"""How MXNet 1.9.1's CPU build computes float32 math functions and activations, and how many
of gluonlite's values are its values bit for bit.

MXNet's elementwise math operators on float32 data call the C library's float functions
(``tanhf``, ``sinf``, ``log1pf``, ...); ``Activation`` (sigmoid, tanh, softrelu) and
``LeakyReLU`` (elu, selu, gelu) go to oneDNN's own approximations. Two steps, one per
interpreter:

    /path/to/mxnet-python compat/float32_math.py make --out f32math.npz
    python compat/float32_math.py compare f32math.npz

``make`` draws each operator's inputs (65536 float32 values over a range the function
lives on, seeded), records MXNet's outputs, and for the math operators the C library's own
function of each input (ctypes), so the table shows whether MXNet's values are the C
library's. ``compare`` runs gluonlite on the same inputs and prints one row an operator:
MXNet's agreement with the C library, gluonlite's with MXNet, and the largest relative
difference.
"""
import argparse
import ctypes
import os

import numpy as np

N = 1 << 16
# operator: (the C library's float function, or None; low, high of the inputs)
MATH = {"exp": ("expf", -20, 20), "log": ("logf", 0, 10), "tanh": ("tanhf", -10, 10),
        "sin": ("sinf", -10, 10), "cos": ("cosf", -10, 10), "tan": ("tanf", -1.5, 1.5),
        "log1p": ("log1pf", -0.9, 10), "expm1": ("expm1f", -10, 10),
        "sinh": ("sinhf", -10, 10), "cosh": ("coshf", -10, 10), "arctan": ("atanf", -10, 10),
        "arcsin": ("asinf", -1, 1), "arccos": ("acosf", -1, 1), "cbrt": ("cbrtf", -10, 10),
        "log2": ("log2f", 0, 10), "log10": ("log10f", 0, 10), "erf": ("erff", -3, 3),
        "arctanh": ("atanhf", -1, 1), "arcsinh": ("asinhf", -10, 10),
        "arccosh": ("acoshf", 1, 10), "gamma": ("tgammaf", 0.1, 10),
        "gammaln": ("lgammaf", 0.1, 10), "sigmoid": (None, -20, 20), "rsqrt": (None, 0, 10),
        "rcbrt": (None, 0.1, 10), "erfinv": (None, -0.999, 0.999), "sqrt": (None, 0, 10)}
ACTIVATION = ("sigmoid", "tanh", "softrelu", "softsign")
LEAKY = ("elu", "selu", "gelu")


def inputs(name, lo, hi):
    seed = sum(map(ord, name))
    return np.random.default_rng(seed).uniform(lo, hi, N).astype(np.float32)


def calls(mx):
    """[(row label, the C function or None, inputs, function of an NDArray)]."""
    rows = [(f"nd.{op}", cf, inputs(op, lo, hi), getattr(mx.nd, op))
            for op, (cf, lo, hi) in MATH.items()]
    for act in ACTIVATION:
        rows.append((f"Activation({act})", None, inputs("act" + act, -20, 20),
                     lambda a, t=act: mx.nd.Activation(a, act_type=t)))
    for act in LEAKY:
        rows.append((f"LeakyReLU({act})", None, inputs("leaky" + act, -10, 10),
                     lambda a, t=act: mx.nd.LeakyReLU(a, act_type=t)))
    return rows


def make(out):
    import mxnet as mx
    libm = ctypes.CDLL("libm.so.6")
    ref = {}
    for label, cf, x, f in calls(mx):
        ref[label] = f(mx.nd.array(x)).asnumpy()
        if cf:
            fn = getattr(libm, cf)
            fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
            ref[label + " libm"] = np.fromiter(map(fn, x.tolist()), np.float32, N)
    tmp = out + ".tmp.npz"
    np.savez_compressed(tmp, **ref)
    os.replace(tmp, out)


def _same(a, b):
    return (a == b) | (np.isnan(a) & np.isnan(b))


def compare(path):
    import gluonlite as mx
    ref = np.load(path)
    print("| operator | C function | MXNet = C library | gluonlite = MXNet | largest relative "
          "difference |")
    print("|---|---|---:|---:|---:|")
    for label, cf, x, f in calls(mx):
        want = ref[label]
        with np.errstate(all="ignore"):
            got = f(mx.nd.array(x)).asnumpy()
            rel = np.abs(got.astype(np.float64) - want) / np.maximum(np.abs(want), 1e-30)
        libm = (f"{100 * _same(want, ref[label + ' libm']).mean():.2f}%" if cf else "-")
        print(f"| {label} | {cf or '-'} | {libm} | {100 * _same(got, want).mean():.2f}% | "
              f"{np.nanmax(np.where(_same(got, want), 0, rel)):.2g} |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make", help="on MXNet's interpreter: record MXNet's outputs")
    m.add_argument("--out", default="f32math.npz")
    c = sub.add_parser("compare", help="on gluonlite's: the table")
    c.add_argument("path")
    a = ap.parse_args(argv)
    if a.cmd == "make":
        make(a.out)
    else:
        compare(a.path)


if __name__ == "__main__":
    main()
