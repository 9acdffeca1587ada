"""The signature of MXNet's fused recurrent operator `RNN` (`gluonlite.ops.rnn`): its
attributes and their checks, its inputs and outputs, the layout of its packed parameter
vector, and its shape and dtype rules; shared by the reference kernel (`gluonlite.ops.rnn`)
and the hand-fused one (`gluonlite.ops.rnn_fused`).
"""
import numpy as np

from ..context import host_array
from . import attrs as A
from .registry import ShapeError

__all__ = ["MODES", "num_gates", "ParamLayout", "layout", "check_attrs", "input_names",
           "n_visible", "output_names", "n_states", "check_unpacked", "ATTRS", "rnn_shape",
           "rnn_dtype", "unpacked_shape", "unpacked_dtype", "step_mask"]

MODES = ("rnn_relu", "rnn_tanh", "lstm", "gru")
_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def num_gates(mode):
    """Gates per step of `mode` (its weights have num_gates * state_size rows).

    Example::

        from gluonlite.ops.rnn_layout import num_gates
        num_gates("lstm"), num_gates("gru")     # (4, 3)
    """
    return _GATES[mode]


ATTRS = {
    "state_size": A.Int(), "num_layers": A.Int(), "bidirectional": A.Bool(False),
    "mode": A.Enum(*MODES), "p": A.Float(0.0), "state_outputs": A.Bool(False),
    "projection_size": A.OptionalInt(), "lstm_state_clip_min": A.OptionalFloat(),
    "lstm_state_clip_max": A.OptionalFloat(), "lstm_state_clip_nan": A.Bool(False),
    "use_sequence_length": A.Bool(False),
}


def check_attrs(p):
    """Raise ValueError for attribute values that do not go together.

    Args:
        p: the RNN operator's parsed attributes.

    Raises:
        ValueError: state_size or num_layers below 1, a dropout rate p outside [0, 1), or a
            projection_size that does not fit the mode and state_size.

    Example::

        from gluonlite.ops import rnn_layout
        p = mx.ops.get("RNN").parse({"state_size": 4, "num_layers": 1, "mode": "lstm"})[0]
        rnn_layout.check_attrs(p)       # fine; p=1.5 or state_size=0 raise ValueError
    """
    for name in ("state_size", "num_layers"):
        if p[name] < 1:
            raise ValueError(f"RNN: attribute {name} must be >= 1, got {p[name]}")
    if not 0 <= p.p < 1:
        raise ValueError(f"RNN: attribute p (the dropout rate) must be in [0, 1), got {p.p}")
    if p.projection_size is not None:
        if p.mode != "lstm":
            raise ValueError(f"RNN: attribute projection_size={p.projection_size} needs "
                             f"mode='lstm', got mode={p.mode!r}")
        if not 1 <= p.projection_size <= p.state_size:
            raise ValueError(f"RNN: attribute projection_size must be in [1, state_size="
                             f"{p.state_size}], got {p.projection_size}")
    lo, hi = p.lstm_state_clip_min, p.lstm_state_clip_max
    if lo is not None or hi is not None:
        if p.mode != "lstm":
            raise ValueError(f"RNN: attributes lstm_state_clip_min/max need mode='lstm', "
                             f"got mode={p.mode!r}")
        if lo is None or hi is None:
            raise ValueError(f"RNN: attributes lstm_state_clip_min and lstm_state_clip_max "
                             f"must be given together, got {lo} and {hi}")
        if hi < lo:
            raise ValueError(f"RNN: attribute lstm_state_clip_max ({hi}) must be >= "
                             f"lstm_state_clip_min ({lo})")


