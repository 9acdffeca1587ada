"""`Parameter` and `ParameterDict`: a block's weights, their gradients and initialization.

Shapes may hold 0 for dimensions not known yet (Gluon's deferred initialization): such a
parameter is initialized on the block's first call, once its shape has been inferred.
"""
import re
import warnings
from collections import OrderedDict

import numpy as np

from .. import autograd, initializer as _init, ndarray as nd, symbol
from ..base import MXNetError, normalize_dtype
from ..context import Context, current_context
from ..ndarray.ndarray import NDArray, check_grad_req
from ..ndarray import sparse, zeros
from ..ndarray.serialization import load, save
from ..ndarray.sparse_grad import store_gradient
from ..util import is_np_array, is_np_shape

__all__ = ["Parameter", "ParameterDict", "Constant", "DeferredInitializationError",
           "UninitializedParameterError", "InvalidStorageTypeError", "GluonUsageError"]


class DeferredInitializationError(MXNetError):
    """A parameter's initialization waits for its shape (known on the first forward). An
    `MXNetError` (so a RuntimeError), as in MXNet.

    Example::

        net = nn.Dense(3)
        net.initialize()   # in_units not given: the weight waits for the first input
        try:
            net.weight.data()
        except gluon.DeferredInitializationError:
            print('shape not known yet')
    """


class UninitializedParameterError(RuntimeError, ValueError):
    """A parameter was used before `initialize()`.

    Example::

        p = gluon.Parameter('w', shape=(2, 3))
        try:
            p.data()
        except gluon.UninitializedParameterError:
            print('call initialize() first')
    """


class GluonUsageError(ValueError, AssertionError):
    """Wrong use of a Gluon API where MXNet raises AssertionError (and its users' tests catch
    that): a ValueError, with a message, that is also an AssertionError.

    Example::

        from gluonlite.gluon.parameter import GluonUsageError
        net = nn.HybridSequential(); net.add(nn.Dense(3)); net.initialize(); net.hybridize()
        try:
            net.summary(nd.ones((2, 4)))
        except GluonUsageError:   # also an AssertionError
            print('summary() needs a block that is not hybridized')
    """


class InvalidStorageTypeError(GluonUsageError):
    """A storage type that is not one of MXNet's ('default', 'row_sparse', 'csr').

    Example::

        from gluonlite.gluon.parameter import InvalidStorageTypeError
        try:
            gluon.Parameter('w', shape=(2, 3), stype='dense')
        except InvalidStorageTypeError:
            print("stype is one of 'default', 'row_sparse', 'csr'")
    """


_STYPES = ("default", "row_sparse", "csr")


def _check_param_stype(name, what, stype):
    if stype not in _STYPES:
        raise InvalidStorageTypeError(f"Parameter {name!r}: {what} must be one of "
                                      f"{', '.join(_STYPES)}, got {stype!r}")


class _PerContext(OrderedDict):
    """Context -> array, in the order of the contexts; an int `i` also reads the i-th array
    (MXNet keeps a parameter's arrays in a list, and code reads ``param._data[0]``)."""

    def __getitem__(self, key):
        if isinstance(key, int):
            return list(self.values())[key]
        return super().__getitem__(key)


def _array_class():
    """The class of new parameter arrays: `mx.np.ndarray` under NumPy array semantics."""
    if is_np_array():
        return nd.np.ndarray
    return NDArray


def _shape_known(shape):
    return shape is not None and all(int(d) > 0 for d in shape)


def _ctx_list(ctx):
    if ctx is None:
        return [current_context()]
    if isinstance(ctx, Context):
        return [ctx]
    return list(ctx)


