"""`nd.Custom`: run an operator registered with `gluonlite.operator.register` on NDArrays.

Also installs what the ``Custom`` registry entry (`gluonlite.ops.custom`) needs from this
layer: wrapping raw arrays as NDArrays for the user's `CustomOp`, and pausing autograd while
its forward and backward run.
"""
import numpy as np

from .. import autograd_tape
from ..context import cpu, gpu
from ..ops import custom as _custom
from .invoke import plan_for, run_plan
from .ndarray import INSTALLED, NDArray

__all__ = ["Custom"]


def _context(raw):
    if isinstance(raw, np.ndarray):
        return cpu()
    device = getattr(raw, "device", None)
    return gpu(getattr(device, "id", 0) or 0)


_custom.ARRAYS.wrap = lambda raw: NDArray(raw, _context(raw))
_custom.ARRAYS.unwrap = lambda x: x._data


def _wrap_np(raw):
    return INSTALLED["np_ndarray"](raw, _context(raw))


_custom.ARRAYS.wrap_np = _wrap_np
_custom.ARRAYS.context = _context
_custom.ARRAYS.paused = lambda is_train: autograd_tape.Mode(False, is_train)


def Custom(*data, op_type=None, name=None, out=None, **kwargs):
    """Apply the custom operator registered as `op_type`.

    Args:
        *data: the inputs in the order of the property's `list_arguments()` (then its
            auxiliary states); inputs may also be given by those names as keywords.
        op_type: the name given to `mx.operator.register`.
        name: not used by the imperative call (MXNet's signature; a node's name in `sym.Custom`).
        out: an NDArray, or a list of them, to copy the outputs into and return instead
            (default None: new arrays).
        **kwargs: other keywords: inputs by name, the rest handed (as strings) to the
            property's constructor.

    Returns:
        One NDArray, or a list when the property lists several outputs (`out` when given).

    Raises:
        TypeError: no op_type, an unknown input name, or an input given twice.
        ValueError: no operator registered as op_type.

    Example::

        class Double(mx.operator.CustomOp):
            def forward(self, is_train, req, in_data, out_data, aux):
                self.assign(out_data[0], req[0], in_data[0] * 2)
        @mx.operator.register("double_nd_custom")
        class DoubleProp(mx.operator.CustomOpProp):
            def create_operator(self, ctx, in_shapes, in_dtypes):
                return Double()
        nd.Custom(nd.array([1, 2]), op_type="double_nd_custom").asnumpy()   # [2. 4.]
    """
    if op_type is None:
        raise TypeError("Custom: missing required argument 'op_type' (the name a "
                        "CustomOpProp was registered under)")
    named = {k: v for k, v in kwargs.items() if isinstance(v, NDArray)}
    attrs = {k: v for k, v in kwargs.items() if k not in named}
    attrs["op_type"] = op_type
    plan = plan_for(_custom.CUSTOM, attrs)
    inputs = dict(zip(plan.names, data))
    if len(data) > len(plan.names):
        raise TypeError(f"Custom({op_type}): takes {len(plan.names)} input(s) "
                        f"({', '.join(plan.names)}), got {len(data)}")
    for k, v in named.items():
        if k not in plan.names:
            raise TypeError(f"Custom({op_type}): unknown input {k!r}; inputs are "
                            f"{', '.join(plan.names)}")
        if k in inputs:
            raise TypeError(f"Custom({op_type}): input {k!r} given twice")
        inputs[k] = v
    missing = [n for n in plan.names if n not in inputs]
    if missing:
        raise TypeError(f"Custom({op_type}): missing input(s) {', '.join(missing)}")
    res = run_plan(plan, [inputs[n] for n in plan.names])
    if out is not None:
        for o, r in zip(out if isinstance(out, (list, tuple)) else [out], res):
            o[:] = r
        return out
    return res[0] if len(res) == 1 else res
