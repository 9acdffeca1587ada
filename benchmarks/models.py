"""Real models, one thread: gluonlite against MXNet 1.9.1 and PyTorch, with the BLAS floor.

    PYTHONPATH=. python benchmarks/models.py [--models resnet18_v1 ...] [--modes infer train]
        [--batches 1 32] [--rounds 3] [--warmup 1]
        [--ab nofuse|nodw|nobn1|noband|noaxpy|nowino|noswap|nosoftmax|nogelu|noln|
              nobnrelu|nobnaddrelu|noshift|norows ...]
        [--mxnet-python PATH | --no-mxnet] [--torch-python PATH | --no-torch]
        [--profile N] [--out FILE.jsonl] [--clock cpu|wall]
    python benchmarks/models.py report FILE.jsonl      # the table of a results file

Models (`_bench_models.py`): ResNet-18/50 v1, MobileNet v1 0.25 and v2 1.0, VGG-11 with BN
(224 x 224), the DCGAN generator, BERT-base's encoder (sequence 128) and a 2x650 LSTM
language model; inference (one forward) and a training step (forward, loss, backward,
``Trainer.step`` with SGD and momentum), each at every batch size asked.

Per case, interleaved rounds of:
- gluonlite: the Gluon model hybridized with static_alloc and static_shape (the inference
  backend on, as by default);
- the A/B variants asked with ``--ab`` (the same model and weights with one lever off, to
  decide that lever by the ratio in the same rounds): ``nofuse`` (no inference backend),
  ``nodw`` (depthwise convolution through im2col), ``nobn1`` (BatchNorm training statistics
  in MXNet's two passes), ``noband`` (no banded products for narrow depthwise maps),
  ``noaxpy`` (the per-tap depthwise kernel in numpy passes instead of BLAS axpy/dot),
  ``nowino`` (3x3 stride-1 layers through im2col instead of Winograd), ``noswap`` (every
  product with a transposed kernel taken as it stands, never as (b^T a^T)^T), ``nosoftmax``,
  ``nogelu`` and ``noln`` (softmax/log_softmax, GELU and LayerNorm as whole-array
  expressions, not a block of rows or entries at a time), ``nobnrelu`` (training plans
  keep BatchNorm and its relu as two operators, `gluonlite.executor.bn_relu`),
  ``nobnaddrelu`` (training plans keep a residual block's BatchNorm, addition and relu as
  three operators), ``noshift`` (no convolution through `conv_shifted`'s per-tap products),
  ``norows`` (BatchNorm's fast path takes its per-channel constants as (C, 1) columns on
  every map, never as (C, P) tiles);
- floor: the model's matrix products alone (convolutions as im2col products in cache-sized
  column chunks, Dense layers, batch_dot, the LSTM's input and per-step products; in
  training also each product's two gradient products) on preallocated buffers: the BLAS
  bound of a numpy core;
- MXNet 1.9.1 (the same Gluon code, the same weights, hybridized with static_alloc and
  static_shape, NaiveEngine) and PyTorch (the same networks in torch.nn, the same weights,
  eval + no_grad for inference), each in a long-lived worker process
  (`models_worker.py`) timed in the same rounds. Their interpreters are
  ``--mxnet-python`` and ``--torch-python`` (default $GLUONLITE_MXNET_PYTHON and
  $GLUONLITE_TORCH_PYTHON); a side with neither has no column.

Inference outputs are checked against MXNet's and PyTorch's on the same weights (the
"check" column: the largest absolute difference over the largest output).

Timing: ``--clock cpu`` (the default) times each call with its process's CPU time, which
the other jobs on a shared machine disturb far less than wall time (every side runs on one
thread); medians of the rounds, spreads as (max - min) / median. Each case's rounds go to
``--out`` as a JSON line as soon as the case finishes; the Markdown table comes last.
``--profile N`` adds, per case, gluonlite's N most expensive operators of one profiled call
(from `gluonlite.profiler`'s aggregate of compiled steps).
"""
import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("MXNET_ENGINE_TYPE", "NaiveEngine")
from _timing import interleaved, median  # noqa: E402
from _tables import markdown_table, print_header  # noqa: E402
from _rows_client import RowsWorker, WorkerError  # noqa: E402
import _bench_models as bm  # noqa: E402

