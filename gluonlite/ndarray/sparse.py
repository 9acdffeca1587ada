"""`nd.sparse`: MXNet's sparse storage (`csr`, `row_sparse`), which gluonlite does not have yet.

The module exists, with MXNet 1.9.1's public names, so that code which imports it loads and
type checks such as ``isinstance(x, nd.sparse.CSRNDArray)`` answer (False: every gluonlite
array is dense). Creating a sparse array or calling a sparse operator raises
NotImplementedError naming sparse storage; the dense operators of `nd` take dense arrays.

Example::

    from gluonlite.ndarray import sparse
    isinstance(mx.nd.ones((2, 2)), sparse.RowSparseNDArray)   # False
    sparse.csr_matrix(...)                                    # NotImplementedError
"""
from ..base import NotSupportedForSparseNDArray  # noqa: F401  (MXNet's module has it)
from ..context import Context, current_context  # noqa: F401  (MXNet's module re-exports them)
from ..util import check_call  # noqa: F401
from .ndarray import NDArray

__all__ = ["BaseSparseNDArray", "CSRNDArray", "RowSparseNDArray", "NotSupportedForSparseNDArray"]


def _refused(what):
    return NotImplementedError(
        f"nd.sparse.{what}: gluonlite has no sparse storage ('csr', 'row_sparse') yet; every "
        "array is dense ('default'). Use dense arrays and the dense operators of mx.nd")


class BaseSparseNDArray(NDArray):
    """The base class of sparse arrays. No instance can be made: gluonlite has no sparse
    storage, so ``isinstance(x, BaseSparseNDArray)`` is False for every array.

    Raises:
        NotImplementedError: on construction.
    """

    def __new__(cls, *args, **kwargs):
        raise _refused(cls.__name__)


class CSRNDArray(BaseSparseNDArray):
    """A compressed sparse row matrix (not available: see `BaseSparseNDArray`)."""


class RowSparseNDArray(BaseSparseNDArray):
    """A row-sparse array (not available: see `BaseSparseNDArray`)."""


# MXNet 1.9.1's public functions of nd.sparse: constructors, then sparse operator kernels.
_FUNCTIONS = (
    "array csr_matrix row_sparse_array empty zeros zeros_like cast_storage retain gs_retain "
    "c_array_buf "
    "ElementWiseSum Embedding FullyConnected LinearRegressionOutput LogisticRegressionOutput "
    "MAERegressionOutput abs adagrad_update adam_update add add_n arccos arccosh arcsin "
    "arcsinh arctan arctanh broadcast_add broadcast_div broadcast_minus broadcast_mul "
    "broadcast_plus broadcast_sub cbrt ceil clip concat cos cosh degrees divide dot "
    "elemwise_add elemwise_div elemwise_mul elemwise_sub exp expm1 fix floor ftrl_update "
    "gamma gammaln log log10 log1p log2 make_loss mean multiply negative norm radians relu "
    "rint round rsqrt sgd_mom_update sgd_update sigmoid sign sin sinh slice sqrt square "
    "stop_gradient subtract sum tan tanh trunc where").split()


def _make_refusing(name):
    def refused(*args, **kwargs):
        raise _refused(name)
    refused.__name__ = name
    refused.__doc__ = (f"MXNet's sparse `{name}`: raises NotImplementedError (gluonlite has no "
                       "sparse storage).")
    return refused


for _name in _FUNCTIONS:
    globals()[_name] = _make_refusing(_name)
    __all__.append(_name)
del _name
