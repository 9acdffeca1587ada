"""`mx.executor_manager`: the data-parallel executors of the legacy `mx.model.FeedForward`.

`DataParallelExecutorManager` binds a symbol once per context, each executor for its part of
the batch (`_split_input_slice`: parts proportional to the contexts' work loads), copies
every batch into those parts, and keeps each parameter as one array per context, which the
training loop updates (through a kvstore or an updater). MXNet 1.9.1 keeps this module for
`FeedForward`; `Module` has its own group (`gluonlite.module.executor_group`).

Example::

    from gluonlite.executor_manager import _split_input_slice   # as mxnet.executor_manager's
    _split_input_slice(5, [1, 1])      # [slice(0, 2, None), slice(2, 5, None)]
"""
import logging

import numpy as np

from . import ndarray as nd
from .context import cpu

__all__ = ["DataParallelExecutorManager"]


def _split_input_slice(batch_size, work_load_list):
    """Slices cutting a batch of `batch_size` into one part per context, each proportional to
    its work load (rounded; the last part takes what rounding left).

    Args:
        batch_size: the number of samples in the batch.
        work_load_list: one positive number per context.

    Returns:
        A list of `slice` objects, one per context, covering ``range(batch_size)`` in order.

    Raises:
        ValueError: a part would be empty (more contexts than samples, or a tiny work load).

    Example::

        from gluonlite.executor_manager import _split_input_slice
        _split_input_slice(5, [1, 1])   # [slice(0, 2, None), slice(2, 5, None)]
    """
    total = float(sum(work_load_list))
    counts = [round(w * batch_size / total) for w in work_load_list]
    if sum(counts) < batch_size:
        counts[-1] += batch_size - sum(counts)
    slices, end = [], 0
    for count in counts:
        begin = min(end, batch_size)
        end = min(begin + count, batch_size)
        if begin >= end:
            raise ValueError(f"split_input_slice: a batch of {batch_size} cut for work loads "
                             f"{list(work_load_list)} leaves a context no sample; use fewer "
                             "contexts or a larger batch")
        slices.append(slice(int(begin), int(end)))
    return slices


def _check_arguments(symbol):
    """Refuse a symbol with two arguments (or two auxiliary states) of one name: they would
    share one array.

    Raises:
        ValueError: naming the repeated name and listing the symbol's names.
    """
    for what, names in (("argument", symbol.list_arguments()),
                        ("auxiliary state", symbol.list_auxiliary_states())):
        seen = set()
        for name in names:
            if name in seen:
                raise ValueError(f"the symbol has two {what}s named {name!r} (its {what}s: "
                                 f"{names}); give each layer its own name= so that its "
                                 "parameters are distinct")
            seen.add(name)


def _load_general(arrays, targets):
    """Copy each of `arrays` (whole-batch NDArrays) into its target: one NDArray, or
    ``[(slice, NDArray)]`` receiving one part of the batch each.

    Raises:
        ValueError: a batch whose size is not the one the targets were bound for.
    """
    for src, dst in zip(arrays, targets):
        if isinstance(dst, nd.NDArray):
            src.copyto(dst)
            continue
        bound = dst[-1][0].stop
        if src.shape[0] != bound:
            raise ValueError(f"a batch of {src.shape[0]} samples reached executors bound for "
                             f"batches of {bound}; every batch (the eval data's too) must "
                             "have the training data's batch size")
        for part, array in dst:
            src[part].copyto(array)


def _load_data(batch, targets):
    """`_load_general` of the batch's data."""
    _load_general(batch.data, targets)


def _load_label(batch, targets):
    """`_load_general` of the batch's labels."""
    _load_general(batch.label, targets)


