"""A small declarative schema for YAML recipes.

A schema is a tree of checkers; each one validates a value at a key path and returns
the normalised value, or raises `RecipeError` naming the path and what it expected.
`Struct` rejects unknown keys and fills defaults; `partial=True` checks types only
(no defaults, no required keys), for validating one file of an `extends` chain.

Example:
    >>> s = Struct({'n': Key(Int(min=1), default=3)})
    >>> s.check({}, ())
    {'n': 3}
"""
import copy
import math
import re

__all__ = ["RecipeError", "Key", "Struct", "Int", "Number", "Bool", "Str", "Enum", "Regex",
           "ListOf", "Nullable", "OrAuto", "Sweep", "format_path"]

_NO_DEFAULT = object()


def format_path(path):
    """Render a key path tuple as text: ('matrix', 'batch_size', 1) -> 'matrix.batch_size[1]'.

    Args:
        path: tuple of str keys and int list indices.

    Returns:
        str ('<top level>' for the empty path).
    """
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<top level>"


class RecipeError(ValueError):
    """A recipe mistake: which file, key path and line, what was expected, what was found.

    Args:
        message: what was expected (and found), e.g. "expected an integer >= 1, got 'a'".
        path: key path tuple (see `format_path`), or None for whole-file problems.
        file: the recipe file, set by the loader when it knows it.
        line: 1-based YAML line number, when known.

    Example:
        >>> str(RecipeError("expected a list, got 3", ('matrix', 'seq_len'), 'r.yaml', 4))
        'r.yaml:4: matrix.seq_len: expected a list, got 3'
    """

    def __init__(self, message, path=None, file=None, line=None):
        super().__init__(message)
        self.message, self.path, self.file, self.line = message, path, file, line

    def __str__(self):
        where = str(self.file or "<recipe>") + (f":{self.line}" if self.line else "")
        key = f" {format_path(self.path)}:" if self.path is not None else ""
        return f"{where}:{key} {self.message}"


def _got(value):
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})" if not isinstance(value, str) else text


class Checker:
    """Base class: `expected` describes valid values; `check` validates one value."""

    expected = "a value"

    def check(self, value, path, partial=False):
        """Return the normalised value or raise RecipeError at `path`."""
        if not self.accepts(value):
            raise RecipeError(f"expected {self.expected}, got {_got(value)}", path)
        return value

    def accepts(self, value):
        """Whether `value` is valid (scalar checkers override this)."""
        return True


class Int(Checker):
    """An integer (not a bool), optionally bounded below: `Int(min=1)`."""

    def __init__(self, min=None):
        self.min = min
        self.expected = "an integer" + (f" >= {min}" if min is not None else "")

    def accepts(self, value):
        return (isinstance(value, int) and not isinstance(value, bool)
                and (self.min is None or value >= self.min))


class Number(Checker):
    """A finite real number (int or float, not bool), optionally bounded.

    `Number(min=0, strict=True)` means > 0; `max` is exclusive: `Number(0, max=1)` is [0, 1).
    """

    def __init__(self, min=None, strict=False, max=None):
        self.min, self.strict, self.max = min, strict, max
        bounds = [] if min is None else [f"{'>' if strict else '>='} {min}"]
        bounds += [] if max is None else [f"< {max}"]
        self.expected = "a number" + (" " + " and ".join(bounds) if bounds else "")

    def accepts(self, value):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return False
        if not math.isfinite(value):
            return False
        if self.min is not None and (value <= self.min if self.strict else value < self.min):
            return False
        return self.max is None or value < self.max

    def check(self, value, path, partial=False):
        return float(super().check(value, path, partial))


class Bool(Checker):
    """true or false."""

    expected = "true or false"

    def accepts(self, value):
        return isinstance(value, bool)


class Str(Checker):
    """A non-empty string."""

    expected = "a non-empty string"

    def accepts(self, value):
        return isinstance(value, str) and value != ""


class Enum(Checker):
    """One of a fixed set of values: `Enum('foreach', 'while_loop')`."""

    def __init__(self, *choices):
        self.choices = choices
        self.expected = "one of " + ", ".join(map(str, choices))

    def accepts(self, value):
        return any(type(value) is type(c) and value == c for c in self.choices)


class Regex(Checker):
    """A string matching a regular expression in full; `expected` says it in words."""

    def __init__(self, pattern, expected):
        self.pattern, self.expected = re.compile(pattern), expected

    def accepts(self, value):
        return isinstance(value, str) and self.pattern.fullmatch(value) is not None


class OrAuto(Checker):
    """The word `auto` or what `inner` accepts: `OrAuto(Int(min=1))`."""

    def __init__(self, inner):
        self.inner = inner
        self.expected = f"{inner.expected} or auto"

    def check(self, value, path, partial=False):
        if value == "auto":
            return value
        if not self.inner.accepts(value):
            raise RecipeError(f"expected {self.expected}, got {_got(value)}", path)
        return self.inner.check(value, path, partial)


