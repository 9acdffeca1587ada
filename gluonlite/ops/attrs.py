"""Operator attributes: parsed from Python values or MXNet's JSON strings, printed back as strings.

MXNet stores every attribute of a graph node as a string (``"num_hidden": "32"``,
``"no_bias": "True"``, ``"shape": "(2, 3)"``). An `Attr` knows how to read such a string or a
Python value, and the node keeps the string form for JSON, so a round trip is exact.
"""
import ast

import numpy as np

from ..base import normalize_dtype

__all__ = ["Attr", "REQUIRED", "Int", "Float", "Bool", "Str", "Shape", "Axis", "Dtype", "Enum",
           "IntList", "Floats", "Any", "OptionalInt", "OptionalFloat"]

REQUIRED = object()


class Attr:
    """One attribute of an operator.

    Args:
        parse: callable turning a Python value or a string into the typed value (raises
            ValueError/TypeError on bad input).
        default: the value when the attribute is not given; `REQUIRED` if it must be given.
        kind: the attribute's kind, a name the docs and signatures show ('int', 'shape';
            default '': unnamed).
        choices: the accepted values of an 'enum' (default (): any).

    Example::

        from gluonlite.ops.attrs import Attr
        a = Attr(int, default=1)
        a.parse("3"), a.default         # (3, 1)
    """

    __slots__ = ("parse", "default", "kind", "choices")

    def __init__(self, parse, default=REQUIRED, kind="", choices=()):
        self.parse, self.default, self.kind = parse, default, kind
        self.choices = tuple(choices)

    @property
    def required(self):
        """Whether the attribute must be given (it has no default).

        Example::

            from gluonlite.ops.attrs import Int
            Int().required, Int(0).required     # (True, False)
        """
        return self.default is REQUIRED


def _literal(v):
    if isinstance(v, str):
        s = v.strip()
        if s in ("None", ""):
            return None
        try:
            return ast.literal_eval(s)
        except (ValueError, SyntaxError) as e:
            raise ValueError(f"cannot parse {v!r}") from e
    return v


def _int(v):
    v = _literal(v)
    if (isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer, float))
            or int(v) != v):
        raise ValueError(f"expected an integer, got {v!r}")
    return int(v)


def _float(v):
    v = _literal(v)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number)):
        raise ValueError(f"expected a number, got {v!r}")
    return float(v)


def _bool(v):
    if isinstance(v, str):
        s = v.strip().lower()
        if s in ("true", "1"):
            return True
        if s in ("false", "0"):
            return False
        raise ValueError(f"expected True or False, got {v!r}")
    if isinstance(v, (bool, np.bool_, int, np.integer)) and v in (0, 1):
        return bool(v)
    raise ValueError(f"expected True or False, got {v!r}")


def _shape(v):
    v = _literal(v)
    if v is None:
        return None
    if isinstance(v, (int, np.integer)):
        return (int(v),)
    if isinstance(v, np.ndarray) and v.ndim == 1:  # MXNet takes a numpy vector of dims
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return tuple(_int(e) for e in v)
    raise ValueError(f"expected a shape tuple, got {v!r}")


def _axis(v):
    """None, an int, or a tuple of ints."""
    v = _literal(v)
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return tuple(_int(e) for e in v)
    return _int(v)


def _str(v):
    return str(v)


def _dtype(v):
    v = _literal(v) if isinstance(v, str) and v.strip() == "None" else v
    return None if v is None else normalize_dtype(v).name


def _any(v):
    return v


def Int(default=REQUIRED):
    """An integer attribute.

    Args:
        default: the value when the attribute is not given (default `REQUIRED`: it must be
            given).

    Returns:
        Attr: whose ``parse`` takes an int, a whole float or their string,
        and raises ValueError otherwise (a bool too).

    Example::

        from gluonlite.ops.attrs import Int
        Int().parse("32"), Int().parse(4.0)         # (32, 4); Int().parse(2.5) raises ValueError
    """
    return Attr(_int, default, "int")


def Float(default=REQUIRED):
    """A float attribute.

    Args:
        default: the value when the attribute is not given (default `REQUIRED`: it must be
            given).

    Returns:
        Attr: whose ``parse`` takes a number or its string,
        and raises ValueError otherwise (a bool too).

    Example::

        from gluonlite.ops.attrs import Float
        Float().parse("0.5"), Float().parse(2)      # (0.5, 2.0)
    """
    return Attr(_float, default, "float")


def Bool(default=REQUIRED):
    """A boolean attribute (strings 'True'/'False'/'1'/'0' accepted).

    Args:
        default: the value when the attribute is not given (default `REQUIRED`: it must be
            given).

    Returns:
        Attr: whose ``parse`` takes a bool, 0, 1 or those strings (any case),
        and raises ValueError otherwise.

    Example::

        from gluonlite.ops.attrs import Bool
        Bool().parse("True"), Bool().parse("0"), Bool().parse(1)    # (True, False, True)
    """
    return Attr(_bool, default, "bool")


def Str(default=REQUIRED):
    """A string attribute.

    Args:
        default: the value when the attribute is not given (default `REQUIRED`: it must be
            given).

    Returns:
        Attr: whose ``parse`` gives ``str`` of the value.

    Example::

        from gluonlite.ops.attrs import Str
        Str("NCHW").default, Str().parse("NHWC")    # ('NCHW', 'NHWC')
    """
    return Attr(_str, default, "str")


