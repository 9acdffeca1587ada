"""The operator registry: every operator is defined once and read by nd, sym, autograd and
the compiler.

An operator's entry (`Operator`) is one frozen object in groups, all fixed when it registers
(nothing is set on it afterwards):

- its signature (`Signature`): the inputs, outputs, auxiliary inputs, variadic counts, the
  attributes (``attrs``: how each parses from a Python value or MXNet's JSON string) and
  the names MXNet gives them;
- its rules (`Rules`), the math: ``kernel(p, rc, *xs)``, the forward on raw arrays (numpy
  or cupy) returning one array or a tuple; ``vjp(p, rc, xs, ys, gys, need)``, the gradient
  rule returning one gradient (or None) per input (``gys[i]`` is None when output i received
  no gradient, ``need[j]`` says whether input j wants one, so rules can skip work); the
  shape rule (a `ShapeRule`: ``rule(p, in_shapes) -> (in_shapes, out_shapes)``, which may
  fill unknown (None) inputs, e.g. a weight's shape from the data and ``num_hidden``, and
  carries its own inference options); ``dtype(p, in_dtypes) -> (in_dtypes, out_dtypes)``;
- its traits (`Traits`): inputs without a gradient, inputs sharing a dtype, random,
  stateful, output shapes that depend on values;
- its fast paths (`gluonlite.ops.fast.Fast`): the speed-only alternatives to the rules, each
  held against the plain rule by the registry walk;
- its storage rule (`gluonlite.ops.storage.StorageRule`): which sparse storage combinations
  it computes, and with which kernels.

``p`` is the parsed `Params`; ``rc`` the `RunCtx` (train mode and array module).

`register(name, **keywords)` builds the entry from flat keywords, as an operator file
writes it; each keyword lands in one group:

==========================================================  =================================
``register`` keyword                                         entry
==========================================================  =================================
inputs, outputs, visible, output_names, aux, variadic,       ``Signature(...)`` (same names;
attrs, signature (the call order), full_output_names         ``signature`` -> ``call_order``)
the decorated kernel, vjp, dtype                             ``Rules(kernel, vjp, dtype=...)``
shape: a function, a (rule, back) pair or a `ShapeRule`      ``Rules(shape=ShapeRule(...))``
nondiff, same_dtype, random, stateful, shape_from_values,    ``Traits(...)`` (same names)
loss_output
fast, storage, doc                                           the entry's own parts
==========================================================  =================================

Example::

    from gluonlite.ops.registry import entry
    from gluonlite.ops.rules import same_shape
    op = entry("_my_square", lambda p, rc, x: x * x, shape=same_shape("_my_square"),
               vjp=lambda p, rc, xs, ys, gys, need: (2 * xs[0] * gys[0],))
    op.rules.vjp is op.vjp      # True: the gradient, as given
    op.signature                # ('data',): MXNet's call order of the inputs
"""
import difflib
from collections import namedtuple

import numpy as np

from ..base import MXNetTypeError, MXNetValueError, normalize_dtype
from .attrs import REQUIRED, format_attr
from .fast import Fast, compiles_kernels, device_kernels_enabled

__all__ = ["Operator", "Signature", "Rules", "Traits", "ShapeRule", "Params", "RunCtx",
           "register", "entry", "apply", "get", "exists", "all_ops", "ShapeError", "Fast"]

# need_grad: a gradient of this call will be asked for (stateful operators keep state only
# then); spec and runtime: what the operator's lowering decided for the compiled plan step
# that calls it, and what that step keeps from call to call (`gluonlite.executor.lowering`;
# None outside a plan, or where the plain kernel runs).
RunCtx = namedtuple("RunCtx", ["is_train", "xp", "need_grad", "spec", "runtime"],
                    defaults=(False, None, None))
RunCtx.__doc__ = """How one operator call runs: train mode, the array module (numpy or cupy),
whether a gradient will be asked for, and the compiled plan's step spec and runtime (None
outside a plan).

Example::

    from gluonlite.ops.registry import RunCtx
    rc = RunCtx(is_train=True, xp=np)
    rc.need_grad, rc.spec           # (False, None)
"""

_OPS = {}


class ShapeError(MXNetValueError):
    """Raised by shape rules when inputs do not fit; the message names the operator. A
    ValueError, and an `MXNetError` as MXNet reports the same fault.

    Example::

        try:
            mx.ops.get("elemwise_add").infer_shape({}, [(2,), (3,)])
        except mx.ops.ShapeError as e:
            print(e)        # elemwise_add: lhs and rhs must have the same shape, got (2,) and (3,)
    """


