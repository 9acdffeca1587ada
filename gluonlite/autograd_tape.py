"""The autograd tape: what recording leaves behind, and the walk that differentiates it.

`gluonlite.ndarray` imports this module, which imports neither arrays nor operators: an
operator call under recording leaves a `TapeNode` (its input entries and a closure mapping
output gradients to input gradients), an array marked for gradients a `Leaf`, and
`run_backward` walks the nodes reachable from the heads in reverse topological order, summing
gradients where a value fans out (micrograd's ``+=``). The arrays it reads need only
``_entry``, ``_data``, ``_ctx`` and ``shape``/``dtype``.

The user API (`record`, `backward`, `grad`, `Function`, `get_symbol`, ...) is
`gluonlite.autograd`, which imports `gluonlite.ndarray`; the recording state is read and set
here, so that the arrays and the user API share one switch.

Example (what `NDArray.backward` does)::

    from gluonlite import autograd_tape
    autograd_tape.backward([y], None, retain_graph=False, train_mode=True)
"""
import math
import threading
import warnings

from .base import MXNetValueError, user_frame
from .ops import float_errors
from .ops.sparse.grads import RowSparseRows

__all__ = ["is_recording", "is_training", "set_recording", "set_training", "Mode", "Leaf",
           "TapeNode", "NoGradient", "record_node", "toposort", "run_backward", "backward"]

_st = threading.local()


def is_recording():
    """Whether operator calls are being recorded for a later `backward`.

    Example::

        autograd.is_recording()         # False
        with autograd.record():
            inside = autograd.is_recording()    # True
    """
    return getattr(_st, "recording", False)


def is_training():
    """Whether operators run in training mode (Dropout active, BatchNorm batch statistics).

    Example::

        autograd.is_training()          # False
        with autograd.train_mode():
            inside = autograd.is_training()     # True
    """
    return getattr(_st, "training", False)


def set_recording(flag):
    """Set recording on or off; returns the previous state.

    Args:
        flag (bool): True to record operator calls from now on, False to stop.

    Example::

        prev = autograd.set_recording(True)     # the previous state, False
        autograd.is_recording()                 # True
        autograd.set_recording(prev)            # restore it
    """
    old, _st.recording = is_recording(), bool(flag)
    return old


def set_training(flag):
    """Set training mode on or off; returns the previous state.

    Args:
        flag (bool): True for training mode (e.g. Dropout active), False for
            predict mode.

    Example::

        prev = autograd.set_training(True)      # the previous state, False
        autograd.is_training()                  # True
        autograd.set_training(prev)             # restore
    """
    old, _st.training = is_training(), bool(flag)
    return old


class Mode:
    """Set recording and/or training mode (None leaves one as it is) for a `with` block,
    restoring both after it. A class rather than a generator: every training step enters
    two of these.

    Args:
        recording: True, False or None (unchanged).
        training: True, False or None (unchanged).

    Example::

        from gluonlite.autograd_tape import Mode
        x = nd.ones((2,)); x.attach_grad()
        with autograd.record():
            with Mode(False, None):     # not recorded, training mode unchanged
                y = x * 2
        y._entry is None                # True: nothing recorded
    """

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