def input_names(p):
    """RNN's input names for attributes `p` (checked first: `check_attrs`).

    Example::

        from gluonlite.ops import rnn_layout
        p = mx.ops.get("RNN").parse({"state_size": 4, "num_layers": 1, "mode": "lstm"})[0]
        rnn_layout.input_names(p)       # ['data', 'parameters', 'state', 'state_cell']
    """
    check_attrs(p)
    names = ["data", "parameters", "state"]
    if p.mode == "lstm":
        names.append("state_cell")
    if p.use_sequence_length:
        names.append("sequence_length")
    return names


def n_visible(p):
    """How many outputs a user sees: the output, and with ``state_outputs`` the final
    state(s) (two for an LSTM).

    Args:
        p: the RNN operator's parsed attributes.

    Returns:
        int: 1, 2 or 3.

    Example::

        from gluonlite.ops import rnn_layout
        p = mx.ops.get("RNN").parse({"state_size": 4, "num_layers": 1, "mode": "lstm"})[0]
        rnn_layout.n_visible(p)         # 1; 3 with state_outputs=True (output, h, c)
    """
    if not p.state_outputs:
        return 1
    return 3 if p.mode == "lstm" else 2


def output_names(p):
    """The visible outputs' names as MXNet lists them (``output``, ``state_output``, ...).

    Args:
        p: the RNN operator's parsed attributes.

    Returns:
        list of str: one name per visible output (`n_visible`).

    Example::

        from gluonlite.ops import rnn_layout
        p = mx.ops.get("RNN").parse({"state_size": 4, "num_layers": 1, "mode": "lstm",
                                     "state_outputs": True})[0]
        rnn_layout.output_names(p)      # ['output', 'state_output', 'statecell_output']
    """
    return ["output", "state_output", "statecell_output"][:n_visible(p)]


class ParamLayout:
    """Where each weight and bias of each layer and direction sits in the packed vector.

    Args:
        p: the parsed RNN attributes.
        input_size: the data's feature size I.

    Attributes:
        entries: per layer and direction (layer-major), {name: (offset, shape)} with names
            'wx' (i2h weight), 'wh' (h2h weight), 'wr' (h2r weight, with a projection),
            'bx' (i2h bias), 'bh' (h2h bias).
        size: the packed vector's length.

    Example::

        from gluonlite.ops import rnn_layout
        p = mx.ops.get("RNN").parse({"state_size": 4, "num_layers": 1, "mode": "lstm"})[0]
        lay = rnn_layout.ParamLayout(p, 6)
        lay.size                # 192: the length `parameters` must have
        lay.entries[0]["wx"]    # (0, (16, 6)): offset and shape of the i2h weight
    """

    def __init__(self, p, input_size):
        G, H, P = _GATES[p.mode] * p.state_size, p.state_size, p.projection_size
        R, D = P or H, 2 if p.bidirectional else 1
        self.entries, self.terms = [], []
        off = 0
        for layer in range(p.num_layers):
            ni = input_size if layer == 0 else D * R
            shapes = [("wx", (G, ni)), ("wh", (G, R))] + ([("wr", (P, H))] if P else [])
            self.terms.append(f"({G}*{ni} + {G}*{R}" + (f" + {P}*{H}" if P else "") + f")*{D}")
            for _ in range(D):
                e = {}
                for name, shape in shapes:
                    e[name] = (off, shape)
                    off += shape[0] * shape[1]
                self.entries.append(e)
        for e in self.entries:
            for name in ("bx", "bh"):
                e[name] = (off, (G,))
                off += G
        self.bias_term = f"2*{G}*{len(self.entries)}"
        self.size = off
        # (direction index, name, shape) of every entry in the packed order
        self.order = sorted(((k, n, s) for k, e in enumerate(self.entries)
                             for n, (_, s) in e.items()),
                            key=lambda kns: self.entries[kns[0]][kns[1]][0])
        self.sizes = tuple(_numel(s) for _, _, s in self.order)

    def arithmetic(self):
        """The length as a sum, for messages: weights per layer, then biases.

        Example::

            from gluonlite.ops import rnn_layout
            p = mx.ops.get("RNN").parse({"state_size": 4, "num_layers": 1, "mode": "lstm"})[0]
            rnn_layout.layout(p, 6).arithmetic()
            # 'weights (16*6 + 16*4)*1 + biases 2*16*1 = 192'
        """
        return f"weights {' + '.join(self.terms)} + biases {self.bias_term} = {self.size}"

    def views(self, flat):
        """Per layer and direction, {name: view of `flat` with that entry's shape}.

        Example::

            from gluonlite.ops import rnn_layout
            p = mx.ops.get("RNN").parse({"state_size": 4, "num_layers": 1, "mode": "lstm"})[0]
            lay = rnn_layout.layout(p, 6)
            views = lay.views(np.zeros(lay.size))
            views[0]["wh"].shape, views[0]["bx"].shape     # ((16, 4), (16,))
        """
        return [{k: flat[o:o + _numel(s)].reshape(s) for k, (o, s) in e.items()}
                for e in self.entries]

    def part_views(self, parts):
        """Per layer and direction, {name: array}, from `parts` holding the entries one by
        one in the packed order (each of the entry's size, any shape), or None when they do
        not (then only their concatenation can be read this way).

        Example::

            from gluonlite.ops import rnn_layout
            p = mx.ops.get("RNN").parse({"state_size": 4, "num_layers": 1, "mode": "lstm"})[0]
            lay = rnn_layout.layout(p, 6)
            parts = [np.zeros(n) for n in lay.sizes]       # one array per entry, in packed order
            lay.part_views(parts)[0]["wx"].shape           # (16, 6)
        """
        if len(parts) != len(self.order):
            return None
        out = [{} for _ in self.entries]
        for a, (k, name, shape), n in zip(parts, self.order, self.sizes):
            if a.size != n:
                return None
            out[k][name] = a if a.shape == shape else a.reshape(shape)
        return out


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


