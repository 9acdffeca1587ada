"""`mx.optimizer.contrib`: MXNet's contributed optimizers.

``GroupAdaGrad``: AdaGrad with one history value per row, for embeddings trained with
row_sparse gradients (``nd.contrib.group_adagrad_update``).
"""
from .. import ndarray as nd
from .optimizer import Optimizer, register

__all__ = ["GroupAdaGrad"]


@register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one learning-rate history per row::

        grad = clip(grad * rescale_grad, clip_gradient)
        history += mean(square(grad), axis=1, keepdims=True)
        weight -= lr * grad / sqrt(history + eps)

    A row_sparse gradient updates only its rows (and their history values), lazily.

    Args:
        eps: added inside the square root.
        **kwargs: the base `Optimizer`'s arguments (`learning_rate`, `rescale_grad`,
            `clip_gradient`, `lr_scheduler`, ...); `wd` must stay 0.

    Raises:
        ValueError: a weight decay (not supported, as in MXNet), or a weight that is not 2-D.

    Example::

        opt = mx.optimizer.create('groupadagrad', learning_rate=0.1)
        w, g = nd.ones((2, 3)), nd.ones((2, 3))
        opt.update(0, w, g, opt.create_state(0, w))
        w[0].asnumpy()   # array([0.9000005, 0.9000005, 0.9000005], dtype=float32)
    """

    def __init__(self, eps=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        """The history, shape (rows, 1), in the weight's storage type.

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter; the state arrays take its shape and context.

        Returns:
            The state described above, which `update` then receives as `state`.

        Example::

            opt = mx.optimizer.contrib.GroupAdaGrad()
            opt.create_state(0, nd.ones((4, 3))).shape   # (4, 1): one history value per row
        """
        if len(weight.shape) != 2:
            raise ValueError(f"GroupAdaGrad: the weight must be 2-D, got shape {weight.shape}")
        return nd.zeros((weight.shape[0], 1), weight.context, stype=weight.stype)

    def update(self, index, weight, grad, state):
        """One step on `weight` in place.

        Args:
            index (int or str): the parameter's key, selecting its learning rate, weight decay
                and update count.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient (multiplied by `rescale_grad`, then clipped to
                ``[-clip_gradient, clip_gradient]`` when that is set).
            state: what `create_state` returned for this parameter; updated in place.

        Example::

            opt = mx.optimizer.contrib.GroupAdaGrad(learning_rate=0.1)
            w, g = nd.ones((2, 2)), nd.array([[1.0, 1.0], [2.0, 2.0]])
            opt.update(0, w, g, opt.create_state(0, w))
            w.asnumpy()[:, 0]   # array([0.9000005, 0.9000001], dtype=float32)
        """
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        if wd != 0:
            raise ValueError(f"GroupAdaGrad: weight decay is not supported, got wd={wd} for "
                             f"index {index}")
        if grad.stype == "row_sparse":
            kw = {"epsilon": self.float_stable_eps, "rescale_grad": self.rescale_grad}
            if self.clip_gradient:
                kw["clip_gradient"] = self.clip_gradient
            nd.contrib.group_adagrad_update(weight, grad, state, out=weight, lr=lr, **kw)
            return
        grad = grad * self.rescale_grad
        if self.clip_gradient is not None:
            grad = nd.clip(grad, -self.clip_gradient, self.clip_gradient)
        state[:] += nd.mean(nd.square(grad), axis=1, keepdims=True)
        weight[:] -= lr * grad / nd.sqrt(state + self.float_stable_eps)
