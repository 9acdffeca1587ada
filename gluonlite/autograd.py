"""Recording and differentiating imperative code: the user API (MXNet's ``mx.autograd``).

Under ``record()`` every operator call whose inputs need a gradient leaves a `TapeNode`: its
input entries and a closure that maps output gradients to input gradients (the operator's
VJP rule with the saved forward values). ``backward`` walks the nodes reachable from the heads
in reverse topological order, summing gradients where a value fans out (micrograd's ``+=``).
The tape itself and that walk are `gluonlite.autograd_tape`, which the arrays import; this
module imports `gluonlite.ndarray` and takes NDArrays (the arrays never import it).

`Function` lets user code give its own backward for a forward written with NDArrays, and
`get_symbol` turns the recorded history of an array into a `Symbol`.
"""
from .autograd_tape import (Leaf, Mode, NoGradient, TapeNode, is_recording,  # noqa: F401
                            is_training, record_node, run_backward, set_recording,
                            set_training)
from .autograd_tape import backward as _tape_backward
from .autograd_tape import raw_head_grad
from .base import MXNetValueError
from .ndarray.sparse_grad import rows_to_ndarray
from .ops.sparse.grads import RowSparseRows
from .ndarray.ndarray import NDArray, check_grad_req
from .ndarray.recorded_rules import NotRecordable, recorded_vjp

# `NDArray` is listed because MXNet's module exports it, and scripts rely on
# ``from mxnet.autograd import *`` bringing it. `Symbol` (what get_symbol returns) is set here by
# `gluonlite.symbol` when it loads, as `_history_to_symbol` is.
__all__ = ["record", "pause", "train_mode", "predict_mode", "is_recording", "is_training",
           "set_recording", "set_training", "backward", "grad", "mark_variables", "get_symbol",
           "Function", "NDArray", "TapeNode", "Leaf"]


def record(train_mode=True):
    """Record operator calls in this block so that `backward` can differentiate them.

    Args:
        train_mode (bool): the training mode inside the block (default True: e.g.
            Dropout active).

    Example::

        x = nd.array([1.0, 2.0])
        x.attach_grad()
        with autograd.record():
            y = (x * x).sum()
        y.backward()            # x.grad == 2 * x
    """
    return Mode(True, train_mode)


def pause(train_mode=False):
    """Stop recording inside a `record()` block (and switch to predict mode by default).

    Args:
        train_mode (bool): the training mode inside the block (default False: predict
            mode).

    Example::

        x = nd.array([1.0]); x.attach_grad()
        with autograd.record():
            y = x * 2
            with autograd.pause():
                autograd.is_recording()     # False
    """
    return Mode(False, train_mode)


def train_mode():
    """Training mode without changing whether calls are recorded.

    Example::

        with autograd.train_mode():
            y = nd.Dropout(nd.ones((1000,)), p=0.5)     # about half the values are zero
    """
    return Mode(None, True)


def predict_mode():
    """Predict (inference) mode without changing whether calls are recorded.

    Example::

        with autograd.record():
            with autograd.predict_mode():
                y = nd.Dropout(nd.ones((4,)), p=0.5)    # no dropout: all ones
    """
    return Mode(None, False)


def _recorded_head_grad(h, hg):
    """The gradient a head starts with under ``grad(create_graph=True)``: an NDArray (an
    NDArray `hg` of the head's shape, or of its size read in its shape as MXNet reads a head
    gradient, keeps its place in the graph)."""
    if isinstance(hg, NDArray) and hg.shape == h.shape:
        return hg
    if isinstance(hg, NDArray) and hg.size == h.size:
        return hg.reshape(h.shape)
    return NDArray(raw_head_grad(h, hg), h._ctx)


