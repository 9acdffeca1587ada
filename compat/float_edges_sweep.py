"""Every operator of `mx.nd` at the edges of float arithmetic, on MXNet 1.9.1 and here.

    # once per side, with the python whose `import mxnet` is that side
    /work/venvs/compat/mx/bin/python compat/float_edges_sweep.py run /tmp/edges-mx.json
    /work/venvs/compat/gl/bin/python compat/float_edges_sweep.py run /tmp/edges-gl.json
    python3 compat/float_edges_sweep.py compare /tmp/edges-mx.json /tmp/edges-gl.json

`run` calls each one-input function of `mx.nd` (every public one that takes an array and
returns one of its shape) on NaN, the infinities, signed zeros and a few finite values,
float32 and float64; each `broadcast_*`/`elemwise_*` operator on every pair of those
(float32); each scalar operator with scalars 0, -0, 0.5, -1, 2 and the infinities; and the
same for `mx.np`'s elementwise functions (NP_UNARY, NP_BINARY: outputs only). It records
outputs and input gradients (a head of ones), or the error. `run` fails if the side
prints a RuntimeWarning (MXNet's kernels are silent at these points). `compare` prints
every output or gradient that differs beyond rtol 2e-6 (NaN equal to NaN), and what one
side raised where the other computed; it exits 1 where any differs.

tests/fixtures/make_float_edges.py holds the points gluonlite pins in its suite; the ones
this sweep still lists are in compat/RESULTS.md with the reason they are left.
"""
import itertools
import json
import sys
import warnings

NAN, INF = float("nan"), float("inf")
POINTS = [NAN, -INF, -1e30, -100.0, -2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, 100.0, 1e30,
          INF]
PAIR_VALUES = [NAN, -INF, -2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, INF, 1e30]
SCALARS = [0.0, -0.0, 0.5, -1.0, 2.0, INF, -INF]
SCALAR_OPS = ["_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar",
              "_div_scalar", "_rdiv_scalar", "_power_scalar", "_rpower_scalar",
              "_maximum_scalar", "_minimum_scalar", "_hypot_scalar", "_mod_scalar",
              "_rmod_scalar", "smooth_l1"]
NP_UNARY = ["abs", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "cbrt",
            "ceil", "cos", "cosh", "degrees", "exp", "expm1", "fix", "floor", "log", "log10",
            "log1p", "log2", "negative", "radians", "reciprocal", "rint", "round", "sign",
            "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc", "isnan", "isinf",
            "isfinite", "isposinf", "isneginf", "nan_to_num", "logical_not"]
NP_BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "mod", "remainder",
             "fmod", "power", "maximum", "minimum", "fmax", "fmin", "hypot", "arctan2",
             "copysign", "logaddexp", "floor_divide", "equal", "less", "greater"]
# creation, I/O, random and identity functions: nothing to sweep
_SKIP = ("Custom", "load", "save", "waitall", "empty", "zeros", "ones", "full", "arange",
         "array", "shuffle", "Dropout", "BlockGrad", "stop_gradient", "make_loss", "moments")


def _record(mx, f, *xs):
    """[output, gradient of each input] of f(*xs) as lists of floats (a head of ones)."""
    for x in xs:
        x.attach_grad()
    with mx.autograd.record():
        y = f(*xs)
    y.backward()
    return [y.asnumpy().astype("float64").tolist()] + [
        x.grad.asnumpy().astype("float64").tolist() for x in xs]


def _unary_functions(mx):
    for name in sorted(dir(mx.nd)):
        if name.startswith("_") or name in _SKIP or "random" in name or "sample" in name:
            continue
        f = getattr(mx.nd, name)
        if callable(f) and not isinstance(f, type):
            yield name, f