class Parameter:
    """A weight of a Block: one NDArray per context, its gradient, and how to initialize it.

    Args:
        name: the full name (``dense0_weight``).
        grad_req: 'write', 'add' or 'null'.
        shape: a tuple; 0 entries are inferred on the first forward.
        dtype: default float32.
        lr_mult: this parameter's multiplier of the optimizer's learning rate (default 1.0).
        wd_mult: this parameter's multiplier of the optimizer's weight decay (default 1.0).
        init: an Initializer (or name) used instead of the global one.
        allow_deferred_init: allow `initialize` before the shape is fully known.
        differentiable: whether the parameter gets a gradient (default True; False forces
            grad_req to 'null', as for BatchNorm's running statistics).
        stype: the storage type of the data: 'default', or 'row_sparse' (read with
            `row_sparse_data` through a Trainer, which keeps the whole weight in its kvstore).
        grad_stype: the storage type of the gradient ('row_sparse': only the rows a batch
            used, as ``Embedding(sparse_grad=True)`` gives them).

    Raises:
        InvalidStorageTypeError (a ValueError and an AssertionError, as MXNet asserts): a
            storage type other than 'default', 'row_sparse', 'csr'.

    Example::

        p = gluon.Parameter('w', shape=(2, 3))
        p.initialize(init=mx.init.One())
        p.data()          # ones (2, 3)
    """

    def __init__(self, name, grad_req="write", shape=None, dtype=np.float32, lr_mult=1.0,
                 wd_mult=1.0, init=None, allow_deferred_init=False, differentiable=True,
                 stype="default", grad_stype="default"):
        self.name = name
        _check_param_stype(name, "stype", stype)
        _check_param_stype(name, "grad_stype", grad_stype)
        self._stype, self._grad_stype = stype, grad_stype
        self._shape = None if shape is None else (
            (int(shape),) if isinstance(shape, (int, np.integer)) else
            tuple(0 if int(d) == -1 else int(d) for d in shape))
        self._dtype = normalize_dtype(dtype, f"Parameter {name!r} dtype").type
        self._dtype_as_given = dtype   # what repr shows, as MXNet does ('float32' or a class)
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.init = init
        self._allow_deferred_init = allow_deferred_init
        self._differentiable = differentiable
        self._grad_req = check_grad_req(grad_req) if differentiable else "null"
        self._data = None      # OrderedDict ctx -> NDArray
        self._grad = None
        self._deferred_init = ()
        self._var = None
        self._trainer = None   # the Trainer that updates this parameter

    def __repr__(self):
        return f"Parameter {self.name} (shape={self.shape}, dtype={self._shown_dtype()})"

    def _shown_dtype(self):
        given = getattr(self, "_dtype_as_given", self._dtype)
        return given if normalize_dtype(given, "dtype").type is self._dtype else self._dtype

    # ---- MXNet's per-context bookkeeping ------------------------------------------------------
    # Derived here from the arrays themselves; libraries that wrap a Parameter (GluonNLP's
    # WeightDropParameter) read and copy them across, so they keep MXNet's names and forms.
    @property
    def _ctx_list(self):
        """The contexts holding the values (or awaiting them, when initialization is
        deferred), in order; None before `initialize`."""
        if self._data is not None:
            return list(self._data.keys())
        if self._deferred_init:
            return list(self._deferred_init[1])
        return None

    @_ctx_list.setter
    def _ctx_list(self, ctx_list):
        if ctx_list is not None and ctx_list != self._ctx_list:
            raise ValueError(f"Parameter {self.name!r}: _ctx_list follows the data's contexts "
                             f"{self._ctx_list}; set the data (or `_data`) instead of "
                             f"{ctx_list}")

    @property
    def _ctx_map(self):
        """MXNet's index of `_ctx_list`: ``[device_typeid][device_id] -> position``."""
        ctx_map = []
        for i, ctx in enumerate(self._ctx_list or ()):
            while len(ctx_map) <= ctx.device_typeid:
                ctx_map.append([])
            row = ctx_map[ctx.device_typeid]
            while len(row) <= ctx.device_id:
                row.append(None)
            row[ctx.device_id] = i
        return ctx_map

    @_ctx_map.setter
    def _ctx_map(self, ctx_map):
        if ctx_map != self._ctx_map:
            raise ValueError(f"Parameter {self.name!r}: _ctx_map follows the data's contexts; "
                             "set the data (or `_data`) instead")

    # ---- attributes -----------------------------------------------------------------------
    @property
    def dtype(self):
        """The numpy type of the values (``numpy.float32``); setting it casts them (`cast`).

        Example::

            p = gluon.Parameter('w', shape=(2, 3), dtype='float16')
            p.dtype   # <class 'numpy.float16'>
        """
        return self._dtype

    @dtype.setter
    def dtype(self, dtype):
        self.cast(dtype)

    @property
    def stype(self):
        """The storage type of the data ('default', 'row_sparse' or 'csr').

        Example::

            p = gluon.Parameter('w', shape=(10, 4), stype='row_sparse')
            p.stype   # row_sparse
        """
        return self._stype

    @property
    def grad_stype(self):
        """The storage type of the gradient ('default', 'row_sparse' or 'csr').

        Example::

            p = gluon.Parameter('w', shape=(10, 4), grad_stype='row_sparse')
            p.grad_stype   # row_sparse
        """
        return self._grad_stype

    @property
    def shape(self):
        """The parameter's shape (0 entries: not known yet, inferred on first use; shown as
        -1 under NumPy shape semantics, where 0 is a real size, as MXNet shows them).

        Example::

            p = gluon.Parameter('w', shape=(0, 3))   # 0: not known yet
            p.shape = (2, 3)
            p.shape   # (2, 3)
        """
        if self._shape is not None and is_np_shape():
            return tuple(-1 if d == 0 else d for d in self._shape)
        return self._shape

    @shape.setter
    def shape(self, new_shape):
        # -1 (NumPy shape semantics' unknown) is kept as 0: a parameter is never zero-size
        new_shape = tuple(0 if int(d) == -1 else int(d) for d in new_shape)
        if self._shape is not None:
            if len(self._shape) != len(new_shape) or any(
                    old not in (0, new) for old, new in zip(self._shape, new_shape)):
                raise ValueError(f"Parameter {self.name!r}: expected shape {self._shape} "
                                 f"(0 = any), got {new_shape}")
        self._shape = new_shape
        if self._var is not None:
            self._var._outputs[0][0].attrs["__shape__"] = str(self.shape)

    @property
    def grad_req(self):
        """'write', 'add' or 'null': how backward treats this parameter's gradient.

        Example::

            p = gluon.Parameter('w', shape=(2, 3))
            p.grad_req = 'null'   # frozen: no gradient, the Trainer skips it
            p.grad_req   # null
        """
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        check_grad_req(req)
        if not self._differentiable:
            req = "null"
        if self._grad_req == req:
            return
        self._grad_req = req
        if self._data is not None:
            self._init_grad()

    def _set_trainer(self, trainer):
        """Remember the Trainer updating this parameter (MXNet keeps it in ``_trainer``), so
        that `set_data` can tell it that its kvstore copy is stale and `row_sparse_data` can
        pull rows from it; None forgets it.

        Raises:
            RuntimeError: a sparse parameter already has another Trainer (its whole value
                lives in that Trainer's kvstore), as in MXNet.
        """
        old = self._trainer
        if self._stype != "default" and old is not None and trainer is not None \
                and old is not trainer:
            raise RuntimeError(f"Failed to set the trainer for Parameter {self.name!r} because "
                               f"it was already set. More than one trainers for a "
                               f"{self._stype} Parameter is not supported.")
        self._trainer = trainer

    def list_ctx(self):
        """The contexts this parameter lives on.

        Raises:
            UninitializedParameterError: not initialized.

        Example::

            p = gluon.Parameter('w', shape=(2, 3))
            p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
            p.list_ctx()   # [cpu(0), cpu(1)]
        """
        if self._data is None:
            if self._deferred_init:
                return list(self._deferred_init[1])
            raise self._uninitialized()
        return list(self._data.keys())

    # ---- initialization -------------------------------------------------------------------
    def initialize(self, init=None, ctx=None, default_init=None, force_reinit=False):
        """Allocate and fill the parameter (deferred when the shape has unknown dims).

        Args:
            init: an initializer for this parameter (default: its own `init`, else
                `default_init`).
            ctx: a Context or list of Contexts (default: current context).
            default_init: the global initializer (default: Uniform()).
            force_reinit: re-initialize an initialized parameter.

        Raises:
            ValueError: the shape is unknown and deferred initialization is not allowed.

        Example::

            p = gluon.Parameter('w', shape=(2, 3))
            p.initialize(init=mx.init.Constant(0.5))
            p.data().asnumpy()[0]   # [0.5 0.5 0.5]
        """
        if self._data is not None and not force_reinit:
            warnings.warn(f"Parameter {self.name!r} is already initialized, ignoring. Set "
                          "force_reinit=True to re-initialize.", stacklevel=2)
            return
        self._data = self._grad = None
        ctx = _ctx_list(ctx)
        default_init = default_init if default_init is not None else _init.Uniform()
        if init is None:
            init = default_init if self.init is None else self.init
        self._deferred_init = (init, ctx, default_init, None)
        if not _shape_known(self._shape):
            if self._allow_deferred_init:
                return
            raise ValueError(f"Cannot initialize Parameter {self.name!r} because it has an "
                             f"invalid shape: {self._shape}")
        self._finish_deferred_init()

    def _finish_deferred_init(self):
        if not self._deferred_init:
            return
        init, ctx, default_init, data = self._deferred_init
        if not _shape_known(self._shape):
            raise ValueError(f"Parameter {self.name!r}: cannot finish deferred initialization, "
                             f"its shape {self._shape} is still not fully known")
        with autograd.pause():
            if data is None:
                data = NDArray(np.zeros(self._shape, dtype=self.dtype), Context("cpu", 0))
                if self._stype != "default":
                    data = data.tostype(self._stype)
                elif is_np_array():
                    # MXNet hands an initializer an mx.np array under NumPy array semantics,
                    # so a custom _init_weight may use mx.np functions on it
                    data = data.as_np_ndarray()
                _init.create(default_init)(
                    _init.InitDesc(self.name, {"__init__": init}), data)
                self._init_impl(data, ctx, owned=True)
            else:
                self._init_impl(data, ctx)
        self._deferred_init = ()

    def _init_impl(self, data, ctx_list, owned=False):
        """Set the parameter's arrays on `ctx_list` from `data`, copied; `owned`: data is an
        array made for this parameter alone (its initialization), whose buffer the first
        host context takes as it is (two copies fewer: a VGG Dense weight is 400 MB)."""
        take = (owned and isinstance(data, NDArray) and isinstance(data._data, np.ndarray)
                and data._data.dtype == self.dtype)
        src = data._data if take else (
            data.asnumpy() if isinstance(data, NDArray) else np.asarray(data))
        src = src.astype(self.dtype, copy=False)
        if self._stype != "default":
            self._data = _PerContext(
                (c, sparse._from_dense(src, self._stype, c)) for c in ctx_list)
        else:
            # NumPy array semantics at initialization makes mx.np arrays, as in MXNet
            cls = _array_class()
            arrays = []
            for c in ctx_list:
                host = take and c.xp is np
                arrays.append((c, cls(src if host else c.xp.array(src), c)))
                take = take and not host  # one context takes the buffer, the others copy
            self._data = _PerContext(arrays)
        self._init_grad()

    def _init_grad(self):
        if self._grad_req == "null":
            self._grad = None
            for d in self._data.values():
                d._entry, d._grad = None, None
            return
        self._grad = _PerContext()
        for c, d in self._data.items():
            if self._grad_stype == "default":
                # a dense gradient, of the data's array class (an mx.np parameter's is one
                # too); a sparse parameter's dense gradient is a plain NDArray
                cls = NDArray if d._sparse else type(d)
                g = cls(c.xp.zeros(d.shape, d.dtype), c)
            else:
                g = zeros(d.shape, ctx=c, dtype=d.dtype, stype=self._grad_stype)
            self._grad[c] = g
            autograd.mark_variables([d], [g], self._grad_req)

    def reset_ctx(self, ctx):
        """Move the parameter to other context(s), keeping its values (a deferred parameter
        records the contexts for its initialization).

        Args:
            ctx: a Context or a list of Contexts.

        Raises:
            UninitializedParameterError: the parameter was neither initialized nor deferred.

        Example::

            p = gluon.Parameter('w', shape=(2, 3)); p.initialize()
            p.reset_ctx(mx.cpu(1))
            p.list_ctx()   # [cpu(1)]
        """
        ctx = _ctx_list(ctx)
        if self._data is not None:
            self._init_impl(next(iter(self._data.values())), ctx)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, ctx, default_init, data)
        else:
            raise self._uninitialized()

    def _uninitialized(self):
        return UninitializedParameterError(
            f"Parameter {self.name!r} has not been initialized. Call initialize() on the block "
            "(or on collect_params()) before using it; note that Block.params holds only the "
            "block's own parameters, collect_params() includes its children's")

    def _check_and_get(self, arrs, ctx):
        if arrs is not None:
            if ctx is None:
                if len(arrs) == 1:
                    return next(iter(arrs.values()))
                ctx = current_context()
            hit = arrs.get(ctx if isinstance(ctx, Context) else Context(ctx))
            if hit is not None:
                return hit
            raise ValueError(f"Parameter {self.name!r} was not initialized on context {ctx}; "
                             f"it lives on {list(arrs.keys())}")
        if self._deferred_init:
            raise DeferredInitializationError(
                f"Parameter {self.name!r} has not been initialized yet because initialization "
                "was deferred until its shape is known. Pass one batch of data through the "
                "network first, or give the layer its input size (in_units, input_size, ...)")
        raise self._uninitialized()

    def data(self, ctx=None):
        """The NDArray on `ctx` (the only context when there is one).

        Raises:
            UninitializedParameterError: not initialized (names the parameter).
            DeferredInitializationError: initialization waits for the first forward.
            RuntimeError: a row_sparse parameter (read it with `row_sparse_data`).

        Example::

            p = gluon.Parameter('w', shape=(2, 3)); p.initialize(init=mx.init.One())
            p.data().shape   # (2, 3)
        """
        if self._stype != "default":
            raise RuntimeError(f"Cannot return a copy of Parameter {self.name!r} on ctx {ctx} "
                               f"via data() because its storage type is {self._stype}. "
                               "Please use row_sparse_data() instead.")
        return self._check_and_get(self._data, ctx)

    def row_sparse_data(self, row_id):
        """The rows `row_id` of a row_sparse parameter, on `row_id`'s context: the
        parameter's array there, which the Trainer's kvstore (holding the whole weight) fills
        with those rows. Use it in `forward` before reading the weight.

        Args:
            row_id: an NDArray of row numbers.

        Returns:
            The RowSparseNDArray holding the rows (the one autograd differentiates).

        Raises:
            RuntimeError: the parameter is not row_sparse (use `data`), or no Trainer was
                created with it.
            TypeError: `row_id` is not an NDArray.

        Example::

            w = gluon.Parameter('w', shape=(1000, 8), stype='row_sparse', grad_stype='row_sparse')
            w.initialize(); trainer = gluon.Trainer([w], 'sgd')
            rows = w.row_sparse_data(nd.array([3, 5]))   # rows 3 and 5 of the weight
            rows.indices.asnumpy()   # [3 5]
        """
        if self._stype != "row_sparse":
            raise RuntimeError(f"Cannot return a copy of Parameter {self.name!r} via "
                               "row_sparse_data() because its storage type is "
                               f"{self._stype!r}. Please use data() instead.")
        if not isinstance(row_id, NDArray):
            raise TypeError(f"Parameter {self.name!r}.row_sparse_data: row_id must be an "
                            f"NDArray, got {type(row_id).__name__}")
        return self._get_row_sparse(row_id.context, row_id)

    def list_row_sparse_data(self, row_id):
        """The rows `row_id` of a row_sparse parameter on every context (a list, in the
        order of `list_ctx`); see `row_sparse_data`.

        Raises:
            RuntimeError: the parameter is not row_sparse, or has no Trainer.

        Example::

            w = gluon.Parameter('w', shape=(100, 8), stype='row_sparse', grad_stype='row_sparse')
            w.initialize(ctx=[mx.cpu(0), mx.cpu(1)]); trainer = gluon.Trainer([w], 'sgd')
            len(w.list_row_sparse_data(nd.array([3, 5])))   # 2
        """
        if self._stype != "row_sparse":
            raise RuntimeError(f"Cannot return copies of Parameter {self.name!r} on all "
                               "contexts via list_row_sparse_data() because its storage type "
                               f"is {self._stype!r}. Please use data() instead.")
        if not isinstance(row_id, NDArray):
            raise TypeError(f"Parameter {self.name!r}.list_row_sparse_data: row_id must be an "
                            f"NDArray, got {type(row_id).__name__}")
        return self._get_row_sparse(list, row_id)

    def _get_row_sparse(self, ctx, row_id):
        trainer = self._trainer
        if trainer is None:
            raise RuntimeError(f"Cannot get row_sparse data for Parameter {self.name!r} when no "
                               "Trainer is created with it.")
        results = self._all_data() if ctx is list else self._check_and_get(self._data, ctx)
        trainer._row_sparse_pull(self, results, row_id)
        return results

    def list_data(self):
        """The NDArrays on every context.

        Raises:
            RuntimeError: a row_sparse parameter (use `list_row_sparse_data`).

        Example::

            p = gluon.Parameter('w', shape=(2, 3))
            p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
            [d.context for d in p.list_data()]   # [cpu(0), cpu(1)]
        """
        if self._stype != "default":
            raise RuntimeError(f"Cannot return copies of Parameter {self.name!r} on all "
                               "contexts via list_data() because its storage type is "
                               f"{self._stype}. Please use row_sparse_data() instead.")
        return self._all_data()

    def _all_data(self):
        """The arrays on every context, whatever the storage type (for the Trainer)."""
        if self._data is None:
            self._check_and_get(None, None)
        return list(self._data.values())

    def grad(self, ctx=None):
        """The gradient NDArray on `ctx`.

        Raises:
            ValueError: grad_req is 'null'.

        Example::

            p = gluon.Parameter('w', shape=(3,)); p.initialize(init=mx.init.One())
            with autograd.record():
                y = (p.data() * 2).sum()
            y.backward()
            p.grad().asnumpy()   # [2. 2. 2.]
        """
        if self._data is not None and self._grad is None:
            raise ValueError(f"Parameter {self.name!r} has no gradient because grad_req='null'")
        return self._check_and_get(self._grad, ctx)

    def list_grad(self):
        """The gradient NDArrays on every context.

        Example::

            p = gluon.Parameter('w', shape=(3,))
            p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
            len(p.list_grad())   # 2
        """
        if self._data is not None and self._grad is None:
            raise ValueError(f"Parameter {self.name!r} has no gradient because grad_req='null'")
        if self._grad is None:
            self._check_and_get(None, None)
        return list(self._grad.values())

    def set_data(self, data):
        """Overwrite the values on every context (or the pending values of a deferred one).

        Args:
            data: an NDArray or array-like with the new values (cast to the parameter's
                dtype).

        Raises:
            UninitializedParameterError: the parameter was neither initialized nor deferred.
            ValueError: a shape that does not match.

        Example::

            p = gluon.Parameter('w', shape=(2,)); p.initialize()
            p.set_data(nd.array([1, 2]))
            p.data().asnumpy()   # [1. 2.]
        """
        arr = data.asnumpy() if isinstance(data, NDArray) else np.asarray(data)
        self.shape = arr.shape
        if self._data is None:
            if self._deferred_init:
                init, ctx, default_init, _ = self._deferred_init
                self._deferred_init = (init, ctx, default_init, arr)
                return
            raise self._uninitialized()
        trainer = self._trainer
        if trainer is not None and trainer._kv_initialized and trainer._update_on_kvstore \
                and self not in trainer._params_to_init:
            # the kvstore holds the weights it updates: new values make its copy stale
            trainer._reset_kvstore()
        for d in self._data.values():
            d[:] = arr.astype(d.dtype, copy=False)

    def zero_grad(self):
        """Set the gradient buffers to zero (needed between steps with grad_req='add').

        Example::

            p = gluon.Parameter('w', shape=(2,), grad_req='add'); p.initialize()
            with autograd.record():
                y = p.data().sum()
            y.backward()
            p.zero_grad()
            p.grad().asnumpy()   # [0. 0.]
        """
        if self._grad is None:
            return
        for g in self._grad.values():
            if g.stype != "default":
                store_gradient(g, None, "write")
            else:
                g._data[...] = 0

    def _load_init(self, data, ctx, cast_dtype=False, dtype_source="current"):
        """Set values from loaded `data`, initializing when needed.

        Raises:
            ValueError: a shape that does not match (both named), a dtype that does not match
                without `cast_dtype`, a bad `dtype_source`.
        """
        if dtype_source not in ("current", "saved"):
            raise ValueError(f"Parameter {self.name!r}: dtype_source must be 'current' or "
                             f"'saved', got {dtype_source!r}")
        arr = data.asnumpy() if isinstance(data, NDArray) else np.asarray(data)
        if self._shape is not None and (len(self._shape) != arr.ndim or any(
                a not in (0, b) for a, b in zip(self._shape, arr.shape))):
            raise ValueError(f"Failed loading Parameter {self.name!r} from saved params: shape "
                             f"incompatible, expected {self._shape} vs saved {arr.shape}")
        self.shape = arr.shape
        if np.dtype(self.dtype) != arr.dtype:
            if not cast_dtype:
                raise ValueError(
                    f"Failed loading Parameter {self.name!r} from saved params: dtype "
                    f"incompatible, expected {np.dtype(self.dtype).name} vs saved "
                    f"{arr.dtype.name}. Set cast_dtype=True to cast the saved values")
            if dtype_source == "saved":
                self.cast(arr.dtype)
            arr = arr.astype(self.dtype)
        if self._data is None:
            if self._deferred_init:
                ctx_list = self._deferred_init[1]
            else:
                ctx_list = [Context("cpu", 0)] if ctx is None else _ctx_list(ctx)
            self._deferred_init = ()
            self._init_impl(arr, ctx_list)
        else:
            self.set_data(arr)

    def _reduce(self):
        """The value averaged over contexts, on cpu (what gets saved); for a row_sparse
        parameter the whole weight, from its Trainer's kvstore.

        Raises:
            RuntimeError: a row_sparse parameter without a Trainer.
        """
        if self._stype != "default":
            trainer = self._trainer
            if trainer is None:
                raise RuntimeError(f"Cannot reduce row_sparse data for Parameter {self.name!r} "
                                   "when no Trainer is created with it.")
            cpu = Context("cpu", 0)
            data = nd.zeros(self.shape, ctx=cpu, dtype=self.dtype, stype=self._stype)
            trainer._row_sparse_pull(self, data, nd.arange(0, self.shape[0], ctx=cpu,
                                                           dtype="int64"), full_idx=True)
            return data
        arrs = self.list_data()
        val = np.mean([a.asnumpy() for a in arrs], axis=0).astype(self.dtype) \
            if len(arrs) > 1 else arrs[0].asnumpy()
        return NDArray(val, Context("cpu", 0))

    def var(self):
        """The symbol variable of this parameter (one per Parameter, reused); a numpy symbol
        under NumPy array semantics (`mx.util.is_np_array`), as in MXNet.

        Example::

            p = gluon.Parameter('w', shape=(2, 3))
            p.var().name   # w
        """
        if self._var is None:
            extra = {"stype": self._stype} if self._stype != "default" else {}
            self._var = symbol.var(self.name, shape=self.shape, dtype=self.dtype,
                                   lr_mult=self.lr_mult, wd_mult=self.wd_mult,
                                   init=self.init, **extra)
        if is_np_array():
            return self._var.as_np_ndarray()
        return self._var

    def cast(self, dtype):
        """Convert the data (and gradient) on every context to `dtype`
        (e.g. ``'float16'``, ``np.float64``).

        Example::

            p = gluon.Parameter('w', shape=(2,)); p.initialize()
            p.cast('float64')
            p.data().dtype   # <class 'numpy.float64'>
        """
        self._dtype = normalize_dtype(dtype, f"Parameter {self.name!r} cast").type
        self._dtype_as_given = dtype
        if self._var is not None:
            self._var = None
        if self._data is None:
            return
        with autograd.pause():
            self._data = _PerContext(
                (c, d.astype(self._dtype) if d.stype != "default"
                 else type(d)(d._data.astype(self._dtype), c)) for c, d in self._data.items())
            self._init_grad()


