"""The scopes that name and tag graph nodes, as MXNet 1.x's front end has them.

- `NameManager` gives automatic node names (``fullyconnected0``); `Prefix` also prefixes
  every name made inside it (Gluon's name scopes: ``dense0_fwd``). The innermost manager
  entered with ``with`` names the nodes; each has its own counters.
- `AttrScope` adds string attributes to every node (operators and variables) made inside
  it; nested scopes merge, the inner value winning. Loops and branches register their
  subgraph names in ``AttrScope._subgraph_names`` and tag their bodies' nodes with
  ``__subgraph_name__``, as MXNet does.

`gluonlite.name` and `gluonlite.attribute` export these under MXNet's module names.
"""
import threading
import warnings
from collections import defaultdict

from ..base import user_frame

__all__ = ["NameManager", "Prefix", "AttrScope", "new_name", "current_prefix", "scope_attrs",
           "subgraph_name", "user_source"]


class _CurrentProperty(type):
    """Gives a scope class MXNet's deprecated ``Class.current`` (get and set)."""

    @property
    def current(cls):
        warnings.warn(f"{cls.__name__}.current is deprecated; enter the scope with `with`",
                      DeprecationWarning, stacklevel=2)
        return cls._active()

    @current.setter
    def current(cls, value):
        cls._current.value = value


def _active_in(root):
    """The scope of class `root` active in this thread (a plain `root()` at first)."""
    cur = root._current
    if getattr(cur, "value", None) is None:
        cur.value = root()
    return cur.value


class NameManager(metaclass=_CurrentProperty):
    """Automatic names for the nodes made inside ``with NameManager():``: a given name is
    kept, a missing one becomes ``hint`` + a counter per hint (``relu0``, ``relu1``).

    Subclasses change the naming by overriding `get`.

    Example::

        x = sym.var("x")
        with mx.name.NameManager():
            a = sym.relu(x)        # relu0, whatever was named before
        a.name                     # 'relu0'
    """

    _current = threading.local()

    def __init__(self):
        self._counter = {}
        self._old_manager = None

    @classmethod
    def _active(cls):
        return _active_in(NameManager)

    def get(self, name, hint):
        """The name of a new node.

        Args:
            name: the name the user gave, or None (or '') for an automatic one.
            hint: the stem of the automatic name.

        Returns:
            `name` when given, else ``hint`` followed by this manager's count of `hint`.

        Example::

            with mx.name.NameManager() as nm:
                nm.get(None, "fc")      # 'fc0'
                nm.get(None, "fc")      # 'fc1'
                nm.get("mine", "fc")    # 'mine'
        """
        if name:
            return name
        i = self._counter.get(hint, 0)
        self._counter[hint] = i + 1
        return f"{hint}{i}"

    def __enter__(self):
        self._old_manager = NameManager._active()
        NameManager._current.value = self
        return self

    def __exit__(self, *exc):
        NameManager._current.value = self._old_manager
        self._old_manager = None


class Prefix(NameManager):
    """A `NameManager` that puts `prefix` before every name, given or automatic.

    Args:
        prefix: the string put first (``'net_'``).

    Example::

        x = sym.var("x")
        with mx.name.Prefix("net_"):
            y = sym.relu(x)                               # net_relu0
            z = sym.FullyConnected(y, num_hidden=2, name="fc")   # net_fc, net_fc_weight
        z.list_arguments()   # ['x', 'net_fc_weight', 'net_fc_bias']
    """

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        """`NameManager.get` with the prefix put first.

        Args:
            name: the name the user gave, or None (or '') for an automatic one.
            hint: the stem of the automatic name.

        Returns:
            str: the prefix followed by `name` when given, else by ``hint`` and its count.

        Example::

            from gluonlite.symbol.naming import Prefix
            Prefix('net_').get(None, 'conv')   # 'net_conv0'
        """
        return self._prefix + super().get(name, hint)


