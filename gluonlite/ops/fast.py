"""An operator's fast paths: optional alternatives to its semantic rules, for speed only.

An `Operator`'s semantic rules (kernel, vjp, shape, dtype, attributes, inputs and outputs)
say what it computes; every rule here computes the same thing another way, cheaper for a
compiled plan, a loop or autograd, and the registry walk (tests/core/test_registry_walk.py)
holds each one against the plain rule for every operator that has it. An operator without
fast paths is complete and correct, only slower.

They are given when the operator registers (``register(..., fast=Fast(...))``) and never set
afterwards. This is the first of the three places a speed-up may live (docs/DESIGN.md, "An
operator's entry"): a faster kernel or gradient for one operator. A rewrite of a graph is a
graph pass (`gluonlite.executor.hooks.register_graph_pass`), a loop's execution its
registered lowering (`gluonlite.executor.lowering`).

An array module that compiles elementwise kernels (CuPy's ``fuse``; `compiles_kernels`) gets
an operator's `device` fast paths where it has them: a kernel and a gradient written for a
device, where one launch per array function is what a step costs (an RNN step's gate math as
one fused kernel instead of a dozen). `device_kernels(False)` (or the environment variable
``GLUONLITE_FUSED_KERNELS=0``) turns them off; plans read the switch when they compile.

Example::

    from gluonlite.ops.registry import entry, Fast
    from gluonlite.ops.rules import same_shape
    def _tanh_vjp(p, rc, xs, ys, gys, need):         # the math
        return (gys[0] * (1 - ys[0] * ys[0]),)
    op = entry("_my_tanh", lambda p, rc, x: np.tanh(x), vjp=_tanh_vjp,
               shape=same_shape("_my_tanh"), fast=Fast(ufunc=("tanh", {}), saves=("outputs",)))
    op.fast                 # Fast(ufunc, saves)
"""

import os

__all__ = ["Fast", "compiles_kernels", "device_kernels", "device_kernels_enabled"]

_DEVICE = {"on": os.environ.get("GLUONLITE_FUSED_KERNELS", "1").strip() != "0"}


def compiles_kernels(xp):
    """Whether array module `xp` compiles elementwise kernels (has CuPy's ``fuse``): where
    operators' `Fast.device` paths run.

    Example::

        from gluonlite.ops.fast import compiles_kernels
        compiles_kernels(np)        # False; True for cupy, which has fuse
    """
    found = _COMPILES.get(xp)
    if found is None:
        # asked on every call of an operator with a device path; numpy answers a missing
        # attribute through its module __getattr__, which costs microseconds each time
        found = _COMPILES[xp] = getattr(xp, "fuse", None) is not None
    return found


_COMPILES = {}  # {array module: whether it has fuse}


def device_kernels_enabled():
    """Whether the operators' device fast paths are used (default on; off with
    ``GLUONLITE_FUSED_KERNELS=0`` in the environment or inside `device_kernels(False)`).

    Example::

        from gluonlite.ops.fast import device_kernels_enabled
        device_kernels_enabled()    # True unless GLUONLITE_FUSED_KERNELS=0
    """
    return _DEVICE["on"]


class device_kernels:
    """Turn the operators' device fast paths (`Fast.device`) on or off inside a block: to
    compare them with the plain fast paths (results agree to rounding). Plans compiled inside
    the block keep the setting wherever they run later; imperative calls read it per call.

    Args:
        enabled: whether the device fast paths run inside the block (the previous setting
            comes back on exit).

    Example::

        from gluonlite.ops.fast import device_kernels, device_kernels_enabled
        with device_kernels(False):
            device_kernels_enabled()    # False: plans compiled here run one kernel per function
    """

    def __init__(self, enabled):
        self.enabled = bool(enabled)

    def __enter__(self):
        self._old, _DEVICE["on"] = _DEVICE["on"], self.enabled
        return self

    def __exit__(self, *exc):
        _DEVICE["on"] = self._old



