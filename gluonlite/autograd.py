"""Recording and differentiating imperative code.

Under ``record()`` every operator call whose inputs need a gradient leaves a `TapeNode`: its
input entries and a closure that maps output gradients to input gradients (the operator's
VJP rule with the saved forward values). ``backward`` walks the nodes reachable from the heads
in reverse topological order, summing gradients where a value fans out (micrograd's ``+=``).

`Function` lets user code give its own backward for a forward written with NDArrays, and
`get_symbol` turns the recorded history of an array into a `Symbol`.
"""
import math
import threading
import warnings

from .base import MXNetValueError, user_frame
from .ops.sparse_grads import RowSparseRows

# `NDArray` is listed (and served by the module's __getattr__) because MXNet's module exports
# it, and scripts rely on ``from mxnet.autograd import *`` bringing it.
__all__ = ["record", "pause", "train_mode", "predict_mode", "is_recording", "is_training",
           "set_recording", "set_training", "backward", "grad", "mark_variables", "get_symbol",
           "Function", "NDArray", "TapeNode", "Leaf"]  # noqa: F822 (NDArray: __getattr__)

_st = threading.local()


def __getattr__(name):
    # ndarray imports this module, so NDArray is looked up on first use
    if name == "NDArray":
        from .ndarray.ndarray import NDArray
        return NDArray
    if name == "Symbol":  # what get_symbol returns; the symbolic layer sits above this one
        from .symbol import Symbol
        return Symbol
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_recording():
    """Whether operator calls are being recorded for a later `backward`."""
    return getattr(_st, "recording", False)


def is_training():
    """Whether operators run in training mode (Dropout active, BatchNorm batch statistics)."""
    return getattr(_st, "training", False)


def set_recording(flag):
    """Set recording on or off; returns the previous state."""
    old, _st.recording = is_recording(), bool(flag)
    return old


def set_training(flag):
    """Set training mode on or off; returns the previous state."""
    old, _st.training = is_training(), bool(flag)
    return old


class _scope:
    """Set recording and/or training mode (None leaves one as it is) for a `with` block,
    restoring both after it. A class rather than a generator: every training step enters
    two of these."""

    __slots__ = ("recording", "training", "old")

    def __init__(self, recording, training):
        self.recording, self.training = recording, training

    def __enter__(self):
        self.old = (set_recording(self.recording) if self.recording is not None else None,
                    set_training(self.training) if self.training is not None else None)
        return self

    def __exit__(self, *exc):
        old_r, old_t = self.old
        if self.recording is not None:
            set_recording(old_r)
        if self.training is not None:
            set_training(old_t)
        return False


def record(train_mode=True):
    """Record operator calls in this block so that `backward` can differentiate them.

    Example::

        x.attach_grad()
        with autograd.record():
            y = (x * x).sum()
        y.backward()            # x.grad == 2 * x
    """
    return _scope(True, train_mode)


def pause(train_mode=False):
    """Stop recording inside a `record()` block (and switch to predict mode by default)."""
    return _scope(False, train_mode)


def train_mode():
    """Training mode without changing whether calls are recorded."""
    return _scope(None, True)


def predict_mode():
    """Predict (inference) mode without changing whether calls are recorded."""
    return _scope(None, False)


class Leaf:
    """The tape entry of an array marked for gradients (`attach_grad`, `mark_variables`).
    `fresh`: a backward has written its gradient since the flag was last cleared (MXNet's
    ``_fresh_grad``)."""

    __slots__ = ("grad", "grad_req", "fresh", "__weakref__")
    nout = 1
    inputs = ()

    def __init__(self, grad, grad_req):
        self.grad, self.grad_req, self.fresh = grad, grad_req, False


class TapeNode:
    """One recorded call: `inputs` are entries ``(node, index)`` or None (needs no gradient),
    `vjp(gys, need)` returns one raw gradient (or None) per input. With `dests_ok` the vjp
    also takes ``dests`` (see `gluonlite.ops.fast.Fast.writes_dests`). `call`, for
    `get_symbol`: the operator call (a `gluonlite.ndarray.invoke.CallPlan`, with ``op`` and
    ``p``), or a function returning the ``[(op, params)]`` steps the node amounts to, or None
    when it has no operator form. `saved`, for ``grad(create_graph=True)``: ``(is_train,
    context, raw inputs, raw outputs)`` of an operator call, whose rule can then run again on
    recorded arrays (None for other nodes)."""

    __slots__ = ("inputs", "vjp", "nout", "label", "dests_ok", "call", "saved")

    def __init__(self, inputs, vjp, nout, label, dests_ok=False, call=None, saved=None):
        self.inputs, self.vjp, self.nout, self.label = inputs, vjp, nout, label
        self.dests_ok, self.call, self.saved = dests_ok, call, saved


def _toposort(heads):
    """(nodes reachable from `heads`, inputs before the nodes reading them; {id(leaf): how
    many node inputs read it})."""
    order, seen, leaf_uses = [], set(), {}
    for h in heads:
        stack = [(h, False)]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.append((node, True))
            for e in node.inputs:
                if e is None:
                    continue
                src = e[0]
                if src.__class__ is Leaf:
                    leaf_uses[id(src)] = leaf_uses.get(id(src), 0) + 1
                if id(src) not in seen:
                    stack.append((src, False))
    return order, leaf_uses


