"""`mx.contrib.svrg_optimization`: stochastic variance-reduced gradient training of a symbol
(`SVRGModule`) and the optimizer it runs (`svrg_optimizer._SVRGOptimizer`).

Every `update_freq` epochs the module snapshots its weights and averages the gradient of the
whole training set at the snapshot (`update_full_grads`); each step then uses
``g(w) - g(snapshot) + full_gradient`` on the same batch instead of ``g(w)``.
"""
from . import svrg_module, svrg_optimizer  # noqa: F401
from .svrg_module import SVRGModule  # noqa: F401

__all__ = ["SVRGModule", "svrg_module", "svrg_optimizer"]
