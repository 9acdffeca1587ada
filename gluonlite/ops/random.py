"""The random-number state shared by every random operator (the samplers are in `samplers`,
their draws from MXNet's streams in `mxnet_rng`), and the creation operators (zeros, ones,
full, arange)."""
import numpy as np

from . import attrs as A
from . import mxnet_rng
from .fast import Fast
from .registry import register

_state = {"seed": 0}  # the last seed, from which DataLoader workers derive their own


def seed(n, device=False):
    """Reseed every random draw of gluonlite: MXNet's own streams (`mxnet_rng`), which every
    sampler reads here as in MXNet (`nd.random`, `mx.np.random`, Dropout, the RNN layers'
    dropout, rrelu, the random image operators, the DGL samplers, the initializers; draws
    for a gpu context are made on the host and copied).

    Args:
        n: the seed, any int: negative ones too, as MXNet takes them (modulo 2**32).
        device: True when MXNet's caller named one device (`mxnet_rng.seed`'s `device`).

    Example::

        from gluonlite.ops import mxnet_rng
        from gluonlite.ops.random import seed
        seed(1); a = mxnet_rng.PARALLEL.uniform(2, np.float32)
        seed(1); b = mxnet_rng.PARALLEL.uniform(2, np.float32)
        bool((a == b).all())        # True
    """
    _state["seed"] = int(n) & 0xFFFFFFFF  # as MXNet takes it (a negative one too)
    mxnet_rng.seed(n, device)


def state():
    """Where every random draw stands (MXNet's streams), for `set_state`: an executor replays
    a forward's draws with them.

    Example::

        from gluonlite.ops import mxnet_rng
        from gluonlite.ops.random import set_state, state
        s = state(); a = mxnet_rng.SINGLE.uniform(2, np.float32)
        set_state(s); b = mxnet_rng.SINGLE.uniform(2, np.float32)
        bool((a == b).all())        # True
    """
    return mxnet_rng.state()


def set_state(st):
    """Put every random draw back where `state` found it.

    Args:
        st: what `state` returned.

    Example::

        from gluonlite.ops.random import set_state, state
        set_state(state())   # a no-op
    """
    mxnet_rng.set_state(st)


# MXNet's order (positional arguments bind in it): shape, ctx, dtype.
_CREATE = {"shape": A.Shape(()), "ctx": A.Str(""), "dtype": A.Dtype("float32")}


def _creation_shape(p, ins):
    return ins, [tuple(p.shape)]


def _creation_dtype(p, ins):
    return ins, [np.dtype(p.dtype or "float32")]


def _register_fill(name, value, attrs, doc):
    """A creation operator filling its output with `value` (None: the `value` attribute).

    In a graph it writes into the buffer of the inferred shape, so a 0 in its `shape` (a
    batch size left to inference, as Gluon's begin_state makes) takes the size inference
    found from the node's consumers."""
    def kernel(p, rc):
        return rc.xp.full(p.shape, p.value if value is None else value, dtype=p.dtype or "float32")

    def into(p, rc, outs):
        outs[0][...] = p.value if value is None else value

    register(name, inputs=(), attrs=attrs, shape=_creation_shape, dtype=_creation_dtype,
             doc=doc, fast=Fast(into=into))(kernel)


_register_fill("_zeros", 0, _CREATE, "_zeros(shape, dtype): an array of zeros.")
_register_fill("_ones", 1, _CREATE, "_ones(shape, dtype): an array of ones.")
_register_fill("_full", None, {**_CREATE, "value": A.Float()},
               "_full(shape, value, dtype): an array filled with value.")


def _arange_len(p):
    if p.infer_range:
        raise ValueError(
            "_arange: infer_range=True takes its length from the graph's shape inference "
            "(a consumer of known shape); called alone, give stop")
    stop = p.stop
    start, stop = (0.0, p.start) if stop is None else (p.start, stop)
    return int(np.ceil((stop - start) / p.step)) * p.repeat, start


@register("_arange", inputs=(),
          attrs={"start": A.Float(0.0), "stop": A.OptionalFloat(),
                 "step": A.Float(1.0), "repeat": A.Int(1), "infer_range": A.Bool(False),
                 "ctx": A.Str(""), "dtype": A.Dtype("float32")},
          shape=lambda p, ins: (ins, [None if p.infer_range else (max(_arange_len(p)[0], 0),)]),
          dtype=_creation_dtype, fast=Fast(into=lambda p, rc, outs: _arange_into(p, rc, outs)))
def _arange(p, rc):
    """_arange(start, stop=None, step=1, repeat=1, infer_range=False): evenly spaced values;
    with infer_range (in a graph) as many as the inferred output shape holds, from start."""
    n, start = _arange_len(p)
    return _arange_values(p, rc, n, start)


def _arange_into(p, rc, outs):
    if p.infer_range:
        # the length is the inferred shape's; stop is not read (as MXNet)
        n = outs[0].size
        outs[0][...] = _arange_values(p, rc, n - n % p.repeat, p.start).reshape(outs[0].shape)
    else:
        n, start = _arange_len(p)
        outs[0][...] = _arange_values(p, rc, n, start)


def _arange_values(p, rc, n, start):
    dt = np.dtype(p.dtype)
    if dt.kind == "f":
        # start + i * step in the output's precision, as MXNet's kernel computes it
        vals = rc.xp.arange(n // p.repeat, dtype=dt) * dt.type(p.step) + dt.type(start)
    else:
        # start and step cast to the integer dtype first (1.3 counts as 1), then wrapping
        # integer arithmetic, as MXNet's kernel
        s, st = (np.array(v).astype(np.int64).astype(dt) for v in (start, p.step))
        vals = rc.xp.arange(n // p.repeat, dtype=np.int64).astype(dt) * st + s
    return rc.xp.repeat(vals, p.repeat).astype(dt, copy=False)