class Constant(Parameter):
    """A parameter that never changes: ignored by autograd and `Trainer` (grad_req is always
    'null'), initialized to `value` (float32 unless `value` is an NDArray, as MXNet's
    `nd.array`). `set_data` can still change it.

    Args:
        name: the parameter's name.
        value: an NDArray or array-like.

    Example::

        const = gluon.Constant('const', [[1, 2], [3, 4]])
        const.initialize(); const.data()          # float32 [[1, 2], [3, 4]]
    """

    def __init__(self, name, value):
        if isinstance(value, NDArray):
            value = value.asnumpy()
        else:
            value = np.asarray(value, dtype=np.float32)
        # the initializer holds a list: a graph's JSON records it (`var().attr('__init__')`)
        super().__init__(name, grad_req="null", shape=value.shape, dtype=value.dtype.type,
                         init=_init.Constant(value.tolist()))
        self.value = NDArray(value, Context("cpu", 0))

    def __repr__(self):
        return f"Constant {self.name} (shape={self.shape}, dtype={self._shown_dtype()})"

    @property
    def grad_req(self):
        """Always 'null': a constant has no gradient (setting another value warns).

        Example::

            c = gluon.Constant('c', nd.array([1, 2]))
            c.grad_req   # null
        """
        return "null"

    @grad_req.setter
    def grad_req(self, req):
        if req != "null":
            warnings.warn(f"Constant parameter {self.name!r} does not support grad_req other "
                          f"than 'null'; the new value {req!r} is ignored", stacklevel=2)


