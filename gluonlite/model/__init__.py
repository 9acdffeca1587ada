"""`mx.model`: checkpoint files of a Symbol and its parameters (``prefix-symbol.json`` and
``prefix-EPOCH.params`` with ``arg:``/``aux:`` keys; `checkpoint`), `BatchEndParam`, what
batch-end callbacks receive, and MXNet 1.x's legacy estimator `FeedForward`
(`feedforward`; deprecated as in MXNet, for `mx.mod.Module`) with its
`DataParallelExecutorManager` (from `mx.executor_manager`).

Example::

    net = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
    arg_params = {'fc_weight': nd.ones((2, 3)), 'fc_bias': nd.zeros(2)}
    mx.model.save_checkpoint("net", 1, net, arg_params, {})
    net, arg_params, aux_params = mx.model.load_checkpoint("net", 1)
    sorted(arg_params)                     # ['fc_bias', 'fc_weight']
"""
from ..callback import LogValidationMetricsCallback, save_checkpoint
from ..context import Context, cpu
from ..executor_manager import DataParallelExecutorManager
from ..initializer import Uniform
from ..io import DataDesc
from ..optimizer import get_updater
from .checkpoint import _split_arg_aux, load_checkpoint, load_params  # noqa: F401
from .feedforward import BatchEndParam, FeedForward

__all__ = ["BatchEndParam", "save_checkpoint", "load_checkpoint", "load_params", "Context",
           "cpu", "Uniform", "DataDesc", "get_updater", "LogValidationMetricsCallback",
           "FeedForward", "DataParallelExecutorManager"]
