"""`gluon.contrib.estimator`: MXNet 1.x's high-level training loop.

`Estimator` runs `fit`/`evaluate` over Gluon DataLoaders; what happens at each point of
the loop (train begin/end, epoch begin/end, batch begin/end) is done by event handlers
(`event_handler`), and how one batch is trained or evaluated by a `BatchProcessor`.

Example::

    from gluonlite.gluon.contrib.estimator import Estimator
    net = nn.Dense(1); net.initialize()
    data = gluon.data.ArrayDataset(nd.random.uniform(shape=(20, 3)), nd.ones((20, 1)))
    train_loader = gluon.data.DataLoader(data, batch_size=5, shuffle=True)
    val_loader = gluon.data.DataLoader(data, batch_size=5)
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    est = Estimator(net, gluon.loss.L2Loss(), train_metrics=mx.metric.MSE(), trainer=trainer)
    est.fit(train_loader, val_data=val_loader, epochs=3)
"""
from . import batch_processor, estimator, event_handler
from .batch_processor import *  # noqa: F401,F403
from .batch_processor import __all__ as _bp_all
from .estimator import *  # noqa: F401,F403
from .estimator import __all__ as _est_all
from .event_handler import *  # noqa: F401,F403
from .event_handler import __all__ as _eh_all

__all__ = ["batch_processor", "estimator", "event_handler"] + _est_all + _eh_all + _bp_all
