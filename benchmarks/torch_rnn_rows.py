"""PyTorch's rows of benchmarks/rnn_floor.py: a worker run under a PyTorch interpreter.

Run by rnn_floor.py as `$GLUONLITE_TORCH_PYTHON benchmarks/torch_rnn_rows.py`; it never
imports gluonlite (it needs torch and numpy). The protocol is mxnet_rnn_rows.py's, one JSON
object per line each way:

    {"op": "hello"}  -> {"ok": true, "torch": "2.13.0+cpu", "numpy": ..., "threads": 1}
    {"op": "setup", "cell": "LSTMCell", "batch": 32, "seq_len": 100, "input_size": 512,
     "hidden_size": 512, "case": "/tmp/case.npz", "result": "/tmp/result.npz"}
                     -> {"ok": true, "names": [...], "skipped": {name: reason}}
    {"op": "round", "mode": "infer"|"train"[, "names": [...]]} -> {"ok": true, "ms": {name: ms}}
    {"op": "quit"}   -> exits

The rows are the loop PyTorch users write around a cell (`torch.nn.LSTMCell`, `GRUCell`,
`RNNCell`; MXNet's gate order and equations, so the case's parameters load as they are):
"pytorch eager cell loop", and the same module compiled by `torch.jit.script`
("pytorch torchscript cell loop"; skipped, with the reason, where scripting fails); and
PyTorch's fused one-layer layer (`torch.nn.LSTM`, `GRU`, `RNN` with tanh) on the same
parameters ("pytorch fused layer"), whose outputs and gradients are checked against the
eager cell loop's here (the row is skipped, with the largest difference, if they differ). The
case file holds the inputs, initial states and cell parameters of the gluonlite case
(x, state0[, state1], i2h_weight, i2h_bias, h2h_weight, h2h_bias); setup runs the eager
loop once in each mode and writes its outputs and gradients to the result file (out_infer,
out_train, grad_data, grad_state0[, grad_state1], grad_<param>) for the parent to check
against the numpy floor. Infer runs under torch.no_grad(); train is the forward plus the
backward of the stacked outputs' sum into the parameters, the inputs and the initial
states (gradients reset to None first, as `zero_grad(set_to_none=True)` does). Torch uses
the thread count its environment sets (rnn_floor.py passes one thread).
"""
import os
import sys
import warnings
from typing import List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _rows_worker import serve, time_round  # noqa: E402

PARAMS = ("i2h_weight", "i2h_bias", "h2h_weight", "h2h_bias")
TORCH_PARAMS = ("weight_ih", "bias_ih", "weight_hh", "bias_hh")


def _loop_modules(torch):
    """The cell loops as TorchScript-compatible modules, by the number of states they carry:
    {1: h only (RNNCell, GRUCell), 2: h and c (LSTMCell)}."""

    class OneStateLoop(torch.nn.Module):
        """h_t = cell(x_t, h_{t-1}); returns the stacked h_t."""

        def __init__(self, cell):
            super().__init__()
            self.cell = cell

        def forward(self, x, h):
            outs: List[torch.Tensor] = []
            for t in range(x.shape[0]):
                h = self.cell(x[t], h)
                outs.append(h)
            return torch.stack(outs)

    class LSTMLoop(torch.nn.Module):
        """(h_t, c_t) = cell(x_t, (h_{t-1}, c_{t-1})); returns the stacked h_t."""

        def __init__(self, cell):
            super().__init__()
            self.cell = cell

        def forward(self, x, h, c):
            outs: List[torch.Tensor] = []
            for t in range(x.shape[0]):
                h, c = self.cell(x[t], (h, c))
                outs.append(h)
            return torch.stack(outs)

    return {1: OneStateLoop, 2: LSTMLoop}


