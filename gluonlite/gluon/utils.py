"""Small helpers of `gluon` (MXNet's gluon.utils subset)."""
import numpy as np

__all__ = ["split_data", "split_and_load", "clip_global_norm"]


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Split an NDArray into `num_slice` slices along `batch_axis`.

    Raises:
        ValueError: the batch does not split evenly when `even_split` is set.
    """
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError(f"split_data: data with shape {data.shape} cannot be evenly split into "
                         f"{num_slice} slices along axis {batch_axis}; use even_split=False")
    if num_slice == 1:
        return [data]
    step = size // num_slice
    bounds = [i * step for i in range(num_slice)] + [size]
    return [data.slice_axis(axis=batch_axis, begin=bounds[i], end=bounds[i + 1])
            for i in range(num_slice)]


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Split `data` into one slice per context and copy each slice there."""
    from ..ndarray import array
    if not hasattr(data, "as_in_context"):
        data = array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [s.as_in_context(c) for s, c in zip(slices, ctx_list)]


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Rescale NDArrays in place so that their joint L2 norm is at most `max_norm`;
    returns the norm before clipping."""
    total = float(np.sqrt(sum(float((a.asnumpy().astype(np.float64) ** 2).sum())
                              for a in arrays)))
    if check_isfinite and not np.isfinite(total):
        import warnings
        warnings.warn("clip_global_norm: nan or inf found in the arrays", stacklevel=2)
    scale = max_norm / (total + 1e-8)
    if scale < 1.0:
        for a in arrays:
            a._data *= scale
    return total
