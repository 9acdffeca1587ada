"""`gluon.contrib.cnn`: deformable convolution layers (v1 and the modulated v2), as MXNet 1.x
Gluon names them; GluonCV's DCN backbones use them."""
from . import conv_layers
from .conv_layers import DeformableConvolution, ModulatedDeformableConvolution

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]
