"""Normalization layers beyond BatchNorm and LayerNorm: InstanceNorm, GroupNorm and
BatchNormReLU, with MXNet 1.x Gluon's names, defaults, parameters and ``__repr__``."""
from ..block import HybridBlock
from .basic_layers import BatchNorm, _scale_shift_params

__all__ = ["InstanceNorm", "GroupNorm", "BatchNormReLU"]


def _content(kwargs):
    return ", ".join(f"{k}={v!r}" for k, v in kwargs.items())


class InstanceNorm(HybridBlock):
    """Instance normalization: each sample's channel normalized over its spatial entries,
    then ``* gamma + beta`` per channel.

    Args:
        axis: the channel axis (default 1).
        epsilon: default 1e-5.
        center: learn beta (default True).
        scale: learn gamma (default False: gamma stays 1).
        beta_initializer: default 'zeros'.
        gamma_initializer: default 'ones'.
        in_channels: number of channels (0: inferred).

    Inputs:
        - **x**: the input array, (N, C, ...) with the channels on `axis`.
        - **gamma**, **beta**: the (in_channels,) parameters, passed in by ``forward``.

    Outputs:
        - **out**: an array of the same shape as `x`.

    Example::

        norm = nn.InstanceNorm(); norm.initialize()
        norm(nd.ones((2, 3, 4, 4))).shape   # (2, 3, 4, 4)
    """

    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False,
                 beta_initializer="zeros", gamma_initializer="ones", in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"eps": epsilon, "axis": axis, "center": center, "scale": scale}
        self._axis = axis
        self._epsilon = epsilon
        self.gamma, self.beta = _scale_shift_params(self, in_channels, center, scale,
                                                    beta_initializer, gamma_initializer)

    def hybrid_forward(self, F, x, gamma, beta):
        if self._axis == 1:
            return F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon)
        x = x.swapaxes(1, self._axis)
        return F.InstanceNorm(x, gamma, beta, name="fwd",
                              eps=self._epsilon).swapaxes(1, self._axis)

    def __repr__(self):
        return f"{type(self).__name__}({_content(self._kwargs)}, " \
               f"in_channels={self.gamma.shape[0]})"


class GroupNorm(HybridBlock):
    """Group normalization: each sample's channels split into `num_groups` groups, each
    normalized over all its entries, then ``* gamma + beta`` per group (MXNet 1.x keeps one
    gamma and one beta per group).

    Args:
        num_groups: default 1 (must divide the channels).
        epsilon: default 1e-5.
        center: learn the shift beta (default True).
        scale: learn the scale gamma (default True).
        beta_initializer: default 'zeros'.
        gamma_initializer: default 'ones'.
        prefix: the prefix of the block's name and parameter names (default None:
            ``groupnorm0_`` style).
        params: a ParameterDict whose parameters the block shares (default None: its own).

    Inputs:
        - **data**: the input array, (N, C, ...).
        - **gamma**, **beta**: the (num_groups,) parameters, passed in by ``forward``.

    Outputs:
        - **out**: an array of the same shape as `data`.

    Example::

        norm = nn.GroupNorm(num_groups=4); norm.initialize()
        norm(nd.ones((2, 16, 4, 4))).shape   # (2, 16, 4, 4)
    """

    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "num_groups": num_groups, "center": center,
                        "scale": scale}
        self._num_groups = num_groups
        self._epsilon = epsilon
        self.gamma, self.beta = _scale_shift_params(self, num_groups, center, scale,
                                                    beta_initializer, gamma_initializer)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.GroupNorm(data, gamma=gamma, beta=beta, num_groups=self._num_groups,
                           eps=self._epsilon)

    def __repr__(self):
        return f"{type(self).__name__}({_content(self._kwargs)})"


class BatchNormReLU(BatchNorm):
    """BatchNorm followed by relu, as one operator: ``contrib.BatchNormWithReLU``, as in
    MXNet (`gluonlite.ops.bn_relu`; the relu is Activation's, a float32 NaN giving 0).

    Args:
        axis: the channel axis (default 1).
        momentum: the running statistics' momentum (default 0.9).
        epsilon: added to the variance (default 1e-5).
        center: learn the shift beta (default True).
        scale: learn the scale gamma (default True; False fixes gamma at 1).
        use_global_stats: always normalize with the running statistics (default False).
        beta_initializer: default 'zeros'.
        gamma_initializer: default 'ones'.
        running_mean_initializer: default 'zeros'.
        running_variance_initializer: default 'ones'.
        in_channels: number of channels (0: inferred).

    Inputs:
        - **x**: the input array, with the channels on `axis`.
        - **gamma**, **beta**, **running_mean**, **running_var**: the layer's parameters,
          passed in by ``forward``.

    Outputs:
        - **out**: ``relu(batchnorm(x))``, the same shape as `x`.

    Example::

        bn = nn.BatchNormReLU(); bn.initialize()
        bn(nd.array([[-1], [1]])).asnumpy().min()   # 0.0
    """

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.contrib.BatchNormWithReLU(x, gamma, beta, running_mean, running_var,
                                           name="fwd", **self._kwargs)