_LAYOUTS = {}


def layout(p, input_size):
    """The `ParamLayout` of `p` for `input_size`, made once per distinct key.

    Example::

        from gluonlite.ops import rnn_layout
        p = mx.ops.get("RNN").parse({"state_size": 4, "num_layers": 1, "mode": "lstm"})[0]
        rnn_layout.layout(p, 6) is rnn_layout.layout(p, 6)     # True: made once per key
    """
    key = (p.mode, p.state_size, p.num_layers, p.bidirectional, p.projection_size, input_size)
    lay = _LAYOUTS.get(key)
    if lay is None:
        if len(_LAYOUTS) > 256:
            _LAYOUTS.clear()
        lay = _LAYOUTS[key] = ParamLayout(p, input_size)
    return lay


def _describe(p, input_size):
    return (f"mode={p.mode!r}, state_size={p.state_size}, num_layers={p.num_layers}, "
            f"bidirectional={p.bidirectional}"
            + (f", projection_size={p.projection_size}" if p.projection_size else "")
            + f" and input size {input_size}")


def _fit(op, name, want, got, how):
    if got is not None and tuple(got) != tuple(want):
        raise ShapeError(f"{op}: input {name!r} must have shape {tuple(want)} ({how}), got "
                         f"{tuple(got)}")
    return tuple(want)


