"""Compiled plans vs imperative vs a hand-written numpy floor: a 3-layer MLP and one LSTM
cell step, inference, at kernel-bound and dispatch-bound sizes.

    PYTHONPATH=. python benchmarks/compiled_mlp_lstm.py [--rounds 15] [--calls 50]

For each model, per call: median time of imperative `nd` code, `CachedOp` (what hybridize
runs), `CachedOp(static_alloc=True)`, and numpy with preallocated buffers (the floor), with
ratios to the floor; and the peak bytes one steady-state call allocates (tracemalloc).
Variants run interleaved round by round so that load on the machine hits them alike. BLAS
runs single-threaded (OPENBLAS_NUM_THREADS=1 etc.) so the numbers measure our overhead, not
thread scheduling on a shared box. The floor multiplies by ``W.T`` as the graph does
(OpenBLAS is ~1.5x faster on a pre-transposed contiguous copy; that is a layout choice, not
overhead).
"""
import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402

import numpy as np  # noqa: E402

from gluonlite import nd, sym  # noqa: E402
from gluonlite.executor import CachedOp  # noqa: E402


# ---- the 3-layer MLP ---------------------------------------------------------------------
def mlp_case(batch=32, n_in=128, hidden=256, n_out=10):
    """(name, {variant: zero-arg callable}, check) for the MLP."""
    rng = np.random.default_rng(0)
    dims = [(hidden, n_in), (hidden, hidden), (n_out, hidden)]
    W = [rng.standard_normal(d).astype(np.float32) * 0.1 for d in dims]
    B = [rng.standard_normal(d[0]).astype(np.float32) * 0.1 for d in dims]
    xv = rng.standard_normal((batch, n_in)).astype(np.float32)

    x = sym.var("x")
    h = x
    for i, (o, _) in enumerate(dims):
        h = sym.FullyConnected(h, num_hidden=o, name=f"fc{i}")
        if i < 2:
            h = sym.relu(h)
    vals = {"x": xv, **{f"fc{i}_weight": W[i] for i in range(3)},
            **{f"fc{i}_bias": B[i] for i in range(3)}}

    x_nd, W_nd, B_nd = nd.array(xv), [nd.array(w) for w in W], [nd.array(b) for b in B]

    def imperative():
        h = x_nd
        for i in range(3):
            h = nd.FullyConnected(h, W_nd[i], B_nd[i], num_hidden=dims[i][0])
            if i < 2:
                h = nd.relu(h)
        return h

    bufs = [np.empty((batch, d[0]), np.float32) for d in dims]
    WT = [w.T for w in W]  # the weight layout the graph has (see README: BLAS layout)

    def floor():
        h = xv
        for i in range(3):
            np.matmul(h, WT[i], out=bufs[i])
            bufs[i] += B[i]
            if i < 2:
                np.maximum(bufs[i], 0, out=bufs[i])
            h = bufs[i]
        return h

    return (f"MLP 3 layers (batch {batch}, {n_in}-{hidden}-{hidden}-{n_out})", h, vals,
            imperative, floor)


