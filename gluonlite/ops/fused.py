"""`_fused_elementwise`: a chain of elementwise operators of one shape as one operator, and
on a device as one kernel.

A graph pass (`gluonlite.subgraph.fusion`, run when a plan is compiled for an array module
that compiles kernels) gathers neighbouring operators that have an elementwise form
(`Fast.elementwise`) and act on arrays of one shape into one `_fused_elementwise` node: the
gate math of a recurrent cell (sigmoids, tanh, products and sums, a dozen operators) becomes
one node. Its meaning is its members' own rules (`Program`: their kernels in order; the
gradient, their vjps in reverse on the recomputed values); its device path (`Fast.device`)
is one ``cupy.fuse`` kernel for the forward and one for the backward, written from the
members' elementwise forms (the backward recomputes the values it reads instead of keeping
them: on a device that is cheaper than a launch per kept value).

Example::

    from gluonlite.ops.fused import Program
    mul, tanh = mx.ops.get("elemwise_mul"), mx.ops.get("tanh")
    prog = Program(2, [(mul, mul.parse({})[0], (0, 1)), (tanh, tanh.parse({})[0], (2,))],
                   outs=(3,))
    x, y = nd.array([1.0, 2.0]), nd.array([0.5, 0.5])
    nd._fused_elementwise(x, y, num_args=2, program=prog)     # tanh(x * y)
"""
import functools

from . import attrs as A
from .fast import Fast
from .registry import ShapeError, ShapeRule, register

__all__ = ["Program", "elementwise_form"]


def elementwise_form(op, p):
    """``(value, grads)``, the elementwise form of operator `op` with params `p`
    (`Fast.elementwise`), or None when it has none (for these params).

    Example::

        from gluonlite.ops.fused import elementwise_form
        op = mx.ops.get("relu")
        value, grads = elementwise_form(op, op.parse({})[0])    # exp has none: None
    """
    rule = op.fast.elementwise
    return None if rule is None else rule(p)


class Program:
    """The operators a `_fused_elementwise` node runs, frozen once made.

    Args:
        n_in: how many inputs the node takes (values 0 .. n_in - 1).
        steps: ``(operator, params, args)`` in order; step j computes value n_in + j from
            the values `args` (one output each).
        outs: the values the node gives, in order.
        name: a name for the compiled kernels.

    Raises:
        ValueError: a step reading a value not yet computed, an operator without an
            elementwise form for its params, or an output that is not a value.

    Example::

        from gluonlite.ops.fused import Program
        neg = mx.ops.get("negative")
        prog = Program(1, [(neg, neg.parse({})[0], (0,))], outs=(1,))
        prog                    # Program(1 in -> 1 out: negative)
    """

    __slots__ = ("n_in", "steps", "outs", "name", "_kernels")

    def __init__(self, n_in, steps, outs, name="fused"):
        steps = tuple((op, p, tuple(args)) for op, p, args in steps)
        for j, (op, p, args) in enumerate(steps):
            if any(not 0 <= a < n_in + j for a in args):
                raise ValueError(f"Program: step {j} ({op.name}) reads {args}, but only values "
                                 f"0..{n_in + j - 1} exist there")
            if elementwise_form(op, p) is None:
                raise ValueError(f"Program: step {j}: {op.name} has no elementwise form "
                                 "(Fast.elementwise) for its params")
        if not outs or any(not 0 <= o < n_in + len(steps) for o in outs):
            raise ValueError(f"Program: outs {outs} must name values 0..{n_in + len(steps) - 1}")
        for k, v in (("n_in", int(n_in)), ("steps", steps), ("outs", tuple(outs)),
                     ("name", str(name)), ("_kernels", {})):
            object.__setattr__(self, k, v)

    def __setattr__(self, name, value):
        raise AttributeError(f"Program is frozen: {name}")

    def __repr__(self):
        ops = " ".join(op.name for op, _, _ in self.steps)
        return f"Program({self.n_in} in -> {len(self.outs)} out: {ops})"

    def describe(self):
        """One line per step, ``v3 = tanh(v2)``, then the outputs.

        Example::

            from gluonlite.ops.fused import Program
            mul, tanh = mx.ops.get("elemwise_mul"), mx.ops.get("tanh")
            prog = Program(2, [(mul, mul.parse({})[0], (0, 1)), (tanh, tanh.parse({})[0], (2,))],
                           outs=(3,))
            print(prog.describe())  # v2 = elemwise_mul(v0, v1), v3 = tanh(v2), -> v3 (one a line)
        """
        lines = [f"v{self.n_in + j} = {op.name}({', '.join(f'v{a}' for a in args)})"
                 for j, (op, _, args) in enumerate(self.steps)]
        return "\n".join(lines + ["-> " + ", ".join(f"v{o}" for o in self.outs)])

    # ---- what the gradient reaches, known from the structure ------------------------------
    def reached(self, heads):
        """Per value, whether a gradient reaches it from the outputs at positions `heads`.

        Example::

            from gluonlite.ops.fused import Program
            mul, tanh = mx.ops.get("elemwise_mul"), mx.ops.get("tanh")
            prog = Program(2, [(mul, mul.parse({})[0], (0, 1)), (tanh, tanh.parse({})[0], (2,))],
                           outs=(3,))
            prog.reached([0])       # [True, True, True, True]
        """
        got = [False] * (self.n_in + len(self.steps))
        for k in heads:
            got[self.outs[k]] = True
        for j in range(len(self.steps) - 1, -1, -1):
            op, p, args = self.steps[j]
            if not got[self.n_in + j]:
                continue
            grads = elementwise_form(op, p)[1]
            for a, g in zip(args, grads):
                if g is not None:
                    got[a] = True
        return got


