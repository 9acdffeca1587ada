"""Initializers (`gluonlite.init`): how parameters get their first values, as in MXNet 1.x.

An initializer is called with an `InitDesc` (the parameter's name plus attributes) and the
NDArray to fill. A desc whose ``__init__`` attribute names another initializer (a Parameter's
own ``init``, e.g. ``'zeros'`` for biases) uses that one; otherwise the name's suffix picks
the rule: ``weight`` -> `_init_weight`, ``bias``/``beta`` -> zeros, ``gamma`` -> ones.

Draws use gluonlite's shared random generator, so ``gluonlite.random.seed(n)`` makes them
reproducible.
"""
import json

import numpy as np

__all__ = ["InitDesc", "Initializer", "register", "create", "Uniform", "Normal", "Xavier",
           "Zero", "One", "Constant", "Orthogonal", "LSTMBias"]

_REGISTRY = {}


def register(klass):
    """Class decorator registering an initializer under its lowercased class name.

    Example::

        @register
        class Halves(Initializer):
            def _init_weight(self, name, arr):
                arr[:] = 0.5
    """
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def _alias(*names):
    def deco(klass):
        for n in names:
            _REGISTRY[n] = klass
        return klass
    return deco


class InitDesc(str):
    """A parameter's name with attributes (``attrs['__init__']`` may name its initializer).

    Example: ``InitDesc('dense0_weight', {'__init__': 'zeros'})``.
    """

    def __new__(cls, name, attrs=None, global_init=None):
        obj = super().__new__(cls, name)
        obj.attrs = dict(attrs or {})
        obj.global_init = global_init
        return obj


def _rng():
    from .ops.random import generator
    return generator()


def _fill(arr, values):
    """Write numpy `values` into NDArray `arr` (cast to its dtype)."""
    arr[:] = np.asarray(values).astype(arr.dtype, copy=False)


class Initializer:
    """Base class: override `_init_weight` (and optionally `_init_bias`, ...).

    Args:
        **kwargs: the constructor arguments, kept for `dumps()`.
    """

    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def dumps(self):
        """The JSON form MXNet stores in a variable's ``__init__`` attribute:
        ``'["uniform", {"scale": 0.07}]'``."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __repr__(self):
        return f"{self.__class__.__name__}({self._kwargs})"

    def __eq__(self, other):
        # as MXNet: the same kind with the same arguments (parameter sharing compares them)
        if not isinstance(other, Initializer):
            return NotImplemented
        if type(self) is not type(other) or self._kwargs.keys() != other._kwargs.keys():
            return False
        return all(np.array_equal(np.asarray(v), np.asarray(other._kwargs[k]))
                   if isinstance(v, np.ndarray) or isinstance(other._kwargs[k], np.ndarray)
                   else v == other._kwargs[k] for k, v in self._kwargs.items())

    __hash__ = None  # equal initializers are interchangeable values (MXNet's are unhashable)

    def __call__(self, desc, arr):
        """Fill NDArray `arr` for the parameter described by `desc` (an InitDesc or a name).

        Raises:
            ValueError: the name matches no known pattern and no initializer is attached.
        """
        if not isinstance(desc, InitDesc):
            desc = InitDesc(str(desc))
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get("__init__", "")
        if init:
            create(init)._init_weight(desc, arr)
            return
        if desc.endswith("weight"):
            self._init_weight(desc, arr)
        elif desc.endswith("bias"):
            self._init_bias(desc, arr)
        elif desc.endswith("gamma"):
            self._init_gamma(desc, arr)
        elif desc.endswith("beta"):
            self._init_beta(desc, arr)
        elif desc.endswith("running_mean") or desc.endswith("moving_mean"):
            _fill(arr, 0.0)
        elif desc.endswith("running_var") or desc.endswith("moving_var"):
            _fill(arr, 1.0)
        else:
            self._init_default(desc, arr)

    def _init_weight(self, name, arr):
        raise NotImplementedError(f"{self.__class__.__name__} must implement _init_weight")

    def _init_bias(self, name, arr):
        _fill(arr, 0.0)

    def _init_gamma(self, name, arr):
        _fill(arr, 1.0)

    def _init_beta(self, name, arr):
        _fill(arr, 0.0)

    def _init_default(self, name, arr):
        raise ValueError(
            f"Unknown initialization pattern for {name!r}. Default initialization is limited "
            "to names ending in 'weight', 'bias', 'gamma' (1.0) and 'beta' (0.0); give the "
            "Parameter an init= to initialize it")


def create(init):
    """An Initializer from an instance, a registered name ('uniform', 'zeros', 'xavier'),
    or MXNet's JSON form ``'["normal", {"sigma": 0.1}]'``.

    Raises:
        ValueError: an unknown name (the known ones are listed).
    """
    if isinstance(init, Initializer):
        return init
    if isinstance(init, type) and issubclass(init, Initializer):
        return init()
    if not isinstance(init, str):
        raise TypeError(f"init: expected an Initializer or a name, got {type(init).__name__}")
    name, kwargs = init, {}
    if init.startswith("["):
        try:
            name, kwargs = json.loads(init)
        except (ValueError, TypeError):
            raise ValueError(f"init: cannot parse initializer JSON {init!r}") from None
    klass = _REGISTRY.get(name.lower())
    if klass is None:
        raise ValueError(f"init: unknown initializer {name!r}; known: "
                         f"{', '.join(sorted(_REGISTRY))}")
    return klass(**kwargs)


@register
@_alias("zeros")
class Zero(Initializer):
    """Fill with 0. Example: ``Dense(3, weight_initializer=init.Zero())``."""

    def _init_weight(self, name, arr):
        _fill(arr, 0.0)


@register
@_alias("ones")
class One(Initializer):
    """Fill with 1."""

    def _init_weight(self, name, arr):
        _fill(arr, 1.0)


@register
class Constant(Initializer):
    """Fill with `value` (a scalar or an array broadcastable to the parameter's shape)."""

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, name, arr):
        v = self.value.asnumpy() if hasattr(self.value, "asnumpy") else self.value
        _fill(arr, np.broadcast_to(np.asarray(v), arr.shape))


