"""The benchmark's RNN layers, written as a user writes them in MXNet 1.x Gluon.

`ForeachRNN` scans a cell over axis 0 with `F.contrib.foreach`; `WhileRNN` runs the
same cell with `F.contrib.while_loop`, the loop vars being `[i, *states]` and the
step input `take(inputs, i)`; `UnrolledRNN` uses `cell.unroll` (one graph node per
step). All three take `(inputs (T, N, C), states)` and return the stacked outputs
(T, N, H). This module imports gluonlite; import it only where cases run.

Example:
    >>> cell = gluon.rnn.LSTMCell(8)                              # doctest: +SKIP
    >>> layer = ForeachRNN(cell, 5); layer.initialize()             # doctest: +SKIP
    >>> x = nd.random.normal(shape=(5, 2, 8))                       # doctest: +SKIP
    >>> layer(x, zero_states(layer, 2, 8)).shape                    # doctest: +SKIP
    (5, 2, 8)
"""
import gluonlite as mx
from gluonlite import gluon, nd

__all__ = ["CELLS", "LOOPS", "ForeachRNN", "WhileRNN", "UnrolledRNN", "SequenceModel",
           "make_ctx", "make_cell", "zero_states", "build_benchmark_case"]

CELLS = {"RNNCell": gluon.rnn.RNNCell, "GRUCell": gluon.rnn.GRUCell,
         "LSTMCell": gluon.rnn.LSTMCell}


class _CellLoop(gluon.HybridBlock):
    """A layer that runs `cell` over a sequence of `length` steps."""

    def __init__(self, cell, length, **kwargs):
        super().__init__(**kwargs)
        self.length = length
        self.cell = cell


class ForeachRNN(_CellLoop):
    """Run `cell` over the sequence with `contrib.foreach`.

    Args:
        cell: a gluon.rnn cell.
        length: sequence length T (kept for symmetry with WhileRNN).

    Inputs:
        - **inputs**: (T, N, C) the sequence, time first.
        - **states**: the list of the cell's begin states, each (N, H) (`zero_states`).

    Outputs:
        - **out**: (T, N, H) the stacked step outputs.

    Example::

        from gluonlite.bench.models import ForeachRNN, zero_states
        layer = ForeachRNN(gluon.rnn.GRUCell(4), 3)
        layer.initialize()
        print(layer(nd.ones((3, 2, 4)), zero_states(layer, 2, 4)).shape)   # (3, 2, 4)
    """

    def hybrid_forward(self, F, inputs, states):
        outputs, _ = F.contrib.foreach(self.cell, inputs, states)
        return outputs


class WhileRNN(_CellLoop):
    """Run `cell` over the sequence with `contrib.while_loop`.

    The first state is the step counter, a (1,) array holding 0 (see `zero_states`);
    the rest are the cell's states.

    Args:
        cell: a gluon.rnn cell.
        length: sequence length T, also `max_iterations`.

    Inputs:
        - **inputs**: (T, N, C) the sequence, time first.
        - **states**: ``[counter, *cell_states]``: the (1,) step counter holding 0, then the
          cell's begin states, each (N, H) (`zero_states`).

    Outputs:
        - **out**: (T, N, H) the stacked step outputs.

    Example::

        from gluonlite.bench.models import WhileRNN, zero_states
        layer = WhileRNN(gluon.rnn.RNNCell(4), 3)
        layer.initialize()
        states = zero_states(layer, 2, 4)   # [counter (1,), h (2, 4)]
        print(layer(nd.ones((3, 2, 4)), states).shape)   # (3, 2, 4)
    """

    def hybrid_forward(self, F, inputs, states):
        def step(i, *cell_states):
            x = F.squeeze(F.take(inputs, i), axis=0)
            out, new_states = self.cell(x, list(cell_states))
            return out, [i + 1] + list(new_states)

        outputs, _ = F.contrib.while_loop(
            cond=lambda i, *_: i < self.length,
            func=step,
            loop_vars=states,
            max_iterations=self.length,
        )
        return outputs   # one array: step returns one output (MXNet 1.9.1's structure)