class Leaf:
    """The tape entry of an array marked for gradients (`attach_grad`, `mark_variables`).
    `fresh`: a backward has written its gradient since the flag was last cleared (MXNet's
    ``_fresh_grad``).

    Args:
        grad (NDArray): the buffer the gradient is written to (or added to).
        grad_req (str): 'write', 'add' or 'null': how a backward stores the gradient.

    Example::

        x = nd.array([1.0]); x.attach_grad()
        leaf = x._entry[0]
        type(leaf).__name__, leaf.grad_req     # ('Leaf', 'write')
    """

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
    recorded arrays (None for other nodes). `headless`: the vjp ignores the outputs'
    gradients (an output layer, `Operator.ignores_head_grad`), so a backward runs it when it
    reaches the node without one, behind BlockGrad, as MXNet's does.

    Args:
        nout (int): how many outputs the call made.
        label (str): the call's name, shown in error messages and graphs.

    Example::

        x = nd.array([1.0, 2.0]); x.attach_grad()
        with autograd.record():
            y = x * 3
        node = y._entry[0]
        type(node).__name__, node.nout          # ('TapeNode', 1)
    """

    __slots__ = ("inputs", "vjp", "nout", "label", "dests_ok", "call", "saved", "headless")

    def __init__(self, inputs, vjp, nout, label, dests_ok=False, call=None, saved=None,
                 headless=False):
        self.inputs, self.vjp, self.nout, self.label = inputs, vjp, nout, label
        self.dests_ok, self.call, self.saved = dests_ok, call, saved
        self.headless = headless


class NoGradient:
    """The vjp of a recorded call none of whose inputs takes a gradient (comparisons, indices,
    `BlockGrad`): it stays in the graph so that backward from its outputs works, giving None
    for each of its `n` inputs.

    Example::

        from gluonlite.autograd_tape import NoGradient
        NoGradient(2)([None], [True, True])     # (None, None)
    """

    __slots__ = ("n",)

    def __init__(self, n):
        self.n = n

    def __call__(self, gys, need, dests=None):
        return (None,) * self.n


# Writing a gradient into a sparse gradient buffer ('row_sparse', 'csr') is the arrays'
# business: `gluonlite.ndarray.sparse_grad` installs its writer here when it loads.
_sparse_store = None


def install_sparse_store(store):
    """Install ``store(buf, g, grad_req)``, which `backward` calls for a marked variable whose
    gradient buffer is sparse (g: a raw dense array, a RowSparseRows, or None).

    Example::

        from gluonlite import autograd_tape
        from gluonlite.ndarray import sparse_grad
        autograd_tape.install_sparse_store(sparse_grad.store_gradient)  # what loading nd does
    """
    global _sparse_store
    _sparse_store = store


def record_node(inputs, vjp, outputs, label, dests_ok=False, call=None, saved=None,
                headless=False):
    """Attach a recorded node producing arrays `outputs` (used by invoke, the imperative
    loops, CachedOp and `autograd.Function`). `inputs` are arrays (or None) whose entries are
    read here; `dests_ok`: `vjp` also takes ``dests``; `call`, `saved`, `headless`: see
    `TapeNode`. Nothing is recorded when no input is part of a recorded graph. An array made
    by a node that a backward without retain_graph has freed counts as a constant, as in
    MXNet (which clears such arrays' graph information).

    Args:
        label (str): the node's name (the operator's), for messages and graphs.

    Example::

        from gluonlite.autograd_tape import record_node
        x = nd.array([2.0]); x.attach_grad()
        y = nd.array([6.0])                             # computed outside recording: 3 * x
        with autograd.record():
            record_node([x], lambda gys, need: [3 * gys[0]], [y], "times3")
        y.backward()
        x.grad.asnumpy()                                # array([3.], dtype=float32)
    """
    entries = []
    for x in inputs:
        e = None if x is None else x._entry
        if e is not None and e[0].__class__ is TapeNode and e[0].vjp is None:
            e = None  # made by a node a backward without retain_graph freed: a constant now
        entries.append(e)
    if not any(e is not None for e in entries):
        return
    node = TapeNode(entries, vjp, len(outputs), label, dests_ok, call, saved, headless)
    for i, o in enumerate(outputs):
        o._entry = (node, i)


def toposort(heads):
    """(nodes reachable from `heads`, inputs before the nodes reading them; {id(leaf): how
    many node inputs read it}).

    Example::

        from gluonlite.autograd_tape import toposort
        x = nd.array([1.0]); x.attach_grad()
        with autograd.record():
            y = (x + 1) * x
        order, leaf_uses = toposort([y._entry[0]])
        [type(n).__name__ for n in order]       # ['Leaf', 'TapeNode', 'TapeNode']
        list(leaf_uses.values())                # [2]: x is read twice
    """
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


def raw_head_grad(h, hg):
    """The raw gradient head `h` starts with: ones, or `hg` (an array, a list or a raw
    array; an oversized one is cut, see `_head_grad_prefix`).

    Example::

        from gluonlite.autograd_tape import raw_head_grad
        y = nd.zeros((2,))
        raw_head_grad(y, None)                  # array([1., 1.], dtype=float32)
        raw_head_grad(y, [3.0, 4.0])            # array([3., 4.], dtype=float32)
    """
    if hg is None:
        return h._ctx.xp.ones_like(h._data)
    g = hg._data if hasattr(hg, "_data") else h._ctx.xp.asarray(hg, dtype=h.dtype)
    if g.shape != h.shape:
        g = _head_grad_prefix(g, h.shape)
    return g


def run_backward(heads, head_grads, retain_graph, write=False, step=None, head_grad=None):
    """Propagate gradients from `heads`; returns {id(leaf): (leaf, total grad or None)}.
    numpy's floating-point errors are ignored while the rules run, as MXNet's kernels never
    report them (`gluonlite.ops.float_errors`).

    Args:
        heads (list of NDArray): the arrays to differentiate.
        head_grads (list of NDArray): their gradients, aligned with `heads` (None: ones).
        retain_graph: keep each node's vjp, so that the walk can run again.
        write: hand the nodes that can the grad buffers of the leaves that will receive their
            gradient (`_write_targets`); such a leaf's total is then that buffer itself.
        step: ``step(node, gys, need)`` in place of ``node.vjp(gys, need)`` (the recorded
            rules of ``grad(create_graph=True)``); gradients are then whatever it returns.
        head_grad: ``head_grad(h, hg)`` in place of `raw_head_grad`.

    Raises:
        ValueError (MXNetError): a head was not recorded, or the graph was freed.

    Example::

        from gluonlite.autograd_tape import run_backward
        x = nd.array([1.0, 2.0]); x.attach_grad()
        with autograd.record():
            y = x * x
        totals = run_backward([y], None, retain_graph=False)
        [g for leaf, g in totals.values()]      # [array([2., 4.], dtype=float32)]
    """
    token = float_errors.quiet()
    try:
        return _run_backward(heads, head_grads, retain_graph, write, step, head_grad)
    finally:
        float_errors.restore(token)


def _run_backward(heads, head_grads, retain_graph, write, step, head_grad):
    entries = [_entry_of(h, "backward") for h in heads]
    if head_grads is None:
        head_grads = [None] * len(heads)
    if len(head_grads) != len(heads):
        raise ValueError(f"backward: got {len(heads)} heads but {len(head_grads)} head_grads")
    head_grad = head_grad or raw_head_grad
    grads = {}

    def add(entry, g):
        node, i = entry
        if g.__class__ is RowSparseRows and node.__class__ is not Leaf:
            g = g.dense(h_xp)  # operators' gradient rules read dense arrays
        slot = grads.setdefault(id(node), [None] * node.nout)
        slot[i] = g if slot[i] is None else slot[i] + g

    h_xp = heads[0]._ctx.xp if heads else None
    for h, e, hg in zip(heads, entries, head_grads):
        add(e, head_grad(h, hg))
    leaves = {}
    order, leaf_uses = toposort([e[0] for e in entries])
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
            if not node.headless or step is not None:
                continue
            gys = [None] * node.nout  # an output layer's vjp does not read them
        need = [e is not None for e in node.inputs]
        if step is not None:
            gxs = step(node, gys, need)
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


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):
    """Differentiate the recorded graph from the list `heads` and write each marked
    variable's gradient into its buffer by its grad_req ('write', 'add'; 'null' untouched).
    `gluonlite.autograd.backward` is the user's entry (it also takes one array).

    Args:
        head_grads (list of NDArray): the gradients of the heads, aligned with them
            (default None: ones).
        retain_graph (bool): keep the graph so that a later backward can walk it again
            (default False: it is freed).
        train_mode (bool): run the vjps in training mode (default True).

    Raises:
        ValueError: a head was not recorded, or the graph was already freed.

    Example::

        from gluonlite import autograd_tape
        x = nd.array([1.0, 2.0]); x.attach_grad()
        with autograd.record():
            y = x * x
        autograd_tape.backward([y])
        x.grad.asnumpy()        # array([2., 4.], dtype=float32)
    """
    with Mode(False, train_mode):
        leaves = run_backward(list(heads), head_grads, retain_graph, write=True)
    for leaf, g in leaves.values():
        if leaf.grad_req == "null":
            if not retain_graph:  # MXNet frees a 'null' variable's entry with the graph:
                leaf.grad = None  # its .grad then reads None
            continue
        if leaf.grad is None:
            continue
        leaf.fresh = True
        if leaf.grad.stype != "default":
            _sparse_store(leaf.grad, g, leaf.grad_req)  # a sparse buffer keeps its storage
        elif g.__class__ is RowSparseRows:  # only the rows a sparse gradient holds
            if leaf.grad_req == "write":
                leaf.grad._data[...] = 0
            g.add_to(leaf.grad._data)
        elif g is None:
            if leaf.grad_req == "write":
                leaf.grad._data[...] = 0
        elif leaf.grad_req == "add":
            leaf.grad._data += g
        elif g is not leaf.grad._data:  # not already written in place
            leaf.grad._data[...] = g