# ---- the meaning: the members' own rules ------------------------------------------------------
def _values(p, rc, xs):
    vals = list(xs)
    for op, q, args in p.program.steps:
        y = op.kernel(q, rc, *[vals[a] for a in args])
        vals.append(y[0] if isinstance(y, tuple) else y)
    return vals


def _kernel(p, rc, *xs):
    """_fused_elementwise(*data, num_args, program): the values `program` names, computed by
    its operators in order (see `gluonlite.ops.fused`)."""
    vals = _values(p, rc, xs)
    outs = tuple(vals[o] for o in p.program.outs)
    return outs[0] if len(outs) == 1 else outs


def _vjp(p, rc, xs, ys, gys, need):
    prog = p.program
    vals = _values(p, rc, xs)
    g = [None] * len(vals)
    for o, gy in zip(prog.outs, gys):
        if gy is not None:
            g[o] = gy if g[o] is None else g[o] + gy
    for j in range(len(prog.steps) - 1, -1, -1):
        gy = g[prog.n_in + j]
        op, q, args = prog.steps[j]
        if gy is None or op.vjp is None:  # no gradient reaches it, or it passes none
            continue
        ins = [vals[a] for a in args]
        gxs = op.vjp(q, rc, ins, [vals[prog.n_in + j]], [gy], [True] * len(args))
        for a, gx in zip(args, gxs):
            if gx is not None:
                g[a] = gx if g[a] is None else g[a] + gx
    return tuple(g[k] if need[k] else None for k in range(prog.n_in))


# ---- the device path: one fused kernel each way -----------------------------------------------
def _forward_math(xp, prog, *arrays):
    """The program's values from its elementwise forms, written into the output arrays that
    follow the inputs (plain ufunc expressions: what ``cupy.fuse`` compiles)."""
    vals = list(arrays[:prog.n_in])
    for op, q, args in prog.steps:
        vals.append(elementwise_form(op, q)[0](xp, q, *[vals[a] for a in args]))
    for out, o in zip(arrays[prog.n_in:], prog.outs):
        out[...] = vals[o]


def _backward_math(xp, prog, heads, wanted, *arrays):
    """Inputs, the gradients of the outputs at positions `heads`, then the arrays receiving
    the gradients of the inputs `wanted`: the values recomputed, the gradient taken back
    through the elementwise forms."""
    n_in = prog.n_in
    vals = list(arrays[:n_in])
    for op, q, args in prog.steps:
        vals.append(elementwise_form(op, q)[0](xp, q, *[vals[a] for a in args]))
    g = [None] * len(vals)
    for k, gy in zip(heads, arrays[n_in:n_in + len(heads)]):
        o = prog.outs[k]
        g[o] = gy if g[o] is None else g[o] + gy
    for j in range(len(prog.steps) - 1, -1, -1):
        gy = g[n_in + j]
        if gy is None:
            continue
        op, q, args = prog.steps[j]
        ins = [vals[a] for a in args]
        for a, rule in zip(args, elementwise_form(op, q)[1]):
            if rule is not None:
                t = rule(xp, q, ins, vals[n_in + j], gy)
                g[a] = t if g[a] is None else g[a] + t
    for out, k in zip(arrays[n_in + len(heads):], wanted):
        out[...] = g[k]


def _compiled(xp, prog, key, math, *bound):
    kernels = prog._kernels
    f = kernels.get((id(xp),) + key)
    if f is None:
        f = kernels[(id(xp),) + key] = xp.fuse(kernel_name=f"gluonlite_{prog.name}_{key[0]}")(
            functools.partial(math, xp, prog, *bound))
    return f


def _device_kernel(p, rc, *xs):
    """The forward as one kernel (``cupy.fuse`` of the members' elementwise forms)."""
    xp, prog = rc.xp, p.program
    outs = tuple(xp.empty(xs[0].shape, dtype=xs[0].dtype) for _ in prog.outs)
    _compiled(xp, prog, ("forward",), _forward_math)(*xs, *outs)
    return outs[0] if len(outs) == 1 else outs


def _device_vjp(p, rc, xs, ys, gys, need):
    """The gradient as one kernel, recomputing the values it reads."""
    xp, prog = rc.xp, p.program
    heads = tuple(k for k, gy in enumerate(gys) if gy is not None)
    reached = prog.reached(heads)
    wanted = tuple(k for k in range(prog.n_in) if need[k] and reached[k])
    if not wanted:
        return (None,) * prog.n_in
    grads = [xp.empty(xs[k].shape, dtype=xs[k].dtype) for k in wanted]
    _compiled(xp, prog, ("backward", heads, wanted), _backward_math, heads, wanted)(
        *xs, *[gys[k] for k in heads], *grads)
    out = [None] * prog.n_in
    for k, gx in zip(wanted, grads):
        out[k] = gx
    return tuple(out)


def _shape(p, ins):
    known = next((s for s in ins if s is not None), None)
    if known is not None and any(s is not None and tuple(s) != tuple(known) for s in ins):
        raise ShapeError(f"_fused_elementwise: every input has one shape, got {ins}")
    n_out = len(p.program.outs)
    if known is None:
        return ins, [None] * n_out
    return [tuple(known)] * len(ins), [tuple(known)] * n_out


register("_fused_elementwise", variadic="num_args",
         outputs=lambda p: len(p.program.outs),
         attrs={"num_args": A.Int(), "program": A.Any(None)},
         shape=ShapeRule(_shape, all_same=False), vjp=_vjp,
         fast=Fast(device=Fast(kernel=_device_kernel, vjp=_device_vjp)))(_kernel)
