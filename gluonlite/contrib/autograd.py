"""`mx.contrib.autograd`: MXNet's first autograd interface, kept for old scripts; built on
`gluonlite.autograd`. A "train section" records and runs operators in training mode at once.

Example::

    x = nd.array([1., 2.])
    dx = nd.zeros_like(x)
    contrib.autograd.mark_variables([x], [dx])
    with contrib.autograd.train_section():
        y = x * x
    contrib.autograd.compute_gradient([y])     # dx is now 2 * x
"""
import functools

from .. import autograd as _ag
from ..ndarray import NDArray, zeros_like

__all__ = ["set_is_training", "TrainingStateScope", "train_section", "test_section",
           "mark_variables", "backward", "compute_gradient", "grad_and_loss", "grad"]


def set_is_training(is_train):
    """Turn recording and training mode on or off together.

    Returns:
        The previous state (whether it was recording).
    """
    prev = _ag.set_recording(bool(is_train))
    _ag.set_training(bool(is_train))
    return bool(prev)


class TrainingStateScope:
    """A ``with`` scope in which recording and training mode are `enter_state`; the previous
    state comes back on exit."""

    def __init__(self, enter_state):
        self._enter_state = bool(enter_state)
        self._prev = None

    def __enter__(self):
        self._prev = set_is_training(self._enter_state)
        return self

    def __exit__(self, *exc):
        if self._prev != self._enter_state:
            set_is_training(self._prev)
        return False


def train_section():
    """A scope that records operators, run in training mode (`TrainingStateScope(True)`)."""
    return TrainingStateScope(True)


def test_section():
    """A scope that neither records nor trains (`TrainingStateScope(False)`)."""
    return TrainingStateScope(False)


def mark_variables(variables, gradients, grad_reqs="write"):
    """Attach `gradients` (one NDArray each) to `variables` (see `autograd.mark_variables`)."""
    _ag.mark_variables(variables, gradients, grad_reqs)


def backward(outputs, out_grads=None, retain_graph=False):
    """Gradients of `outputs` (a list or tuple of NDArrays) into the marked variables.

    Raises:
        TypeError: `outputs` is not a list or tuple.
        ValueError: `out_grads` of another length than `outputs`.
    """
    if not isinstance(outputs, (list, tuple)):
        raise TypeError(f"contrib.autograd.backward: outputs must be a list or tuple of "
                        f"NDArrays, got {type(outputs).__name__}")
    if out_grads is not None and len(out_grads) != len(outputs):
        raise ValueError(f"contrib.autograd.backward: got {len(out_grads)} out_grads for "
                         f"{len(outputs)} outputs")
    _ag.backward(list(outputs), out_grads, retain_graph=retain_graph)


def compute_gradient(outputs):
    """`backward(outputs)` (deprecated in MXNet too)."""
    backward(outputs)


def grad_and_loss(func, argnum=None):
    """A function that returns (gradients of `func`'s arguments, `func`'s outputs).

    Args:
        func: takes NDArrays, returns an NDArray or a list of them (the loss).
        argnum: the index, or list of indices, of the arguments to differentiate (default all).

    Raises (when called):
        TypeError: an argument to differentiate that is not an NDArray.

    Example: ``grads, loss = grad_and_loss(lambda x: x * x)(nd.array([3.]))`` (grads[0]: 6).
    """
    @functools.wraps(func)
    def wrapped(*args):
        picked = args if argnum is None else [
            args[i] for i in (argnum if isinstance(argnum, list) else [argnum])]
        for x in picked:
            if not isinstance(x, NDArray):
                raise TypeError(f"contrib.autograd.grad_and_loss: the arguments to "
                                f"differentiate must be NDArrays, got {type(x).__name__}")
        grads = [zeros_like(x) for x in picked]
        mark_variables(picked, grads)
        with train_section():
            outputs = func(*args)
        compute_gradient([outputs] if isinstance(outputs, NDArray) else outputs)
        return grads, outputs
    return wrapped


def grad(func, argnum=None):
    """`grad_and_loss` without the outputs: a function returning the gradients only."""
    with_loss = grad_and_loss(func, argnum)

    @functools.wraps(with_loss)
    def wrapped(*args):
        return with_loss(*args)[0]
    return wrapped