def _recorded_step(node, gys, need):
    """One node's gradient for ``grad(create_graph=True)``: its operator's rule run again on
    recorded NDArrays (`gluonlite.ndarray.recorded_rules`).

    Raises:
        ValueError (MXNetError): the node is not an operator call (a hybridized block, a
            custom Function, a loop, an indexing view), or its operator's rule cannot be
            recorded; the message names it.
    """
    if node.vjp.__class__ is NoGradient:
        return node.vjp(gys, need)
    if node.saved is None:
        raise MXNetValueError(
            f"autograd.grad(create_graph=True): the recorded step '{node.label}' has a "
            "first-order gradient only (higher-order gradients go through operator calls; "
            "not through hybridized blocks, custom Functions, loops or indexing views)")
    try:
        return recorded_vjp(node, gys, need)
    except NotRecordable as e:
        raise MXNetValueError(
            f"autograd.grad(create_graph=True): the gradient of operator '{node.label}' "
            f"cannot be differentiated again: its gradient rule {e}") from None


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):
    """Compute gradients of `heads` with respect to every array with `attach_grad()`.

    Args:
        heads: an NDArray or a list of them.
        head_grads: gradients of the heads (default: ones), same structure.
        retain_graph: keep the recorded graph so `backward` can run again.
        train_mode (bool): run the backward pass in training mode (default True), as
            Dropout and BatchNorm's backward expect.

    Raises:
        ValueError: a head was not recorded, or the graph was already freed.

    Example::

        x = nd.array([1.0, 2.0]); x.attach_grad()
        with autograd.record():
            y = x * x
        autograd.backward(y, head_grads=nd.array([1.0, 0.5]))
        x.grad.asnumpy()        # array([2., 2.], dtype=float32)
    """
    if isinstance(heads, NDArray):
        heads = [heads]
        head_grads = None if head_grads is None else [head_grads]
    _tape_backward(heads, head_grads, retain_graph, train_mode)


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False,
         train_mode=True):
    """Gradients of `heads` with respect to `variables`, returned instead of written to `.grad`.

    Args:
        heads: NDArray or list of NDArrays.
        variables: NDArray or list; each must have `attach_grad()` (or `mark_variables`).
        head_grads: gradients of the heads (default: ones), same structure.
        retain_graph: keep the graph (default: `create_graph`).
        create_graph: record the gradient computation itself, so that the returned gradients
            can be differentiated again (`backward()` on them, or another `grad`).
        train_mode: run the gradient rules in train mode.

    Returns:
        A list of NDArrays, one per variable (a list even for one variable, as in MXNet).

    Raises:
        ValueError: a variable is not marked for gradients; with `create_graph`, a step whose
            gradient cannot be recorded (the message names it).

    Example::

        x = nd.array([1.0]); x.attach_grad()
        with autograd.record():
            z = nd.exp(x) + x
        dx, = autograd.grad(z, [x], create_graph=True)   # e + 1
        dx.backward()                                    # x.grad == e
    """
    variables = [variables] if isinstance(variables, NDArray) else list(variables)
    if isinstance(heads, NDArray):
        heads = [heads]
        head_grads = None if head_grads is None else [head_grads]
    for i, v in enumerate(variables):
        if not isinstance(v._entry, tuple) or not isinstance(v._entry[0], Leaf):
            raise ValueError(f"autograd.grad: variables[{i}] is not marked for gradients; call "
                             "attach_grad() on it before recording")
    keep = create_graph if retain_graph is None else retain_graph
    step = (_recorded_step, _recorded_head_grad) if create_graph else (None, None)
    with Mode(bool(create_graph), train_mode):
        leaves = run_backward(list(heads), head_grads, keep, step=step[0], head_grad=step[1])
    out = []
    for v in variables:
        hit = leaves.get(id(v._entry[0]))
        g = hit[1] if hit and hit[1] is not None else v._ctx.xp.zeros_like(v._data)
        if g.__class__ is RowSparseRows:
            g = rows_to_ndarray(g, v._ctx)
        g = g if isinstance(g, NDArray) else NDArray(g, v._ctx)
        if create_graph and g._entry is None:
            # A gradient that does not depend on the variables (that of a linear function) is
            # still a value of the graph, as in MXNet: differentiated again it gives zeros.
            record_node([v], NoGradient(1), [g], "constant gradient")
        out.append(g)
    return out


