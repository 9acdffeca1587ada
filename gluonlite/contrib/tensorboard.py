"""`mx.contrib.tensorboard`: a `Module.fit` callback that writes the metrics to TensorBoard
event files (MXNet 1.9.1's ``contrib/tensorboard.py``).

The files are written by the SummaryWriter of the optional ``mxboard`` package, imported when
a `LogMetricsCallback` is made: importing this module needs nothing beyond gluonlite.

Example::

    # not run: needs the mxboard package
    mod.fit(train_iter, num_epoch=2,
            batch_end_callback=mx.contrib.tensorboard.LogMetricsCallback('logs/train'),
            eval_end_callback=mx.contrib.tensorboard.LogMetricsCallback('logs/eval'))
    # then: tensorboard --logdir=logs
"""

__all__ = ["LogMetricsCallback"]


def _summary_writer_class():
    try:
        from mxboard import SummaryWriter
    except ImportError as e:
        raise ImportError("contrib.tensorboard.LogMetricsCallback needs the mxboard package, "
                          "whose SummaryWriter writes TensorBoard's event files; "
                          "pip install mxboard") from e
    return SummaryWriter


class LogMetricsCallback:
    """A batch-end or eval-end callback of `Module.fit` writing each metric of
    ``param.eval_metric`` as a TensorBoard scalar, at step ``param.epoch``.

    Args:
        logging_dir (str): the folder of the event files (``tensorboard --logdir`` reads it).
        prefix (str): put before each metric's name as ``'<prefix>-<name>'``, or None
            (default) for the bare names; a train and an eval callback with the same
            `logging_dir` tell their curves apart by it.

    Raises:
        ImportError: the mxboard package is not installed.

    Example::

        # not run: needs the mxboard package
        cb = mx.contrib.tensorboard.LogMetricsCallback('logs', prefix='train')
        mod.fit(train_iter, num_epoch=2, batch_end_callback=cb)
    """

    def __init__(self, logging_dir, prefix=None):
        self.prefix = prefix
        self.summary_writer = _summary_writer_class()(logging_dir)

    def __call__(self, param):
        """Write the current value of every metric of ``param.eval_metric`` (nothing when it
        is None).

        Args:
            param: what `Module.fit` passes its callbacks (`epoch`, `nbatch`,
                `eval_metric`, `locals`).

        Example::

            # not run: needs the mxboard package
            cb = mx.contrib.tensorboard.LogMetricsCallback('logs')
            cb(mx.model.BatchEndParam(epoch=0, nbatch=1, eval_metric=metric, locals=None))
        """
        if param.eval_metric is None:
            return
        for name, value in param.eval_metric.get_name_value():
            if self.prefix is not None:
                name = f"{self.prefix}-{name}"
            self.summary_writer.add_scalar(name, value, global_step=param.epoch)
