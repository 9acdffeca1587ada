"""The AttributeError for a name an operator namespace lacks, saying whether MXNet 1.9.1 has it.

A library written for MXNet that calls an operator gluonlite does not implement then reads
``AttributeError: mx.nd.contrib.foo: MXNet 1.9.1 has it; gluonlite 0.1.0 does not implement
it`` at the call, instead of a bare "has no attribute" that reads like a typo.

Example::

    def __getattr__(name):               # in a namespace module
        raise missing_attribute("ndarray.contrib", name)
"""
import sys

from .mxnet_layout import MXNET_1_9_1_CLASS_MODULES, MXNET_1_9_1_MODULES, MXNET_1_9_1_NAMES

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
    if name in MXNET_1_9_1_NAMES.get(namespace, ()) or \
            name in MXNET_1_9_1_CLASS_MODULES.get(namespace, ()):
        return AttributeError(f"{where}: MXNet 1.9.1 has it; gluonlite "
                              f"{version} does not implement it")
    return AttributeError(f"module 'gluonlite.{namespace}' has no attribute {name!r} "
                          f"({where} is not in MXNet 1.9.1 either)")


def class_module_attribute(namespace, name):
    """`name` of MXNet 1.9.1's NDArray or Symbol module, for that module's ``__getattr__``.

    MXNet's ``ndarray/ndarray.py`` and ``symbol/symbol.py`` hold functions beside their
    classes (``mx.nd.ndarray.maximum``, ``mx.sym.symbol.zeros``; GluonTS's tests pass
    ``nd.ndarray`` as a loss's ``F``). gluonlite keeps them in the package namespaces
    (``gluonlite.ndarray``), and the class modules hand them out from there.

    Args:
        namespace (str): 'ndarray.ndarray' or 'symbol.symbol'.
        name (str): the attribute asked for.

    Returns:
        The package's attribute of that name, when MXNet 1.9.1's module has it.

    Raises:
        AttributeError: MXNet's module has no such name, or gluonlite's package lacks it
            (`missing_attribute`'s message).

    Example::

        from gluonlite.ops.missing_names import class_module_attribute
        class_module_attribute('ndarray.ndarray', 'maximum') is mx.nd.maximum   # True
    """
    if name in MXNET_1_9_1_CLASS_MODULES.get(namespace, ()):
        # read when asked, not imported: the package imports the class module first
        package = sys.modules.get("gluonlite." + namespace.rpartition(".")[0])
        if package is not None and name in vars(package):
            return vars(package)[name]
    raise missing_attribute(namespace, name)
