"""Every promised error message: names the argument and, for loops, the loop var and step."""
import pytest

from gluonlite import nd, sym

F_BOTH = [nd, sym]


def _vars(F, *shapes):
    if F is nd:
        return [nd.ones(s) for s in shapes]
    return [sym.var(f"v{i}") for i in range(len(shapes))]


def _run(F, outs, shapes):
    """Symbolic errors about shapes appear when shapes are inferred."""
    if F is sym:
        g = sym.Group(outs)
        g.infer_shape(**{f"v{i}": s for i, s in enumerate(shapes)})


@pytest.mark.parametrize("F", F_BOTH)
@pytest.mark.parametrize("mi,msg", [(None, "max_iterations must be given"),
                                    (0, "max_iterations must be >= 1, got 0"),
                                    (2.5, "max_iterations must be an int")])
def test_bad_max_iterations(F, mi, msg):
    (x,) = _vars(F, (2,))
    with pytest.raises(ValueError, match=msg):
        F.contrib.while_loop(lambda a: a.sum() < 1, lambda a: ([], [a]), [x], max_iterations=mi)


@pytest.mark.parametrize("F", F_BOTH)
def test_empty_loop_vars(F):
    with pytest.raises(ValueError, match="while_loop: loop_vars is empty"):
        F.contrib.while_loop(lambda: 1, lambda: ([], []), [], max_iterations=2)


@pytest.mark.parametrize("F", F_BOTH)
@pytest.mark.parametrize("which", ["cond", "func"])
def test_not_callable(F, which):
    (x,) = _vars(F, (2,))
    f = lambda a: ([], [a])  # noqa: E731
    c = lambda a: a.sum() < 1  # noqa: E731
    args = (None, f) if which == "cond" else (c, 3)
    with pytest.raises(TypeError, match=f"while_loop: {which} must be callable"):
        F.contrib.while_loop(*args, [x], max_iterations=2)
    with pytest.raises(TypeError, match="foreach: body must be callable"):
        F.contrib.foreach(None, x, [])
    with pytest.raises(TypeError, match="cond: else_func must be callable"):
        F.contrib.cond(x.sum() > 0, lambda: x, "x")


@pytest.mark.parametrize("F", F_BOTH)
def test_func_returns_other_number_of_loop_vars(F):
    x, y = _vars(F, (2,), (2,))
    with pytest.raises(ValueError, match=r"while_loop: loop_vars has 2 element\(s\) but func "
                                         r"returned 1 at step 0"):
        F.contrib.while_loop(lambda a, b: a.sum() > 0, lambda a, b: ([], [a + b]), [x, y],
                             max_iterations=2)


@pytest.mark.parametrize("F", F_BOTH)
def test_loop_var_shape_change_names_var_step_and_both_shapes(F):
    x, y = _vars(F, (25, 7), (25, 7))

    def func(a, b):
        return [], [a, b.sum(axis=1, keepdims=True)]
    with pytest.raises(ValueError, match=r"while_loop: loop_vars\[1\] entered with shape "
                                         r"\(25, 7\) but func returned shape \(25, 1\) at step "
                                         r"0; a loop var must keep its shape"):
        outs, st = F.contrib.while_loop(lambda a, b: a.sum() > 0, func, [x, y],
                                        max_iterations=3)
        _run(F, st, [(25, 7), (25, 7)])


def test_loop_var_shape_change_at_later_step_imperative():
    def func(i, a):
        return [], [i + 1, a if i.asscalar() < 2 else a.reshape((1, -1))]
    with pytest.raises(ValueError, match=r"loop_vars\[1\] entered with shape \(2, 3\) but func "
                                         r"returned shape \(1, 6\) at step 2"):
        nd.contrib.while_loop(lambda i, a: i < 5, func, [nd.array([0]), nd.ones((2, 3))],
                              max_iterations=5)