def mark_variables(variables, gradients, grad_reqs="write"):
    """Mark arrays as variables whose gradients go into the given buffers.

    Args:
        variables: NDArray or list of NDArrays.
        gradients: the gradient buffers, same structure.
        grad_reqs: 'write', 'add' or 'null', one for all or one per variable.

    Example::

        x = nd.array([1.0, 2.0])
        buf = nd.zeros((2,))
        autograd.mark_variables(x, buf)
        with autograd.record():
            y = (x * x).sum()
        y.backward()
        buf.asnumpy()           # array([2., 4.], dtype=float32)
    """
    if isinstance(variables, NDArray):
        variables, gradients = [variables], [gradients]
    reqs = [grad_reqs] * len(variables) if isinstance(grad_reqs, str) else list(grad_reqs)
    if not len(variables) == len(gradients) == len(reqs):
        raise ValueError(f"mark_variables: got {len(variables)} variables, {len(gradients)} "
                         f"gradients and {len(reqs)} grad_reqs; give one of each per variable")
    for i, (v, g) in enumerate(zip(variables, gradients)):
        if not isinstance(g, NDArray) or g.shape != v.shape:
            raise ValueError(f"mark_variables: gradients[{i}] must be an NDArray of shape "
                             f"{v.shape}, got {getattr(g, 'shape', type(g).__name__)}")
    for v, g, r in zip(variables, gradients, reqs):
        v._entry = (Leaf(g, check_grad_req(r)), 0)
        v._grad = g


# Set by `gluonlite.symbol` when it loads (the symbolic layer sits below this one, so this
# module never imports it): builds a Symbol from a recorded history.
_history_to_symbol = None


def get_symbol(x):
    """The recorded computation that produced `x`, as a Symbol.

    Arrays marked for gradients become variables ``var0, var1, ...``, other arrays read by
    the recorded calls become variables ``null0, null1, ...``, and each recorded operator call
    a node ``node_0, node_1, ...`` with its attributes (as MXNet names them).

    Args:
        x: an NDArray computed under `record()`.

    Returns:
        A Symbol with one output.

    Raises:
        TypeError: `x` is not an NDArray.
        ValueError: `x` is not part of a recorded computation.
        NotImplementedError: the history holds a step with no operator form (a hybridized
            block's call, a `Function`).

    Example::

        x = nd.array([1.0, 2.0])
        x.attach_grad()
        with autograd.record():
            y = x * x + 1
        autograd.get_symbol(y).list_arguments()     # ['var0']
    """
    if not isinstance(x, NDArray):
        raise TypeError(f"get_symbol: x must be an NDArray, got {type(x).__name__}")
    if x._entry is None:
        raise MXNetValueError("get_symbol: x is not part of a recorded computation; compute "
                              "it under autograd.record() from an array with attach_grad()")
    if _history_to_symbol is None:
        raise RuntimeError("get_symbol: gluonlite.symbol is not loaded (import gluonlite)")
    return _history_to_symbol(x._entry)


