"""Graph passes applied to graphs before they are compiled: to every graph (bind and
hybridize), to the graphs of a hybridized block's inference plans only, and to a plan's
graph on an array module that compiles kernels (a device).

The partitioning layer sits above the compiler, so it registers its passes here instead of
the compiler importing it.
"""
_passes = []
_device_passes = []
_inference_passes = []
_training_passes = []
_bind_passes = []

__all__ = ["register_graph_pass", "apply_graph_passes", "register_device_pass",
           "apply_device_passes", "register_inference_pass", "apply_inference_passes",
           "register_training_pass", "apply_training_passes", "register_bind_pass",
           "apply_bind_passes"]


def _add(passes, fn):
    if fn not in passes:
        passes.append(fn)
    return fn


def _run(passes, symbol, *context):
    for fn in passes:
        symbol = fn(symbol, *context)
    return symbol


def register_graph_pass(fn):
    """Register `fn(symbol) -> symbol`, run on every graph at bind and first hybridized call.

    Example::

        def keep(symbol):   # a pass that leaves every graph as it is
            return symbol
        mx.executor.register_graph_pass(keep)
        exe = sym.tanh(sym.var('x')).simple_bind(mx.cpu(), x=(2, 3))   # keep ran
    """
    return _add(_passes, fn)


def apply_graph_passes(symbol):
    """`symbol` after every registered pass.

    Example::

        y = sym.tanh(sym.var('x'))
        y2 = mx.executor.apply_graph_passes(y)   # y itself, unless a pass rewrites it
    """
    return _run(_passes, symbol)


def register_device_pass(fn):
    """Register `fn(symbol, shapes, dtypes) -> symbol` ({input name: shape}, {input name:
    dtype}), run on a graph when a plan of it is compiled for an array module that compiles
    kernels (CuPy) with device kernels on (`gluonlite.ops.fast.device_kernels`): a rewrite
    that pays on a device only, such as elementwise fusion.

    Example::

        from gluonlite.executor.hooks import register_device_pass
        def keep(symbol, shapes, dtypes):   # leaves every graph as it is
            return symbol
        register_device_pass(keep)   # runs when a plan is compiled for CuPy
    """
    return _add(_device_passes, fn)


def apply_device_passes(symbol, shapes, dtypes):
    """`symbol` after every registered device pass, for inputs of these shapes and dtypes.

    Args:
        symbol: the `Symbol` to transform.
        shapes: {input name: shape}.
        dtypes: {input name: dtype}.

    Returns:
        The transformed `Symbol` (`symbol` itself when no pass is registered).

    Example::

        from gluonlite.executor.hooks import apply_device_passes
        x = sym.var('x'); y = sym.tanh(sym.exp(x)) + x
        fused = apply_device_passes(y, {'x': (2,)}, {'x': 'float32'})
        'fused_elementwise' in fused.tojson()   # True: elementwise fusion ran
    """
    return _run(_device_passes, symbol, shapes, dtypes)


def register_inference_pass(fn):
    """Register `fn(symbol) -> symbol`, run on a hybridized block's graph when it compiles
    an inference plan (not recording, no gradient wanted): a rewrite that is exact for
    inference only, such as folding a BatchNorm into the convolution before it.

    Example::

        from gluonlite.executor.hooks import register_inference_pass
        def keep(symbol):   # leaves every graph as it is
            return symbol
        register_inference_pass(keep)   # runs on inference plans' graphs
    """
    return _add(_inference_passes, fn)


def apply_inference_passes(symbol):
    """`symbol` after every registered inference pass.

    Example::

        from gluonlite.executor.hooks import apply_inference_passes
        x, w = sym.var('x'), sym.var('w')
        y = sym.relu(sym.FullyConnected(x, w, no_bias=True, num_hidden=2))
        '_sg_fuse' in apply_inference_passes(y).tojson()   # True: FUSE ran
    """
    return _run(_inference_passes, symbol)


def register_training_pass(fn):
    """Register `fn(symbol) -> symbol`, run on the graph of a hybridized block's plans that
    compute gradients (a training step), after the graph passes: a rewrite that pays where
    the backward runs too, such as fusing BatchNorm and its relu (`gluonlite.executor.bn_relu`).
    Exports keep the unrewritten graph.

    Example::

        from gluonlite.executor.hooks import register_training_pass
        def keep(symbol):   # leaves every graph as it is
            return symbol
        register_training_pass(keep)   # runs when a plan with gradients is compiled
    """
    return _add(_training_passes, fn)


def apply_training_passes(symbol):
    """`symbol` after every registered training pass.

    Example::

        from gluonlite.executor.hooks import apply_training_passes
        y = sym.relu(sym.var('x'))
        apply_training_passes(y)   # y itself unless a pass rewrites it
    """
    return _run(_training_passes, symbol)


def register_bind_pass(fn):
    """Register `fn(symbol, need_grad) -> symbol`, run on the graph of every executor
    (``bind``/``simple_bind``) after the graph passes, with `need_grad` True when the executor
    computes some gradient: what MXNet's GraphExecutor alone does, such as partitioning with
    the backend ``MXNET_SUBGRAPH_BACKEND`` names.

    Example::

        from gluonlite.executor.hooks import register_bind_pass
        def keep(symbol, need_grad):   # leaves every graph as it is
            return symbol
        register_bind_pass(keep)   # runs at every bind
    """
    return _add(_bind_passes, fn)


def apply_bind_passes(symbol, need_grad):
    """`symbol` after every registered bind pass.

    Args:
        symbol: the executor's graph.
        need_grad: whether the executor computes some gradient.

    Returns:
        The rewritten `Symbol` (`symbol` itself when no pass changes it).

    Example::

        from gluonlite.executor.hooks import apply_bind_passes
        y = sym.tanh(sym.var('x'))
        apply_bind_passes(y, need_grad=False) is y   # True unless MXNET_SUBGRAPH_BACKEND is set
    """
    return _run(_bind_passes, symbol, need_grad)