class Fast:
    """The fast paths of one operator (all optional; frozen once made).

    Forward:
        kernel: ``kernel(p, rc, *xs)``, the forward computed a faster way (a hand-fused loop);
            every caller runs it in place of the plain kernel. A stateful operator's hidden
            output is then what its `vjp` (which it must have too) reads. Checked: its
            visible outputs equal the kernel's.
        into: ``into(p, rc, outs, *xs)``: the kernel writing into preallocated ``outs``
            (what static-alloc plans call). Checked: equals the kernel.
        ufunc: ``(name, kwargs)``: `into` is the array module's ``name(*inputs,
            out=outs[0], **kwargs)``, which a compiled plan calls directly; `name` may be a
            function of the array module giving that function (or None where there is
            none); a Python function given so takes its output by position, after the
            inputs, as a ufunc does. A compiled plan drops a ``casting`` kwarg where the
            inputs and the output share a dtype, so give it only for functions whose result
            has their inputs' dtype. ``(name, kwargs, side)`` (an operator with a ``scalar``
            attribute, float data): the call is ``name(x, s, out)`` (side "right") or
            ``name(s, x, out)`` ("left"), ``s`` the scalar as a 0-d array of the data's
            dtype (what numpy computes a Python scalar in, without its conversion per
            call). Checked: equals the kernel.
        inline: ``(p, input shapes, input dtypes) -> source lines`` (or None where they do
            not apply): `into` written out for a compiled plan to emit in place of the call
            ({0}, {1}, ... the inputs, {out} the output, a C-contiguous array of the inputs'
            dtype; ``xp`` the array module; lines call functions and never assign a name).
            Checked: equal the kernel.
        reshapes: the forward is its one input reshaped (a view) to the output's inferred
            shape: a compiled plan calls ``reshape`` with the shape it knows. Checked, and
            its gradient is the output's reshaped.
        views: ``(p, input shape) -> one basic index per output``: the outputs are views of
            input 0 at indices known once its shape is (a split): a compiled plan indexes
            the input itself. Checked: equal the kernel.

    Gradient:
        saves: what the vjp reads: None (everything), or a tuple (or ``p -> tuple``) of input
            names and possibly "outputs"; the vjp sees the rest only as shape stubs, so a
            plan (and a loop, per step) keeps only these values. Checked: the vjp gives the
            same gradients with the rest as zero stubs.
        passes_grad: input positions whose gradient is the output's gradient unchanged: a
            compiled backward passes it on without calling the vjp. Checked.
        grads: for the first len(grads) inputs (None: no rule for that one), ``f(xp,
            *inputs, output, output_grad)`` -> that input's gradient, the vjp's own rule
            where it needs no attributes, called directly by a compiled backward when every
            gradient it wants has one. Checked: equal the vjp's.
        grads_out: every rule in `grads` also takes ``out=`` and writes its gradient there,
            returning `out` (a loop's reverse pass gives it a row). Checked: what is written
            to out= and returned.
        vjp: ``vjp(p, rc, xs, ys, gys, need)``, the gradient rule computed a faster way;
            every caller but the recorded rules of a gradient of a gradient runs it in
            place of the plain vjp. Checked: equal the plain vjp's gradients.
        writes_dests: `vjp` also takes ``dests=`` (per input: None or a C-contiguous array
            of the input's shape and dtype that nothing else reads) and writes that input's
            gradient into it, returning that very array where it can; autograd hands a
            parameter's grad buffer down this way (grad_req='write') and a loop's reverse
            pass a gradient's row. Checked: same values, the dest returned.
        summed_grads: ``{input name: (names of the inputs it reads, fn)}``: for an input that
            is the same at every step of a loop, ``fn(p, rc, input, stacked, g, out=None)``
            is its gradient summed over the steps, from the (T, ...) stacks of the inputs
            it reads (`stacked`, by name) and of the output-0 gradients (`g`): a lowered
            loop makes one weight-gradient product in place of T small ones. Checked: equal
            the vjp summed over steps, and into out=.

    Devices:
        elementwise: ``p -> (value, grads)`` or None (for params without one): the
            operator as an expression on elements, for fusing it with its neighbours into
            one kernel (`gluonlite.ops.fused`): ``value(xp, p, *xs) -> y`` and, per input,
            ``grad(xp, p, xs, y, gy) -> gx`` (None for an input without a gradient), written
            with the array module's ufuncs and operators only (what ``cupy.fuse`` compiles;
            a result may be a Python number). Only for operators whose inputs and output
            share one shape when the fusion pass picks them. Checked: equal the kernel and
            the vjp.
        device: a `Fast` (with `kernel` and `vjp`, and `writes_dests` as this one's) whose
            kernel and vjp replace these where the array module compiles elementwise kernels
            (`compiles_kernels`: CuPy) and `device_kernels_enabled()`: written for a device,
            where each array function is a kernel launch (the gate math of a recurrent step
            as one fused kernel). Checked on such a module against the plain rules.

    Example::

        from gluonlite.ops.fast import Fast
        mx.ops.get("exp").fast      # Fast(into, ufunc, saves, grads)
        Fast(saves=("outputs",)).saves      # ('outputs',)
    """

    __slots__ = ("kernel", "into", "ufunc", "inline", "reshapes", "views", "saves", "passes_grad",
                 "grads", "grads_out", "vjp", "writes_dests", "summed_grads", "elementwise",
                 "device")

    def __init__(self, *, kernel=None, into=None, ufunc=None, inline=None, reshapes=False,
                 views=None, saves=None, passes_grad=(), grads=None, grads_out=False, vjp=None,
                 writes_dests=False, summed_grads=None, elementwise=None, device=None):
        if writes_dests and vjp is None:
            raise TypeError("Fast: writes_dests=True says how `vjp` is called; give the "
                            "vjp that takes dests= as vjp=...")
        if grads_out and grads is None:
            raise TypeError("Fast: grads_out=True says how the `grads` rules are called; "
                            "give them as grads=(...)")
        if kernel is not None and vjp is None:
            raise TypeError("Fast: a faster kernel comes with the vjp that reads what it keeps "
                            "(vjp=...), even where that is the plain vjp")
        if device is not None:
            if not isinstance(device, Fast) or device.kernel is None or \
                    device.device is not None or device.writes_dests != bool(writes_dests):
                raise TypeError("Fast: device=Fast(kernel=..., vjp=...) with no device of its "
                                "own, taking dests= exactly where this vjp does")
        put = object.__setattr__
        put(self, "kernel", kernel)
        put(self, "into", into)
        put(self, "ufunc", ufunc)
        put(self, "inline", inline)
        put(self, "reshapes", bool(reshapes))
        put(self, "views", views)
        put(self, "saves", saves)
        put(self, "passes_grad", tuple(passes_grad))
        put(self, "grads", None if grads is None else tuple(grads))
        put(self, "grads_out", bool(grads_out))
        put(self, "vjp", vjp)
        put(self, "writes_dests", bool(writes_dests))
        put(self, "summed_grads", dict(summed_grads) if summed_grads else {})
        put(self, "elementwise", elementwise)
        put(self, "device", device)

    def __setattr__(self, name, value):
        raise AttributeError(f"Fast is frozen: {name} is given when the operator registers "
                             "(register(..., fast=Fast(...)))")

    def __repr__(self):
        given = [k for k in self.__slots__ if getattr(self, k) not in (None, False, (), {})]
        return f"Fast({', '.join(given)})"
