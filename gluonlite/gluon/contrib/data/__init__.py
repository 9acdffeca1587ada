"""`gluon.contrib.data`: contributed samplers (`IntervalSampler`)."""
from .sampler import IntervalSampler

__all__ = ["IntervalSampler"]
