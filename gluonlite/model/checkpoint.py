"""Checkpoint files of a Symbol and its parameters: ``prefix-symbol.json`` and
``prefix-EPOCH.params`` with ``arg:``/``aux:`` keys (written by `mx.model.save_checkpoint`,
which is `mx.callback.save_checkpoint`).

Example::

    net = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
    arg_params = {'fc_weight': nd.ones((2, 3)), 'fc_bias': nd.zeros(2)}
    mx.model.save_checkpoint("net", 1, net, arg_params, {})
    net, arg_params, aux_params = mx.model.load_checkpoint("net", 1)
    sorted(arg_params)                     # ['fc_bias', 'fc_weight']
"""
from .. import ndarray as nd, symbol as sym

__all__ = ["load_checkpoint", "load_params"]


def load_params(prefix, epoch):
    """``(arg_params, aux_params)`` read from ``prefix-%04d.params``.

    Args:
        prefix (str): the checkpoint's path prefix.
        epoch (int): the epoch number in the file name.

    Raises:
        ValueError: a key without the ``arg:`` or ``aux:`` prefix.

    Example::

        nd.save('net-0003.params', {'arg:w': nd.ones(2), 'aux:m': nd.zeros(2)})
        args, auxs = mx.model.load_params('net', 3)
        sorted(args), sorted(auxs)   # (['w'], ['m'])
    """
    saved = nd.load("%s-%04d.params" % (prefix, epoch))
    return _split_arg_aux(saved or {}, f"of {prefix}-{epoch:04d}.params")


def _split_arg_aux(saved, source):
    """``(arg_params, aux_params)`` from a dict saved with ``arg:`` / ``aux:`` key prefixes
    (as `save_checkpoint` and ``Module.save_params`` write it).

    Args:
        saved: {prefixed name: NDArray}.
        source: where it was read from, for the error (e.g. ``"in net.params"``).

    Raises:
        ValueError: a key without the ``arg:`` or ``aux:`` prefix.

    Example::

        from gluonlite.model import _split_arg_aux
        w = nd.ones(2)
        _split_arg_aux({'arg:w': w}, 'in f') == ({'w': w}, {})   # True
    """
    arg_params, aux_params = {}, {}
    for key, value in saved.items():
        kind, _, name = key.partition(":")
        if kind == "arg":
            arg_params[name] = value
        elif kind == "aux":
            aux_params[name] = value
        else:
            raise ValueError(f"load_params: key {key!r} {source} has neither the 'arg:' nor "
                             "the 'aux:' prefix")
    return arg_params, aux_params


def load_checkpoint(prefix, epoch):
    """``(symbol, arg_params, aux_params)`` from ``prefix-symbol.json`` and
    ``prefix-%04d.params`` (as `save_checkpoint` writes them).

    Args:
        prefix (str): the checkpoint's path prefix.
        epoch (int): the epoch number in the parameters' file name.

    Example::

        x = sym.var('data')
        net = sym.FullyConnected(x, num_hidden=2, name='fc')
        params = {'fc_weight': nd.ones((2, 4)), 'fc_bias': nd.zeros(2)}
        mx.model.save_checkpoint('net', 3, net, params, {})
        s, args, auxs = mx.model.load_checkpoint('net', 3)
        s.list_arguments()   # ['data', 'fc_weight', 'fc_bias']
    """
    symbol = sym.load(f"{prefix}-symbol.json")
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params
