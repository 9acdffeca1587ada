"""The MXNet-made references in tests/fixtures, for the tests that check against them: a
fixture maker loaded as a module (its functions take the framework as ``mx``, so a test
runs the very calls that made the reference, on gluonlite) and the arrays it wrote.

Example::

    from fixture_makers import maker, reference
    make_libm32 = maker("make_libm32")
    want = reference("libm32_mxnet.npz")["exp_f32"]
"""
import importlib.util
import os

import numpy as np

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def maker(name):
    """The module of tests/fixtures/<name>.py (run as an import: its ``__main__`` block, which
    needs MXNet, is not)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(FIXTURES, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reference(filename):
    """The arrays of tests/fixtures/<filename> (an .npz a maker wrote on MXNet)."""
    return np.load(os.path.join(FIXTURES, filename))
