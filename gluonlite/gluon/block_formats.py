"""MXNet's format lists for nested block inputs: `_flatten` and `_regroup` of `gluon.block`.

MXNet 1.x describes a nested list of arrays by a parallel list of ints: 0 for one array (or a
one-output symbol), the output count for a multi-output symbol, -1 for None, and a list for a
list. Code built on MXNet (GluonTS's model export) calls them through ``mxnet.gluon.block``;
gluonlite's own blocks use `gluonlite.base.flatten`.
"""
from ..ndarray import NDArray
from ..symbol import Symbol


def _flatten(args, inout_str):
    """Flatten `args` (an array, a symbol, None or a nested list of them).

    Args:
        args: the structure.
        inout_str (str): what `args` is ("input", "output"), for the message.

    Returns:
        (flat, fmts): the arrays in order (None kept as a None entry) and the format.

    Raises:
        ValueError: an element is neither an NDArray, a Symbol, None nor a list/tuple.

    Example::

        from gluonlite.gluon.block_formats import _flatten
        x, y = nd.ones(1), nd.zeros(1)
        flat, fmt = _flatten([x, (y, None)], 'input')
        fmt   # [0, [0, -1]]
    """
    if isinstance(args, NDArray):
        return [args], 0
    if isinstance(args, Symbol):
        n = len(args.list_outputs())
        return [args], n if n > 1 else 0
    if args is None:
        return [None], -1
    if not isinstance(args, (list, tuple)):
        raise ValueError(f"the {inout_str} of a HybridBlock must be an NDArray, a Symbol, None "
                         f"or a (nested) list of them, got {type(args).__name__}: {args!r}")
    flat, fmts = [], []
    for item in args:
        sub, fmt = _flatten(item, inout_str)
        flat.extend(sub)
        fmts.append(fmt)
    return flat, fmts


def _regroup(args, fmt):
    """Inverse of `_flatten`: rebuild the structure `fmt` from the flat list `args`.

    Args:
        args (list): the flat entries, in `_flatten`'s order.
        fmt: the format `_flatten` returned (an int > 0 takes that many entries as a list).

    Returns:
        the rebuilt structure.

    Raises:
        ValueError: `args` has too few entries for `fmt`, a non-None entry where `fmt` holds
            None, or an unknown format code.

    Example::

        from gluonlite.gluon.block_formats import _regroup
        x, y = nd.ones(1), nd.zeros(1)
        _regroup([x, y, None], [0, [0, -1]])[1][1] is None   # True
    """
    return _merge(list(args), fmt)[0]


def _merge(args, fmt):
    if isinstance(fmt, int):
        if fmt < -1:
            raise ValueError(f"_regroup: unknown format code {fmt} (expected -1, 0 or a count)")
        if fmt > 0:
            return args[:fmt], args[fmt:]
        if not args:
            raise ValueError("_regroup: fewer entries than the format describes")
        if fmt == -1 and args[0] is not None:
            raise ValueError(f"_regroup: the format holds None here, got {args[0]!r}")
        return (None if fmt == -1 else args[0]), args[1:]
    out = []
    for f in fmt:
        res, args = _merge(args, f)
        out.append(res)
    return out, args


def spec_to_format(spec):
    """gluonlite's structure spec (`gluonlite.base.flatten`) as MXNet's format list.

    Args:
        spec: a structure spec: 0 (one array), None (a None leaf) or ``(list, children)``.

    Returns:
        MXNet's format: 0 for an array, -1 for None, a list of formats for a list.

    Example::

        from gluonlite.gluon.block_formats import spec_to_format
        spec_to_format((list, (0, None)))   # [0, -1]
    """
    if spec is None:
        return -1
    if spec == 0:
        return 0
    return [spec_to_format(c) for c in spec[1]]


def format_to_spec(fmt):
    """MXNet's format list (ints, nested lists) as gluonlite's structure spec.

    Args:
        fmt: an int (-1: None, 0: one array, n > 0: a list of n arrays) or a nested list
            of such.

    Returns:
        the structure spec (`gluonlite.base.flatten`'s form).

    Raises:
        ValueError: an int below -1.

    Example::

        from gluonlite.gluon.block_formats import format_to_spec
        format_to_spec([0, [0, -1]])   # (<class 'list'>, (0, (<class 'list'>, (0, None))))
    """
    if isinstance(fmt, int):
        if fmt < -1:
            raise ValueError(f"unknown MXNet format code {fmt} (expected -1, 0 or a count)")
        return None if fmt == -1 else 0 if fmt == 0 else (list, (0,) * fmt)
    return (list, tuple(format_to_spec(f) for f in fmt))


class FormatAttributes:
    """MXNet's ``_in_format``/``_out_format`` of a HybridBlock: the structure of the inputs
    and outputs of its last hybridized call, in MXNet's format lists.

    GluonTS saves them beside an exported model and sets them on the SymbolBlock it imports;
    gluonlite keeps the structure as `_in_spec`/`_out_spec` and converts.

    Example::

        net = nn.Dense(3); net.initialize(); net.hybridize()
        y = net(nd.ones((2, 4)))
        net._in_format, net._out_format   # ([0], 0)
    """

    @property
    def _in_format(self):
        spec = getattr(self, "_in_spec", None)
        return None if spec is None else spec_to_format(spec)

    @_in_format.setter
    def _in_format(self, fmt):
        object.__setattr__(self, "_in_spec", format_to_spec(fmt))

    @property
    def _out_format(self):
        spec = getattr(self, "_out_spec", None)
        return None if spec is None else spec_to_format(spec)

    @_out_format.setter
    def _out_format(self, fmt):
        object.__setattr__(self, "_out_spec", format_to_spec(fmt))
