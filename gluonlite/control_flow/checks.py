"""Validation shared by the imperative loops and the graph builders.

Every message names the function, the argument (``loop_vars[1]``, ``step output 0``), the step
when there is one, what was expected and what was found, and the fix when there is one.
"""
import numpy as np

from ..base import flatten, unflatten

__all__ = ["check_callable", "check_max_iterations", "check_same_count",
           "check_carried", "check_loop_var", "check_state", "check_step_outputs",
           "flatten_result", "step_output_spec", "LoopVars", "UnusedLoopInputError",
           "dtype_str"]


class UnusedLoopInputError(ValueError, AssertionError):
    """A symbolic foreach's data array or state that the body never reads.

    A ValueError, as every bad input here; also an AssertionError because MXNet 1.9.1
    raises one for this fault, so MXNet scripts that catch it keep working.

    Example::

        from gluonlite.control_flow.checks import UnusedLoopInputError
        try:   # the body reads the state only, never the data
            sym.contrib.foreach(lambda d, s: (s[0] * 2, [s[0]]), sym.var('data'),
                                [sym.var('s')])
        except UnusedLoopInputError as err:
            print(err)   # foreach: data[0] is never used by body; ...
    """


def dtype_str(dtype):
    """'float32' for any dtype spelling.

    Args:
        dtype: a dtype in any spelling numpy accepts (a string, a type, a numpy dtype).

    Returns:
        The dtype's name, a str.

    Example::

        from gluonlite.control_flow import checks
        checks.dtype_str(np.float32)   # 'float32'
    """
    return np.dtype(dtype).name


def check_callable(fname, argname, f):
    """Raise TypeError unless `f` is callable.

    Args:
        fname: the operator's name, for messages ('foreach', 'while_loop').
        argname: the argument's name, for the message ('body', 'func').
        f: the value to check.

    Raises:
        TypeError: `f` is not callable.

    Example::

        from gluonlite.control_flow import checks
        try:
            checks.check_callable('foreach', 'body', 3)
        except TypeError as err:
            print(err)   # foreach: body must be callable ...
    """
    if not callable(f):
        raise TypeError(f"{fname}: {argname} must be callable (a Python function), got "
                        f"{type(f).__name__}")


def check_max_iterations(fname, max_iterations):
    """The positive Python int `max_iterations` names.

    Args:
        fname: the operator's name, for messages ('foreach', 'while_loop').
        max_iterations: the value given: an int, a numpy integer or a one-element array (its
            `asscalar`).

    Returns:
        `max_iterations` as a Python int.

    Raises:
        ValueError: it is missing, not an integer, or smaller than 1.

    Example::

        from gluonlite.control_flow import checks
        checks.check_max_iterations('while_loop', 5)   # 5; None or 0 raise
    """
    if max_iterations is None:
        raise ValueError(f"{fname}: max_iterations must be given (an int >= 1); the stacked "
                         "outputs have max_iterations rows")
    if hasattr(max_iterations, "asscalar"):
        max_iterations = max_iterations.asscalar()
    if isinstance(max_iterations, (bool, np.bool_)) or \
            not isinstance(max_iterations, (int, np.integer)):
        raise ValueError(f"{fname}: max_iterations must be an int >= 1, got "
                         f"{max_iterations!r}")
    if max_iterations < 1:
        raise ValueError(f"{fname}: max_iterations must be >= 1, got {max_iterations}")
    return int(max_iterations)


def check_same_count(fname, what, expected, got, step=None):
    """Raise ValueError when `func` returned `got` loop vars instead of `expected`.

    Args:
        fname: the operator's name, for messages ('foreach', 'while_loop').
        what: the argument's name, for the message ('loop_vars').
        expected: how many loop vars there are.
        got: how many func returned.
        step: default None: the step number, named in the message when given.

    Raises:
        ValueError: `got` differs from `expected`.

    Example::

        from gluonlite.control_flow import checks
        try:
            checks.check_same_count('while_loop', 'loop_vars', 2, 1)
        except ValueError as err:
            print(err)   # ... loop_vars has 2 element(s) but func returned 1 ...
    """
    if expected != got:
        at = "" if step is None else f" at step {step}"
        raise ValueError(f"{fname}: {what} has {expected} element(s) but func returned {got}"
                         f"{at}; func must return one new value per loop var")