class ParameterDict:
    """An ordered dict name -> Parameter sharing a name prefix.

    Args:
        prefix: prepended to names given to `get`.
        shared: another ParameterDict whose parameters `get` reuses by name.

    Example::

        pd = gluon.ParameterDict('net_')
        w = pd.get('weight', shape=(3, 2))     # Parameter 'net_weight'
    """

    def __init__(self, prefix="", shared=None):
        self._prefix = prefix
        self._params = OrderedDict()
        self._shared = shared

    def __repr__(self):
        body = "\n".join(f"  {p!r}" for p in self._params.values())
        return f"{self._prefix} (\n{body}\n)" if self._prefix else f"(\n{body}\n)"

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __len__(self):
        return len(self._params)

    def __contains__(self, key):
        return key in self._params

    def items(self):
        """(name, Parameter) pairs.

        Example::

            pd = gluon.ParameterDict('net_'); pd.get('w', shape=(2,))
            [(name, p.shape) for name, p in pd.items()]   # [('net_w', (2,))]
        """
        return self._params.items()

    def keys(self):
        """Parameter names.

        Example::

            pd = gluon.ParameterDict('net_'); pd.get('w', shape=(2,)); pd.get('b', shape=(1,))
            list(pd.keys())   # ['net_w', 'net_b']
        """
        return self._params.keys()

    def values(self):
        """Parameters.

        Example::

            pd = gluon.ParameterDict('net_'); pd.get('w', shape=(2,))
            [p.name for p in pd.values()]   # ['net_w']
        """
        return self._params.values()

    @property
    def prefix(self):
        """The prefix of names created by `get`.

        Example::

            pd = gluon.ParameterDict('net_')
            pd.prefix   # net_
        """
        return self._prefix

    def _get_impl(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._params[name]
        return None

    def get(self, name, **kwargs):
        """The Parameter ``prefix + name``, created with `kwargs` if missing.

        Args:
            name: the parameter's name without this dict's prefix.
            **kwargs: the `Parameter` constructor's arguments (shape, init, dtype, ...); for
                an existing parameter, unset attributes are filled in and a shape with 0
                entries may be completed.

        Returns:
            the Parameter.

        Raises:
            ValueError: an existing parameter whose attributes contradict `kwargs`.

        Example::

            pd = gluon.ParameterDict('net_')
            w = pd.get('weight', shape=(3, 4))   # created
            pd.get('weight') is w   # True
        """
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for k, v in kwargs.items():
            existing = getattr(param, k, None)
            if existing is None or v is None:
                if v is not None and hasattr(param, k):
                    setattr(param, k, v)
                continue
            if k == "shape":
                v = tuple(v) if not isinstance(v, int) else (v,)
                if len(v) == len(existing) and all(a in (0, b) or b == 0 for a, b in
                                                   zip(v, existing)):
                    param._shape = tuple(max(a, b) for a, b in zip(v, existing))
                    continue
            elif k == "dtype" and np.dtype(v) == np.dtype(existing):
                continue
            elif k == "init" and _same_init(v, existing):
                continue
            if v != existing:
                raise ValueError(f"Cannot retrieve Parameter {name!r}: its {k} is {existing!r} "
                                 f"but {v!r} was asked for")
        return param

    def get_constant(self, name, value=None):
        """The Constant ``prefix + name`` (from this dict or the shared one), created from
        `value` when missing.

        Args:
            name: the constant's name without this dict's prefix.
            value: an NDArray or array-like with its value (default None: the constant must
                already exist).

        Returns:
            the Constant.

        Raises:
            KeyError: no such constant and no `value`.
            ValueError: an existing parameter that is not a Constant, or whose value differs
                from `value`.

        Example::

            pd = gluon.ParameterDict('net_')
            c = pd.get_constant('scale', nd.array([2.0]))
            c.name   # net_scale
        """
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise KeyError(f"No constant named {name!r}; give a value to create it")
            param = self._params[name] = Constant(name, value)
        elif value is not None:
            if not isinstance(param, Constant):
                raise ValueError(f"Parameter {name!r} already exists but it is not a constant")
            value = value.asnumpy() if isinstance(value, NDArray) else np.asarray(value)
            if param.shape != value.shape or not (param.value.asnumpy() == value).all():
                raise ValueError(f"Constant {name!r} already exists with a value different "
                                 "from the one given")
        return param

    def update(self, other):
        """Add the parameters of `other` (a ParameterDict or dict).

        Raises:
            ValueError: a different Parameter with an already used name.

        Example::

            a = gluon.ParameterDict('a_'); a.get('w', shape=(2,))
            b = gluon.ParameterDict('b_'); b.get('w', shape=(2,))
            a.update(b)
            list(a.keys())   # ['a_w', 'b_w']
        """
        for k, v in other.items():
            if k in self._params and self._params[k] is not v:
                raise ValueError(f"Cannot update self with other because they have different "
                                 f"Parameters with the same name {k!r}")
            self._params[k] = v

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False):
        """Initialize every parameter (`init` is the global default, Uniform() when None).

        Args:
            init: the default initializer; a parameter's own ``init`` takes precedence.
            ctx: a Context or list of Contexts (default None: the current context).
            verbose: turn on the initializer's logging (its ``set_verbosity``; default False).
            force_reinit: re-initialize already initialized parameters (default False: they
                keep their values, with a warning).

        Example::

            pd = gluon.ParameterDict('net_'); pd.get('w', shape=(2,))
            pd.initialize(mx.init.Zero())
            pd['net_w'].data().asnumpy()   # [0. 0.]
        """
        init = _init.Uniform() if init is None else init
        if verbose and hasattr(init, "set_verbosity"):
            init.set_verbosity(verbose=verbose)
        for p in self.values():
            p.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        """Zero every gradient.

        Example::

            net = nn.Dense(2, in_units=3); net.initialize()
            params = net.collect_params()
            params.zero_grad()
            net.weight.grad().sum().asscalar()   # 0.0
        """
        for p in self.values():
            p.zero_grad()

    def reset_ctx(self, ctx):
        """Move every parameter to `ctx`.

        Example::

            net = nn.Dense(2, in_units=3); net.initialize()
            net.collect_params().reset_ctx(mx.cpu(1))
            net.collect_params().list_ctx()   # [cpu(1)]
        """
        for p in self.values():
            p.reset_ctx(ctx)

    def list_ctx(self):
        """Contexts used by any parameter.

        Example::

            net = nn.Dense(2, in_units=3); net.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
            net.collect_params().list_ctx()   # [cpu(0), cpu(1)]
        """
        out = []
        for p in self.values():
            for c in p.list_ctx():
                if c not in out:
                    out.append(c)
        return out

    def setattr(self, name, value):
        """Set attribute `name` of every parameter (e.g. ``setattr('grad_req', 'add')``).

        Args:
            name: the attribute's name ('grad_req', 'lr_mult', 'wd_mult', ...).
            value: the value every parameter gets.

        Example::

            net = nn.Dense(2, in_units=3)
            net.collect_params().setattr('grad_req', 'null')   # freeze the layer
            net.weight.grad_req   # null
        """
        for p in self.values():
            setattr(p, name, value)

    def select(self, pattern):
        """A ParameterDict of the parameters whose names match regex `pattern` (from the start).

        Example::

            net = nn.Dense(2, in_units=3, prefix='fc_')
            list(net.collect_params().select('.*bias').keys())   # ['fc_bias']
        """
        rx = re.compile(pattern)
        out = ParameterDict(self._prefix)
        out.update({k: v for k, v in self.items() if rx.match(k)})
        return out

    def save(self, filename, strip_prefix=""):
        """Save every parameter to `filename` (MXNet's binary format), names without
        `strip_prefix`.

        Raises:
            ValueError: a name that does not start with `strip_prefix`.

        Example::

            net = nn.Dense(2, in_units=3, prefix='fc_'); net.initialize()
            net.collect_params().save('fc.params', strip_prefix='fc_')
            sorted(nd.load('fc.params'))   # ['bias', 'weight']
        """
        arg = {}
        for p in self.values():
            if not p.name.startswith(strip_prefix):
                raise ValueError(f"Prefix {strip_prefix!r} is to be stripped before saving, but "
                                 f"Parameter {p.name!r} does not start with it")
            arg[p.name[len(strip_prefix):]] = p._reduce()
        save(filename, arg)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
             restore_prefix="", cast_dtype=False, dtype_source="current"):
        """Load values saved by `save` or by MXNet's export (``arg:``/``aux:`` stripped),
        names prefixed with `restore_prefix`.

        Args:
            filename: the path of the parameter file.
            ctx: the context(s) for parameters not initialized yet (default None: cpu).
            allow_missing: leave parameters the file lacks as they are (default False:
                raise).
            ignore_extra: ignore entries of the file no parameter has (default False: raise).
            restore_prefix: prepended to every name read (default '').
            cast_dtype: cast a saved array whose dtype differs from the parameter's.
            dtype_source: with `cast_dtype`, 'current' keeps each parameter's dtype, 'saved'
                gives the parameter the file's dtype.

        Raises:
            ValueError: listing every missing, extra or mis-shaped entry at once; a dtype
                mismatch without `cast_dtype`; a parameter not starting with `restore_prefix`.

        Example::

            net = nn.Dense(2, in_units=3, prefix='fc_'); net.initialize()
            net.collect_params().save('fc.params')
            net2 = nn.Dense(2, in_units=3, prefix='fc_')
            net2.collect_params().load('fc.params')
        """
        loaded = load(filename)
        if isinstance(loaded, list):  # an empty file (a model without parameters) is no list
            if loaded:
                raise ValueError(f"{filename}: the file holds unnamed arrays; parameters need "
                                 "names")
            loaded = {}
        self.load_dict(loaded, ctx, allow_missing, ignore_extra, restore_prefix, filename,
                       cast_dtype, dtype_source)

    def load_dict(self, param_dict, ctx=None, allow_missing=False, ignore_extra=False,
                  restore_prefix="", filename=None, cast_dtype=False, dtype_source="current"):
        """Load values from a dict name -> NDArray (names as `load` reads them from a file).

        Args:
            param_dict: a dict name -> NDArray (``arg:``/``aux:`` prefixes are dropped).
            ctx: the context(s) for parameters not initialized yet (default None: cpu).
            allow_missing: leave parameters the dict lacks as they are (default False: raise).
            ignore_extra: ignore entries no parameter has (default False: raise).
            restore_prefix: prepended to every name (default ''); each parameter's name must
                start with it.
            filename: the name error messages give the source (default None:
                'param_dict').
            cast_dtype: cast an array whose dtype differs from the parameter's.
            dtype_source: with `cast_dtype`, 'current' keeps each parameter's dtype, 'saved'
                gives the parameter the array's dtype.

        Raises:
            ValueError: as `load`.

        Example::

            net = nn.Dense(2, in_units=3, prefix='fc_')
            net.collect_params().load_dict({'fc_weight': nd.ones((2, 3)), 'fc_bias': nd.zeros(2)})
            net(nd.ones((1, 3))).asnumpy()   # [[3. 3.]]
        """
        if restore_prefix:
            bad = [k for k in self.keys() if not k.startswith(restore_prefix)]
            if bad:
                raise ValueError(f"ParameterDict.load: restore_prefix is {restore_prefix!r} but "
                                 f"Parameter {bad[0]!r} does not start with it")
        arg = {}
        for k, v in param_dict.items():
            if k.startswith("arg:") or k.startswith("aux:"):
                k = k[4:]
            arg[restore_prefix + k] = v
        assign_loaded(self._params, arg, filename or "param_dict", ctx, allow_missing,
                      ignore_extra, cast_dtype, dtype_source)


