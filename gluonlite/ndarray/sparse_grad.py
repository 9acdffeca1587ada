"""Writing gradients into sparse gradient buffers (``attach_grad(stype=...)``, a Parameter's
``grad_stype``, `autograd.mark_variables` with sparse buffers).

`backward` hands each marked variable its gradient as the tape computed it: a dense raw array,
or a `gluonlite.ops.sparse.grads.RowSparseRows` (``Embedding(sparse_grad=True)``). Here it
goes into the variable's gradient buffer in that buffer's storage type, as MXNet does:

- a `row_sparse` buffer keeps the rows given (a RowSparseRows' rows as they are, without
  making the dense gradient; a dense gradient's rows that hold a nonzero);
- a `csr` buffer keeps the nonzero entries;
- a dense buffer takes RowSparseRows' rows scattered into it.

``grad_req='add'`` adds to what the buffer holds (the union of rows for row_sparse).

Example::

    w = nd.ones((1000, 4)); w.attach_grad(stype='row_sparse')
    with autograd.record():
        y = nd.Embedding(nd.array([3, 7]), w, input_dim=1000, output_dim=4, sparse_grad=True)
    y.backward()
    w.grad.indices.asnumpy()   # [3 7]: two rows stored
"""
import numpy as np

from .. import autograd_tape
from ..ops.sparse.grads import RowSparseRows
from . import sparse as _sp

__all__ = ["store_gradient", "rows_to_ndarray"]


def rows_to_ndarray(rows, ctx):
    """A `RowSparseNDArray` holding RowSparseRows `rows` (on the host, as every sparse
    array).

    Args:
        rows: the `RowSparseRows` (row numbers, their values, the full shape), on the host
            or a device.
        ctx: the Context the array reports.

    Returns:
        RowSparseNDArray: holding copies of rows' values and indices on the host.

    Example::

        from gluonlite.ndarray.sparse_grad import rows_to_ndarray
        from gluonlite.ops.sparse.grads import RowSparseRows
        rows = RowSparseRows(np.array([2]), np.ones((1, 3), dtype='float32'), (4, 3))
        rows_to_ndarray(rows, mx.cpu()).indices.asnumpy()   # [2]
    """
    return _sp._new_row_sparse(_host(rows.values), _host(rows.indices), rows.shape, ctx)


def _host(a):
    return a if isinstance(a, np.ndarray) else a.get()


def store_gradient(buf, g, req):
    """Put gradient `g` (a raw dense array, a RowSparseRows, or None: no gradient reached the
    variable) into gradient buffer NDArray `buf` of any storage type, by `req` ('write' or
    'add').

    Example::

        from gluonlite.ndarray.sparse_grad import store_gradient
        from gluonlite.ops.sparse.grads import RowSparseRows
        buf = nd.sparse.zeros('row_sparse', (4, 3))
        store_gradient(buf, RowSparseRows(np.array([2]), np.ones((1, 3), dtype='float32'), (4, 3)),
                       'write')
        buf.indices.asnumpy(), buf.asnumpy()[2]   # (array([2]), array([1., 1., 1.], dtype=float32))
    """
    if g is None:
        if req == "write":
            _clear(buf)
        return
    if buf.stype == "default":
        # a dense buffer and a RowSparseRows gradient
        if req == "write":
            buf._data[...] = 0
        g.add_to(buf._data)
        return
    if g.__class__ is RowSparseRows and buf.stype == "row_sparse":
        if req == "add" and buf._sindices.size:
            have = RowSparseRows(buf._sindices, buf._sdata, buf.shape)
            g = have + g
        buf._sdata = _host(g.values).astype(buf._sdata.dtype, copy=False)
        buf._sindices = _host(g.indices).astype(np.int64, copy=False)
        return
    dense = g.dense() if g.__class__ is RowSparseRows else _host(g)
    if req == "add":
        dense = buf._dense() + dense
    buf._assign_dense(dense)


def _clear(buf):
    if buf.stype == "default":
        buf._data[...] = 0
        return
    empty = _sp.zeros(buf.stype, buf.shape, dtype=buf.dtype)
    buf._sdata = empty._sdata
    buf._set_aux(empty._aux())


autograd_tape.install_sparse_store(store_gradient)