def check_carried(fname, argname, index, before, after, step, returned_by, noun, fix=""):
    """Raise ValueError when a value carried from step to step changed shape or dtype.

    Args:
        fname: the operator's name, for messages ('while_loop').
        argname: the argument that entered the loop (``loop_vars``).
        index: the value's position in that argument.
        before: (shape, dtype) the value entered with; None parts are not checked.
        after: (shape, dtype) the body returned for it; None parts are not checked.
        step: the step number, for the message.
        returned_by: how to name the body in the message ('func').
        noun: how to name the value in the message ('loop var').
        fix: appended to the dtype message.

    Example::

        from gluonlite.control_flow import checks
        try:
            checks.check_carried('while_loop', 'loop_vars', 0, ((2,), 'float32'),
                         ((3,), None), 1, 'func', 'loop var')
        except ValueError as err:
            print(err)   # ... entered with shape (2,) but func returned shape (3,) ...
    """
    (s0, d0), (s1, d1) = before, after
    if s0 is not None and s1 is not None and tuple(s0) != tuple(s1):
        raise ValueError(f"{fname}: {argname}[{index}] entered with shape {tuple(s0)} but "
                         f"{returned_by} returned shape {tuple(s1)} at step {step}; a {noun} "
                         "must keep its shape")
    if d0 is not None and d1 is not None and dtype_str(d0) != dtype_str(d1):
        raise ValueError(f"{fname}: {argname}[{index}] entered with dtype {dtype_str(d0)} but "
                         f"{returned_by} returned dtype {dtype_str(d1)} at step {step}; a "
                         f"{noun} must keep its dtype{fix}")


def check_loop_var(fname, index, before, after, step, returned_by="func"):
    """`check_carried` for while_loop's loop vars: (shape, dtype) before and after.

    Args:
        fname: the operator's name, for messages ('foreach', 'while_loop').
        index: the loop var's position in ``loop_vars``.
        before: (shape, dtype) it entered with; None parts are not checked.
        after: (shape, dtype) returned for it.
        step: the step number, for the message.
        returned_by: default 'func': how the message names the body.

    Raises:
        ValueError: the shape or dtype changed.

    Example::

        from gluonlite.control_flow import checks
        try:
            checks.check_loop_var('while_loop', 0, ((2,), 'float32'), ((3,), 'float32'), 1)
        except ValueError as err:
            print(err)   # a loop var must keep its shape
    """
    check_carried(fname, "loop_vars", index, before, after, step, returned_by, "loop var",
                  " (cast it with astype)")


def check_state(index, before, after, step):
    """`check_carried` for foreach's states: (shape, dtype) before and after.

    Args:
        index: the state's position in ``init_states``.
        before: (shape, dtype) it entered with; None parts are not checked.
        after: (shape, dtype) the body returned for it.
        step: the step number, for the message.

    Raises:
        ValueError: the shape or dtype changed.

    Example::

        from gluonlite.control_flow import checks
        try:
            checks.check_state(0, ((2,), 'float32'), ((2,), 'int32'), 0)
        except ValueError as err:
            print(err)   # a state must keep its dtype
    """
    check_carried("foreach", "init_states", index, before, after, step, "body", "state")


def check_step_outputs(fname, first, now, step):
    """Raise ValueError when step outputs changed count/shape/dtype since step 0.

    Args:
        fname: the operator's name, for messages ('foreach').
        first: list of (shape, dtype) of the step outputs at step 0.
        now: list of (shape, dtype) of the step outputs at `step`.
        step: the step number `now` comes from.

    Example::

        from gluonlite.control_flow import checks
        try:
            checks.check_step_outputs('foreach', [((2,), 'float32')], [((3,), 'float32')], 2)
        except ValueError as err:
            print(err)   # step outputs are stacked ...
    """
    if len(first) != len(now):
        raise ValueError(f"{fname}: func returned {len(first)} step output(s) at step 0 but "
                         f"{len(now)} at step {step}; every step must return the same number "
                         "of outputs")
    for j, ((s0, d0), (s1, d1)) in enumerate(zip(first, now)):
        if tuple(s0) != tuple(s1):
            raise ValueError(f"{fname}: step output {j} has shape {tuple(s0)} at step 0 but "
                             f"{tuple(s1)} at step {step}; step outputs are stacked, so their "
                             "shapes must not change")
        if dtype_str(d0) != dtype_str(d1):
            raise ValueError(f"{fname}: step output {j} has dtype {dtype_str(d0)} at step 0 "
                             f"but {dtype_str(d1)} at step {step}")


def flatten_result(fname, what, value, is_leaf, kind):
    """flatten() with a message naming `what` (e.g. 'body output').

    Args:
        fname: the operator's name, for messages ('foreach', 'while_loop').
        what: the value's name in the message ('body output').
        value: an array, None, or a (nested) list or tuple of arrays.
        is_leaf: ``is_leaf(v) -> bool``: whether v is an array.
        kind: the array type's name, for the message ('NDArray', 'Symbol').

    Returns:
        (leaves, spec) as `flatten` gives them.

    Raises:
        TypeError: `value` holds something that is neither an array, None nor a list.

    Example::

        from gluonlite.control_flow import checks
        is_nd = lambda v: isinstance(v, nd.NDArray)
        leaves, spec = checks.flatten_result('foreach', 'data', [nd.ones(2), [nd.zeros(1)]],
                                             is_nd, 'NDArray')   # two leaves
    """
    try:
        return flatten(value, is_leaf)
    except TypeError:
        raise TypeError(f"{fname}: {what} must be a {kind}, None or a (nested) list of "
                        f"{kind}s, got {type(value).__name__}") from None


