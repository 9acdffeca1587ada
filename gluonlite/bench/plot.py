"""Charts of results files with matplotlib (the optional `plot` extra).

- A bench file: `NAME-speedup` (grouped bars of each hybridized variant's speedup over
  the imperative one) and `NAME-floor` (each case's median over the numpy floor's), per
  cell, batch size and mode, foreach and while_loop side by side, the interquartile
  spread of each ratio drawn as an error bar and 1.0 as a line (log scale: 2x faster and
  2x slower are as far from 1). With more than one
  seq_len, `NAME-scaling`: median time per step against seq_len (log-log), per mode.
- A train file: `NAME-train`: training loss and the metrics per epoch (one line per run
  of a sweep).
Each chart is written as PNG and SVG. Figures are made with matplotlib's object API
(no pyplot, no global state), so drawing works headless and in threads.

Example:
    >>> paths = plot_file('results/quick.jsonl', 'results')     # doctest: +SKIP
    >>> [os.path.basename(p) for p in paths]                     # doctest: +SKIP
    ['quick-speedup.png', 'quick-speedup.svg', 'quick-floor.png', 'quick-floor.svg']
"""
import os

import numpy as np

from .results import OutputError, _make_parent, read_records, spread

__all__ = ["PlotError", "require_matplotlib", "plot_records", "plot_file", "speedup_figure",
           "floor_figure", "scaling_figure", "train_figure", "EXTRA_HINT"]

EXTRA_HINT = "pip install 'gluonlite[plot]'"


class PlotError(RuntimeError):
    """Charts cannot be drawn or written (matplotlib missing, nothing to plot, a folder
    that cannot be written); the message is one line for the user.

    Example::

        from gluonlite.bench import plot
        try:
            plot.plot_records([], 'charts', 'empty')
        except plot.PlotError as err:
            print(str(err)[:30])   # nothing to chart in empty: no
    """


