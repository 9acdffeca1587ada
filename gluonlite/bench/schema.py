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

    Example::

        from gluonlite.bench.schema import format_path
        print(format_path(('matrix', 'batch_size', 1)))  # matrix.batch_size[1]
        print(format_path(()))  # <top level>
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
    """Base class: `expected` describes valid values; `check` validates one value.

    Example::

        from gluonlite.bench.schema import Checker
        Checker().check(42, ('x',))  # 42: the base class accepts anything
    """

    expected = "a value"

    def check(self, value, path, partial=False):
        """Return the normalised value or raise RecipeError at `path`.

        Args:
            value: the value to check (as read from YAML).
            path: the key path of the value (a tuple), named in the error.
            partial: default False: check types only, without filling defaults or requiring keys
                (for one file of an `extends` chain).

        Returns:
            The normalised value.

        Raises:
            RecipeError: the value (or an item of it) is not what the checker expects.

        Example::

            from gluonlite.bench.schema import Int, RecipeError
            print(Int(min=1).check(3, ('n',)))  # 3
            try:
                Int(min=1).check(0, ('n',))
            except RecipeError as err:
                print(err)  # <recipe>: n: expected an integer >= 1, got 0 (int)
        """
        if not self.accepts(value):
            raise RecipeError(f"expected {self.expected}, got {_got(value)}", path)
        return value

    def accepts(self, value):
        """Whether `value` is valid (scalar checkers override this).

        Example::

            from gluonlite.bench.schema import Checker
            print(Checker().accepts(None))  # True
        """
        return True


class Int(Checker):
    """An integer (not a bool), optionally bounded below: `Int(min=1)`.

    Args:
        min: default None: the least value allowed (inclusive); None: no bound.

    Example::

        from gluonlite.bench.schema import Int
        print(Int(min=1).expected)  # an integer >= 1
        print(Int().check(-2, ('n',)))  # -2
    """

    def __init__(self, min=None):
        self.min = min
        self.expected = "an integer" + (f" >= {min}" if min is not None else "")

    def accepts(self, value):
        """Whether `value` is valid (see `Checker.accepts`).

        Example::

            from gluonlite.bench.schema import Int
            print(Int(min=1).accepts(2), Int().accepts(True))  # True False
            print(Int().accepts(2.0))  # False
        """
        return (isinstance(value, int) and not isinstance(value, bool)
                and (self.min is None or value >= self.min))


class Number(Checker):
    """A finite real number (int or float, not bool), optionally bounded.

    `Number(min=0, strict=True)` means > 0; `max` is exclusive: `Number(0, max=1)` is [0, 1).

    Args:
        min: default None: the lower bound; None: none.
        strict: default False: the lower bound is exclusive (> min) rather than >= min.
        max: default None: the exclusive upper bound; None: none.

    Example::

        from gluonlite.bench.schema import Number
        print(Number(0, max=1).expected)  # a number >= 0 and < 1
        print(Number(min=0, strict=True).check(2, ('lr',)))  # 2.0
    """

    def __init__(self, min=None, strict=False, max=None):
        self.min, self.strict, self.max = min, strict, max
        bounds = [] if min is None else [f"{'>' if strict else '>='} {min}"]
        bounds += [] if max is None else [f"< {max}"]
        self.expected = "a number" + (" " + " and ".join(bounds) if bounds else "")

    def accepts(self, value):
        """Whether `value` is valid (see `Checker.accepts`).

        Example::

            from gluonlite.bench.schema import Number
            n = Number(0, max=1)
            print(n.accepts(0), n.accepts(1), n.accepts(float('nan')))  # True False False
        """
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return False
        if not math.isfinite(value):
            return False
        if self.min is not None and (value <= self.min if self.strict else value < self.min):
            return False
        return self.max is None or value < self.max

    def check(self, value, path, partial=False):
        """Return the normalised value or raise RecipeError at `path`.

        Args:
            value: the value to check (as read from YAML).
            path: the key path of the value (a tuple), named in the error.
            partial: default False: check types only, without filling defaults or requiring keys
                (for one file of an `extends` chain).

        Returns:
            The value as a float.

        Raises:
            RecipeError: the value (or an item of it) is not what the checker expects.

        Example::

            from gluonlite.bench.schema import Number
            print(Number().check(3, ('lr',)))  # 3.0: ints come back as floats
        """
        return float(super().check(value, path, partial))


