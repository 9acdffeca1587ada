"""The operator registry: every operator is defined once and read by nd, sym, autograd and
the compiler.

An `Operator` holds, side by side:

- ``kernel(p, rc, *xs)``: the forward on raw arrays (numpy or cupy), returning one array or a
  tuple;
- ``vjp(p, rc, xs, ys, gys, need)``: the gradient rule, returning one gradient (or None) per
  input; ``gys[i]`` is None when output i received no gradient, ``need[j]`` says whether input
  j wants one (so rules can skip work);
- ``shape(p, in_shapes) -> (in_shapes, out_shapes)`` and ``dtype(p, in_dtypes) -> (in_dtypes,
  out_dtypes)``: inference rules that may fill unknown (None) input entries, e.g. a weight's
  shape from the data and ``num_hidden``;
- ``attrs``: how each attribute parses from a Python value or MXNet's JSON string;
- ``fast``: the speed-only alternatives to these rules (`gluonlite.ops.fast.Fast`: writing
  into preallocated outputs, direct gradient rules, what the vjp reads, ...), each held
  against the plain rule by the registry walk.

``p`` is the parsed `Params`; ``rc`` the `RunCtx` (train mode and array module).
"""
from collections import namedtuple

from ..base import MXNetTypeError, MXNetValueError, normalize_dtype
from .attrs import REQUIRED, format_attr
from .fast import Fast

__all__ = ["Operator", "Params", "RunCtx", "register", "get", "exists", "all_ops", "ShapeError",
           "writes_out", "Fast", "fast_paths"]

# need_grad: a gradient of this call will be asked for (stateful operators keep state only
# then); spec and runtime: what the operator's lowering decided for the compiled plan step
# that calls it, and what that step keeps from call to call (`gluonlite.executor.lowering`;
# None outside a plan, or where the plain kernel runs).
RunCtx = namedtuple("RunCtx", ["is_train", "xp", "need_grad", "spec", "runtime"],
                    defaults=(False, None, None))

_OPS = {}


class ShapeError(MXNetValueError):
    """Raised by shape rules when inputs do not fit; the message names the operator. A
    ValueError, and an `MXNetError` as MXNet reports the same fault."""


