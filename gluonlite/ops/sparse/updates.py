"""The optimizer update operators (``sgd_update``, ``adam_update``, ...) on sparse storage:
their storage rule (`update_rule`), given when `gluonlite.ops.optimizer_ops` registers them.

A `row_sparse` gradient takes MXNet's sparse kernels where MXNet 1.9.1 has one
(`row_sparse_path` decides as MXNet's storage-type rules do):

- lazy (``lazy_update=True``, and always for ``ftrl_update`` and ``adagrad_update``): only
  the gradient's rows of the weight and of the states change: the dense rule applied to
  those rows (an embedding over 10^6 words updated from a batch of 100 rows touches 100 rows);
- standard (``lazy_update=False``): every row changes, rows missing from the gradient with a
  zero gradient (weight decay and momentum reach them), as with the dense gradient.

The weight is updated in place (MXNet's sparse kernels require ``out=weight``). A row_sparse
weight or state is updated as holding every row: one that lacks rows (a state from `zeros`
holds none) first gets them, as zero rows, so its values do not change (MXNet fills states so;
it refuses such weights). Every other combination of storage types runs the dense rule on
dense copies and writes the results back in each array's own storage (MXNet's storage
fallback, for these operators with their states kept).

Example::

    w = nd.ones((5, 2))
    g = nd.sparse.row_sparse_array((nd.ones((1, 2)), nd.array([3])), shape=(5, 2))
    nd.sgd_update(w, g, out=w, lr=0.1, wd=0.1)   # only row 3 changes (lazy_update=True)
"""
import numpy as np

from .arrays import from_dense, host, is_sparse
from .rule import StorageRule, stype_of

__all__ = ["ROW_SPARSE_KERNELS", "row_sparse_path", "row_sparse_update", "update_rule"]


# ---- row_sparse gradients (MXNet's FComputeEx kernels) ------------------------------------
# The update operators MXNet 1.9.1 gives a kernel for a row_sparse gradient, and how it picks
# one: "flag": ``lazy_update`` chooses the lazy kernel (only the gradient's rows, and their
# states, change) or the standard one (every row: the dense rule with zero gradient rows);
# "lazy": always the lazy kernel. Every other combination of storage types runs the dense
# rule on dense copies (MXNet's storage fallback).
ROW_SPARSE_KERNELS = {"sgd_update": "flag", "sgd_mom_update": "flag", "adam_update": "flag",
                      "ftrl_update": "lazy", "_sparse_adagrad_update": "lazy",
                      "_contrib_group_adagrad_update": "lazy"}


def row_sparse_path(name, p, w_stype, g_stype, s_stypes):
    """How update operator `name` runs on these storage types, as MXNet's storage-type rules
    decide: 'lazy' (the gradient's rows only), 'std' (every row) or 'dense' (the dense rule
    on dense copies of every input, the results written back in each array's storage).

    Args:
        p: the parsed attributes (``lazy_update``, ``wd``).
        w_stype: the weight's storage type.
        g_stype: the gradient's storage type.
        s_stypes: the states' storage types, a list.

    Returns:
        str: 'lazy', 'std' or 'dense'.

    Raises:
        ValueError: ``_sparse_adagrad_update`` on a combination its only kernel does not
            take (MXNet has no dense fallback for it).

    Example::

        from gluonlite.ops import registry
        from gluonlite.ops.sparse.updates import row_sparse_path
        p = registry.get('sgd_mom_update').parse({'lr': '0.1', 'lazy_update': 'True'})[0]
        row_sparse_path('sgd_mom_update', p, 'default', 'row_sparse', ['default'])   # 'lazy'
    """
    kind = ROW_SPARSE_KERNELS.get(name)
    states_match = all(s == w_stype for s in s_stypes)
    ok = kind is not None and g_stype == "row_sparse" and w_stype in ("default", "row_sparse")
    if name == "_contrib_group_adagrad_update" and ok and states_match:
        return "lazy"
    if name == "_sparse_adagrad_update":
        if ok and states_match and p.wd == 0:
            return "lazy"
        raise ValueError(f"{name}: no kernel for weight {w_stype!r}, grad {g_stype!r}, history "
                         f"{s_stypes[0]!r} with wd={p.wd}: it needs a row_sparse grad, a "
                         "default or row_sparse weight with a history of the same storage "
                         "type, and wd=0")
    if name == "ftrl_update":
        return "lazy" if ok and w_stype == "row_sparse" and states_match else "dense"
    if not ok:
        return "dense"
    if states_match:
        return "lazy" if p.lazy_update else "std"
    if w_stype == "row_sparse" and all(s == "default" for s in s_stypes):
        return "std"
    return "dense"


