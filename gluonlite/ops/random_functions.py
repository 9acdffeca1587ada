"""The functions of MXNet's random namespaces (`nd.random`, `sym.random`), made for either
front end from the samplers' table (`gluonlite.ops.samplers.DISTS`), as the other
namespaces are made from the registry.

A distribution's function takes its parameters as numbers or as arrays of the front end
(all of one kind): numbers make a ``_random_<d>`` call drawing an array of `shape`, arrays a
``_sample_<d>`` call drawing `shape` samples for each of their elements (so the output's
shape is the parameters' shape followed by `shape`). The imperative front end also takes
``ctx`` and ``out``, as MXNet's `nd.random` does; the symbolic one neither.

Example::

    from gluonlite.ops.random_functions import FrontEnd, random_functions
    from gluonlite.ndarray.register import _gen_cache
    functions = random_functions(FrontEnd(
        "nd", nd.NDArray, _gen_cache.__getitem__, imperative=True,
        like=lambda op_name, public: _gen_cache[op_name], current_context=mx.current_context))
    functions["normal"](0, 1, shape=(2, 3))     # a (2, 3) NDArray of normal draws
"""
import inspect
import textwrap
import numbers
from collections import namedtuple

import numpy as np

from .samplers import DISTS, dtype_attr, shape_arg

__all__ = ["FrontEnd", "random_functions", "NAMES"]

# What a front end gives: its name ('nd', 'sym'), its array type, ``call(op_name) -> the
# front end's function of that operator``, whether it runs now (ctx, out) and, for the
# ``*_like`` functions, ``like(op_name, public name) -> function``.
FrontEnd = namedtuple("FrontEnd", "name array call imperative like current_context",
                      defaults=(None, None))
FrontEnd.__doc__ = """What `random_functions` needs of a front end (see the comment above).

Example::

    from gluonlite.ops.random_functions import FrontEnd
    front = FrontEnd("sym", sym.Symbol, lambda name: None, imperative=False)
    front.like, front.current_context       # (None, None)
"""

# The public name of each distribution's function, its parameters as the user passes them
# (MXNet's names and defaults), and how they become the sampler's (exponential takes the
# mean; the sampler its inverse, the rate).
_PUBLIC = {
    "uniform": ("uniform", (("low", 0), ("high", 1)), None),
    "normal": ("normal", (("loc", 0), ("scale", 1)), None),
    "poisson": ("poisson", (("lam", 1),), None),
    "exponential": ("exponential", (("scale", 1),), lambda scale: [1.0 / scale]),
    "gamma": ("gamma", (("alpha", 1), ("beta", 1)), None),
    "negative_binomial": ("negative_binomial", (("k", 1), ("p", 1)), None),
    "generalized_negative_binomial": ("generalized_negative_binomial",
                                      (("mu", 1), ("alpha", 1)), None),
}

# What each parameter of `_PUBLIC` means, for the generated docstrings' ``Args:``.
_PARAM_DOCS = {
    "uniform": {"low": "the lower bound of the interval (inclusive)",
                "high": "the upper bound of the interval (exclusive)"},
    "normal": {"loc": "the mean", "scale": "the standard deviation (positive; an array "
                                           "may hold 0, which draws loc)"},
    "poisson": {"lam": "the rate, the mean number of events (non-negative)"},
    "exponential": {"scale": "the mean, the inverse of the rate (positive)"},
    "gamma": {"alpha": "the shape (positive; an array may hold 0, which draws 0)",
              "beta": "the scale (positive; an array may hold 0, which draws 0)"},
    "negative_binomial": {"k": "the number of successes the trials run to (non-negative: 0 "
                               "draws 0)",
                          "p": "the success probability of each trial, in (0, 1]"},
    "generalized_negative_binomial": {
        "mu": "the mean (non-negative)",
        "alpha": "the dispersion: the variance is mu + alpha * mu**2 (non-negative; "
                 "0 gives Poisson(mu))"},
}

# The ``*_like`` functions pass their parameters to ``_random_<d>_like``, under the sampler's
# attribute names (exponential's is the rate ``lam``, not the mean).
_LIKE_PARAM_DOCS = {**_PARAM_DOCS,
                    "normal": {"loc": "the mean", "scale": "the standard deviation (positive)"},
                    "exponential": {"lam": "the rate, the inverse of the mean (positive)"},
                    "gamma": {"alpha": "the shape (positive)", "beta": "the scale (positive)"}}