def _entry_of(arr, what):
    e = arr._entry
    if e is None:
        raise MXNetValueError(f"{what}: the array was not computed under autograd.record() "
                              "from an array with attach_grad(), so there is nothing to "
                              "differentiate")
    return e


def _write_targets(order, leaf_uses, entries):
    """{id(leaf): its grad buffer} for the leaves whose gradient a vjp may write in place:
    grad_req 'write', read by one input of one recorded node (so that input's gradient is
    the whole gradient) and not a head, with a C-contiguous buffer (MXNet's kWriteTo)."""
    heads = {id(e[0]) for e in entries}
    targets = {}
    for node in order:
        if node.__class__ is Leaf and leaf_uses.get(id(node)) == 1 and id(node) not in heads \
                and node.grad_req == "write" and node.grad is not None \
                and node.grad.stype == "default" and node.grad._data.flags.c_contiguous:
            targets[id(node)] = node.grad._data
    return targets


def _head_grad_prefix(g, shape):
    """The leading elements of an oversized head gradient, read as `shape`, with a warning.

    MXNet 1.x reads a head gradient as a flat buffer of the head's size without checking its
    shape, so scripts that pass a larger array run there; they run here and get MXNet's
    numbers. A smaller array would read past its end in MXNet and is an error here.

    Raises:
        ValueError: `g` has fewer elements than the head.
    """
    size = math.prod(shape)
    if g.size < size:
        raise ValueError(f"backward: head_grad of shape {g.shape} does not match its head of "
                         f"shape {shape} (it has {g.size} elements, the head {size})")
    warnings.warn(f"backward: head_grad of shape {g.shape} does not match its head of shape "
                  f"{shape}; its first {size} elements are used, as MXNet 1.x does",
                  stacklevel=user_frame()[1])
    return g.reshape(-1)[:size].reshape(shape)


def _run_backward(heads, head_grads, retain_graph, write=False, create_graph=False):
    """Propagate gradients from heads; returns {id(leaf): (leaf, total grad)}: raw arrays, or
    with `create_graph` NDArrays built by recorded operators (the caller records). With
    `write`, nodes that can are handed the grad buffers of the leaves that will receive their
    gradient (`_write_targets`); a leaf's total is then that buffer itself."""
    entries = [_entry_of(h, "backward") for h in heads]
    if head_grads is None:
        head_grads = [None] * len(heads)
    if len(head_grads) != len(heads):
        raise ValueError(f"backward: got {len(heads)} heads but {len(head_grads)} head_grads")
    grads = {}

    def add(entry, g):
        node, i = entry
        if g.__class__ is RowSparseRows and node.__class__ is not Leaf:
            g = g.dense(h_xp)  # operators' gradient rules read dense arrays
        slot = grads.setdefault(id(node), [None] * node.nout)
        slot[i] = g if slot[i] is None else slot[i] + g

    h_xp = heads[0]._ctx.xp if heads else None
    for h, e, hg in zip(heads, entries, head_grads):
        add(e, _head_grad(h, hg, create_graph))
    leaves = {}
    order, leaf_uses = _toposort([e[0] for e in entries])
    targets = _write_targets(order, leaf_uses, entries) if write else {}
    for node in reversed(order):
        gys = grads.pop(id(node), None)
        if isinstance(node, Leaf):
            # a variable of the graph that got no gradient (only non-differentiable paths lead
            # to it) gets zeros, as MXNet writes them
            leaves[id(node)] = (node, None if gys is None else gys[0])
            continue
        if node.vjp is None:
            raise MXNetValueError("backward: the graph has been freed by a previous backward; "
                                  "pass retain_graph=True to the first backward() to run it "
                                  "again")
        if gys is None:
            continue
        need = [e is not None for e in node.inputs]
        if create_graph:
            gxs = _recorded_step(node, gys, need)
        elif targets and node.dests_ok:
            dests = [None if e is None else targets.get(id(e[0])) for e in node.inputs]
            gxs = node.vjp(gys, need, dests)
        else:
            gxs = node.vjp(gys, need)
        for e, gx in zip(node.inputs, gxs):
            if e is not None and gx is not None:
                add(e, gx)
        if not retain_graph:
            node.vjp = node.saved = None
    return leaves


def _head_grad(h, hg, create_graph):
    """The gradient a head starts with: ones, or `hg` (an NDArray, a list or a raw array);
    with `create_graph` an NDArray (an NDArray `hg` keeps its place in the graph)."""
    from .ndarray.ndarray import NDArray
    if create_graph and isinstance(hg, NDArray) and hg.shape == h.shape:
        return hg
    if hg is None:
        g = h._ctx.xp.ones_like(h._data)
    else:
        g = hg._data if hasattr(hg, "_data") else h._ctx.xp.asarray(hg, dtype=h.dtype)
        if g.shape != h.shape:
            g = _head_grad_prefix(g, h.shape)
    return NDArray(g, h._ctx) if create_graph else g