def test_loop_var_dtype_change():
    with pytest.raises(ValueError, match=r"loop_vars\[0\] entered with dtype int64 but func "
                                         r"returned dtype float32 at step 0"):
        nd.contrib.while_loop(lambda i: i < 3, lambda i: ([], [i.astype("float32") + 1]),
                              [nd.array([0], dtype="int64")], max_iterations=3)
    with pytest.raises(ValueError, match=r"loop_vars\[0\] entered with dtype int64 but func "
                                         r"returned dtype float32"):
        o, s = sym.contrib.while_loop(lambda i: i < 3,
                                      lambda i: ([], [sym.Cast(i, dtype="float32") + 1]),
                                      [sym.var("i")], max_iterations=3)
        sym.Group(s).infer_type(i="int64")


def test_step_outputs_change_count_or_shape():
    def count(i):
        return ([i] if i.asscalar() < 1 else [i, i]), [i + 1]
    with pytest.raises(ValueError, match=r"func returned 1 step output\(s\) at step 0 but 2 "
                                         r"at step 1"):
        nd.contrib.while_loop(lambda i: i < 3, count, [nd.array([0])], max_iterations=3)

    def shape(i):
        return [nd.ones((int(i.asscalar()) + 1,))], [i + 1]
    with pytest.raises(ValueError, match=r"step output 0 has shape \(1,\) at step 0 but \(2,\) "
                                         r"at step 1"):
        nd.contrib.while_loop(lambda i: i < 3, shape, [nd.array([0])], max_iterations=3)
    with pytest.raises(ValueError, match=r"foreach: init_states\[0\] entered with shape \(2,\) "
                                         r"but body returned shape \(1,\) at step 0"):
        nd.contrib.foreach(lambda x, s: (x, s.sum()), nd.ones((3, 2)), nd.ones(2))


def test_symbolic_loop_var_never_used():
    i, unused = sym.var("i"), sym.var("u")
    with pytest.raises(ValueError, match=r"while_loop: loop_vars\[1\] is never used by func"):
        sym.contrib.while_loop(lambda i, u: i < 3, lambda i, u: ([], [i + 1, i * 2]),
                               [i, unused], max_iterations=3)
    with pytest.raises(ValueError, match=r"foreach: init_states\[0\] is never used by body"):
        sym.contrib.foreach(lambda x, s: (x, [x * 2]), sym.var("d"), [sym.var("s")])
    # MXNet 1.9.1 raises an AssertionError there; scripts that catch it keep working
    with pytest.raises(AssertionError, match=r"foreach: data\[0\] is never used by body"):
        sym.contrib.foreach(lambda x, s: (s[0], [s[0] * 2]), sym.var("d"), [sym.var("s")])


@pytest.mark.parametrize("F", F_BOTH)
def test_cond_branches_differ(F):
    x, y = _vars(F, (2,), (3,))
    if F is sym:
        with pytest.raises(ValueError, match=r"cond: then_func returned \[\*, \*\] but "
                                             r"else_func returned \*"):
            F.contrib.cond(x.sum() > 0, lambda: [x, x], lambda: x)
        with pytest.raises(ValueError, match=r"cond: output 0 has shape \(2,\) in then_func "
                                             r"but \(3,\) in else_func"):
            out = F.contrib.cond(x.sum() > 0, lambda: x * 2, lambda: y * 2)
            _run(F, [out], [(2,), (3,)])


@pytest.mark.parametrize("F", F_BOTH)
def test_predicate_not_scalar(F):
    (x,) = _vars(F, (2,))
    with pytest.raises(ValueError, match=r"while_loop: cond .*scalar.*shape \(2,\)"):
        o, s = F.contrib.while_loop(lambda a: a > 0, lambda a: ([], [a * 2]), [x],
                                    max_iterations=3)
        _run(F, s, [(2,)])
    with pytest.raises(ValueError, match=r"cond: pred .*scalar.*\(2,\)"):
        out = F.contrib.cond(x > 0, lambda: x, lambda: x * 2)
        _run(F, [out], [(2,)])
