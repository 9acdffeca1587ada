"""The `mxnet` import name backed by gluonlite: what the companion distribution calls.

gluonlite is imported as ``gluonlite``. Code written for MXNet 1.x, and the libraries built on
it (GluonCV, GluonNLP, GluonTS, Sockeye, d2l), import ``mxnet``. The companion distribution
kept in this repository (``mxnet-companion/``, installed with
``pip install . ./mxnet-companion``) puts a package named ``mxnet`` into site-packages whose
``__init__`` calls :func:`provide`; from then on, in every process:

- ``mxnet.__version__`` is ``"1.9.1"`` (the MXNet API gluonlite implements), while
  ``gluonlite.__version__`` stays gluonlite's own;
- every other attribute of ``mxnet`` is gluonlite's (``mxnet.nd is gluonlite.ndarray``);
- ``import mxnet.X.Y`` gives the module object ``gluonlite.X.Y`` itself, so classes, and
  ``isinstance`` checks, are the same under both names;
- a module path that MXNet 1.9.1 has and gluonlite does not raises ModuleNotFoundError
  saying so.

When Apache MXNet is installed as well (its ``libmxnet.so`` lies in the companion's folder, or
another ``mxnet`` package with one is on ``sys.path``), :func:`provide` refuses with a one-line
ImportError naming both, so a process never runs a mix of the two.

Example (what ``mxnet/__init__.py`` of the companion does)::

    from gluonlite.mxnet_alias import provide
    provide(globals())
"""
import importlib
import importlib.abc
import importlib.util
import os
import sys

import gluonlite
from .ops.mxnet_layout import MXNET_1_9_1_MODULES

#: The MXNet release whose Python API gluonlite implements; ``mxnet.__version__``.
MXNET_API_VERSION = "1.9.1"

#: The companion distribution's own version: MXNet's, with gluonlite's as the local label
#: (PEP 440), so that pip's ``mxnet>=1.4,<2`` and ``mxnet~=1.7`` accept it as installed.
COMPANION_VERSION = f"{MXNET_API_VERSION}+gluonlite.{gluonlite.__version__}"

# The file that only Apache MXNet's package holds: its compiled engine.
_MXNET_ENGINE_FILES = ("libmxnet.so", "libmxnet.dylib", "libmxnet.dll")


class _AliasLoader(importlib.abc.Loader):
    """Hands out an already imported gluonlite module under its `mxnet` name.

    The import system initialises a throwaway module (its attribute probing would otherwise
    run the gluonlite module's ``__getattr__`` under a foreign ``__spec__``); executing it
    puts the gluonlite module in ``sys.modules`` instead, which the import system then
    returns (Python's documented replacement-in-sys.modules case), untouched.
    """

    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        sys.modules[module.__name__] = self.module


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Maps ``<alias>.X.Y`` imports onto the module objects ``<target>.X.Y``."""

    def __init__(self, alias, target):
        self.alias = alias
        self.target = target

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(self.alias + "."):
            return None
        rest = fullname[len(self.alias) + 1:]
        target_name = f"{self.target}.{rest}"
        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError as e:
            if e.name != target_name:
                raise
            raise ModuleNotFoundError(_missing_module_message(fullname, rest),
                                      name=fullname) from None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module))


def _missing_module_message(fullname, rest):
    # A module MXNet has is named as gluonlite's gap, not as a typo.
    if rest in MXNET_1_9_1_MODULES:
        return (f"No module named {fullname!r}: MXNet 1.9.1 has it, gluonlite "
                f"{gluonlite.__version__} (which provides `mxnet` here) does not implement it")
    return (f"No module named {fullname!r} (neither MXNet 1.9.1 nor gluonlite, which provides "
            f"`mxnet` here, has it)")


def _find_real_mxnet(own_dir):
    """Where Apache MXNet's engine lies: in the companion's own folder or another `mxnet`."""
    for name in _MXNET_ENGINE_FILES:
        if os.path.exists(os.path.join(own_dir, name)):
            return os.path.join(own_dir, name)
    own = os.path.realpath(own_dir)
    for entry in sys.path:
        pkg = os.path.join(entry or os.getcwd(), "mxnet")
        if os.path.realpath(pkg) == own or not os.path.isdir(pkg):
            continue
        for name in _MXNET_ENGINE_FILES:
            if os.path.exists(os.path.join(pkg, name)):
                return os.path.join(pkg, name)
    return None


def check_single_provider(own_dir):
    """Refuse to run when Apache MXNet is installed beside the companion.

    Args:
        own_dir (str): the folder of the companion's ``mxnet`` package.

    Raises:
        ImportError: one line naming both providers, when Apache MXNet's ``libmxnet`` lies
            in ``own_dir`` (one was installed over the other) or in another ``mxnet``
            package on ``sys.path``.

    Example::

        check_single_provider(os.path.dirname(mxnet.__file__))
    """
    real = _find_real_mxnet(own_dir)
    if real is not None:
        raise ImportError(
            f"two providers of the `mxnet` import name are installed: Apache MXNet "
            f"({real}) and gluonlite's companion mxnet {COMPANION_VERSION} ({own_dir}); "
            f"`pip uninstall` one of them (see docs/guide/mxnet-import.md)")


def provide(namespace, target="gluonlite"):
    """Make the module whose globals are ``namespace`` an alias of gluonlite.

    Args:
        namespace (dict): the calling package's ``globals()`` (its ``__name__`` is the alias,
            normally ``"mxnet"``; its ``__file__`` locates the package for the provider check).
        target (str): the package the alias stands for.

    Returns:
        None. Sets ``__version__`` and a module ``__getattr__``/``__dir__`` forwarding to
        ``target``, and registers the import hook for the alias's submodules.

    Raises:
        ImportError: when Apache MXNet is installed too (see :func:`check_single_provider`).

    Example::

        from gluonlite.mxnet_alias import provide
        provide(globals())
    """
    alias = namespace["__name__"]
    if namespace.get("__file__"):
        check_single_provider(os.path.dirname(os.path.abspath(namespace["__file__"])))
    backing = importlib.import_module(target)

    def __getattr__(attr):
        try:
            value = getattr(backing, attr)
        except AttributeError:
            raise AttributeError(f"module {alias!r} (gluonlite {backing.__version__}) has no "
                                 f"attribute {attr!r}") from None
        namespace[attr] = value
        return value

    def __dir__():
        return sorted(set(namespace) | set(dir(backing)))

    namespace["__version__"] = MXNET_API_VERSION
    namespace["__getattr__"] = __getattr__
    namespace["__dir__"] = __dir__
    if not any(isinstance(f, _AliasFinder) and f.alias == alias for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder(alias, target))
