"""Walk entries of the NumPy dialect's elementwise operators (`gluonlite.ops.np_elemwise`):
broadcasting binary operators, comparisons, the scalar ones and the unary ones with a NumPy
meaning of their own, against NumPy."""
import numpy as np

from .common import C, Idx, Pos

_I = (np.int32, np.int64)


def _ints(fn):
    """`fn` on the integer values of the (float64-drawn) inputs."""
    return lambda *xs: fn(*[x.astype(np.int64) for x in xs])

_BCAST = [[(2, 1), (1, 3)], [(3,), (2, 3)], [(), (2, 2)]]


def _binary(fn, lhs=(2, 3), rhs=(3,), more=_BCAST):
    return C([lhs, rhs], ref=fn, more=more)


SPECS = {
    "_npi_add": _binary(np.add),
    "_npi_subtract": _binary(np.subtract),
    "_npi_multiply": _binary(np.multiply),
    "_npi_true_divide": C([(2, 3), Pos(3)], ref=np.true_divide,
                          more=[[(2, 1), Pos(1, 3)], [(), Pos(2, 2)]]),
    "_npi_mod": C([Pos(2, 3), Idx([0.3, 0.7, 1.1])], ref=np.mod, more=[[Pos(2, 1), Pos(1, 3)]]),
    "_npi_power": C([Pos(2, 3), (3,)], ref=np.power, more=[[Pos(2, 1), (1, 3)], [Pos(), (2,)]]),
    "_npi_copysign": _binary(np.copysign),
    "_npi_arctan2": _binary(np.arctan2),
    "_npi_hypot": _binary(np.hypot),
    "_npi_ldexp": C([(2, 3), (3,)], ref=lambda a, b: a * 2.0 ** b, more=_BCAST),
    "_npi_lcm": C([Idx([[4, 6], [3, 9]]), Idx([6, 4])], ref=_ints(np.lcm), dtypes=_I),
    "_npi_bitwise_and": C([Idx([[4, 6], [3, 9]]), Idx([6, 5])], ref=_ints(np.bitwise_and),
                        dtypes=_I),
    "_npi_bitwise_or": C([Idx([[4, 6], [3, 9]]), Idx([6, 5])], ref=_ints(np.bitwise_or), dtypes=_I),
    "_npi_bitwise_xor": C([Idx([[4, 6], [3, 9]]), Idx([6, 5])], ref=_ints(np.bitwise_xor),
                        dtypes=_I),
}
_A, _B = Idx([[1, 2, 3], [4, 5, 6]]), Idx([[1, 0, 3], [5, 5, 2]])
for _name, _fn in [("equal", np.equal), ("not_equal", np.not_equal), ("greater", np.greater),
                   ("greater_equal", np.greater_equal), ("less", np.less),
                   ("less_equal", np.less_equal)]:
    SPECS[f"_npi_{_name}"] = C([_A, _B], ref=_fn, more=[[_A, Idx([2, 2, 3])]])
    SPECS[f"_npi_{_name}_scalar"] = C([_A], {"scalar": 2}, ref=lambda a, f=_fn: f(a, 2))

SPECS.update({
    "_npi_true_divide_scalar": C([(2, 3)], {"scalar": 0.5}, ref=lambda a: a / 0.5),
    "_npi_rtrue_divide_scalar": C([Pos(2, 3)], {"scalar": 3.0}, ref=lambda a: 3.0 / a),
    "_npi_copysign_scalar": C([(2, 3)], {"scalar": -1.0}, ref=lambda a: np.copysign(a, -1.0)),
    "_npi_rcopysign_scalar": C([(2, 3)], {"scalar": 2.0}, ref=lambda a: np.copysign(2.0, a)),
    "_npi_arctan2_scalar": C([(2, 3)], {"scalar": 0.7}, ref=lambda a: np.arctan2(a, 0.7)),
    "_npi_rarctan2_scalar": C([(2, 3)], {"scalar": 0.7}, ref=lambda a: np.arctan2(0.7, a)),
    "_npi_ldexp_scalar": C([(2, 3)], {"scalar": 1.5}, ref=lambda a: a * 2 ** 1.5),
    "_npi_rldexp_scalar": C([(2, 3)], {"scalar": 1.5}, ref=lambda a: 1.5 * 2 ** a),
    "_npi_lcm_scalar": C([Idx([[4, 6], [3, 9]])], {"scalar": 6}, ref=_ints(lambda a: np.lcm(a, 6)),
                         dtypes=_I),
    "_npi_bitwise_and_scalar": C([Idx([4, 6, 3])], {"scalar": 6},
                                 ref=_ints(lambda a: np.bitwise_and(a, 6)), dtypes=_I),
    "_npi_bitwise_or_scalar": C([Idx([4, 6, 3])], {"scalar": 6},
                                ref=_ints(lambda a: np.bitwise_or(a, 6)), dtypes=_I),
    "_npi_bitwise_xor_scalar": C([Idx([4, 6, 3])], {"scalar": 6},
                                 ref=_ints(lambda a: np.bitwise_xor(a, 6)), dtypes=_I),
    "_npi_logical_not": C([Idx([[0, 1.5], [-2, 0]])], ref=np.logical_not),
    "_npi_isnan": C([Idx([[np.nan, 1.5], [np.inf, 0]])], ref=np.isnan),
    "_npi_isinf": C([Idx([[np.nan, 1.5], [np.inf, -np.inf]])], ref=np.isinf),
    "_npi_isfinite": C([Idx([[np.nan, 1.5], [np.inf, 0]])], ref=np.isfinite),
    "_npi_isposinf": C([Idx([[np.nan, 1.5], [np.inf, -np.inf]])], ref=np.isposinf),
    "_npi_isneginf": C([Idx([[np.nan, 1.5], [np.inf, -np.inf]])], ref=np.isneginf),
    "_npi_bitwise_not": C([Idx([[0, 5], [-3, 7]])], ref=_ints(np.invert), dtypes=_I),
    # MXNet 1.9.1's np.rint is its legacy rint: halves down (-2.5 -> -3), not to even
    "_npi_rint": C([Idx([[-2.5, -1.5, -0.5], [0.5, 2.5, 1.7]])], ref=lambda a: np.ceil(a - 0.5)),
    "_npi_around": [C([Idx([[-2.5, -1.5, 0.5], [2.5, 1.25, 1.7]])], ref=np.around),
                    C([Idx([[1.2345, -1.2355]])], {"decimals": 2},
                      ref=lambda a: np.around(a, 2))],
})
del _name, _fn
