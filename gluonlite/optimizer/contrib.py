"""`mx.optimizer.contrib`: MXNet's contributed optimizers.

``GroupAdaGrad`` (AdaGrad with one history value per row, for embeddings) is written for
MXNet's row_sparse gradients; gluonlite arrays are dense, so it raises NotImplementedError.
"""
from .optimizer import Optimizer, register

__all__ = ["GroupAdaGrad"]


@register
class GroupAdaGrad(Optimizer):
    """Row-wise AdaGrad for row_sparse gradients (MXNet contrib).

    Raises:
        NotImplementedError: always; it needs sparse storage, which gluonlite does not have.
    """

    def __init__(self, eps=1e-5, **kwargs):
        raise NotImplementedError("optimizer.contrib.GroupAdaGrad: needs row_sparse gradients "
                                  "(sparse storage), which gluonlite does not support; use "
                                  "AdaGrad")
