"""`mx.profiler` (MXNet 1.9.1's API): imperative calls, compiled plans and loop bodies
timed per operator, Chrome trace output, the aggregate table, user events, and that
profiling changes no number."""
import json

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd, profiler
from gluonlite.base import MXNetError


@pytest.fixture(autouse=True)
def fresh_profiler(tmp_path):
    profiler.set_state("stop")
    profiler.dumps(reset=True)
    profiler.set_config(filename=str(tmp_path / "profile.json"), profile_all=False,
                        profile_imperative=True, profile_symbolic=True)
    yield tmp_path / "profile.json"
    profiler.set_state("stop")
    profiler.dumps(reset=True)


def _stats():
    return json.loads(profiler.dumps(format="json"))["Time"]


def test_it_is_the_mxnet_namespace():
    assert mx.profiler is profiler
    from gluonlite.profiler import Counter, Domain, Marker, Task  # noqa: F401


def test_imperative_calls_are_timed_and_dumped_as_a_chrome_trace(fresh_profiler):
    a = nd.ones((8, 8))
    nd.dot(a, a)  # before the run: not recorded
    profiler.set_state("run")
    assert profiler.state() == "run"
    for _ in range(3):
        nd.dot(a, a)
    (a + 1).sum()
    profiler.set_state("stop")
    nd.dot(a, a)  # after the stop: not recorded
    ops = _stats()["operator"]
    assert ops["dot"]["Count"] == 3 and ops["sum"]["Count"] == 1
    assert ops["dot"]["Min"] <= ops["dot"]["Avg"] <= ops["dot"]["Max"]
    assert ops["dot"]["Total"] == pytest.approx(3 * ops["dot"]["Avg"])
    table = profiler.dumps()
    assert "Profile Statistics:" in table and "\noperator\n=================\n" in table
    assert "Name                          Total Count        Time (ms)" in table
    row = next(line for line in table.splitlines() if line.startswith("dot "))
    assert row.split()[1] == "3"
    profiler.dump()
    trace = json.loads(fresh_profiler.read_text())
    dots = [e for e in trace["traceEvents"] if e.get("name") == "dot"]
    assert len(dots) == 3
    for e in dots:
        assert e["ph"] == "X" and e["cat"] == "operator" and e["dur"] >= 0
        assert {"ts", "pid", "tid"} <= set(e)
    assert dots[0]["ts"] <= dots[1]["ts"] <= dots[2]["ts"]
    assert "operator" not in _stats()  # dump(finished=True) starts a new session


def test_pause_and_resume(fresh_profiler):
    a = nd.ones((2, 2))
    profiler.set_state("run")
    nd.relu(a)
    profiler.pause()
    nd.relu(a)
    nd.relu(a)
    profiler.resume()
    nd.relu(a)
    profiler.set_state("stop")
    assert _stats()["operator"]["relu"]["Count"] == 2


class _LoopLSTM(gluon.HybridBlock):
    """An LSTMCell run by while_loop over the time axis, as the seed benchmark does."""

    def __init__(self, hidden, steps):
        super().__init__()
        self.steps = steps
        with self.name_scope():
            self.cell = gluon.rnn.LSTMCell(hidden)

    def hybrid_forward(self, F, x, h, c):
        def body(i, h, c):
            out, (h2, c2) = self.cell(F.squeeze(F.take(x, i), axis=0), [h, c])
            return out, [i + 1, h2, c2]

        outs, _ = F.contrib.while_loop(lambda i, h, c: i < self.steps, body,
                                       [F.zeros((1,)), h, c], max_iterations=self.steps)
        return outs


def _run_lstm(net, x, h, c, rounds):
    for _ in range(rounds):
        with autograd.record():
            y = net(x, h, c)
        y.backward()
    return y.asnumpy(), net.cell.i2h_weight.grad().asnumpy()