def require_matplotlib():
    """Raise PlotError naming the extra to install when matplotlib does not import.

    Example::

        from gluonlite.bench.plot import require_matplotlib
        require_matplotlib()   # nothing raised where matplotlib imports
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError as e:
        raise PlotError(f"--plot needs matplotlib, the plot extra ({EXTRA_HINT}): {e}") from None


def _figure(width, height):
    require_matplotlib()
    from matplotlib.figure import Figure
    return Figure(figsize=(width, height), layout="constrained")


def _mode(r):
    return "train" if r.get("is_train") else "infer"


def _variant(r):
    hyb = "".join(n for n, on in (("C", r.get("hybridize_cell")),
                                  ("L", r.get("hybridize_layer"))) if on)
    return f"hyb={hyb or '-'}"


def _group(r, sizes):
    """x-axis group label of a case: cell, batch and mode (and T, H when they vary)."""
    parts = [r["cell"].replace("Cell", ""), f"N={r['batch_size']}"]
    if len(sizes["seq_len"]) > 1:
        parts.append(f"T={r['seq_len']}")
    if len(sizes["hidden_dim"]) > 1:
        parts.append(f"H={r['hidden_dim']}")
    if len(sizes["ctx"]) > 1:
        parts.append(r["ctx"])
    return " ".join(parts) + "\n" + _mode(r)


def _bars(ax, series, groups, ylabel, title):
    """Grouped bars: series is {name: {group: (value, low, high)}}; returns the bar
    containers in series order."""
    names = list(series)
    width = 0.8 / max(1, len(names))
    x = np.arange(len(groups))
    containers = []
    for i, name in enumerate(names):
        vals = [series[name].get(g, (np.nan, np.nan, np.nan)) for g in groups]
        h = np.array([v[0] for v in vals], dtype=float)
        lo = np.array([v[1] for v in vals], dtype=float)
        hi = np.array([v[2] for v in vals], dtype=float)
        err = np.vstack([np.clip(h - lo, 0, None), np.clip(hi - h, 0, None)])
        err = np.nan_to_num(err)
        containers.append(ax.bar(x - 0.4 + width * (i + 0.5), np.nan_to_num(h), width,
                                 yerr=err, capsize=2, label=name))
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")  # ratios: 2x faster and 2x slower are the same distance from 1
    ax.yaxis.set_major_formatter("{x:g}x")
    ax.set_xticks(x, groups, fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    return containers


def _ratio_spread(num, den):
    (m1, l1, h1), (m2, l2, h2) = spread(num), spread(den)
    return m1 / m2, l1 / h2, h1 / l2


def _bench_index(records):
    recs = [r for r in records if not r.get("failed") and ("median" in r or "mean" in r)]
    sizes = {k: sorted({r.get(k) for r in recs}, key=str)
             for k in ("seq_len", "hidden_dim", "ctx")}
    return recs, sizes


def _size(r):
    return tuple(r.get(k) for k in ("cell", "ctx", "seq_len", "batch_size", "hidden_dim",
                                    "is_train"))


def speedup_figure(records):
    """Bars of speedup = imperative median / hybridized median, per group and variant.

    Args:
        records: the result records (dicts, as read from a results file).

    Returns:
        (figure, series): series is {'foreach hyb=L': {group: (value, low, high)}, ...}
        as drawn; None, {} when there is no hybridized case with its imperative one.

    Example::

        from gluonlite.bench import plot
        base = dict(impl='gluonlite', benchmark='foreach', cell='RNNCell', ctx='cpu(0)', seq_len=2,
                    batch_size=1, hidden_dim=4, is_train=False, hybridize_cell=False,
                    hybridize_layer=False, median=2.0, q1=1.9, q3=2.1)
        records = [base, dict(base, hybridize_layer=True, median=1.0, q1=0.9, q3=1.1),
                   dict(base, impl='floor-step', benchmark=None, median=0.5, q1=0.4, q3=0.6)]
        fig, bars = plot.speedup_figure(records)
        print(list(bars))   # ['foreach hyb=L']: the hybridized variant, 2x the imperative one
    """
    recs, sizes = _bench_index(records)
    base = {(r["benchmark"],) + _size(r): r for r in recs
            if r.get("impl", "gluonlite") == "gluonlite" and not r.get("hybridize_cell")
            and not r.get("hybridize_layer")}
    series, groups = {}, []
    for r in recs:
        if r.get("impl", "gluonlite") != "gluonlite" or r is base.get(
                (r["benchmark"],) + _size(r)):
            continue
        b = base.get((r["benchmark"],) + _size(r))
        if b is None:
            continue
        g = _group(r, sizes)
        groups += [g] if g not in groups else []
        series.setdefault(f"{r['benchmark']} {_variant(r)}", {})[g] = _ratio_spread(b, r)
    if not series:
        return None, {}
    fig = _figure(max(6, 1.2 * len(groups) + 2), 4)
    _bars(fig.add_subplot(), series, groups, "speedup (higher is better)",
          "hybridized over imperative: imperative median / median, bars = IQR spread")
    return fig, series


def floor_figure(records):
    """Bars of median / floor median for every gluonlite case that has a floor: the floor
    timed in the same rounds (`interleaved`) when the record has it, else the floor case.

    Args:
        records: the result records (dicts, as read from a results file).

    Returns:
        (figure, series) as `speedup_figure`; the floor is floor-fused when the file has
        it, else floor-step.

    Example::

        from gluonlite.bench import plot
        base = dict(impl='gluonlite', benchmark='foreach', cell='RNNCell', ctx='cpu(0)', seq_len=2,
                    batch_size=1, hidden_dim=4, is_train=False, hybridize_cell=False,
                    hybridize_layer=False, median=2.0, q1=1.9, q3=2.1)
        records = [base, dict(base, hybridize_layer=True, median=1.0, q1=0.9, q3=1.1),
                   dict(base, impl='floor-step', benchmark=None, median=0.5, q1=0.4, q3=0.6)]
        fig, bars = plot.floor_figure(records)
        print(sorted(bars))   # ['foreach hyb=-', 'foreach hyb=L']: each case over the floor
    """
    recs, sizes = _bench_index(records)
    floors = {}
    for r in recs:
        if r.get("impl", "gluonlite") != "gluonlite":
            floors.setdefault(r["impl"], {})[_size(r)] = r
        for impl in r.get("interleaved") or {}:
            floors.setdefault(impl, {})
    impl = "floor-fused" if "floor-fused" in floors else ("floor-step" if floors else None)
    if impl is None:
        return None, {}
    series, groups = {}, []
    for r in recs:
        f = (r.get("interleaved") or {}).get(impl) or floors[impl].get(_size(r))
        if r.get("impl", "gluonlite") != "gluonlite" or f is None:
            continue
        g = _group(r, sizes)
        groups += [g] if g not in groups else []
        series.setdefault(f"{r['benchmark']} {_variant(r)}", {})[g] = _ratio_spread(r, f)
    if not series:
        return None, {}
    fig = _figure(max(6, 1.2 * len(groups) + 2), 4)
    _bars(fig.add_subplot(), series, groups, f"x {impl} (lower is better)",
          f"median / {impl} median (hand-written numpy loop), bars = IQR spread")
    return fig, series


def scaling_figure(records):
    """Median time per step (ms / seq_len) against seq_len, one panel per mode.

    Args:
        records: the result records (dicts, as read from a results file).

    Returns:
        (figure, lines): lines is {(mode, name): [(seq_len, ms per step), ...]}; None, {}
        with fewer than two seq_len values.

    Example::

        from gluonlite.bench import plot
        base = dict(impl='gluonlite', benchmark='foreach', cell='RNNCell', ctx='cpu(0)', seq_len=2,
                    batch_size=1, hidden_dim=4, is_train=False, hybridize_cell=False,
                    hybridize_layer=False, median=2.0, q1=1.9, q3=2.1)
        records = [base, dict(base, hybridize_layer=True, median=1.0, q1=0.9, q3=1.1),
                   dict(base, impl='floor-step', benchmark=None, median=0.5, q1=0.4, q3=0.6)]
        fig, lines = plot.scaling_figure(records)
        print(fig)   # None: one seq_len only, nothing to scale
    """
    recs, sizes = _bench_index(records)
    if len(sizes["seq_len"]) < 2:
        return None, {}
    lines = {}
    for r in recs:
        impl = r.get("impl", "gluonlite")
        name = (f"{r['benchmark']} {_variant(r)}" if impl == "gluonlite" else impl)
        name += f" N={r['batch_size']}"
        if len(sizes["hidden_dim"]) > 1:
            name += f" H={r['hidden_dim']}"
        lines.setdefault((_mode(r), f"{r['cell']} {name}"), []).append(
            (r["seq_len"], spread(r)[0] / r["seq_len"]))
    modes = sorted({m for m, _ in lines})
    fig = _figure(6 * len(modes), 4.5)
    for i, mode in enumerate(modes):
        ax = fig.add_subplot(1, len(modes), i + 1)
        for (m, name), pts in sorted(lines.items()):
            if m == mode:
                pts.sort()
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("seq_len")
        ax.set_ylabel("median ms per step (lower is better)")
        ax.set_title(mode, fontsize=10)
        ax.legend(fontsize=6)
    return fig, lines


def train_figure(records):
    """Training loss and metrics per epoch (one line per run of a sweep).

    Args:
        records: the training records (dicts with ``epoch``, losses and metrics).

    Returns:
        (figure, curves): curves is {(run, key): [(epoch, value), ...]}; None, {} when
        there is no epoch record.

    Example::

        from gluonlite.bench import plot
        epochs = [{'epoch': 1, 'train_loss': 0.5, 'valid_mse': 0.6},
                  {'epoch': 2, 'train_loss': 0.3, 'valid_mse': 0.4}]
        fig, lines = plot.train_figure(epochs)
        print(sorted(lines))   # [('', 'train_loss'), ('', 'valid_mse')]: one line per metric
    """
    epochs = [r for r in records if "epoch" in r]
    if not epochs:
        return None, {}
    curves = {}
    for r in epochs:
        for k, v in r.items():
            if k not in ("epoch", "time_s") and isinstance(v, (int, float)) \
                    and not isinstance(v, bool):
                curves.setdefault((r.get("run") or "", k), []).append((r["epoch"], v))
    keys = sorted({k for _, k in curves}, key=lambda k: (k != "train_loss", k))
    fig = _figure(5 * len(keys), 4)
    for i, key in enumerate(keys):
        ax = fig.add_subplot(1, len(keys), i + 1)
        for (run, k), pts in curves.items():
            if k == key:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                        label=run or None)
        ax.set_xlabel("epoch")
        ax.set_ylabel(f"{key} (lower is better)")
        ax.set_yscale("log")
        if any(run for run, _ in curves):
            ax.legend(fontsize=7)
    finals = [r for r in records if r.get("final") is True]
    if finals and finals[-1].get("target") is not None:
        metric, target = finals[-1].get("metric"), finals[-1]["target"]
        fig.suptitle(f"target {metric} <= {target}", fontsize=10)
        if metric in keys:
            fig.axes[keys.index(metric)].axhline(target, color="gray", linestyle="--",
                                                 linewidth=0.8)
    return fig, curves


def _save(fig, folder, stem):
    paths = []
    for ext in ("png", "svg"):
        path = os.path.join(folder, f"{stem}.{ext}")
        tmp = os.path.join(folder, f".tmp-{stem}.{ext}")
        try:
            fig.savefig(tmp, dpi=100, format=ext)
            os.replace(tmp, path)  # never a half-written chart
        except OSError as e:
            try:
                os.remove(tmp)
            except OSError:
                pass
            raise PlotError(f"cannot write the chart {path}: {e.strerror or e}") from None
        paths.append(path)
    return paths


def plot_records(records, folder, name):
    """Draw every chart that fits the records into `folder` (PNG and SVG).

    Args:
        records: result records of one file (bench or train).
        folder: created if missing.
        name: the stem of the chart files ('quick' -> quick-speedup.png, ...).

    Returns:
        the paths written.

    Raises:
        PlotError: matplotlib is missing, the folder cannot be written, or no chart fits.

    Example::

        from gluonlite.bench import plot
        epochs = [{'epoch': 1, 'train_loss': 0.5}, {'epoch': 2, 'train_loss': 0.3}]
        print(plot.plot_records(epochs, 'charts', 'tiny'))
        # ['charts/tiny-train.png', 'charts/tiny-train.svg']
    """
    require_matplotlib()
    try:
        _make_parent(os.path.join(folder, "x"))
    except OutputError as e:
        raise PlotError(str(e)) from None
    paths = []
    makers = (("train", train_figure),) if any("epoch" in r for r in records) else (
        ("speedup", speedup_figure), ("floor", floor_figure), ("scaling", scaling_figure))
    for suffix, make in makers:
        fig, _ = make(records)
        if fig is not None:
            paths += _save(fig, folder, f"{name}-{suffix}")
    if not paths:
        raise PlotError(f"nothing to chart in {name}: no hybridized case with its imperative "
                        "one, no floor, no epochs")
    return paths


def plot_file(path, folder=None):
    r"""`plot_records` of a results file, into `folder` (default: beside the file).

    Args:
        path: the results (.jsonl) file.
        folder: default None: the folder for the charts; None: the file's folder.

    Returns:
        The list of chart paths written.

    Example::

        import json
        from gluonlite.bench import plot
        with open('tiny.jsonl', 'w') as f:
            f.writelines(json.dumps({'epoch': e, 'train_loss': 1 / e}) + '\n' for e in (1, 2))
        print(plot.plot_file('tiny.jsonl', 'charts'))
        # ['charts/tiny-train.png', 'charts/tiny-train.svg']
    """
    records, _ = read_records(path)
    folder = folder or os.path.dirname(os.path.abspath(path))
    return plot_records(records, folder, os.path.splitext(os.path.basename(path))[0])