class Function:
    """An operation with a hand-written backward.

    Subclass it, write `forward` (NDArrays in, an NDArray or a tuple of them out; run without
    recording) and `backward` (one gradient per output in, one per input out), and call an
    instance on NDArrays. Under `record()`, autograd then uses `backward` for this step
    instead of differentiating what `forward` did. Keep what `backward` needs with
    `save_for_backward`; it is in `saved_tensors`.

    Example::

        class Sigmoid(autograd.Function):
            def forward(self, x):
                y = 1 / (1 + nd.exp(-x))
                self.save_for_backward(y)
                return y

            def backward(self, dy):
                y, = self.saved_tensors
                return dy * y * (1 - y)

        x = nd.array([0.0, 1.0])
        x.attach_grad()
        with autograd.record():
            y = Sigmoid()(x)
        y.backward()
    """

    def __init__(self):
        self._used = False
        self.saved_tensors = ()

    def save_for_backward(self, *args):
        """Keep `args` for `backward` (in `saved_tensors`).

        Example::

            f = autograd.Function()
            f.save_for_backward(nd.ones((2,)), nd.zeros((2,)))
            len(f.saved_tensors)        # 2
        """
        self.saved_tensors = args

    def forward(self, *inputs):
        """The computation: NDArrays in, an NDArray or a tuple/list of NDArrays out.

        Example::

            class Square(autograd.Function):
                def forward(self, x):
                    self.save_for_backward(x)
                    return x * x
                def backward(self, dy):
                    x, = self.saved_tensors
                    return 2 * x * dy
            Square()(nd.array([3.0])).asnumpy()     # array([9.], dtype=float32)
        """
        raise NotImplementedError(f"{type(self).__name__}.forward is not written")

    def backward(self, *output_grads):
        """The gradients of the inputs (one NDArray each, a tuple for several) from the
        gradients of the outputs (one NDArray each; zeros for an output not used).

        Example::

            class Double(autograd.Function):
                def forward(self, x):
                    return x * 2
                def backward(self, dy):
                    return dy * 2
            x = nd.array([1.0, 2.0]); x.attach_grad()
            with autograd.record():
                y = Double()(x)
            y.backward()
            x.grad.asnumpy()        # array([2., 2.], dtype=float32)
        """
        raise NotImplementedError(f"{type(self).__name__}.backward is not written")

    def __call__(self, *inputs):
        """Run `forward` on `inputs`; under `record()`, record one step whose gradient is
        `backward`.

        Raises:
            RuntimeError: the instance was called before (its saved tensors belong to that
                call; make one instance per call).
            TypeError: an input or an output of forward is not an NDArray.
        """
        name = type(self).__name__
        if self._used:
            raise RuntimeError(f"{name}: a Function instance can be called once (its saved "
                               "tensors belong to that call); create a new instance per call")
        self._used = True
        for i, x in enumerate(inputs):
            if not isinstance(x, NDArray):
                raise TypeError(f"{name}: input {i} must be an NDArray, got {type(x).__name__}")
        with Mode(False, None):
            result = self.forward(*inputs)
        if not is_recording():
            return result
        single = isinstance(result, NDArray)
        outputs = [result] if single else list(result)
        for i, y in enumerate(outputs):
            if not isinstance(y, NDArray):
                raise TypeError(f"{name}.forward: output {i} must be an NDArray, got "
                                f"{type(y).__name__}")
            if y._entry is not None or any(y is x for x in inputs):
                # an array that is already in the graph (an input returned as it is) gets a
                # new handle, so that this step does not replace its history
                outputs[i] = NDArray(y._data, y._ctx)
        record_node(list(inputs), self._vjp(inputs, outputs), outputs, name)
        if single:
            return outputs[0]
        return type(result)(outputs) if isinstance(result, (tuple, list)) else outputs

    def _vjp(self, inputs, outputs):
        name = type(self).__name__
        shapes = [x.shape for x in inputs]

        def vjp(gys, need):
            ograds = [NDArray(y._ctx.xp.zeros_like(y._data) if g is None else g, y._ctx)
                      for g, y in zip(gys, outputs)]
            rets = self.backward(*ograds)
            rets = [rets] if isinstance(rets, NDArray) else list(rets)
            if len(rets) != len(shapes):
                raise ValueError(f"{name}.backward returned {len(rets)} gradient(s) for "
                                 f"{len(shapes)} input(s) of forward; return one per input")
            out = []
            for i, (g, shape) in enumerate(zip(rets, shapes)):
                if not isinstance(g, NDArray):
                    raise TypeError(f"{name}.backward: gradient {i} must be an NDArray, got "
                                    f"{type(g).__name__}")
                if g.shape != shape:
                    raise ValueError(f"{name}.backward: gradient {i} has shape {g.shape} but "
                                     f"input {i} has shape {shape}")
                out.append(g._data)
            return out
        return vjp

