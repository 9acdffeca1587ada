"""Python bytecodes one imperative call runs, per tree: a count that load does not move.

On a shared machine, timings of a batch-1 call move by 5-10% between identical trees (an
interleaved A/B of a tree against its own copy, `ab_trees.py`), which hides the Python a
change adds or removes. This counts it instead: the bytecode instructions (and source lines)
the interpreter runs for one call, with ``sys.settrace`` opcode events, after warm-up calls
(so caches are filled as in a steady loop). numpy's C work is not counted; a tree whose
kernels differ is compared by timing, not by this.

The cases: a `gluon.rnn.RNNCell` and an `LSTMCell` step (batch 1, 64 features), and the
one-layer `gluon.rnn.RNN` (tanh) and `LSTM` layers (seq_len 50, batch 1, 64 features) with
their states; each inference, and recorded with the backward of its output ("train").

Usage::

    python benchmarks/call_opcodes.py                       # this checkout
    python benchmarks/call_opcodes.py --tree OLD --tree .   # one column per tree
    python benchmarks/call_opcodes.py --list CASE           # per-function counts of CASE

Exit status: 0; 1 when a tree's run fails (its error is printed).
"""
import argparse
import json
import os
import subprocess
import sys

CASES = ("RNNCell infer", "RNNCell train", "LSTMCell infer", "LSTMCell train",
         "RNN layer infer", "RNN layer train", "LSTM layer infer", "LSTM layer train")

# Run on a tree (argv: case): prints {"opcodes": n, "lines": n, "functions": {name: n}}.
_WORKER = r"""
import collections, json, sys
import numpy as np
from gluonlite import autograd, nd
from gluonlite.gluon import rnn
name, mode = sys.argv[1].rsplit(" ", 1)
rng = np.random.RandomState(0)
if name.endswith("Cell"):
    block = getattr(rnn, name)(64, input_size=64)
    block.initialize()
    x, states = nd.array(rng.randn(1, 64).astype("f")), block.begin_state(1)
else:
    block = rnn.RNN(64, activation="tanh", input_size=64) if name == "RNN layer" else \
        rnn.LSTM(64, input_size=64)
    block.initialize()
    x = nd.array(rng.randn(50, 1, 64).astype("f"))
    states = [nd.zeros((1, 1, 64)) for _ in block.state_info(1)]
x.attach_grad()
def call():
    if mode == "infer":
        return block(x, states)
    with autograd.record():
        out = block(x, states)[0]
    out.backward()
for _ in range(5):
    call()
ops, lines = collections.Counter(), collections.Counter()
def tracer(frame, event, arg):
    if event == "call":
        frame.f_trace_opcodes = True
        return tracer
    code = frame.f_code
    key = code.co_filename.rsplit("gluonlite/", 1)[-1] + ":" + code.co_name
    if event == "opcode":
        ops[key] += 1
    elif event == "line":
        lines[key] += 1
    return tracer
sys.settrace(tracer)
call()
sys.settrace(None)
print(json.dumps({"opcodes": sum(ops.values()), "lines": sum(lines.values()),
                  "functions": dict(ops)}))
"""


def count(tree, case):
    """{"opcodes", "lines", "functions"} of one call of `case` on `tree`'s gluonlite.

    Args:
        tree: a gluonlite checkout (its root folder).
        case: one of `CASES`.

    Raises:
        RuntimeError: the run failed (with its error output).
    """
    done = subprocess.run([sys.executable, "-c", _WORKER, case], capture_output=True,
                          text=True, cwd=tree, env=dict(os.environ, PYTHONPATH=tree))
    if done.returncode != 0:
        raise RuntimeError(f"{tree}: {case}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)


def main(argv=None):
    """Print the table (or one case's per-function counts); see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", action="append",
                    help="a gluonlite checkout (repeatable; default: this one)")
    ap.add_argument("--list", choices=CASES, help="per-function bytecodes of one case")
    a = ap.parse_args(argv)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    trees = [os.path.abspath(t) for t in (a.tree or [here])]
    try:
        if a.list:
            per = [count(t, a.list)["functions"] for t in trees]
            print("| function | " + " | ".join(trees) + " |")
            print("|---|" + "---:|" * len(trees))
            for fn in sorted(set().union(*per)):
                print(f"| {fn} | " + " | ".join(str(p.get(fn, 0)) for p in per) + " |")
            return 0
        print("| case | " + " | ".join(f"{t}: bytecodes (lines)" for t in trees) + " |")
        print("|---|" + "---:|" * len(trees))
        for case in CASES:
            got = [count(t, case) for t in trees]
            print(f"| {case} | " + " | ".join(f"{g['opcodes']} ({g['lines']})" for g in got)
                  + " |")
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