def Shape(default=REQUIRED):
    """A shape attribute: a tuple of ints, or None.

    Args:
        default: the value when the attribute is not given (default `REQUIRED`: it must be
            given).

    Returns:
        Attr: whose ``parse`` gives a tuple of ints (an int: a 1-tuple) or None,
        and raises ValueError otherwise.

    Example::

        from gluonlite.ops.attrs import Shape
        Shape().parse("(2, 3)"), Shape().parse([4]), Shape().parse("None")  # ((2, 3), (4,), None)
    """
    return Attr(_shape, default, "shape")


def IntList(default=REQUIRED):
    """A list of ints (as in the loop operators' index maps).

    Args:
        default: the value when the attribute is not given (default `REQUIRED`: it must be
            given).

    Returns:
        Attr: whose ``parse`` gives a list of ints, and raises ValueError otherwise.

    Example::

        from gluonlite.ops.attrs import IntList
        IntList().parse("(1, 2)"), IntList().parse("[]")    # ([1, 2], [])
    """
    return Attr(lambda v: list(_shape(v) or ()), default, "list")


def _floats(v):
    v = _literal(v)
    if isinstance(v, np.ndarray) and v.ndim <= 1:
        v = v.tolist()
    if isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_)):
        return (float(v),)
    if isinstance(v, (list, tuple)):
        return tuple(_float(e) for e in v)
    raise ValueError(f"expected a number or a tuple of numbers, got {v!r}")


def Floats(default=REQUIRED):
    """A tuple of floats (MXNet's ``Tuple<float>``: MultiBoxPrior's sizes, Proposal's
    scales); one number gives a 1-tuple.

    Args:
        default: the value when the attribute is not given (default `REQUIRED`: it must be
            given).

    Returns:
        Attr: whose ``parse`` gives a tuple of floats, and raises ValueError otherwise.

    Example::

        from gluonlite.ops.attrs import Floats
        Floats().parse("(0.5, 1, 2)"), Floats().parse(3)    # ((0.5, 1.0, 2.0), (3.0,))
    """
    return Attr(_floats, default, "floats")


def Axis(default=REQUIRED):
    """An axis attribute: None, an int or a tuple of ints.

    Args:
        default: the value when the attribute is not given (default `REQUIRED`: it must be
            given).

    Returns:
        Attr: whose ``parse`` gives None, an int or a tuple of ints,
        and raises ValueError otherwise.

    Example::

        from gluonlite.ops.attrs import Axis
        Axis().parse("(0, 2)"), Axis().parse("-1"), Axis().parse("None")    # ((0, 2), -1, None)
    """
    return Attr(_axis, default, "axis")


def Dtype(default=REQUIRED):
    """A dtype attribute, kept as its numpy name ('float32').

    Args:
        default: the value when the attribute is not given (default `REQUIRED`: it must be
            given).

    Returns:
        Attr: whose ``parse`` gives the dtype's numpy name or None,
        and raises TypeError for an unknown dtype.

    Example::

        from gluonlite.ops.attrs import Dtype
        Dtype().parse(np.float16), Dtype().parse("int32")    # ('float16', 'int32')
    """
    return Attr(_dtype, default, "dtype")


def Any(default=REQUIRED):
    """An attribute kept as given (internal operators only; not written to JSON).

    Args:
        default: the value when the attribute is not given (default `REQUIRED`: it must be
            given).

    Returns:
        Attr: whose ``parse`` returns the value itself.

    Example::

        from gluonlite.ops.attrs import Any
        obj = object()
        Any().parse(obj) is obj         # True: kept as given
    """
    return Attr(_any, default, "any")


def _optional(parse):
    def parse_optional(v):
        return None if _literal(v) is None else parse(v)
    return parse_optional


def OptionalInt():
    """An integer attribute that may be None (its default; MXNet writes ``"None"``).

    Example::

        from gluonlite.ops.attrs import OptionalInt
        OptionalInt().parse("None"), OptionalInt().parse("3")   # (None, 3)
    """
    return Attr(_optional(_int), None, "int or None")


def OptionalFloat():
    """A float attribute that may be None (its default; MXNet writes ``"None"``).

    Example::

        from gluonlite.ops.attrs import OptionalFloat
        OptionalFloat().parse("0.5"), OptionalFloat().default   # (0.5, None)
    """
    return Attr(_optional(_float), None, "float or None")


def Enum(*choices, default=REQUIRED):
    """A string attribute restricted to `choices`.

    Args:
        *choices: the accepted strings.
        default: the value when the attribute is not given (default `REQUIRED`: it must be
            given).

    Returns:
        Attr: whose ``parse`` gives the value's string (a numpy dtype: its name) and raises
        ValueError when it is not one of `choices`.

    Example::

        from gluonlite.ops.attrs import Enum
        act = Enum("relu", "tanh", default="relu")
        act.parse("tanh"), act.default      # ('tanh', 'relu'); act.parse("elu") raises ValueError
    """
    def parse(v):
        if isinstance(v, np.dtype) or isinstance(v, type) and issubclass(v, np.generic):
            v = np.dtype(v).name  # a dtype choice given as np.float64 or np.dtype('int32')
        s = str(v)
        if s not in choices:
            raise ValueError(f"expected one of {', '.join(map(repr, choices))}, got {s!r}")
        return s
    return Attr(parse, default, "enum", choices)


def format_attr(value):
    """MXNet's string form of an attribute value: ``True``, ``(2, 3)``, ``0.001``, ``float32``.

    Args:
        value: a parsed attribute value.

    Returns:
        str: a dtype's name, a list as ``[a, b]``, else ``str(value)``.

    Example::

        from gluonlite.ops.attrs import format_attr
        format_attr(True), format_attr((2, 3)), format_attr(np.dtype("float32"))
        # ('True', '(2, 3)', 'float32')
    """
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)
