"""Optimizers (`mx.optimizer`): every optimizer MXNet 1.9.1 registers, by class or by name
(`create('adam', learning_rate=0.1)`), and the `Updater` that KVStores and `gluon.Trainer`
call.

Names: `Optimizer`, `register`, `create`, `Updater`, `get_updater`, and the optimizers
`SGD`, `NAG`, `Signum`, `FTML`, `LARS`, `LBSGD`, `LAMB`, `DCASGD`, `SGLD`, `ccSGD`, `Adam`,
`AdaGrad`, `RMSProp`, `AdaDelta`, `Ftrl`, `Adamax`, `Nadam`, `Test`.

Example::

    opt = mx.optimizer.create('sgd', learning_rate=0.1, momentum=0.9, multi_precision=True)
    upd = mx.optimizer.get_updater(opt)
    weight, grad = nd.ones((2,), dtype='float16'), nd.ones((2,), dtype='float16')
    upd(0, grad, weight)            # weight (float16 here) changes in place
    weight.asnumpy()   # array([0.9, 0.9], dtype=float16)
"""
from .optimizer import Optimizer, Updater, create, get_updater, register
from .algorithms import (SGD, NAG, Signum, FTML, LARS, LBSGD, LAMB, DCASGD, SGLD, ccSGD, Adam,
                         AdaGrad, RMSProp, AdaDelta, Ftrl, Adamax, Nadam, Test)
from ..ndarray import NDArray, zeros, clip, sqrt, cast, square, sign, abs as NDabs  # noqa: F401
from ..ndarray import norm as NDnorm  # noqa: F401
from . import contrib  # noqa: F401

__all__ = ["Optimizer", "Updater", "create", "get_updater", "register", "SGD", "NAG", "Signum",
           "FTML", "LARS", "LBSGD", "LAMB", "DCASGD", "SGLD", "ccSGD", "Adam", "AdaGrad",
           "RMSProp", "AdaDelta", "Ftrl", "Adamax", "Nadam", "Test"]