class Bool(Checker):
    """true or false.

    Example::

        from gluonlite.bench.schema import Bool
        print(Bool().check(True, ('is_train',)))  # True
    """

    expected = "true or false"

    def accepts(self, value):
        """Whether `value` is valid (see `Checker.accepts`).

        Example::

            from gluonlite.bench.schema import Bool
            print(Bool().accepts(False), Bool().accepts(0))  # True False
        """
        return isinstance(value, bool)


class Str(Checker):
    """A non-empty string.

    Example::

        from gluonlite.bench.schema import Str
        print(Str().check('lstm', ('name',)))  # lstm
    """

    expected = "a non-empty string"

    def accepts(self, value):
        """Whether `value` is valid (see `Checker.accepts`).

        Example::

            from gluonlite.bench.schema import Str
            print(Str().accepts('a'), Str().accepts(''))  # True False
        """
        return isinstance(value, str) and value != ""


class Enum(Checker):
    """One of a fixed set of values: `Enum('foreach', 'while_loop')`.

    Example::

        from gluonlite.bench.schema import Enum
        e = Enum('foreach', 'while_loop')
        print(e.expected)  # one of foreach, while_loop
        print(e.check('foreach', ('benchmark',)))  # foreach
    """

    def __init__(self, *choices):
        self.choices = choices
        self.expected = "one of " + ", ".join(map(str, choices))

    def accepts(self, value):
        """Whether `value` is valid (see `Checker.accepts`).

        Example::

            from gluonlite.bench.schema import Enum
            print(Enum(1, 2).accepts(2), Enum(1, 2).accepts(True))  # True False: same type only
        """
        return any(type(value) is type(c) and value == c for c in self.choices)


class Regex(Checker):
    r"""A string matching a regular expression in full; `expected` says it in words.

    Args:
        pattern: the regular expression the whole string must match.
        expected: what a valid value is, in words, for the error message.

    Example::

        from gluonlite.bench.schema import Regex
        ctx = Regex(r'(cpu|gpu)(\(\d+\))?', 'cpu, gpu or gpu(N)')
        print(ctx.check('gpu(1)', ('ctx',)))  # gpu(1)
    """

    def __init__(self, pattern, expected):
        self.pattern, self.expected = re.compile(pattern), expected

    def accepts(self, value):
        r"""Whether `value` is valid (see `Checker.accepts`).

        Example::

            from gluonlite.bench.schema import Regex
            ctx = Regex(r'(cpu|gpu)(\(\d+\))?', 'cpu, gpu or gpu(N)')
            print(ctx.accepts('cpu'), ctx.accepts('cpu0'))  # True False: it must match in full
        """
        return isinstance(value, str) and self.pattern.fullmatch(value) is not None


class OrAuto(Checker):
    """The word `auto` or what `inner` accepts: `OrAuto(Int(min=1))`.

    Example::

        from gluonlite.bench.schema import Int, OrAuto
        workers = OrAuto(Int(min=1))
        print(workers.expected)  # an integer >= 1 or auto
    """

    def __init__(self, inner):
        self.inner = inner
        self.expected = f"{inner.expected} or auto"

    def check(self, value, path, partial=False):
        """Return the normalised value or raise RecipeError at `path`.

        Args:
            value: the value to check (as read from YAML).
            path: the key path of the value (a tuple), named in the error.
            partial: default False: check types only, without filling defaults or requiring keys
                (for one file of an `extends` chain).

        Returns:
            'auto', or the inner checker's value.

        Raises:
            RecipeError: the value (or an item of it) is not what the checker expects.

        Example::

            from gluonlite.bench.schema import Int, OrAuto
            workers = OrAuto(Int(min=1))
            print(workers.check('auto', ('w',)), workers.check(4, ('w',)))  # auto 4
        """
        if value == "auto":
            return value
        if not self.inner.accepts(value):
            raise RecipeError(f"expected {self.expected}, got {_got(value)}", path)
        return self.inner.check(value, path, partial)


