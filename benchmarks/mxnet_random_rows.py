"""MXNet 1.9.1's rows of benchmarks/random_draws.py: a worker run under an MXNet interpreter
(`$GLUONLITE_MXNET_PYTHON benchmarks/mxnet_random_rows.py`); it never imports gluonlite. One
JSON object per line each way (protocol: `_rows_worker.py`):

    {"op": "hello"}                           -> {"ok": true, "mxnet": "1.9.1", "numpy": ...}
    {"op": "setup", "case": k, "scale": s}    -> {"ok": true, "names": ["mxnet"]}
    {"op": "round", "mode": "run"}            -> {"ok": true, "ms": {"mxnet": ms}}
    {"op": "quit"}                            -> exits

Case k of `CASES` draws from MXNet's generators after ``mx.random.seed(0)`` (set once at
setup; each call goes on from where the last one left them), and stops the timer after
``nd.waitall()``. The same code makes gluonlite's calls (`make_call`).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _rows_worker import CaseWorker, serve  # noqa: E402

# (name, function under mx, its keyword arguments; a value that is a (numpy) tuple
# ("array", kind, n) becomes an NDArray of n parameters of that kind); sizes as drawn at
# scale 1. Draws of one value are timed 200 to a call (`REPEAT`), and reported per draw.
CASES = [
    ("nd.random.uniform, 1 value", "nd.random.uniform", {"shape": (1,)}),
    ("nd.random.normal, 1 value", "nd.random.normal", {"shape": (1,)}),
    ("np.random.normal, 1 value (set_np)", "np.random.normal", {"size": (1,)}),
    ("nd.random.uniform, 10 000 values", "nd.random.uniform", {"shape": (10000,)}),
    ("nd.random.normal, 10 000 values", "nd.random.normal", {"shape": (10000,)}),
    ("nd.random.uniform, 1 million values", "nd.random.uniform", {"shape": (1 << 20,)}),
    ("nd.random.normal, 1 million values", "nd.random.normal", {"shape": (1 << 20,)}),
    ("Dropout(0.5) in training, 3 million values", "Dropout", {"shape": (3 << 20,)}),
    ("Dropout(0.5) in training, 24 576 values (a small transformer layer's)", "Dropout",
     {"shape": (64, 12, 32)}),
    ("nd.random.gamma, a shape per value, 9600 values", "nd.random.gamma",
     {"alpha": ("array", "shape", 9600), "beta": ("array", "ones", 9600)}),
    ("nd.random.poisson, a rate per value, 8192 values", "nd.random.poisson",
     {"lam": ("array", "rate", 8192)}),
    ("nd.random.poisson, a rate per value, 800 values (a DeepAR forecast step's)",
     "nd.random.poisson", {"lam": ("array", "rate", 800)}),
    ("nd.random.normal, 23 million values (BERT's embedding)", "nd.random.normal",
     {"shape": (23440896,)}),
    ("np.random.uniform, 103 million values (VGG's Dense, set_np)", "np.random.uniform",
     {"size": (102760448,)}),
]


REPEAT = 200  # draws a timed call makes of a one-value case


def repeats(k):
    """How many draws one timed call of case k makes (the table divides by it)."""
    return REPEAT if "1 value" in CASES[k][0] else 1


def _parameters(kind, n):
    """n parameters of a kind, the same numbers on both sides."""
    import numpy as np
    rs = np.random.RandomState(0)
    if kind == "shape":  # Student-t's gamma shapes: 1 + softplus(N(0, 1))
        return (1 + np.log1p(np.exp(rs.standard_normal(n)))).astype("float32")
    if kind == "rate":
        return rs.gamma(2.0, 6.0, n).astype("float32")
    return np.ones(n, "float32")


def _scaled(v, scale):
    return tuple(max(1, round(d * scale)) for d in v)


def make_call(mx, k, scale=1.0):
    """A zero-arg callable making case k's draw `repeats(k)` times under `mx` (mxnet or
    gluonlite), at `scale` of its size."""
    _, path, kwargs = CASES[k]
    reps = range(repeats(k))
    kw = {}
    for key, v in kwargs.items():
        if isinstance(v, tuple) and v and v[0] == "array":
            kw[key] = mx.nd.array(_parameters(v[1], max(1, round(v[2] * scale))))
        else:
            kw[key] = _scaled(v, scale)
    np_semantics = path.startswith("np.")
    if path == "Dropout":
        data = mx.nd.ones(kw.pop("shape"))

        def call():
            with mx.autograd.train_mode():
                for _ in reps:
                    out = mx.nd.Dropout(data, p=0.5)
            mx.nd.waitall()
            return out
        return call
    fn = mx
    for part in path.split("."):
        fn = getattr(fn, part)

    def call():
        if np_semantics:
            mx.npx.set_np()
        try:
            for _ in reps:
                out = fn(**kw)
            mx.nd.waitall()
        finally:
            if np_semantics:
                mx.npx.reset_np()
        return out
    return call


def _setup_call(mx, msg):
    """The worker's call of a setup request: seeded once, then drawing on."""
    mx.random.seed(0)
    return make_call(mx, msg["case"], msg.get("scale", 1.0))


if __name__ == "__main__":
    sys.exit(serve(lambda: CaseWorker(_setup_call), CaseWorker.OPS, "mxnet"))
