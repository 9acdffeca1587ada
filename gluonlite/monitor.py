"""`mx.monitor` (also `mx.mon`): watch the arrays of bound executors while a model trains, a
statistic per array every `interval` batches (MXNet 1.x's debugging aid for `Module.fit`).

The executor reports each operator's output (and, with `monitor_all`, its inputs) through
`Executor.set_monitor_callback`; `toc` adds the arguments and auxiliary states by name.
"""
import logging
import math
import re

from . import ndarray
from .ndarray.ndarray import NDArray

__all__ = ["Monitor"]


def _mean_norm(x):
    # the default statistic: the root mean square, norm(x) / sqrt(size)
    return ndarray.norm(x) / math.sqrt(x.size)


class Monitor:
    """Collect a statistic of the arrays whose names match `pattern`, on the batches where
    ``tic()`` falls on a multiple of `interval`.

    Args:
        interval: collect on every `interval`-th batch (counted by `tic`).
        stat_func: NDArray -> NDArray (or a list of NDArrays), the statistic; default the
            root mean square ``norm(x) / sqrt(x.size)``.
        pattern: a regular expression; only names it matches (from their start) are kept,
            e.g. ``'.*weight|.*output'``.
        sort: order the results of `toc` by name.
        monitor_all: also watch every operator's inputs, not only its outputs.

    Raises:
        ValueError: an `interval` below 1; TypeError: a `stat_func` that is not callable.
        re.error: a `pattern` that is not a regular expression.

    Example::

        net = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
        mod = mx.mod.Module(sym.SoftmaxOutput(net, name='softmax'))
        train_iter = mx.io.NDArrayIter(np.ones((40, 3)), np.zeros(40), batch_size=2)
        mon = mx.mon.Monitor(10, pattern=".*weight")
        mod.fit(train_iter, num_epoch=2, monitor=mon)   # logs every 10th batch's statistics
    """

    def __init__(self, interval, stat_func=None, pattern=".*", sort=False, monitor_all=False):
        if int(interval) < 1:
            raise ValueError(f"Monitor: interval must be a positive int, got {interval!r}")
        if stat_func is not None and not callable(stat_func):
            raise TypeError(f"Monitor: stat_func must be callable (NDArray -> NDArray), got "
                            f"{type(stat_func).__name__}")
        self.stat_func = _mean_norm if stat_func is None else stat_func
        self.interval = int(interval)
        self.activated = False
        self.queue = []
        self.step = 0
        self.exes = []
        self.re_prog = re.compile(pattern)
        self.sort = bool(sort)
        self.monitor_all = bool(monitor_all)

    def stat_helper(self, name, array):
        """The executor callback: keep ``(step, name, stat_func(array))`` while collecting
        and when `name` matches the pattern.

        Args:
            name (str or bytes): the array's name (an operator output or input).
            array (NDArray): the array; `stat_func` turns it into the kept statistic.

        Example::

            mon = mx.mon.Monitor(1)
            mon.tic()
            mon.stat_helper('fc_output', nd.ones((2, 2)))
            mon.toc()   # [(1, 'fc_output', '1.0\\t')]
        """
        name = name.decode() if isinstance(name, bytes) else str(name)
        if not self.activated or not self.re_prog.match(name):
            return
        self.queue.append((self.step, name, self.stat_func(array)))

    def install(self, exe):
        """Watch executor `exe` (several may be installed; `Module.install_monitor` installs
        each of its executors).

        Example::

            exe = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc').simple_bind(
                mx.cpu(), data=(2, 3))
            mon = mx.mon.Monitor(1, pattern='fc_weight')
            mon.install(exe)
        """
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def tic(self):
        """Start a batch: collecting begins when the batch count is a multiple of
        `interval`. Call before `forward`.

        Example::

            exe = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc').simple_bind(
                mx.cpu(), data=(2, 3))
            mon = mx.mon.Monitor(1, pattern='fc_bias')
            mon.install(exe)
            mon.tic()
            exe.forward()
        """
        if self.step % self.interval == 0:
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self):
        """End the batch: add the statistic of every matching argument and auxiliary state
        of the installed executors, stop collecting, and return what was collected.

        Returns:
            ``[(step, name, text)]`` where `text` is each statistic's value followed by a tab
            (a one-element statistic as a scalar); [] when this batch was not collected.

        Example::

            exe = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc').simple_bind(
                mx.cpu(), data=(2, 3))
            mon = mx.mon.Monitor(1, pattern='fc_bias')
            mon.install(exe)
            mon.tic()
            exe.forward()
            mon.toc()   # [(1, 'fc_bias', '0.0\\t')]
        """
        if not self.activated:
            return []
        for exe in self.exes:
            for name, array in zip(exe._symbol.list_arguments(), exe.arg_arrays):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
            for name, array in zip(exe._symbol.list_auxiliary_states(), exe.aux_arrays):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        if self.sort:
            self.queue.sort(key=lambda entry: entry[1])
        res = [(step, name, _as_text(name, value)) for step, name, value in self.queue]
        self.queue = []
        return res

    def toc_print(self):
        """`toc`, each result logged (``logging.info``) as ``Batch: <step> <name> <value>``.

        Example::

            exe = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc').simple_bind(
                mx.cpu(), data=(2, 3))
            mon = mx.mon.Monitor(1, pattern='fc_bias')
            mon.install(exe)
            mon.tic()
            exe.forward()
            mon.toc_print()   # logs the fc_bias statistic of batch 1
        """
        for step, name, text in self.toc():
            logging.info("Batch: {:7d} {:30s} {:s}".format(step, name, text))


def _as_text(name, value):
    values = value if isinstance(value, list) else [value]
    text = ""
    for v in values:
        if not isinstance(v, NDArray):
            raise TypeError(f"Monitor: stat_func must return an NDArray or a list of them; "
                            f"for {name!r} it returned {type(v).__name__}")
        text += (str(v.asscalar()) if v.shape in ((1,), ()) else str(v.asnumpy())) + "\t"
    return text
