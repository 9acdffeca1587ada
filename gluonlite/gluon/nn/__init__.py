"""`gluon.nn`: layers (Dense, Activation, Dropout, Embedding, Flatten, BatchNorm, LayerNorm)
and containers (Sequential, HybridSequential, Lambda, HybridLambda)."""
from .basic_layers import (Sequential, HybridSequential, Dense, Activation, Dropout, Embedding,
                           Flatten, BatchNorm, LayerNorm, Lambda, HybridLambda)
from ..block import Block, HybridBlock
from ..symbol_block import SymbolBlock

__all__ = ["Sequential", "HybridSequential", "Dense", "Activation", "Dropout", "Embedding",
           "Flatten", "BatchNorm", "LayerNorm", "Lambda", "HybridLambda", "Block",
           "HybridBlock", "SymbolBlock"]
