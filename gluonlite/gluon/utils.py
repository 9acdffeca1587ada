"""Small helpers of `gluon` (MXNet's gluon.utils): splitting a batch over contexts, global
norm clipping, hook handles, file replacement."""
import os
import weakref

import numpy as np

from ..ndarray import array as _nd_array, array
from ..ndarray import numpy as _np_face  # mx.nd.np: the NumPy dialect's functions
from ..util import is_np_array, is_np_shape  # noqa: F401  (MXNet's gluon.utils has them)

__all__ = ["split_data", "split_and_load", "clip_global_norm", "HookHandle", "shape_is_known",
           "replace_file", "is_np_array", "is_np_shape", "check_sha1", "download"]


class HookHandle:
    """The handle `Block.register_forward_hook` and `register_forward_pre_hook` return:
    `detach()` removes the hook. Usable as a context manager (detaches on exit).

    Example::

        net = nn.Dense(3); net.initialize()
        handle = net.register_forward_hook(lambda block, x, y: print(y.shape))
        y = net(nd.ones((2, 4)))   # prints (2, 3)
        handle.detach()
        with net.register_forward_pre_hook(lambda block, x: print('called')):
            y = net(nd.ones((2, 4)))   # prints called; detached when the with block ends
    """

    _next_id = 0

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict, hook):
        """Add `hook` to `hooks_dict` (an ordered dict id -> hook) under a fresh id.

        Raises:
            ValueError: the handle is already attached.

        Example::

            from collections import OrderedDict
            hooks = OrderedDict()
            handle = gluon.utils.HookHandle()
            handle.attach(hooks, print)
            len(hooks)   # 1
        """
        if self._hooks_dict_ref is not None:
            raise ValueError("HookHandle.attach: the handle is already attached; make a new one")
        HookHandle._next_id += 1
        self._id = HookHandle._next_id
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self):
        """Remove the hook (a no-op when already detached or its block is gone).

        Example::

            net = nn.Dense(3); net.initialize()
            handle = net.register_forward_hook(lambda block, x, y: print('ran'))
            handle.detach()
            y = net(nd.ones((2, 4)))   # prints nothing
        """
        hooks = self._hooks_dict_ref() if self._hooks_dict_ref is not None else None
        if hooks is not None and self._id in hooks:
            del hooks[self._id]

    def __getstate__(self):
        return (self._hooks_dict_ref() if self._hooks_dict_ref is not None else None, self._id)

    def __setstate__(self, state):
        hooks, self._id = state
        self._hooks_dict_ref = None if hooks is None else weakref.ref(hooks)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.detach()


def shape_is_known(shape):
    """Whether every dimension of `shape` is known: in the legacy semantics a 0 dimension is
    unknown and so is an empty shape; under NumPy shape semantics (`mx.util.is_np_shape`) -1
    is unknown, 0 a real size and () a scalar's shape, as MXNet has it.

    Raises:
        ValueError: a dimension below the unknown marker.

    Example::

        gluon.utils.shape_is_known((2, 0))   # False
        gluon.utils.shape_is_known((2, 3))   # True
    """
    if shape is None:
        return False
    unknown = -1 if is_np_shape() else 0
    if len(shape) == 0:
        return unknown == -1
    for dim in shape:
        if dim is None or dim == unknown:
            return False
        if dim < unknown:
            raise ValueError(f"shape_is_known: shape {tuple(shape)} has a dimension below "
                             f"{unknown}; dimension sizes must be >= {unknown}")
    return True


