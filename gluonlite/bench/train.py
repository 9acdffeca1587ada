"""`kind: train` recipes: train a loop-layer model on a generated or local task.

Tasks:
- adding: the adding problem. Each step has two channels, a value in [0, 1) and a
  marker; exactly two steps are marked (one in each half) and the target is the sum
  of their values. Judged by `valid_mse` (predicting the mean scores about 0.167).
- charlm: next-character prediction on the installed Python standard library's own
  .py files, read at run time (the first `max_bytes` bytes of its top-level modules
  in name order). Judged by `valid_bpc` (bits per character).

Every epoch writes one JSON line (to stdout and to the recipe's `output`); the
final parameters go to `params_file` via `save_parameters`; the last line is
`{"final": true, "metric": ..., "value": ..., ...}`.

Example:
    >>> x, y = adding_problem(4, 6, np.random.default_rng(0))
    >>> x.shape, y.shape
    ((6, 4, 2), (4, 1))
"""
import json
import math
import os
import sys
import sysconfig
import time

import numpy as np
from tqdm import tqdm

import gluonlite as mx
from gluonlite import autograd, gluon, nd

from . import models
from .results import ResultsFile, check_writable

__all__ = ["adding_problem", "stdlib_text", "encode_text", "char_windows", "VOCAB", "run_train",
           "fit", "params_path"]

# A fixed vocabulary (printable ASCII, newline, tab, then one id for everything else)
# so saved parameters have the same shapes on every machine.
VOCAB = "\n\t" + "".join(chr(c) for c in range(32, 127))
_UNK = len(VOCAB)
_CHAR_ID = {c: i for i, c in enumerate(VOCAB)}
JUDGED = {"adding": "valid_mse", "charlm": "valid_bpc"}