class UnrolledRNN(_CellLoop):
    """Run `cell` over the sequence with `cell.unroll` (no loop operator).

    Args:
        cell: a gluon.rnn cell.
        length: sequence length T.

    Inputs:
        - **inputs**: (T, N, C) the sequence, time first.
        - **states**: the list of the cell's begin states, each (N, H) (`zero_states`).

    Outputs:
        - **out**: (T, N, H) the merged step outputs.

    Example::

        from gluonlite.bench.models import UnrolledRNN, zero_states
        layer = UnrolledRNN(gluon.rnn.LSTMCell(4), 3)
        layer.initialize()
        print(layer(nd.ones((3, 2, 4)), zero_states(layer, 2, 4)).shape)   # (3, 2, 4)
    """

    def hybrid_forward(self, F, inputs, states):
        outputs, _ = self.cell.unroll(self.length, inputs, begin_state=list(states),
                                      layout="TNC", merge_outputs=True)
        return outputs


LOOPS = {"foreach": ForeachRNN, "while_loop": WhileRNN, "unrolled": UnrolledRNN}


def make_ctx(name):
    """'cpu(0)' / 'gpu(1)' / 'cpu' -> a gluonlite Context.

    Args:
        name: 'cpu', 'gpu', or with a device id 'cpu(0)', 'gpu(1)'.

    Returns:
        A `Context`: a gpu one for a name starting 'gpu', else a cpu one.

    Raises:
        ValueError: the id in parentheses is not an integer.

    Example::

        from gluonlite.bench.models import make_ctx
        print(make_ctx('cpu(0)'), make_ctx('gpu(1)'))   # cpu(0) gpu(1)
    """
    dev, _, rest = name.partition("(")
    idx = int(rest.rstrip(")") or 0) if rest else 0
    return mx.gpu(idx) if dev == "gpu" else mx.cpu(idx)


def make_cell(cell, hidden_size, input_size=0, hybridize=False):
    """A gluon.rnn cell by class name, hybridized with static_alloc when asked.

    Args:
        cell: the class name: 'RNNCell', 'GRUCell' or 'LSTMCell'.
        hidden_size: the state size H.
        input_size: default 0: C, the input size (0: inferred at the first call).
        hybridize: default False: hybridize(static_alloc=True) the cell.

    Returns:
        The new cell (not initialized).

    Raises:
        KeyError: `cell` is not one of the three names.

    Example::

        from gluonlite.bench.models import make_cell
        cell = make_cell('GRUCell', 8, input_size=4)
        print(type(cell).__name__, cell.i2h_weight.shape)   # GRUCell (24, 4)
    """
    c = CELLS[cell](hidden_size, input_size=input_size)
    if hybridize:
        c.hybridize(static_alloc=True)
    return c


def zero_states(layer, batch_size, hidden_size, ctx=None, func=None):
    """The states a loop layer takes: the cell's states, plus the counter for WhileRNN.

    Args:
        layer: ForeachRNN, WhileRNN or UnrolledRNN.
        batch_size: N, the batch size.
        hidden_size: H, the size of each cell state.
        ctx: context of the arrays.
        func: `func(shape, ctx)` making each cell state; zeros by default.

    Returns:
        list of NDArrays.

    Example::

        from gluonlite.bench.models import ForeachRNN, WhileRNN, zero_states
        print([s.shape for s in zero_states(ForeachRNN(gluon.rnn.LSTMCell(4), 2), 3, 4)])
        # [(3, 4), (3, 4)]: h and c
        print([s.shape for s in zero_states(WhileRNN(gluon.rnn.RNNCell(4), 2), 3, 4)])
        # [(1,), (3, 4)]: the counter first
    """
    make = func or (lambda shape, ctx: nd.zeros(shape, ctx=ctx))
    states = [make((batch_size, hidden_size), ctx) for _ in layer.cell.state_info()]
    if isinstance(layer, WhileRNN):
        states.insert(0, nd.zeros((1,), ctx=ctx))
    return states


def build_benchmark_case(case):
    """The layer and its arguments for one bench case, as the seed builds them.

    Args:
        case: dict with benchmark, cell, ctx, seq_len, batch_size, hidden_dim,
            hybridize_cell, hybridize_layer.

    Returns:
        (layer, inputs, states): call `layer(inputs, states)`.

    Example::

        from gluonlite.bench.models import build_benchmark_case
        case = {'benchmark': 'foreach', 'cell': 'RNNCell', 'ctx': 'cpu(0)', 'seq_len': 2,
                'batch_size': 1, 'hidden_dim': 4, 'hybridize_cell': False, 'hybridize_layer': True}
        layer, inputs, states = build_benchmark_case(case)
        print(layer(inputs, states).shape)   # (2, 1, 4)
    """
    ctx = make_ctx(case["ctx"])
    T, N, H = case["seq_len"], case["batch_size"], case["hidden_dim"]
    cell = make_cell(case["cell"], H, hybridize=case["hybridize_cell"])
    layer = LOOPS[case["benchmark"]](cell, T)
    layer.initialize(ctx=ctx)
    if case["hybridize_layer"]:
        layer.hybridize(static_alloc=True)
    inputs = nd.random.normal(loc=0.0, scale=1.0, shape=(T, N, H), ctx=ctx)
    normal = lambda shape, ctx: nd.random.normal(loc=0.0, scale=1.0, shape=shape, ctx=ctx)  # noqa: E731
    return layer, inputs, zero_states(layer, N, H, ctx, func=normal)


