"""Initializers (`gluonlite.init`): how parameters get their first values, as in MXNet 1.x.

An initializer is called with an `InitDesc` (the parameter's name plus attributes) and the
NDArray to fill. A desc whose ``__init__`` attribute names another initializer (a Parameter's
own ``init``, e.g. ``'zeros'`` for biases) uses that one; otherwise the name's suffix picks
the rule: ``weight`` -> `_init_weight`, ``bias``/``beta`` -> zeros, ``gamma`` -> ones.

Draws are MXNet's own (its samplers on its streams, `gluonlite.ops.mxnet_samplers`): after
``mx.random.seed(n)`` a network starts from the weights MXNet 1.9.1 gives it.
"""
import json
import logging
import re

import numpy as np

from .ndarray import NDArray, load  # noqa: F401  (MXNet's module exports both)
from . import ndarray as nd
from .ops import mxnet_samplers
from .util import is_np_array as _is_np_array

__all__ = ["InitDesc", "Initializer", "register", "alias", "create", "Uniform", "Normal",
           "Xavier", "MSRAPrelu", "Bilinear", "Zero", "One", "Constant", "Orthogonal",
           "LSTMBias", "FusedRNN", "Load", "Mixed", "is_np_array"]

_REGISTRY = {}


def register(klass):
    """Class decorator registering an initializer under its lowercased class name.

    Args:
        klass: the `Initializer` subclass (a class); `create` then finds it by name.

    Returns:
        `klass` itself.

    Example::

        @mx.init.register
        class Halves(mx.init.Initializer):
            def _init_weight(self, name, arr):
                arr[:] = 0.5
        mx.init.create('halves')   # Halves({})
    """
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def _alias(*names):
    def deco(klass):
        for n in names:
            _REGISTRY[n] = klass
        return klass
    return deco


def alias(*aliases):
    """Class decorator registering an initializer under extra lowercase names as well.

    Example::

        @mx.init.alias('quarters')
        class Quarter(mx.init.Initializer):
            def _init_weight(self, name, arr):
                arr[:] = 0.25
        mx.init.create('quarters')   # Quarter({})
    """
    return _alias(*(a.lower() for a in aliases))


def is_np_array():
    """Whether NumPy array semantics is on (`mx.util.is_np_array`, which MXNet's module
    re-exports).

    Example::

        mx.initializer.is_np_array()   # False
        with mx.np_array(True):
            print(mx.initializer.is_np_array())   # True
    """
    return _is_np_array()


class InitDesc(str):
    """A parameter's name with attributes (``attrs['__init__']`` may name its initializer).

    Example::

        desc = mx.init.InitDesc('dense0_weight', {'__init__': 'zeros'})
        w = nd.ones((2, 2))
        mx.init.Uniform()(desc, w)   # the desc's own 'zeros' wins
        w.sum().asscalar()   # 0.0
    """

    def __new__(cls, name, attrs=None, global_init=None):
        obj = super().__new__(cls, name)
        obj.attrs = dict(attrs or {})
        obj.global_init = global_init
        return obj


# (kind, NumPy semantics on) -> MXNet's sampler an initializer calls
_SAMPLERS = {("uniform", False): mxnet_samplers.uniform,
             ("uniform", True): mxnet_samplers.np_uniform,
             ("normal", False): mxnet_samplers.normal,
             ("normal", True): mxnet_samplers.np_normal}


