"""`mx.log`: MXNet's glog-style loggers (``W0505 00:29:47 3525 file.py:func:12] message``).

Example::

    import logging
    from gluonlite.log import get_logger
    logger = get_logger("train", level=logging.INFO)
    logger.info("epoch %d", 3)        # I1128 04:50:01 4242 train.py:main:9] epoch 3
"""
import logging
import warnings

__all__ = ["get_logger", "getLogger", "CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG",
           "NOTSET"]

CRITICAL, ERROR, WARNING = logging.CRITICAL, logging.ERROR, logging.WARNING
INFO, DEBUG, NOTSET = logging.INFO, logging.DEBUG, logging.NOTSET

_LABELS = {CRITICAL: "C", ERROR: "E", WARNING: "W", INFO: "I", DEBUG: "D"}


class _Formatter(logging.Formatter):
    """One letter for the level, then date, pid, file:function:line; coloured on terminals."""

    def __init__(self, colour=True):
        super().__init__(datefmt="%m%d %H:%M:%S")
        self._colour = colour

    def format(self, record):
        level = record.levelno
        colour = "\x1b[31m" if level >= WARNING else "\x1b[32m" if level >= INFO else "\x1b[34m"
        head = (_LABELS.get(level, "U") + "%(asctime)s %(process)d "
                "%(pathname)s:%(funcName)s:%(lineno)d]")
        self._style._fmt = (f"{colour}{head}\x1b[0m" if self._colour else head) + " %(message)s"
        return super().format(record)


def get_logger(name=None, filename=None, filemode=None, level=WARNING):
    """A logger writing MXNet's glog-style lines to stderr, or to `filename`.

    Args:
        name (str): the logger's name (None: the root logger).
        filename (str): write to this file instead of stderr (uncoloured).
        filemode (str): the file's open mode (default 'a').
        level (int): the logging level (default WARNING).

    Returns:
        logging.Logger: configured once; later calls with the same name return it as is,
        with `level` applied.

    Example::

        import logging
        logger = mx.log.get_logger("train", level=logging.INFO)
        logger.level == logging.INFO        # True
    """
    logger = logging.getLogger(name)
    if name is not None and not getattr(logger, "_init_done", False):
        logger._init_done = True
        if filename:
            handler = logging.FileHandler(filename, filemode or "a")
            handler.setFormatter(_Formatter(colour=False))
        else:
            handler = logging.StreamHandler()
            handler.setFormatter(_Formatter())
        logger.addHandler(handler)
    logger.setLevel(level)
    return logger


def getLogger(name=None, filename=None, filemode=None, level=WARNING):  # noqa: N802
    """Deprecated spelling of `get_logger` (warns DeprecationWarning), as in MXNet.

    Args:
        name (str): the logger's name, as `get_logger`'s (default None: the root
            logger).
        filename (str): a file to log to, as `get_logger`'s (default None: stderr).
        filemode (str): the file's open mode, as `get_logger`'s (default None: append).
        level (int): the logging level (default WARNING).

    Example::

        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            logger = mx.log.getLogger("demo")   # prefer mx.log.get_logger("demo")
        logger.name             # 'demo'
    """
    warnings.warn("getLogger is deprecated, Use get_logger instead.", DeprecationWarning,
                  stacklevel=2)
    return get_logger(name, filename, filemode, level)