class NoGradient:
    """The vjp of a recorded call none of whose inputs takes a gradient (comparisons, indices,
    `BlockGrad`): it stays in the graph so that backward from its outputs works, giving None
    for each of its `n` inputs."""

    __slots__ = ("n",)

    def __init__(self, n):
        self.n = n

    def __call__(self, gys, need, dests=None):
        return (None,) * self.n


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
    from .ndarray.recorded_rules import NotRecordable, recorded_vjp
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

    Raises:
        ValueError: a head was not recorded, or the graph was already freed.
    """
    from .ndarray.ndarray import NDArray
    if isinstance(heads, NDArray):
        heads = [heads]
        head_grads = None if head_grads is None else [head_grads]
    with _scope(False, train_mode):
        leaves = _run_backward(list(heads), head_grads, retain_graph, write=True)
    for leaf, g in leaves.values():
        if leaf.grad_req == "null" or leaf.grad is None:
            continue
        leaf.fresh = True
        if leaf.grad.stype != "default" or g.__class__ is RowSparseRows:
            from .ndarray.sparse_grad import store_gradient
            store_gradient(leaf.grad, g, leaf.grad_req)
        elif g is None:
            if leaf.grad_req == "write":
                leaf.grad._data[...] = 0
        elif leaf.grad_req == "add":
            leaf.grad._data += g
        elif g is not leaf.grad._data:  # not already written in place
            leaf.grad._data[...] = g


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
    from .ndarray.ndarray import NDArray
    variables = [variables] if isinstance(variables, NDArray) else list(variables)
    if isinstance(heads, NDArray):
        heads = [heads]
        head_grads = None if head_grads is None else [head_grads]
    for i, v in enumerate(variables):
        if not isinstance(v._entry, tuple) or not isinstance(v._entry[0], Leaf):
            raise ValueError(f"autograd.grad: variables[{i}] is not marked for gradients; call "
                             "attach_grad() on it before recording")
    keep = create_graph if retain_graph is None else retain_graph
    with _scope(bool(create_graph), train_mode):
        leaves = _run_backward(list(heads), head_grads, keep, create_graph=bool(create_graph))
    out = []
    for v in variables:
        hit = leaves.get(id(v._entry[0]))
        g = hit[1] if hit and hit[1] is not None else v._ctx.xp.zeros_like(v._data)
        if g.__class__ is RowSparseRows:
            from .ndarray.sparse_grad import rows_to_ndarray
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
    """
    from .ndarray.ndarray import NDArray, check_grad_req
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


def record_node(inputs, vjp, outputs, label, dests_ok=False, call=None, saved=None):
    """Attach a recorded node producing NDArrays `outputs` (internal: used by invoke, the
    imperative loops and CachedOp). `inputs` are NDArrays whose entries are read here;
    `dests_ok`: `vjp` also takes ``dests``; `call`, `saved`: see `TapeNode`."""
    entries = [None if x is None else x._entry for x in inputs]
    if not any(e is not None for e in entries):
        return
    node = TapeNode(entries, vjp, len(outputs), label, dests_ok, call, saved)
    for i, o in enumerate(outputs):
        o._entry = (node, i)


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

        x.attach_grad()
        with autograd.record():
            y = x * x + 1
        autograd.get_symbol(y).list_arguments()     # ['var0']
    """
    from .ndarray.ndarray import NDArray
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

        x.attach_grad()
        with autograd.record():
            y = Sigmoid()(x)
        y.backward()
    """

    def __init__(self):
        self._used = False
        self.saved_tensors = ()

    def save_for_backward(self, *args):
        """Keep `args` for `backward` (in `saved_tensors`)."""
        self.saved_tensors = args

    def forward(self, *inputs):
        """The computation: NDArrays in, an NDArray or a tuple/list of NDArrays out."""
        raise NotImplementedError(f"{type(self).__name__}.forward is not written")

    def backward(self, *output_grads):
        """The gradients of the inputs (one NDArray each, a tuple for several) from the
        gradients of the outputs (one NDArray each; zeros for an output not used)."""
        raise NotImplementedError(f"{type(self).__name__}.backward is not written")

    def __call__(self, *inputs):
        """Run `forward` on `inputs`; under `record()`, record one step whose gradient is
        `backward`.

        Raises:
            RuntimeError: the instance was called before (its saved tensors belong to that
                call; make one instance per call).
            TypeError: an input or an output of forward is not an NDArray.
        """
        from .ndarray.ndarray import NDArray
        name = type(self).__name__
        if self._used:
            raise RuntimeError(f"{name}: a Function instance can be called once (its saved "
                               "tensors belong to that call); create a new instance per call")
        self._used = True
        for i, x in enumerate(inputs):
            if not isinstance(x, NDArray):
                raise TypeError(f"{name}: input {i} must be an NDArray, got {type(x).__name__}")
        with _scope(False, None):
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
        from .ndarray.ndarray import NDArray
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

