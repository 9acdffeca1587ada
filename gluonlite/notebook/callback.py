"""`mx.notebook.callback`: `Module.fit` callbacks that record a run for a notebook (MXNet
1.9.1's ``notebook/callback.py``).

`PandasLogger` records the metrics of the training batches, of each evaluation and the time
of each epoch, and gives them as pandas dataframes; `args_wrapper` joins the callbacks of
several loggers into `fit`'s keyword arguments. pandas is imported when a PandasLogger is
made, not with this module. MXNet's live bokeh charts (`LiveBokehChart`, `LiveTimeSeries`,
`LiveLearningCurve`) are not implemented: making one raises, naming bokeh when it is
missing; plot a PandasLogger's dataframes instead.

Example::

    # not run: needs the pandas package
    logger = mx.notebook.callback.PandasLogger(batch_size=32, frequent=10)
    mod.fit(train_iter, eval_data=val_iter, num_epoch=2, **logger.callback_args())
    logger.train_df[['minibatch_count', 'accuracy']]
"""
import datetime
import importlib
import time

__all__ = ["PandasLogger", "LiveBokehChart", "LiveTimeSeries", "LiveLearningCurve",
           "args_wrapper"]


def _require(package, user):
    try:
        return importlib.import_module(package)
    except ImportError as e:
        raise ImportError(f"notebook.callback.{user} needs the {package} package; "
                          f"pip install {package}") from e


class PandasLogger:
    """Records a `Module.fit` run in three tables: ``train`` (the metrics every `frequent`
    training batches), ``eval`` (the metrics of each evaluation) and ``epoch`` (the time of
    each epoch); read them as pandas dataframes (`train_df`, `eval_df`, `epoch_df`).

    A train or eval row has the metrics by name, ``batches_per_sec`` and ``records_per_sec``
    (the speed since the last row; MXNet 1.9.1 writes the two swapped), ``elapsed`` (a
    `datetime.timedelta` since the logger was made), ``minibatch_count`` and ``epoch``; an
    epoch row has ``elapsed`` and ``epoch_time``.

    Args:
        batch_size (int): the samples of one batch, for ``records_per_sec``.
        frequent (int): a train row every `frequent` batches (default 50).

    Raises:
        ImportError: the pandas package is not installed.

    Example::

        # not run: needs the pandas package
        logger = mx.notebook.callback.PandasLogger(batch_size=32, frequent=10)
        mod.fit(train_iter, eval_data=val_iter, num_epoch=2, **logger.callback_args())
        logger.eval_df['accuracy'].max()
    """

    def __init__(self, batch_size, frequent=50):
        self._pd = _require("pandas", "PandasLogger")
        self.batch_size = batch_size
        self.frequent = frequent
        self._rows = {"train": [], "eval": [], "epoch": []}
        self.last_time = time.time()
        self.start_time = datetime.datetime.now()
        self.last_epoch_time = self.start_time

    def _frame(self, name):
        return self._pd.DataFrame(self._rows[name])

    @property
    def train_df(self):
        """The training rows as a dataframe (one every `frequent` batches).

        Example::

            # not run: needs the pandas package
            logger.train_df['records_per_sec'].mean()
        """
        return self._frame("train")

    @property
    def eval_df(self):
        """The evaluation rows as a dataframe (one per evaluation).

        Example::

            # not run: needs the pandas package
            logger.eval_df[['epoch', 'accuracy']]
        """
        return self._frame("eval")

    @property
    def epoch_df(self):
        """The epoch rows as a dataframe (``elapsed``, ``epoch_time``).

        Example::

            # not run: needs the pandas package
            logger.epoch_df['epoch_time'].sum()
        """
        return self._frame("epoch")

    @property
    def all_dataframes(self):
        """``{'train': train_df, 'eval': eval_df, 'epoch': epoch_df}``.

        Example::

            # not run: needs the pandas package
            sorted(logger.all_dataframes)   # ['epoch', 'eval', 'train']
        """
        return {name: self._frame(name) for name in self._rows}

    def elapsed(self):
        """The time since the logger was made, a `datetime.timedelta`.

        Example::

            # not run: needs the pandas package
            logger.elapsed().total_seconds()
        """
        return datetime.datetime.now() - self.start_time

    def append_metrics(self, metrics, df_name):
        """Add a row to a table; a metric name not seen before becomes a new column (empty in
        the earlier rows).

        Args:
            metrics (dict): the row, column name -> value.
            df_name (str): the table: ``'train'``, ``'eval'`` or ``'epoch'``.

        Raises:
            ValueError: an unknown `df_name`.

        Example::

            # not run: needs the pandas package
            logger.append_metrics({'accuracy': 0.9, 'epoch': 3}, 'eval')
        """
        if df_name not in self._rows:
            raise ValueError(f"PandasLogger.append_metrics: df_name must be one of "
                             f"{sorted(self._rows)}, got {df_name!r}")
        self._rows[df_name].append(dict(metrics))

    def train_cb(self, param):
        """The batch-end callback: a train row every `frequent` batches (then the metric is
        reset, so each row holds the batches since the last one).

        Args:
            param: what `Module.fit` passes its batch callbacks (`epoch`, `nbatch`,
                `eval_metric`).

        Example::

            # not run: needs the pandas package
            mod.fit(train_iter, num_epoch=1, batch_end_callback=logger.train_cb)
        """
        if param.nbatch % self.frequent == 0:
            self._process_batch(param, "train")

    def eval_cb(self, param):
        """The eval-end callback: an eval row.

        Args:
            param: what `Module.fit` passes its eval callbacks (`epoch`, `nbatch`,
                `eval_metric`).

        Example::

            # not run: needs the pandas package
            mod.fit(train_iter, eval_data=val_iter, num_epoch=1,
                    eval_end_callback=logger.eval_cb)
        """
        self._process_batch(param, "eval")

    def _process_batch(self, param, df_name):
        now = time.time()
        if param.eval_metric is not None:
            metrics = dict(param.eval_metric.get_name_value())
            param.eval_metric.reset()
        else:
            metrics = {}
        seconds = now - self.last_time
        batches_per_sec = self.frequent / seconds if seconds > 0 else float("inf")
        metrics["batches_per_sec"] = batches_per_sec
        metrics["records_per_sec"] = batches_per_sec * self.batch_size
        metrics["elapsed"] = self.elapsed()
        metrics["minibatch_count"] = param.nbatch
        metrics["epoch"] = param.epoch
        self.append_metrics(metrics, df_name)
        self.last_time = now

    def epoch_cb(self, *args):
        """The epoch-end callback: an epoch row with the time the epoch took.

        Args:
            *args: what `Module.fit` passes its epoch callbacks (epoch, symbol, arg_params,
                aux_params); unused, and none are needed (MXNet's takes none).

        Example::

            # not run: needs the pandas package
            mod.fit(train_iter, num_epoch=2, epoch_end_callback=logger.epoch_cb)
        """
        now = datetime.datetime.now()
        self.append_metrics({"elapsed": self.elapsed(),
                             "epoch_time": now - self.last_epoch_time}, "epoch")
        self.last_epoch_time = now

    def callback_args(self):
        """`fit`'s keyword arguments that install the three callbacks.

        Returns:
            dict: ``batch_end_callback``, ``eval_end_callback`` and ``epoch_end_callback``.

        Example::

            # not run: needs the pandas package
            mod.fit(train_iter, eval_data=val_iter, num_epoch=2, **logger.callback_args())
        """
        return {"batch_end_callback": self.train_cb, "eval_end_callback": self.eval_cb,
                "epoch_end_callback": self.epoch_cb}


