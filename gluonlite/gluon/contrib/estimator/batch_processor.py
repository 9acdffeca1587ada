"""How the estimator trains and evaluates one batch (`BatchProcessor`)."""
from .... import autograd
from ...utils import split_and_load

__all__ = ["BatchProcessor"]


class BatchProcessor:
    """Trains (`fit_batch`) or evaluates (`evaluate_batch`) the estimator's network on one
    batch. Subclass it and override either method to change what a step does (several
    losses, extra inputs); pass the instance as ``Estimator(batch_processor=...)``.

    A batch is ``(data, label)``; each is split along `batch_axis` over the estimator's
    contexts (`gluon.utils.split_and_load`). The parameter update itself is left to the
    `GradientUpdateHandler`, so `fit_batch` only computes gradients.

    Example::

        from gluonlite.gluon.contrib.estimator import BatchProcessor
        class ScaledLoss(BatchProcessor):   # train on twice the loss
            def fit_batch(self, estimator, train_batch, batch_axis=0):
                data, label, pred, loss = super().fit_batch(estimator, train_batch, batch_axis)
                return data, label, pred, [2 * l for l in loss]
        from gluonlite.gluon.contrib.estimator import Estimator
        net = nn.Dense(1); net.initialize()
        data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
        loader = gluon.data.DataLoader(data, batch_size=4)
        trainer = gluon.Trainer(net.collect_params(), 'sgd')
        est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
        est = Estimator(net, gluon.loss.L2Loss(), batch_processor=ScaledLoss(),
                        trainer=gluon.Trainer(net.collect_params(), 'sgd'))
        est.fit(loader, epochs=1)
    """

    def _get_data_and_label(self, batch, ctx, batch_axis=0):
        data = split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis)
        label = split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis)
        return data, label

    def evaluate_batch(self, estimator, val_batch, batch_axis=0):
        """Run `estimator.val_net` and `estimator.val_loss` on one validation batch.

        Args:
            estimator: the Estimator.
            val_batch: ``(data, label)`` from the validation DataLoader.
            batch_axis: the axis along which the batch is split over the contexts.

        Returns:
            ``(data, label, pred, loss)``, each a list with one NDArray per context.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            batch = next(iter(loader))
            data, label, pred, loss = est.batch_processor.evaluate_batch(est, batch)
            pred[0].shape   # (4, 1)
        """
        data, label = self._get_data_and_label(val_batch, estimator.context, batch_axis)
        pred = [estimator.val_net(x) for x in data]
        loss = [estimator.val_loss(y_hat, y) for y_hat, y in zip(pred, label)]
        return data, label, pred, loss

    def fit_batch(self, estimator, train_batch, batch_axis=0):
        """Forward `estimator.net` and `estimator.loss` under `autograd.record()` on one
        training batch and backpropagate the loss (the update is the
        GradientUpdateHandler's).

        Args:
            estimator: the Estimator.
            train_batch: ``(data, label)`` from the training DataLoader.
            batch_axis: the axis along which the batch is split over the contexts.

        Returns:
            ``(data, label, pred, loss)``, each a list with one NDArray per context.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            data, label, pred, loss = est.batch_processor.fit_batch(est, next(iter(loader)))
            net.weight.grad().shape   # (1, 2): gradients computed, not yet applied
        """
        data, label = self._get_data_and_label(train_batch, estimator.context, batch_axis)
        with autograd.record():
            pred = [estimator.net(x) for x in data]
            loss = [estimator.loss(y_hat, y) for y_hat, y in zip(pred, label)]
        for part in loss:
            part.backward()
        return data, label, pred, loss
