"""A seeded program draws MXNet's numbers (fixtures/make_random_streams.py made the reference on
MXNet 1.9.1): `nd.random`'s uniform, normal, exponential and randint, Dropout's masks,
`mx.np.random`'s uniform and normal and the initializers, one call after another, and a fresh
process before any seed. Every draw is equal bit for bit, the normals too (their logarithm is
the C library's, `ops/libm32.py`), but `mx.np.random`'s inverse-CDF samplers, which take
numpy's logarithm and exponential in double: a few of those may differ in their last bit."""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ops import libm32, mxnet_rng

_FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")
_spec = importlib.util.spec_from_file_location("make_random_streams",
                                               os.path.join(_FIX, "make_random_streams.py"))
make_random_streams = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_random_streams)
_REF = np.load(os.path.join(_FIX, "random_streams_mxnet.npz"))

# draws made through numpy's logarithm or exponential in double, which may round a last bit
# otherwise than the C library's
_NUMPY_LOG = ("np_exponential", "np_rayleigh", "np_weibull", "np_pareto", "np_power",
              "np_logistic", "np_gumbel")
# where the C library is not glibc, libm32 gives the correctly rounded logf: the normals too
if not libm32.has_c_library("logf"):
    _NUMPY_LOG += ("normal", "randn", "sample_normal", "np_normal", "npx_normal", "gamma",
                   "np_gamma", "init_normal", "init_xavier_gaussian", "np_mode_dense", "block_",
                   "edge_gamma", "edge_exponential")


def _signs_aligned(got, want):
    """`got` with each singular vector's sign as in `want`: LAPACK builds differ in the signs
    an SVD gives its vectors (the Orthogonal initializer's columns, or its rows when the
    matrix is wide), not in the vectors."""
    m = got.reshape(got.shape[0], -1)
    axis = 0 if m.shape[0] >= m.shape[1] else 1  # columns of u, or rows of v
    s = np.sign((m * want.reshape(m.shape)).sum(axis=axis, keepdims=True))
    return (m * s).reshape(got.shape)


def _assert_mxnet(key, got, want):
    assert got.shape == want.shape and got.dtype == want.dtype, key
    if key.startswith("init_orthogonal"):
        # the draws are MXNet's; the SVD of them is the LAPACK's of the host
        np.testing.assert_allclose(_signs_aligned(got, want), want, rtol=1e-4, atol=1e-5,
                                   err_msg=key)
    elif key.startswith(_NUMPY_LOG):
        # the last bit of a few, from numpy's log; the draws kept are the same
        np.testing.assert_allclose(got, want, rtol=3e-7, atol=1e-7, err_msg=key)
        assert (got != want).sum() <= 2 + 0.02 * got.size, key
    elif key.startswith("rnn_"):
        # MXNet's masks; the recurrences around them round in their own order
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=key)
    elif key.startswith("image_") and got.dtype == np.float32:
        # MXNet's draws; the colour arithmetic after them rounds in its own order
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-4, err_msg=key)
    elif key.endswith("_sum"):
        np.testing.assert_allclose(got, want, rtol=1e-8, err_msg=key)
    else:
        np.testing.assert_array_equal(got, want, err_msg=key)


@pytest.mark.parametrize("part", make_random_streams.PARTS)
def test_seeded_draws_are_mxnets(part):
    got = getattr(make_random_streams, part)(mx)
    assert got
    for key, value in got.items():
        _assert_mxnet(key, value, _REF[key])


def test_a_fresh_process_draws_mxnets_numbers_before_any_seed():
    got = make_random_streams.unseeded("gluonlite", sys.executable)
    np.testing.assert_array_equal(got, _REF["unseeded"])


def test_the_same_seed_gives_the_same_draws_and_another_seed_others():
    def draws(s):
        mx.random.seed(s)
        return (mx.nd.random.normal(shape=(200,)).asnumpy(),
                mx.np.random.uniform(size=(50,)).asnumpy())
    a, b, c = draws(9), draws(9), draws(10)
    for x, y, z in zip(a, b, c):
        np.testing.assert_array_equal(x, y)
        assert (x != z).mean() > 0.9