def _wrapped(doc):
    """`doc` with its lines longer than 96 characters wrapped (an entry's continuation lines
    indented 4 more)."""
    lines = []
    for line in doc.split("\n"):
        indent = " " * (len(line) - len(line.lstrip()))
        lines += textwrap.wrap(line, 96, subsequent_indent=indent + "    " * bool(indent),
                               break_on_hyphens=False) if len(line) > 96 else [line]
    return "\n".join(lines)


def _example(front, call, shape, **inputs):
    """The ``Example::`` section of a random function of front end `front`: the generator
    seeded, `inputs` ({name: nd expression}; variables fed to the graph for ``sym``), then
    ``<front>.random.<call>`` with only the shape of its output shown."""
    lines = ["mx.random.seed(0)"]
    if front.imperative:
        lines += [f"{k} = {v}" for k, v in inputs.items()]
        run = f"nd.random.{call}"
    else:
        lines += [f"{k} = sym.var({k!r})" for k in inputs]
        feed = ", ".join(f"{k}={v}" for k, v in inputs.items())
        lines.append(f"z = sym.random.{call}")
        run = f"z.eval({feed})[0]"
    lines.append(f"{run}.shape   # {shape}")
    return "\n\nExample::\n\n" + "".join(f"    {line}\n" for line in lines)


def _dist_doc(front, dist, public, names_defaults):
    """The docstring of a distribution's function of front end `front`."""
    kind = front.array.__name__
    docs = _PARAM_DOCS[dist]
    article = "an" if kind == "NDArray" else "a"
    args = [f"    {n}: {docs[n]}; a number, or {article} {kind} of one value per distribution "
            f"(then every parameter must be {article} {kind}, all of one shape). Default {d}."
            for n, d in names_defaults]
    args += ["    shape: with number parameters, the output's shape (an int or a tuple; "
             "default None: " + ("out's shape when out is given, else (1,)" if front.imperative
                                 else "(1,)") + "); with array parameters, the shape of the "
             "draws made for each parameter element, appended to the parameters' shape "
             "(default None: one draw each).",
             "    dtype: the output's dtype (a name or a numpy dtype; default None: "
             "float32)."]
    if front.imperative:
        args += ["    ctx: the Context of the output with number parameters (default None: "
                 "the current context); a Context given as dtype is taken as the ctx, so the "
                 "order (shape, ctx, dtype) works too. Array parameters keep their own.",
                 "    out: an NDArray to write the samples into (default None: a new one)."]
    args.append("    **kwargs: more attributes for the operator"
                + (" (``name``: the node's name)." if not front.imperative else "."))
    ret = ("NDArray: the samples, float32 unless dtype says otherwise." if front.imperative
           else "Symbol: a node drawing the samples when the graph runs.")
    raises = ("    TypeError: if the parameters mix arrays and numbers, or one is neither.\n"
              "    MXNetValueError: if a parameter is out of its domain "
              + ("(as listed above)." if front.imperative
                 else "(as listed above), when the graph runs."))
    params = ", ".join(n for n, _ in names_defaults)
    example = ", ".join(str(d) for _, d in names_defaults)
    return (f"{public}({params}, shape=None, dtype=None"
            + (", ctx=None, out=None" if front.imperative else "")
            + f"): samples of the {dist.replace('_', ' ')} distribution "
            f"({'an array' if front.imperative else 'a node'}), numbers or "
            f"{kind}s as parameters (see `gluonlite.ops.random_functions`).\n\n"
            "Args:\n" + "\n".join(args) + "\n\nReturns:\n    " + ret
            + "\n\nRaises:\n" + raises
            + _example(front, f"{public}({example}, shape=(2,))", "(2,)"))


NAMES = ("uniform", "normal", "randn", "poisson", "exponential", "gamma", "multinomial",
         "negative_binomial", "generalized_negative_binomial", "shuffle", "randint",
         *(f"{d}_like" for d in _PUBLIC))


def _ctx_dtype(ctx, dtype, context_type):
    """MXNet's order is (shape, dtype, ctx); gluonlite's API page wrote (shape, ctx, dtype):
    a Context given where the dtype goes is taken as the ctx, so both spellings work."""
    if isinstance(dtype, context_type) and not isinstance(ctx, context_type):
        return dtype, ctx
    return ctx, dtype