class Nullable(Checker):
    """`inner` or null (YAML `null`/`~`)."""

    def __init__(self, inner):
        self.inner = inner
        self.expected = f"{inner.expected} or null"

    def check(self, value, path, partial=False):
        return None if value is None else self.inner.check(value, path, partial)


class ListOf(Checker):
    """A non-empty list of `item`; a single value is accepted as a one-item list."""

    def __init__(self, item, scalar_ok=True):
        self.item, self.scalar_ok = item, scalar_ok
        self.expected = f"a non-empty list, each item {item.expected}"

    def check(self, value, path, partial=False):
        if not isinstance(value, list):
            if self.scalar_ok and not isinstance(value, (dict, type(None))):
                return [self.item.check(value, path, partial)]
            raise RecipeError(f"expected {self.expected}, got {_got(value)}", path)
        if not value:
            raise RecipeError(f"expected {self.expected}, got an empty list", path)
        return [self.item.check(v, path + (i,), partial) for i, v in enumerate(value)]


class Key:
    """One key of a `Struct`: its checker, default, whether required, and a doc line.

    A `Struct` checker with no explicit default defaults to its own defaults ({}).
    """

    def __init__(self, checker, default=_NO_DEFAULT, required=False, doc=""):
        self.checker, self.default, self.required, self.doc = checker, default, required, doc


class Struct(Checker):
    """A mapping with a fixed set of keys; unknown keys are errors.

    Args:
        keys: dict name -> Key.

    Example:
        >>> Struct({'a': Key(Int())}).check({'b': 1}, ('x',))
        Traceback (most recent call last):
        ...
        gluonlite.bench.schema.RecipeError: <recipe>: x.b: unknown key; expected one of: a
    """

    expected = "a mapping"

    def __init__(self, keys):
        self.keys = keys

    def check(self, value, path, partial=False):
        if value is None:
            value = {}
        if not isinstance(value, dict):
            raise RecipeError(f"expected a mapping with keys {', '.join(self.keys)}, "
                              f"got {_got(value)}", path)
        for name in value:
            if name not in self.keys:
                raise RecipeError(f"unknown key; expected one of: {', '.join(self.keys)}",
                                  path + (name,))
        out = {}
        for name, key in self.keys.items():
            if name in value:
                out[name] = key.checker.check(value[name], path + (name,), partial)
            elif partial:
                continue
            elif key.required:
                raise RecipeError(f"missing required key; expected {key.checker.expected}"
                                  + (f" ({key.doc})" if key.doc else ""), path + (name,))
            elif key.default is not _NO_DEFAULT:
                out[name] = copy.deepcopy(key.default)
            elif isinstance(key.checker, Struct):
                out[name] = key.checker.check({}, path + (name,), partial)
            else:
                out[name] = None
        return out


class Sweep(Checker):
    """A mapping of dotted key paths into a `Struct` to non-empty lists of values for them
    (a grid to sweep); each value is checked by the checker of its key.

    Args:
        struct: the Struct the paths lead into (None: set `.struct` later, for the Struct
            that holds this Sweep).
        fixed: top-level keys that cannot be swept.

    Example:
        >>> s = Struct({'opt': Key(Struct({'lr': Key(Number(0, strict=True))}))})
        >>> Sweep(s).check({'opt.lr': [0.1, 0.01]}, ('sweep',))
        {'opt.lr': [0.1, 0.01]}
    """

    expected = "a mapping of key paths (such as optimizer.lr) to lists of values"

    def __init__(self, struct=None, fixed=()):
        self.struct, self.fixed = struct, tuple(fixed)

    def _leaf(self, name, path):
        node, parts = self.struct, str(name).split(".")
        for depth, part in enumerate(parts):
            if (not isinstance(node, Struct) or part not in node.keys
                    or (depth == 0 and part in self.fixed)):
                raise RecipeError(f"expected a key path of a setting to vary, such as "
                                  f"optimizer.lr or model.hidden_size, got {name!r}",
                                  path + (name,))
            node = node.keys[part].checker
        if isinstance(node, Struct):
            raise RecipeError(f"expected a key path that ends at a value, got the mapping "
                              f"{name!r}", path + (name,))
        return node

    def check(self, value, path, partial=False):
        if not isinstance(value, dict) or not value:
            raise RecipeError(f"expected {self.expected}, got {_got(value)}", path)
        out = {}
        for name, values in value.items():
            checker = self._leaf(name, path)
            if not isinstance(values, list) or not values:
                raise RecipeError(f"expected a non-empty list of values to sweep, got "
                                  f"{_got(values)}", path + (name,))
            out[name] = [checker.check(v, path + (name, i), partial)
                         for i, v in enumerate(values)]
        return out