import numpy as np  # noqa: E402

def _spread(v):
    m = median(v)
    return 100.0 * (max(v) - min(v)) / m if m else 0.0


def _cell(v):
    return f"{median(v):.1f} ±{_spread(v):.0f}%" if v else "-"


# ---- gluonlite's side -------------------------------------------------------------------
def _make_inputs(name, batch, rng):
    specs, (lshape, classes) = bm.input_specs(name, batch)
    xs = [rng.integers(0, bm.VOCAB, shape).astype(np.float32) if kind == "tokens"
          else rng.standard_normal(shape).astype(np.float32) for shape, kind in specs]
    label = (rng.integers(0, classes, lshape).astype(np.float32) if classes
             else rng.standard_normal(lshape).astype(np.float32))
    return xs, label


def _ab_switch(name):
    """A context manager switching one lever off (see the module docstring)."""
    import contextlib
    import importlib

    @contextlib.contextmanager
    def flag(module, attr, value):
        mod = importlib.import_module(module)
        old = getattr(mod, attr)
        setattr(mod, attr, value)
        try:
            yield
        finally:
            setattr(mod, attr, old)

    switches = {"nofuse": lambda: flag("gluonlite.subgraph.fuse", "DEFAULT_ON", False),
                "nodw": lambda: flag("gluonlite.ops.conv_fast", "DIRECT_DEPTHWISE", False),
                "nobn1": lambda: flag("gluonlite.ops.bn_fast", "ENABLED", False),
                "noband": lambda: flag("gluonlite.ops.conv_fast", "_DW_BANDED_WIDTH", 0),
                "noaxpy": lambda: flag("gluonlite.ops.conv_fast", "_DW_AXPY", 1 << 62),
                "nowino": lambda: flag("gluonlite.ops.conv_winograd", "ENABLED", False),
                "noswap": lambda: flag("gluonlite.ops.conv_fast", "_FEW_COLUMNS", 0),
                "nosoftmax": lambda: flag("gluonlite.ops.softmax_fast", "ENABLED", False),
                "nogelu": lambda: flag("gluonlite.ops.gelu_fast", "ENABLED", False),
                "noln": lambda: flag("gluonlite.ops.ln_fast", "ENABLED", False),
                "nobnrelu": lambda: flag("gluonlite.executor.bn_relu", "ENABLED", False),
                "nobnaddrelu": lambda: flag("gluonlite.executor.bn_relu", "RESIDUAL", False),
                "noshift": lambda: flag("gluonlite.ops.conv_shifted", "ENABLED", False),
                "norows": lambda: flag("gluonlite.ops.bn_fast", "_TILE_ROWS", 0)}
    if name not in switches:
        raise ValueError(f"--ab: unknown variant {name!r}; known: {', '.join(switches)}")
    return switches[name]


def _gluonlite_call(name, mode, batch, xs_np, label_np, params=None, switch=None):
    """(call, net, inputs, params as numpy arrays in order) of one gluonlite case."""
    import contextlib
    import gluonlite as mx
    mx.random.seed(0)
    net, loss = bm.build(mx, name, batch)
    xs = [mx.nd.array(a) for a in xs_np]
    label = mx.nd.array(label_np)
    net(*xs)
    plist = list(net.collect_params().values())
    if params is not None:
        for p, a in zip(plist, params):
            p.set_data(mx.nd.array(a))
    net.hybridize(static_alloc=True, static_shape=True)
    ctx = switch or contextlib.nullcontext
    if mode == "infer":
        def body():
            net(*xs).wait_to_read()
    else:
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd",
                                   {"learning_rate": 1e-3, "momentum": 0.9})

        def body():
            with mx.autograd.record():
                out = loss(net(*xs), label)
            out.backward()
            trainer.step(batch)
            mx.nd.waitall()

    def call():
        with ctx():
            body()
    return call, net, xs, [p.data().asnumpy() for p in plist]


# ---- the floor: the model's BLAS products alone --------------------------------------------
_COLS = 1 << 22  # column-chunk entries, as the library's im2col works in cache-sized pieces