def _parameters(names_defaults, front):
    """[(name, default)] of a distribution's function, in order: its parameters, then shape,
    dtype and (imperative) ctx and out; more keywords go to the operator."""
    extra = ("shape", "dtype") + (("ctx", "out") if front.imperative else ())
    return list(names_defaults) + [(n, None) for n in extra]


def _signature(params):
    kw = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return inspect.Signature([inspect.Parameter(n, kw, default=d) for n, d in params]
                             + [inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])


def _binder(public, params):
    """``bind(args, kwargs) -> (values by name, the other keywords)`` for `params`, as
    `inspect.Signature.bind` with the defaults applied would give them, at a tenth of its
    cost (a small draw is a few tens of microseconds in all).

    Raises:
        TypeError: more positional arguments than parameters, or a parameter given twice.
    """
    order = [n for n, _ in params]
    defaults = dict(params)

    def bind(args, kwargs):
        if len(args) > len(order):
            raise TypeError(f"{public}() takes at most {len(order)} positional arguments "
                            f"({len(args)} given)")
        values = dict(zip(order, args))
        rest = {}
        for k, v in kwargs.items():
            if k not in defaults:
                rest[k] = v
            elif k in values:
                raise TypeError(f"{public}() got multiple values for argument '{k}'")
            else:
                values[k] = v
        for k in order[len(args):]:
            values.setdefault(k, defaults[k])
        return values, rest
    return bind


def _draw(front, dist, names, values, shape, dtype, ctx, out, kwargs):
    """A ``_sample_<dist>`` call for array parameters, a ``_random_<dist>`` one for numbers.

    Raises:
        TypeError: parameters that mix arrays and numbers, or are neither.
    """
    kind = front.array.__name__
    article = "an" if kind == "NDArray" or kind[0] in "AEIOU" else "a"
    ops_names = [a for a, _, _ in DISTS[dist].params]
    extra = {"out": out} if front.imperative else {}
    if isinstance(values[0], front.array):
        for n, v in zip(names[1:], values[1:]):
            if not isinstance(v, front.array):
                raise TypeError(f"random.{dist}: the parameters must all be {kind}s or all "
                                f"numbers; {names[0]} is {article} {kind} but {n} is "
                                f"{type(v).__name__}")
        return front.call(f"_sample_{dist}")(*values, shape=shape_arg(shape), **extra,
                                             **dtype_attr(dtype), **kwargs)
    for n, v in zip(names, values):
        if not isinstance(v, numbers.Real):
            raise TypeError(f"random.{dist}: the parameters must all be {kind}s or all "
                            f"numbers; {n} is {type(v).__name__}")
    if shape is None:
        shape = out.shape if out is not None else (1,)
    if front.imperative:
        extra["ctx"] = ctx or front.current_context()
    return front.call(f"_random_{dist}")(shape=shape_arg(shape), **extra,
                                         **dict(zip(ops_names, values)),
                                         **dtype_attr(dtype), **kwargs)


def _distribution(front, dist):
    public, names_defaults, to_sampler = _PUBLIC[dist]
    names = [n for n, _ in names_defaults]
    params = _parameters(names_defaults, front)
    bind = _binder(public, params)

    def sample(*args, **kwargs):
        a, rest = bind(args, kwargs)
        values = [a[n] for n in names]
        if to_sampler is not None:
            values = to_sampler(*values)
        ctx, dtype = (_ctx_dtype(a["ctx"], a["dtype"], type(front.current_context()))
                      if front.imperative else (None, a["dtype"]))
        return _draw(front, dist, names, values, a["shape"], dtype, ctx, a.get("out"), rest)
    sample.__name__ = sample.__qualname__ = public
    sample.__signature__ = _signature(params)
    sample.__doc__ = _wrapped(_dist_doc(front, dist, public, names_defaults))
    return sample


