"""Automatic node names: ``fullyconnected0``, ``dense0_fwd`` under a prefix, as MXNet names them."""
import threading

_local = threading.local()


def _stack():
    if not hasattr(_local, "prefixes"):
        _local.prefixes, _local.counters = [""], [{}]
    return _local


def current_prefix():
    """The active name prefix ('' outside any `Prefix`)."""
    return _stack().prefixes[-1]


class Prefix:
    """Prefix every automatic and explicit node name made inside the block (Gluon name scopes).

    Example::

        with Prefix("net_"):
            y = sym.relu(x)        # named net_relu0
    """

    def __init__(self, prefix):
        self.prefix = prefix

    def __enter__(self):
        st = _stack()
        st.prefixes.append(self.prefix)
        st.counters.append({})
        return self

    def __exit__(self, *exc):
        st = _stack()
        st.prefixes.pop()
        st.counters.pop()


def new_name(name, hint):
    """`name` with the current prefix, or a fresh ``prefix + hint + counter``."""
    st = _stack()
    if name is not None:
        return st.prefixes[-1] + name
    hint = hint.lower()
    counters = st.counters[-1]
    i = counters.get(hint, 0)
    counters[hint] = i + 1
    return f"{st.prefixes[-1]}{hint}{i}"


def user_source():
    """'file:line' of the innermost caller outside gluonlite (where a node was created)."""
    import sys
    f = sys._getframe(1)
    while f is not None and f.f_globals.get("__name__", "").startswith("gluonlite"):
        f = f.f_back
    return "" if f is None else f"{f.f_code.co_filename}:{f.f_lineno}"
