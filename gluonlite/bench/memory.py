"""How much memory a bench case or a training run needs at the least, checked against what
this machine has before anything is allocated.

A recipe with ``seq_len: 100000000`` used to start, print its header and die in numpy's
MemoryError. The estimates here count only the arrays a run cannot do without (its inputs
drawn in float64 then kept in float32, the stacked outputs, and in training their
gradients), so a case refused here could never have run; one that passes may still need
more (the taped activations).

Example:
    >>> case = {'impl': 'gluonlite', 'seq_len': 100_000_000, 'batch_size': 1,
    ...         'hidden_dim': 512, 'is_train': False}
    >>> round(case_bytes(case) / 2**30)
    763
"""
import os

from .matrix import case_label

__all__ = ["case_bytes", "train_bytes", "available_bytes", "check_cases", "check_train",
           "MemoryEstimateError"]

_F32, _F64 = 4, 8


class MemoryEstimateError(ValueError):
    """A case or run needs more memory than the machine has; the message names it, the
    recipe keys that size it, the estimate and what is available.

    Example::

        from gluonlite.bench.memory import MemoryEstimateError, check_cases
        case = {'impl': 'gluonlite', 'benchmark': 'foreach', 'cell': 'RNNCell', 'ctx': 'cpu(0)',
                'seq_len': 1000, 'batch_size': 1, 'hidden_dim': 8, 'is_train': False}
        try:
            check_cases([case], available=1000)
        except MemoryEstimateError as err:
            print(str(err)[:40])  # matrix: the case foreach RNNCell cpu(0)
    """


def case_bytes(case):
    """The least memory (bytes) one bench case needs: T x N x H values for its inputs (drawn
    in float64, kept in float32) and outputs, and in training the outputs' gradient and
    the inputs' gradient as well. Floor cases draw their inputs in float32 directly.

    Args:
        case: a case dict (seq_len, batch_size, hidden_dim, is_train, impl).

    Returns:
        An int, bytes.

    Example::

        from gluonlite.bench.memory import case_bytes
        case = {'seq_len': 10, 'batch_size': 2, 'hidden_dim': 4, 'is_train': True}
        print(case_bytes(case))  # 1920: 80 values x (8 + 4 + 4 + 2 x 4) bytes
    """
    n = case["seq_len"] * case["batch_size"] * case["hidden_dim"]
    draw = _F64 + _F32 if case.get("impl", "gluonlite") == "gluonlite" else _F32
    per_value = draw + _F32 + (2 * _F32 if case.get("is_train") else 0)
    return n * per_value


def train_bytes(cfg):
    """The least memory (bytes) a train recipe's data needs: for the adding task, its
    training and validation sequences (values and marks in float64, then the (T, N, 2)
    float32 inputs); the character task is bounded by its `max_bytes`.

    Args:
        cfg: the validated train recipe data (its task and sizes).

    Returns:
        An int, bytes.

    Example::

        from gluonlite.bench.memory import train_bytes
        cfg = {'task': 'adding', 'adding': {'train_size': 10, 'valid_size': 2, 'seq_len': 5}}
        print(train_bytes(cfg))  # 1440: 60 steps x (2 x 8 + 2 x 4) bytes
        print(train_bytes({'task': 'chars'}))  # 0
    """
    if cfg["task"] != "adding":
        return 0
    a = cfg["adding"]
    return (a["train_size"] + a["valid_size"]) * a["seq_len"] * (2 * _F64 + 2 * _F32)


def available_bytes():
    """Memory this machine can give a new allocation now (MemAvailable), or None when the
    system does not say.

    Example::

        from gluonlite.bench.memory import available_bytes
        free = available_bytes()
        print(free is None or free > 0)  # True
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _gib(n):
    return f"{n / 2**30:.1f} GiB"


def check_cases(cases, available=None):
    """MemoryEstimateError for the first case that needs more than `available` bytes
    (default: `available_bytes()`; nothing is checked when unknown).

    Args:
        cases: the case dicts.
        available: default None: the bytes available; None asks `available_bytes()`.

    Raises:
        MemoryEstimateError: the largest case needs more than is available.

    Example::

        from gluonlite.bench.memory import check_cases
        case = {'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4, 'is_train': False}
        check_cases([case], available=2**20)  # fits: nothing raised
    """
    available = available_bytes() if available is None else available
    if available is None or not cases:
        return
    worst = max(cases, key=case_bytes)
    need = case_bytes(worst)
    if need > available:
        raise MemoryEstimateError(
            f"matrix: the case {case_label(worst)}: needs at least {_gib(need)} (its "
            f"seq_len x batch_size x hidden_dim inputs and outputs) but {_gib(available)} is "
            "available here; expected a smaller seq_len, batch_size or hidden_dim")


def check_train(cfg, available=None):
    """MemoryEstimateError when a train recipe's data alone needs more than `available`.

    Args:
        cfg: the validated train recipe data.
        available: default None: the bytes available; None asks `available_bytes()`.

    Raises:
        MemoryEstimateError: the data needs more than is available.

    Example::

        from gluonlite.bench.memory import MemoryEstimateError, check_train
        cfg = {'task': 'adding', 'adding': {'train_size': 10, 'valid_size': 2, 'seq_len': 5}}
        check_train(cfg, available=4096)  # fits
        try:
            check_train(cfg, available=1024)
        except MemoryEstimateError as err:
            print(str(err).split(' need')[0])  # adding: 12 sequences of seq_len 5
    """
    available = available_bytes() if available is None else available
    need = train_bytes(cfg)
    if available is not None and need > available:
        a = cfg["adding"]
        raise MemoryEstimateError(
            f"adding: {a['train_size'] + a['valid_size']} sequences of seq_len {a['seq_len']} "
            f"need at least {_gib(need)} but {_gib(available)} is available here; expected a "
            "smaller seq_len, train_size or valid_size")
