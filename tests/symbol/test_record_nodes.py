"""`record_new_nodes`: which graph nodes a block of code created (what loop tracing uses)."""
import threading

from gluonlite import sym
from gluonlite.symbol.symbol import record_new_nodes


def _names(nodes):
    return [n.name for n in nodes]


def test_records_only_nodes_created_inside_the_block():
    before = sym.var("rec_before")
    with record_new_nodes() as created:
        y = sym.relu(before, name="rec_relu")
        z = sym.var("rec_inside") + y
    sym.exp(z, name="rec_after")
    assert _names(created) == ["rec_relu", "rec_inside", z.name]


def test_nested_blocks_each_see_their_nodes_and_the_outer_one_sees_all():
    with record_new_nodes() as outer:
        with record_new_nodes() as inner:
            sym.var("rec_a")
        # both lists now hold the same nodes: leaving the inner block must not stop the
        # outer one from recording
        sym.var("rec_b")
        with record_new_nodes() as second:
            sym.var("rec_c")
    sym.var("rec_d")
    assert _names(inner) == ["rec_a"]
    assert _names(second) == ["rec_c"]
    assert _names(outer) == ["rec_a", "rec_b", "rec_c"]


def test_nodes_created_by_another_thread_are_not_recorded():
    started, release = threading.Event(), threading.Event()

    def other():
        started.wait(5)
        sym.var("rec_other_thread")
        release.set()

    t = threading.Thread(target=other)
    t.start()
    with record_new_nodes() as created:
        sym.var("rec_mine")
        started.set()
        release.wait(5)
    t.join(5)
    assert _names(created) == ["rec_mine"]


def test_block_left_by_an_exception_stops_recording():
    try:
        with record_new_nodes() as created:
            sym.var("rec_x")
            raise KeyError("boom")
    except KeyError:
        pass
    sym.var("rec_y")
    assert _names(created) == ["rec_x"]