def _randn(front, normal):
    def randn(*shape, loc=0, scale=1, dtype=None, ctx=None, out=None, **kwargs):
        data = kwargs.pop("data", None)
        if data is not None and not shape and not front.imperative and \
                isinstance(data, front.array):  # MXNet's own tests pass data= to sym.randn
            if dtype is not None:
                data = front.call("Cast")(data, dtype=np.dtype(dtype).name)
            return front.like("_random_normal_like", "normal_like")(data, loc=loc,
                                                                      scale=scale, **kwargs)
        extra = {"ctx": ctx, "out": out}
        if not front.imperative:  # a node takes them as attributes, as given
            kwargs.update({k: v for k, v in extra.items() if v is not None})
            extra = {}
        return normal(loc, scale, shape or None, dtype, **extra, **kwargs)
    kind = front.array.__name__
    randn.__doc__ = _wrapped(
        "Samples of N(loc, scale**2) of shape `shape`, given as separate integers.\n\n"
        "Args:\n"
        "    *shape: the output's dimensions, as separate ints (none: shape (1,)).\n"
        "    loc: the mean, a number or " + kind + " (default 0).\n"
        "    scale: the standard deviation, a number or " + kind + " (default 1).\n"
        "    dtype: the output's dtype (default None: float32).\n"
        + ("    ctx: the Context of the output (default None: the current context).\n"
           "    out: an NDArray to write the samples into (default None: a new one).\n"
           "    **kwargs: more attributes for the operator.\n\n"
           "Returns:\n    NDArray: the samples.\n\n" if front.imperative else
           "    ctx: set as the node's ``ctx`` attribute when given (default None).\n"
           "    out: set as the node's ``out`` attribute when given (default None).\n"
           "    **kwargs: more attributes for the operator (``name``: the node's name); "
           "``data=`` a Symbol with no shape given draws with data's shape (as "
           "`normal_like`, after a cast to dtype).\n\n"
           "Returns:\n    Symbol: a node drawing the samples when the graph runs.\n\n")
        + "Raises:\n    TypeError: if loc and scale mix arrays and numbers.\n"
        "    MXNetValueError: if scale is negative.\n\n"
        + _example(front, "randn(2, 3)", "(2, 3)").lstrip("\n"))
    return randn


def _multinomial(front):
    # MXNet's symbolic version returns the log-probabilities too by default
    default_prob = not front.imperative

    def multinomial(data, shape=None, get_prob=default_prob, out=None, dtype="int32",
                    **kwargs):
        extra = {"out": out} if front.imperative else {}
        return front.call("_sample_multinomial")(data, shape=shape_arg(shape),
                                                 get_prob=get_prob, dtype=dtype, **extra,
                                                 **kwargs)
    multinomial.__doc__ = _wrapped(
        "Category indices drawn with the probabilities on data's last axis.\n\n"
        "Args:\n    data: probabilities, shape (..., k).\n    shape: draws per distribution "
        "(output shape data.shape[:-1] + shape; default None: one draw each).\n"
        "    get_prob: also return the log-probability of each draw (differentiable in data; "
        f"default {default_prob}).\n"
        + ("    out: an NDArray to write the indices into (default None: a new one).\n"
           if front.imperative else
           "    out: not used by the symbolic front end (kept for MXNet's signature).\n")
        + "    dtype: of the indices (default 'int32').\n"
        "    **kwargs: more attributes for the operator.\n\n"
        "Returns:\n    the indices, or [indices, log-probabilities] with get_prob.\n\n"
        + _example(front, "multinomial(probs, shape=3)", "(1, 3)",
                   probs="nd.array([[0.2, 0.8]])").lstrip("\n"))
    return multinomial


def _randint(front):
    def randint(low, high, shape=None, dtype=None, ctx=None, out=None, **kwargs):
        if front.imperative:
            ctx, dtype = _ctx_dtype(ctx, dtype, type(front.current_context()))
            extra = {"ctx": ctx or front.current_context(), "out": out}
        else:  # a node takes them as attributes, as given
            extra = {k: v for k, v in (("ctx", ctx), ("out", out)) if v is not None}
        if shape is None:
            shape = out.shape if out is not None else (1,)
        return front.call("_random_randint")(low=low, high=high, shape=shape_arg(shape),
                                             **extra, **dtype_attr(dtype), **kwargs)
    randint.__doc__ = _wrapped(
        "Integers drawn uniformly from [low, high) (int32 by default).\n\n"
        "Args:\n    low: the smallest value (inclusive), an int.\n"
        "    high: the bound (exclusive), an int greater than low.\n"
        "    shape: the output's shape, an int or a tuple (default None: "
        + ("out's shape when out is given, else (1,)).\n" if front.imperative else "(1,)).\n")
        + "    dtype: the output's integer dtype (default None: int32).\n"
        + ("    ctx: the Context of the output (default None: the current context); a "
           "Context given as dtype is taken as the ctx.\n"
           "    out: an NDArray to write the integers into (default None: a new one).\n"
           "    **kwargs: more attributes for the operator.\n\n"
           "Returns:\n    NDArray: the integers.\n\n" if front.imperative else
           "    ctx: set as the node's ``ctx`` attribute when given (default None).\n"
           "    out: set as the node's ``out`` attribute when given (default None).\n"
           "    **kwargs: more attributes for the operator (``name``: the node's name).\n\n"
           "Returns:\n    Symbol: a node drawing the integers when the graph runs.\n\n")
        + "Raises:\n    MXNetValueError: if high is not greater than low"
        + ("." if front.imperative else ", when the graph runs.")
        + _example(front, "randint(0, 10, shape=(2, 2))", "(2, 2)"))
    return randint


