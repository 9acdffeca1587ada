"""`gluon.contrib.cnn`: MXNet 1.x's deformable convolution layers (DeformableConvolution,
ModulatedDeformableConvolution), each with the plain convolution that learns its offsets."""
from .conv_layers import DeformableConvolution, ModulatedDeformableConvolution

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]
