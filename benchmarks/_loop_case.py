"""One loop benchmark case: the gluonlite loop layers of a (cell, batch) case with their
parameters copied into the numpy floor, and the check that they all agree (with each other,
with the floor, and with another framework's result file).

gluonlite is imported inside the functions, so importing this module costs only numpy.

Example:
    >>> from _loop_case import LoopCase                                    # doctest: +SKIP
    >>> case = LoopCase('LSTMCell', 1, 10, 8, 8, [('hybrid', 'foreach')])  # doctest: +SKIP
    >>> case.check()                                                       # doctest: +SKIP
"""
import _env  # noqa: F401  (one BLAS thread, set before numpy loads)
import numpy as np

__all__ = ["LoopCase", "max_rel_error", "fused_layer"]


def max_rel_error(got, ref):
    """max |got - ref| / max(1, max |ref|): a scale-aware float32 error."""
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    if got.shape != ref.shape:
        return float("inf")
    return (float(np.max(np.abs(got - ref)) / max(1.0, float(np.max(np.abs(ref)))))
            if ref.size else 0.0)


def fused_layer(cell, hidden_size, input_size):
    """The one-layer `gluon.rnn` layer (fused RNN operator) computing what `cell` loops do:
    `RNN` with tanh for RNNCell, `GRU`, `LSTM`."""
    from gluonlite.gluon import rnn
    if cell == "RNNCell":
        return rnn.RNN(hidden_size, activation="tanh", input_size=input_size)
    return {"GRUCell": rnn.GRU, "LSTMCell": rnn.LSTM}[cell](hidden_size, input_size=input_size)


def _first_output(layer):
    return lambda x, states: layer(x, states)[0]


