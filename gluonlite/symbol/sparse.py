"""`sym.sparse`: MXNet's sparse operators as graph nodes.

A graph runs on dense arrays: each of these nodes computes the values of MXNet's sparse
result, and a variable's storage type is recorded in its ``__storage_type__`` attribute
(``sym.var('w', stype='row_sparse')``) for `Symbol.infer_storage_type`. Every name is the
`sym` function of the registered operator behind it (`retain` is ``_sparse_retain``).

Example::

    w = sym.var('w', stype='row_sparse')
    y = sym.sparse.dot(sym.var('x', stype='csr'), w)
"""
from ..ops.registry import get as _get
from ..ops.sparse import FUNCTIONS
from .register import make_function as _make

_NAMES = tuple(FUNCTIONS) + ("cast_storage", "zeros_like")
_OP_OF = {"concat": "Concat", "retain": "_sparse_retain",
          "adagrad_update": "_sparse_adagrad_update"}

__all__ = list(_NAMES) + ["retain"]

globals().update({n: _make(_get(_OP_OF.get(n, n)), n) for n in _NAMES})
retain = _make(_get("_sparse_retain"), "retain")