@register
class Uniform(Initializer):
    """Draw from U(-scale, scale) (MXNet's default initializer, scale=0.07)."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, name, arr):
        _fill(arr, _rng().uniform(-self.scale, self.scale, arr.shape))


@register
class Normal(Initializer):
    """Draw from N(0, sigma**2) (default sigma=0.01)."""

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, name, arr):
        _fill(arr, _rng().normal(0.0, self.sigma, arr.shape))


@register
class Xavier(Initializer):
    """Xavier/Glorot: scale = sqrt(magnitude / factor), factor from fan_in/fan_out.

    Args:
        rnd_type: 'uniform' (U(-scale, scale)) or 'gaussian' (N(0, scale**2)).
        factor_type: 'avg' ((fan_in + fan_out) / 2), 'in' or 'out'.
        magnitude: default 3.

    Raises:
        ValueError: on a parameter of fewer than 2 dimensions, or bad options.
    """

    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        if rnd_type not in ("uniform", "gaussian"):
            raise ValueError(f"Xavier: rnd_type must be 'uniform' or 'gaussian', got {rnd_type!r}")
        if factor_type not in ("avg", "in", "out"):
            raise ValueError(f"Xavier: factor_type must be 'avg', 'in' or 'out', got "
                             f"{factor_type!r}")
        self.rnd_type, self.factor_type, self.magnitude = rnd_type, factor_type, float(magnitude)

    def _init_weight(self, name, arr):
        shape = arr.shape
        if len(shape) < 2:
            raise ValueError(f"Xavier initializer cannot be applied to vector {name}: it needs "
                             f"at least 2 dimensions, got shape {shape}")
        hw = float(np.prod(shape[2:])) if len(shape) > 2 else 1.0
        fan_in, fan_out = shape[1] * hw, shape[0] * hw
        factor = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in, "out": fan_out}[self.factor_type]
        scale = np.sqrt(self.magnitude / factor)
        if self.rnd_type == "uniform":
            _fill(arr, _rng().uniform(-scale, scale, shape))
        else:
            _fill(arr, _rng().normal(0.0, scale, shape))


@register
class Orthogonal(Initializer):
    """A (scaled) orthogonal matrix from the SVD of a random one (Saxe et al.).

    Args:
        scale: multiplier (default 1.414).
        rand_type: 'uniform' or 'normal' draws for the random matrix.
    """

    def __init__(self, scale=1.414, rand_type="uniform"):
        super().__init__(scale=scale, rand_type=rand_type)
        if rand_type not in ("uniform", "normal"):
            raise ValueError(f"Orthogonal: rand_type must be 'uniform' or 'normal', got "
                             f"{rand_type!r}")
        self.scale, self.rand_type = scale, rand_type

    def _init_weight(self, name, arr):
        nout = arr.shape[0]
        nin = int(np.prod(arr.shape[1:]))
        if self.rand_type == "uniform":
            tmp = _rng().uniform(-1.0, 1.0, (nout, nin))
        else:
            tmp = _rng().normal(0.0, 1.0, (nout, nin))
        u, _, v = np.linalg.svd(tmp, full_matrices=False)
        res = u if u.shape == tmp.shape else v
        _fill(arr, self.scale * res.reshape(arr.shape))


@register
class LSTMBias(Initializer):
    """An LSTM bias: zeros except the forget gate's quarter, set to `forget_bias` (gates
    stacked as input, forget, candidate, output), so a fresh LSTM keeps its cell state.

    Use it as a bias parameter's own initializer (it fills whatever array it is given, by
    its ``_init_weight`` rule, as in MXNet).

    Args:
        forget_bias: the forget gate's bias (default 1.0).

    Raises:
        ValueError: an array whose first dimension is not a multiple of 4.

    Example: ``gluon.rnn.LSTMCell(100, i2h_bias_initializer=init.LSTMBias(2.0))`` gives
    ``i2h_bias[100:200] == 2`` and zeros elsewhere.
    """

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, arr):
        if arr.shape[0] % 4:
            raise ValueError(f"LSTMBias: {name} has shape {tuple(arr.shape)}; an LSTM bias "
                             "stacks 4 gates, so its first dimension must be a multiple of 4")
        values = np.zeros(arr.shape)
        n = arr.shape[0] // 4
        values[n:2 * n] = self.forget_bias
        _fill(arr, values)
