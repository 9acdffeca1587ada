"""`mx.libinfo`: where MXNet's compiled library lies; gluonlite has none.

``__version__`` is the MXNet API version gluonlite implements ("1.9.1"), as MXNet's libinfo
holds its release. The path finders raise: there is no libmxnet (nor C headers) to point at.

Example::

    mx.libinfo.__version__      # '1.9.1', the MXNet version whose API this follows
"""
from .mxnet_alias import MXNET_API_VERSION as __version__  # noqa: F401

__all__ = ["find_lib_path", "find_include_path"]


def _none(what):
    import gluonlite
    return RuntimeError(f"libinfo.{what}: gluonlite {gluonlite.__version__} is pure Python "
                        "and has no libmxnet library or C headers; MXNet 1.9.1 has them")


def find_lib_path(prefix="libmxnet"):
    """The paths of MXNet's shared library. Not available here.

    Args:
        prefix (str): the library's file name prefix in MXNet (default ``'libmxnet'``);
            unused: the call raises.

    Raises:
        RuntimeError: always (no libmxnet: gluonlite is pure Python).

    Example::

        try:
            mx.libinfo.find_lib_path()
        except RuntimeError as e:
            print(e)            # gluonlite ... is pure Python and has no libmxnet library
    """
    raise _none("find_lib_path")


def find_include_path():
    """The path of MXNet's C headers. Not available here.

    Raises:
        RuntimeError: always (no headers: gluonlite is pure Python).

    Example::

        try:
            mx.libinfo.find_include_path()
        except RuntimeError as e:
            print(e)            # gluonlite ... is pure Python and has no ... C headers
    """
    raise _none("find_include_path")