# ---- one LSTM cell step ------------------------------------------------------------------
def lstm_case(batch=32, n_in=128, hidden=256):
    """One LSTMCell step (gates i, f, g, o as in MXNet) as a Symbol."""
    rng = np.random.default_rng(1)
    H = hidden
    vals = {"x": rng.standard_normal((batch, n_in)), "h": rng.standard_normal((batch, H)),
            "c": rng.standard_normal((batch, H)),
            "i2h_weight": rng.standard_normal((4 * H, n_in)) * 0.1,
            "i2h_bias": rng.standard_normal(4 * H) * 0.1,
            "h2h_weight": rng.standard_normal((4 * H, H)) * 0.1,
            "h2h_bias": rng.standard_normal(4 * H) * 0.1}
    vals = {k: v.astype(np.float32) for k, v in vals.items()}

    def cell(F, x, h, c, wi, bi, wh, bh):
        gates = F.FullyConnected(x, wi, bi, num_hidden=4 * H) + \
            F.FullyConnected(h, wh, bh, num_hidden=4 * H)
        i, f, g, o = F.split(gates, num_outputs=4, axis=1)
        c2 = F.sigmoid(f) * c + F.sigmoid(i) * F.tanh(g)
        return F.sigmoid(o) * F.tanh(c2), c2

    names = ["x", "h", "c", "i2h_weight", "i2h_bias", "h2h_weight", "h2h_bias"]
    out = sym.Group(list(cell(sym, *[sym.var(n) for n in names])))
    nds = [nd.array(vals[n]) for n in names]

    def imperative():
        return cell(nd, *nds)

    x, h, c = vals["x"], vals["h"], vals["c"]
    WiT, WhT = vals["i2h_weight"].T, vals["h2h_weight"].T
    bias = vals["i2h_bias"] + vals["h2h_bias"]
    gates, tmp = np.empty((batch, 4 * H), np.float32), np.empty((batch, 4 * H), np.float32)
    c2, h2, t = (np.empty((batch, H), np.float32) for _ in range(3))

    def sigmoid_(v):
        np.negative(v, out=v)
        np.exp(v, out=v)
        np.add(v, 1, out=v)
        np.reciprocal(v, out=v)

    def floor():
        np.matmul(x, WiT, out=gates)
        np.matmul(h, WhT, out=tmp)
        np.add(gates, tmp, out=gates)
        np.add(gates, bias, out=gates)
        sigmoid_(gates[:, :2 * H])       # input and forget gates
        sigmoid_(gates[:, 3 * H:])       # output gate
        i, f, g, o = (gates[:, k * H:(k + 1) * H] for k in range(4))
        np.tanh(g, out=g)
        np.multiply(f, c, out=c2)
        np.multiply(i, g, out=t)
        np.add(c2, t, out=c2)
        np.tanh(c2, out=h2)
        np.multiply(h2, o, out=h2)
        return h2, c2

    return (f"LSTM cell step (batch {batch}, input {n_in}, hidden {hidden})", out, vals,
            imperative, floor)


# ---- measuring ---------------------------------------------------------------------------
def _variants(symbol, vals, imperative, floor):
    plain = CachedOp(symbol)
    static = CachedOp(symbol, static_alloc=True)
    args = [nd.array(vals[n]) for n in plain.input_names]
    return {"imperative (nd)": imperative,
            "CachedOp": lambda: plain(*args),
            "CachedOp(static_alloc)": lambda: static(*args),
            "numpy floor": floor}


def _as_np(r):
    if isinstance(r, (list, tuple)):
        return [_as_np(x) for x in r]
    return r.asnumpy() if hasattr(r, "asnumpy") else np.array(r)


def _check(variants):
    outs = {k: _as_np(f()) for k, f in variants.items()}
    ref = outs["imperative (nd)"]
    ref = ref if isinstance(ref, list) else [ref]
    for k, o in outs.items():
        o = o if isinstance(o, list) else [o]
        for a, b in zip(o, ref):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4, err_msg=k)


def _time(variants, rounds, calls):
    per = {k: [] for k in variants}
    for _ in range(rounds):
        for k, f in variants.items():
            t0 = time.perf_counter()
            for _ in range(calls):
                f()
            per[k].append((time.perf_counter() - t0) / calls)
    return {k: statistics.median(v) for k, v in per.items()}


def _peak_bytes(f, calls=20):
    """Median over calls of the peak memory (bytes) allocated during one call."""
    f()
    f()
    tracemalloc.start()
    peaks = []
    for _ in range(calls):
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        f()
        peaks.append(tracemalloc.get_traced_memory()[1] - base)
    tracemalloc.stop()
    return int(statistics.median(peaks))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--calls", type=int, default=50)
    a = ap.parse_args(argv)
    cases = [mlp_case(), lstm_case(),   # kernel-bound sizes
             # dispatch-bound sizes: the kernels take ~1 µs, what is left is our overhead
             mlp_case(batch=1, n_in=8, hidden=8, n_out=4), lstm_case(batch=1, n_in=8, hidden=8)]
    for title, symbol, vals, imperative, floor in cases:
        variants = _variants(symbol, vals, imperative, floor)
        _check(variants)
        times = _time(variants, a.rounds, a.calls)
        base = times["numpy floor"]
        print(f"\n{title}")
        print("| variant | µs/call (median) | ratio to floor | peak bytes allocated/call |")
        print("|---|---:|---:|---:|")
        for k, t in times.items():
            print(f"| {k} | {t * 1e6:.1f} | {t / base:.2f} | {_peak_bytes(variants[k])} |")


if __name__ == "__main__":
    main()
