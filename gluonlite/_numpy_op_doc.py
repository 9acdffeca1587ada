"""The Python signatures of the registry operators whose NumPy-dialect names start with
``_np_`` / ``_npx_`` (MXNet 1.9.1's ``_numpy_op_doc``): `numpy_op_signature` gives each
`mx.np` / `mx.npx` function that fronts one of them this signature, so ``inspect`` shows
NumPy's arguments. The bodies are empty; the functions are documentation only.

Example::

    import inspect
    from gluonlite._numpy_op_doc import _np_sum
    params = list(inspect.signature(_np_sum).parameters)
    params   # ['a', 'axis', 'dtype', 'keepdims', 'initial', 'out']
"""
# pylint: disable=unused-argument,too-many-arguments


def _np_all(a, axis=None, keepdims=False, out=None):
    """The signature of ``np.all``."""


def _np_any(a, axis=None, keepdims=False, out=None):
    """The signature of ``np.any``."""


def _np_sometrue(a, axis=None, keepdims=False, out=None):
    """The signature of ``np.sometrue``."""


def _np_cumsum(a, axis=None, dtype=None, out=None):
    """The signature of ``np.cumsum``."""


def _npx_nonzero(a):
    """The signature of ``npx.nonzero``."""


def _np_repeat(a, repeats, axis=None):
    """The signature of ``np.repeat``."""


def _np_transpose(a, axes=None):
    """The signature of ``np.transpose``."""


def _np_dot(a, b, out=None):
    """The signature of ``np.dot``."""


def _np_sum(a, axis=None, dtype=None, keepdims=False, initial=None, out=None):
    """The signature of ``np.sum``."""


def _np_copy(a, out=None):
    """The signature of ``np.copy``."""


def _np_atleast_1d(*arys):
    """The signature of ``np.atleast_1d``."""


def _np_atleast_2d(*arys):
    """The signature of ``np.atleast_2d``."""


def _np_atleast_3d(*arys):
    """The signature of ``np.atleast_3d``."""


def _np_reshape(a, newshape, order='C', out=None):
    """The signature of ``np.reshape``."""


def _np_roll(a, shift, axis=None):
    """The signature of ``np.roll``."""


def _np_trace(a, offset=0, axis1=0, axis2=1, out=None):
    """The signature of ``np.trace``."""


def _np_squeeze(a, axis=None, out=None):
    """The signature of ``np.squeeze``."""


def _np_max(a, axis=None, keepdims=False, out=None):
    """The signature of ``np.max``."""


def _np_amax(a, axis=None, keepdims=False, out=None):
    """The signature of ``np.amax``."""


def _np_min(a, axis=None, keepdims=False, out=None):
    """The signature of ``np.min``."""


def _np_amin(a, axis=None, keepdims=False, out=None):
    """The signature of ``np.amin``."""


def _np_prod(a, axis=None, dtype=None, out=None, keepdims=False):
    """The signature of ``np.prod``."""


def _np_product(a, axis=None, dtype=None, out=None, keepdims=False):
    """The signature of ``np.product``."""


def _np_moveaxis(a, source, destination):
    """The signature of ``np.moveaxis``."""


def _np__random_shuffle(x):
    """The signature of ``random.shuffle``."""


def _npx_constraint_check(x, msg):
    """The signature of ``npx.constraint_check``."""


def _npx_reshape(a, newshape, reverse=False, order='C'):
    """The signature of ``npx.reshape``."""


def _np_diag(array, k=0):
    """The signature of ``np.diag``."""


def _np_diagonal(a, offset=0, axis1=0, axis2=1):
    """The signature of ``np.diagonal``."""


def _np_diagflat(array, k=0):
    """The signature of ``np.diagflat``."""
