"""mx.metric against MXNet 1.9.1's numbers (tests/fixtures/data/mx_data_expect.json, made by
tests/fixtures/make_data_expectations.py): local and global values after each update, with
a reset_local() in between, plus the config round trip and closed forms."""
import json
import math
import os

import numpy as np
import pytest

import gluonlite as mx

EXPECT = json.load(open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "data",
                                     "mx_data_expect.json")))


def _same(a, b):
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == pytest.approx(b, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("case", EXPECT["metrics"],
                         ids=[f"{c['name']}-{c['kwargs']}" for c in EXPECT["metrics"]])
def test_metric_matches_mxnet_locally_and_globally(case):
    m = mx.metric.create(case["name"], **case["kwargs"])
    for i, (batch, (local, glob)) in enumerate(zip(EXPECT["batches"], case["steps"])):
        m.update([mx.nd.array(batch[case["label"]])], [mx.nd.array(batch[case["pred"]])])
        assert _same(m.get()[1], local), (i, m.get(), local)
        assert _same(m.get_global()[1], glob), (i, m.get_global(), glob)
        if i == 1:
            m.reset_local()
    assert m.get()[0] == case["metric_name"]


def test_config_round_trip_and_composite():
    for name, args in [("acc", {"axis": 0}), ("f1", {}), ("perplexity", {"ignore_label": -1}),
                       ("loss", {})]:
        m = mx.metric.create(name, **args)
        again = mx.metric.create(json.dumps(m.get_config()))
        assert again.get_config() == m.get_config()
    comp = mx.metric.create(["acc", "mse"])
    assert isinstance(comp, mx.metric.CompositeEvalMetric)
    comp.update([mx.nd.array([0, 1])], [mx.nd.array([[0.9, 0.1], [0.2, 0.8]])])
    names, values = comp.get()
    assert names == ["accuracy", "mse"] and values[0] == 1.0
    assert comp.get_name_value()[0] == ("accuracy", 1.0)


def test_closed_forms():
    acc = mx.metric.Accuracy()
    acc.update([mx.nd.array([0, 1, 1])], [mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])])
    assert acc.get() == ("accuracy", 2 / 3)
    loss = mx.metric.Loss()
    loss.update(None, mx.nd.array([1.0, 2.0, 6.0]))
    assert loss.get() == ("loss", 3.0)
    custom = mx.metric.np(lambda label, pred: float(np.abs(label - pred).sum()), name="l1")
    custom.update([mx.nd.array([1.0, 2.0])], [mx.nd.array([1.5, 2.0])])
    assert custom.get() == ("l1", 0.5)
    assert math.isnan(mx.metric.MSE().get()[1])
    assert mx.metric.Torch().name == "torch" and mx.metric.Caffe().name == "caffe"


def test_register_alias_and_errors():
    @mx.metric.alias("my_count")
    class MyCount(mx.metric.EvalMetric):
        def __init__(self, name="count", **kwargs):
            super().__init__(name, **kwargs)

        def update(self, labels, preds):
            self.sum_metric += len(labels)
            self.num_inst += 1

    m = mx.metric.create("MY_COUNT")
    m.update([1, 2], [1, 2])
    assert m.get() == ("count", 2.0)
    with pytest.raises(ValueError, match="'nope' is not a registered metric"):
        mx.metric.create("nope")
    with pytest.raises(ValueError, match="TopKAccuracy: top_k must be > 1"):
        mx.metric.TopKAccuracy(top_k=1)
    with pytest.raises(ValueError, match="Shape of labels 2 does not match shape of "
                                         "predictions 1"):
        mx.metric.Accuracy().update([mx.nd.array([1]), mx.nd.array([1])], [mx.nd.array([1])])
    with pytest.raises(ValueError, match="only binary classification"):
        mx.metric.F1().update([mx.nd.array([0, 1, 2])], [mx.nd.ones((3, 2))])
    with pytest.raises(NotImplementedError, match="CustomMetric cannot be serialized"):
        mx.metric.CustomMetric(lambda a, b: 0).get_config()


def test_update_dict_reads_the_named_entries():
    from collections import OrderedDict
    acc = mx.metric.Accuracy(output_names=["out"], label_names=["lbl"])
    acc.update_dict(OrderedDict([("other", mx.nd.array([0, 0])), ("lbl", mx.nd.array([1, 0]))]),
                    OrderedDict([("out", mx.nd.array([[0.2, 0.8], [0.9, 0.1]])),
                                 ("aux", mx.nd.array([[1.0, 0.0], [1.0, 0.0]]))]))
    assert acc.get() == ("accuracy", 1.0)
    comp = mx.metric.CompositeEvalMetric(["acc"], output_names=["out"], label_names=["lbl"])
    comp.update_dict({"lbl": mx.nd.array([1, 1])}, {"out": mx.nd.array([[0.2, 0.8], [0.9, 0.1]]),
                                                    "aux": mx.nd.array([[0.0, 1.0]] * 2)})
    assert comp.get() == (["accuracy"], [0.5])
    assert comp.get_global_name_value() == [("accuracy", 0.5)]
