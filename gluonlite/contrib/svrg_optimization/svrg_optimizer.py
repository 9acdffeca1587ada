"""The optimizers of SVRG training: `_SVRGOptimizer` runs a default optimizer on ordinary
parameters and `_AssignmentOptimizer` on those named ``*_full`` (the full-gradient slots,
which are overwritten with what is pushed)."""
import inspect

from ...optimizer import optimizer as _opt

__all__ = ["_SVRGOptimizer", "_AssignmentOptimizer"]

_BASE_ARGS = set(inspect.signature(_opt.Optimizer.__init__).parameters) - {"self"}


@_opt.Optimizer.register
class _AssignmentOptimizer(_opt.Optimizer):
    """An optimizer whose step sets the weight to the gradient (no state).

    Example::

        from gluonlite.contrib.svrg_optimization.svrg_optimizer import _AssignmentOptimizer
        o = _AssignmentOptimizer()
        w = nd.zeros((2,)); o.update(0, w, nd.array([3, 4]), None)   # w is now [3, 4]
    """

    def create_state(self, index, weight):
        return None

    def update(self, index, weight, grad, state):
        weight[:] = grad


@_opt.Optimizer.register
class _SVRGOptimizer(_opt.Optimizer):
    """Dispatch each parameter to `default_opt` (an optimizer made from `default_optimizer`
    and the keyword arguments) or, for a name ending in ``_full``, to `aux_opt` (an
    `_AssignmentOptimizer`).

    Args:
        default_optimizer: an optimizer name (`mx.optimizer.create`) or an Optimizer.
        **kwargs: the optimizer's arguments (`param_idx2name` names the parameters).

    Example::

        from gluonlite.contrib.svrg_optimization.svrg_optimizer import _SVRGOptimizer
        o = _SVRGOptimizer('sgd', param_idx2name={0: 'w', 1: 'w_full'}, learning_rate=1.0)
        kv = mx.kv.create('local'); kv.set_optimizer(o)
        kv.init(1, nd.zeros((2,))); kv.push(1, nd.ones((2,)))   # key 1 is assigned [1, 1]
    """

    def __init__(self, default_optimizer, **kwargs):
        base = {k: v for k, v in kwargs.items() if k in _BASE_ARGS}
        super().__init__(**base)
        if isinstance(default_optimizer, str):
            self.default_opt = _opt.Optimizer.create_optimizer(default_optimizer, **kwargs)
        else:
            self.default_opt = default_optimizer
        self.aux_opt = _AssignmentOptimizer(
            param_idx2name=kwargs.get("param_idx2name"))

    def _pick(self, index):
        name = self.idx2name.get(index) or self.default_opt.idx2name.get(index, "")
        return self.aux_opt if str(name).endswith("_full") else self.default_opt

    def create_state(self, index, weight):
        return self._pick(index).create_state(index, weight)

    def create_state_multi_precision(self, index, weight):
        return self._pick(index).create_state_multi_precision(index, weight)

    def update(self, index, weight, grad, state):
        self._pick(index).update(index, weight, grad, state)

    def update_multi_precision(self, index, weight, grad, state):
        self._pick(index).update_multi_precision(index, weight, grad, state)