class Params(dict):
    """Parsed attributes of one node, readable as ``p.num_hidden`` as well as ``p['num_hidden']``.

    Params are read on every kernel call, so attribute reads are plain instance-dict reads:
    the dict is its own ``__dict__`` (keys set later show up as attributes too).
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.__dict__ = self

    def __reduce__(self):
        return (Params, (dict(self),))


class Operator:
    """One registered operator (see the module docstring for the meaning of each rule).

    Args (all but `name` and `kernel` by keyword; every one is fixed here, never set on
    the object afterwards):
        inputs, outputs, visible, output_names, signature: the operator's inputs and outputs
            (names or `p -> ...` rules).
        attrs, vjp, dtype, nondiff, same_dtype, random, doc, fast: as the module docstring
            says.
        shape: the shape rule, or a pair (rule, backward rule): ``back(p, in_shapes,
            out_shapes) -> in_shapes`` infers inputs from known outputs (shape inference
            runs both ways, as MXNet's does).
        aux: the names of the auxiliary inputs, or ``p -> one bool per input`` for an
            operator whose auxiliary inputs depend on its params (a subgraph node holding
            a BatchNorm).
        variadic: the attribute counting the inputs (``"num_args"``), or a triple (count,
            group, tail) for inputs that come in groups per count (multi_sgd_mom_update:
            ``("num_weights", ("weight", "grad", "mom"), ())``; inputs are then named
            ``weight_0, grad_0, mom_0, weight_1, ...``, then the tail's names).
        stateful: the last output is an opaque per-call object for the vjp (a loop's saved
            steps); executors never allocate or shape-infer it.
        shape_from_values: the output shape depends on input values (boolean_mask): the
            shape rule leaves that dimension unknown and no compiled plan can hold it.
    """

    def __init__(self, name, kernel, *, inputs=("data",), outputs=1, visible=None, attrs=None,
                 vjp=None, shape=None, dtype=None, aux=(), nondiff=(), variadic=None,
                 random=False, output_names=None, doc=None, signature=None, same_dtype=None,
                 fast=None, stateful=False, shape_from_values=False, **speed):
        if speed:
            names = ", ".join(f"{k}=..." for k in sorted(speed))
            raise TypeError(f"{name}: unknown argument(s) {sorted(speed)}; fast paths go in "
                            f"one object: fast=Fast({names}) (gluonlite.ops.fast)")
        self.name = name
        self.kernel = kernel
        self.vjp = vjp
        shape, shape_back = shape if isinstance(shape, tuple) else (shape, None)
        self.shape_rule = shape
        self.dtype_rule = dtype
        self.attrs = dict(attrs or {})
        self._inputs = inputs
        self._outputs = outputs
        self._visible = visible
        # aux_mask(p) -> one bool per input, or the names in `aux`
        self._aux_mask = aux if callable(aux) else None
        self.aux = () if callable(aux) else tuple(aux)
        self.nondiff = frozenset(nondiff)
        variadic, group, tail = variadic if isinstance(variadic, tuple) else (variadic, None, ())
        self.variadic = variadic
        # the names in one group of inputs per count, and the inputs after the groups
        self.variadic_group = tuple(group) if group else None
        self.variadic_tail = tuple(tail)
        self.random = random
        self.stateful = bool(stateful)
        self.shape_from_values = bool(shape_from_values)
        self.shape_back = shape_back
        # The speed-only alternatives to the rules above (`gluonlite.ops.fast.Fast`).
        self.fast = fast if fast is not None else Fast()
        self._output_names = output_names
        # Every input name in MXNet's call order, whatever the attributes: positional
        # arguments past these bind to attributes (``nd.clip(x, 0, 1)``), as in MXNet.
        if signature is None:
            signature = () if variadic else (
                inputs(Params({k: a.default for k, a in self.attrs.items()}))
                if callable(inputs) else inputs)
        self.signature = tuple(signature)
        # Inputs that must share one dtype (default: every input that takes a gradient).
        self.same_dtype = None if same_dtype is None else frozenset(same_dtype)
        self.__doc__ = doc or (kernel.__doc__ if kernel is not None else None)

    def __repr__(self):
        return f"<Operator {self.name}>"

    # ---- attributes -------------------------------------------------------------------
    def parse(self, given):
        """Parse a dict of attributes (Python values or strings) into `Params`.

        Returns:
            (params, strings): the typed values (defaults filled in) and the string form of the
            attributes that were given, in MXNet's JSON spelling. Keys starting with ``__``
            (MXNet's hidden node attributes such as ``__shape__``) are kept as strings only.

        Raises:
            TypeError: an unknown or missing attribute (the message lists the known ones); an
                operator that has no attributes keeps unknown ones as strings and ignores
                them, as MXNet does.
            ValueError: an attribute value that does not parse.
        """
        params, strings = Params(), {}
        for k, v in given.items():
            if k.startswith("__") and k.endswith("__"):
                strings[k] = str(v)
                continue
            spec = self.attrs.get(k)
            if spec is None and not self.attrs:
                # MXNet keeps an operator without parameters' extra keywords as plain node
                # attributes and ignores them (its own tests pass `axis` to broadcast_maximum)
                strings[k] = str(v)
                continue
            if spec is None:
                known = ", ".join(sorted(self.attrs))
                raise MXNetTypeError(f"{self.name}: unknown argument {k!r}; known arguments: "
                                     f"{known}")
            if v is None and spec.default is None:
                params[k] = None
                continue
            try:
                params[k] = spec.parse(v)
            except (ValueError, TypeError) as e:
                raise MXNetValueError(f"{self.name}: argument {k}={v!r}: {e}") from None
            if spec.kind != "any":
                strings[k] = format_attr(v if isinstance(v, str) else params[k])
        for k, spec in self.attrs.items():
            if k not in params:
                if spec.default is REQUIRED:
                    raise MXNetTypeError(f"{self.name}: missing required argument {k!r}")
                params[k] = spec.default
        return params, strings

    # ---- structure ----------------------------------------------------------------------
    def input_names(self, p):
        """Names of this operator's inputs for params `p` (``['data', 'weight', 'bias']``)."""
        if self.variadic:
            if self.variadic_group:
                return [f"{n}_{i}" for i in range(p[self.variadic])
                        for n in self.variadic_group] + list(self.variadic_tail)
            return [f"arg{i}" for i in range(p[self.variadic])]
        return list(self._inputs(p) if callable(self._inputs) else self._inputs)

    def num_outputs(self, p):
        """Total outputs, hidden ones included (e.g. Dropout's mask)."""
        return self._outputs(p) if callable(self._outputs) else self._outputs

    def num_visible(self, p):
        """Outputs a user sees (the rest are kept only for the gradient)."""
        v = self._visible if self._visible is not None else self._outputs
        return v(p) if callable(v) else v

    def output_names(self, p):
        """Suffixes of the visible outputs as MXNet lists them (``output`` or ``output0..``)."""
        if self._output_names:
            return list(self._output_names(p) if callable(self._output_names)
                        else self._output_names)
        n = self.num_visible(p)
        return ["output"] if n == 1 else [f"output{i}" for i in range(n)]

    @property
    def has_aux(self):
        """Whether some input can be an auxiliary state (for some params)."""
        return bool(self.aux) or self._aux_mask is not None

    def aux_mask(self, p):
        """Per input (for params `p`), whether it is an auxiliary state: a value the forward
        updates in place (BatchNorm's moving statistics), listed by
        `Symbol.list_auxiliary_states` and never given a gradient.

        Returns a list of bools: the operator's own `aux_mask(p)` rule when it has one, else
        whether each input's name is in `aux`.

        Example: ``get('BatchNorm').aux_mask(p)`` -> [False, False, False, True, True].
        """
        if self._aux_mask is not None:
            return list(self._aux_mask(p))
        return [n in self.aux for n in self.input_names(p)]

    def saved_inputs(self, p):
        """(input indices the vjp reads, whether it reads the outputs)."""
        saves = self.fast.saves
        spec = saves(p) if callable(saves) else saves
        n_in = len(self.input_names(p))
        if spec is None:
            return frozenset(range(n_in)), True
        names = self.input_names(p) if not self.variadic else []
        return frozenset(j for j, n in enumerate(names) if n in spec), "outputs" in spec

    def differentiable(self, i, p):
        """Whether input i can receive a gradient (not for nondiff or auxiliary inputs)."""
        if self.vjp is None or self.input_names(p)[i] in self.nondiff:
            return False
        return not (self.has_aux and self.aux_mask(p)[i])

    def dtype_group(self, p):
        """Indices of the inputs that must share one dtype (for params `p`)."""
        names = self.input_names(p)
        if self.same_dtype is not None:
            return [i for i, n in enumerate(names) if n in self.same_dtype]
        if self.variadic:
            return list(range(len(names)))
        aux = self.aux_mask(p) if self.has_aux else [False] * len(names)
        return [i for i, n in enumerate(names) if n not in self.nondiff and not aux[i]]

    def check_dtypes(self, p, in_dtypes):
        """Raise TypeError when inputs that must share a dtype do not (None entries skipped)."""
        names, first = self.input_names(p), None
        for i in self.dtype_group(p):
            d = in_dtypes[i] if i < len(in_dtypes) else None
            if d is None:
                continue
            if first is None:
                first = (i, d)
            elif d != first[1]:
                raise MXNetTypeError(
                    f"{self.name}: input {names[first[0]]!r} has dtype {dtype_str(first[1])} but "
                    f"input {names[i]!r} has dtype {dtype_str(d)}; inputs must share one dtype "
                    "(convert one with astype())")

    # ---- running ------------------------------------------------------------------------
    def forward(self, p, rc, xs, out=None):
        """Run the forward on raw arrays; returns a tuple of all outputs.

        With `out` (a list of preallocated arrays, one per output) the results are written
        there, by the `into` kernel when the operator has one.
        """
        if out is not None and self.fast.into is not None:
            self.fast.into(p, rc, out, *xs)
            return tuple(out)
        res = self.kernel(p, rc, *xs)
        if not isinstance(res, tuple):
            res = (res,)
        if out is not None:
            for o, r in zip(out, res):
                rc.xp.copyto(o, r, casting="unsafe")
            return tuple(out)
        return res

    def infer_shape(self, p, in_shapes):
        """Apply the shape rule; returns (in_shapes, out_shapes), None where still unknown."""
        if self.shape_rule is None:
            raise NotImplementedError(f"{self.name}: no shape rule")
        return self.shape_rule(p, list(in_shapes))

    def infer_dtype(self, p, in_dtypes):
        """Apply the dtype rule (default: every input and output takes the first known dtype).

        Raises:
            TypeError: inputs that must share a dtype (see `dtype_group`) do not.
        """
        self.check_dtypes(p, in_dtypes)
        in_dtypes = list(in_dtypes)
        group = [i for i in self.dtype_group(p) if i < len(in_dtypes)]
        shared = next((in_dtypes[i] for i in group if in_dtypes[i] is not None), None)
        if shared is not None:  # inputs that must share a dtype learn it from one another
            for i in group:
                if in_dtypes[i] is None:
                    in_dtypes[i] = shared
        if self.dtype_rule is not None:
            return self.dtype_rule(p, in_dtypes)
        known = next((d for d in in_dtypes if d is not None), None)
        if known is None and "dtype" in p and p["dtype"] is not None:
            known = normalize_dtype(p["dtype"])
        n_out = self.num_outputs(p)
        return [d if d is not None else known for d in in_dtypes], [known] * n_out


def dtype_str(d):
    """The numpy name of a dtype given as a dtype or a type ('float32')."""
    import numpy as np
    return np.dtype(d).name


def writes_out(rule):
    """Mark a gradient rule (`Fast.grads`) as taking ``out=``; returns the rule.

    Example::

        @writes_out
        def _neg_grad(xp, x, y, g, out=None):
            return xp.negative(g, out=out)
    """
    rule.writes_out = True
    return rule


def register(name, *, aliases=(), **spec):
    """Decorator registering `kernel` as operator `name` (see `Operator` for the keywords).

    Example::

        @register("square", vjp=lambda p, rc, xs, ys, gys, need: (2 * xs[0] * gys[0],),
                  shape=same_shape)
        def _square(p, rc, x):
            return x * x
    """
    def deco(kernel):
        op = Operator(name, kernel, **spec)
        for n in (name, *aliases):
            if n in _OPS:
                raise ValueError(f"operator {n!r} is registered twice")
            _OPS[n] = op
        return op
    return deco


def fast_paths(fast, *names):
    """Give the registered operators `names` their fast paths `fast` (a `Fast`).

    An operator file registers each operator's semantic rules first and attaches the fast
    paths afterwards, in its closing "fast paths" section, so a reader meets what an
    operator computes before the ways it is sped up. Returns `fast`.

    Raises:
        ValueError: an unknown name, or an operator that already has fast paths.

    Example::

        fast_paths(Fast(saves=(), reshapes=True), "Reshape", "Flatten")
    """
    for n in names:
        op = get(n)
        if any(getattr(op.fast, k) not in (None, False, (), {}) for k in Fast.__slots__):
            raise ValueError(f"operator {n!r} already has fast paths {op.fast!r}")
        op.fast = fast
    return fast


def add(op, *names):
    """Register an already built `Operator` under its name (and `names`)."""
    for n in (op.name, *names):
        if n in _OPS:
            raise ValueError(f"operator {n!r} is registered twice")
        _OPS[n] = op
    return op


def get(name):
    """The operator registered as `name`.

    Raises:
        ValueError: no such operator (the message suggests close names).
    """
    try:
        return _OPS[name]
    except KeyError:
        import difflib
        close = difflib.get_close_matches(name, _OPS, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise MXNetValueError(f"unknown operator {name!r}{hint}") from None


def exists(name):
    """Whether an operator of that name is registered."""
    return name in _OPS


def all_ops():
    """Every registered operator once (aliases folded), sorted by name."""
    return sorted({id(o): o for o in _OPS.values()}.values(), key=lambda o: o.name)


def names():
    """Every registered name, aliases included."""
    return sorted(_OPS)


def alias(name, *aliases):
    """Register the operator `name` under the further names `aliases` too (MXNet's older
    spellings of an operator defined elsewhere); returns the operator.

    Raises:
        ValueError: an alias already taken, or an unknown `name`.

    Example: ``alias("_power_scalar", "_PowerScalar")``.
    """
    op = get(name)
    for n in aliases:
        if n in _OPS:
            raise ValueError(f"operator {n!r} is registered twice")
        _OPS[n] = op
    return op