def _shuffle(front):
    def shuffle(data, **kwargs):
        return front.call("_shuffle")(data, **kwargs)
    kind = front.array.__name__
    shuffle.__doc__ = _wrapped(
        "data with its first axis randomly permuted.\n\n"
        f"Args:\n    data: the {kind} to shuffle (its rows move together).\n"
        "    **kwargs: more attributes for the operator"
        + (" (``out``: an NDArray to write into).\n\n" if front.imperative
           else " (``name``: the node's name).\n\n")
        + f"Returns:\n    {kind}: data's elements with the first axis permuted, same shape."
        + _example(front, "shuffle(x)", "(3, 2)", x="nd.arange(6).reshape((3, 2))"))
    return shuffle


def _like(front, dist):
    make = front.like(f"_random_{dist}_like", f"{dist}_like")

    def like(data=None, *args, out=None, name=None, **kwargs):
        if front.imperative:
            return make(data, *args, out=out, **kwargs)
        return make(data, *args, **({"name": name} if name is not None else {}), **kwargs)
    like.__name__ = like.__qualname__ = f"{dist}_like"
    kind = front.array.__name__
    params = [n for n, _, _ in DISTS[dist].params]
    docs = _LIKE_PARAM_DOCS[dist]
    like.__doc__ = _wrapped(
        f"{dist}_like(data, {', '.join(params)}): samples of the "
        f"{dist.replace('_', ' ')} distribution with data's shape and dtype.\n\n"
        f"Args:\n    data: the {kind} whose shape and dtype the samples take (its values "
        "are not used).\n"
        + "".join(f"    {n}: {docs[n]}, a number (keyword; default {d}).\n"
                  for n, _, d in DISTS[dist].params)
        + ("    out: an NDArray to write the samples into (default None: a new one).\n"
           "    name: not used by the imperative front end.\n" if front.imperative else
           "    out: not used by the symbolic front end.\n"
           "    name: the node's name (default None: an automatic one).\n")
        + "    *args: the distribution's parameters by position, after `data`.\n"
        + "    **kwargs: more attributes for the operator.\n\n"
        + ("Returns:\n    NDArray: the samples.\n\n" if front.imperative
           else "Returns:\n    Symbol: a node drawing the samples when the graph runs.\n\n")
        + "Raises:\n    MXNetValueError: if a parameter is out of its domain"
        + ("." if front.imperative else ", when the graph runs.")
        + _example(front, f"{dist}_like(x)", "(2, 3)", x="nd.zeros((2, 3))"))
    return like


def random_functions(front):
    """{public name: function} of the random namespace of front end `front` (a
    `FrontEnd`), every name of `NAMES`.

    Example::

        from gluonlite.ops.random_functions import FrontEnd, random_functions
        from gluonlite.ndarray.register import _gen_cache
        fs = random_functions(FrontEnd(
            "nd", nd.NDArray, _gen_cache.__getitem__, imperative=True,
            like=lambda op_name, public: _gen_cache[op_name], current_context=mx.current_context))
        fs["normal"](0, 1, shape=(2, 3)).shape          # (2, 3)
    """
    out = {d: _distribution(front, d) for d in _PUBLIC}
    out["randn"] = _randn(front, out["normal"])
    out["multinomial"] = _multinomial(front)
    out["randint"] = _randint(front)
    out["shuffle"] = _shuffle(front)
    out.update({f"{d}_like": _like(front, d) for d in _PUBLIC})
    for f in out.values():
        f.__module__ = f"gluonlite.{'ndarray' if front.imperative else 'symbol'}.random"
    return out