class Params(dict):
    """Parsed attributes of one node, readable as ``p.num_hidden`` as well as ``p['num_hidden']``.

    Params are read on every kernel call, so attribute reads are plain instance-dict reads:
    the dict is its own ``__dict__`` (keys set later show up as attributes too).

    Example::

        from gluonlite.ops.registry import Params
        p = Params(num_hidden=4)
        p.num_hidden, p["num_hidden"]       # (4, 4)
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.__dict__ = self

    def __reduce__(self):
        return (Params, (dict(self),))


class _Frozen:
    """A value object whose fields are set once, by its constructor."""

    __slots__ = ()

    def _set(self, **fields):
        for k, v in fields.items():
            object.__setattr__(self, k, v)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is frozen: {name} is given when the "
                             "operator registers")

    def __repr__(self):
        given = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__
                          if getattr(self, k) not in (None, False, (), {}))
        return f"{type(self).__name__}({given})"


class ShapeRule(_Frozen):
    """An operator's shape rule with the options inference reads from it.

    Args:
        infer: ``infer(p, in_shapes) -> (in_shapes, out_shapes)``; it may fill unknown
            (None) inputs and raises `ShapeError` when they do not fit.
        back: ``back(p, in_shapes, out_shapes) -> in_shapes``: inputs inferred from known
            outputs (shape inference runs both ways, as MXNet's does).
        fills_back: ``p -> bool``: where True, an input's unknown dimensions are solved from
            the output's (MXNet's FullyConnected fills an unknown batch so).
        whole_inputs: input positions read only when fully known (a partly known one counts
            as unknown: where's condition).
        output_shape_inputs: input positions that have the output's shape, so that what each
            knows of it is known of all, dimension by dimension.
        all_same: every input has the output's shape (the elementwise rule).
        partial: `infer` takes partly known shapes as they are (-1 for each unknown
            dimension) and fills what it can itself, as MXNet's shape functions do (the
            NumPy dialect's dot: a's last dimension is b's first).

    Example::

        from gluonlite.ops.registry import ShapeRule
        rule = ShapeRule(lambda p, ins: (ins, [ins[0][::-1]]), whole_inputs=(0,))
        rule(None, [(2, 3)])            # ([(2, 3)], [(3, 2)])
    """

    __slots__ = ("infer", "back", "fills_back", "whole_inputs", "output_shape_inputs",
                 "all_same", "partial")

    def __init__(self, infer, *, back=None, fills_back=None, whole_inputs=(),
                 output_shape_inputs=(), all_same=False, partial=False):
        self._set(infer=infer, back=back, fills_back=fills_back,
                  whole_inputs=tuple(whole_inputs), output_shape_inputs=tuple(output_shape_inputs),
                  all_same=bool(all_same), partial=bool(partial))

    def __call__(self, p, in_shapes):
        return self.infer(p, in_shapes)

    @classmethod
    def of(cls, shape):
        """A `ShapeRule` from what ``register(shape=...)`` takes: a rule, a (rule, back)
        pair, a `ShapeRule`, or None.

        Args:
            shape: the rule given: None, a `ShapeRule` (returned as is), a function
                ``rule(p, in_shapes)``, or a ``(rule, back)`` pair.

        Returns:
            ShapeRule or None.

        Example::

            from gluonlite.ops.registry import ShapeRule
            rule = ShapeRule.of(lambda p, ins: (ins, [ins[0]]))
            rule.back is None, rule(None, [(3,)])       # (True, ([(3,)], [(3,)]))
        """
        if shape is None or isinstance(shape, ShapeRule):
            return shape
        if isinstance(shape, tuple):
            infer, back = shape
            return infer.with_back(back) if isinstance(infer, ShapeRule) else cls(infer,
                                                                                   back=back)
        return cls(shape)

    def with_back(self, back):
        """This rule with `back` as its backward rule.

        Example::

            from gluonlite.ops.rules import same_shape
            rule = same_shape("neg").with_back(lambda p, ins, outs: [outs[0]])
            rule.back(None, [None], [(2,)]), rule.all_same      # ([(2,)], True)
        """
        return ShapeRule(self.infer, back=back, fills_back=self.fills_back,
                         whole_inputs=self.whole_inputs,
                         output_shape_inputs=self.output_shape_inputs, all_same=self.all_same,
                         partial=self.partial)


class Signature(_Frozen):
    """What an operator takes and gives, and the names MXNet gives them.

    Args:
        inputs: the input names, or ``p -> names`` where they depend on the attributes
            (FullyConnected drops ``bias`` with ``no_bias``).
        outputs: how many outputs, hidden ones included (an int or ``p -> int``).
        visible: how many of them a user sees (default: all).
        output_names: the visible outputs' suffixes (or ``p -> names``; default ``output``,
            or ``output0``, ``output1``, ...).
        aux: the names of the auxiliary inputs, or ``p -> one bool per input`` for an
            operator whose auxiliary inputs depend on its params (a subgraph node holding
            a BatchNorm).
        variadic: the attribute counting the inputs (``"num_args"``), or a triple (count,
            group, tail) for inputs that come in groups per count (multi_sgd_mom_update:
            ``("num_weights", ("weight", "grad", "mom"), ())``; inputs are then named
            ``weight_0, grad_0, mom_0, weight_1, ...``, then the tail's names). The group
            may instead be a function of the count returning every name in order
            (quantized_concat: its arrays, then each one's minimum and maximum).
        attrs: {name: `gluonlite.ops.attrs.Attr`}: how each attribute parses.
        call_order: every input name in MXNet's call order, whatever the attributes:
            positional arguments past these bind to attributes (``nd.clip(x, 0, 1)``), as
            in MXNet (default: the inputs for the default attributes; none when variadic).
        full_output_names: the output names are full names already (a subgraph node's
            ``exp0_output``): `Symbol.list_outputs` uses them without the node's name.

    Example::

        from gluonlite.ops.registry import Signature
        from gluonlite.ops.attrs import Int
        sig = Signature(("data", "weight"), attrs={"k": Int(1)})
        sig.call_order, list(sig.attrs)     # (('data', 'weight'), ['k'])
    """

    __slots__ = ("inputs", "outputs", "visible", "output_names", "aux", "variadic", "attrs",
                 "call_order", "full_output_names")

    def __init__(self, inputs=("data",), outputs=1, *, visible=None, output_names=None,
                 aux=(), variadic=None, attrs=None, call_order=None,
                 full_output_names=False):
        # a dict subclass (Custom's any-name attributes) keeps its class
        attrs = type(attrs)(attrs) if attrs else {}
        if call_order is None:
            call_order = () if variadic else (
                inputs(Params({k: a.default for k, a in attrs.items()}))
                if callable(inputs) else inputs)
        self._set(inputs=inputs if callable(inputs) else tuple(inputs), outputs=outputs,
                  visible=visible, output_names=output_names,
                  aux=aux if callable(aux) else tuple(aux), variadic=variadic, attrs=attrs,
                  call_order=tuple(call_order), full_output_names=bool(full_output_names))


class Rules(_Frozen):
    """An operator's semantic rules: what it computes (see the module docstring).

    Args:
        kernel: ``kernel(p, rc, *xs)`` -> an array or a tuple of arrays.
        vjp: ``vjp(p, rc, xs, ys, gys, need)`` -> one gradient (or None) per input; None
            for an operator without a gradient. The math alone: writing into given arrays
            is a fast path (`Fast.vjp`).
        shape: the shape rule: a `ShapeRule` or a plain rule (wrapped in one).
        dtype: ``dtype(p, in_dtypes) -> (in_dtypes, out_dtypes)``; None: every input and
            output takes the first known dtype.
        recorded_vjp: the gradient written from registered operators (`apply`), run in
            place of `vjp` when a gradient of the gradient is recorded, for a vjp that calls
            array functions without a recorded form (a Convolution's data gradient is a
            Deconvolution). Checked against `vjp` by the registry walk.

    Example::

        from gluonlite.ops.registry import Rules
        from gluonlite.ops.rules import same_shape
        r = Rules(lambda p, rc, x: -x, lambda p, rc, xs, ys, gys, need: (-gys[0],),
                  shape=same_shape("neg"))
        r.shape(None, [(2,)])           # ([(2,)], [(2,)])
    """

    __slots__ = ("kernel", "vjp", "shape", "dtype", "recorded_vjp")

    def __init__(self, kernel, vjp=None, *, shape=None, dtype=None, recorded_vjp=None):
        self._set(kernel=kernel, vjp=vjp, shape=ShapeRule.of(shape), dtype=dtype,
                  recorded_vjp=recorded_vjp)


class Traits(_Frozen):
    """What callers must know about an operator beyond its rules.

    Args:
        nondiff: input names that never take a gradient (indices, conditions).
        same_dtype: input names that must share one dtype (default: every input that takes
            a gradient).
        random: the kernel draws from the random generator.
        stateful: the last output is an opaque per-call object for the vjp (a loop's saved
            steps); executors never allocate or shape-infer it.
        shape_from_values: the output shape depends on input values (boolean_mask): the
            shape rule leaves that dimension unknown and no compiled plan can hold it.
        loss_output: the vjp ignores the gradient of the output (MXNet's output layers,
            SoftmaxOutput, MakeLoss, ...): True, or ``f(p)`` saying so for given attributes.
            A backward runs such a vjp wherever a head depends on the output, even through
            BlockGrad, whose zero gradient MXNet's loss layers never read.

    Example::

        from gluonlite.ops.registry import Traits
        t = Traits(nondiff=("index",), random=True)
        t.nondiff, t.random, t.stateful     # (frozenset({'index'}), True, False)
    """

    __slots__ = ("nondiff", "same_dtype", "random", "stateful", "shape_from_values",
                 "loss_output")

    def __init__(self, *, nondiff=(), same_dtype=None, random=False, stateful=False,
                 shape_from_values=False, loss_output=False):
        self._set(nondiff=frozenset(nondiff),
                  same_dtype=None if same_dtype is None else frozenset(same_dtype),
                  random=bool(random), stateful=bool(stateful),
                  shape_from_values=bool(shape_from_values), loss_output=loss_output)


class Operator(_Frozen):
    """One registered operator: its groups (see the module docstring), fixed here.

    Args:
        name: the registered name.
        signature: a `Signature`.
        rules: a `Rules`.
        traits: a `Traits` (default: none).
        fast: a `Fast` (default: no fast paths).
        storage: a `gluonlite.ops.storage.StorageRule` (default: dense storage only).
        doc: the docstring (default: the kernel's).

    The groups' most read fields are also plain attributes of the entry (``op.kernel``,
    ``op.vjp``, ``op.attrs``, ``op.random``, ...), read on every call.

    Example::

        from gluonlite.ops.registry import Operator, Signature, Rules
        op = Operator("_my_neg", Signature(), Rules(lambda p, rc, x: -x))
        op, op.signature, op.kernel(None, None, np.ones(2))
        # (<Operator _my_neg>, ('data',), array([-1., -1.]))
    """

    def __init__(self, name, signature, rules, traits=None, fast=None, storage=None, doc=None):
        for what, value, kind in (("signature", signature, Signature), ("rules", rules, Rules),
                                  ("traits", traits, (Traits, type(None))),
                                  ("fast", fast, (Fast, type(None)))):
            if not isinstance(value, kind):
                raise TypeError(f"{name}: {what} must be a {getattr(kind, '__name__', kind)}, "
                                f"got {type(value).__name__}")
        traits = traits or Traits()
        sig = signature
        variadic, group, tail = sig.variadic if isinstance(sig.variadic, tuple) \
            else (sig.variadic, None, ())
        self._set(name=name, sig=sig, rules=rules, traits=traits,
                  fast=fast if fast is not None else Fast(), storage=storage,
                  __doc__=doc or (rules.kernel.__doc__ if rules.kernel is not None else None),
                  kernel=rules.kernel, vjp=rules.vjp, shape_rule=rules.shape,
                  shape_back=None if rules.shape is None else rules.shape.back,
                  dtype_rule=rules.dtype, attrs=sig.attrs, signature=sig.call_order,
                  aux=() if callable(sig.aux) else sig.aux, variadic=variadic,
                  variadic_group=group if callable(group) else tuple(group) if group else None,
                  variadic_tail=tuple(tail),
                  nondiff=traits.nondiff, same_dtype=traits.same_dtype, random=traits.random,
                  stateful=traits.stateful, shape_from_values=traits.shape_from_values,
                  loss_output=traits.loss_output)

    def __repr__(self):
        return f"<Operator {self.name}>"

    # ---- attributes -------------------------------------------------------------------
    def parse(self, given):
        """Parse a dict of attributes (Python values or strings) into `Params`.

        Args:
            given: {attribute name: Python value or string}, as a caller or a JSON file
                gives them.

        Returns:
            (params, strings): the typed values (defaults filled in) and the string form of the
            attributes that were given, in MXNet's JSON spelling. Keys starting with ``__``
            (MXNet's hidden node attributes such as ``__shape__``) are kept as strings only.

        Raises:
            TypeError: an unknown or missing attribute (the message lists the known ones); an
                operator that has no attributes keeps unknown ones as strings and ignores
                them, as MXNet does.
            ValueError: an attribute value that does not parse.

        Example::

            op = mx.ops.get("FullyConnected")
            p, strings = op.parse({"num_hidden": "4"})
            p.num_hidden, p.no_bias, strings        # (4, False, {'num_hidden': '4'})
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
        """Names of this operator's inputs for params `p` (``['data', 'weight', 'bias']``).

        Example::

            op = mx.ops.get("FullyConnected")
            op.input_names(op.parse({"num_hidden": 4, "no_bias": True})[0])   # ['data', 'weight']
        """
        if self.variadic:
            if callable(self.variadic_group):
                return list(self.variadic_group(p[self.variadic])) + list(self.variadic_tail)
            if self.variadic_group:
                return [f"{n}_{i}" for i in range(p[self.variadic])
                        for n in self.variadic_group] + list(self.variadic_tail)
            return [f"arg{i}" for i in range(p[self.variadic])]
        inputs = self.sig.inputs
        return list(inputs(p) if callable(inputs) else inputs)

    def num_outputs(self, p):
        """Total outputs, hidden ones included (e.g. Dropout's mask).

        Args:
            p: the operator's parsed attributes (`Params`).

        Returns:
            int: the number of outputs.

        Example::

            op = mx.ops.get("Dropout")
            op.num_outputs(op.parse({})[0])     # 2: the output and its hidden mask
        """
        n = self.sig.outputs
        return n(p) if callable(n) else n

    def num_visible(self, p):
        """Outputs a user sees (the rest are kept only for the gradient).

        Args:
            p: the operator's parsed attributes (`Params`).

        Returns:
            int: the number of visible outputs.

        Example::

            op = mx.ops.get("Dropout")
            op.num_visible(op.parse({})[0])     # 1
        """
        v = self.sig.visible if self.sig.visible is not None else self.sig.outputs
        return v(p) if callable(v) else v

    def output_names(self, p):
        """Suffixes of the visible outputs as MXNet lists them (``output`` or ``output0..``).

        Args:
            p: the operator's parsed attributes (`Params`).

        Returns:
            list of str: one suffix per visible output.

        Example::

            op = mx.ops.get("split")
            op.output_names(op.parse({"num_outputs": 2})[0])    # ['output0', 'output1']
        """
        names = self.sig.output_names
        if names:
            return list(names(p) if callable(names) else names)
        n = self.num_visible(p)
        return ["output"] if n == 1 else [f"output{i}" for i in range(n)]

    @property
    def full_output_names(self):
        """Whether the output names are full names already (see `Signature`).

        Example::

            mx.ops.get("exp").full_output_names     # False: outputs are named after their node
        """
        return self.sig.full_output_names

    @property
    def has_aux(self):
        """Whether some input can be an auxiliary state (for some params).

        Example::

            mx.ops.get("BatchNorm").has_aux, mx.ops.get("exp").has_aux      # (True, False)
        """
        return bool(self.aux) or callable(self.sig.aux)

    def aux_mask(self, p):
        """Per input (for params `p`), whether it is an auxiliary state: a value the forward
        updates in place (BatchNorm's moving statistics), listed by
        `Symbol.list_auxiliary_states` and never given a gradient.

        Returns a list of bools: the operator's own `aux` rule when it has one, else
        whether each input's name is in `aux`.

        Example::

            op = mx.ops.get("BatchNorm")
            op.aux_mask(op.parse({})[0])    # [False, False, False, True, True]
        """
        if callable(self.sig.aux):
            return list(self.sig.aux(p))
        return [n in self.aux for n in self.input_names(p)]

    def saved_inputs(self, p):
        """(input indices the vjp reads, whether it reads the outputs).

        Args:
            p: the operator's parsed attributes (`Params`).

        Returns:
            (frozenset of int, bool): every input and True when the fast paths declare
            nothing saved.

        Example::

            op = mx.ops.get("exp")
            op.saved_inputs(op.parse({})[0])    # (frozenset(), True): its vjp reads the output
        """
        saves = self.fast.saves
        spec = saves(p) if callable(saves) else saves
        n_in = len(self.input_names(p))
        if spec is None:
            return frozenset(range(n_in)), True
        names = self.input_names(p) if not self.variadic else []
        return frozenset(j for j, n in enumerate(names) if n in spec), "outputs" in spec

    def differentiable(self, i, p):
        """Whether input i can receive a gradient (not for nondiff or auxiliary inputs).

        Args:
            i: the input's index.
            p: the operator's parsed attributes (`Params`).

        Returns:
            bool: False also for an operator without a vjp.

        Example::

            op = mx.ops.get("BatchNorm")
            p, _ = op.parse({})
            [op.differentiable(i, p) for i in range(5)]     # [True, True, True, False, False]
        """
        if self.vjp is None or self.input_names(p)[i] in self.nondiff:
            return False
        return not (self.has_aux and self.aux_mask(p)[i])

    def ignores_head_grad(self, p):
        """Whether the vjp, for attributes `p`, ignores the output's gradient (`Traits`'s
        ``loss_output``): a backward then runs it wherever a head depends on the output.

        Example::

            op = mx.ops.get("SoftmaxOutput")
            op.ignores_head_grad(op.parse({})[0]), op.ignores_head_grad(
                op.parse({"out_grad": True})[0])     # (True, False)
        """
        rule = self.loss_output
        return bool(rule(p)) if callable(rule) else rule

    def dtype_group(self, p):
        """Indices of the inputs that must share one dtype (for params `p`).

        Example::

            op = mx.ops.get("FullyConnected")
            p, _ = op.parse({"num_hidden": 4})
            op.dtype_group(p)               # [0, 1, 2]: data, weight and bias share a dtype
        """
        names = self.input_names(p)
        if self.same_dtype is not None:
            return [i for i, n in enumerate(names) if n in self.same_dtype]
        if self.variadic:
            return list(range(len(names)))
        aux = self.aux_mask(p) if self.has_aux else [False] * len(names)
        return [i for i, n in enumerate(names) if n not in self.nondiff and not aux[i]]

    def check_dtypes(self, p, in_dtypes):
        """Raise TypeError when inputs that must share a dtype do not (None entries skipped).

        Args:
            p: the operator's parsed attributes (`Params`).
            in_dtypes: the input dtypes, in input order, None for an unknown one.

        Raises:
            MXNetTypeError: (a TypeError) two inputs of `dtype_group` with different dtypes.

        Example::

            op = mx.ops.get("elemwise_add")
            p, _ = op.parse({})
            op.check_dtypes(p, [np.float32, np.float32])    # fine; float32 with float16 raises
        """
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
    def rules_on(self, xp):
        """``(kernel, vjp)`` that callers run on array module `xp`: the device fast paths
        where `xp` compiles elementwise kernels and they are on (`Fast.device`), else the
        fast paths, else the rules themselves. A kernel's hidden output is read by the vjp
        of the same pair.

        Example::

            kernel, vjp = mx.ops.get("BatchNorm").rules_on(np)
            kernel.__name__             # '_bn_fast_kernel': the fast path, where there is one
        """
        fast = self.fast
        if fast.device is not None and compiles_kernels(xp) and device_kernels_enabled():
            return fast.device.kernel, fast.device.vjp
        return fast.kernel or self.kernel, fast.vjp or self.vjp

    def forward(self, p, rc, xs, out=None):
        """Run the forward on raw arrays (the fast kernel where there is one); returns a tuple
        of all outputs.

        With `out` (a list of preallocated arrays, one per output) the results are written
        there, by the `into` kernel when the operator has one.

        Args:
            p: the operator's parsed attributes (`Params`).
            rc: the `RunCtx` (train mode and array module).
            xs: the raw input arrays, in input order (None for an absent optional one).
            out: preallocated output arrays, one per output (default None: new ones).

        Returns:
            tuple: every output array, hidden ones included (`out`'s arrays when given).

        Example::

            from gluonlite.ops.registry import RunCtx
            op = mx.ops.get("exp")
            p, _ = op.parse({})
            op.forward(p, RunCtx(False, np), [np.zeros(2, np.float32)])
            # (array([1., 1.], dtype=float32),)
        """
        if out is not None and self.fast.into is not None:
            self.fast.into(p, rc, out, *xs)
            return tuple(out)
        if self.fast.device is None:
            res = (self.fast.kernel or self.kernel)(p, rc, *xs)
        else:
            res = self.rules_on(rc.xp)[0](p, rc, *xs)
        if not isinstance(res, tuple):
            res = (res,)
        if out is not None:
            for o, r in zip(out, res):
                rc.xp.copyto(o, r, casting="unsafe")
            return tuple(out)
        return res

    def infer_shape(self, p, in_shapes):
        """Apply the shape rule; returns (in_shapes, out_shapes), None where still unknown.

        Args:
            p: the operator's parsed attributes (`Params`).
            in_shapes: the input shapes, in input order, None for an unknown one.

        Returns:
            (list, list): the input shapes (the rule may fill unknown ones) and the output
            shapes.

        Raises:
            NotImplementedError: the operator has no shape rule.
            ShapeError: shapes that do not fit (the rule's message).

        Example::

            op = mx.ops.get("FullyConnected")
            p, _ = op.parse({"num_hidden": 4})
            op.infer_shape(p, [(2, 3), None, None])     # ([(2, 3), (4, 3), (4,)], [(2, 4)])
        """
        if self.shape_rule is None:
            raise NotImplementedError(f"{self.name}: no shape rule")
        return self.shape_rule.infer(p, list(in_shapes))

    def infer_dtype(self, p, in_dtypes):
        """Apply the dtype rule (default: every input and output takes the first known dtype).

        Args:
            p: the operator's parsed attributes (`Params`).
            in_dtypes: the input dtypes, in input order, None for an unknown one.

        Returns:
            (list, list): the input dtypes (unknown ones filled where the rule can) and the
            output dtypes.

        Raises:
            TypeError: inputs that must share a dtype (see `dtype_group`) do not.

        Example::

            op = mx.ops.get("exp")
            p, _ = op.parse({})
            op.infer_dtype(p, [np.dtype("float16")])    # ([dtype('float16')], [dtype('float16')])
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
    """The numpy name of a dtype given as a dtype or a type ('float32').

    Args:
        d: a numpy dtype, a scalar type (np.float32) or a dtype name.

    Returns:
        str: the dtype's name.

    Example::

        from gluonlite.ops.registry import dtype_str
        dtype_str(np.float32), dtype_str(np.dtype("int8"))      # ('float32', 'int8')
    """
    return np.dtype(d).name


_SIGNATURE_KEYS = ("inputs", "outputs", "visible", "output_names", "aux", "variadic", "attrs",
                   "full_output_names")
_TRAIT_KEYS = ("nondiff", "same_dtype", "random", "stateful", "shape_from_values",
               "loss_output")


def entry(name, kernel, *, vjp=None, shape=None, dtype=None, recorded_vjp=None,
          signature=None, fast=None, storage=None, doc=None, **keywords):
    """The frozen `Operator` that ``register(name, **keywords)`` registers (the mapping of
    keywords to groups is in the module docstring); registers nothing.

    Args:
        name: the operator's name.
        kernel: the forward, ``kernel(p, rc, *xs)`` returning one array or a tuple.
        vjp: the gradient rule ``vjp(p, rc, xs, ys, gys, need)`` (default None: not
            differentiable).
        shape: the shape rule: a function, a (rule, back) pair or a `ShapeRule` (default None:
            none).
        dtype: the dtype rule ``dtype(p, in_dtypes)`` (default None: the first known dtype
            everywhere).
        recorded_vjp: a gradient rule written with operators, which autograd records for a
            gradient of a gradient (default None).
        signature: the call order of the inputs (`Signature`'s ``call_order``; default None:
            the input order).
        fast: the speed-only paths, a `Fast` (default None: none).
        storage: the sparse storage rule, a `StorageRule` (default None: dense only).
        doc: the operator's documentation text (default None: the kernel's docstring).
        **keywords: the `Signature` and `Traits` fields (inputs, attrs, nondiff, ...).

    Returns:
        Operator: the entry.

    Raises:
        TypeError: a keyword that is no part of an entry (fast paths go in ``fast=Fast(...)``).

    Example::

        from gluonlite.ops.registry import entry
        from gluonlite.ops.rules import same_shape
        op = entry("_my_neg", lambda p, rc, x: -x, shape=same_shape("_my_neg"))
        op.infer_shape({}, [(2, 3)])    # ([(2, 3)], [(2, 3)]); nothing is registered
    """
    unknown = sorted(k for k in keywords if k not in _SIGNATURE_KEYS + _TRAIT_KEYS)
    if unknown:
        fast_keys = [k for k in unknown if k in Fast.__slots__]
        hint = (f"; fast paths go in one object: fast=Fast("
                f"{', '.join(f'{k}=...' for k in fast_keys)}) (gluonlite.ops.fast)"
                if fast_keys else f"; the keywords are {', '.join(_SIGNATURE_KEYS + _TRAIT_KEYS)}"
                ", vjp, shape, dtype, recorded_vjp, signature, fast, storage, doc")
        raise TypeError(f"{name}: unknown argument(s) {unknown}{hint}")
    sig = Signature(**{k: keywords[k] for k in _SIGNATURE_KEYS if k in keywords},
                    call_order=signature)
    traits = Traits(**{k: keywords[k] for k in _TRAIT_KEYS if k in keywords})
    rules = Rules(kernel, vjp, shape=shape, dtype=dtype, recorded_vjp=recorded_vjp)
    return Operator(name, sig, rules, traits, fast, storage, doc)


def register(name, *, aliases=(), **keywords):
    """Decorator registering `kernel` as operator `name`, with `aliases` as further names;
    `keywords` build its entry (see `entry` and the module docstring for where each goes).

    Returns the `Operator` (the name then refers to the entry, not to the kernel).

    Raises:
        ValueError: a name registered already.

    Example::

        from gluonlite.ops.registry import register, Fast, _OPS
        from gluonlite.ops.rules import same_shape
        @register("_my_square", vjp=lambda p, rc, xs, ys, gys, need: (2 * xs[0] * gys[0],),
                  shape=same_shape("_my_square"), fast=Fast(saves=("data",)))
        def _square(p, rc, x):
            return x * x
        _square                             # <Operator _my_square>: the name is the entry
        mx.ops.get("_my_square") is _square # True
        del _OPS["_my_square"]              # restore the registry
    """
    def deco(kernel):
        return add(entry(name, kernel, **keywords), *aliases)
    return deco


def add(op, *names):
    """Register an already built `Operator` under its name (and `names`).

    Args:
        op: the `Operator` to register.
        *names: further names it is registered under.

    Returns:
        Operator: `op`.

    Raises:
        ValueError: a name registered already.

    Example::

        from gluonlite.ops import registry
        op = registry.entry("_doc_neg", lambda p, rc, x: -x)
        registry.add(op, "_doc_negative")
        registry.get("_doc_negative") is op     # True
        del registry._OPS["_doc_neg"], registry._OPS["_doc_negative"]   # restore the registry
    """
    for n in (op.name, *names):
        if n in _OPS:
            raise ValueError(f"operator {n!r} is registered twice")
        _OPS[n] = op
    return op


def get(name):
    """The operator registered as `name`.

    Raises:
        ValueError: no such operator (the message suggests close names).

    Example::

        op = mx.ops.get("exp")      # <Operator exp>; an unknown name suggests close ones
    """
    try:
        return _OPS[name]
    except KeyError:
        close = difflib.get_close_matches(name, _OPS, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise MXNetValueError(f"unknown operator {name!r}{hint}") from None


def exists(name):
    """Whether an operator of that name is registered.

    Args:
        name: the operator name (aliases count).

    Returns:
        bool

    Example::

        mx.ops.registry.exists("exp"), mx.ops.registry.exists("nope")     # (True, False)
    """
    return name in _OPS


def all_ops():
    """Every registered operator once (aliases folded), sorted by name.

    Example::

        ops = mx.ops.registry.all_ops()
        len(ops) > 100, "exp" in [op.name for op in ops]    # (True, True)
    """
    return sorted({id(o): o for o in _OPS.values()}.values(), key=lambda o: o.name)


def names():
    """Every registered name, aliases included.

    Example::

        "FullyConnected" in mx.ops.registry.names()     # True
    """
    return sorted(_OPS)


def alias(name, *aliases):
    """Register the operator `name` under the further names `aliases` too (MXNet's older
    spellings of an operator defined elsewhere); returns the operator.

    Raises:
        ValueError: an alias already taken, or an unknown `name`.

    Example::

        from gluonlite.ops import registry
        registry.alias("exp", "_my_exp") is registry.get("exp")     # True
        del registry._OPS["_my_exp"]                                # restore the registry
    """
    op = get(name)
    for n in aliases:
        if n in _OPS:
            raise ValueError(f"operator {n!r} is registered twice")
        _OPS[n] = op
    return op


def apply(rc, name, *inputs, **attrs):
    """Operator `name` applied to raw `inputs` inside another operator's rule (a gradient
    written from operators: a Convolution's data gradient is a Deconvolution); returns its
    output (a tuple for several).

    Under the recorded rules of a gradient of a gradient the array module records the call
    instead (`gluonlite.ndarray.recorded_rules`, whose module offers ``operator``); this is
    the one place a rule meets that difference.

    Args:
        rc: the calling rule's `RunCtx` (its array module decides how the call runs).
        name: the operator's registered name.
        *inputs: its raw input arrays.
        **attrs: its attributes, as a caller passes them.

    Returns:
        array or tuple: its visible output(s).

    Raises:
        MXNetValueError: an unknown operator name.

    Example::

        from gluonlite.ops.registry import RunCtx, apply
        apply(RunCtx(False, np), "exp", np.zeros(2))        # array([1., 1.])
    """
    record = getattr(rc.xp, "operator", None)
    if record is not None:
        return record(name, *inputs, **attrs)
    op = get(name)
    p = op.parse(attrs)[0]
    ys = op.forward(p, rc, list(inputs))[:op.num_visible(p)]
    return ys[0] if len(ys) == 1 else ys
