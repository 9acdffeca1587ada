"""Testing helpers with MXNet 1.x's names and behaviour: array comparison with tolerances by
dtype (`assert_almost_equal`), symbol checks against expected values and finite differences
(`check_symbolic_forward`, `check_symbolic_backward`, `check_numeric_gradient`), random test
data, checks of random generators, numpy references, and the test run's surroundings
(`default_context`, `environment`).

There is deliberately no ``__all__``: as with MXNet's module, ``from gluonlite.test_utils
import *`` brings every public name, ``mx`` (the gluonlite package) and ``np`` included, which
MXNet's own test files rely on.

Example::

    from gluonlite.test_utils import assert_almost_equal
    assert_almost_equal(x.grad, 2 * x, names=("x.grad", "2x"))
"""
import numpy as np

import gluonlite as mx

from .tolerances import (default_dtype, default_rtols, default_atols, default_numeric_eps,
                         effective_dtype, get_tolerance, get_tols, get_rtol, get_atol, get_etol)
from .comparison import (same, same_array, almost_equal, assert_almost_equal, assert_allclose,
                         assert_almost_equal_with_err, assert_almost_equal_ignore_nan,
                         assert_exception, checkShapes, compare_ndarray_tuple,
                         same_symbol_structure)
from .arrays import (random_arrays, random_uniform_arrays, random_sample, rand_ndarray,
                     rand_shape_2d, rand_shape_3d, rand_shape_nd, rand_coord_2d)
from .runtime import (default_context, set_default_context, list_gpus, environment,
                      discard_stderr, retry)
from .symbolic import (simple_forward, numeric_grad, finite_difference, check_numeric_gradient,
                       check_symbolic_forward, check_symbolic_backward)
from .references import np_reduce, collapse_sum_like
from .optimizers import compare_optimizer
from ..ndarray import array  # noqa: F401  (MXNet's test_utils exports it to its tests)
from .distributions import (gen_buckets_probs_with_ppf, mean_check, var_check, chi_square_check,
                            verify_generator)
