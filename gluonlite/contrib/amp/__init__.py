"""`mx.contrib.amp`: MXNet's automatic mixed precision, which gluonlite does not support.

The names exist so that a script or module that imports them (``from mxnet.contrib.amp import
amp``) still loads; calling any of them raises NotImplementedError naming AMP. Train in
float32, or cast a model yourself with ``block.cast('float16')``. `loss_scaler.LossScaler`,
AMP's dynamic loss scale, works on its own. MXNet's operator lists of AMP
(``contrib.amp.lists``) are not here.
"""
from . import amp  # noqa: F401
from .amp import *  # noqa: F401,F403
from .amp import __all__  # noqa: F401
from . import loss_scaler  # noqa: F401
