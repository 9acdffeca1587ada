"""`gluon.nn`: layers (Dense, Activation, Dropout, Embedding, Flatten, BatchNorm, LayerNorm,
InstanceNorm, GroupNorm, BatchNormReLU; the convolutions Conv1D/2D/3D and their transposes;
pooling Max/Avg/GlobalMax/GlobalAvg 1D/2D/3D; ReflectionPad2D; activations LeakyReLU, PReLU,
ELU, SELU, GELU, Swish) and containers (Sequential, HybridSequential, Lambda, HybridLambda)."""
from .basic_layers import (Sequential, HybridSequential, Dense, Dropout, Embedding, Flatten,
                           BatchNorm, LayerNorm, Lambda, HybridLambda)
from .conv_layers import (Conv1D, Conv2D, Conv3D, Conv1DTranspose, Conv2DTranspose,
                          Conv3DTranspose, MaxPool1D, MaxPool2D, MaxPool3D, AvgPool1D, AvgPool2D,
                          AvgPool3D, GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D,
                          GlobalAvgPool1D, GlobalAvgPool2D, GlobalAvgPool3D, ReflectionPad2D)
from .activations import Activation, LeakyReLU, PReLU, ELU, SELU, GELU, Swish
from .norm_layers import InstanceNorm, GroupNorm, BatchNormReLU
from ..block import Block, HybridBlock
from ..symbol_block import SymbolBlock

__all__ = ["Sequential", "HybridSequential", "Dense", "Activation", "Dropout", "Embedding",
           "Flatten", "BatchNorm", "LayerNorm", "Lambda", "HybridLambda", "Block",
           "HybridBlock", "SymbolBlock",
           "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
           "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D",
           "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D", "GlobalAvgPool1D",
           "GlobalAvgPool2D", "GlobalAvgPool3D", "ReflectionPad2D", "LeakyReLU", "PReLU", "ELU",
           "SELU", "GELU", "Swish", "InstanceNorm", "GroupNorm", "BatchNormReLU"]
