"""Small helpers of `gluon` (MXNet's gluon.utils subset)."""
import numpy as np

__all__ = ["split_data", "split_and_load", "clip_global_norm", "check_sha1", "download",
           "replace_file", "shape_is_known", "is_np_array", "is_np_shape"]


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


def check_sha1(filename, sha1_hash):
    """Whether the SHA-1 digest of file `filename` is `sha1_hash` (hex).

    Raises:
        FileNotFoundError: the file does not exist.

    Example: ``check_sha1('data/mnist.gz', 'c3a25af1f52dad7f726cce8cacb138654b760d48')``.
    """
    import hashlib
    sha1 = hashlib.sha1()
    with open(filename, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            sha1.update(chunk)
    return sha1.hexdigest() == sha1_hash


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    """MXNet's downloader, offline: return the local file the URL names when it is already
    there (and matches `sha1_hash` when one is given); gluonlite never fetches.

    Args:
        url: the URL.
        path: the destination file, or a folder (default: the URL's file name here).
        overwrite: MXNet re-downloads then; here it is an error unless the file exists.
        sha1_hash: the expected SHA-1 of the file.

    Returns:
        the file path.

    Raises:
        FileNotFoundError: the file is not there (the message names the URL and the path to
            place it at by hand).
        ValueError: the file's SHA-1 differs from `sha1_hash`.

    Example: ``gluon.utils.download('http://x/y.tar.gz', 'data/y.tar.gz')``.
    """
    import os
    fname = url.split("/")[-1]
    if path is None:
        path = fname
    else:
        path = os.path.expanduser(path)
        if os.path.isdir(path):
            path = os.path.join(path, fname)
    if not os.path.exists(path):
        raise FileNotFoundError(f"download: gluonlite does not download; fetch {url} by hand "
                                f"and place it at {os.path.abspath(path)}")
    if sha1_hash and not check_sha1(path, sha1_hash):
        raise ValueError(f"download: {path} does not match the SHA-1 {sha1_hash} expected "
                         f"for {url}; replace it with the file from that URL")
    return path


def replace_file(src, dst):
    """Move file `src` over `dst` in one step (os.replace: atomic on POSIX and Windows).

    Example: ``replace_file('model.params.tmp', 'model.params')``.
    """
    import os
    os.replace(src, dst)


def is_np_array():
    """Whether MXNet's numpy-array mode is on: always False (gluonlite has NDArray only)."""
    return False


def is_np_shape():
    """Whether MXNet's numpy-shape mode is on: always False (0 marks an unknown dim)."""
    return False


def shape_is_known(shape):
    """Whether every dimension of `shape` is known (None, or a 0 dim, means unknown; an
    empty shape is unknown, as MXNet 1.x without numpy-shape mode has it).

    Raises:
        ValueError: a negative dimension.

    Example: ``shape_is_known((2, 0))`` is False.
    """
    if shape is None or len(shape) == 0:
        return False
    for dim in shape:
        if dim is None or dim == 0:
            return False
        if dim < 0:
            raise ValueError(f"shape_is_known: dimension sizes must be >= 0, got {shape}")
    return True
