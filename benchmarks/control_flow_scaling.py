"""Control-flow scaling: a symbolic while_loop LSTM.

1. Trace-and-compile time and JSON size for seq_len 10, 100, 1000: the graph holds the body
   once, so neither should grow. Measured as: build the symbol (trace), compile the outer
   plan, and run it once with the loop condition false at entry (which compiles the cond and
   func body plans but runs no step).
2. Per-step time of the loop node (inference, static-alloc body plan) vs a hand-written numpy
   LSTM step with preallocated buffers (the floor), at batch 1 and 32.

Run: python benchmarks/control_flow_scaling.py [--hidden 64] [--input 32] [--seq 200]
"""
import argparse
import time

import numpy as np

import gluonlite.control_flow  # noqa: F401
from gluonlite import sym
from gluonlite.executor.plan import compile_plan


def lstm_loop_symbol(seq_len, n_in, hidden):
    """A while_loop over `seq_len` steps of an LSTM cell reading data[i]."""
    data, i, h, c = sym.var("data"), sym.var("i"), sym.var("h"), sym.var("c")
    wi, wh, b = sym.var("wi"), sym.var("wh"), sym.var("b")

    def func(i, h, c):
        x = sym.reshape(sym.take(data, i), shape=(-3, -2))   # (1, N, I) -> (N, I)
        g = sym.FullyConnected(x, wi, b, num_hidden=4 * hidden) + \
            sym.FullyConnected(h, wh, no_bias=True, num_hidden=4 * hidden)
        ig, fg, cc, og = sym.split(g, num_outputs=4, axis=1)
        c2 = sym.sigmoid(fg) * c + sym.sigmoid(ig) * sym.tanh(cc)
        h2 = sym.sigmoid(og) * sym.tanh(c2)
        return [h2], [i + 1, h2, c2]
    outs, states = sym.contrib.while_loop(lambda i, h, c: i < seq_len, func, [i, h, c],
                                          max_iterations=seq_len)
    return sym.Group(outs + states[1:])


def make_args(seq_len, batch, n_in, hidden, i0, rng):
    return {"data": rng.randn(seq_len, batch, n_in).astype(np.float32),
            "i": np.array([i0], np.float32), "h": np.zeros((batch, hidden), np.float32),
            "c": np.zeros((batch, hidden), np.float32),
            "wi": rng.randn(4 * hidden, n_in).astype(np.float32) * 0.1,
            "wh": rng.randn(4 * hidden, hidden).astype(np.float32) * 0.1,
            "b": np.zeros(4 * hidden, np.float32)}


def compile_for(g, args):
    names = g.list_inputs()
    plan = compile_plan(g, [args[n].shape for n in names], [args[n].dtype for n in names],
                        static_alloc=True)
    return plan, [args[n] for n in names]


def trace_and_compile(seq_len, n_in, hidden, rng):
    t0 = time.perf_counter()
    g = lstm_loop_symbol(seq_len, n_in, hidden)
    t1 = time.perf_counter()
    args = make_args(seq_len, 1, n_in, hidden, seq_len, rng)   # cond false at entry
    plan, arr = compile_for(g, args)
    plan.forward(arr)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, len(g.tojson())


def numpy_floor(seq_len, args, hidden):
    """A hand-written LSTM over seq_len steps with preallocated buffers."""
    data, wi, wh, b = args["data"], args["wi"], args["wh"], args["b"]
    h, c = args["h"].copy(), args["c"].copy()
    out = np.empty((seq_len,) + h.shape, np.float32)
    g = np.empty((h.shape[0], 4 * hidden), np.float32)
    tmp = np.empty_like(g)
    wit, wht = wi.T.copy(), wh.T.copy()
    H = hidden
    for t in range(seq_len):
        np.dot(data[t], wit, out=g)
        np.dot(h, wht, out=tmp)
        g += tmp
        g += b
        np.negative(g[:, :2 * H], out=g[:, :2 * H])
        np.exp(g[:, :2 * H], out=g[:, :2 * H])
        g[:, :2 * H] += 1
        np.reciprocal(g[:, :2 * H], out=g[:, :2 * H])
        np.tanh(g[:, 2 * H:3 * H], out=g[:, 2 * H:3 * H])
        o = 1 / (1 + np.exp(-g[:, 3 * H:]))
        c *= g[:, H:2 * H]
        c += g[:, :H] * g[:, 2 * H:3 * H]
        np.tanh(c, out=h)
        h *= o
        out[t] = h
    return out, h, c


def best_of(f, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--input", type=int, default=32)
    ap.add_argument("--seq", type=int, default=200, help="steps for the per-step timing")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    rng = np.random.RandomState(0)
    print("trace-and-compile (symbolic while_loop LSTM)")
    print(f"{'seq_len':>8} {'trace ms':>9} {'compile ms':>11} {'json bytes':>11}")
    for n in (10, 100, 1000):
        res = [trace_and_compile(n, a.input, a.hidden, rng) for _ in range(a.repeat)]
        tr, co, size = min(r[0] for r in res), min(r[1] for r in res), res[0][2]
        print(f"{n:>8} {tr * 1e3:>9.2f} {co * 1e3:>11.2f} {size:>11}")
    print(f"\nper-step time, seq_len {a.seq}, hidden {a.hidden}, input {a.input} (inference)")
    print(f"{'batch':>6} {'loop node us':>13} {'numpy us':>9} {'ratio':>6}")
    g = lstm_loop_symbol(a.seq, a.input, a.hidden)
    for batch in (1, 32):
        args = make_args(a.seq, batch, a.input, a.hidden, 0, rng)
        plan, arr = compile_for(g, args)
        outs, _ = plan.forward(arr)
        ref = numpy_floor(a.seq, args, a.hidden)
        np.testing.assert_allclose(outs[0], ref[0], rtol=1e-4, atol=1e-5)
        t_loop = best_of(lambda: plan.forward(arr), a.repeat) / a.seq
        t_np = best_of(lambda: numpy_floor(a.seq, args, a.hidden), a.repeat) / a.seq
        print(f"{batch:>6} {t_loop * 1e6:>13.1f} {t_np * 1e6:>9.1f} {t_loop / t_np:>6.1f}")


if __name__ == "__main__":
    main()
