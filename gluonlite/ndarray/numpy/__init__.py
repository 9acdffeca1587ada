"""`mx.nd.np`: the NumPy dialect's functions in the imperative face (see
`gluonlite.numpy._faces`); `F.np` inside `hybrid_forward` is this module.

Example::

    mx.nd.np.sum(mx.np.array([[1, 2], [3, 4]]), axis=0)   # [4. 6.]
"""

# What `gluonlite.numpy` installs when it loads (it sits above this layer, DESIGN.md): the
# lookups of the faces ("nd", "sym", "internal": `gluonlite.numpy._faces`) and the numpy
# symbol class ("_Symbol").
FACES = {}


def lookup(kind, *args):
    """The installed lookup `kind` called with `args` (the class itself for "_Symbol").

    Raises:
        AttributeError: mx.np has not loaded (or the lookup found no such name).

    Example::

        from gluonlite.ndarray.numpy import lookup
        total = lookup('nd', 'numpy', 'sum')   # gluonlite.numpy's sum, the imperative face
        total(mx.np.array([1, 2]))             # 3.0
        lookup('_Symbol').__name__             # '_Symbol'
    """
    fn = FACES.get(kind)
    if fn is None:
        raise AttributeError(f"{args[-1] if args else kind}: the NumPy dialect "
                             "(gluonlite.numpy) has not loaded")
    return fn(*args) if args else fn


from . import linalg, random, _internal  # noqa: E402,F401


def __getattr__(name):
    return lookup("nd", "numpy", name)