def _same_init(a, b):
    """Whether two initializers (or names) would initialize alike: MXNet compares them with
    ==, which for its initializers compares their kind and arguments."""
    if a is b or a == b:
        return True
    return type(a) is type(b) and repr(a) == repr(b)


def assign_loaded(params, loaded, filename, ctx, allow_missing, ignore_extra, cast_dtype=False,
                  dtype_source="current"):
    """Check `loaded` (name -> NDArray) against `params` (name -> Parameter), reporting every
    missing, extra and mis-shaped entry in one ValueError, then assign the values.

    A Parameter registered under several names (shared between blocks) counts as present
    when the file has any one of them, as MXNet writes such files with
    ``save_parameters(deduplicate=True)``.

    Args:
        params: a dict name -> Parameter.
        loaded: a dict name -> NDArray.
        filename: the source's name for error messages.
        ctx: the context(s) for parameters not initialized yet (None: cpu).
        allow_missing: accept parameters `loaded` lacks (they keep their values).
        ignore_extra: accept entries of `loaded` no parameter has.
        cast_dtype: cast an array whose dtype differs from its parameter's (default False).
        dtype_source: with `cast_dtype`, 'current' keeps each parameter's dtype, 'saved'
            gives the parameter the array's dtype (default 'current').

    Raises:
        ValueError: listing every missing, extra and mis-shaped entry; a dtype mismatch
            without `cast_dtype`.

    Example::

        from gluonlite.gluon.parameter import assign_loaded
        net = nn.Dense(2, in_units=3, prefix='fc_')
        loaded = {'fc_weight': nd.ones((2, 3)), 'fc_bias': nd.zeros(2)}
        assign_loaded(net.collect_params(), loaded, 'memory', None, False, False)
        net.bias.data().asnumpy()   # [0. 0.]
    """
    problems = []
    names_of = {}
    for k, p in params.items():
        names_of.setdefault(id(p), []).append(k)
    missing = [k for k, p in params.items()
               if not any(n in loaded for n in names_of[id(p)])]
    extra = [k for k in loaded if k not in params]
    if missing and not allow_missing:
        problems.append(f"missing in the file: {', '.join(missing)} (set allow_missing=True "
                        "to ignore them)")
    if extra and not ignore_extra:
        problems.append(f"in the file but not in the block: {', '.join(extra)} (set "
                        "ignore_extra=True to ignore them)")
    bad = []
    for k, v in loaded.items():
        p = params.get(k)
        if p is None or p.shape is None:
            continue
        # p._shape keeps 0 for a dimension not known yet (p.shape shows it as -1 under
        # NumPy shape semantics)
        if len(p._shape) != len(v.shape) or any(
                a not in (0, b) for a, b in zip(p._shape, v.shape)):
            bad.append(f"{k} (expected {p.shape}, file has {tuple(v.shape)})")
    if bad:
        problems.append(f"shape mismatch: {', '.join(bad)}")
    if problems:
        raise ValueError(f"{filename}: cannot load parameters: " + "; ".join(problems))
    for k, v in loaded.items():
        if k in params:
            params[k]._load_init(v, ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)
