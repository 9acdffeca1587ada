"""The loops' lowering: how a compiled plan runs `_foreach`, `_while_loop` and `_cond` fast.

The loops' meaning is their plain kernels and gradients (`gluonlite.control_flow.foreach`,
`while_loop`, `cond`). Everything that only makes them fast is here, registered per
operator with `gluonlite.executor.lowering.register_lowering` (``decide``, ``kernel``,
``vjp``, ``runtime``); the compiler looks it up once per plan step when it compiles, and
`loop_optimizations(False)` compiles plans that run the plain kernels instead. The tests
hold every lowered loop against the plain one (`tests/control_flow/
test_loop_optimization_cases.py`).

- `decisions.py`: the frozen, printable decisions of a plan step (`LoopSpec`);
- analysis: `hoisting.py` (which input projections move out of the loop, the rewritten
  body), `counting.py` (counted while loops), `deferred.py` (the invariant inputs'
  gradients summed after the loop, by the operators' `Fast.summed_grads`);
- `hoisted.py`: running a hoisted loop (the projections before it, their pullback after);
- `runtime.py`: what a step keeps (`LoopRuntime`: body plans, buffers), a call's storage,
  the weight layout;
- `codegen.py`: the generated step loop and reverse pass, with write-target planning;
- `kernels.py`: the lowered kernels and vjps, and their registration.

A new loop optimization touches this folder only: its decision in `decisions.py` (a field of
`LoopSpec`), its analysis in a file of its own, what it does per call in `kernels.py` (and
`runtime.py` or `codegen.py` where it changes the buffers or the generated code).
"""
from . import kernels  # noqa: F401  (registers the lowerings)

__all__ = ["kernels"]