def row_sparse_update(rule, p, xp, weight, indices, values, states, lazy):
    """Run an update operator's dense rule ``rule(p, xp, weight, grad, *states) -> new
    weight`` with a row_sparse gradient on dense buffers, in place.

    Args:
        rule: the dense rule (see above).
        p: the operator's parsed attributes.
        xp: the array module of the buffers.
        weight: the whole weight (every row), updated in place.
        indices: the gradient's row ids (unique, ascending).
        values: the gradient's rows, one per index.
        states: the operator's state buffers (whole, like weight), updated in place.
        lazy: update only the rows in `indices` (MXNet's lazy kernels: the dense rule on
            those rows); else every row, the rows not in `indices` with a zero gradient.

    Example: ``row_sparse_update(sgd_rule, p, np, w, np.array([1]), g1, [], True)``
    changes row 1 of w only.
    """
    if lazy:
        if indices.size == 0:
            return
        rows = [s[indices] for s in states]
        weight[indices] = rule(p, xp, weight[indices], values, *rows)
        for s, r in zip(states, rows):
            s[indices] = r
        return
    grad = xp.zeros_like(weight)
    grad[indices] = values
    weight[...] = rule(p, xp, weight, grad, *states)


def _whole_rows(x):
    """The dense buffer of raw input `x` holding every row, written in place by the rules:
    a dense array itself, or a row_sparse array's stored rows, after storing the rows it
    lacks (zeros: the values do not change) when it does not hold all of them."""
    if not is_sparse(x):
        return x
    n = x.shape[0]
    if x.indices.size != n:
        full = np.zeros(x.shape, x.data.dtype)
        full[x.indices] = x.data
        x.data, x.indices = full, np.arange(n, dtype=np.int64)
    return x.data


def _write(x, values, xp):
    """Write dense `values` into raw input `x`, in its own storage."""
    if is_sparse(x):
        new = from_dense(np.asarray(values, dtype=x.data.dtype), x.stype)
        x.data = new.data
        for name in ("indices", "indptr"):
            if hasattr(new, name):
                setattr(x, name, getattr(new, name))
    else:
        x[...] = xp.asarray(values)


def update_rule(name, rule, state_names):
    """The storage rule of update operator `name`, whose dense rule is ``rule(p, xp, weight,
    grad, *states) -> new weight`` with states `state_names`: updates the weight (and the
    states) in place, in their own storage, and returns the weight.

    Args:
        name: the operator's name (picks the kernels: see `row_sparse_path`).
        rule: the dense rule (see above).
        state_names: the names of the state inputs, in order.

    Returns:
        StorageRule: whose kernel updates the inputs in place.

    Raises (from the kernel):
        TypeError: a number of arrays other than weight, grad and the states.
        ValueError: a storage combination the operator does not take
            (``_sparse_adagrad_update``).

    Example::

        from gluonlite.ops.sparse.updates import update_rule
        rule = update_rule("my_sgd", lambda p, xp, w, g: w - p.lr * g, ())
        type(rule).__name__         # 'StorageRule'
    """
    def kernel(p, rc, weight, grad, *states):
        if len(states) != len(state_names):
            raise TypeError(f"{name}: expected {2 + len(state_names)} arrays (weight, grad and "
                            f"states {', '.join(state_names)}), got {2 + len(states)}")
        path = row_sparse_path(name, p, stype_of(weight), stype_of(grad),
                               [stype_of(s) for s in states])
        xp = rc.xp
        if path == "dense":  # the dense rule on dense copies, written back in each storage
            raw = [host(x) for x in (weight, grad) + tuple(states)]
            new = np.asarray(rule(p, np, *raw)).astype(raw[0].dtype, copy=False)
            for x, r in zip(states, raw[2:]):
                _write(x, r, xp)
            _write(weight, new, xp)
            return weight
        w = _whole_rows(weight)
        bufs = [_whole_rows(s) for s in states]
        idx, vals = xp.asarray(grad.indices), xp.asarray(grad.data).astype(w.dtype)
        row_sparse_update(rule, p, xp, w, idx, vals, bufs, path == "lazy")
        return weight
    return StorageRule(kernel, inplace=True)
