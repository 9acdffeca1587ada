"""Activation layers: Activation, LeakyReLU, PReLU, ELU, SELU, GELU, Swish, with MXNet 1.x
Gluon's names, parameters (``prelu0_alpha``) and ``__repr__`` (MXNet keeps them in
``gluon.nn.activations``)."""
from ... import initializer
from ..block import HybridBlock

__all__ = ["Activation", "LeakyReLU", "PReLU", "ELU", "SELU", "GELU", "Swish"]


class Activation(HybridBlock):
    """An elementwise activation ('relu', 'sigmoid', 'tanh', 'softrelu', 'softsign').

    Args:
        activation (str): the activation's name, as ``F.Activation``'s ``act_type``.

    Inputs:
        - **x**: the input array, any shape.

    Outputs:
        - **out**: the activation applied elementwise, the same shape.

    Example::

        act = nn.Activation('relu')
        act(nd.array([-1, 2])).asnumpy()   # [0. 2.]
    """

    def __init__(self, activation, **kwargs):
        self._act_type = activation
        super().__init__(**kwargs)

    def _alias(self):
        return self._act_type

    def hybrid_forward(self, F, x):
        return F.Activation(x, act_type=self._act_type, name="fwd")

    def __repr__(self):
        return f"Activation({self._act_type})"


class LeakyReLU(HybridBlock):
    """``x if x > 0 else alpha * x``.

    Args:
        alpha: the slope below 0 (not negative).

    Raises:
        ValueError: a negative alpha.

    Example::

        act = nn.LeakyReLU(0.1)
        act(nd.array([-1, 2])).asnumpy()   # [-0.1  2. ]
    """

    def __init__(self, alpha, **kwargs):
        if alpha < 0:
            raise ValueError(f"LeakyReLU: alpha (the slope below 0) must be >= 0, got {alpha}")
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="leaky", slope=self._alpha, name="fwd")

    def __repr__(self):
        return f"{type(self).__name__}({self._alpha})"


class PReLU(HybridBlock):
    """``x if x > 0 else alpha * x`` with a learned alpha (one per channel of axis 1, or one
    for all).

    Args:
        alpha_initializer: default Constant(0.25).
        in_channels: number of slopes (default 1: one shared slope).

    Inputs:
        - **x**: the input array, channels on axis 1 when in_channels > 1.
        - **alpha**: the (in_channels,) slopes, passed in by ``forward``.

    Outputs:
        - **out**: an array of the same shape as `x`.

    Example::

        act = nn.PReLU(in_channels=1); act.initialize()   # alpha starts at 0.25
        act(nd.array([-1, 2])).asnumpy()   # [-0.25  2.  ]
    """

    def __init__(self, alpha_initializer=initializer.Constant(0.25), in_channels=1, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.alpha = self.params.get("alpha", shape=(in_channels,), init=alpha_initializer)

    def hybrid_forward(self, F, x, alpha):
        return F.LeakyReLU(x, gamma=alpha, act_type="prelu", name="fwd")


class ELU(HybridBlock):
    """``x if x > 0 else alpha * (exp(x) - 1)``.

    Args:
        alpha: default 1.0.

    Example::

        act = nn.ELU(1.0)
        act(nd.array([0, 2])).asnumpy()   # [0. 2.]
    """

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="elu", slope=self._alpha)


class SELU(HybridBlock):
    """Scaled ELU: ``lambda * (x if x > 0 else alpha * (exp(x) - 1))`` with the self-normalizing
    constants (alpha ~ 1.6733, lambda ~ 1.0507).

    Args:
        prefix: the prefix of the block's name (default None: ``selu0_`` style).
        params: a ParameterDict to share (the block has no parameters).

    Inputs:
        - **x**: the input array, any shape.

    Outputs:
        - **out**: an array of the same shape.

    Example::

        act = nn.SELU()
        act(nd.array([-1, 0, 1])).shape   # (3,)
    """

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="selu", name="fwd")


class GELU(HybridBlock):
    """Gaussian error linear unit: ``0.5 * x * (1 + erf(x / sqrt(2)))``.

    Args:
        prefix: the prefix of the block's name (default None: ``gelu0_`` style).
        params: a ParameterDict to share (the block has no parameters).

    Inputs:
        - **x**: the input array, any shape.

    Outputs:
        - **out**: an array of the same shape.

    Example::

        act = nn.GELU()
        act(nd.array([0])).asnumpy()   # [0.]
    """

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="gelu", name="fwd")


class Swish(HybridBlock):
    """``x * sigmoid(beta * x)``.

    Args:
        beta: default 1.0.

    Example::

        act = nn.Swish()   # x * sigmoid(beta * x)
        act(nd.array([0])).asnumpy()   # [0.]
    """

    def __init__(self, beta=1.0, **kwargs):
        super().__init__(**kwargs)
        self._beta = beta

    def hybrid_forward(self, F, x):
        return x * F.sigmoid(self._beta * x, name="fwd")
