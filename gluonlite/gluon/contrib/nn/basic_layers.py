"""MXNet 1.x's `gluon.contrib.nn` layers."""
from ...block import Block, HybridBlock
from ...nn.basic_layers import BatchNorm, HybridSequential, Sequential
from .... import ndarray as nd

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "SparseEmbedding", "SyncBatchNorm",
           "PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D"]


class Concurrent(Sequential):
    """Run every child on the same input and concatenate their outputs along `axis`.

    Args:
        axis: the concatenation axis (default -1).
        prefix: the prefix of the block's name and its children's (default None: ``concurrent0_``
            style).
        params: a ParameterDict whose parameters the block shares (default None: its own).

    Inputs:
        - **x**: the input every child receives.

    Outputs:
        - **out**: the children's outputs concatenated along `axis`.

    Example::

        from gluonlite.gluon.contrib.nn import Concurrent
        net = Concurrent(axis=1)
        net.add(nn.Dense(3), nn.Dense(4)); net.initialize()
        net(nd.ones((2, 5))).shape   # (2, 7)
    """

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        return nd.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class HybridConcurrent(HybridSequential):
    """`Concurrent` for HybridBlock children; hybridizable as a whole.

    Args:
        axis: the concatenation axis (default -1).
        prefix: the prefix of the block's name and its children's (default None:
            ``hybridconcurrent0_`` style).
        params: a ParameterDict whose parameters the block shares (default None: its own).

    Inputs:
        - **x**: the input every child receives.

    Outputs:
        - **out**: the children's outputs concatenated along `axis`.

    Example::

        from gluonlite.gluon.contrib.nn import HybridConcurrent
        net = HybridConcurrent(axis=1)
        net.add(nn.Dense(3), nn.Dense(4)); net.initialize(); net.hybridize()
        net(nd.ones((2, 5))).shape   # (2, 7)
    """

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    _np_passthrough = True  # children get what was given (mx.np arrays in NumPy mode)

    def hybrid_forward(self, F, x):
        outs = [block(x) for block in self._children.values()]
        if any(getattr(o, "_np_array", False) or getattr(type(o), "num_outputs", None)
               is not None for o in outs):
            return F.np.concatenate(outs, axis=self.axis)
        return F.concat(*outs, dim=self.axis)


