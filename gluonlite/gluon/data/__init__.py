"""`gluon.data`: datasets, samplers and the DataLoader."""
from .dataset import Dataset, ArrayDataset, SimpleDataset
from .sampler import Sampler, SequentialSampler, RandomSampler, BatchSampler
from .dataloader import DataLoader, default_batchify_fn

__all__ = ["Dataset", "ArrayDataset", "SimpleDataset", "Sampler", "SequentialSampler",
           "RandomSampler", "BatchSampler", "DataLoader", "default_batchify_fn"]
