"""`Trainer.save_states` / `load_states`: optimizer states in MXNet's NDArray-list file.

One file holds everything, so one atomic rename writes it:

- per parameter index ``i``, its optimizer state arrays, named ``"i"`` (one array, e.g. SGD
  momentum) or ``"i:k"`` (the k-th of a tuple, e.g. Adam's mean and variance);
- an entry ``"__trainer_states__"``: a uint8 array holding a small JSON record of what arrays
  cannot carry: the optimizer's name, its scalar hyperparameters and step counts
  (``num_update`` and the per-index update counts that Adam's bias correction reads) and
  the layout of each index's state (none, one array, or a tuple of n).

No pickle: loading parses the file with the checks of `nd.load` and validates the record
and every array against the trainer's optimizer and parameters before changing anything.

Example::

    from gluonlite.optimizer import saved_states
    net = nn.Dense(2, in_units=3); net.initialize()
    trainer = gluon.Trainer(net.collect_params(), 'adam')
    trainer.save_states('trainer.states')   # writes the file this module describes
"""
import json

import numpy as np

from ..context import cpu, current_context
from ..ndarray import serialization
from ..ndarray.ndarray import NDArray
from ..optimizer.optimizer import _flatten, _unflatten

__all__ = ["save_states", "load_states", "fill_like", "RECORD_NAME"]

RECORD_NAME = "__trainer_states__"
FORMAT = "gluonlite.trainer_states"
VERSION = 1


def _scalar(v):
    """`v` as a JSON scalar, or None when it is not a scalar hyperparameter."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, (bool, int, float)) or v is None:
        return v
    raise TypeError


def _scalars(optimizer):
    """The optimizer's public scalar attributes (learning rate, wd, momentum, betas, ...)."""
    out = {}
    for k, v in vars(optimizer).items():
        if k.startswith("_") or k == "rescale_grad":  # rescale_grad: set by every step()
            continue
        try:
            out[k] = _scalar(v)
        except TypeError:
            continue
    return out


def save_states(fname, optimizer, states, params):
    """Write `optimizer`'s scalars and step counts and the updater `states` (index -> None,
    a raw array, or a tuple of raw arrays, for the Parameters `params` by index) to `fname`
    (atomically).

    Raises:
        TypeError: a state that is not None, an array or a tuple of arrays.

    Example::

        from gluonlite.optimizer import saved_states
        w = gluon.Parameter('w', shape=(2,)); w.initialize()
        opt = mx.optimizer.Adam()
        saved_states.save_states('adam.states', opt, {0: opt.create_state(0, w.data())}, [w])
    """
    arrays, layout = {}, {}
    for i in sorted(states):
        st, ctx = states[i], _context_of(params[i])
        leaves = []
        try:
            spec = _flatten(st, leaves)
        except TypeError:
            raise TypeError(f"Trainer.save_states: the optimizer state of parameter index {i} "
                            f"is a {type(st).__name__}; expected None, an NDArray or a tuple "
                            "of them") from None
        # a tree of NDArrays and Nones (multi-precision states nest: (weight32, (m, v)))
        layout[str(i)] = {"kind": "tree", "spec": spec}
        for k, a in enumerate(leaves):
            arrays[f"{i}:{k}"] = NDArray(a._data, ctx)
    record = {"format": FORMAT, "version": VERSION,
              "optimizer": type(optimizer).__name__.lower(),
              "scalars": _scalars(optimizer),
              "index_update_count": {str(i): c for i, c in
                                     sorted(optimizer._index_update_count.items())},
              "states": layout}
    raw = np.frombuffer(json.dumps(record, sort_keys=True).encode("utf-8"), dtype=np.uint8)
    arrays[RECORD_NAME] = NDArray(raw.copy(), cpu())
    serialization.save(fname, arrays)


def _bad(fname, msg):
    return ValueError(f"{fname}: not a valid Trainer states file: {msg}")


def _read_record(fname, named):
    raw = named.pop(RECORD_NAME, None)
    if raw is None:
        raise _bad(fname, f"no {RECORD_NAME!r} entry (was it written by Trainer.save_states?)")
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise _bad(fname, f"{RECORD_NAME!r} must be a 1-d uint8 array, got {raw.dtype} of "
                          f"shape {raw.shape}")
    try:
        record = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise _bad(fname, f"{RECORD_NAME!r} is not UTF-8 JSON ({e})") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise _bad(fname, f"{RECORD_NAME!r} is not a {FORMAT} record")
    if record.get("version") != VERSION:
        raise _bad(fname, f"record version {record.get('version')!r}; this gluonlite reads "
                          f"version {VERSION}")
    for key, kind in (("scalars", dict), ("index_update_count", dict), ("states", dict),
                      ("optimizer", str)):
        if not isinstance(record.get(key), kind):
            raise _bad(fname, f"record field {key!r} must be a {kind.__name__}")
    return record


def _index(fname, key, params):
    try:
        i = int(key)
    except ValueError:
        raise _bad(fname, f"parameter index {key!r} is not an integer") from None
    known = i in params if isinstance(params, dict) else 0 <= i < len(params)
    if not known:
        raise _bad(fname, f"parameter index {i} is out of range for a Trainer of {len(params)} "
                          "parameters")
    return i


