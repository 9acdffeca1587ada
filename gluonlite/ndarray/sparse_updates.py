"""The optimizer update operators (``sgd_update``, ``adam_update``, ...) on sparse arrays.

A `row_sparse` gradient takes MXNet's sparse kernels where MXNet 1.9.1 has one (the
storage-type rules are `gluonlite.ops.optimizer_ops.row_sparse_path`):

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
fallback).

These kernels are rows of `gluonlite.ndarray.sparse_ops.RULES`, so ``nd.sgd_update(w, g,
out=w, ...)`` given a sparse input and ``nd.sparse.sgd_update`` both reach them;
``nd.sparse.adagrad_update`` is MXNet's ``_sparse_adagrad_update``.

Two more rows keep training sparse end to end: ``Embedding`` of a row_sparse weight (what
`gluon.contrib.nn.SparseEmbedding` reads) gathers from the stored rows and records a
row_sparse gradient, and ``dot(csr, w)`` recorded with a dense `w` gives `w` the rows of the
features its batch holds (the csr never densified).

Example::

    w = nd.ones((5, 2))
    g = nd.sparse.row_sparse_array((nd.ones((1, 2)), nd.array([3])), shape=(5, 2))
    nd.sgd_update(w, g, out=w, lr=0.1, wd=0.1)   # only row 3 changes (lazy_update=True)
"""
import numpy as np

from ..ops import registry
from ..ops.optimizer_ops import UPDATE_RULES, row_sparse_path, row_sparse_update
from ..ops.sparse_grads import RowSparseRows
from . import sparse as _sp
from . import sparse_ops as _ops
from .ndarray import NDArray

__all__ = ["update_kernel"]


def _whole_rows(x):
    """The raw dense buffer of NDArray `x` with every row, written in place by the kernels:
    a dense array's own buffer, or a row_sparse array's stored rows, after storing the rows
    it lacks (zeros: the values do not change) when it does not hold all of them."""
    if not isinstance(x, _sp.BaseSparseNDArray):
        return x._data
    n = x.shape[0]
    if x._sindices.size != n:
        full = np.zeros(x.shape, x._sdata.dtype)
        full[x._sindices] = x._sdata
        x._sdata, x._sindices = full, np.arange(n, dtype=np.int64)
    return x._sdata


def _dense_fallback(name, p, weight, grad, states):
    """The dense rule on dense copies; results written back in each array's storage."""
    rule, state_names = UPDATE_RULES[name]
    raw = [_sp._host(x) for x in (weight, grad) + tuple(states)]
    if len(raw) != 2 + len(state_names):
        raise TypeError(f"{name}: expected {2 + len(state_names)} arrays (weight, grad and "
                        f"states {', '.join(state_names)}), got {len(raw)}")
    new = np.asarray(rule(p, np, *raw)).astype(raw[0].dtype, copy=False)
    for x, r in zip(states, raw[2:]):
        _write(x, r)
    _write(weight, new)


def _write(x, values):
    if isinstance(x, _sp.BaseSparseNDArray):
        x._assign_dense(values)
    else:
        x._data[...] = x._ctx.xp.asarray(values)


def update_kernel(name):
    """The kernel of update operator `name` for arguments holding sparse arrays:
    ``kernel(weight, grad, *states, **attrs)`` updates `weight` (and the states) in place and
    returns it.

    Raises:
        ValueError: a bad attribute, or a storage combination the operator does not take
            (``_sparse_adagrad_update``).
    """
    op = registry.get(name)

    def kernel(weight, grad, *states, **attrs):
        p = op.parse(attrs)[0]
        path = row_sparse_path(name, p, weight.stype, grad.stype, [s.stype for s in states])
        if path == "dense":
            _dense_fallback(name, p, weight, grad, states)
            return weight
        xp = weight._ctx.xp
        w = _whole_rows(weight)
        bufs = [_whole_rows(s) for s in states]
        idx, vals = xp.asarray(grad._sindices), xp.asarray(grad._sdata).astype(w.dtype)
        row_sparse_update(name, p, xp, w, idx, vals, bufs, path == "lazy")
        return weight
    kernel.__name__ = name
    return kernel


