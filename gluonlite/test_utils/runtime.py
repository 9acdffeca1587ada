"""The test run's surroundings: the default context, environment variables for a block,
silenced stderr, retried flaky checks."""
import functools
import os
import sys
from contextlib import contextmanager
from .. import context
from ..context import current_context, num_gpus

__all__ = ["default_context", "set_default_context", "list_gpus", "environment", "discard_stderr",
           "retry"]


def default_context():
    """The context tests run on: the current default context.

    Example::

        nd.ones((2,), ctx=mx.test_utils.default_context()).context   # cpu(0)
    """
    return current_context()


def set_default_context(ctx):
    """Make `ctx` the default context of this thread (outside any ``with ctx:`` block).

    Raises:
        TypeError: `ctx` is not a Context.

    Example::

        prev = mx.test_utils.default_context()
        mx.test_utils.set_default_context(mx.cpu(0))
        nd.ones((2,)).context   # cpu(0)
        mx.test_utils.set_default_context(prev)   # restore
    """
    if not isinstance(ctx, context.Context):
        raise TypeError(f"set_default_context: ctx must be a Context, got {type(ctx).__name__}")
    context._local.ctx = ctx


def list_gpus():
    """The ids of the usable GPUs, ``range(n)`` (empty without CuPy or a CUDA device).

    Example::

        ctx = mx.gpu() if mx.test_utils.list_gpus() else mx.cpu()
        nd.ones((2,), ctx=ctx).shape   # (2,)
    """
    return range(num_gpus())


def _set_environ(values):
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@contextmanager
def environment(*args):
    """Set environment variables for a ``with`` block and restore them after it (also when
    the block raises). A value of None unsets the variable.

    Args:
        *args: ``(name, value)`` for one variable, or one ``{name: value}`` dict.

    Raises:
        TypeError: other arguments, or a value that is neither a str nor None.

    Example::

        import os
        with mx.test_utils.environment('MY_TEST_FLAG', '1'):
            os.environ['MY_TEST_FLAG']   # '1'
        'MY_TEST_FLAG' in os.environ   # False: restored after the block
    """
    if len(args) == 1 and isinstance(args[0], dict):
        values = dict(args[0])
    elif len(args) == 2:
        values = {args[0]: args[1]}
    else:
        raise TypeError("environment: expected (name, value) or one {name: value} dict, got "
                        f"{len(args)} argument(s)")
    for name, value in values.items():
        if value is not None and not isinstance(value, str):
            raise TypeError(f"environment: the value of {name!r} must be a str or None, got "
                            f"{type(value).__name__}")
    saved = {name: os.environ.get(name) for name in values}
    _set_environ(values)
    try:
        yield
    finally:
        _set_environ(saved)


def _flush_stderr():
    try:
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):  # no stderr, or a closed one
        pass


@contextmanager
def discard_stderr():
    """Send what the block writes to the process's stderr (file descriptor 2, so output of
    C code and subprocesses too) to the null device.

    Example::

        import sys
        with mx.test_utils.discard_stderr():
            print('not shown', file=sys.stderr)
    """
    _flush_stderr()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            try:
                yield
            finally:
                _flush_stderr()
                os.dup2(saved, 2)
    finally:
        os.close(saved)


def retry(n):
    """Decorator: run a test up to `n` times until it passes (for stochastic checks); the last
    AssertionError propagates.

    Raises:
        ValueError: `n` is not a positive integer.

    Example::

        tries = []
        @mx.test_utils.retry(3)
        def flaky():
            tries.append(1)
            assert len(tries) >= 2   # fails the first time
        flaky()
        len(tries)   # 2
    """
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"retry: n must be a positive integer, got {n!r}")

    def decorate(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            for i in range(n):
                try:
                    return f(*args, **kwargs)
                except AssertionError:
                    if i == n - 1:
                        raise
            return None
        return wrapper
    return decorate