class Worker:
    """Holds the loops of the current case and times them on request."""

    def __init__(self):
        import numpy
        import torch
        self.torch, self.np = torch, numpy
        self.loops = _loop_modules(torch)
        self.calls = {}

    def hello(self, _msg):
        return {"torch": self.torch.__version__, "numpy": self.np.__version__,
                "threads": self.torch.get_num_threads()}

    def setup(self, msg):
        torch = self.torch
        case = self.np.load(msg["case"])
        cell_type = getattr(torch.nn, msg["cell"])
        cell = cell_type(msg["input_size"], msg["hidden_size"])
        with torch.no_grad():
            for ours, theirs in zip(PARAMS, TORCH_PARAMS):
                getattr(cell, theirs).copy_(torch.from_numpy(case[ours]))
        x = torch.from_numpy(case["x"]).requires_grad_()
        n_states = sum(name.startswith("state") for name in case.files)
        states = [torch.from_numpy(case[f"state{i}"]).requires_grad_() for i in range(n_states)]
        eager = self.loops[n_states](cell)
        leaves = [x, *states, *cell.parameters()]
        self.calls = {"pytorch eager cell loop": self._calls(eager, x, states, leaves)}
        self._write_result(msg["result"], eager, x, states, leaves, cell)
        skipped = {}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # torch.jit.script's deprecation notice
                scripted = torch.jit.script(eager)
        except Exception as exc:  # noqa: BLE001 - reported as a skipped row
            skipped["pytorch torchscript cell loop"] = f"{type(exc).__name__}: {exc}"
        else:
            self.calls["pytorch torchscript cell loop"] = self._calls(scripted, x, states,
                                                                      leaves)
        fused, why = self._fused_layer(msg, case, x, states, eager, leaves)
        if fused is not None:
            self.calls["pytorch fused layer"] = fused
        else:
            skipped["pytorch fused layer"] = why
        for calls in self.calls.values():
            for mode in ("infer", "train"):
                calls[mode]()  # compile (TorchScript profiles its first calls) and warm up
                calls[mode]()
        return {"names": list(self.calls), "skipped": skipped}

    def _fused_layer(self, msg, case, x, states, loop, leaves):
        """(the calls of PyTorch's fused layer on the case, None) when it computes what the
        cell loop does (outputs and gradients within 1e-4 relative), else (None, why)."""
        torch = self.torch
        kind = {"LSTMCell": torch.nn.LSTM, "GRUCell": torch.nn.GRU,
                "RNNCell": torch.nn.RNN}[msg["cell"]]
        layer = kind(msg["input_size"], msg["hidden_size"])
        with torch.no_grad():
            for ours, theirs in zip(PARAMS, TORCH_PARAMS):
                getattr(layer, theirs + "_l0").copy_(torch.from_numpy(case[ours]))
        lstm = msg["cell"] == "LSTMCell"
        fx = x.detach().clone().requires_grad_()
        fs = [s.detach().clone()[None].requires_grad_() for s in states]
        fleaves = [fx, *fs, *layer.parameters()]

        def run(a, st):
            return layer(a, (st[0], st[1]) if lstm else st[0])[0]

        def infer():
            with torch.no_grad():
                return run(fx, fs)

        def train():
            for leaf in fleaves:
                leaf.grad = None
            out = run(fx, fs)
            out.sum().backward()
            return out
        calls = {"infer": infer, "train": train}
        ref = self._calls(loop, x, states, leaves)
        pairs = [(infer(), ref["infer"]()), (train().detach(), ref["train"]().detach())]
        pairs += [(fx.grad, x.grad)] + [(f.grad[0], s.grad) for f, s in zip(fs, states)]
        worst = max(float(((a - b).abs().max() / (b.abs().max() + 1e-12)))
                    for a, b in pairs)
        if worst > 1e-4:
            return None, f"differs from the cell loop (relative error {worst:.1e})"
        return calls, None

    def _calls(self, loop, x, states, leaves):
        torch = self.torch

        def infer():
            with torch.no_grad():
                return loop(x, *states)

        def train():
            for leaf in leaves:
                leaf.grad = None
            out = loop(x, *states)
            out.sum().backward()
            return out
        return {"infer": infer, "train": train}

    def _write_result(self, path, loop, x, states, leaves, cell):
        """Run the eager loop once per mode; save its outputs and gradients for the check."""
        calls = self._calls(loop, x, states, leaves)
        result = {"out_infer": calls["infer"]().numpy(),
                  "out_train": calls["train"]().detach().numpy(),
                  "grad_data": x.grad.numpy()}
        result.update({f"grad_state{i}": s.grad.numpy() for i, s in enumerate(states)})
        result.update({f"grad_{ours}": getattr(cell, theirs).grad.numpy()
                       for ours, theirs in zip(PARAMS, TORCH_PARAMS)})
        tmp = path + ".part.npz"
        self.np.savez(tmp, **result)
        os.replace(tmp, path)

    def round(self, msg):
        names = msg.get("names")  # only these rows (rnn_bound.py times the fused layer only)
        calls = self.calls if names is None else {n: c for n, c in self.calls.items()
                                                  if n in names}
        return {"ms": time_round(calls, msg["mode"], msg.get("clock", "wall"))}


if __name__ == "__main__":
    sys.exit(serve(Worker, ("hello", "setup", "round"), "torch"))