def _embedding(data, weight, input_dim=None, output_dim=None, dtype="float32",
               sparse_grad=False, **kwargs):
    """``Embedding`` with a row_sparse weight (what `SparseEmbedding` reads through
    `row_sparse_data`): the rows are gathered from the stored rows (a row not stored reads
    zeros), never from a dense copy of the whole weight; under ``autograd.record()`` the
    weight's gradient is the rows read (row_sparse, whatever `sparse_grad` says, as the
    weight itself is). Other storage combinations return None: the dense operator runs."""
    from .. import autograd_tape
    from ..ops import registry as _reg
    from ..ops.sparse_grads import sparse_vjp_for
    if weight.stype != "row_sparse" or data.stype != "default":
        return None
    op = _reg.get("Embedding")
    p = op.parse({"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype,
                  "sparse_grad": True, **kwargs})[0]
    idx = np.clip(data.asnumpy().astype(np.int64), 0, p.input_dim - 1)
    have = weight._sindices
    pos = np.minimum(np.searchsorted(have, idx), max(have.size - 1, 0))
    hit = (have[pos] == idx) if have.size else np.zeros(idx.shape, bool)
    out = np.zeros(idx.shape + weight.shape[1:], weight._sdata.dtype)
    out[hit] = weight._sdata[pos[hit]]
    res = NDArray(weight._ctx.xp.asarray(out), weight._ctx)
    if autograd_tape.is_recording() and weight._entry is not None:
        rule, rc = sparse_vjp_for(op, p), _runctx()
        xs = (data._data, _ShapeOnly(weight.shape))

        def vjp(gys, need, _xs=xs):
            return rule(p, rc, _xs, None, gys, need)
        autograd_tape.record_node([None, weight], vjp, [res], "Embedding")
    return res


class _ShapeOnly:
    """Stands for the weight in the gradient rule, which reads only its shape."""

    def __init__(self, shape):
        self.shape = shape


def _runctx():
    from ..ops.registry import RunCtx
    return RunCtx(True, np)


def _dot_rows_grad(dense_dot):
    """Wrap the sparse `dot` kernel: for ``dot(csr, w)`` recorded with `w` dense, `w`'s
    gradient ``csr.T @ dy`` is made as the rows the batch's columns name (row_sparse), not as
    a dense (features x k) array, and the csr data is never densified (a sparse linear model
    over 10^6 features touches only the features its batch holds)."""
    def kernel(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None, **kw):
        from .. import autograd_tape
        res = dense_dot(lhs, rhs, transpose_a=transpose_a, transpose_b=transpose_b,
                        forward_stype=forward_stype, **kw)
        if not (autograd_tape.is_recording() and lhs.stype == "csr" and rhs.stype == "default"
                and not transpose_a and not transpose_b and lhs._entry is None
                and rhs._entry is not None and res is not None and res.stype == "default"):
            return res
        a = lhs._scipy()
        cols = np.unique(a.indices)
        sub = a[:, cols]

        def vjp(gys, need, _sub=sub, _cols=cols, _shape=rhs.shape):
            gy = gys[0] if isinstance(gys[0], np.ndarray) else gys[0].get()
            vals = np.asarray(_sub.T @ gy).astype(gy.dtype, copy=False)
            return None, RowSparseRows(_cols, vals, _shape)
        autograd_tape.record_node([None, rhs], vjp, [res], "dot")
        return res
    kernel.__name__ = "dot"
    return kernel


def _install():
    from . import register
    for name in UPDATE_RULES:
        _ops.RULES[name] = (update_kernel(name), "all")
        register._sparse_rules.add(name)
    # MXNet's nd.sparse.adagrad_update is the operator _sparse_adagrad_update
    _ops.RULES["adagrad_update"] = _ops.RULES["_sparse_adagrad_update"]
    _ops.RULES["Embedding"] = (_embedding, (0, 1))
    _ops.RULES["dot"] = (_dot_rows_grad(_ops.RULES["dot"][0]), _ops.RULES["dot"][1])
    register._sparse_rules.add("Embedding")


_install()