class LoopCase:
    """The gluonlite layers and floors of one (cell, batch) case, on shared parameters.

    Builds the requested layers (`imperative`/`hybrid` x `foreach`/`while_loop`/`fused`),
    all with the parameters of the first one (hybrid layers use
    hybridize(static_alloc=True)), random normal inputs and states as the seed benchmark,
    and FloorRNN objects (step/fused x infer/train) holding a copy of the same parameters.
    `fused` is the one-layer `gluon.rnn` layer of the cell's kind (`RNN` with tanh,
    `GRU`, `LSTM`) on the fused RNN operator; its states are the cell states as
    (1, N, H) arrays.

    Args:
        cell: 'RNNCell', 'GRUCell' or 'LSTMCell'.
        batch, seq_len, input_size, hidden_size: N, T, I, H.
        layers: iterable of (kind, loop) with kind in {'imperative', 'hybrid'} and loop
            in {'foreach', 'while_loop', 'fused'}.
        seed: seed of the inputs and states.

    Raises:
        ValueError: an unknown layer kind or loop.

    Example:
        >>> case = LoopCase('LSTMCell', 1, 10, 8, 8, [('hybrid', 'foreach')])  # doctest: +SKIP
        >>> case.check()                                                       # doctest: +SKIP
    """

    def __init__(self, cell, batch, seq_len, input_size, hidden_size, layers, seed=0):
        from gluonlite import nd
        from gluonlite.bench import floor
        from gluonlite.bench.models import ForeachRNN, WhileRNN, make_cell
        self.cell, self.shape = cell, (seq_len, batch, input_size, hidden_size)
        T, N, I, H = self.shape
        loops = {"foreach": ForeachRNN, "while_loop": WhileRNN}
        self.layers = {}
        for kind, loop in layers:
            if kind not in ("imperative", "hybrid") or loop not in (*loops, "fused"):
                raise ValueError(f"LoopCase: layer must be "
                                 f"(imperative|hybrid, foreach|while_loop|fused), "
                                 f"got {(kind, loop)!r}")
            layer = fused_layer(cell, H, I) if loop == "fused" else \
                loops[loop](make_cell(cell, H, input_size=I), T)
            layer.initialize()
            self.layers[(kind, loop)] = layer
        first = next(iter(self.layers.values()))
        self.params = floor.params_from_named(first.collect_params())
        for layer in self.layers.values():
            for name, p in layer.collect_params().items():
                key = next(k for k in floor.PARAM_NAMES if name.endswith(k))
                p.set_data(nd.array(self.params[key]))
        for (kind, _), layer in self.layers.items():
            if kind == "hybrid":
                layer.hybridize(static_alloc=True)
        rng = np.random.default_rng(seed)
        self.x_np = rng.standard_normal((T, N, I)).astype("float32")
        self.states_np = [rng.standard_normal((N, H)).astype("float32")
                          for _ in range(floor.num_states(cell))]
        self.x = nd.array(self.x_np)
        self.x.attach_grad()
        self.states = [nd.array(s) for s in self.states_np]
        self.fused_states = [nd.array(s[None]) for s in self.states_np]
        for s in self.states + self.fused_states:
            s.attach_grad()
        self.floors = {(fused, train): floor.FloorRNN(cell, T, N, I, H, fused=fused, train=train)
                       for fused in (False, True) for train in (False, True)}
        # Each floor reads its own copy of the weights, as each layer does: a floor timed
        # right after the other must not find them already in cache.
        self.floor_params = {fused: {k: v.copy() for k, v in self.params.items()}
                             for fused in (False, True)}

    def layer_states(self, loop):
        """The states argument of a layer: the cell states, after a (1,) counter for
        while_loop; (1, N, H) arrays for the fused layer."""
        from gluonlite import nd
        if loop == "fused":
            return self.fused_states
        return ([nd.zeros((1,))] if loop == "while_loop" else []) + self.states

    def layer_call(self, key, train):
        """A zero-arg callable running one layer call (train: record + backward of the sum)."""
        from gluonlite import autograd, nd
        layer, states = self.layers[key], self.layer_states(key[1])
        x = self.x
        if key[1] == "fused":  # the fused layer returns (output, new states)
            layer = _first_output(layer)
        if not train:
            def call():
                out = layer(x, states)
                nd.waitall()
                return out
            return call

        def call_train():
            with autograd.record():
                out = layer(x, states)
            out.backward()
            nd.waitall()
            return out
        return call_train

    def floor_call(self, fused, train):
        """A zero-arg callable running one floor forward (and backward when train)."""
        f, x, s = self.floors[(fused, train)], self.x_np, self.states_np
        p = self.floor_params[fused]
        if not train:
            return lambda: f.forward(x, s, p)

        def call():
            out = f.forward(x, s, p)
            f.backward()
            return out
        return call

    def layer_grads(self, key):
        """Gradients after a train call of `key`: dict like FloorRNN.backward's."""
        from gluonlite.bench import floor
        states = self.fused_states if key[1] == "fused" else self.states
        g = {"data": self.x.grad.asnumpy(),
             "states": [s.grad.asnumpy().reshape(self.shape[1:2] + self.shape[3:])
                        for s in states]}
        named = {n: p.grad() for n, p in self.layers[key].collect_params().items()}
        g.update(floor.params_from_named(named))
        return g

    def floor_refs(self):
        """{fused: (infer outputs, train outputs, gradients)} of the two floors on this case
        (gradients as FloorRNN.backward's dict, copied)."""
        refs = {}
        for fused in (False, True):
            out_i = self.floor_call(fused, False)().copy()
            f = self.floors[(fused, True)]
            out_t = f.forward(self.x_np, self.states_np, self.params).copy()
            g = f.backward()
            refs[fused] = (out_i, out_t, {k: ([a.copy() for a in v] if k == "states" else v.copy())
                                          for k, v in g.items()})
        return refs

    @staticmethod
    def compare(label, got_i, got_t, grads, refs, tol):
        """Compare one implementation's outputs and gradients with both floors' `refs`.

        Returns:
            ({'infer': worst error, 'train': worst error}, [messages of those above tol]).
        """
        errors, bad = {}, []
        for fused, (out_i, out_t, ref_g) in refs.items():
            pairs = [("infer outputs", got_i, out_i), ("train outputs", got_t, out_t)]
            pairs += [(f"grad {k}", grads[k], ref_g[k]) for k in ref_g if k != "states"]
            pairs += [(f"grad states[{i}]", a, b)
                      for i, (a, b) in enumerate(zip(grads["states"], ref_g["states"]))]
            for name, got, ref in pairs:
                err = max_rel_error(got, ref)
                mode = "infer" if name.startswith("infer") else "train"
                errors[mode] = max(errors.get(mode, 0.0), err)
                if not err <= tol:
                    bad.append(f"{label} vs floor-{'fused' if fused else 'step'}: "
                               f"{name} rel. error {err:.3g}")
        return errors, bad

    def _raise_if(self, bad, who, tol):
        if bad:
            raise RuntimeError(f"{self.cell} batch {self.shape[1]}: {who} and the numpy floor "
                               f"disagree (tolerance {tol}): " + "; ".join(bad))

    def check(self, tol=1e-3, refs=None):
        """Run every layer once infer and once train; compare with both floors (`refs`:
        `floor_refs()`'s result, computed here when not given).

        Returns:
            dict (layer key, 'infer'|'train') -> worst relative error (see max_rel_error).

        Raises:
            RuntimeError: a layer's outputs or gradients differ from a floor's by more
                than `tol`; the message names the cell, layer, floor, array and error.
        """
        refs, errors, bad = refs or self.floor_refs(), {}, []
        for key in self.layers:
            got_i = self.layer_call(key, False)().asnumpy()
            got_t = self.layer_call(key, True)().asnumpy()
            errs, msgs = self.compare(" ".join(key), got_i, got_t, self.layer_grads(key),
                                      refs, tol)
            errors.update({(key, mode): e for mode, e in errs.items()})
            bad += msgs
        self._raise_if(bad, "gluonlite", tol)
        return errors

    def write_inputs(self, path):
        """Save the case for another framework's worker: an .npz of x, state0[, state1] and
        the cell parameters (PARAM_NAMES), as the floors and layers use them."""
        arrays = {"x": self.x_np, **{f"state{i}": s for i, s in enumerate(self.states_np)},
                  **self.params}
        np.savez(path, **arrays)

    def check_result(self, label, path, tol=1e-3, refs=None):
        """Compare a worker's result .npz (out_infer, out_train, grad_data,
        grad_state<i>, grad_<param>) with both floors (`refs` as in `check`).

        Returns:
            {'infer': worst error, 'train': worst error}.

        Raises:
            RuntimeError: a difference above `tol` (names the array and the error).
        """
        with np.load(path) as r:
            grads = {"data": r["grad_data"],
                     "states": [r[f"grad_state{i}"] for i in range(len(self.states_np))]}
            grads.update({k: r[f"grad_{k}"] for k in self.params})
            errors, bad = self.compare(label, r["out_infer"], r["out_train"], grads,
                                       refs or self.floor_refs(), tol)
        self._raise_if(bad, label, tol)
        return errors
