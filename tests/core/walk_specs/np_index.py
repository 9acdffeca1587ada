"""Walk entries of the NumPy dialect's value-dependent and index operators
(`gluonlite.ops.np_index`)."""
import numpy as np

from .common import C, Idx

_I = (np.int32, np.int64)

SPECS = {
    "_npx_nonzero": C([Idx([[0, 1.5], [2, 0]])], ref=lambda a: np.argwhere(a)),
    "_npi_unique": [C([Idx([3, 1, 2, 1, 3])], ref=np.unique),
                    C([Idx([3, 1, 2, 1, 3])], {"return_index": True, "return_inverse": True,
                                               "return_counts": True},
                      ref=lambda a: list(np.unique(a, True, True, True)))],
    "_npi_bincount": [C([Idx([0, 2, 2, 5])], {"minlength": 3},
                        ref=lambda a: np.bincount(a.astype(int), minlength=3), dtypes=_I)],
    "_npi_percentile": [C([(3, 4)], {"q_scalar": 40.0, "axis": 1},
                          ref=lambda a: np.percentile(a, 40, axis=1)),
                        C([(3, 4), Idx([10, 90])], {"interpolation": "nearest"},
                          ref=lambda a, q: np.percentile(a, q, method="nearest"))],
    "_npi_boolean_mask_assign_scalar": C([(2, 3), Idx([[1, 0, 1], [0, 0, 1]])],
                                         {"value": 5.0},
                                         ref=lambda a, m: np.where(m != 0, 5.0, a)),
    "_npi_boolean_mask_assign_tensor": C([(3, 2), Idx([1, 0, 1]), (2,)],
                                         ref=lambda a, m, v: np.where(m[:, None] != 0, v, a)),
    "_npi_insert_scalar": C([(2, 3)], {"val": 7.0, "int_ind": 1, "axis": 1},
                            ref=lambda a: np.insert(a, 1, 7.0, axis=1)),
    "_npi_insert_slice": C([(4,), (2,)], {"start": 0, "stop": 4, "step": 2},
                           ref=lambda a, v: np.insert(a, slice(0, 4, 2), v)),
    "_npi_insert_tensor": C([(4,), (2,), Idx([1, 3])],
                            ref=lambda a, v, o: np.insert(a, o.astype(int), v)),
    "_npi_delete": [C([(2, 4)], {"int_ind": 1, "axis": 1},
                      ref=lambda a: np.delete(a, 1, axis=1)),
                    C([(5,), Idx([0, 3])], ref=lambda a, o: np.delete(a, o.astype(int)))],
    "_npi_diag_indices_from": C([(3, 3)], ref=lambda a: np.stack(np.diag_indices_from(a))),
    "_npx_constraint_check": C([Idx([1, 1])], {"msg": "bad"}, ref=lambda a: np.array(True),
                               dtypes=(np.bool_,)),
    "_npi_share_memory": C([(2,), (2,)], ref=lambda a, b: np.array(False)),
}
