"""The AttributeError for a name an operator namespace lacks, saying whether MXNet 1.9.1 has it.

A library written for MXNet that calls an operator gluonlite does not implement then reads
``AttributeError: mx.nd.contrib.foo: MXNet 1.9.1 has it; gluonlite 0.1.0 does not implement
it`` at the call, instead of a bare "has no attribute" that reads like a typo.

Example::

    def __getattr__(name):               # in a namespace module
        raise missing_attribute("ndarray.contrib", name)
"""
import sys

from .mxnet_layout import MXNET_1_9_1_MODULES, MXNET_1_9_1_NAMES

# How users spell the namespaces.
_SHORT = {"ndarray": "mx.nd", "symbol": "mx.sym"}


def _spelled(namespace):
    head, _, rest = namespace.partition(".")
    return _SHORT.get(head, f"mx.{head}") + (f".{rest}" if rest else "")


def missing_attribute(namespace, name):
    """The AttributeError to raise for `name` missing from gluonlite's `namespace`.

    Args:
        namespace (str): the namespace relative to the package ('ndarray', 'symbol.contrib').
        name (str): the attribute asked for.

    Returns:
        AttributeError: naming ``mx.<ns>.<name>`` and, when MXNet 1.9.1's namespace has that
        name (an operator gluonlite does not implement) or module, saying so.

    Example::

        from gluonlite.ops.missing_names import missing_attribute
        isinstance(missing_attribute('ndarray.contrib', 'foo'), AttributeError)   # True
    """
    # the package's version without importing it upward (ops is beneath every namespace)
    version = getattr(sys.modules.get("gluonlite"), "__version__", "")
    where = f"{_spelled(namespace)}.{name}"
    if f"{namespace}.{name}" in MXNET_1_9_1_MODULES:
        return AttributeError(f"{where}: MXNet 1.9.1 has this module; gluonlite "
                              f"{version} does not implement it")
    if name in MXNET_1_9_1_NAMES.get(namespace, ()):
        return AttributeError(f"{where}: MXNet 1.9.1 has it; gluonlite "
                              f"{version} does not implement it")
    return AttributeError(f"module 'gluonlite.{namespace}' has no attribute {name!r} "
                          f"({where} is not in MXNet 1.9.1 either)")