class Identity(HybridBlock):
    """Return the input unchanged (a placeholder branch in a Concurrent).

    Args:
        prefix: the prefix of the block's name and its children's (default None: ``identity0_``
            style).
        params: a ParameterDict whose parameters the block shares (default None: its own).

    Inputs:
        - **x**: any array.

    Outputs:
        - **out**: `x` itself.

    Example::

        from gluonlite.gluon.contrib.nn import HybridConcurrent, Identity
        net = HybridConcurrent(axis=1); net.add(nn.Dense(3), Identity()); net.initialize()
        net(nd.ones((2, 5))).shape   # (2, 8): the Dense output, then the input itself
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x):
        return x


class SparseEmbedding(Block):
    """An embedding whose weight is row_sparse and whose gradient holds only the rows a batch
    used: the weight lives whole in the Trainer's kvstore and each forward pulls the rows its
    indices name (`Parameter.row_sparse_data`), so memory and update time follow the batch,
    not the vocabulary. A `Block` (not hybridizable), as in MXNet; create a `gluon.Trainer`
    with its parameters before the first forward.

    Args:
        input_dim: the vocabulary size (rows of the weight).
        output_dim: the embedding size (columns of the weight).
        dtype: the data type of the weight (default 'float32').
        weight_initializer: the weight's initializer (default None: the global one).
        **kwargs: prefix, params, as Block's.

    Shape: (d0, ..., dk) -> (d0, ..., dk, output_dim).

    Example::

        emb = gluon.contrib.nn.SparseEmbedding(1000, 8)
        emb.initialize()
        trainer = gluon.Trainer(emb.collect_params(), 'sgd', {'learning_rate': 0.1})
        with autograd.record():
            y = emb(nd.array([3, 17]))
        y.backward(); trainer.step(1)     # rows 3 and 17 change
    """

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None,
                 **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype,
                        "sparse_grad": True}
        self.weight = self.params.get("weight", shape=(input_dim, output_dim),
                                      init=weight_initializer, dtype=dtype,
                                      grad_stype="row_sparse", stype="row_sparse")

    def forward(self, x):
        """The rows of the weight picked by the integer indices `x`.

        Args:
            x: an array of indices, shape (d0, ..., dk).

        Returns:
            an array of shape (d0, ..., dk, output_dim).

        Example::

            emb = gluon.contrib.nn.SparseEmbedding(100, 4); emb.initialize()
            trainer = gluon.Trainer(emb.collect_params(), 'sgd')   # needed before the first forward
            emb(nd.array([[1, 2, 3]])).shape   # (1, 3, 4)
        """
        weight = self.weight.row_sparse_data(x)
        return nd.Embedding(x, weight, name="fwd", **self._kwargs)

    def __repr__(self):
        return (f"{type(self).__name__}({self._kwargs['input_dim']} -> "
                f"{self._kwargs['output_dim']}, {self._kwargs['dtype']})")


class SyncBatchNorm(BatchNorm):
    """Batch normalization synchronized across devices. gluonlite runs on one process, where
    it is BatchNorm (axis 1) over the local batch.

    Args:
        in_channels: number of channels (0: inferred).
        num_devices: accepted for MXNet's signature; one process has one batch.
        momentum: the running statistics' momentum (default 0.9).
        epsilon: added to the variance (default 1e-5).
        center: learn the shift beta (default True).
        scale: learn the scale gamma (default True; False fixes gamma at 1).
        use_global_stats: always normalize with the running statistics (default False).
        beta_initializer: default 'zeros'.
        gamma_initializer: default 'ones'.
        running_mean_initializer: default 'zeros'.
        running_variance_initializer: default 'ones'.
        **kwargs: prefix, params, as HybridBlock's.

    Inputs:
        - **x**: (N, C, ...) with the channels on axis 1.

    Outputs:
        - **out**: the normalized array, the same shape.

    Example::

        bn = gluon.contrib.nn.SyncBatchNorm(num_devices=1); bn.initialize()
        bn(nd.ones((2, 3, 4, 4))).shape   # (2, 3, 4, 4)
    """

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5,
                 center=True, scale=True, use_global_stats=False, beta_initializer="zeros",
                 gamma_initializer="ones", running_mean_initializer="zeros",
                 running_variance_initializer="ones", **kwargs):
        super().__init__(axis=1, momentum=momentum, epsilon=epsilon, center=center,
                         scale=scale, use_global_stats=use_global_stats,
                         beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
                         running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer,
                         in_channels=in_channels, **kwargs)
        self.num_devices = num_devices or 1

    def __repr__(self):
        kw = {k: self._kwargs[k] for k in ("eps", "momentum", "fix_gamma", "use_global_stats")}
        kw.update(ndev=self.num_devices, key=self.prefix)
        shape = self.gamma.shape[0]
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in kw.items())}, " \
               f"in_channels={shape or None})"


class _PixelShuffle(HybridBlock):
    _ndim = 2

    def __init__(self, factor):
        super().__init__()
        n = self._ndim
        if isinstance(factor, int):
            factor = (factor,) * n
        factor = tuple(int(f) for f in factor)
        if len(factor) != n or any(f <= 0 for f in factor):
            raise ValueError(f"{type(self).__name__}: factor must be a positive int or {n} "
                             f"positive ints, got {factor!r}")
        self._factors = factor
        self._factor = factor[0] if n == 1 else factor

    def hybrid_forward(self, F, x):
        n, f = self._ndim, self._factors
        # (N, C*f1*..*fn, *S) -> (N, C, f1, .., fn, *S) -> (N, C, S1, f1, .., Sn, fn) -> merge
        x = F.reshape(x, shape=(0, -4, -1, _prod(f)) + (0,) * n)
        for i in range(n - 1):  # -4 splits one axis in two: peel the factors off one by one
            x = F.reshape(x, shape=(0,) * (2 + i) + (-4, f[i], -1) + (0,) * n)
        axes = (0, 1) + tuple(a for i in range(n) for a in (2 + n + i, 2 + i))
        x = F.transpose(x, axes=axes)
        return F.reshape(x, shape=(0, 0) + (-3,) * n)

    def __repr__(self):
        return f"{type(self).__name__}({self._factor})"


def _prod(f):
    out = 1
    for v in f:
        out *= v
    return out


class PixelShuffle1D(_PixelShuffle):
    """(N, f * C, W) -> (N, C, W * f): channels moved into the width.

    Args:
        factor: the upsampling factor (an int).

    Example::

        gluon.contrib.nn.PixelShuffle1D(2)(nd.ones((1, 4, 3))).shape   # (1, 2, 6)
    """

    _ndim = 1


class PixelShuffle2D(_PixelShuffle):
    """(N, f1 * f2 * C, H, W) -> (N, C, H * f1, W * f2).

    Args:
        factor: an int or a pair (f1, f2).

    Example::

        shuffle = gluon.contrib.nn.PixelShuffle2D((2, 3))
        shuffle(nd.ones((1, 12, 3, 5))).shape   # (1, 2, 6, 15)
    """

    _ndim = 2


class PixelShuffle3D(_PixelShuffle):
    """(N, f1 * f2 * f3 * C, D, H, W) -> (N, C, D * f1, H * f2, W * f3).

    Args:
        factor: an int or a triple.

    Example::

        shuffle = gluon.contrib.nn.PixelShuffle3D(2)
        shuffle(nd.ones((1, 16, 2, 3, 4))).shape   # (1, 2, 4, 6, 8)
    """

    _ndim = 3
