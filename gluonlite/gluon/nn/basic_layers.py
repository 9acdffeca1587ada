"""Basic layers and containers, with MXNet 1.x Gluon's names, defaults and node names."""
from ..block import Block, HybridBlock
from ... import ndarray as nd
from .activations import Activation

__all__ = ["Sequential", "HybridSequential", "Dense", "Activation", "Dropout", "Embedding",
           "Flatten", "BatchNorm", "LayerNorm", "Lambda", "HybridLambda"]


def _run_in_order(blocks, x, args):
    """Feed `x` (and extra `args`) through `blocks`; a block returning a tuple passes its
    first element on as the data and the rest as extra arguments of the next block."""
    for block in blocks:
        x = block(x, *args)
        args = []
        if isinstance(x, (tuple, list)):
            args, x = x[1:], x[0]
    if args:
        x = (x, *args)
    return x


class Sequential(Block):
    """Run children in order: each child's output is the next child's input (a child that
    returns a tuple passes its first element on as the data, the rest as extra arguments).

    Args:
        prefix: the prefix of the block's name and parameter names (default None: made from
            the class name, e.g. ``sequential0_``).
        params: a ParameterDict whose parameters the block shares (default None: its own).

    Inputs:
        - **x**: the first child's input; further positional arguments go to the first child
          too.

    Outputs:
        - **out**: the last child's output.

    Example::

        net = nn.Sequential()
        net.add(nn.Dense(4, activation='relu'), nn.Dense(2))
        net.initialize()
        net(nd.ones((3, 5))).shape   # (3, 2)
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def add(self, *blocks):
        """Append blocks.

        Example::

            net = nn.Sequential()
            net.add(nn.Dense(4), nn.Dense(2))   # several blocks at once
            len(net)   # 2
        """
        for b in blocks:
            self.register_child(b)

    def forward(self, x, *args):
        return _run_in_order(self._children.values(), x, args)

    def hybridize(self, active=True, **kwargs):
        """Hybridize the HybridBlock children (a Sequential itself stays imperative); warns
        when every child is a HybridBlock, since a HybridSequential would run as one graph.

        Args:
            active: True to hybridize the children, False to return them to imperative
                execution.
            **kwargs: passed on to each child's ``hybridize`` (``static_alloc``,
                ``static_shape``, ...).

        Example::

            net = nn.Sequential(); net.add(nn.Dense(4), nn.Lambda(lambda x: x * 2))
            net.initialize(); net.hybridize()   # Dense runs as a graph, the Lambda imperatively
            net(nd.ones((1, 3))).shape   # (1, 4)
        """
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            import warnings
            warnings.warn(f"All children of this Sequential layer '{self.prefix}' are "
                          "HybridBlocks. Consider using HybridSequential for the best "
                          "performance.", stacklevel=2)
        super().hybridize(active, **kwargs)

    def __getitem__(self, key):
        children = list(self._children.values())
        if isinstance(key, slice):
            net = self.__class__(prefix=self._prefix)
            with net.name_scope():
                net.add(*children[key])
            return net
        return children[key]

    def __len__(self):
        return len(self._children)


class HybridSequential(HybridBlock):
    """Run HybridBlock children in order; hybridizable as a whole.

    Args:
        prefix: the prefix of the block's name and parameter names (default None: made from
            the class name, e.g. ``hybridsequential0_``).
        params: a ParameterDict whose parameters the block shares (default None: its own).

    Inputs:
        - **x**: the first child's input; further positional arguments go to the first child
          too.

    Outputs:
        - **out**: the last child's output.

    Example::

        net = nn.HybridSequential()
        net.add(nn.Dense(4, activation='relu'), nn.Dense(2))
        net.initialize(); net.hybridize()
        net(nd.ones((3, 5))).shape   # (3, 2)
    """

    _np_passthrough = True  # children get what was given (mx.np arrays in NumPy mode)

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    add = Sequential.add  # HybridBlock.register_child accepts HybridBlocks only

    def hybrid_forward(self, F, x, *args):
        return _run_in_order(self._children.values(), x, args)

    __getitem__ = Sequential.__getitem__
    __len__ = Sequential.__len__


class Dense(HybridBlock):
    """A fully connected layer: ``out = activation(dot(x, weight.T) + bias)``.

    Args:
        units: output size.
        activation: an activation name ('relu', 'tanh', ...) or None.
        use_bias: whether to add a bias.
        flatten: flatten inputs to 2-D first (else apply to the last axis).
        dtype: the data type of the weight and bias (default 'float32').
        weight_initializer: default the global initializer (Uniform(0.07)).
        bias_initializer: default 'zeros'.
        in_units: input size (0: inferred on the first call).

    Shape: (N, in_units) -> (N, units) (flatten=True: (N, ...) -> (N, units)).

    Inputs:
        - **x**: the input array, (N, in_units) or (N, ...) when flatten.
        - **weight**, **bias**: the layer's parameters, passed in by ``forward`` (`bias` is
          None without use_bias).

    Outputs:
        - **out**: (N, units), or (..., units) when not flatten.

    Example::

        layer = nn.Dense(16, activation='relu'); layer.initialize()
        layer(nd.ones((2, 4))).shape   # (2, 16)
        layer.weight.shape   # (16, 4)
    """

    def __init__(self, units, activation=None, use_bias=True, flatten=True, dtype="float32",
                 weight_initializer=None, bias_initializer="zeros", in_units=0, **kwargs):
        super().__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get("weight", shape=(units, in_units),
                                          init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get("bias", shape=(units,), init=bias_initializer,
                                            dtype=dtype, allow_deferred_init=True)
            else:
                self.bias = None
            if activation is not None:
                self.act = Activation(activation, prefix=activation + "_")
            else:
                self.act = None

    def hybrid_forward(self, F, x, weight, bias=None):
        if bias is None:
            act = F.FullyConnected(x, weight, no_bias=True, num_hidden=self._units,
                                   flatten=self._flatten, name="fwd")
        else:
            act = F.FullyConnected(x, weight, bias, num_hidden=self._units,
                                   flatten=self._flatten, name="fwd")
        if self.act is not None:
            act = self.act(act)
        return act

    def __repr__(self):
        shape = self.weight.shape
        act = self.act._act_type if self.act is not None else "linear"
        return f"Dense({shape[1] if shape[1] else None} -> {shape[0]}, {act})"


class Dropout(HybridBlock):
    """Dropout: in training zero entries with probability `rate`, scale the rest by
    1/(1-rate); identity in prediction.

    Args:
        rate: the drop probability.
        axes: axes along which the mask is shared.

    Inputs:
        - **x**: the input array, any shape.

    Outputs:
        - **out**: an array of the same shape.

    Example::

        drop = nn.Dropout(0.5)
        x = nd.ones((2, 4))
        drop(x).asnumpy().sum()   # 8.0: identity outside training
        with autograd.record():
            y = drop(x)   # about half the entries 0, the rest 2
    """

    def __init__(self, rate, axes=(), **kwargs):
        super().__init__(**kwargs)
        self._rate = rate
        self._axes = tuple(axes)

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes, name="fwd", cudnn_off=False)
        return F.identity(x)

    def __repr__(self):
        return f"Dropout(p = {self._rate}, axes={self._axes})"


class Embedding(HybridBlock):
    """Map integer indices to rows of a (input_dim, output_dim) weight.

    Args:
        input_dim: the number of rows (the vocabulary size: indices run 0 .. input_dim-1).
        output_dim: the length of each row (the embedding size).
        dtype: the data type of the weight (default 'float32').
        weight_initializer: default None: the global initializer.
        sparse_grad: make the weight's gradient row_sparse (default False).

    Shape: (d0, ..., dk) -> (d0, ..., dk, output_dim).

    Inputs:
        - **x**: the indices, any shape (float or integer values).
        - **weight**: the (input_dim, output_dim) table, passed in by ``forward``.

    Outputs:
        - **out**: (d0, ..., dk, output_dim).

    With ``sparse_grad=True`` the weight's gradient is row_sparse: it holds only the rows the
    indices read (imperatively it is never made dense), and optimizers with lazy updates
    (the default of SGD and Adam) change only those rows.

    Example::

        emb = nn.Embedding(10, 3); emb.initialize()
        emb(nd.array([[1, 2], [3, 4]])).shape   # (2, 2, 3)
    """

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None,
                 sparse_grad=False, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype,
                        "sparse_grad": sparse_grad}
        with self.name_scope():
            self.weight = self.params.get("weight", shape=(input_dim, output_dim),
                                          init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True,
                                          grad_stype="row_sparse" if sparse_grad else "default")

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, name="fwd", **self._kwargs)

    def __repr__(self):
        return f"Embedding({self._kwargs['input_dim']} -> {self._kwargs['output_dim']}, " \
               f"{self._kwargs['dtype']})"


class Flatten(HybridBlock):
    """Reshape (N, d1, d2, ...) to (N, d1 * d2 * ...).

    Args:
        prefix: the prefix of the block's name (default None: ``flatten0_`` style).
        params: a ParameterDict to share (the block has no parameters of its own).

    Inputs:
        - **x**: an array of shape (N, d1, d2, ...).

    Outputs:
        - **out**: (N, d1 * d2 * ...).

    Example::

        nn.Flatten()(nd.ones((2, 3, 4))).shape   # (2, 12)
    """

    def hybrid_forward(self, F, x):
        return F.Flatten(x)


def _scale_shift_params(block, size, center, scale, beta_initializer, gamma_initializer):
    """Make `block`'s ``gamma`` and ``beta`` of shape ``(size,)`` (0: inferred), each
    learned only when `scale` / `center` asks for it; returns ``(gamma, beta)``."""
    gamma = block.params.get("gamma", grad_req="write" if scale else "null", shape=(size,),
                             init=gamma_initializer, allow_deferred_init=True)
    beta = block.params.get("beta", grad_req="write" if center else "null", shape=(size,),
                            init=beta_initializer, allow_deferred_init=True)
    return gamma, beta


class BatchNorm(HybridBlock):
    """Batch normalization over every axis but `axis`, with learned scale and shift.

    In training the batch statistics normalize, and the running statistics become
    ``momentum * old + (1 - momentum) * batch`` (biased variance); in prediction the running
    statistics are used.

    Args:
        axis: the channel axis (default 1).
        momentum: default 0.9.
        epsilon: default 1e-5.
        center: learn the shift beta (default True; False keeps beta at its initial value).
        scale: learn the scale gamma (default True; False fixes gamma at 1).
        use_global_stats: always normalize with the running statistics.
        beta_initializer: default 'zeros'.
        gamma_initializer: default 'ones'.
        running_mean_initializer: default 'zeros'.
        running_variance_initializer: default 'ones'.
        in_channels: number of channels (0: inferred).

    Inputs:
        - **x**: the input array, with the channels on `axis`.
        - **gamma**, **beta**, **running_mean**, **running_var**: the layer's parameters,
          each of shape (in_channels,), passed in by ``forward``.

    Outputs:
        - **out**: an array of the same shape as `x`.

    Example::

        bn = nn.BatchNorm(); bn.initialize()
        bn(nd.ones((2, 3, 4, 4))).shape   # (2, 3, 4, 4)
        bn.running_mean.shape   # (3,)
    """

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer="zeros", gamma_initializer="ones",
                 running_mean_initializer="zeros", running_variance_initializer="ones",
                 in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"axis": axis, "eps": epsilon, "momentum": momentum,
                        "fix_gamma": not scale, "use_global_stats": use_global_stats}
        self.in_channels = in_channels
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                     shape=(in_channels,), init=gamma_initializer,
                                     allow_deferred_init=True, differentiable=scale)
        self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                    shape=(in_channels,), init=beta_initializer,
                                    allow_deferred_init=True, differentiable=center)
        self.running_mean = self.params.get("running_mean", grad_req="null",
                                            shape=(in_channels,),
                                            init=running_mean_initializer,
                                            allow_deferred_init=True, differentiable=False)
        self.running_var = self.params.get("running_var", grad_req="null",
                                           shape=(in_channels,),
                                           init=running_variance_initializer,
                                           allow_deferred_init=True, differentiable=False)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.BatchNorm(x, gamma, beta, running_mean, running_var, name="fwd", **self._kwargs)

    def __repr__(self):
        return f"{type(self).__name__}(" \
               f"{', '.join(f'{k}={v!r}' for k, v in self._kwargs.items())}, " \
               f"in_channels={self.gamma.shape[0] or None})"


class LayerNorm(HybridBlock):
    """Layer normalization along `axis` (default -1) with learned scale and shift.

    Args:
        axis: default -1.
        epsilon: default 1e-5.
        center: learn the shift beta (default True).
        scale: learn the scale gamma (default True).
        beta_initializer: default 'zeros'.
        gamma_initializer: default 'ones'.
        in_channels: size of `axis` (0: inferred).

    Inputs:
        - **data**: the input array.
        - **gamma**, **beta**: the layer's parameters, of shape (in_channels,), passed in by
          ``forward``.

    Outputs:
        - **out**: an array of the same shape as `data`.

    Example::

        ln = nn.LayerNorm(); ln.initialize()
        ln(nd.array([[1, 2, 3]])).asnumpy().round(3)   # [[-1.225  0.     1.225]]
    """

    def __init__(self, axis=-1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"eps": epsilon, "axis": axis}
        self.gamma, self.beta = _scale_shift_params(self, in_channels, center, scale,
                                                    beta_initializer, gamma_initializer)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.LayerNorm(data, gamma=gamma, beta=beta, axis=self._kwargs["axis"],
                           eps=self._kwargs["eps"])


class Lambda(Block):
    """Wrap a function (or the name of an `nd` function) as a Block.

    Args:
        function: a callable applied to the block's inputs, or the name of an `nd` function.
        prefix: the prefix of the block's name (default None: ``lambda0_`` style).

    Inputs:
        - **args**: the positional arguments passed on to `function`.

    Outputs:
        - **out**: what `function` returns.

    Raises:
        ValueError: an unknown function name; TypeError: not callable.

    Example::

        double = nn.Lambda(lambda x: x * 2)
        double(nd.array([1, 2])).asnumpy()   # [2. 4.]
        nn.Lambda('tanh')(nd.zeros(2)).asnumpy()   # [0. 0.]
    """

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            if not hasattr(nd, function):
                raise ValueError(f"Lambda: function name {function!r} is not found in nd")
            self._func_impl = getattr(nd, function)
        elif callable(function):
            self._func_impl = function
        else:
            raise TypeError(f"Lambda: unrecognized function {function!r}; expected a callable "
                            "or the name of an nd function")

    def forward(self, *args):
        return self._func_impl(*args)

    def __repr__(self):
        return f"Lambda({getattr(self._func_impl, '__name__', self._func_impl)})"


class HybridLambda(HybridBlock):
    """Wrap ``function(F, x, *args)`` (or the name of an operator) as a HybridBlock.

    Args:
        function: a callable ``function(F, x, *args)``, or the name of an `nd` operator
            (applied as ``F.<name>(x, *args)``).
        prefix: the prefix of the block's name (default None: ``hybridlambda0_`` style).

    Inputs:
        - **x**: the first input; further positional arguments are passed on too.

    Outputs:
        - **out**: what `function` returns.

    Raises:
        ValueError: a name that is not an `nd` function.
        TypeError: `function` neither callable nor a string.

    Example::

        relu = nn.HybridLambda(lambda F, x: F.relu(x))
        relu(nd.array([-1, 2])).asnumpy()   # [0. 2.]
        nn.HybridLambda('tanh')(nd.zeros(2)).asnumpy()   # [0. 0.]
    """

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            if not hasattr(nd, function):
                raise ValueError(f"HybridLambda: function name {function!r} is not found")
            self._func = lambda F, *args: _named_function(F, function, args)(*args)
            self._func_name = function
        elif callable(function):
            self._func = function
            self._func_name = getattr(function, "__name__", "<lambda>")
        else:
            raise TypeError(f"HybridLambda: unrecognized function {function!r}")

    _np_passthrough = True  # a user's function sees the arrays as given

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)

    def __repr__(self):
        return f"HybridLambda({self._func_name})"


def _named_function(F, name, args):
    """F's function `name`; for `mx.np` arrays (numpy symbols) the NumPy dialect's one
    (``F.np.<name>``, else ``F.npx.<name>``), as MXNet resolves it in NumPy mode."""
    if any(getattr(a, "_np_array", False) or getattr(type(a), "num_outputs", None) is not None
           for a in args):
        for ns in (F.np, F.npx):
            try:
                return getattr(ns, name)
            except AttributeError:
                continue
    return getattr(F, name)