def rnn_shape(p, ins, op="RNN"):
    """RNN's shape rule: the parameters', states' and sequence lengths' shapes from the
    data's (the messages give the packed vector's length as a sum), and the outputs'.

    Args:
        p: the RNN operator's parsed attributes.
        ins: the input shapes (data (T, N, I), parameters, states, sequence lengths), None
            for an unknown one.
        op: the operator's name, starting the error messages (default 'RNN'; the int8
            LSTM's rule is this one too).

    Returns:
        (list, list): the input shapes, filled in, and the visible outputs' shapes (all
        None while the data's shape is unknown).

    Raises:
        ShapeError: an input whose shape does not fit (named, with what it must be).

    Example::

        from gluonlite.ops import rnn_layout
        p = mx.ops.get("RNN").parse({"state_size": 4, "num_layers": 1, "mode": "lstm"})[0]
        ins = [(5, 2, 6), None, None, None]     # data (T, N, I); the rest inferred
        rnn_layout.rnn_shape(p, ins)
        # ([(5, 2, 6), (192,), (1, 2, 4), (1, 2, 4)], [(5, 2, 4)])
    """
    names = input_names(p)  # checks the attributes
    ins = list(ins) + [None] * (len(names) - len(ins))
    n_out = n_visible(p)
    d = ins[0]
    if d is None:
        return ins, [None] * n_out
    if len(d) != 3:
        raise ShapeError(f"{op}: input 'data' must be 3-D (sequence length, batch size, "
                         f"input size), got shape {tuple(d)}")
    T, N, ni = d
    H, L, D = p.state_size, p.num_layers, 2 if p.bidirectional else 1
    R = p.projection_size or H
    lay = layout(p, ni)
    ins[1] = _fit(op, "parameters", (lay.size,), ins[1],
                  f"{lay.arithmetic()} for {_describe(p, ni)}")
    ins[2] = _fit(op, "state", (L * D, N, R), ins[2],
                  f"num_layers*directions = {L}*{D}, batch size {N}, "
                  + (f"projection_size {R}" if p.projection_size else f"state_size {H}"))
    if p.mode == "lstm":
        ins[3] = _fit(op, "state_cell", (L * D, N, H), ins[3],
                      f"num_layers*directions = {L}*{D}, batch size {N}, state_size {H}")
    if p.use_sequence_length:
        ins[-1] = _fit(op, "sequence_length", (N,), ins[-1], f"one length per sequence of the "
                       f"batch of {N}")
    outs = [(T, N, D * R), (L * D, N, R), (L * D, N, H)][:n_out]
    return ins, outs


def rnn_dtype(p, ins):
    """RNN's dtype rule: every input but the sequence lengths, and every output, share one
    dtype.

    Args:
        p: the RNN operator's parsed attributes.
        ins: the input dtypes, None for an unknown one.

    Returns:
        (list, list): the input dtypes, filled in from the first known one (the sequence
        lengths' kept as given), and the visible outputs' dtypes.

    Example::

        from gluonlite.ops import rnn_layout
        p = mx.ops.get("RNN").parse({"state_size": 4, "num_layers": 1, "mode": "lstm"})[0]
        rnn_layout.rnn_dtype(p, [np.dtype("float32"), None, None, None])[1]
        # [dtype('float32')]
    """
    names = input_names(p)
    ins = list(ins) + [None] * (len(names) - len(ins))
    d = next((t for t, n in zip(ins, names) if t is not None and n != "sequence_length"), None)
    if d is None:
        return ins, [None] * n_visible(p)
    return [t if t is not None else d for t in ins], [d] * n_visible(p)


def n_states(p):
    """How many state inputs `p`'s mode takes (2 for an LSTM: state and cell).

    Example::

        from gluonlite.ops import rnn_layout
        p = mx.ops.get("RNN").parse({"state_size": 4, "num_layers": 1, "mode": "lstm"})[0]
        rnn_layout.n_states(p)          # 2: an LSTM's state and cell
    """
    return 2 if p.mode == "lstm" else 1