def test_draws_have_the_distributions_asked_for():
    mx.random.seed(1)
    u = mx.nd.random.uniform(2, 5, shape=(200000,)).asnumpy()
    assert u.min() >= 2 and u.max() < 5 and abs(u.mean() - 3.5) < 0.02
    z = mx.nd.random.normal(1, 3, shape=(200000,)).asnumpy()
    assert abs(z.mean() - 1) < 0.03 and abs(z.std() - 3) < 0.03
    zs = mx.np.random.normal(0, 1, size=(200000,)).asnumpy()
    assert abs(zs.mean()) < 0.01 and abs(zs.std() - 1) < 0.01
    e = mx.nd.random.exponential(2.0, shape=(200000,)).asnumpy()  # scale 2: mean 2
    assert e.min() >= 0 and abs(e.mean() - 2) < 0.03
    k = mx.nd.random.randint(3, 9, shape=(60000,)).asnumpy()
    assert set(np.unique(k).tolist()) == set(range(3, 9))


def test_dropout_keeps_about_one_minus_p_and_scales_by_its_inverse():
    mx.random.seed(2)
    x = mx.nd.ones((400, 500))
    with mx.autograd.record():
        y = mx.nd.Dropout(x, p=0.25).asnumpy()
    assert set(np.unique(y).tolist()) == {0.0, np.float32(1) / np.float32(0.75)}
    assert abs((y > 0).mean() - 0.75) < 0.005


def test_an_inference_forward_replays_its_draws_for_backward():
    # Dropout(mode='always') in a bound graph: backward after forward(is_train=False) sees
    # the same mask as the forward (the executor snapshots and restores the streams)
    x = mx.sym.var("x")
    y = mx.sym.Dropout(x, p=0.5, mode="always")
    exe = y.simple_bind(mx.cpu(), x=(50, 40))
    exe.arg_dict["x"][:] = 1
    mx.random.seed(4)
    out = exe.forward(is_train=False)[0].asnumpy()
    mx.nd.random.uniform(shape=(1000,))  # moves the streams on
    exe.backward(mx.nd.ones((50, 40)))
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), out)


def test_state_and_set_state_rewind_both_streams():
    mx.random.seed(5)
    mx.nd.random.normal(shape=(70000,))
    mx.np.random.normal(size=(11,))
    st = mxnet_rng.state()
    a = (mx.nd.random.normal(shape=(70000,)).asnumpy(), mx.np.random.normal(size=(5,)).asnumpy())
    mxnet_rng.set_state(st)
    b = (mx.nd.random.normal(shape=(70000,)).asnumpy(), mx.np.random.normal(size=(5,)).asnumpy())
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_runs_follow_mxnets_split_of_a_draw_over_its_generators():
    runs = mxnet_rng.PARALLEL.runs
    assert runs(0) == []
    assert runs(64) == [(0, 0, 64)]
    assert runs(65) == [(0, 0, 33), (1, 33, 65)]
    # at most 1024 generators, runs of ceil(N / 1024): the last 15 have nothing left to draw
    big = runs(64 * 1024 + 1)
    assert len(big) == 1009 and big[0] == (0, 0, 65) and big[-1] == (1008, 65520, 65537)


def test_canonical_uniforms_stay_below_one():
    top = np.array([2 ** 32 - 1, 2 ** 32 - 1], np.uint64)
    u32 = mxnet_rng.canonical(top, np.float32)
    u64 = mxnet_rng.canonical(top, np.float64)
    assert u32[0] < 1 and u32.dtype == np.float32
    assert u64[0] < 1 and u64.dtype == np.float64 and u64.shape == (1,)


