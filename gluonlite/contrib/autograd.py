"""`mx.contrib.autograd`: MXNet's first, pre-Gluon autograd interface, kept for old scripts.

Here training mode and recording are one switch: `set_is_training(True)` (and the
`train_section()` scope) both records operator calls and runs them in training mode, as
MXNet 1.x's legacy module does. Everything is written over `gluonlite.autograd`, so the same
tape, gradient rules and `grad_req` semantics apply; new code should use `mx.autograd`.

Example::

    from gluonlite.contrib import autograd as cag
    x = nd.array([1.0, 2.0]); dx = nd.zeros_like(x)
    cag.mark_variables([x], [dx])
    with cag.train_section():
        y = x * x
    cag.backward([y])
    dx.asnumpy().tolist()   # [2.0, 4.0]
"""
import functools

from .. import autograd as _ag
from ..ndarray import NDArray, zeros_like

__all__ = ["set_is_training", "TrainingStateScope", "train_section", "test_section",
           "mark_variables", "backward", "compute_gradient", "grad_and_loss", "grad"]


def set_is_training(is_train):
    """Switch training mode and recording together, on or off.

    Args:
        is_train: bool; True records operator calls and runs them in training mode
            (Dropout drops), False does neither.

    Returns:
        bool: the previous training state.

    Example::

        from gluonlite.contrib import autograd as cag
        prev = cag.set_is_training(True)
        autograd.is_training(), autograd.is_recording()   # (True, True)
        cag.set_is_training(prev)
    """
    prev = _ag.set_training(is_train)
    _ag.set_recording(is_train)
    return prev


class TrainingStateScope:
    """A `with` scope that sets training-and-recording to `enter_state` and restores it.

    Args:
        enter_state: bool, the state inside the scope.

    Example::

        from gluonlite.contrib import autograd as cag
        x = nd.array([1.0, 2.0]); dx = nd.zeros_like(x)
        cag.mark_variables([x], [dx])
        with cag.TrainingStateScope(True):
            y = (x * 3).sum()
        cag.backward([y])
        dx.asnumpy().tolist()   # [3.0, 3.0]
    """

    def __init__(self, enter_state):
        self._enter_state = bool(enter_state)
        self._prev = None

    def __enter__(self):
        self._prev = set_is_training(self._enter_state)

    def __exit__(self, ptype, value, trace):
        if self._prev != self._enter_state:
            set_is_training(self._prev)


def train_section():
    """A scope that records and runs in training mode (`TrainingStateScope(True)`).

    Example::

        from gluonlite.contrib import autograd as cag
        x = nd.ones((2, 4)); dx = nd.zeros_like(x)
        cag.mark_variables([x], [dx])
        with cag.train_section():
            y = nd.Dropout(x, p=0.5)     # dropped (kept ones scaled by 2), and recorded
        cag.backward([y])   # dx is 2 where y kept x, else 0
    """
    return TrainingStateScope(True)


def test_section():
    """A scope that neither records nor trains (`TrainingStateScope(False)`), e.g. inside a
    `train_section()` for evaluation.

    Example::

        from gluonlite.contrib import autograd as cag
        x = nd.ones((2, 4))
        with cag.train_section():
            with cag.test_section():
                y = nd.Dropout(x, p=0.5)
        (y == x).min().asscalar()   # 1.0: nothing dropped
    """
    return TrainingStateScope(False)


def mark_variables(variables, gradients, grad_reqs="write"):
    """Mark arrays as variables whose gradients `backward` writes into `gradients`.

    Args:
        variables: list of NDArrays.
        gradients: list of NDArrays, one per variable, of the same shapes.
        grad_reqs: 'write', 'add' or 'null', one for all or a list of one per variable.

    Raises:
        ValueError: the lists differ in length, or a gradient's shape differs.

    Example::

        from gluonlite.contrib import autograd as cag
        x = nd.array([1.0, 2.0]); dx = nd.ones_like(x)
        cag.mark_variables([x], [dx], grad_reqs='add')
        with cag.train_section():
            y = x * 2
        cag.backward([y])
        dx.asnumpy().tolist()   # [3.0, 3.0]: added to the ones
    """
    _ag.mark_variables(variables, gradients, grad_reqs)