def step_output_spec(spec):
    """The structure while_loop returns its stacked outputs in, from the spec of func's step
    output (`flatten`): as MXNet 1.9.1 regroups them, one array stays one array, every list
    or tuple becomes a list, and None becomes an empty list.

    Args:
        spec: the structure `flatten` gave for func's step output: None, 0 for one array, or (type,
            children).

    Returns:
        The structure for `unflatten`: 0, or (list, children).

    Example::

        from gluonlite.control_flow import checks
        checks.step_output_spec(None)   # (list, ()): no output, an empty list
        checks.step_output_spec(0)      # 0: one array stays one array
    """
    if spec is None:
        return (list, ())
    if spec == 0:
        return 0
    return (list, tuple(step_output_spec(c) for c in spec[1]))


class LoopVars:
    """while_loop's `loop_vars` as leaves plus their structure: one array, or a (nested)
    list/tuple of arrays, as MXNet 1.9.1 takes them.

    `cond` and `func` are called with the top-level elements (``func(*loop_vars)``); the final
    loop vars come back in the same structure, with lists for tuples.

    Args:
        fname: the operator's name, for messages ('while_loop').
        is_leaf: ``is_leaf(value) -> bool``: whether a value is an array (a leaf).
        kind: the name of the array type, for messages ('NDArray', 'Symbol').
        loop_vars: what the user passed.

    Raises:
        TypeError: an element that is not an array or a list.
        ValueError: no array at all.

    Example::

        from gluonlite.control_flow import checks
        is_nd = lambda v: isinstance(v, nd.NDArray)
        lv = checks.LoopVars('while_loop', [nd.ones(1), (nd.zeros(1), nd.zeros(1))], is_nd,
                             'NDArray')   # three leaves in two top-level elements
        len(lv.leaves)   # 3
    """

    def __init__(self, fname, loop_vars, is_leaf, kind):
        self.fname, self.is_leaf, self.kind = fname, is_leaf, kind
        self.leaves, spec = flatten_result(fname, "loop_vars", loop_vars, is_leaf, kind)
        if not self.leaves:
            raise ValueError(f"{fname}: loop_vars is empty; give at least one {kind}")
        self.spec = step_output_spec(spec)

    def args(self, leaves):
        """The positional arguments of cond/func for these leaves.

        Args:
            leaves: the arrays, one per leaf of `loop_vars`, in flattened order.

        Returns:
            A list of the top-level elements (one element for a single array).

        Example::

            from gluonlite.control_flow import checks
            is_nd = lambda v: isinstance(v, nd.NDArray)
            lv = checks.LoopVars('while_loop', [nd.ones(1), (nd.zeros(1), nd.zeros(1))], is_nd,
                                 'NDArray')   # three leaves in two top-level elements
            len(lv.args(lv.leaves))   # 2: func(ones, [zeros, zeros])
        """
        rebuilt = unflatten(leaves, self.spec)
        return [rebuilt] if self.spec == 0 else rebuilt

    def result(self, leaves):
        """The final loop vars in the structure of `loop_vars`.

        Args:
            leaves: the final arrays, one per leaf, in flattened order.

        Returns:
            One array, or a (nested) list of arrays.

        Example::

            from gluonlite.control_flow import checks
            is_nd = lambda v: isinstance(v, nd.NDArray)
            lv = checks.LoopVars('while_loop', [nd.ones(1), (nd.zeros(1), nd.zeros(1))], is_nd,
                                 'NDArray')   # three leaves in two top-level elements
            lv.result(lv.leaves)   # [ones, [zeros, zeros]]: the tuple becomes a list
        """
        return unflatten(leaves, self.spec)

    def new_leaves(self, value, step):
        """The leaves of func's new loop vars, checked to be as many as the loop vars.

        Args:
            value: what func returned as its new loop vars (an array or a nested list).
            step: the step number, for messages.

        Returns:
            The list of leaves of `value`.

        Raises:
            TypeError: `value` holds something that is not an array or a list.
            ValueError: it has another number of leaves than `loop_vars`.

        Example::

            from gluonlite.control_flow import checks
            is_nd = lambda v: isinstance(v, nd.NDArray)
            lv = checks.LoopVars('while_loop', [nd.ones(1), (nd.zeros(1), nd.zeros(1))], is_nd,
                                 'NDArray')   # three leaves in two top-level elements
            len(lv.new_leaves([nd.ones(1), [nd.ones(1), nd.ones(1)]], 0))   # 3
        """
        new, _ = flatten_result(self.fname, "func's new_loop_vars", value, self.is_leaf,
                                self.kind)
        check_same_count(self.fname, "loop_vars", len(self.leaves), len(new), step)
        return new