def _draw(kind, a, b, shape, dtype):
    """An initializer's uniform U[a, b) or normal N(a, b**2) draws as MXNet's make them: its
    `nd.random` operators (`mx.np.random`'s under ``npx.set_np()``), from MXNet's streams, so
    that a seeded program starts from MXNet's weights."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":  # integer parameters: drawn in float32, then cast
        dtype = np.dtype(np.float32)
    return _SAMPLERS[kind, _is_np_array()](np.float32(a), np.float32(b), tuple(shape), dtype)


def _fill(arr, values):
    """Write numpy `values` into NDArray `arr` (cast to its dtype)."""
    arr[:] = np.asarray(values).astype(arr.dtype, copy=False)


class Initializer:
    """Base class: override `_init_weight` (and optionally `_init_bias`, ...).

    Args:
        **kwargs: the constructor arguments, kept for `dumps()`.

    Example::

        class Twos(mx.init.Initializer):
            def _init_weight(self, name, arr):
                arr[:] = 2
        w = nd.zeros((2, 2))
        Twos()('fc_weight', w)
        w.asnumpy().tolist()   # [[2.0, 2.0], [2.0, 2.0]]
    """

    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def dumps(self):
        """The JSON form MXNet stores in a variable's ``__init__`` attribute:
        ``'["uniform", {"scale": 0.07}]'``.

        Example::

            mx.init.Uniform(0.1).dumps()   # '["uniform", {"scale": 0.1}]'
        """
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

    Args:
        init: an Initializer instance (returned as it is), an Initializer class
            (instantiated with its defaults), a registered name or the JSON form.

    Returns:
        Initializer: the initializer.

    Raises:
        TypeError: `init` neither an Initializer nor a str.
        ValueError: an unknown name (the known ones are listed).

    Example::

        type(mx.init.create('xavier')).__name__   # 'Xavier'
        mx.init.create('["normal", {"sigma": 0.1}]')   # Normal({'sigma': 0.1})
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
    """Fill with 0.

    Example::

        net = nn.Dense(3, in_units=2, weight_initializer=mx.init.Zero())
        net.initialize()
        net.weight.data().sum().asscalar()   # 0.0
    """

    def _init_weight(self, name, arr):
        _fill(arr, 0.0)


@register
@_alias("ones")
class One(Initializer):
    """Fill with 1.

    Example::

        w = nd.zeros((2, 3))
        mx.init.One()('fc_weight', w)
        w.sum().asscalar()   # 6.0
    """

    def _init_weight(self, name, arr):
        _fill(arr, 1.0)


@register
class Constant(Initializer):
    """Fill with `value` (a scalar or an array broadcastable to the parameter's shape).

    Example::

        net = nn.Dense(2, in_units=2, weight_initializer=mx.init.Constant(0.5))
        net.initialize()
        net.weight.data().asnumpy().tolist()   # [[0.5, 0.5], [0.5, 0.5]]
    """

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def dumps(self):
        """The JSON form; an array value is written as nested lists (and kept as the list
        afterwards, as MXNet does, so ``_kwargs`` serializes to the same string).

        Example::

            mx.init.Constant(np.array([1.0, 2.0])).dumps()   # '["constant", {"value": [1.0, 2.0]}]'
        """
        val = self._kwargs["value"]
        if hasattr(val, "asnumpy"):
            val = val.asnumpy()
        if isinstance(val, np.ndarray):
            self._kwargs["value"] = val.tolist()
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def _init_weight(self, name, arr):
        v = self.value.asnumpy() if hasattr(self.value, "asnumpy") else self.value
        _fill(arr, np.broadcast_to(np.asarray(v), arr.shape))


@register
class Uniform(Initializer):
    """Draw from U(-scale, scale) (MXNet's default initializer, scale=0.07).

    Args:
        scale (float): the bound of the interval (default 0.07).

    Example::

        w = nd.zeros((100,))
        mx.init.Uniform(0.1)('fc_weight', w)
        bool((w.abs() <= 0.1).min())   # True
    """

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, name, arr):
        _fill(arr, _draw("uniform", -self.scale, self.scale, arr.shape, arr.dtype))


@register
class Normal(Initializer):
    """Draw from N(0, sigma**2) (default sigma=0.01).

    Args:
        sigma (float): the standard deviation (default 0.01).

    Example::

        w = nd.zeros((1000,))
        mx.init.Normal(sigma=0.5)('fc_weight', w)
        abs(float(w.asnumpy().std()) - 0.5) < 0.1   # True
    """

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, name, arr):
        _fill(arr, _draw("normal", 0.0, self.sigma, arr.shape, arr.dtype))


@register
class Xavier(Initializer):
    """Xavier/Glorot: scale = sqrt(magnitude / factor), factor from fan_in/fan_out.

    Args:
        rnd_type: 'uniform' (U(-scale, scale)) or 'gaussian' (N(0, scale**2)).
        factor_type: 'avg' ((fan_in + fan_out) / 2), 'in' or 'out'.
        magnitude: default 3.

    Raises:
        ValueError: on a parameter of fewer than 2 dimensions, or bad options.

    Example::

        net = nn.Dense(4, in_units=8)
        net.initialize(mx.init.Xavier(magnitude=3))   # U(-sqrt(3 / 6), sqrt(3 / 6))
        bool(net.weight.data().abs().max() <= np.sqrt(0.5))   # True
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
            _fill(arr, _draw("uniform", -scale, scale, shape, arr.dtype))
        else:
            _fill(arr, _draw("normal", 0.0, scale, shape, arr.dtype))


@register
class Orthogonal(Initializer):
    """A (scaled) orthogonal matrix from the SVD of a random one (Saxe et al.).

    Args:
        scale: multiplier (default 1.414).
        rand_type: 'uniform' or 'normal' draws for the random matrix.

    Example::

        w = nd.zeros((3, 3))
        mx.init.Orthogonal(scale=1.0)('fc_weight', w)
        q = w.asnumpy()
        np.allclose(q @ q.T, np.eye(3), atol=1e-5)   # True
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
            # MXNet draws the matrix with nd.random in float32, whatever the mode
            tmp = mxnet_samplers.uniform(np.float32(-1), np.float32(1), (nout, nin), np.float32)
        else:
            tmp = mxnet_samplers.normal(np.float32(0), np.float32(1), (nout, nin), np.float32)
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

    Example::

        cell = gluon.rnn.LSTMCell(4, input_size=3, i2h_bias_initializer=mx.init.LSTMBias(2.0))
        cell.initialize()
        cell.i2h_bias.data().asnumpy().tolist()[:8]   # [0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 2.0, 2.0]
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


@register
class MSRAPrelu(Xavier):
    """He/MSRA initialization for PReLU nets: Gaussian Xavier with magnitude
    ``2 / (1 + slope**2)``.

    Args:
        factor_type: 'avg', 'in' or 'out' (default 'avg').
        slope: the PReLU slope at initialization (default 0.25).

    Example::

        net = nn.Dense(4, in_units=8)
        net.initialize(mx.init.MSRAPrelu(slope=0.25))   # N(0, scale**2) draws
        net.weight.data().shape   # (4, 8)
    """

    def __init__(self, factor_type="avg", slope=0.25):
        super().__init__("gaussian", factor_type, 2. / (1 + slope ** 2))
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Bilinear(Initializer):
    """Bilinear upsampling weights for a deconvolution: every (kh, kw) kernel is the outer
    product of ``1 - |x / f - c|`` with ``f = ceil(kw / 2)``, ``c = (2f - 1 - f % 2) / (2f)``.

    Example::

        w = nd.zeros((1, 1, 4, 4))
        mx.init.Bilinear()('up_weight', w)
        w[0, 0, 0].asnumpy().tolist()   # [0.0625, 0.1875, 0.1875, 0.0625]
    """

    def __init__(self):
        super().__init__()

    def _init_weight(self, name, arr):
        shape = arr.shape
        if len(shape) < 2:
            raise ValueError(f"Bilinear: {name} needs at least 2 dimensions, got {shape}")
        h, w = shape[-2], shape[-1]
        f = np.ceil(w / 2.)
        c = (2 * f - 1 - f % 2) / (2. * f)
        x = np.arange(w)
        y = np.arange(h)
        kernel = np.outer(1 - np.abs(y / f - c), 1 - np.abs(x / f - c))
        _fill(arr, np.broadcast_to(kernel, shape))


_GATES = {"rnn_relu": [""], "rnn_tanh": [""], "lstm": ["_i", "_f", "_c", "_o"],
          "gru": ["_r", "_z", "_o"]}


@register
class FusedRNN(Initializer):
    """Initializes the packed parameter vector of a fused RNN (MXNet's layout: every
    layer's and direction's i2h and h2h weights, then their biases), piece by piece: weights
    by `init` (the global initializer when None), biases zero except an LSTM's forget-gate
    biases, set to `forget_bias`.

    Args:
        init: an Initializer (or its JSON) for the weights.
        num_hidden (int): the hidden state size of each layer.
        num_layers (int): the number of stacked layers.
        mode (str): 'rnn_relu', 'rnn_tanh', 'lstm' or 'gru': fixes the gates per layer.
        bidirectional (bool): the packed vector holds both directions (default False).
        forget_bias (float): the LSTM forget gates' bias (default 1.0).

    Raises:
        ValueError: an unknown mode, or an array whose size fits no input size.

    Example::

        init = mx.init.FusedRNN(mx.init.One(), num_hidden=2, num_layers=1, mode='lstm')
        w = nd.zeros((56,))   # 1 lstm layer, 3 inputs, 2 hidden: 4*2*(3+2) weights, 2*4*2 biases
        init('rnn_weight', w)
        w.sum().asscalar()   # 44.0: 40 weights of 1, the 2 i2h and 2 h2h forget biases of 1
    """

    def __init__(self, init, num_hidden, num_layers, mode, bidirectional=False,
                 forget_bias=1.0):
        if isinstance(init, str):
            init = create(init)
        if mode not in _GATES:
            raise ValueError(f"FusedRNN: mode must be one of {sorted(_GATES)}, got {mode!r}")
        super().__init__(init=init.dumps() if init is not None else None,
                         num_hidden=num_hidden, num_layers=num_layers, mode=mode,
                         bidirectional=bidirectional, forget_bias=forget_bias)
        self._init = init
        self._num_hidden, self._num_layers = num_hidden, num_layers
        self._mode, self._bidirectional = mode, bidirectional
        self._forget_bias = forget_bias

    def _layout(self, size):
        """[(name, shape)] of the packed vector's pieces, in order."""
        gates = _GATES[self._mode]
        g, h, layers = len(gates), self._num_hidden, self._num_layers
        dirs = ["l", "r"] if self._bidirectional else ["l"]
        d = len(dirs)
        rest = (layers - 1) * d * (g * h * h * d + g * h * h) + layers * d * 2 * g * h
        first = size - rest - d * g * h * h
        if first <= 0 or first % (d * g * h):
            raise ValueError(f"FusedRNN: a parameter vector of size {size} does not fit "
                             f"{layers} {self._mode} layer(s) of {h} units"
                             f"{' (bidirectional)' if self._bidirectional else ''}")
        n_in = first // (d * g * h)
        pieces = []
        for layer in range(layers):
            ins = n_in if layer == 0 else h * d
            for p in dirs:
                for gate in gates:
                    pieces.append((f"{p}{layer}_i2h{gate}_weight", (h, ins)))
                for gate in gates:
                    pieces.append((f"{p}{layer}_h2h{gate}_weight", (h, h)))
        for layer in range(layers):
            for p in dirs:
                for kind in ("i2h", "h2h"):
                    for gate in gates:
                        pieces.append((f"{p}{layer}_{kind}{gate}_bias", (h,)))
        return pieces

    def _init_weight(self, desc, arr):
        flat = np.empty(arr.size, dtype=np.float64)
        pos = 0
        glob = getattr(desc, "global_init", None)
        for name, shape in self._layout(arr.size):
            n = int(np.prod(shape))
            piece = nd.zeros(shape, dtype=arr.dtype)
            if self._mode == "lstm" and name.endswith("_f_bias"):
                piece[:] = self._forget_bias
            elif self._init is None:
                if glob is None:
                    raise ValueError(f"FusedRNN: {desc} has no init and no global "
                                     "initializer to fall back to")
                glob(InitDesc(name, global_init=glob), piece)
            else:
                self._init(InitDesc(name, global_init=glob), piece)
            flat[pos:pos + n] = piece.asnumpy().reshape(-1)
            pos += n
        _fill(arr, flat.reshape(arr.shape))


class Load:
    """Initializes parameters from saved arrays (a file name or a dict name -> NDArray;
    ``arg:``/``aux:`` prefixes are dropped), falling back to `default_init`.

    Args:
        param (str or dict): a ``.params`` file name, or a dict name -> NDArray.
        default_init (Initializer): for the names not loaded (default None: such a name
            raises).
        verbose (bool): log how each parameter was initialized (default False).

    Raises:
        TypeError: `param` neither a file name nor a dict.
        ValueError: a loaded array whose shape differs from the parameter's, or a name
            not found with no default_init.

    Example::

        saved = {'arg:fc_weight': nd.ones((2, 2))}
        init = mx.init.Load(saved, default_init=mx.init.Zero())
        w, b = nd.zeros((2, 2)), nd.ones((2,))
        init('fc_weight', w); init('fc_bias', b)
        w.sum().asscalar(), b.sum().asscalar()   # (4.0, 0.0)
    """

    def __init__(self, param, default_init=None, verbose=False):
        if isinstance(param, str):
            param = load(param)
        if not isinstance(param, dict):
            raise TypeError(f"init.Load: param must be a file name or a dict of arrays, got "
                            f"{type(param).__name__}")
        self.param = {(k[4:] if k.startswith(("arg:", "aux:")) else k): v
                      for k, v in param.items()}
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr):
        """Fill `arr` with the array saved under `name` (or by default_init)."""
        if name in self.param:
            src = self.param[name]
            if tuple(arr.shape) != tuple(src.shape):
                raise ValueError(f"init.Load: parameter {name} cannot be initialized from "
                                 f"loading: shape mismatch, target {tuple(arr.shape)} vs "
                                 f"loaded {tuple(src.shape)}")
            arr[:] = src
            if self.verbose:
                logging.info("Initialized %s by loading", name)
        else:
            if self.default_init is None:
                raise ValueError(f"init.Load: cannot initialize {name}: not found in the "
                                 "loaded parameters and no default_init is given")
            self.default_init(name, arr)
            if self.verbose:
                logging.info("Initialized %s by default", name)


class Mixed:
    """Initializes each parameter with the first initializer whose regular expression
    matches its name.

    Args:
        patterns (list of str): regular expressions, tried in order with ``re.match``
            against the parameter's name.
        initializers (list of Initializer): one per pattern.

    Raises:
        ValueError: different numbers of patterns and initializers; a name no pattern
            matches.

    Example::

        init = mx.init.Mixed(['bias', '.*'], [mx.init.Zero(), mx.init.One()])
        w, b = nd.zeros((2, 2)), nd.ones((2,))
        init('bias', b); init('fc_weight', w)
        w.sum().asscalar(), b.sum().asscalar()   # (4.0, 0.0)
    """

    def __init__(self, patterns, initializers):
        if len(patterns) != len(initializers):
            raise ValueError(f"init.Mixed: {len(patterns)} patterns but {len(initializers)} "
                             "initializers; give one initializer per pattern")
        self.map = list(zip([re.compile(p) for p in patterns], initializers))

    def __call__(self, name, arr):
        """Fill `arr` with the first matching initializer."""
        for prog, init in self.map:
            if prog.match(name):
                init(name, arr)
                return
        raise ValueError(f"init.Mixed: parameter name {name} did not match any pattern; add "
                         "a '.*' pattern at the end with a default initializer")