def run(mx):
    """{case: [output, gradients...] or the error's text} for every case of the sweep."""
    out = {}
    for name, f in _unary_functions(mx):
        for dt in ("float32", "float64"):
            x = mx.nd.array(POINTS, dtype=dt)
            try:
                if f(x).shape != x.shape:
                    break
                out[f"{name}/{dt}"] = _record(mx, f, mx.nd.array(POINTS, dtype=dt))
            except Exception:  # noqa: BLE001 - not a one-input function of an array
                break
    a, b = zip(*itertools.product(PAIR_VALUES, PAIR_VALUES))
    for name in sorted(dir(mx.nd)):
        if not name.startswith(("broadcast_", "elemwise_")) or name in (
                "broadcast_to", "broadcast_axis", "broadcast_axes", "broadcast_like"):
            continue
        try:
            out[name] = _record(mx, getattr(mx.nd, name), mx.nd.array(a), mx.nd.array(b))
        except Exception as e:  # noqa: BLE001 - recorded, compared with the other side's
            out[name] = f"{type(e).__name__}: {e}"[:120]
    for name in NP_UNARY:  # MXNet's NumPy dialect: outputs only
        for dt in ("float32", "float64"):
            try:
                y = getattr(mx.np, name)(mx.np.array(POINTS, dtype=dt))
                out[f"np.{name}/{dt}"] = [y.asnumpy().astype("float64").tolist()]
            except Exception as e:  # noqa: BLE001 - recorded, compared with the other side's
                out[f"np.{name}/{dt}"] = f"{type(e).__name__}: {e}"[:120]
    for name in NP_BINARY:
        try:
            y = getattr(mx.np, name)(mx.np.array(a), mx.np.array(b))
            out[f"np.{name}"] = [y.asnumpy().astype("float64").tolist()]
        except Exception as e:  # noqa: BLE001 - recorded, compared with the other side's
            out[f"np.{name}"] = f"{type(e).__name__}: {e}"[:120]
    for name in SCALAR_OPS:
        f = getattr(mx.nd._internal, name, None) or getattr(mx.nd, name)
        for s in SCALARS:
            try:
                out[f"{name}/{s}"] = _record(mx, lambda x: f(x, scalar=s),
                                             mx.nd.array(PAIR_VALUES))
            except Exception as e:  # noqa: BLE001 - recorded, compared with the other side's
                out[f"{name}/{s}"] = f"{type(e).__name__}: {e}"[:120]
    return out


def compare(ref, got):
    """Lines naming each case where `got` differs from `ref` (MXNet's)."""
    import numpy as np
    lines = []
    for case in sorted(set(ref) | set(got)):
        r, g = ref.get(case), got.get(case)
        if r is None or g is None:
            lines.append(f"{case}: only {'here' if r is None else 'on MXNet'}")
            continue
        if isinstance(r, str) or isinstance(g, str):
            if isinstance(r, str) != isinstance(g, str):
                lines.append(f"{case}: MXNet {r if isinstance(r, str) else 'computes'}; "
                             f"here {g if isinstance(g, str) else 'computes'}")
            continue
        labels = (PAIR_VALUES if len(r[0]) == len(PAIR_VALUES) else
                  POINTS if len(r[0]) == len(POINTS) else
                  list(itertools.product(PAIR_VALUES, PAIR_VALUES)))
        for part, u, v in zip(("output", "grad0", "grad1"), r, g):
            u, v = np.array(u), np.array(v)
            bad = ~np.isclose(u, v, rtol=2e-6, atol=1e-30, equal_nan=True)
            if bad.any():
                at = [f"{labels[i]}: {u[i]:.7g} vs {v[i]:.7g}" for i in np.flatnonzero(bad)]
                lines.append(f"{case} {part}: {len(at)} differ ({'; '.join(at[:4])})")
    return lines


def main(argv):
    """`run OUT.json` or `compare MXNET.json HERE.json`; returns the exit status."""
    if len(argv) == 2 and argv[0] == "run":
        import mxnet as mx
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RuntimeWarning)
            result = run(mx)
        with open(argv[1], "w", encoding="utf-8") as f:
            json.dump(result, f)
        print(f"{len(result)} cases -> {argv[1]}")
        loud = sorted({f"{w.filename}:{w.lineno}: {w.message}" for w in caught
                       if issubclass(w.category, RuntimeWarning)})
        for line in loud:
            print(f"RuntimeWarning {line}", file=sys.stderr)
        return 1 if loud else 0
    if len(argv) == 3 and argv[0] == "compare":
        with open(argv[1], encoding="utf-8") as f, open(argv[2], encoding="utf-8") as g:
            lines = compare(json.load(f), json.load(g))
        print("\n".join(lines) or "no differences")
        return 1 if lines else 0
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