def test_a_seed_forgets_everything_the_process_drew_before():
    # a fresh process after seed(8) draws what this one does after seed(8), though this one
    # has made and used its twisters (words read ahead and handed back, kept states)
    code = ("import gluonlite as mx; mx.random.seed(8); "
            "print(mx.nd.random.gamma(2.0, 1.0, shape=(70000,)).asnumpy()[::997].tolist(), "
            "mx.np.random.normal(size=(5,)).asnumpy().tolist())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    mx.nd.random.gamma(0.5, 1.0, shape=(70000,))
    mx.nd.random.poisson(30.0, shape=(5000,))
    mx.np.random.normal(size=(7,))
    mx.random.seed(8)
    here = (mx.nd.random.gamma(2.0, 1.0, shape=(70000,)).asnumpy()[::997].tolist(),
            mx.np.random.normal(size=(5,)).asnumpy().tolist())
    assert out.strip() == " ".join(map(str, here))


def _draws_with(module, settings, draw, seed=3):
    """`draw()` after `seed` with `module`'s tuning constants set to `settings`, then the
    next uniform draw (where the streams were left)."""
    saved = {k: getattr(module, k) for k in settings}
    try:
        for k, v in settings.items():
            setattr(module, k, v)
        mx.random.seed(seed)
        return draw(), mx.nd.random.uniform(shape=(70000,)).asnumpy()
    finally:
        for k, v in saved.items():
            setattr(module, k, v)


@pytest.mark.parametrize("settings", [{"_WINDOW": 48, "_BLOCK": 3}, {"_BLOCK": 1}])
def test_gamma_values_do_not_depend_on_how_far_ahead_they_read(settings):
    from gluonlite.ops import mxnet_gamma

    def draw():
        a = mx.nd.array(np.linspace(0.3, 4.0, 7))
        return mx.nd.random.gamma(a, mx.nd.ones((7,)), shape=(300,)).asnumpy()
    want = _draws_with(mxnet_gamma, {}, draw)
    got = _draws_with(mxnet_gamma, settings, draw)
    for x, y in zip(got, want):
        np.testing.assert_array_equal(x, y)


# the Poisson draw is counted in vectorized steps over every run (`_poisson`, whose slab
# `_SLAB` a count reads at a time) or in Python scalars (`_poisson_narrow`, `_CHUNK` words at a
# time), whichever the cost model expects to be cheaper; each is forced here
_STEPPED = {"_WORD_US": 1e9, "_REJECTION_US": 1e9}
_SCALARS = {"_WORD_US": 0.0, "_REJECTION_US": 0.0}


@pytest.mark.parametrize("settings", [
    dict(_STEPPED, _SLAB=2), dict(_SCALARS, _CHUNK=3), _SCALARS,
    # the scalar counts' lgamma table, empty, filled a few points at a time and cleared
    # when full
    dict(_SCALARS, _LGAMMA={}, _LGAMMA_SPAN=3, _LGAMMA_MAX=5)])
def test_poisson_counts_do_not_depend_on_how_they_are_counted(settings):
    from gluonlite.ops import mxnet_samplers

    def draw():  # rates near 12 from both sides (long products, and the rejection method),
        # zero, large (past 2**23, where float32 counts are no longer every whole number),
        # and a rate per count
        fixed = mx.nd.random.poisson(mx.nd.array([0.5, 11.9, 12.0, 40.0, 0.0, 3e4, 2e7, 3e9]),
                                     shape=(200,)).asnumpy()
        rates = np.random.RandomState(0).gamma(1.0, 12.0, 1500).astype(np.float32)
        return np.concatenate([fixed.ravel(), mx.nd.random.poisson(mx.nd.array(rates)).asnumpy()])
    want = _draws_with(mxnet_samplers, _STEPPED, draw)
    got = _draws_with(mxnet_samplers, settings, draw)
    for x, y in zip(got, want):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("read_ahead", [False, True])
def test_a_restore_after_long_drawing_starts_from_a_kept_state(monkeypatch, read_ahead):
    # the twisters keep their state every _MARK_EVERY words; a restore replays from the
    # newest kept state at or before the snapshot, and gives the same draws as from the seed.
    # Each draw reads 192 words a twister: there and then (five draws leave five marks), or
    # from rows of 1024 read ahead (a mark at each refill: thirty draws leave six)
    monkeypatch.setattr(mxnet_rng, "_MARK_EVERY", 100)
    if not read_ahead:
        monkeypatch.setattr(mxnet_rng, "_AHEAD_RUNS", 1 << 40)
    mx.random.seed(12)
    for _ in range(30 if read_ahead else 5):
        mx.nd.random.uniform(shape=(64 * 1024 * 3,))
    twister = mxnet_rng.PARALLEL.twister(0)
    assert len(twister._marks) == mxnet_rng._MARKS  # only the newest are kept
    st = mxnet_rng.state()
    a = mx.nd.random.normal(shape=(70000,)).asnumpy()
    for _ in range(2):  # past more marks: the restore still finds one at or before st
        mx.nd.random.uniform(shape=(64 * 1024,))
    oldest = twister._marks[0][0]
    mxnet_rng.set_state(st)
    # not replayed from the seed: from a mark within one read (192 or 1024 words) of st
    assert oldest <= twister.drawn <= twister._marks[-1][0] + (1024 if read_ahead else 192)
    np.testing.assert_array_equal(mx.nd.random.normal(shape=(70000,)).asnumpy(), a)


@pytest.mark.parametrize("keep_view", [1 << 18, 0])
def test_a_twister_gives_the_same_words_however_they_are_read_and_handed_back(monkeypatch,
                                                                             keep_view):
    # `into` and `words` from fresh and handed-back words, and hand-backs kept as views
    # (or, over `_KEEP_VIEW`, copied): the words come out in the twister's own order
    monkeypatch.setattr(mxnet_rng, "_KEEP_VIEW", keep_view)
    want = mxnet_rng.standalone(77).words(4000)
    tw = mxnet_rng.standalone(77)
    got, at = [], 0
    for n, keep in [(300, 120), (50, 50), (700, 0), (10, 3), (900, 899), (5, 0), (640, 200)]:
        block = mxnet_rng.PARALLEL.rows([tw], n)[0] if n % 2 == 0 else tw.words(n)
        got.append(block[:keep].copy())
        tw.unread(block[keep:])
        assert tw.drawn == at + keep
        at += keep
    rest = np.empty(4000 - at, dtype=np.uint64)
    tw.into(rest)
    np.testing.assert_array_equal(np.concatenate(got + [rest]), want)


def _mixed_draws():
    """Draws of many sizes from both streams' samplers, Dropout in training, a rewind and a
    reseed, in the order a program might make them: the arrays, and the parallel stream's
    counts at the rewind's snapshot and before the reseed."""
    out = []

    def keep(a):
        out.append(a.asnumpy() if hasattr(a, "asnumpy") else np.asarray(a))
    mx.random.seed(11)
    for n in (64 * 384, 100, 64 * 1024, 64 * 384, 5000, 64 * 1200, 64 * 64, 104000, 33000):
        keep(mx.nd.random.uniform(shape=(n,)))
    keep(mx.nd.random.normal(shape=(30000,)))
    keep(mx.nd.random.uniform(shape=(64 * 384,), dtype="float64"))
    keep(mx.nd.random.gamma(2.0, 1.0, shape=(9600,)))
    # normal and gamma draws over many runs peek at the rows (part-read by the draw before:
    # gathered, not sliced), a shape below 1 reading one word more a value
    keep(mx.nd.random.normal(shape=(9600,), dtype="float64"))
    keep(mx.nd.random.gamma(0.6, 1.0, shape=(64 * 100,)))
    keep(mx.nd.sample_gamma(mx.nd.array(np.linspace(0.3, 4.0, 9600)), mx.nd.ones((9600,))))
    keep(mx.nd.random.normal(shape=(9600,)))
    # the rejection samplers step their runs through the same rows, over many runs and few
    keep(mx.nd.random.poisson(mx.nd.array(np.linspace(0.5, 30.0, 64 * 80))))
    keep(mx.nd.random.negative_binomial(3, 0.4, shape=(64 * 70,)))
    keep(mx.nd.random.poisson(4.0, shape=(300,)))
    keep(mx.nd.random.randint(0, 100, shape=(40000,)))
    st = mxnet_rng.state()
    keep(mx.nd.random.uniform(shape=(64 * 384,)))
    mxnet_rng.set_state(st)
    keep(mx.nd.random.uniform(shape=(64 * 384,)))
    x = mx.nd.ones((64, 12, 32))
    with mx.autograd.record():
        for i in range(12):
            keep(mx.nd.Dropout(x[:, :, :32 - 7 * (i % 3)], p=0.3))
    keep(mx.nd.random.exponential(2.0, shape=(50000,)))
    keep(mx.np.random.uniform(size=(3000,)))
    counts = [st[0], mxnet_rng.state()[0]]
    mx.random.seed(12)
    keep(mx.nd.random.uniform(shape=(64 * 384,)))
    return out, counts


@pytest.mark.parametrize("width", [256, 1024])
def test_draws_read_ahead_are_the_draws_made_twister_by_twister(monkeypatch, width):
    # a draw over many short runs gathers its words from rows its twisters read ahead; the
    # normal and gamma samplers over many runs peek at the same rows, and the rejection
    # samplers' steps do over any number of runs; any other read of a twister (the
    # single-stream samplers, a snapshot) hands the row back first. Rows of 256 words refill
    # every few draws, part-read.
    monkeypatch.setattr(mxnet_rng, "_AHEAD_WIDTH", width)
    ahead, ahead_counts = _mixed_draws()
    monkeypatch.setattr(mxnet_rng, "_AHEAD_RUNS", 1 << 40)
    plain, plain_counts = _mixed_draws()
    assert len(ahead) == len(plain) == 37
    for a, b in zip(ahead, plain):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert ahead_counts == plain_counts


def test_rows_read_ahead_keep_their_width_when_the_setting_changes(monkeypatch):
    # rows made 256 words wide are read as 256 wide after the setting goes back to 1024
    # (a test's monkeypatch undone between draws), until a seed makes new ones
    def draws():
        mx.random.seed(5)
        first = mx.nd.random.uniform(shape=(64 * 384,)).asnumpy()
        monkeypatch.setattr(mxnet_rng, "_AHEAD_WIDTH", 1024)
        # past the rows' 256 words: read as 1024 wide, a row would not refill in time
        return [first] + [mx.nd.random.uniform(shape=(64 * n,)).asnumpy()
                          for n in (384, 100, 384, 384, 384, 200)]
    monkeypatch.setattr(mxnet_rng, "_AHEAD_WIDTH", 256)
    changed = draws()
    monkeypatch.setattr(mxnet_rng, "_AHEAD_RUNS", 1 << 40)
    plain = draws()
    for a, b in zip(changed, plain):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_one_run_normal_draw_reads_its_twister_as_a_draw_of_many_runs_does(dtype):
    # a draw of 64 values is one run (twister 0 alone, `_normal_run`); in a draw of 128,
    # twister 0's run is the same 64 values, read by the rows of all runs at once
    for seed in range(12):
        mxnet_rng.seed(seed)
        many = mxnet_rng.PARALLEL.normal(128, dtype)[:64]
        drawn = mxnet_rng.PARALLEL.twister(0).drawn
        mxnet_rng.seed(seed)
        one = mxnet_rng.PARALLEL.normal(64, dtype)
        np.testing.assert_array_equal(one, many)
        assert mxnet_rng.PARALLEL.twister(0).drawn == drawn


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_long_uniform_draw_made_run_by_run_is_the_draw_made_at_once(monkeypatch, dtype):
    # runs of _RUN_BY_RUN values or more are converted run by run into the output
    n = 1024 * 70 + 5  # runs of 71 values (the last shorter), made run by run below
    monkeypatch.setattr(mxnet_rng, "_RUN_BY_RUN", 64)
    mx.random.seed(8)
    by_run = mx.nd.random.uniform(-2, 3, shape=(n,), dtype=np.dtype(dtype).name).asnumpy()
    monkeypatch.setattr(mxnet_rng, "_RUN_BY_RUN", 1 << 40)
    mx.random.seed(8)
    at_once = mx.nd.random.uniform(-2, 3, shape=(n,), dtype=np.dtype(dtype).name).asnumpy()
    np.testing.assert_array_equal(by_run, at_once)
    assert by_run.dtype == dtype and by_run.min() >= -2 and by_run.max() < 3


@pytest.mark.parametrize("dist", ["uniform", "normal"])
def test_a_large_single_stream_draw_made_in_chunks_is_the_draw_made_at_once(monkeypatch, dist):
    # mx.np.random's uniforms and normals (the single stream) read _SINGLE_CHUNK words at
    # most at a time; the values, and the draw after, do not depend on it
    for dtype in ("float32", "float64"):
        draws = []
        for chunk in (1000, 1 << 40):
            monkeypatch.setattr(mxnet_rng, "_SINGLE_CHUNK", chunk)
            mx.random.seed(4)
            draw = getattr(mx.np.random, dist)
            draws.append(np.concatenate([draw(1, 2, size=(3, 2501), dtype=dtype).asnumpy().ravel(),
                                         draw(1, 2, size=(7,), dtype=dtype).asnumpy()]))
        np.testing.assert_array_equal(draws[0], draws[1])
        assert draws[0].dtype == dtype


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_normal_draw_in_capped_rounds_is_the_draw_in_one_round(monkeypatch, dtype):
    # each run keeps at most _NORMAL_ROUND values a round; the values, and where every
    # twister stops (the draw after), do not depend on the cap
    draws = []
    for cap in (7, 1 << 30):
        monkeypatch.setattr(mxnet_rng, "_NORMAL_ROUND", cap)
        mxnet_rng.seed(21)
        draws.append(np.concatenate([mxnet_rng.PARALLEL.normal(64 * 40 + 3, dtype),
                                     mxnet_rng.PARALLEL.normal(5000, dtype)]))
    np.testing.assert_array_equal(draws[0], draws[1])


def test_a_large_draw_is_scaled_in_place_only_where_numpy_gives_the_same_array():
    # `_affine` writes over a large draw when x * scale + shift would have x's dtype and
    # shape anyway, and computes the expression as written otherwise: the same numbers
    from gluonlite.ops.mxnet_samplers import _IN_PLACE, _affine
    rs = np.random.RandomState(2)
    for scale, shift in [(np.float32(2.5), np.float32(-1)), (np.float64(3.3), np.float64(0.1)),
                         (np.float32(2), rs.rand(4, 1).astype(np.float32)),
                         (rs.rand(4, 1), np.float32(1))]:
        x = rs.rand(4, _IN_PLACE).astype(np.float32)
        want = x * scale + shift
        got = _affine(x.copy(), scale, shift)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    x = rs.rand(4, _IN_PLACE).astype(np.float32)
    assert _affine(x, np.float32(2), np.float32(1)) is x   # written over
    small = rs.rand(3).astype(np.float32)
    assert _affine(small, np.float32(2), np.float32(1)) is not small


class _Words:
    """A stand-in twister that hands out given words (and takes back unread ones)."""

    def __init__(self, words):
        self.words_left = list(words)

    def words(self, n):
        out, self.words_left = self.words_left[:n], self.words_left[n:]
        return np.array(out, dtype=np.uint64)

    def unread(self, w):
        self.words_left = [int(v) for v in w] + self.words_left


def test_a_bounded_draw_throws_away_a_word_past_the_last_whole_range():
    # libstdc++'s uniform_int_distribution(0, 2) takes w // (2**32 - 1) // 3; a word at or past
    # 3 * that is thrown away and the next one read, and the draws after it shift by one
    from gluonlite.ops.mxnet_samplers import _bounded
    scale = (2 ** 32 - 1) // 3
    tw = _Words([scale * 2 + 1, 2 ** 32 - 1, 5, scale, 7])
    assert _bounded(tw, [3, 3, 3]).tolist() == [2, 0, 1]
    assert tw.words_left == [7]


def test_a_rejection_step_that_leaves_no_run_to_read_goes_on():
    # the generalized negative binomial draws a gamma rate of shape 1 / alpha = 0.1, whose
    # normal is rejected about once in 200 attempts: a draw of one run then has a step
    # with no lane left to read its uniform (MXNet's own test_random met it)
    mx.random.seed(3)
    v = np.concatenate([mx.nd.random.generalized_negative_binomial(
        mu=2.0, alpha=10.0, shape=(2, 2)).asnumpy().ravel() for _ in range(300)])
    assert (v >= 0).all() and (v == np.floor(v)).all()
    # the mean is mu, the variance mu + alpha mu**2 = 42: four standard errors on 1200
    assert abs(v.mean() - 2.0) < 4 * np.sqrt(42.0 / v.size)


def test_gamma_values_read_further_when_no_value_fits_the_window():
    # a window too short for any value (1 word: the cap and the slack forced down) grows
    # until one fits, and the draws are the ones a roomy window gives
    from gluonlite.ops import mxnet_gamma

    def draw():
        return mx.nd.random.gamma(2.0, 1.0, shape=(10,)).asnumpy()
    # after seed(9) the window grows twice (4 words, 8, 16) on the way
    want = _draws_with(mxnet_gamma, {}, draw, seed=9)
    got = _draws_with(mxnet_gamma, {"_WINDOW": 1, "_SLACK": 1, "_BLOCK": 1}, draw, seed=9)
    for x, y in zip(got, want):
        np.testing.assert_array_equal(x, y)


def test_choice_and_multinomial_draw_their_distributions():
    # the kernels' arithmetic, beyond the pinned draws: frequencies follow the weights, draws
    # without replacement are distinct, multinomial counts add up to n
    mx.random.seed(4)
    p = np.array([0.1, 0.0, 0.3, 0.6], np.float32)
    w = mx.np.random.choice(4, size=(20000,), p=mx.np.array(p)).asnumpy()
    np.testing.assert_allclose(np.bincount(w, minlength=4) / w.size, p, atol=0.015)
    for a, k in [(50, 20), (10, 8), (9, 9)]:
        d = mx.np.random.choice(a, size=(k,), replace=False).asnumpy()
        assert len(set(d.tolist())) == k and d.min() >= 0 and d.max() < a
    d = mx.np.random.choice(6, size=(3,), replace=False, p=mx.np.array(
        [0.0, 0.5, 0.0, 0.25, 0.25, 0.0])).asnumpy()
    assert sorted(d.tolist()) == [1, 3, 4]  # the only elements of nonzero weight
    elems = mx.np.random.choice(mx.np.arange(100, 110), size=(50,)).asnumpy()
    assert set(elems.tolist()) <= set(range(100, 110))
    c = mx.np.random.multinomial(30, [0.2, 0.3, 0.5], size=(2000,)).asnumpy()
    assert c.shape == (2000, 3) and (c.sum(axis=1) == 30).all()
    np.testing.assert_allclose(c.mean(axis=0) / 30, [0.2, 0.3, 0.5], atol=0.01)


def test_choice_and_multinomial_refuse_bad_arguments_naming_them():
    with pytest.raises(ValueError, match=r"larger sample than the population with "
                                         r"replace=False: size \(6,\) holds 6 draws, a is 5"):
        mx.np.random.choice(5, size=(6,), replace=False)
    with pytest.raises(ValueError, match="a must be at least 1 to draw from .*got 0"):
        mx.np.random.choice(0, size=(2,))
    with pytest.raises(ValueError, match="a must be at least 1 to draw from .*got -1"):
        mx.np.random.choice(-1)
    assert mx.np.random.choice(0, size=(0,)).shape == (0,)
    with pytest.raises(ValueError, match="p holds 3 probabilities for a population of 5"):
        mx.np.random.choice(5, size=(2,), p=mx.np.array([0.2, 0.3, 0.5]))
    with pytest.raises(ValueError, match=r"pvals must be 1-D, got shape \(1, 2\)"):
        mx.np.random.multinomial(5, mx.np.array([[0.5, 0.5]]))
    with pytest.raises(ValueError, match="sum to 1 at most"):
        mx.np.random.multinomial(5, [0.7, 0.5])
    with pytest.raises(ValueError, match="non-negative"):
        mx.np.random.multinomial(5, mx.np.array([0.5, float("nan")]))


def test_random_image_operators_draw_once_a_call_and_refuse_negative_factors():
    # a batch shares the call's factor (MXNet draws one a call; its operators take one image)
    mx.random.seed(2)
    batch = mx.nd.ones((3, 2, 2, 3)) * 100
    out = mx.nd.image.random_brightness(batch, 0.2, 1.8).asnumpy()
    assert len(np.unique(out)) == 1 and 20 <= out.flat[0] <= 180
    with pytest.raises(ValueError, match="min_factor must be at least 0, got -0.5"):
        mx.nd.image.random_hue(mx.nd.ones((2, 2, 3)), -0.5, 0.5)
    with pytest.raises(ValueError, match=r"p \(the chance of a flip\) must be in \[0, 1\]"):
        mx.nd.image.random_flip_left_right(mx.nd.ones((2, 2, 3)), p=1.5)


def test_unique_zipfian_rows_hold_distinct_classes_and_count_their_tries():
    mx.random.seed(8)
    classes, tries = mx.nd._internal._sample_unique_zipfian(50, shape=(40, 12))
    c, t = classes.asnumpy(), tries.asnumpy()
    assert c.shape == (40, 12) and t.shape == (40,)
    assert all(len(set(row.tolist())) == 12 for row in c)
    assert c.min() >= 0 and c.max() < 50 and (t >= 12).all()
    # log-uniform: the small classes come far more often than the large ones
    assert (c < 10).mean() > 2 * (c >= 40).mean()
    with pytest.raises(ValueError, match="cannot draw 6 distinct classes from range_max=5"):
        mx.nd._internal._sample_unique_zipfian(5, shape=(1, 6))


@pytest.mark.parametrize("cell", ["gru", "rnn_tanh"])
def test_rnn_dropout_gradient_matches_finite_differences(cell):
    # the same seed before each forward gives the same masks, so the loss is a function of
    # the input; MXNet 1.9.1's native GRU and vanilla RNN gradients with dropout miss it
    x0 = np.random.RandomState(0).normal(size=(5, 2, 3))
    w = np.random.RandomState(1).normal(size=(5, 2, 8))
    mx.random.seed(3)
    layer = (mx.gluon.rnn.GRU(4, num_layers=2, dropout=0.4, bidirectional=True, dtype="float64")
             if cell == "gru" else
             mx.gluon.rnn.RNN(4, num_layers=2, dropout=0.4, bidirectional=True,
                              dtype="float64"))
    layer.initialize(mx.init.Xavier())

    def loss(x):
        mx.random.seed(5)
        d = mx.nd.array(x, dtype="float64")
        d.attach_grad()
        with mx.autograd.record():
            out = (layer(d) * mx.nd.array(w, dtype="float64")).sum()
        out.backward()
        return out.asscalar(), d.grad.asnumpy()

    _, grad = loss(x0)
    eps = 1e-6
    for idx in [(0, 0, 0), (2, 1, 2), (4, 0, 1)]:
        up, down = x0.copy(), x0.copy()
        up[idx] += eps
        down[idx] -= eps
        fd = (loss(up)[0] - loss(down)[0]) / (2 * eps)
        np.testing.assert_allclose(grad[idx], fd, rtol=1e-6, atol=1e-8)


def test_rrelu_draws_its_slopes_from_the_parallel_stream():
    # MXNet's kernel (its CPU build crashes before running it): U[0, 1) from the parallel
    # stream, scaled to [lower, upper) in the data's type; the gradient is the slope
    x = mx.nd.array(-np.arange(1.0, 301.0).reshape(3, 100))
    x.attach_grad()
    mx.random.seed(6)
    with mx.autograd.record(train_mode=True):
        y = mx.nd.LeakyReLU(x, act_type="rrelu", lower_bound=0.1, upper_bound=0.4)
    y.backward()
    slope = (y / x).asnumpy()
    mx.random.seed(6)
    u = mx.nd.random.uniform(0, 1, shape=(3, 100)).asnumpy()
    want = u * np.float32(np.float32(0.4) - np.float32(0.1)) + np.float32(0.1)
    np.testing.assert_allclose(slope, want, rtol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), want, rtol=1e-6)
    assert 0.1 <= slope.min() and slope.max() < 0.4
    with mx.autograd.record(train_mode=False):
        z = mx.nd.LeakyReLU(x, act_type="rrelu", lower_bound=0.1, upper_bound=0.4)
    np.testing.assert_allclose((z / x).asnumpy(), 0.25, rtol=1e-6)
