"""`mx.np`: MXNet's NumPy-compatible array interface, which gluonlite does not implement.

The module exists so that code which imports it (``import mxnet.numpy as np`` in MXNet's own
test files and models) loads; using any of its names raises NotImplementedError naming the
interface. gluonlite implements the legacy `mx.nd` / `mx.sym` dialect: write the code with
`mx.nd` (``mx.nd.random.uniform(shape=(2, 3))`` for ``mx.np.random.uniform(size=(2, 3))``).

Example::

    import gluonlite.numpy as np     # imports
    np.ones((2, 3))                  # NotImplementedError: ... mx.np ...
"""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(
        f"mx.np.{name}: gluonlite does not implement MXNet's NumPy-compatible interface "
        "(mx.np / mx.npx); it implements the legacy mx.nd / mx.sym dialect only. Use the mx.nd "
        "equivalent, or run this code on MXNet")
