"""JAX's rows of benchmarks/rnn_floor.py: a worker run under a JAX interpreter.

Run by rnn_floor.py as `$GLUONLITE_JAX_PYTHON benchmarks/jax_rnn_rows.py`; it never imports
gluonlite (it needs jax and numpy). The protocol is torch_rnn_rows.py's:

    {"op": "hello"}  -> {"ok": true, "jax": "0.4.x", "numpy": ..., "backend": "cpu"}
    {"op": "setup", "cell": "LSTMCell", "batch": 32, "seq_len": 100, "input_size": 512,
     "hidden_size": 512, "case": "/tmp/case.npz", "result": "/tmp/result.npz"}
                     -> {"ok": true, "names": [...], "skipped": {}}
    {"op": "round", "mode": "infer"|"train", "clock": "wall"|"cpu"} -> {"ok": true, "ms": {...}}
    {"op": "quit"}   -> exits

The row "jax lax.scan" is the cell (MXNet's equations and gate order, the case's parameters
as they are) scanned over time with `jax.lax.scan`, the input projection of every step
done as one product before the scan, compiled with `jax.jit`: infer is the forward; train
is `jax.value_and_grad` of the stacked outputs' sum with respect to the parameters, the
inputs and the initial states. Setup runs each mode once (compiling it) and writes the
outputs and gradients to the result file (as torch_rnn_rows.py does) for the parent to
check against the numpy floors. With OMP_NUM_THREADS=1 (rnn_floor.py's default) XLA runs
its CPU kernels on one thread too (XLA_FLAGS, unless already set).
"""
import os
import sys

if os.environ.get("OMP_NUM_THREADS") == "1":
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                                       "intra_op_parallelism_threads=1")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _rows_worker import serve, time_round  # noqa: E402

PARAMS = ("i2h_weight", "i2h_bias", "h2h_weight", "h2h_bias")


def _step(jnp, jax, cell, H):
    """The cell's step: (states, i2h_t) -> (states, h_t), h2h computed inside."""
    sig = jax.nn.sigmoid

    def step(carry, i2h, wh, bh):
        h = carry[0]
        h2h = h @ wh.T + bh
        if cell == "LSTMCell":
            g = i2h + h2h
            i, f, c, o = sig(g[:, :H]), sig(g[:, H:2 * H]), jnp.tanh(g[:, 2 * H:3 * H]), \
                sig(g[:, 3 * H:])
            c_new = f * carry[1] + i * c
            h_new = o * jnp.tanh(c_new)
            return (h_new, c_new), h_new
        if cell == "GRUCell":
            r = sig(i2h[:, :H] + h2h[:, :H])
            z = sig(i2h[:, H:2 * H] + h2h[:, H:2 * H])
            n = jnp.tanh(i2h[:, 2 * H:] + r * h2h[:, 2 * H:])
            h_new = (1 - z) * n + z * h
            return (h_new,), h_new
        h_new = jnp.tanh(i2h + h2h)
        return (h_new,), h_new
    return step


class Worker:
    """Holds the compiled scans of the current case and times them on request."""

    def __init__(self):
        import jax
        import jax.numpy as jnp
        import numpy
        self.jax, self.jnp, self.np = jax, jnp, numpy
        self.calls = {}

    def hello(self, _msg):
        return {"jax": self.jax.__version__, "numpy": self.np.__version__,
                "backend": self.jax.default_backend()}

    def setup(self, msg):
        jax, jnp, np = self.jax, self.jnp, self.np
        case = np.load(msg["case"])
        H = msg["hidden_size"]
        step = _step(jnp, jax, msg["cell"], H)
        n_states = sum(name.startswith("state") for name in case.files)

        def run(params, x, states):
            wi, bi, wh, bh = params
            i2h = jnp.einsum("tni,gi->tng", x, wi) + bi
            _, outs = jax.lax.scan(lambda c, a: step(c, a, wh, bh), tuple(states), i2h)
            return outs

        def loss(params, x, states):
            return run(params, x, states).sum()
        infer = jax.jit(run)
        train = jax.jit(jax.value_and_grad(loss, argnums=(0, 1, 2)))
        params = tuple(jnp.asarray(case[k]) for k in PARAMS)
        x = jnp.asarray(case["x"])
        states = tuple(jnp.asarray(case[f"state{i}"]) for i in range(n_states))

        def call_infer():
            return infer(params, x, states).block_until_ready()

        def call_train():
            value, grads = train(params, x, states)
            return jax.block_until_ready(grads)
        out_i = np.asarray(call_infer())
        out_t = np.asarray(run(params, x, states))
        gp, gx, gs = call_train()
        result = {"out_infer": out_i, "out_train": out_t, "grad_data": np.asarray(gx)}
        result.update({f"grad_state{i}": np.asarray(g) for i, g in enumerate(gs)})
        result.update({f"grad_{k}": np.asarray(g) for k, g in zip(PARAMS, gp)})
        tmp = msg["result"] + ".part.npz"
        np.savez(tmp, **result)
        os.replace(tmp, msg["result"])
        self.calls = {"jax lax.scan": {"infer": call_infer, "train": call_train}}
        return {"names": list(self.calls), "skipped": {}}

    def round(self, msg):
        return {"ms": time_round(self.calls, msg["mode"], msg.get("clock", "wall"))}


if __name__ == "__main__":
    sys.exit(serve(Worker, ("hello", "setup", "round"), "jax"))