class _ExecutorGroup:
    """One executor of `symbol` per context, each bound for its slice of the batch described
    by `train_data` (its ``provide_data`` and ``provide_label``); with `shared_group`, the
    parameters, gradients and auxiliary states are that group's arrays (bucketing)."""

    def __init__(self, symbol, param_names, ctx, slices, train_data, shared_group=None):
        _check_arguments(symbol)
        inputs = list(train_data.provide_data) + list(train_data.provide_label)
        self.data_names = [d[0] for d in train_data.provide_data]
        self.label_names = [d[0] for d in train_data.provide_label]
        self.aux_names = symbol.list_auxiliary_states()
        self.param_names = [n for n in symbol.list_arguments() if n in set(param_names)]
        grad_req = {n: "write" if n in self.param_names else "null"
                    for n in symbol.list_arguments()}
        self.train_execs = []
        for k, (context, part) in enumerate(zip(ctx, slices)):
            shapes = {d[0]: (part.stop - part.start,) + tuple(d[1][1:]) for d in inputs}
            types = {d[0]: getattr(d, "dtype", np.float32) for d in inputs}
            shared = None if shared_group is None else shared_group.train_execs[k]
            self.train_execs.append(symbol.simple_bind(
                context, grad_req=grad_req, type_dict=types, shared_exec=shared,
                shared_arg_names=self.param_names if shared is not None else None, **shapes))
        self.slices = slices
        self.data_arrays = [[(p, e.arg_dict[n]) for p, e in zip(slices, self.train_execs)]
                            for n in self.data_names]
        self.label_arrays = [[(p, e.arg_dict[n]) for p, e in zip(slices, self.train_execs)]
                             for n in self.label_names]
        self.param_arrays = [[e.arg_dict[n] for e in self.train_execs] for n in self.param_names]
        self.grad_arrays = [[e.grad_dict[n] for e in self.train_execs] for n in self.param_names]
        self.aux_arrays = [[e.aux_dict[n] for e in self.train_execs] for n in self.aux_names]

    def load_data_batch(self, batch):
        _load_data(batch, self.data_arrays)
        _load_label(batch, self.label_arrays)

    def forward(self, is_train=False):
        for e in self.train_execs:
            e.forward(is_train=is_train)

    def backward(self):
        for e in self.train_execs:
            e.backward()

    def update_metric(self, metric, labels, pre_sliced=False):
        for k, (e, part) in enumerate(zip(self.train_execs, self.slices)):
            mine = labels[k] if pre_sliced else [label[part] for label in labels]
            metric.update(mine, e.outputs)


