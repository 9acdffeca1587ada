"""`mx.np.utils`: the dtypes and constants `mx.np` exports, and `set_printoptions` (from
`arrayprint`) and `genfromtxt` (from `io`), as MXNet 1.9.1 lays them out."""
import numpy as _onp

from .arrayprint import set_printoptions  # noqa: F401
from .io import genfromtxt  # noqa: F401

__all__ = ["float16", "float32", "float64", "uint8", "int32", "int8", "int64", "bool",
           "bool_", "pi", "inf", "nan", "PZERO", "NZERO", "newaxis", "finfo", "e", "NINF",
           "PINF", "NAN", "NaN", "set_printoptions", "genfromtxt"]

float16, float32, float64 = _onp.float16, _onp.float32, _onp.float64
uint8, int8, int32, int64 = _onp.uint8, _onp.int8, _onp.int32, _onp.int64
bool_ = _onp.bool_
bool = _onp.bool_  # noqa: A001
pi, inf, nan, e = _onp.pi, _onp.inf, _onp.nan, _onp.e
PZERO, NZERO, PINF, NINF = 0.0, -0.0, _onp.inf, -_onp.inf
NAN = NaN = _onp.nan
newaxis = None
finfo = _onp.finfo