class LiveBokehChart:
    """MXNet's base class of charts drawn live in a notebook with bokeh. Not implemented:
    plot a `PandasLogger`'s dataframes instead.

    Args:
        *args: MXNet's arguments (`pandas_logger`, `metric_name`, `display_freq`,
            `batch_size`, `frequent`); unused, the call raises.
        **kwargs: the same, by name.

    Raises:
        ImportError: the bokeh package is not installed.
        NotImplementedError: with bokeh installed (gluonlite does not draw live charts).

    Example::

        try:
            mx.notebook.callback.LiveLearningCurve('accuracy')
        except (ImportError, NotImplementedError) as e:
            print(e)
    """

    def __init__(self, *args, **kwargs):
        name = type(self).__name__
        _require("bokeh", name)
        raise NotImplementedError(f"notebook.callback.{name}: gluonlite does not draw MXNet's "
                                  f"live bokeh charts; plot a PandasLogger's dataframes "
                                  f"(train_df, eval_df) instead")


class LiveTimeSeries(LiveBokehChart):
    """MXNet's live chart of a value over the elapsed time. Not implemented (see
    `LiveBokehChart`).

    Args:
        **fig_params: MXNet's bokeh figure settings; unused, the call raises.

    Raises:
        ImportError: the bokeh package is not installed.
        NotImplementedError: with bokeh installed.

    Example::

        try:
            mx.notebook.callback.LiveTimeSeries()
        except (ImportError, NotImplementedError) as e:
            print(e)
    """


class LiveLearningCurve(LiveBokehChart):
    """MXNet's live learning curve (a metric of training and validation over time). Not
    implemented (see `LiveBokehChart`).

    Args:
        metric_name (str): the metric to draw; unused, the call raises.
        display_freq (int): seconds between redraws; unused.
        frequent (int): batches between two points; unused.

    Raises:
        ImportError: the bokeh package is not installed.
        NotImplementedError: with bokeh installed.

    Example::

        try:
            mx.notebook.callback.LiveLearningCurve('accuracy')
        except (ImportError, NotImplementedError) as e:
            print(e)
    """

    def __init__(self, metric_name, display_freq=10, frequent=50):
        super().__init__(metric_name, display_freq, frequent)


def args_wrapper(*args):
    """`fit`'s keyword arguments for several loggers at once: each callback argument gets the
    list of every logger's callbacks for it.

    Args:
        *args: objects with a ``callback_args()`` method (`PandasLogger`).

    Returns:
        dict: callback argument name -> list of callbacks.

    Example::

        class Printer:
            def callback_args(self):
                return {'batch_end_callback': print}
        mx.notebook.callback.args_wrapper(Printer(), Printer())
        # {'batch_end_callback': [<built-in function print>, <built-in function print>]}
    """
    out = {}
    for logger in args:
        for arg, callback in logger.callback_args().items():
            out.setdefault(arg, []).append(callback)
    return out
