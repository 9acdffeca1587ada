"""MXNet 1.9.1's rows of benchmarks/rnn_floor.py: a worker run under an MXNet interpreter.

Run by rnn_floor.py as `$GLUONLITE_MXNET_PYTHON benchmarks/mxnet_rnn_rows.py`; it never
imports gluonlite. It reads one JSON object per line on stdin and answers one JSON line
on stdout (anything else MXNet prints goes to stderr):

    {"op": "hello"}                         -> {"ok": true, "mxnet": "1.9.1", "numpy": ..., "features": [...]}
    {"op": "setup", "cell": "LSTMCell", "batch": 32, "seq_len": 100, "input_size": 512,
     "hidden_size": 512, "layers": [["imperative", "foreach"], ...], "seed": 0}
                                            -> {"ok": true, "names": [...]}  (each layer ran once)
    {"op": "round", "mode": "infer"|"train"} -> {"ok": true, "ms": {name: ms, ...}}
    {"op": "quit"}                          -> exits

The layers are the seed benchmark's ForeachRNN and WhileRNN (foreach over axis 0;
while_loop with loop vars [i, *states], `inputs.take(i)`, max_iterations = seq_len);
"hybrid" means hybridize(static_alloc=True). Train is forward under
autograd.record() plus backward of the outputs (the gradient of their sum) into the
parameters, the inputs and the initial states; every timer stops after nd.waitall().
Errors are answered as {"ok": false, "error": "..."}.
"""  # noqa: E501 -- the protocol table's "hello" row is kept on one line
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _rows_worker import serve, time_round  # noqa: E402


def _layers():
    from mxnet import gluon

    class ForeachRNN(gluon.HybridBlock):
        """The seed's foreach layer."""

        def __init__(self, cell, length, prefix=None, params=None):
            super().__init__(prefix=prefix, params=params)
            self.length = length
            self.cell = cell

        def hybrid_forward(self, F, inputs, states):
            out, _ = F.contrib.foreach(self.cell, inputs, states)
            return out

    class WhileRNN(gluon.HybridBlock):
        """The seed's while_loop layer."""

        def __init__(self, cell, length, prefix=None, params=None):
            super().__init__(prefix=prefix, params=params)
            self.length = length
            self.cell = cell

        def hybrid_forward(self, F, inputs, states):
            def _func(*states):
                i = states[0]
                data = inputs.take(i).squeeze(axis=0)
                out, new_s = self.cell(data, list(states[1:]))
                return out, [i + 1] + list(new_s)
            out, _ = F.contrib.while_loop(cond=lambda i, *_: i < self.length, func=_func,
                                          loop_vars=states, max_iterations=self.length)
            return out   # MXNet 1.9.1 returns one array for a step's one output

    return {"foreach": ForeachRNN, "while_loop": WhileRNN}


class Worker:
    """Holds the layers of the current case and times them on request."""

    def __init__(self):
        import mxnet
        self.mx = mxnet
        self.loops = _layers()
        self.calls = {}

    def hello(self, _msg):
        import numpy
        try:
            feats = [f.name for f in self.mx.runtime.Features().values() if f.enabled]
        except Exception as exc:  # noqa: BLE001 - only a description for the header
            feats = [f"unavailable: {exc}"]
        return {"mxnet": self.mx.__version__, "numpy": numpy.__version__, "features": feats}

    def setup(self, msg):
        mx, nd, autograd, gluon = self.mx, self.mx.nd, self.mx.autograd, self.mx.gluon
        T, N, I, H = msg["seq_len"], msg["batch"], msg["input_size"], msg["hidden_size"]
        cell_type = getattr(gluon.rnn, msg["cell"])
        mx.random.seed(msg.get("seed", 0))
        x = nd.random.normal(loc=0.0, scale=1.0, shape=(T, N, I))
        x.attach_grad()
        states = [nd.random.normal(loc=0.0, scale=1.0, shape=(N, H))
                  for _ in cell_type(H).state_info()]
        for s in states:
            s.attach_grad()
        self.calls = {}
        for kind, loop in msg["layers"]:
            layer = self.loops[loop](cell_type(H, input_size=I), T)
            layer.initialize()
            if kind == "hybrid":
                layer.hybridize(static_alloc=True)
            st = ([nd.zeros((1,))] if loop == "while_loop" else []) + states
            name = f"mxnet {kind} {loop}"
            self.calls[name] = self._calls(layer, x, st, autograd, nd)
            for mode in ("infer", "train"):
                self.calls[name][mode]()  # trace/compile and warm up
        return {"names": list(self.calls)}

    @staticmethod
    def _calls(layer, x, states, autograd, nd):
        def infer():
            layer(x, states)
            nd.waitall()

        def train():
            with autograd.record():
                out = layer(x, states)
            out.backward()
            nd.waitall()
        return {"infer": infer, "train": train}

    def round(self, msg):
        return {"ms": time_round(self.calls, msg["mode"])}


if __name__ == "__main__":
    sys.exit(serve(Worker, ("hello", "setup", "round"), "mxnet"))