def test_a_hybridized_while_loop_lstm_is_timed_per_operator_not_per_step(fresh_profiler):
    T, N, H = 6, 3, 5
    mx.random.seed(0)
    net = _LoopLSTM(H, T)
    net.initialize()
    net.hybridize(static_alloc=True)
    x, h, c = nd.random.normal(shape=(T, N, H)), nd.zeros((N, H)), nd.zeros((N, H))
    plain = _run_lstm(net, x, h, c, 2)
    profiler.set_state("run")
    profiled = _run_lstm(net, x, h, c, 2)
    profiler.set_state("stop")
    after = _run_lstm(net, x, h, c, 1)
    for a, b, d in zip(plain, profiled, after):  # profiling changes no number
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, d)
    stats = _stats()
    steps = stats["compiled steps"]
    # per step the cell's three gate sigmoids, T steps, 2 calls (the input projection may
    # be hoisted out of the loop, so a step has one or two FullyConnected)
    assert steps["sigmoid"]["Count"] == 3 * T * 2
    assert steps["tanh"]["Count"] == 2 * T * 2
    assert T * 2 <= steps["FullyConnected"]["Count"] <= 2 * T * 2
    assert steps["backward:sigmoid"]["Count"] == 3 * T * 2
    assert steps["_while_loop"]["Count"] == 2
    calls = stats["compiled"]
    assert calls["plan forward"]["Count"] == 2 and calls["plan backward"]["Count"] == 2
    assert calls["plan loop"]["Count"] == 2
    profiler.dump()
    events = json.loads(fresh_profiler.read_text())["traceEvents"]
    summed = {e["name"]: e for e in events if e.get("cat") == "compiled steps"}
    assert summed["sigmoid"]["args"]["count"] == 3 * T * 2
    assert len([e for e in events if e.get("name") == "sigmoid"]) == 1  # summed, once
    assert len([e for e in events if e.get("name") == "plan loop"]) == 2
    names = {e["args"]["name"] for e in events if e.get("ph") == "M"}
    assert any("summed per operator" in n for n in names)


def test_user_events_land_in_their_domain(fresh_profiler):
    d = profiler.Domain("data")
    profiler.set_state("run")
    task = d.new_task("load")
    task.start()
    task.stop()
    with profiler.Frame(d, "batch"):
        pass
    e = profiler.Event("sync")
    e.start()
    e.stop()
    counter = profiler.Counter(d, "queued", 1)
    counter += 4
    counter -= 2
    profiler.Marker(d, "epoch end").mark()
    with profiler.scope("outer:"):
        with profiler.scope("inner", append_mode=True):
            pass
    profiler.set_state("stop")
    stats = _stats()
    assert stats["data"]["load"]["Count"] == 1 and stats["data"]["batch"]["Count"] == 1
    assert stats["event"]["sync"]["Count"] == 1
    assert stats["scope"]["outer:inner"]["Count"] == 1 and "outer:" in stats["scope"]
    assert counter.value == 3
    profiler.dump()
    events = json.loads(fresh_profiler.read_text())["traceEvents"]
    values = [e["args"]["queued"] for e in events if e.get("ph") == "C"]
    assert values == [1, 5, 3]
    marks = [e for e in events if e.get("ph") == "i"]
    assert [m["name"] for m in marks] == ["epoch end"] and marks[0]["s"] == "p"


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="set_config: unknown key 'profile_everything'"):
        profiler.set_config(profile_everything=True)
    with pytest.raises(ValueError, match="profile_all must be a bool, got 'maybe'"):
        profiler.set_config(profile_all="maybe")
    with pytest.raises(ValueError, match="state must be 'run' or 'stop', got 'go'"):
        profiler.set_state("go")
    with pytest.raises(ValueError, match="format must be 'table' or 'json', got 'xml'"):
        profiler.dumps(format="xml")
    with pytest.raises(ValueError, match="sort_by must be one of"):
        profiler.dumps(sort_by="name")
    with pytest.raises(NotImplementedError, match="kvstore server"):
        profiler.set_state("run", profile_process="server")
    with pytest.raises(MXNetError, match="stop\\(\\) without start\\(\\)"):
        profiler.Task(profiler.Domain("d"), "t").stop()
    with pytest.raises(TypeError, match="domain must be a profiler.Domain"):
        profiler.Counter("d", "c")
    with pytest.raises(ValueError, match="scope must be one of"):
        profiler.Marker(profiler.Domain("d"), "m").mark(scope="galaxy")


def test_sorting_and_deprecated_names():
    profiler.set_state("run")
    a = nd.ones((3,))
    nd.relu(a)
    for _ in range(3):
        nd.sigmoid(a)
    profiler.set_state("stop")
    rows = [ln.split()[0] for ln in profiler.dumps(sort_by="count").splitlines()
            if ln.startswith(("relu ", "sigmoid "))]
    assert rows == ["sigmoid", "relu"]
    rows = [ln.split()[0] for ln in profiler.dumps(sort_by="count", ascending=True)
            .splitlines() if ln.startswith(("relu ", "sigmoid "))]
    assert rows == ["relu", "sigmoid"]
    with pytest.warns(DeprecationWarning):
        profiler.profiler_set_state("stop")