def check_unpacked(p):
    """Raise ValueError for attributes `_rnn_unpacked` does not take; returns the number of
    state inputs (after the parameter parts).

    Args:
        p: the ``_rnn_unpacked`` operator's parsed attributes.

    Returns:
        int: 2 for an LSTM, else 1.

    Raises:
        ValueError: what `check_attrs` refuses, or use_sequence_length=True.

    Example::

        from gluonlite.ops import rnn_layout
        p = mx.ops.get("_rnn_unpacked").parse({"state_size": 4, "num_layers": 1, "mode": "gru",
                                               "num_args": 4})[0]
        rnn_layout.check_unpacked(p)    # 1: a GRU has one state input
    """
    check_attrs(p)
    if p.use_sequence_length:
        raise ValueError("_rnn_unpacked: attribute use_sequence_length must be False (use RNN "
                         "for sequences of several lengths)")
    ns = n_states(p)
    if p.num_args < ns + 2:
        raise ValueError(f"_rnn_unpacked: attribute num_args must count data, at least one "
                         f"parameter part and the state(s): >= {ns + 2} for mode={p.mode!r}, "
                         f"got {p.num_args}")
    return ns


def unpacked_shape(p, ins):
    """`_rnn_unpacked`'s shape rule: RNN's on the parts' total length (the parts keep
    their shapes).

    Args:
        p: the ``_rnn_unpacked`` operator's parsed attributes.
        ins: the input shapes (data, the parameter parts, the states), None for an unknown
            one.

    Returns:
        (list, list): the input shapes, filled in, and the visible outputs' shapes.

    Raises:
        ValueError: attributes `check_unpacked` refuses.
        ShapeError: shapes that do not fit.

    Example::

        from gluonlite.ops import rnn_layout
        p = mx.ops.get("_rnn_unpacked").parse({"state_size": 4, "num_layers": 1, "mode": "gru",
                                               "num_args": 4})[0]
        ins = [(5, 2, 6), (96,), (48,), None]      # data, two parameter parts, state
        rnn_layout.unpacked_shape(p, ins)
        # ([(5, 2, 6), (96,), (48,), (1, 2, 4)], [(5, 2, 4)])
    """
    ns = check_unpacked(p)
    parts, states = ins[1:len(ins) - ns], ins[len(ins) - ns:]
    packed = None if any(s is None for s in parts) else (sum(_numel(s) for s in parts),)
    filled, outs = rnn_shape(p, [ins[0], packed] + list(states))
    return [filled[0]] + list(parts) + filled[2:2 + ns], outs


def unpacked_dtype(p, ins):
    """`_rnn_unpacked`'s dtype rule: one dtype for every input and output.

    Args:
        p: the ``_rnn_unpacked`` operator's parsed attributes.
        ins: the input dtypes, None for an unknown one.

    Returns:
        (list, list): the input dtypes, unknown ones set to the first known, and the visible
        outputs' dtypes.

    Example::

        from gluonlite.ops import rnn_layout
        p = mx.ops.get("_rnn_unpacked").parse({"state_size": 4, "num_layers": 1, "mode": "gru",
                                               "num_args": 4})[0]
        rnn_layout.unpacked_dtype(p, [None, np.dtype("float16"), None, None])
        # ([dtype('float16')] * 4, [dtype('float16')])
    """
    d = next((t for t in ins if t is not None), None)
    return [d if t is None else t for t in ins], [d] * n_visible(p)


def step_mask(lengths, T, N):
    """Per step and sequence, whether the step lies inside the sequence (a (T, N) numpy bool
    array) from `sequence_length` (read on the host: the lengths steer which steps need
    masking).

    Args:
        lengths: the sequence lengths, an array of N numbers (host or device).
        T: the number of steps.
        N: the number of sequences.

    Returns:
        numpy.ndarray: bool (T, N), True where step t < lengths[n].

    Raises:
        ValueError: a length outside [1, T].

    Example::

        from gluonlite.ops.rnn_layout import step_mask
        step_mask(np.array([2, 3]), 3, 2)[2]    # array([False,  True]): step 2 is past length 2
    """
    n = np.asarray(host_array(lengths)).astype(np.int64).reshape(N)
    if ((n < 1) | (n > T)).any():
        raise ValueError(f"RNN: input 'sequence_length' must hold lengths in [1, {T}] (the "
                         f"sequence length), got {n.tolist()}")
    return np.arange(T)[:, None] < n[None, :]
