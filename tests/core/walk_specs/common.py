"""What every family's walk entries are written with: the input specs (`Idx`, `Pos`, shape
tuples, arrays), `make` to draw them and `C` to describe one check."""
import numpy as np


class Idx:
    """Exact (integer-valued) input data: indices, lengths, conditions, exact ties."""

    def __init__(self, values):
        self.values = np.asarray(values, dtype=np.float64)


class Pos:
    """Random positive data of a shape (for log, sqrt, power, divisors)."""

    def __init__(self, *shape):
        self.shape = shape


def make(spec, rng):
    """numpy float64 data for one input spec: a shape tuple gives signed values with
    magnitudes in [0.5, 1.5] (away from kinks at 0), `Pos` values in [0.5, 1.5]."""
    if isinstance(spec, Idx):
        return spec.values.copy()
    if isinstance(spec, Pos):
        return np.asarray(rng.uniform(0.5, 1.5, spec.shape))
    if isinstance(spec, np.ndarray):
        return spec.astype(np.float64)
    return np.asarray(rng.uniform(0.5, 1.5, spec) * rng.choice([-1.0, 1.0], spec))


def C(inputs, attrs=None, ref=None, more=(), train=True, rtol=1e-4, guessed=(), grad=None,
      dtypes=None):
    """One check: `inputs` (specs), `attrs`, numpy `ref(*arrays) -> output(s)`, `more` input
    lists checked for shapes/dtypes/values too, `train` the mode of the gradient pass,
    `guessed` inputs whose shape the rule fills with a default guess when unknown, `grad`
    for an operator whose gradient is defined rather than derived (a straight-through
    estimator): ``grad(arrays, head_grads) -> one gradient per input``, held against the
    operator's instead of finite differences (and no second derivative is asked for).
    `dtypes`: the input dtypes checked (default float32 and float64); an operator of integer
    or bool data only (lcm, the bitwise ones) names its own, and has no gradient to check."""
    return dict(inputs=list(inputs), attrs=dict(attrs or {}), ref=ref, more=list(more),
                train=train, rtol=rtol, guessed=set(guessed), grad=grad,
                dtypes=tuple(dtypes) if dtypes else None)
