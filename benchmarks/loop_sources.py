"""Dump the code the compiler generates for the hybridized loop layers of rnn_floor.py.

    PYTHONPATH=. python benchmarks/loop_sources.py OUT_DIR [--seq-len 100] [--size 512]
    diff -r BEFORE_DIR OUT_DIR        # a change to the loops' lowering: same code or not

For every cell (RNN, GRU, LSTM) x batch (1, 32) x loop (foreach, while_loop) x mode (infer,
train) it builds the seed benchmark's layer (`gluonlite.bench.models`, hybridized with
static_alloc), runs it twice and writes every function generated meanwhile (the outer plan's
forward and backward, the loop's step loop and reverse pass: 72 in all by default), in the
order they were made, to OUT_DIR/<cell>_<batch>_<loop>_<mode>.py. Identical files mean
identical generated code, so a change that keeps them needs no timing A/B (issue 27).
"""
import argparse
import os
import sys

import numpy as np


def _cases():
    for cell in ("RNNCell", "GRUCell", "LSTMCell"):
        for batch in (1, 32):
            for loop in ("foreach", "while_loop"):
                for train in (False, True):
                    yield cell, batch, loop, train


def _run(cell, batch, loop, train, seq_len, size):
    from gluonlite import autograd, nd
    from gluonlite.bench.models import ForeachRNN, WhileRNN, make_cell
    layer = {"foreach": ForeachRNN, "while_loop": WhileRNN}[loop](
        make_cell(cell, size, input_size=size), seq_len)
    layer.initialize()
    layer.hybridize(static_alloc=True)
    rng = np.random.default_rng(0)
    x = nd.array(rng.standard_normal((seq_len, batch, size)).astype("float32"))
    x.attach_grad()
    states = [nd.array(rng.standard_normal((batch, size)).astype("float32"))
              for _ in range(2 if cell == "LSTMCell" else 1)]
    for s in states:
        s.attach_grad()
    states = ([nd.zeros((1,))] if loop == "while_loop" else []) + states
    for _ in range(2):
        if train:
            with autograd.record():
                out = layer(x, states)
            out.backward()
        else:
            layer(x, states)
        nd.waitall()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--seq-len", type=int, default=100)
    ap.add_argument("--size", type=int, default=512, help="input and hidden size")
    a = ap.parse_args(argv)
    from gluonlite.executor import plan as plan_module
    made, real = [], plan_module.Plan.generated

    def generated(self, key, make):  # records each function the first time it is made
        def recorded():
            fn, source = make()
            made.append((key, source))
            return fn, source
        return real(self, key, recorded)
    plan_module.Plan.generated = generated
    os.makedirs(a.out_dir, exist_ok=True)
    total = 0
    try:
        for cell, batch, loop, train in _cases():
            del made[:]
            _run(cell, batch, loop, train, a.seq_len, a.size)
            name = f"{cell}_{batch}_{loop}_{'train' if train else 'infer'}"
            with open(os.path.join(a.out_dir, name + ".py"), "w") as f:
                f.writelines(f"# ---- {key[0]}\n{source}\n" for key, source in made)
            total += len(made)
            print(name, ", ".join(key[0] for key, _ in made))
    finally:
        plan_module.Plan.generated = real
    print(f"{total} functions in {a.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