def adding_problem(n, seq_len, rng):
    """Generate n examples of the adding problem.

    Args:
        n: number of examples.
        seq_len: T (>= 2).
        rng: numpy Generator.

    Returns:
        (x, y): x float32 (T, n, 2) (value, marker), y float32 (n, 1).

    Example::

        from gluonlite.bench.train import adding_problem
        x, y = adding_problem(4, 5, np.random.default_rng(0))
        print(x.shape, y.shape, x[:, 0, 1].sum())   # (5, 4, 2) (4, 1) 2.0: two marked steps
    """
    values = rng.uniform(0.0, 1.0, (n, seq_len))
    first = rng.integers(0, seq_len // 2, n)
    second = rng.integers(seq_len // 2, seq_len, n)
    rows = np.arange(n)
    marks = np.zeros((n, seq_len))
    marks[rows, first] = 1.0
    marks[rows, second] = 1.0
    y = (values[rows, first] + values[rows, second])[:, None]
    x = np.stack([values, marks], axis=-1).transpose(1, 0, 2)
    return np.ascontiguousarray(x, dtype=np.float32), y.astype(np.float32)


def stdlib_text(max_bytes):
    """Up to max_bytes of text from the standard library's top-level .py files.

    Args:
        max_bytes: how much text to read.

    Returns:
        str.

    Raises:
        RuntimeError: the standard library's source files cannot be found.

    Example::

        from gluonlite.bench.train import stdlib_text
        print(len(stdlib_text(100)))   # 100
    """
    root = sysconfig.get_paths()["stdlib"]
    try:
        names = sorted(n for n in os.listdir(root) if n.endswith(".py"))
    except OSError as e:
        raise RuntimeError(f"charlm: cannot list the standard library at {root}: {e}") from None
    parts, size = [], 0
    for name in names:
        if size >= max_bytes:
            break
        try:
            with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
                text = f.read(max_bytes - size)
        except OSError:
            continue
        parts.append(text)
        size += len(text)
    if not size:
        raise RuntimeError(f"charlm: found no readable .py files in {root}")
    return "".join(parts)


def encode_text(text):
    """Map characters to ids in VOCAB (unknown characters to len(VOCAB)); int32 array.

    Args:
        text: the str to encode.

    Returns:
        A 1-D int32 array, one id per character.

    Example::

        from gluonlite.bench.train import VOCAB, encode_text
        ids = encode_text('ab')
        print(ids.dtype, VOCAB[ids[0]] + VOCAB[ids[1]])   # int32 ab
    """
    return np.fromiter((_CHAR_ID.get(c, _UNK) for c in text), dtype=np.int32, count=len(text))


def char_windows(ids, seq_len):
    """Cut ids into non-overlapping windows: inputs and next-character targets.

    Args:
        ids: the 1-D int array of character ids.
        seq_len: T, the window length.

    Returns:
        (x, y): int32 arrays (T, n) each, y shifted by one character.

    Example::

        from gluonlite.bench.train import char_windows
        x, y = char_windows(np.arange(7, dtype=np.int32), 3)
        print(x[:, 0], y[:, 0])   # [0 1 2] [1 2 3]: y is x one character on
    """
    n = (len(ids) - 1) // seq_len
    x = ids[:n * seq_len].reshape(n, seq_len).T
    y = ids[1:n * seq_len + 1].reshape(n, seq_len).T
    return np.ascontiguousarray(x), np.ascontiguousarray(y)


def _task_data(cfg, rng):
    """(x_train, y_train, x_valid, y_valid, model kwargs) for the recipe's task."""
    if cfg["task"] == "adding":
        a = cfg["adding"]
        xt, yt = adding_problem(a["train_size"], a["seq_len"], rng)
        xv, yv = adding_problem(a["valid_size"], a["seq_len"], rng)
        return xt, yt, xv, yv, dict(seq_len=a["seq_len"], out_units=1, input_size=2,
                                    last_only=True)
    c = cfg["charlm"]
    ids = encode_text(stdlib_text(c["max_bytes"]))
    split = int(len(ids) * (1 - c["valid_fraction"]))
    xt, yt = char_windows(ids[:split], c["seq_len"])
    xv, yv = char_windows(ids[split:], c["seq_len"])
    if xt.shape[1] == 0 or xv.shape[1] == 0:
        raise ValueError(f"charlm: max_bytes={c['max_bytes']} gives no full window of "
                         f"seq_len={c['seq_len']} for training or validation")
    return xt, yt, xv, yv, dict(seq_len=c["seq_len"], out_units=len(VOCAB) + 1,
                                vocab_size=len(VOCAB) + 1, embed_size=cfg["model"]["embed_size"])


def _batches(n, batch_size, rng=None, limit=None):
    """Index arrays of full batches (a smaller single batch if n < batch_size)."""
    order = rng.permutation(n) if rng is not None else np.arange(n)
    size = min(batch_size, n)
    out = [order[i:i + size] for i in range(0, n - size + 1, size)]
    return out[:limit] if limit else out


def _clip(params, max_norm, scale, ctx):
    """Scale gradients so the norm of grad/scale is at most max_norm."""
    grads = [p.grad(ctx) for p in params.values() if p.grad_req != "null"]
    norm = math.sqrt(sum(float((g * g).sum().asscalar()) for g in grads)) / scale
    if norm > max_norm:
        for g in grads:
            g[:] = g * (max_norm / norm)


def params_path(cfg, name, out_path=None):
    """Where a train recipe's final parameters go: `params_file`, else the metrics file
    with `.params`, else results/NAME.params.

    Args:
        cfg: the validated train recipe data (its ``params_file`` and ``output``).
        name: the recipe's name.
        out_path: default None: the metrics file, overriding ``cfg['output']``.

    Returns:
        The path, a str.

    Example::

        from gluonlite.bench.train import params_path
        cfg = {'params_file': None, 'output': 'out/adding.jsonl'}
        print(params_path(cfg, 'adding'))   # out/adding.params
        print(params_path(dict(cfg, output=None), 'adding'))   # results/adding.params
    """
    out_path = out_path or cfg["output"]
    return cfg["params_file"] or (
        os.path.splitext(out_path)[0] + ".params" if out_path
        else os.path.join("results", f"{name}.params"))


def run_train(recipe, out_path=None, emit=print, progress=True):
    r"""Train the recipe's model; write metrics per epoch and save the parameters.

    Args:
        recipe: a validated `Recipe` of kind 'train'.
        out_path: metrics JSON lines file (overrides the recipe's `output`).
        emit: called with each JSON line (stdout by default).
        progress: show a tqdm bar over batches on stderr.

    Returns:
        the final record (dict).

    Raises:
        OutputError: the output file cannot be written (before training starts).

    Example::

        from gluonlite.bench import recipe, train
        open('tiny.yaml', 'w').write(
            "kind: train\ntask: adding\nmodel: {cell: RNNCell, hidden_size: 4}\n"
            "adding: {seq_len: 3, train_size: 16, valid_size: 8}\nepochs: 1\nbatch_size: 8\n")
        final = train.run_train(recipe.load_recipe('tiny.yaml'), out_path='tiny.jsonl',
                                emit=lambda line: None, progress=False)
        final['params_file']     # 'tiny.params', beside the metrics file
    """
    cfg = recipe.data
    out_path = out_path or cfg["output"]
    params_file = params_path(cfg, recipe.name, out_path)
    writer = ResultsFile(out_path) if out_path else None
    check_writable(params_file)  # fail now, not after training
    try:
        net, final = fit(cfg, recipe.name, lambda rec: _emit(rec, writer, emit), progress)
        net.save_parameters(params_file)
        final["params_file"] = params_file
        _emit(final, writer, emit)
        return final
    finally:
        if writer is not None:
            writer.close()


class _TaskData:
    """A train recipe's data (training and validation splits) and its loss and metric."""

    def __init__(self, cfg, rng):
        self.xt, self.yt, self.xv, self.yv, self.shape_kw = _task_data(cfg, rng)
        self.charlm = cfg["task"] == "charlm"
        self.loss_fn = (gluon.loss.SoftmaxCrossEntropyLoss() if self.charlm
                        else gluon.loss.L2Loss())
        self.limit = cfg["charlm"]["max_batches"] if self.charlm else None
        self.y_axis = 1 if self.charlm else 0  # charlm targets are (T, n); adding (n, 1)
        self.metric_name = "bpc" if self.charlm else "mse"

    def to_metric(self, value):
        """L2Loss is 0.5 * squared error: report MSE. Cross-entropy is in nats: bits."""
        return value / math.log(2) if self.charlm else 2.0 * value

    def loss(self, net, idx, train, ctx):
        """The loss of the batch `idx` (recorded, with its backward, when `train`)."""
        x = nd.array((self.xt if train else self.xv)[:, idx], ctx=ctx)
        y = nd.array(np.take(self.yt if train else self.yv, idx, axis=self.y_axis), ctx=ctx)
        if not train:
            return self._loss(net(x), y)
        with autograd.record():
            loss = self._loss(net(x), y)
        loss.backward()
        return loss

    def _loss(self, pred, y):
        if self.charlm:
            return self.loss_fn(pred.reshape((-1, pred.shape[-1])), y.reshape((-1,)))
        return self.loss_fn(pred, y)


def _model(cfg, data, ctx):
    """(net, trainer) of a train recipe, initialized on ctx."""
    m, o = cfg["model"], cfg["optimizer"]
    net = models.SequenceModel(m["cell"], m["loop"], m["hidden_size"], m["num_layers"],
                               hybridize_cell=m["hybridize_cell"],
                               hybridize_layer=m["hybridize_layer"], **data.shape_kw)
    net.initialize(ctx=ctx)
    net.hybridize_layers()
    opt_params = {"learning_rate": o["lr"], "wd": o["wd"]}
    if o["name"] == "sgd":
        opt_params["momentum"] = o["momentum"]
    return net, gluon.Trainer(net.collect_params(), o["name"], opt_params)


def _epoch(cfg, net, trainer, data, ctx, bar):
    """Train one epoch over `bar` (the batches) and validate; returns the two mean losses."""
    total, count = 0.0, 0
    for idx in bar:
        loss = data.loss(net, idx, True, ctx)
        rows = loss.shape[0]
        if cfg["optimizer"]["clip_norm"]:
            _clip(net.collect_params(), cfg["optimizer"]["clip_norm"], rows, ctx)
        trainer.step(rows)
        total += float(loss.sum().asscalar())
        count += rows
    bar.close()
    vtotal, vcount = 0.0, 0
    for idx in _batches(data.xv.shape[1], cfg["batch_size"], None, data.limit):
        loss = data.loss(net, idx, False, ctx)
        vtotal += float(loss.sum().asscalar())
        vcount += loss.shape[0]
    return total / count, vtotal / vcount


def fit(cfg, name, emit, progress=True):
    r"""Train the model of a train recipe's data; no files are written.

    Args:
        cfg: `Recipe.data` of a train recipe.
        name: the recipe's name, for the final record.
        emit: called with each epoch's record (a dict) as the epoch ends.
        progress: show a tqdm bar over batches on stderr.

    Returns:
        (net, final): the trained model and the final record (without `params_file`).

    The recipe's seed seeds gluonlite's random generator too (the run is reproducible).

    Example::

        from gluonlite.bench import recipe, train
        open('tiny.yaml', 'w').write(
            "kind: train\ntask: adding\nmodel: {cell: RNNCell, hidden_size: 4}\n"
            "adding: {seq_len: 3, train_size: 16, valid_size: 8}\nepochs: 1\nbatch_size: 8\n")
        r = recipe.load_recipe('tiny.yaml')
        net, final = train.fit(r.data, r.name, emit=lambda record: None, progress=False)
        final['epochs'], final['metric']    # (1, 'valid_mse')
    """
    rng = np.random.default_rng(cfg["seed"])
    mx.random.seed(cfg["seed"])
    data = _TaskData(cfg, rng)
    ctx = models.make_ctx(cfg["ctx"])
    net, trainer = _model(cfg, data, ctx)
    metric, record = data.metric_name, None
    for epoch in range(1, cfg["epochs"] + 1):
        tick = time.perf_counter()
        bar = tqdm(_batches(data.xt.shape[1], cfg["batch_size"], rng, data.limit),
                   desc=f"epoch {epoch}", unit="batch", leave=False, file=sys.stderr,
                   disable=not progress)
        train_loss, valid_loss = _epoch(cfg, net, trainer, data, ctx, bar)
        record = {"epoch": epoch, "train_loss": train_loss,
                  f"train_{metric}": data.to_metric(train_loss),
                  f"valid_{metric}": data.to_metric(valid_loss),
                  "time_s": round(time.perf_counter() - tick, 3)}
        emit(record)
    judged = JUDGED[cfg["task"]]
    value = record[judged]
    final = {"final": True, "recipe": name, "task": cfg["task"], "metric": judged,
             "value": value, "target": cfg["target"],
             "passed": None if cfg["target"] is None else bool(value <= cfg["target"]),
             "epochs": cfg["epochs"]}
    return net, final


def _emit(record, writer, emit):
    if writer is not None:
        writer.write(record)
    emit(json.dumps(record))