def replace_file(src, dst):
    """Move file `src` to `dst`, replacing `dst` atomically where the OS can.

    Raises:
        OSError: the move fails (src is removed then, as MXNet does).

    Example::

        with open('new.txt', 'w') as f:
            f.write('v2')
        gluon.utils.replace_file('new.txt', 'config.txt')
        open('config.txt').read()   # v2
    """
    try:
        os.replace(src, dst)
    except OSError:
        try:
            os.remove(src)
        finally:
            raise


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Split an NDArray into `num_slice` slices along `batch_axis` (a list even for one
    slice). With ``even_split=False`` the first ``size % num_slice`` slices get one more
    element, as ``numpy.array_split``.

    Args:
        data: the NDArray (or mx.np array) to split.
        num_slice (int): the number of slices.
        batch_axis (int): the axis to split along (default 0).
        even_split (bool): require the axis's size to be a multiple of `num_slice`
            (default True).

    Returns:
        a list of `num_slice` arrays (a sparse batch split on axis 0 stays sparse).

    Raises:
        ValueError: the batch does not split evenly when `even_split` is set.

    Example::

        parts = gluon.utils.split_data(nd.zeros((10, 3)), 3, even_split=False)
        [p.shape[0] for p in parts]   # [4, 3, 3]
    """
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError(f"split_data: data with shape {data.shape} cannot be evenly split into "
                         f"{num_slice} slices along axis {batch_axis}; use a batch size that is a "
                         f"multiple of {num_slice} or set even_split=False")
    if num_slice == 1:
        return [data]
    each, extras = divmod(size, num_slice)
    bounds = np.cumsum([0] + [each + 1] * extras + [each] * (num_slice - extras)).tolist()
    if is_np_array():  # NumPy array semantics: np.split at the section bounds, as MXNet
        return _np_face.split(data, indices_or_sections=bounds[1:-1], axis=batch_axis)
    if batch_axis == 0 and data.stype != "default":
        # a sparse batch (csr rows) splits by rows and stays sparse, as in MXNet
        return [data[bounds[i]:bounds[i + 1]] for i in range(num_slice)]
    return [data.slice_axis(axis=batch_axis, begin=bounds[i], end=bounds[i + 1])
            for i in range(num_slice)]


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Split `data` (an NDArray or array-like) into one slice per context of `ctx_list`
    (see `split_data`) and copy each slice there.

    Args:
        data: an NDArray, or array-like (made an array on the first context).
        ctx_list: a list of Contexts, one per slice.
        batch_axis (int): the axis to split along (default 0).
        even_split (bool): require the axis's size to be a multiple of ``len(ctx_list)``
            (default True).

    Returns:
        a list of arrays, the i-th on ``ctx_list[i]``.

    Raises:
        ValueError: as `split_data`.

    Example::

        batch = nd.ones((8, 3))
        xs = gluon.utils.split_and_load(batch, [mx.cpu(0), mx.cpu(1)])
        [x.context for x in xs]   # [cpu(0), cpu(1)]
    """
    if not hasattr(data, "as_in_context"):  # array-like: mx.np arrays under NumPy semantics
        make = _np_face.array if is_np_array() else array
        data = make(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [s.as_in_context(c) for s, c in zip(slices, ctx_list)]


def _values(a):
    return a._sdata if a.stype != "default" else a.asnumpy()


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Rescale NDArrays in place so that their joint L2 norm is at most `max_norm`
    (each is multiplied by ``min(1, max_norm / (norm + 1e-8))``).

    Args:
        arrays: a non-empty list of NDArrays (dense or sparse: a sparse one keeps its storage).
        max_norm: the largest joint norm allowed.
        check_isfinite: warn when the norm is nan or inf, and return a float.

    Returns:
        The norm before clipping: a float with `check_isfinite`, else an NDArray of shape (1,)
        (as MXNet, which then avoids a blocking read).

    Raises:
        ValueError: `arrays` is empty.

    Example::

        grads = [nd.array([3.0]), nd.array([4.0])]   # global norm 5
        norm = gluon.utils.clip_global_norm(grads, 1.0)   # rescaled in place to norm 1
        norm, grads[0].asnumpy()   # (5.0, array([0.6], dtype=float32))
    """
    if len(arrays) == 0:
        raise ValueError("clip_global_norm: arrays must be a non-empty list of NDArrays")
    # a sparse array's stored values hold its whole norm
    total = float(np.sqrt(sum(float((_values(a).astype(np.float64) ** 2).sum())
                              for a in arrays)))
    if check_isfinite and not np.isfinite(total):
        import warnings
        warnings.warn("clip_global_norm: nan or inf is detected; the clipping result is "
                      "undefined", UserWarning, stacklevel=2)
    scale = np.minimum(max_norm / (total + 1e-8), 1.0)
    for a in arrays:
        if a.stype != "default":
            a._sdata *= a._sdata.dtype.type(scale)  # zeros stay zero: scale what is stored
        else:
            a._data *= a._data.dtype.type(scale)
    if check_isfinite:
        return total
    return _nd_array([total], ctx=arrays[0].context)


def check_sha1(filename, sha1_hash):
    """Whether the SHA-1 digest of file `filename` is `sha1_hash` (hex).

    Raises:
        FileNotFoundError: the file does not exist.

    Example::

        with open('data.bin', 'wb') as f:
            f.write(b'abc')
        gluon.utils.check_sha1('data.bin', 'a9993e364706816aba3e25717850c26c9cd0d89d')   # True
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
        retries: accepted for MXNet compatibility (its number of download attempts); unused.
        verify_ssl: accepted for MXNet compatibility (check the server's certificate);
            unused.

    Returns:
        the file path.

    Raises:
        FileNotFoundError: the file is not there (the message names the URL and the path to
            place it at by hand).
        ValueError: the file's SHA-1 differs from `sha1_hash`.

    Example::

        with open('y.tar.gz', 'wb') as f:
            f.write(b'...')   # placed by hand: gluonlite never fetches
        gluon.utils.download('http://example.com/y.tar.gz', 'y.tar.gz')   # y.tar.gz
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



# The public bucket MXNet's model zoo and datasets were published in; MXNET_GLUON_REPO (read at
# call time, as MXNet does) points the URLs at a mirror.
_DEFAULT_REPO_URL = "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"


def _get_repo_url():
    """The base URL of Gluon's file repository, ending in '/'.

    ``$MXNET_GLUON_REPO`` when set, else the bucket MXNet published to. gluonlite only builds
    the URL (GluonNLP and GluonCV name their files with it); `download` never fetches.

    Returns:
        str: the URL with a trailing '/'.

    Example::

        from gluonlite.gluon.utils import _get_repo_url
        _get_repo_url().endswith('/')   # True
    """
    url = os.environ.get("MXNET_GLUON_REPO", _DEFAULT_REPO_URL)
    return url if url.endswith("/") else url + "/"


def _get_repo_file_url(namespace, filename):
    """The URL of file `filename` under `namespace` in Gluon's repository.

    Args:
        namespace (str): the folder ('gluon/dataset/mnist').
        filename (str): the file's name.

    Returns:
        str: ``<repo url><namespace>/<filename>``.

    Example::

        from gluonlite.gluon.utils import _get_repo_file_url, _get_repo_url
        url = _get_repo_file_url('gluon/dataset/mnist', 'train.gz')
        url == _get_repo_url() + 'gluon/dataset/mnist/train.gz'   # True
    """
    return f"{_get_repo_url()}{namespace}/{filename}"
