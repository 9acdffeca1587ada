"""`mx.callback`: the callbacks MXNet 1.x's `Module.fit` calls per batch
(``batch_end_callback(param)`` with `param.epoch`, `param.nbatch`, `param.eval_metric`) and per
epoch (``epoch_end_callback(epoch, symbol, arg_params, aux_params)``).

Example::

    net = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
    mod = mx.mod.Module(sym.SoftmaxOutput(net, name='softmax'))
    train_iter = mx.io.NDArrayIter(np.ones((8, 3)), np.zeros(8), batch_size=4)
    mod.fit(train_iter, num_epoch=2,
            batch_end_callback=mx.callback.Speedometer(batch_size=32, frequent=10),
            epoch_end_callback=mx.callback.do_checkpoint('model'))
"""
import logging
import math
import time
from . import ndarray as nd
from .context import cpu

__all__ = ["module_checkpoint", "do_checkpoint", "save_checkpoint", "log_train_metric",
           "Speedometer", "ProgressBar", "LogValidationMetricsCallback"]


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True):
    """Save ``prefix-symbol.json`` (when `symbol` is given) and ``prefix-%04d.params`` with the
    parameters keyed ``arg:<name>`` and ``aux:<name>``, as MXNet's `model.save_checkpoint`.

    Args:
        prefix (str): the path prefix of the files.
        epoch (int): the number in the parameters' file name.
        symbol (Symbol): the network, or None to write the parameters only.
        arg_params (dict of str to NDArray): the parameters.
        aux_params (dict of str to NDArray): the auxiliary states.
        remove_amp_cast (bool): accepted for MXNet's signature; the symbol is saved
            as it is.

    Example::

        w = {'fc_weight': nd.ones((2, 3))}
        mx.callback.save_checkpoint('net', 3, None, w, {})   # writes net-0003.params
        sorted(nd.load('net-0003.params'))   # ['arg:fc_weight']
    """
    if symbol is not None:
        symbol.save(f"{prefix}-symbol.json")
    save_dict = {f"arg:{k}": v.as_in_context(_cpu()) for k, v in (arg_params or {}).items()}
    save_dict.update({f"aux:{k}": v.as_in_context(_cpu())
                      for k, v in (aux_params or {}).items()})
    param_name = "%s-%04d.params" % (prefix, epoch)
    nd.save(param_name, save_dict)
    logging.info('Saved checkpoint to "%s"', param_name)


def _cpu():
    return cpu()


def module_checkpoint(mod, prefix, period=1, save_optimizer_states=False):
    """An epoch-end callback calling ``mod.save_checkpoint(prefix, epoch + 1, ...)`` every
    `period` epochs.

    Args:
        mod (BaseModule): the module to save.
        prefix (str): the path prefix of the files.
        period (int): save every this many epochs (default 1).
        save_optimizer_states (bool): also write ``prefix-EPOCH.states`` (default
            False).

    Example::

        net = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
        mod = mx.mod.Module(net, label_names=None)
        mod.bind(data_shapes=[('data', (4, 3))])
        mod.init_params()
        mx.callback.module_checkpoint(mod, 'net', period=2)(1)   # writes net-0002.params
    """
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            mod.save_checkpoint(prefix, iter_no + 1, save_optimizer_states)
    return _callback


def do_checkpoint(prefix, period=1):
    """An epoch-end callback saving the symbol and parameters (`save_checkpoint`) every
    `period` epochs, numbered from 1.

    Args:
        prefix (str): the path prefix of the files.
        period (int): save every this many epochs (default 1; values below 1 count
            as 1).

    Example::

        net = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
        save = mx.callback.do_checkpoint('net')
        save(0, net, {'fc_weight': nd.ones((2, 3))}, {})   # net-symbol.json, net-0001.params
    """
    period = int(max(1, period))

    def _callback(iter_no, sym, arg, aux):
        if (iter_no + 1) % period == 0:
            save_checkpoint(prefix, iter_no + 1, sym, arg, aux)
    return _callback


