"""`gluon.data`: datasets, samplers and the DataLoader (`vision`: image datasets and
transforms)."""
from .dataset import Dataset, ArrayDataset, SimpleDataset, RecordFileDataset
from .sampler import Sampler, SequentialSampler, RandomSampler, FilterSampler, BatchSampler
from .dataloader import DataLoader, default_batchify_fn
from . import dataset, sampler, dataloader

__all__ = ["Dataset", "ArrayDataset", "SimpleDataset", "RecordFileDataset", "Sampler",
           "SequentialSampler", "RandomSampler", "FilterSampler", "BatchSampler", "DataLoader",
           "default_batchify_fn", "vision"]


def __getattr__(attr):
    # vision (and its image codec) loads on first use
    if attr == "vision":
        import importlib
        return importlib.import_module(f"{__name__}.vision")
    raise AttributeError(f"module 'gluonlite.gluon.data' has no attribute {attr!r}")