class AttrScope(metaclass=_CurrentProperty):
    """String attributes given to every node made inside ``with AttrScope(key=value):``.

    Args:
        **kwargs: the attributes; each value must be a string.

    Raises:
        ValueError: a value that is not a string (naming the attribute).

    Example::

        x = sym.var("x")
        with mx.AttrScope(ctx_group="dev1"):
            y = sym.relu(x)
        y.attr("ctx_group")      # 'dev1'
    """

    _current = threading.local()
    # How many times each subgraph name was used (foreach0, cond_then1 ...); a class
    # attribute as in MXNet, where callers reset it by assigning a new defaultdict.
    _subgraph_names = defaultdict(int)

    def __init__(self, **kwargs):
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise ValueError(f"AttrScope: attribute {key!r} must be a string, got "
                                 f"{type(value).__name__} {value!r}")
        self._attr = kwargs
        self._old_scope = None

    @classmethod
    def _active(cls):
        return _active_in(AttrScope)

    def get(self, attr):
        """The attributes of a new node: this scope's, updated with `attr` (the node's own
        attributes, a dict or None; they win).

        Example::

            from gluonlite.symbol.naming import AttrScope
            AttrScope(group='a', lr_mult='2').get({'group': 'b'})   # {'group': 'b', 'lr_mult': '2'}
        """
        if not self._attr:
            return dict(attr) if attr else {}
        out = dict(self._attr)
        if attr:
            out.update(attr)
        return out

    def __enter__(self):
        self._old_scope = AttrScope._active()
        merged = dict(self._old_scope._attr)
        merged.update(self._attr)
        self._attr = merged
        AttrScope._current.value = self
        return self

    def __exit__(self, *exc):
        AttrScope._current.value = self._old_scope
        self._old_scope = None


def new_name(name, hint):
    """The name of a new node from the active `NameManager`: `name` (prefixed inside a
    `Prefix`) or a fresh ``hint`` (lower-cased) + counter.

    Example::

        from gluonlite.symbol.naming import Prefix, new_name
        with Prefix('net_'):
            new_name(None, 'Dense'), new_name('out', 'Dense')   # ('net_dense0', 'net_out')
    """
    return NameManager._active().get(name, hint.lower())


def current_prefix():
    """The active name prefix ('' outside any `Prefix`).

    Example::

        from gluonlite.symbol.naming import Prefix, current_prefix
        with Prefix('net_'):
            current_prefix()   # 'net_'
    """
    return getattr(NameManager._active(), "_prefix", "")


def scope_attrs(attr=None):
    """`attr` (a dict of strings, or None) merged over the active `AttrScope`'s attributes.

    Example::

        from gluonlite.symbol.naming import AttrScope, scope_attrs
        with AttrScope(ctx_group='dev1'):
            scope_attrs({'lr_mult': '2'})   # {'ctx_group': 'dev1', 'lr_mult': '2'}
    """
    return AttrScope._active().get(attr)


def subgraph_name(name):
    """A new unique name for a loop's or branch's body: `name` (``'foreach'``,
    ``'cond_then'``), qualified by the enclosing body's name when inside one
    (``'foreach0$cond_then'``), then numbered by how often that name was used
    (``'foreach0$cond_then0'``). Counted in ``AttrScope._subgraph_names``.

    Example::

        from gluonlite.symbol.naming import AttrScope, subgraph_name
        subgraph_name('docbody'), subgraph_name('docbody')   # ('docbody0', 'docbody1')
        del AttrScope._subgraph_names['docbody']             # the count as it was
    """
    outer = AttrScope._active()._attr.get("__subgraph_name__", "")
    if outer:
        name = f"{outer}${name}"
    counts = AttrScope._subgraph_names
    counts[name] += 1
    return f"{name}{counts[name] - 1}"


def user_source():
    """'file:line' of the innermost caller outside gluonlite (where a node was created).

    Example::

        from gluonlite.symbol.naming import user_source
        where = user_source()   # this file and line, as 'file:line'
    """
    f = user_frame()[0]
    return "" if f is None else f"{f.f_code.co_filename}:{f.f_lineno}"
