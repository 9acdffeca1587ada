"""A liveness-based memory plan: values whose lifetimes do not overlap share one buffer."""

__all__ = ["plan_buffers"]


def plan_buffers(n_steps, defs, uses, candidates, shape_of, dtype_of):
    """Assign a buffer id to each candidate slot.

    Args:
        n_steps: number of steps.
        defs: {slot: step that writes it}.
        uses: {slot: last step that reads it} (a slot never read dies at its own step).
        candidates: slots that may live in a shared buffer, in any order.
        shape_of: slot -> shape.
        dtype_of: slot -> dtype; only buffers of equal (shape, dtype) are shared.

    Returns:
        (assignment, buffers): {slot: buffer id} and [(shape, dtype)] per buffer id.

    A buffer is handed out at its slot's defining step and returned after the slot's last use,
    so a step never writes a buffer that one of its own inputs still occupies.

    Example::

        from gluonlite.executor.memory import plan_buffers
        plan_buffers(3, {1: 0, 2: 1, 3: 2}, {1: 1, 2: 2, 3: 3}, [1, 2, 3],
                     lambda s: (2,), lambda s: 'float32')
        # ({1: 0, 2: 1, 3: 0}, [((2,), 'float32'), ((2,), 'float32')]): slot 3 reuses 1's
    """
    born, dies = {}, {}
    for s in candidates:
        born.setdefault(defs[s], []).append(s)
        dies.setdefault(max(uses.get(s, defs[s]), defs[s]), []).append(s)
    free, assignment, buffers = {}, {}, []
    for step in range(n_steps):
        for s in born.get(step, ()):
            key = (tuple(shape_of(s)), str(dtype_of(s)))
            pool = free.get(key)
            if pool:
                assignment[s] = pool.pop()
            else:
                assignment[s] = len(buffers)
                buffers.append(key)
        for s in dies.get(step, ()):
            free.setdefault(buffers[assignment[s]], []).append(assignment[s])
    return assignment, buffers