def load_states(fname, optimizer, params):
    """Read a file written by `save_states` and check it against `optimizer` and `params`
    (the trainer's Parameters by index: a list, or a dict index -> anything with `name`,
    `shape` and `list_ctx()`, as a KVStore passes its stored values).

    Args:
        fname (str): the file `save_states` wrote.
        optimizer (Optimizer): the optimizer the states are for; its name must match the
            record's.
        params (list or dict): the parameters by index, to check each state's shape and
            place it on the parameter's context.

    Returns:
        (states, index_update_count, scalars): states as raw arrays on each parameter's
        context, ready for the updater; nothing is changed here.

    Raises:
        ValueError: a malformed or truncated file, a record for another optimizer, or a state
            whose shape does not match its parameter (the message names the file).

    Example::

        from gluonlite.optimizer import saved_states
        w = gluon.Parameter('w', shape=(2,)); w.initialize()
        opt = mx.optimizer.Adam()
        saved_states.save_states('adam.states', opt, {0: opt.create_state(0, w.data())}, [w])
        states, counts, scalars = saved_states.load_states('adam.states', opt, [w])
        len(states[0])   # 2: Adam's mean and variance
    """
    arrays, names = serialization.loads(_read_bytes(fname), str(fname))
    if not names:
        raise _bad(fname, "its arrays have no names")
    named = dict(zip(names, arrays))
    record = _read_record(fname, named)
    mine = type(optimizer).__name__.lower()
    if record["optimizer"] != mine:
        raise ValueError(f"{fname}: states were saved for optimizer {record['optimizer']!r} "
                         f"but this Trainer uses {mine!r}")
    states, used = {}, set()
    for key, spec in record["states"].items():
        i = _index(fname, key, params)
        kind = spec.get("kind") if isinstance(spec, dict) else None
        if kind == "none":
            states[i] = None
            continue
        if kind == "array":
            keys, spec = [str(i)], 0
        elif kind == "tuple" and isinstance(spec.get("count"), int) and spec["count"] >= 0:
            keys = [f"{i}:{k}" for k in range(spec["count"])]
            spec = {"tuple": list(range(spec["count"]))}
        elif kind == "tree":
            spec = spec.get("spec")
            keys = sorted((k for k in named if k.split(":")[0] == str(i) and ":" in k),
                          key=lambda k: int(k.split(":")[1]))
        else:
            raise _bad(fname, f"state layout {spec!r} of parameter index {i}")
        missing = [k for k in keys if k not in named]
        if missing:
            raise _bad(fname, f"missing state array(s) {missing} of parameter index {i}")
        p = params[i]
        want = tuple(p.shape) if p.shape is not None and all(p.shape) else None
        vals = []
        for k in keys:
            a = named[k]
            if want is not None and tuple(a.shape) != want:
                raise ValueError(f"{fname}: state array {k!r} has shape {tuple(a.shape)} but "
                                 f"parameter {p.name!r} (index {i}) has shape {want}")
            vals.append(a)
        used.update(keys)
        ctx = _context_of(p)
        vals = [NDArray(ctx.xp.asarray(a), ctx) for a in vals]
        try:
            states[i] = _unflatten(spec, vals, str(fname))
        except ValueError as e:
            raise _bad(fname, str(e)) from None
    extra = sorted(set(named) - used)
    if extra:
        raise _bad(fname, f"arrays {extra} are not described by its record")
    counts = {_index(fname, k, params): c
              for k, c in record["index_update_count"].items()}
    if not all(isinstance(c, int) and c >= 0 for c in counts.values()):
        raise _bad(fname, "update counts must be non-negative integers")
    return states, counts, record["scalars"]


def _read_bytes(fname):
    with open(fname, "rb") as f:
        return f.read()


def _context_of(p):
    try:
        return p.list_ctx()[0]
    except (RuntimeError, ValueError, IndexError):
        return current_context()


def fill_like(template, state, ctx):
    """A copy of loaded `state` (None, an array or a nested tuple of arrays) on `ctx`, each
    array in the kind the optimizer keeps: NDArrays stay NDArrays; a raw array takes the kind
    of the matching part of `template` (what the optimizer's create_state makes).

    Example::

        from gluonlite.optimizer import saved_states
        opt, w = mx.optimizer.Adam(), nd.ones((2,))
        loaded = (np.zeros(2), np.ones(2))   # raw arrays, as load_states returns them
        mean, var = saved_states.fill_like(opt.create_state(0, w), loaded, mx.cpu())
        type(var).__name__, var.asnumpy().tolist()   # ('NDArray', [1.0, 1.0])
    """
    if state is None:
        return None
    if isinstance(state, (tuple, list)):
        parts = template if isinstance(template, (tuple, list)) and \
            len(template) == len(state) else [None] * len(state)
        return type(state)(fill_like(t, s, ctx) for t, s in zip(parts, state))
    xp = ctx.xp if ctx is not None else np
    if isinstance(state, NDArray):
        out = NDArray(xp.array(state.asnumpy(), copy=True), ctx or state.context)
        if isinstance(template, NDArray) and template.stype != "default":
            # a lazy optimizer's row_sparse state stays row_sparse (its updates stay lazy)
            out = out.tostype(template.stype)
        return out
    raw = xp.array(state, copy=True)
    if isinstance(template, NDArray):
        return NDArray(raw.astype(template.dtype, copy=False), template.context)
    return raw
