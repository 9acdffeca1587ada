"""Optimizers (`gluonlite.optimizer`): SGD (momentum, weight decay) and Adam, with MXNet 1.x
update rules, used by `gluon.Trainer`.

Each optimizer updates a weight NDArray in place from its gradient, keeping its own state
(momentum, Adam moments) per parameter index.
"""
import math

import numpy as np

__all__ = ["Optimizer", "SGD", "Adam", "register", "create", "Updater", "get_updater"]

_REGISTRY = {}


def register(klass):
    """Class decorator registering an optimizer under its lowercased class name."""
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def create(name, **kwargs):
    """An optimizer by name ('sgd', 'adam') with keyword arguments.

    Raises:
        ValueError: an unknown name (the known ones are listed).
    """
    if isinstance(name, Optimizer):
        return name
    klass = _REGISTRY.get(str(name).lower())
    if klass is None:
        raise ValueError(f"optimizer: unknown optimizer {name!r}; known: "
                         f"{', '.join(sorted(_REGISTRY))}")
    return klass(**kwargs)


class Optimizer:
    """Base class.

    Args:
        learning_rate: the step size.
        wd: L2 weight decay (added to the gradient as ``wd * weight``).
        rescale_grad: gradients are multiplied by this first (Trainer sets 1/batch_size).
        clip_gradient: clip the rescaled gradient to [-c, c] when given.
        param_dict: index -> Parameter, for per-parameter lr_mult/wd_mult.
    """

    def __init__(self, learning_rate=0.01, wd=0.0, rescale_grad=1.0, clip_gradient=None,
                 param_dict=None, lr_scheduler=None, multi_precision=False, **kwargs):
        if kwargs:
            raise TypeError(f"{self.__class__.__name__}: unknown argument(s) "
                            f"{', '.join(sorted(kwargs))}")
        self.lr = learning_rate
        self.wd = wd
        self.rescale_grad = rescale_grad
        self.clip_gradient = clip_gradient
        self.param_dict = param_dict or {}
        self.lr_scheduler = lr_scheduler
        self.num_update = 0
        self._index_update_count = {}

    @property
    def learning_rate(self):
        """The current learning rate."""
        return self.lr

    def set_learning_rate(self, lr):
        """Change the learning rate."""
        self.lr = lr

    def create_state(self, index, weight):
        """Per-parameter state (None by default)."""
        return None

    def _update_count(self, index):
        c = self._index_update_count.get(index, 0) + 1
        self._index_update_count[index] = c
        self.num_update = max(c, self.num_update)
        return c

    def _get_lr(self, index):
        p = self.param_dict.get(index)
        return self.lr * (p.lr_mult if p is not None else 1.0)

    def _get_wd(self, index):
        p = self.param_dict.get(index)
        return self.wd * (p.wd_mult if p is not None else 1.0)

    def _prep_grad(self, grad):
        g = grad * self.rescale_grad
        if self.clip_gradient is not None:
            g = np.clip(g, -self.clip_gradient, self.clip_gradient) if isinstance(
                g, np.ndarray) else g.clip(-self.clip_gradient, self.clip_gradient)
        return g

    def update(self, index, weight, grad, state):
        """Update NDArray `weight` in place from NDArray `grad`."""
        raise NotImplementedError


@register
class SGD(Optimizer):
    """SGD with optional momentum: ``mom = momentum * mom - lr * (grad + wd * w); w += mom``
    (without momentum ``w -= lr * (grad + wd * w)``).

    Example: ``gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1,
    'momentum': 0.9})``.
    """

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum

    def create_state(self, index, weight):
        """The momentum buffer of `weight` (None without momentum)."""
        if self.momentum == 0.0:
            return None
        return weight._ctx.xp.zeros_like(weight._data)

    def update(self, index, weight, grad, state):
        """One SGD step on `weight` in place from `grad` (rescaled, clipped, weight-decayed)."""
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        w = weight._data
        g = self._prep_grad(grad._data) + wd * w
        if state is None:
            w -= (lr * g).astype(w.dtype, copy=False)
        else:
            state *= self.momentum
            state -= lr * g
            w += state


@register
class Adam(Optimizer):
    """Adam (Kingma & Ba) with MXNet's bias correction folded into the learning rate:
    ``lr_t = lr * sqrt(1 - beta2**t) / (1 - beta1**t)``, ``w -= lr_t * m / (sqrt(v) + eps)``.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon

    def create_state(self, index, weight):
        """Adam's first and second moment buffers for `weight`."""
        xp = weight._ctx.xp
        return xp.zeros_like(weight._data), xp.zeros_like(weight._data)

    def update(self, index, weight, grad, state):
        """One Adam step on `weight` in place from `grad`, with bias correction."""
        t = self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        lr *= math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        w = weight._data
        g = self._prep_grad(grad._data) + wd * w
        mean, var = state
        mean *= self.beta1
        mean += (1.0 - self.beta1) * g
        var *= self.beta2
        var += (1.0 - self.beta2) * g * g
        w -= (lr * mean / (var ** 0.5 + self.epsilon)).astype(w.dtype, copy=False)


class Updater:
    """Applies an optimizer to (index, grad, weight) triples, creating states on first use."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}

    def __call__(self, index, grad, weight):
        if index not in self.states:
            self.states[index] = self.optimizer.create_state(index, weight)
        self.optimizer.update(index, weight, grad, self.states[index])


def get_updater(optimizer):
    """An `Updater` for `optimizer`."""
    return Updater(optimizer)