def log_train_metric(period, auto_reset=False):
    """A batch-end callback logging the training metric every `period` batches (and then
    resetting its local statistics when `auto_reset`).

    Example::

        acc = mx.metric.Accuracy()
        acc.update([nd.array([1, 0])], [nd.array([[0.2, 0.8], [0.6, 0.4]])])
        log = mx.callback.log_train_metric(50)
        log(mx.model.BatchEndParam(0, 50, acc, None))   # logs Train-accuracy=1.000000
    """
    def _callback(param):
        if param.nbatch % period == 0 and param.eval_metric is not None:
            for name, value in param.eval_metric.get_name_value():
                logging.info("Iter[%d] Batch[%d] Train-%s=%f", param.epoch, param.nbatch, name,
                             value)
            if auto_reset:
                param.eval_metric.reset_local()
    return _callback


class Speedometer:
    """A batch-end callback logging samples per second (and the metric) every `frequent`
    batches.

    Args:
        batch_size: samples per batch.
        frequent: batches between logs.
        auto_reset: reset the metric's local statistics after each log (the logged value is
            then that of the last `frequent` batches).

    Example::

        speed = mx.callback.Speedometer(batch_size=64, frequent=20)
        for nbatch in range(41):   # logs the speed at batches 20 and 40
            speed(mx.model.BatchEndParam(epoch=0, nbatch=nbatch, eval_metric=None, locals=None))
    """

    def __init__(self, batch_size, frequent=50, auto_reset=True):
        self.batch_size = batch_size
        self.frequent = frequent
        self.init = False
        self.tic = 0
        self.last_count = 0
        self.auto_reset = auto_reset

    def __call__(self, param):
        count = param.nbatch
        if self.last_count > count:
            self.init = False  # a new epoch
        self.last_count = count
        if not self.init:
            self.init = True
            self.tic = time.time()
            return
        if count % self.frequent != 0:
            return
        elapsed = time.time() - self.tic
        speed = self.frequent * self.batch_size / elapsed if elapsed > 0 else float("inf")
        if param.eval_metric is not None:
            name_value = param.eval_metric.get_name_value()
            fields = "\t%s=%f" * len(name_value)
            if self.auto_reset:
                param.eval_metric.reset_local()
                logging.info("Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec" + fields,
                             param.epoch, count - self.frequent, count, speed,
                             *sum(name_value, ()))
            else:
                logging.info("Epoch[%d] Batch [0-%d]\tSpeed: %.2f samples/sec" + fields,
                             param.epoch, count, speed, *sum(name_value, ()))
        else:
            logging.info("Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec", param.epoch, count,
                         speed)
        self.tic = time.time()


class ProgressBar:
    """A batch-end callback logging a text progress bar of `total` batches.

    Args:
        total (int): the number of batches that fill the bar.
        length (int): the bar's width in characters (default 80).

    Example::

        bar = mx.callback.ProgressBar(total=100, length=40)
        bar(mx.model.BatchEndParam(epoch=0, nbatch=50, eval_metric=None, locals=None))   # half full
    """

    def __init__(self, total, length=80):
        self.bar_len = length
        self.total = total

    def __call__(self, param):
        count = param.nbatch
        filled = int(round(self.bar_len * count / float(self.total)))
        percents = math.ceil(100.0 * count / float(self.total))
        logging.info("[%s] %s%s\r", "=" * filled + "-" * (self.bar_len - filled), percents, "%")


class LogValidationMetricsCallback:
    """An eval-end callback logging each validation metric of the epoch.

    Example::

        acc = mx.metric.Accuracy()
        acc.update([nd.array([1, 0])], [nd.array([[0.2, 0.8], [0.6, 0.4]])])
        log = mx.callback.LogValidationMetricsCallback()
        log(mx.model.BatchEndParam(epoch=0, nbatch=1, eval_metric=acc, locals=None))
    """

    def __call__(self, param):
        if not param.eval_metric:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Epoch[%d] Validation-%s=%f", param.epoch, name, value)
