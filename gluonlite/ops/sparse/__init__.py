"""Sparse storage in the operator registry: the raw forms of the ``row_sparse`` and ``csr``
storage types (`arrays`), an operator's storage rule (`rule.StorageRule`, given when it
registers), the kernels on the compressed parts beside their dense siblings (`elementwise`,
`matrix`, `reduce`, `updates`), the row-sparse gradient on the tape (`grads`), and the
operators that exist for storage (`operators`: cast_storage, _sparse_retain, ...).

The imperative layer's one dispatcher (`gluonlite.ndarray.storage`) asks an operator's rule
for the kernel of its inputs' storage types, or densifies.
"""

__all__ = ["FUNCTIONS"]

# MXNet 1.9.1's public functions of nd.sparse and sym.sparse (beside their constructors and
# retain): each is the registered operator of that name (concat: Concat, adagrad_update:
# _sparse_adagrad_update), whose storage rule keeps the storage where MXNet does.
FUNCTIONS = (
    "ElementWiseSum Embedding FullyConnected LinearRegressionOutput LogisticRegressionOutput "
    "MAERegressionOutput abs adagrad_update adam_update add_n arccos arccosh arcsin "
    "arcsinh arctan arctanh broadcast_add broadcast_div broadcast_minus broadcast_mul "
    "broadcast_plus broadcast_sub cbrt ceil clip concat cos cosh degrees dot "
    "elemwise_add elemwise_div elemwise_mul elemwise_sub exp expm1 fix floor ftrl_update "
    "gamma gammaln log log10 log1p log2 make_loss mean negative norm radians relu "
    "rint round rsqrt sgd_mom_update sgd_update sigmoid sign sin sinh slice sqrt square "
    "stop_gradient sum tan tanh trunc where").split()
