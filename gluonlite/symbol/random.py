"""`sym.random`: sampling nodes, as MXNet 1.9.1's `mx.sym.random`.

Parameters given as numbers make a ``_random_<d>`` node drawing `shape`; parameters given as
Symbols make a ``_sample_<d>`` node drawing `shape` samples per parameter element. The
functions are made from the samplers' table for this front end, as `nd.random`'s are for its
(`gluonlite.ops.random_functions`; the operators are in `gluonlite.ops.samplers`).

Example::

    z = sym.random.normal(0, 1, shape=(2, 3))
    s = sym.random.normal(sym.var("mu"), sym.var("sigma"), shape=4)
"""
from ..ops.random_functions import NAMES, FrontEnd, random_functions
from ..ops.registry import get as _get
from .register import fn as _fn, make_function as _make
from .symbol import Symbol

__all__ = list(NAMES)

# the *_like nodes are named by their short names (normal_like0), as MXNet names them
globals().update(random_functions(FrontEnd(
    "sym", Symbol, _fn, imperative=False,
    like=lambda op_name, public: _make(_get(op_name), public))))
