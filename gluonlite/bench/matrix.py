"""Expanding a bench recipe's matrix into an ordered list of cases.

A case is a flat dict with every key of `KEY_FIELDS`; `case_key` turns it into the
tuple that identifies it in a results file (used by `--resume`). The order follows
the seed benchmark: per benchmark, per (cell, ctx, seq_len, batch_size, hidden_dim),
then every (is_train, hybridize_cell, hybridize_layer). With a numpy baseline, the
floor cases of a (cell, ctx, seq_len, batch_size, hidden_dim) come right before the first
group that needs them (once per run: the floor does not depend on the benchmark; it runs
in numpy on a cpu ctx, in CuPy on a gpu).

Example:
    >>> from gluonlite.bench.recipe import from_data
    >>> r = from_data({'benchmark': 'foreach', 'matrix': {'ctx': 'cpu', 'cell': 'LSTMCell'}})
    >>> cases, skipped = expand(r.data)
    >>> len(cases), cases[0]['ctx']
    (16, 'cpu(0)')
"""
import itertools
import re

__all__ = ["MATRIX_KEYS", "KEY_FIELDS", "FLOOR_IMPLS", "expand", "case_key", "case_label"]

MATRIX_KEYS = ("benchmark", "cell", "ctx", "seq_len", "batch_size", "hidden_dim", "is_train",
               "hybridize_cell", "hybridize_layer")
KEY_FIELDS = ("impl",) + MATRIX_KEYS
FLOOR_IMPLS = ("floor-step", "floor-fused")
_GROUP = ("cell", "ctx", "seq_len", "batch_size", "hidden_dim")
_VARIANT = ("is_train", "hybridize_cell", "hybridize_layer")


def case_key(record):
    """The identity of a case or result record: a tuple over KEY_FIELDS.

    Records written before `impl` existed count as 'gluonlite'.

    Args:
        record: a case dict or a result record.

    Returns:
        A tuple of the record's KEY_FIELDS values.

    Example::

        from gluonlite.bench.matrix import case_key
        key = case_key({'benchmark': 'foreach', 'cell': 'RNNCell', 'seq_len': 2})
        print(key[:4])  # ('gluonlite', 'foreach', 'RNNCell', None): impl defaults to gluonlite
    """
    return tuple(record.get(k, "gluonlite" if k == "impl" else None) for k in KEY_FIELDS)


def case_label(case):
    """One short human line for a case, for progress bars and error messages.

    Args:
        case: the case dict (a row of the matrix: impl, benchmark, cell, ctx, sizes, flags).

    Returns:
        A str.

    Example:
        >>> case_label({'impl': 'floor-step', 'cell': 'GRUCell', 'seq_len': 5,
        ...             'batch_size': 1, 'hidden_dim': 8, 'is_train': False})
        'floor-step GRUCell T=5 N=1 H=8 infer'
    """
    mode = "train" if case.get("is_train") else "infer"
    size = f"T={case['seq_len']} N={case['batch_size']} H={case['hidden_dim']} {mode}"
    if case.get("impl", "gluonlite") != "gluonlite":
        return f"{case['impl']} {case['cell']} {size}"
    hyb = "".join(n for n, on in (("C", case.get("hybridize_cell")),
                                  ("L", case.get("hybridize_layer"))) if on) or "-"
    return f"{case['benchmark']} {case['cell']} {case['ctx']} {size} hyb={hyb}"


def _expand_ctx(names, num_gpus, gpu_reason):
    """['cpu', 'gpu', 'gpu(3)'] -> (['cpu(0)', 'gpu(0)', ...], [skip messages])."""
    out, skipped = [], []
    for name in names:
        m = re.fullmatch(r"(cpu|gpu)(?:\((\d+)\))?", name)
        dev, idx = m.group(1), m.group(2)
        if dev == "cpu":
            ctxs = [f"cpu({idx or 0})"]
        elif idx is None:
            ctxs = [f"gpu({i})" for i in range(num_gpus)]
        else:
            ctxs = [f"gpu({idx})"] if int(idx) < num_gpus else []
        if not ctxs:
            why = gpu_reason or f"only {num_gpus} GPU(s) visible"
            skipped.append(f"skipping ctx {name}: {why}")
        out += [c for c in ctxs if c not in out]
    return out, skipped


def expand(data, num_gpus=0, gpu_reason="no GPU found"):
    """Expand a validated bench recipe dict into cases.

    Args:
        data: `Recipe.data` of a bench recipe.
        num_gpus: GPUs usable by gluonlite (see `runner.detect_gpus`).
        gpu_reason: why there are none, used in skip messages when num_gpus is 0.

    Returns:
        (cases, skipped): cases is a list of dicts over KEY_FIELDS; skipped is a list of
        one-line messages, one per ctx entry that cannot run here.

    Example::

        from gluonlite.bench.matrix import expand
        from gluonlite.bench.recipe import from_data
        m = {'ctx': ['cpu', 'gpu'], 'cell': 'RNNCell'}
        r = from_data({'benchmark': 'foreach', 'matrix': m})
        cases, skipped = expand(r.data, num_gpus=0)
        print(len(cases), cases[0]['ctx'])  # 16 cpu(0)
        print(skipped)  # ['skipping ctx gpu: no GPU found']
    """
    m = data["matrix"]
    ctxs, skipped = _expand_ctx(m["ctx"], num_gpus, gpu_reason)
    baseline = data.get("baseline") == "numpy"
    cases, floors_done = [], set()
    for bench in data["benchmark"]:
        for cell, ctx, seq_len, batch, hidden in itertools.product(
                m["cell"], ctxs, m["seq_len"], m["batch_size"], m["hidden_dim"]):
            group = dict(zip(_GROUP, (cell, ctx, seq_len, batch, hidden)))
            for is_train in m["is_train"] if baseline else ():
                fkey = (cell, ctx, seq_len, batch, hidden, is_train)  # numpy or CuPy by ctx
                if fkey not in floors_done:
                    floors_done.add(fkey)
                    cases += [dict(group, impl=impl, benchmark=None,
                                   is_train=is_train, hybridize_cell=None,
                                   hybridize_layer=None) for impl in FLOOR_IMPLS]
            for is_train, hc, hl in itertools.product(
                    m["is_train"], m["hybridize_cell"], m["hybridize_layer"]):
                cases.append(dict(group, impl="gluonlite", benchmark=bench, is_train=is_train,
                                  hybridize_cell=hc, hybridize_layer=hl))
    return [{k: c[k] for k in KEY_FIELDS} for c in cases], skipped