class _Floor:
    """The matrix products of one graph on preallocated buffers (one buffer per shape)."""

    def __init__(self, rng):
        self.rng, self.bufs, self.calls = rng, {}, []

    def buf(self, shape, tag=""):
        key = (tuple(shape), tag)
        b = self.bufs.get(key)
        if b is None:
            b = self.bufs[key] = self.rng.standard_normal(shape).astype(np.float32) * 0.01
        return b

    def mm(self, a, b, reps=1):
        """a @ b (shapes, batched when 3-D), `reps` times."""
        a, b = self.buf(a, "a"), self.buf(b, "b")
        out = np.empty(np.matmul(a[..., :1, :], b[..., :, :1]).shape[:-2]
                       + (a.shape[-2], b.shape[-1]), np.float32)
        self.calls.append((a, b, out, reps))

    def chunked(self, f, k, n, g, train, transposed=False):
        """A convolution's products: (g, f, k) @ (g, k, n) over column chunks of n (and in
        training dW (f, q) @ (q, k), dcols (k, f) @ (f, q)); `transposed` (Deconvolution)
        swaps which product is the forward."""
        q = max(1, min(n, _COLS // max(1, k * g)))
        pieces = [(q, n // q)] + ([(n % q, 1)] if n % q else [])
        for width, reps in pieces:
            if not transposed or train:
                self.mm((g, f, k), (g, k, width), reps)
            if train or transposed:
                self.mm((g, k, f), (g, f, width), reps)
            if train:
                self.mm((g, f, width), (g, width, k), reps)

    def run(self):
        for a, b, out, reps in self.calls:
            for _ in range(reps):
                np.matmul(a, b, out=out)


def _floor_of(net, xs, train, rng):
    """A `_Floor` with the products of `net`'s hybridized graph at the inputs' shapes."""
    from math import prod
    from gluonlite.executor.infer import infer_graph
    from gluonlite.symbol.symbol import topo_nodes
    inputs, out = net._cached_graph
    known = {s.name: tuple(a.shape) for s, a in zip(inputs, xs)}
    for name, p in net.collect_params().items():
        known[name] = tuple(p.shape)
    shapes, _ = infer_graph(out, known, {s.name: np.float32 for s in inputs})
    fl = _Floor(rng)
    for n in topo_nodes(out.outputs):
        if n.op is None:
            continue
        ins = [shapes.get((id(s), k)) for s, k in n.inputs]
        o = shapes.get((id(n), 0))
        p, op = n.params, n.op.name
        if op == "Convolution":
            (nb, c), sp, f = ins[0][:2], o[2:], o[1]
            g = p.num_group
            fl.chunked(f // g, c // g * prod(p.kernel), nb * prod(sp), g, train)
        elif op == "Deconvolution":
            (nb, c), sp = ins[0][:2], ins[0][2:]
            g, f = p.num_group, o[1]
            fl.chunked(c // g, f // g * prod(p.kernel), nb * prod(sp), g, train,
                       transposed=True)
        elif op == "FullyConnected":
            x, w = ins[0], ins[1]
            m = prod(x[:-1]) if not p.flatten else x[0]
            k = x[-1] if not p.flatten else prod(x[1:])
            fl.mm((m, k), (k, w[0]))
            if train:
                fl.mm((m, w[0]), (w[0], k))
                fl.mm((w[0], m), (m, k))
        elif op == "batch_dot":
            a, b = ins
            m = a[2] if p.transpose_a else a[1]
            k = a[1] if p.transpose_a else a[2]
            nn_ = b[1] if p.transpose_b else b[2]
            fl.mm((a[0], m, k), (a[0], k, nn_))
            if train:
                fl.mm((a[0], m, nn_), (a[0], nn_, k))
                fl.mm((a[0], k, m), (a[0], m, nn_))
        elif op in ("RNN", "_rnn_unpacked"):
            t, nb, i = ins[0]
            h, layers = p.state_size, p.num_layers
            gates = {"lstm": 4, "gru": 3}.get(p.mode, 1) * h
            for layer in range(layers):
                width = i if layer == 0 else h
                fl.mm((t * nb, width), (width, gates))
                fl.mm((nb, h), (h, gates), t)
                if train:
                    fl.mm((t * nb, gates), (gates, width))
                    fl.mm((gates, t * nb), (t * nb, width))
                    fl.mm((nb, gates), (gates, h), t)
                    fl.mm((gates, t * nb), (t * nb, h))
    return fl


def _profile(call, top):
    """gluonlite's `top` most expensive operators of one call: [(name, ms, count)]."""
    from gluonlite import profiler
    profiler.set_config(profile_all=True, aggregate_stats=True,
                        filename=os.path.join(tempfile.gettempdir(), "models_profile.json"))
    profiler.set_state("run")
    try:
        call()
    finally:
        profiler.set_state("stop")
    stats = json.loads(profiler.dumps(reset=True, format="json"))["Time"]
    rows = stats.get("compiled steps") or {}
    ranked = sorted(rows.items(), key=lambda kv: -kv[1]["Total"])[:top]
    return [(k, round(v["Total"], 2), v["Count"]) for k, v in ranked]


def _check(ours, theirs):
    scale = float(np.abs(theirs).max()) or 1.0
    return float(np.abs(ours.reshape(theirs.shape) - theirs).max()) / scale


# ---- the table --------------------------------------------------------------------------
def _header(abs_):
    return (["model", "mode", "batch", "gluonlite ms", "MXNet ms", "PyTorch ms", "gl/MXNet",
             "gl/PyTorch", "floor ms", "gl/floor"] + [f"{ab}/gl" for ab in abs_] + ["check"])


def _row(name, mode, batch, t, checks, abs_):
    """One table row from the rounds `t` ({variant: [ms]}) of a case."""
    ours = median(t["gluonlite"])
    row = [name, mode, batch, _cell(t["gluonlite"])]
    row += [_cell(t.get(label)) for label in ("MXNet", "PyTorch")]
    row += [f"{ours / median(t[label]):.2f}" if t.get(label) else "-"
            for label in ("MXNet", "PyTorch")]
    row += [_cell(t["floor"]), f"{ours / median(t['floor']):.2f}"]
    row += [f"{median(t[ab]) / ours:.2f}" if ab in t else "-" for ab in abs_]
    row.append(", ".join(f"{k} {v:.0e}" for k, v in checks.items()) or "-")
    return row


def report(path):
    """The Markdown table of a results file (JSON lines as `--out` writes them), in the
    file's order; a line that does not parse is named with its number.

    Raises:
        ValueError: a line that is not a case's JSON object.
    """
    rows, abs_ = [], []
    with open(path, encoding="utf-8") as f:
        cases = []
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                c = json.loads(line)
                cases.append((c["model"], c["mode"], c["batch"], c["ms"], c.get("check", {})))
            except (ValueError, KeyError, TypeError) as e:
                raise ValueError(f"{path}:{i}: not a case of benchmarks/models.py ({e})") from None
    fixed = {"gluonlite", "floor", "MXNet", "PyTorch"}
    abs_ = sorted({k for *_, t, _ in cases for k in t} - fixed)
    for name, mode, batch, t, checks in cases:
        rows.append(_row(name, mode, batch, t, checks, abs_))
    return markdown_table(_header(abs_), rows)


# ---- driver -----------------------------------------------------------------------------
def _run_case(a, name, mode, batch, workers, clock, tmp):
    rng = np.random.default_rng(0)
    xs_np, label_np = _make_inputs(name, batch, rng)
    call, net, xs, params = _gluonlite_call(name, mode, batch, xs_np, label_np)
    data = os.path.join(tmp, "case.npz")
    np.savez(data, label=label_np, **{f"x{i}": x for i, x in enumerate(xs_np)},
             **{f"p{i}": p for i, p in enumerate(params)})
    variants = {"gluonlite": call}
    for ab in a.ab:
        variants[ab] = _gluonlite_call(name, mode, batch, xs_np, label_np, params,
                                       _ab_switch(ab))[0]
    call()  # traced and compiled before the floor reads the graph
    floor = _floor_of(net, xs, mode == "train", rng)
    variants["floor"] = floor.run
    checks = {}
    for label, w in workers.items():
        w.request(op="setup", model=name, mode=mode, batch=batch, data=data)
        if mode == "infer":
            path = os.path.join(tmp, f"{label}.npy")
            w.request(op="output", path=path)
            checks[label] = _check(net(*xs).asnumpy(), np.load(path))

    def others():
        return {label: w.request(op="round", clock=a.clock)["ms"]
                for label, w in workers.items()}

    t = interleaved(variants, a.rounds, a.warmup, after_round=others, clock=clock)
    prof = _profile(call, a.profile) if a.profile else None
    return t, checks, prof


def main(argv=None):
    """Run the cases, print the Markdown table; returns 0 (``report FILE`` prints a results
    file's table instead)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["report"]:
        if len(argv) != 2:
            print("usage: models.py report FILE.jsonl", file=sys.stderr)
            return 2
        try:
            print(report(argv[1]))
        except (OSError, ValueError) as e:
            print(f"models.py report: {e}", file=sys.stderr)
            return 2
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=list(bm.MODELS))
    ap.add_argument("--modes", nargs="+", default=["infer", "train"])
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 32])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--ab", nargs="*", default=[])
    ap.add_argument("--mxnet-python", default=os.environ.get("GLUONLITE_MXNET_PYTHON"))
    ap.add_argument("--torch-python", default=os.environ.get("GLUONLITE_TORCH_PYTHON"))
    ap.add_argument("--no-mxnet", action="store_true")
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--profile", type=int, default=0)
    ap.add_argument("--out", default=None)
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    a = ap.parse_args(argv)
    for m in a.models:
        bm.input_specs(m, 1)
    for mode in a.modes:
        if mode not in ("infer", "train"):
            ap.error(f"--modes: expected infer and/or train, got {mode!r}")
    try:
        return _run(a, argv)
    except WorkerError as exc:
        # a side's interpreter that cannot start or answer: one line, no traceback
        print(f"models.py: {exc} (give --mxnet-python / --torch-python a python with that "
              "framework, or --no-mxnet / --no-torch)", file=sys.stderr)
        return 2


def _run(a, argv):
    workers = {}
    sides = [("MXNet", "mxnet", a.mxnet_python, a.no_mxnet, "GLUONLITE_MXNET_PYTHON"),
             ("PyTorch", "torch", a.torch_python, a.no_torch, "GLUONLITE_TORCH_PYTHON")]
    versions = []
    for label, which, py, off, var in sides:
        if off or not py:
            continue
        w = RowsWorker("models_worker.py", py, var, label, args=(which,))
        versions.append(f"{label} {w.request(op='hello')['version']}")
        workers[label] = w
    print_header("models", argv, f"- {a.clock} time; {a.rounds} rounds after {a.warmup} "
                 f"warmup, interleaved (gluonlite, {', '.join(a.ab + ['floor'])}, then "
                 f"{', '.join(versions) or 'no other framework'}, each in its own "
                 "long-lived process)")
    clock = time.process_time if a.clock == "cpu" else time.perf_counter
    rows, profiles = [], []
    out = open(a.out, "a", encoding="utf-8") if a.out else None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            # cheap rows first (batch, then mode, then model), so that an interrupted run
            # has kept the most rows
            cases = [(name, mode, batch) for batch in a.batches for mode in a.modes
                     for name in a.models]
            for name, mode, batch in cases:
                t, checks, prof = _run_case(a, name, mode, batch, workers, clock, tmp)
                row = _row(name, mode, batch, t, checks, a.ab)
                rows.append(row)
                print("  " + " | ".join(map(str, row)), file=sys.stderr, flush=True)
                if prof:
                    profiles.append((f"{name} {mode} {batch}", prof))
                if out:
                    out.write(json.dumps({"model": name, "mode": mode, "batch": batch,
                                          "clock": a.clock, "ms": t, "check": checks,
                                          "profile": prof}) + "\n")
                    out.flush()
    finally:
        if out:
            out.close()
        for w in workers.values():
            w.close()
    print(markdown_table(_header(a.ab), rows))
    for case, prof in profiles:
        print(f"\n{case}: " + ", ".join(f"{k} {ms} ms ({c})" for k, ms, c in prof))
    return 0


if __name__ == "__main__":
    sys.exit(main())