def backward(outputs, out_grads=None, retain_graph=False):
    """Compute the gradients of `outputs` into the marked variables' gradient arrays.

    Args:
        outputs: list (or tuple) of recorded NDArrays.
        out_grads: None (ones for every output) or a list of one NDArray or None (ones)
            per output.
        retain_graph: keep the recorded graph so it can be differentiated again.

    Raises:
        TypeError: `outputs` is not a list or tuple.
        ValueError: `out_grads` has a different length, or an output was not recorded.

    Example::

        from gluonlite.contrib import autograd as cag
        x = nd.array([1.0, 2.0]); dx = nd.zeros_like(x)
        cag.mark_variables([x], [dx])
        with cag.train_section():
            a, b = nd.split(x, axis=0, num_outputs=2)
        cag.backward([a, b], [None, nd.ones_like(b) * 2])
        dx.asnumpy().tolist()   # [1.0, 2.0]
    """
    if not isinstance(outputs, (list, tuple)):
        raise TypeError("contrib.autograd.backward: outputs must be a list or tuple of "
                        f"NDArrays, got {type(outputs).__name__}")
    if out_grads is not None and len(out_grads) != len(outputs):
        raise ValueError(f"contrib.autograd.backward: got {len(outputs)} outputs but "
                         f"{len(out_grads)} out_grads; give one (or None) per output")
    _ag.backward(list(outputs), None if out_grads is None else list(out_grads),
                 retain_graph=retain_graph)


def compute_gradient(outputs):
    """Deprecated: `backward(outputs)`.

    Args:
        outputs (list of NDArray): the recorded outputs to differentiate; each head's
            gradient is ones, accumulated into the gradient buffers `mark_variables` set.

    Example::

        from gluonlite.contrib import autograd as cag
        x = nd.array([3.0]); dx = nd.zeros_like(x)
        cag.mark_variables([x], [dx])
        with cag.train_section():
            y = x * x
        cag.compute_gradient([y])
        dx.asnumpy().tolist()   # [6.0]
    """
    backward(outputs)


def grad_and_loss(func, argnum=None):
    """Wrap `func` so that a call returns the gradients of its arguments and its value.

    Args:
        func: a function of NDArrays returning an NDArray (or a list of them) to
            differentiate (the gradient of each output is ones).
        argnum: None (every argument), an int or a list of ints: the arguments to
            differentiate with respect to.

    Returns:
        A function with `func`'s arguments that returns ``(grads, outputs)``, `grads` a list
        with one array per differentiated argument.

    Raises:
        TypeError: (when called) a differentiated argument is not an NDArray.

    Example::

        from gluonlite.contrib import autograd as cag
        grads, y = cag.grad_and_loss(lambda x: x * x)(nd.array([3.0]))
        grads[0].asnumpy().tolist(), y.asnumpy().tolist()   # ([6.0], [9.0])
    """
    @functools.wraps(func)
    def wrapped(*args):
        variables = args
        if argnum is not None:
            picks = argnum if isinstance(argnum, list) else [argnum]
            variables = [args[i] for i in picks]
        for i, x in enumerate(variables):
            if not isinstance(x, NDArray):
                raise TypeError(f"contrib.autograd.grad_and_loss: differentiated argument {i} "
                                f"must be an NDArray, got {type(x).__name__}")
        grads = [zeros_like(x) for x in variables]
        mark_variables(list(variables), grads)
        with train_section():
            outputs = func(*args)
        compute_gradient([outputs] if isinstance(outputs, NDArray) else outputs)
        return grads, outputs
    return wrapped


def grad(func, argnum=None):
    """Wrap `func` so that a call returns the gradients of its arguments (see `grad_and_loss`).

    Args:
        func: a function of NDArrays returning an NDArray (or a list of them).
        argnum: None (every argument), an int or a list of ints.

    Returns:
        A function with `func`'s arguments that returns a list of gradients.

    Example::

        from gluonlite.contrib import autograd as cag
        grads = cag.grad(lambda x, w: x * w, argnum=1)(nd.array([3.0]), nd.array([2.0]))
        grads[0].asnumpy().tolist()   # [3.0]: d(x * w)/dw
    """
    grad_with_loss_func = grad_and_loss(func, argnum)

    @functools.wraps(grad_with_loss_func)
    def wrapped(*args):
        return grad_with_loss_func(*args)[0]
    return wrapped

