"""Checkpoints of symbolic RNNs (`mx.rnn.save_rnn_checkpoint` ...): parameters are saved with
each cell's weights unpacked per gate (`BaseRNNCell.unpack_weights`) and packed again on
load, so fused and unfused cells read each other's files; and the deprecated `rnn_unroll`.
"""
import warnings

from ..model import load_checkpoint, save_checkpoint
from .rnn_cell import BaseRNNCell

__all__ = ["rnn_unroll", "save_rnn_checkpoint", "load_rnn_checkpoint", "do_rnn_checkpoint"]


def rnn_unroll(cell, length, inputs=None, begin_state=None, input_prefix="", layout="NTC"):
    """Deprecated: ``cell.unroll(length, inputs, begin_state, layout=layout)``.

    Args:
        cell (BaseRNNCell): the cell to unroll.
        length (int): the number of time steps.
        inputs (Symbol or list of Symbol): the sequence, as `BaseRNNCell.unroll`'s
            (default None).
        begin_state (list of Symbol): the first states (default None: `begin_state()`).
        input_prefix (str): MXNet's prefix for the inputs' names; accepted, unused.
        layout (str): 'NTC' (default) or 'TNC': where the time axis is.

    Example::

        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            outs, states = mx.rnn.rnn_unroll(mx.rnn.GRUCell(4), 3, sym.var("x"))
        len(outs)   # 3 step outputs
    """
    warnings.warn("rnn_unroll is deprecated. Please call cell.unroll directly.",
                  DeprecationWarning, stacklevel=2)
    return cell.unroll(length=length, inputs=inputs, begin_state=begin_state, layout=layout)


def _cells(cells):
    return [cells] if isinstance(cells, BaseRNNCell) else list(cells)


def save_rnn_checkpoint(cells, prefix, epoch, symbol, arg_params, aux_params):
    """`model.save_checkpoint` with each cell's weights unpacked first.

    Args:
        cells: an mx.rnn cell or a list of them.
        prefix (str): the checkpoint's path prefix.
        epoch (int): the epoch number in the file name (``prefix-EPOCH.params``).
        symbol (Symbol): the network, saved as ``prefix-symbol.json``.
        arg_params (dict of str to NDArray): the parameters.
        aux_params (dict of str to NDArray): the auxiliary states.

    Example::

        cell = mx.rnn.RNNCell(2, prefix="r_")
        net, _ = cell.unroll(3, sym.var("data"), merge_outputs=True)
        args = {"r_i2h_weight": nd.ones((2, 3)), "r_i2h_bias": nd.zeros(2),
                "r_h2h_weight": nd.ones((2, 2)), "r_h2h_bias": nd.zeros(2)}
        mx.rnn.save_rnn_checkpoint(cell, "lm", 3, net, args, {})   # lm-0003.params ...
    """
    for cell in _cells(cells):
        arg_params = cell.unpack_weights(arg_params)
    save_checkpoint(prefix, epoch, symbol, arg_params, aux_params)


def load_rnn_checkpoint(cells, prefix, epoch):
    """`model.load_checkpoint` with each cell's weights packed after.

    Args:
        cells (BaseRNNCell or list): the cell(s) whose weights are unpacked before saving
            (packed after loading).
        prefix (str): the checkpoint's path prefix.
        epoch (int): the epoch number in the file name (``prefix-EPOCH.params``).

    Returns:
        ``(symbol, arg_params, aux_params)``, the cells' weights stacked again.

    Example::

        cell = mx.rnn.LSTMCell(2, prefix="l_")
        net, _ = cell.unroll(3, sym.var("data"), merge_outputs=True)
        args = {"l_i2h_weight": nd.ones((8, 3)), "l_i2h_bias": nd.zeros(8),
                "l_h2h_weight": nd.ones((8, 2)), "l_h2h_bias": nd.zeros(8)}
        mx.rnn.save_rnn_checkpoint(cell, "lm", 3, net, args, {})   # stored per gate
        net, args, auxs = mx.rnn.load_rnn_checkpoint(cell, "lm", 3)   # args: stacked again
    """
    sym, arg, aux = load_checkpoint(prefix, epoch)
    for cell in _cells(cells):
        arg = cell.pack_weights(arg)
    return sym, arg, aux


def do_rnn_checkpoint(cells, prefix, period=1):
    """An epoch-end callback calling `save_rnn_checkpoint` every `period` epochs (numbered
    from 1).

    Args:
        cells (BaseRNNCell or list): the cell(s) whose weights are unpacked before each
            save.
        prefix (str): the checkpoints' path prefix.

    Returns:
        callable: ``f(epoch, symbol, arg_params, aux_params)``, for `Module.fit`'s
        `epoch_end_callback`.

    Example::

        cell = mx.rnn.RNNCell(2, prefix="r_")
        net, _ = cell.unroll(3, sym.var("data"), merge_outputs=True)
        args = {"r_i2h_weight": nd.ones((2, 3)), "r_i2h_bias": nd.zeros(2),
                "r_h2h_weight": nd.ones((2, 2)), "r_h2h_bias": nd.zeros(2)}
        callback = mx.rnn.do_rnn_checkpoint(cell, "lm", period=2)
        callback(1, net, args, {})   # the end of epoch 2: writes lm-0002.params

    """
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            save_rnn_checkpoint(cells, prefix, iter_no + 1, sym, arg, aux)
    return _callback
