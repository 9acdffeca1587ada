"""`gluon.data.vision`: image datasets read from MXNet's files on disk (`MNIST`,
`FashionMNIST`, `CIFAR10`, `CIFAR100`, `ImageRecordDataset`, `ImageFolderDataset`) and
image `transforms`."""
from .datasets import (MNIST, FashionMNIST, CIFAR10, CIFAR100, ImageRecordDataset,
                       ImageFolderDataset)
from . import datasets, transforms

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageRecordDataset",
           "ImageFolderDataset", "datasets", "transforms"]
