"""`gluon`: the model layer: Block/HybridBlock/SymbolBlock, Parameter, layers (`nn`, `rnn`),
losses, Trainer and data loading, in MXNet 1.x Gluon's dialect."""
from .parameter import (Parameter, ParameterDict, Constant, DeferredInitializationError,
                        UninitializedParameterError)
from .block import Block, HybridBlock
from .symbol_block import SymbolBlock
from . import nn
from . import rnn
from . import loss
from . import data
from . import utils
from . import contrib
from . import model_zoo
from .trainer import Trainer
from ..ndarray import NDArray as _NDArray
from ..symbol import Symbol as _Symbol

#: The array types a block's inputs may be (MXNet's ``gluon.tensor_types``), for isinstance.
tensor_types = (_Symbol, _NDArray)

__all__ = ["Parameter", "ParameterDict", "Constant", "Block", "HybridBlock", "SymbolBlock",
           "nn", "rnn", "loss", "data", "utils", "contrib", "model_zoo", "Trainer",
           "DeferredInitializationError", "tensor_types",
           "UninitializedParameterError"]