class DataParallelExecutorManager:
    """Executors of one symbol on several contexts, each computing its part of every batch,
    as MXNet 1.x's `FeedForward` trains (`Module` has its own group).

    The parameters are one array per context (`param_arrays`, `grad_arrays`,
    `aux_arrays`: ``[[array on context 0, array on context 1, ...] for each name]``); the
    caller keeps them equal (a kvstore sums the gradients). With `sym_gen`, each batch's
    ``bucket_key`` picks a symbol, bound on first use over the same parameter arrays.

    Args:
        symbol (Symbol): the network (for `sym_gen`: the default bucket's).
        ctx (list of Context): the contexts, one executor each.
        train_data (DataIter): what the executors are bound for: its ``batch_size``,
            ``provide_data`` and ``provide_label`` (batch axis first).
        arg_names (list of str): ``symbol.list_arguments()``.
        param_names (list of str): the arguments that are trained (the others are inputs).
        aux_names (list of str): ``symbol.list_auxiliary_states()``.
        work_load_list (list): each context's share of a batch (default None:
            equal shares).
        logger (logging.Logger): where the start is logged (default None: the root logger).
        sym_gen (callable): ``bucket_key -> Symbol`` for bucketing (default None).

    Raises:
        ValueError: `work_load_list` not a list of one number per context; a batch too
            small to give every context a sample; two arguments of one name.

    Example::

        net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=3, name='fc'),
                                name='softmax')
        it = mx.io.NDArrayIter(np.ones((8, 5)), np.zeros(8), batch_size=4)
        names = net.list_arguments()
        mgr = mx.model.DataParallelExecutorManager(
            net, [mx.cpu(0), mx.cpu(1)], it, names, ['fc_weight', 'fc_bias'], [])
        mgr.set_params({'fc_weight': nd.ones((3, 5)), 'fc_bias': nd.zeros(3)}, {})
        mgr.load_data_batch(next(it))
        mgr.forward(is_train=True); mgr.backward()
        [g.shape for g in mgr.grad_arrays[0]]   # [(3, 5), (3, 5)]: one per context
    """

    def __init__(self, symbol, ctx, train_data, arg_names, param_names, aux_names,
                 work_load_list=None, logger=None, sym_gen=None):
        logger = logging if logger is None else logger
        logger.info("Start training with %s", str(ctx))
        if work_load_list is None:
            work_load_list = [1] * len(ctx)
        if not isinstance(work_load_list, list) or len(work_load_list) != len(ctx):
            raise ValueError(f"DataParallelExecutorManager: work_load_list must be a list of "
                             f"one number per context ({len(ctx)}), got {work_load_list!r}")
        self.slices = _split_input_slice(train_data.batch_size, work_load_list)
        self.arg_names = arg_names
        self.param_names = param_names
        self.aux_names = aux_names
        self.ctx = ctx
        self.symbol = symbol
        self.sym_gen = sym_gen
        self.execgrp = _ExecutorGroup(symbol, param_names, ctx, self.slices, train_data)
        self.curr_execgrp = None  # the group of the batch loaded last
        if sym_gen is not None:
            self.execgrp_bucket = {train_data.default_bucket_key: self.execgrp}

    def install_monitor(self, monitor):
        """Install `monitor` (an `mx.mon.Monitor`) on every executor.

        Raises:
            NotImplementedError: with `sym_gen` (the buckets' executors are made later).

        Example::

            net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=3,
                                                       name='fc'), name='softmax')
            it = mx.io.NDArrayIter(np.ones((8, 5)), np.zeros(8), batch_size=4)
            mgr = mx.model.DataParallelExecutorManager(
                net, [mx.cpu()], it, net.list_arguments(), ['fc_weight', 'fc_bias'], [])
            mgr.install_monitor(mx.mon.Monitor(1))
        """
        if self.sym_gen is not None:
            raise NotImplementedError("DataParallelExecutorManager.install_monitor: a monitor "
                                      "cannot watch the executors of buckets bound later "
                                      "(sym_gen); train without bucketing to monitor")
        for e in self.execgrp.train_execs:
            monitor.install(e)

    def set_params(self, arg_params, aux_params):
        """Copy `arg_params` and `aux_params` ({name: NDArray}) into every context's arrays.

        Example::

            net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=3,
                                                       name='fc'), name='softmax')
            it = mx.io.NDArrayIter(np.ones((8, 5)), np.zeros(8), batch_size=4)
            mgr = mx.model.DataParallelExecutorManager(
                net, [mx.cpu(0), mx.cpu(1)], it, net.list_arguments(), ['fc_weight', 'fc_bias'], [])
            mgr.set_params({'fc_weight': nd.ones((3, 5)), 'fc_bias': nd.zeros(3)}, {})
            mgr.param_arrays[0][1].sum().asscalar()   # 15.0
        """
        for e in self.execgrp.train_execs:
            e.copy_params_from(arg_params, aux_params)

    def copy_to(self, arg_params, aux_params):
        """Write the mean over contexts of each parameter and auxiliary state into
        `arg_params` and `aux_params` (in place, each in its array's dtype).

        Example::

            net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=3,
                                                       name='fc'), name='softmax')
            it = mx.io.NDArrayIter(np.ones((8, 5)), np.zeros(8), batch_size=4)
            mgr = mx.model.DataParallelExecutorManager(
                net, [mx.cpu()], it, net.list_arguments(), ['fc_weight', 'fc_bias'], [])
            params = {'fc_weight': nd.ones((3, 5)), 'fc_bias': nd.zeros(3)}
            mgr.set_params(params, {})
            mgr.param_arrays[1][0][:] = 2
            mgr.copy_to(params, {})
            params['fc_bias'].asnumpy()   # array([2., 2., 2.], dtype=float32)
        """
        for names, blocks, out in ((self.param_names, self.param_arrays, arg_params),
                                   (self.aux_names, self.aux_arrays, aux_params)):
            for name, copies in zip(names, blocks):
                total = copies[0].copyto(cpu())
                for c in copies[1:]:
                    total += c.copyto(cpu())
                mean = total / len(copies)
                mean.astype(out[name].dtype).copyto(out[name])

    @property
    def param_arrays(self):
        """``[[each context's array] for each parameter]``, in `param_names` order (every
        bucket uses these).

        Example::

            net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=3,
                                                       name='fc'), name='softmax')
            it = mx.io.NDArrayIter(np.ones((8, 5)), np.zeros(8), batch_size=4)
            mgr = mx.model.DataParallelExecutorManager(
                net, [mx.cpu(0), mx.cpu(1)], it, net.list_arguments(), ['fc_weight', 'fc_bias'], [])
            len(mgr.param_arrays), len(mgr.param_arrays[0])   # (2, 2)
        """
        return self.execgrp.param_arrays

    @property
    def grad_arrays(self):
        """``[[each context's gradient] for each parameter]``, as `param_arrays`.

        Example::

            net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=3,
                                                       name='fc'), name='softmax')
            it = mx.io.NDArrayIter(np.ones((8, 5)), np.zeros(8), batch_size=4)
            mgr = mx.model.DataParallelExecutorManager(
                net, [mx.cpu()], it, net.list_arguments(), ['fc_weight', 'fc_bias'], [])
            mgr.grad_arrays[0][0].shape   # (3, 5)
        """
        return self.execgrp.grad_arrays

    @property
    def aux_arrays(self):
        """``[[each context's array] for each auxiliary state]``, in `aux_names` order.

        Example::

            h = sym.BatchNorm(sym.var('data'), name='bn')
            net = sym.SoftmaxOutput(sym.FullyConnected(h, num_hidden=3, name='fc'),
                                    name='softmax')
            it = mx.io.NDArrayIter(np.ones((8, 5)), np.zeros(8), batch_size=4)
            params = [n for n in net.list_arguments() if n not in ('data', 'softmax_label')]
            mgr = mx.model.DataParallelExecutorManager(
                net, [mx.cpu()], it, net.list_arguments(), params,
                net.list_auxiliary_states())
            [a[0].shape for a in mgr.aux_arrays]   # [(5,), (5,)]
        """
        return self.execgrp.aux_arrays

    def load_data_batch(self, data_batch):
        """Copy `data_batch`'s data and labels into the executors (each context its part),
        binding its bucket's executors first when `sym_gen` is set and the bucket is new.

        Raises:
            ValueError: the batch's size is not the bound one.

        Example::

            net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=3,
                                                       name='fc'), name='softmax')
            it = mx.io.NDArrayIter(np.ones((8, 5)), np.zeros(8), batch_size=4)
            mgr = mx.model.DataParallelExecutorManager(
                net, [mx.cpu()], it, net.list_arguments(), ['fc_weight', 'fc_bias'], [])
            mgr.load_data_batch(next(it))
        """
        if self.sym_gen is None:
            self.curr_execgrp = self.execgrp
        else:
            key = data_batch.bucket_key
            if key not in self.execgrp_bucket:
                self.execgrp_bucket[key] = _ExecutorGroup(
                    self.sym_gen(key), self.param_names, self.ctx, self.slices, data_batch,
                    shared_group=self.execgrp)
            self.curr_execgrp = self.execgrp_bucket[key]
        self.curr_execgrp.load_data_batch(data_batch)

    def _current(self, what):
        if self.curr_execgrp is None:
            raise ValueError(f"DataParallelExecutorManager.{what}: no batch is loaded; call "
                             "load_data_batch first")
        return self.curr_execgrp

    def forward(self, is_train=False):
        """Run the loaded batch forward on every context.

        Args:
            is_train (bool): keep what `backward` needs (default False).

        Raises:
            ValueError: no batch loaded.

        Example::

            net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=3,
                                                       name='fc'), name='softmax')
            it = mx.io.NDArrayIter(np.ones((8, 5)), np.zeros(8), batch_size=4)
            mgr = mx.model.DataParallelExecutorManager(
                net, [mx.cpu()], it, net.list_arguments(), ['fc_weight', 'fc_bias'], [])
            mgr.load_data_batch(next(it)); mgr.forward()
        """
        self._current("forward").forward(is_train=is_train)

    def backward(self):
        """Compute every context's parameter gradients (after ``forward(is_train=True)``).

        Raises:
            ValueError: no batch loaded.

        Example::

            net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=3,
                                                       name='fc'), name='softmax')
            it = mx.io.NDArrayIter(np.ones((8, 5)), np.zeros(8), batch_size=4)
            mgr = mx.model.DataParallelExecutorManager(
                net, [mx.cpu()], it, net.list_arguments(), ['fc_weight', 'fc_bias'], [])
            mgr.load_data_batch(next(it)); mgr.forward(is_train=True); mgr.backward()
        """
        self._current("backward").backward()

    def update_metric(self, metric, labels, pre_sliced=False):
        """Update `metric` with `labels` and the last outputs, once per context with its part
        of the labels.

        Args:
            metric (EvalMetric): the metric to update.
            labels (list of NDArray): the batch's labels.
            pre_sliced (bool): `labels` is already one list per context (default False).

        Raises:
            ValueError: no batch loaded.

        Example::

            net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=3,
                                                       name='fc'), name='softmax')
            it = mx.io.NDArrayIter(np.ones((8, 5)), np.zeros(8), batch_size=4)
            mgr = mx.model.DataParallelExecutorManager(
                net, [mx.cpu()], it, net.list_arguments(), ['fc_weight', 'fc_bias'], [])
            batch = next(it)
            mgr.load_data_batch(batch); mgr.forward()
            acc = mx.metric.Accuracy(); mgr.update_metric(acc, batch.label)
            acc.get()   # ('accuracy', 1.0): all-zero weights pick class 0
        """
        self._current("update_metric").update_metric(metric, labels, pre_sliced)