class SequenceModel(gluon.Block):
    """Stacked loop layers with an optional embedding in front and a Dense head.

    Args:
        cell: 'RNNCell', 'GRUCell' or 'LSTMCell'.
        loop: 'foreach', 'while_loop' or 'unrolled'.
        hidden_size: the state size of every layer.
        num_layers: how many loop layers are stacked.
        seq_len: T (fixed: the loop layers are built for it).
        input_size: C of float inputs (T, N, C); ignored when vocab_size is set.
        out_units: width of the head.
        vocab_size: default None: float inputs (T, N, C). Given, integer inputs (T, N)
            (ids below vocab_size) go through an Embedding.
        embed_size: the Embedding's output size (read when `vocab_size` is given).
        last_only: apply the head to the last step only -> (N, out_units);
            otherwise to every step -> (T, N, out_units).
        hybridize_cell: default False: hybridize(static_alloc=True) each cell.
        hybridize_layer: default False: hybridize(static_alloc=True) each loop layer.
        kwargs: passed to `gluon.Block` (prefix, params).

    Example::

        from gluonlite.bench.models import SequenceModel
        net = SequenceModel('GRUCell', 'foreach', 4, 2, seq_len=3, out_units=1, input_size=2,
                            last_only=True)
        net.initialize()
        print(net(nd.ones((3, 5, 2))).shape)   # (5, 1): the head on the last step
    """

    def __init__(self, cell, loop, hidden_size, num_layers, seq_len, out_units, *,
                 input_size=0, vocab_size=None, embed_size=None, last_only=False,
                 hybridize_cell=False, hybridize_layer=False, **kwargs):
        super().__init__(**kwargs)
        self.hidden_size, self.seq_len, self.last_only = hidden_size, seq_len, last_only
        self.hybridize_layer = hybridize_layer
        self.layer_names = [f"rnn{i}" for i in range(num_layers)]
        with self.name_scope():
            self.embed = gluon.nn.Embedding(vocab_size, embed_size) if vocab_size else None
            size = embed_size if vocab_size else input_size
            for name in self.layer_names:
                c = make_cell(cell, hidden_size, input_size=size, hybridize=hybridize_cell)
                setattr(self, name, LOOPS[loop](c, seq_len))
                size = hidden_size
            self.head = gluon.nn.Dense(out_units, flatten=False, in_units=hidden_size)

    def hybridize_layers(self):
        """Hybridize the loop layers if asked at construction (call after initialize).

        Example::

            from gluonlite.bench.models import SequenceModel
            net = SequenceModel('RNNCell', 'foreach', 4, 1, seq_len=2, out_units=1, input_size=2,
                                hybridize_layer=True)
            net.initialize()
            net.hybridize_layers()   # the loop layers (not the model) run as compiled graphs
            print(net(nd.ones((2, 3, 2))).shape)   # (2, 3, 1)
        """
        if self.hybridize_layer:
            for name in self.layer_names:
                getattr(self, name).hybridize(static_alloc=True)

    def forward(self, x):
        """x: (T, N, C) floats or (T, N) token ids -> head outputs.

        Example::

            from gluonlite.bench.models import SequenceModel
            net = SequenceModel('LSTMCell', 'while_loop', 4, 1, seq_len=3, out_units=5,
                                vocab_size=10, embed_size=2)
            net.initialize()
            print(net(nd.array([[1, 2], [3, 4], [5, 6]])).shape)   # (3, 2, 5): token ids in
        """
        batch = x.shape[1]
        h = self.embed(x) if self.embed is not None else x
        for name in self.layer_names:
            layer = getattr(self, name)
            h = layer(h, zero_states(layer, batch, self.hidden_size, x.context))
        if self.last_only:
            h = h[self.seq_len - 1]
        return self.head(h)