class Nullable(Checker):
    """`inner` or null (YAML `null`/`~`).

    Example::

        from gluonlite.bench.schema import Nullable, Str
        print(Nullable(Str()).expected)  # a non-empty string or null
    """

    def __init__(self, inner):
        self.inner = inner
        self.expected = f"{inner.expected} or null"

    def check(self, value, path, partial=False):
        """Return the normalised value or raise RecipeError at `path`.

        Args:
            value: the value to check (as read from YAML).
            path: the key path of the value (a tuple), named in the error.
            partial: default False: check types only, without filling defaults or requiring keys
                (for one file of an `extends` chain).

        Returns:
            None, or the inner checker's value.

        Raises:
            RecipeError: the value (or an item of it) is not what the checker expects.

        Example::

            from gluonlite.bench.schema import Nullable, Str
            out = Nullable(Str())
            print(out.check(None, ('out',)), out.check('a', ('out',)))  # None a
        """
        return None if value is None else self.inner.check(value, path, partial)


class ListOf(Checker):
    """A non-empty list of `item`; a single value is accepted as a one-item list.

    Args:
        item: the `Checker` of each item.
        scalar_ok: default True: accept a single value (not a mapping or null) as a one-item list.

    Example::

        from gluonlite.bench.schema import Int, ListOf
        print(ListOf(Int(min=1)).expected)  # a non-empty list, each item an integer >= 1
    """

    def __init__(self, item, scalar_ok=True):
        self.item, self.scalar_ok = item, scalar_ok
        self.expected = f"a non-empty list, each item {item.expected}"

    def check(self, value, path, partial=False):
        """Return the normalised value or raise RecipeError at `path`.

        Args:
            value: the value to check (as read from YAML).
            path: the key path of the value (a tuple), named in the error.
            partial: default False: check types only, without filling defaults or requiring keys
                (for one file of an `extends` chain).

        Returns:
            A list of normalised items.

        Raises:
            RecipeError: the value (or an item of it) is not what the checker expects.

        Example::

            from gluonlite.bench.schema import Int, ListOf
            sizes = ListOf(Int(min=1))
            print(sizes.check([1, 8], ('seq_len',)))  # [1, 8]
            print(sizes.check(4, ('seq_len',)))  # [4]: one value is a one-item list
        """
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

    Args:
        checker: the `Checker` of the key's value.
        default: the value filled in when the key is absent; without one, a `Struct` checker
            defaults to its own defaults and other keys stay absent.
        required: default False: the key must be given.
        doc: default '': one line describing the key.

    Example::

        from gluonlite.bench.schema import Int, Key, Struct
        s = Struct({'rounds': Key(Int(min=1), default=5, doc='timed rounds')})
        print(s.check({}, ()))  # {'rounds': 5}
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
        """Return the normalised value or raise RecipeError at `path`.

        Args:
            value: the value to check (as read from YAML).
            path: the key path of the value (a tuple), named in the error.
            partial: default False: check types only, without filling defaults or requiring keys
                (for one file of an `extends` chain).

        Returns:
            A dict with every key checked and, unless `partial`, defaults filled.

        Raises:
            RecipeError: not a mapping, an unknown key, a required key missing, or a bad value.

        Example::

            from gluonlite.bench.schema import Int, Key, Struct
            s = Struct({'n': Key(Int(min=1), required=True), 'k': Key(Int(), default=2)})
            print(s.check({'n': 1}, ()))  # {'n': 1, 'k': 2}
            print(s.check({}, (), partial=True))  # {}: types only, no defaults or required keys
        """
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
        """Return the normalised value or raise RecipeError at `path`.

        Args:
            value: the value to check (as read from YAML).
            path: the key path of the value (a tuple), named in the error.
            partial: default False: check types only, without filling defaults or requiring keys
                (for one file of an `extends` chain).

        Returns:
            {key path: list of normalised values}.

        Raises:
            RecipeError: not a non-empty mapping, a path that is not a setting (or a fixed key), or
                a bad value.

        Example::

            from gluonlite.bench.schema import Key, Number, Struct, Sweep
            s = Struct({'opt': Key(Struct({'lr': Key(Number(0, strict=True))}))})
            print(Sweep(s).check({'opt.lr': [1, 0.5]}, ('sweep',)))  # {'opt.lr': [1.0, 0.5]}
        """
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
