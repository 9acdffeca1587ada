"""The MXNet 1.9.1 and PyTorch sides of benchmarks/models.py: a long-lived worker run under
that framework's interpreter (``models_worker.py mxnet`` or ``models_worker.py torch``),
answering JSON lines (protocol: `_rows_worker.py`).

Requests:
- ``hello``: the framework's version;
- ``setup`` {model, mode, batch, data, clock}: build the model (MXNet: the same Gluon code
  as gluonlite's row, `_bench_models.py`; PyTorch: the same network written with torch.nn,
  parameters in the same order), load the weights, inputs and labels gluonlite wrote to the
  ``.npz`` file `data` (arrays ``p0, p1, ...`` in parameter order, ``x0, ...``, ``label``),
  and make the timed call: inference (MXNet hybridized with static_alloc and static_shape;
  PyTorch in eval mode under no_grad) or one training step (forward, loss, backward and an
  SGD step with momentum 0.9);
- ``output`` {path}: write the inference output on the loaded weights to `path` (.npy), for
  the driver to check against gluonlite's;
- ``round``: time one call, {"ms": ...}.

One thread each: the driver starts the worker with OMP_NUM_THREADS=1 (MXNet also with its
NaiveEngine); PyTorch calls ``torch.set_num_threads(1)``.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

import _bench_models as bm  # noqa: E402
from _rows_worker import serve  # noqa: E402


def _inputs(z, n):
    return [z[f"x{i}"] for i in range(n)]


def _params(z):
    out, i = [], 0
    while f"p{i}" in z:
        out.append(z[f"p{i}"])
        i += 1
    return out


# ---- MXNet ---------------------------------------------------------------------------------
class MXNetWorker:
    """Runs the Gluon models on MXNet 1.9.1."""

    def __init__(self):
        import mxnet as mx
        self.mx = mx
        self.fn = None

    def hello(self, msg):
        return {"version": self.mx.__version__}

    def setup(self, msg):
        mx = self.mx
        self.fn = None
        mx.random.seed(0)
        z = np.load(msg["data"])
        specs, _ = bm.input_specs(msg["model"], msg["batch"])
        net, loss = bm.build(mx, msg["model"], msg["batch"])
        xs = [mx.nd.array(a, dtype=a.dtype) for a in _inputs(z, len(specs))]
        label = mx.nd.array(z["label"], dtype=z["label"].dtype)
        net(*xs)  # deferred shapes
        params = list(net.collect_params().values())
        arrays = _params(z)
        if len(params) != len(arrays):
            raise ValueError(f"{msg['model']}: {len(params)} MXNet parameters, "
                             f"{len(arrays)} given")
        for p, a in zip(params, arrays):
            if tuple(p.shape) != a.shape:
                raise ValueError(f"{p.name}: shape {p.shape}, given {a.shape}")
            p.set_data(mx.nd.array(a))
        net.hybridize(static_alloc=True, static_shape=True)
        self.net, self.xs = net, xs
        if msg["mode"] == "infer":
            def fn():
                net(*xs).wait_to_read()
        else:
            trainer = mx.gluon.Trainer(net.collect_params(), "sgd",
                                       {"learning_rate": 1e-3, "momentum": 0.9})
            batch = msg["batch"]

            def fn():
                with mx.autograd.record():
                    out = loss(net(*xs), label)
                out.backward()
                trainer.step(batch)
                mx.nd.waitall()
        self.fn = fn
        return {}

    def output(self, msg):
        np.save(msg["path"], self.net(*self.xs).asnumpy())
        return {}

    def round(self, msg):
        timer = time.process_time if msg.get("clock", "cpu") == "cpu" else time.perf_counter
        import gc
        gc.collect()
        gc.disable()
        try:
            t0 = timer()
            self.fn()
            return {"ms": (timer() - t0) * 1e3}
        finally:
            gc.enable()


# ---- PyTorch -------------------------------------------------------------------------------
def _torch_models():
    """{name: (batch) -> (module, loss)}: the benchmark's networks in torch.nn, laid out as
    the Gluon ones so that their parameters come in the same order."""
    import torch
    from torch import nn

    def conv_bn(cin, cout, k=1, s=1, p=0, g=1, act="relu", bias=False):
        layers = [nn.Conv2d(cin, cout, k, s, p, groups=g, bias=bias), nn.BatchNorm2d(cout)]
        if act:
            layers.append(nn.ReLU6() if act == "relu6" else nn.ReLU())
        return layers

    class Basic(nn.Module):
        def __init__(self, cin, ch, s, ds):
            super().__init__()
            self.body = nn.Sequential(*conv_bn(cin, ch, 3, s, 1),
                                      *conv_bn(ch, ch, 3, 1, 1, act=None))
            self.ds = nn.Sequential(*conv_bn(cin, ch, 1, s, act=None)) if ds else None

        def forward(self, x):
            return torch.relu(self.body(x) + (self.ds(x) if self.ds is not None else x))

    class Bottleneck(Basic):
        def __init__(self, cin, ch, s, ds):
            nn.Module.__init__(self)
            self.body = nn.Sequential(*conv_bn(cin, ch // 4, 1, s, bias=True),
                                      *conv_bn(ch // 4, ch // 4, 3, 1, 1),
                                      *conv_bn(ch // 4, ch, 1, bias=True, act=None))
            self.ds = nn.Sequential(*conv_bn(cin, ch, 1, s, act=None)) if ds else None

    def resnet(block, layers, channels):
        feats = conv_bn(3, channels[0], 7, 2, 3) + [nn.MaxPool2d(3, 2, 1)]
        cin = channels[0]
        for i, n in enumerate(layers):
            ch, s = channels[i + 1], 1 if i == 0 else 2
            feats.append(block(cin, ch, s, ch != cin))
            feats += [block(ch, ch, 1, False) for _ in range(n - 1)]
            cin = ch
        feats += [nn.AdaptiveAvgPool2d(1), nn.Flatten()]
        return nn.Sequential(nn.Sequential(*feats), nn.Linear(cin, 1000))

    def mobilenet(m):
        feats = conv_bn(3, int(32 * m), 3, 2, 1)
        dw = [int(x * m) for x in [32, 64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024]]
        ch = [int(x * m) for x in [64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024] * 2]
        strides = [1, 2] * 3 + [1] * 5 + [2, 1]
        for d, c, s in zip(dw, ch, strides):
            feats += conv_bn(d, d, 3, s, 1, g=d) + conv_bn(d, c)
        feats += [nn.AdaptiveAvgPool2d(1), nn.Flatten()]
        return nn.Sequential(nn.Sequential(*feats), nn.Linear(ch[-1], 1000))

    class LinearBottleneck(nn.Module):
        def __init__(self, cin, ch, t, s):
            super().__init__()
            self.short = s == 1 and cin == ch
            self.out = nn.Sequential(*conv_bn(cin, cin * t, act="relu6"),
                                     *conv_bn(cin * t, cin * t, 3, s, 1, g=cin * t,
                                              act="relu6"),
                                     *conv_bn(cin * t, ch, act=None))

        def forward(self, x):
            y = self.out(x)
            return y + x if self.short else y

    def mobilenet_v2():
        feats = conv_bn(3, 32, 3, 2, 1, act="relu6")
        ins = [32, 16, 24, 24, 32, 32, 32, 64, 64, 64, 64, 96, 96, 96, 160, 160, 160]
        outs = ins[1:] + [320]
        ts = [1] + [6] * 16
        strides = [1, 2] * 2 + [1, 1, 2] + [1] * 6 + [2] + [1] * 3
        feats += [LinearBottleneck(i, c, t, s) for i, c, t, s in zip(ins, outs, ts, strides)]
        feats += conv_bn(320, 1280, act="relu6") + [nn.AdaptiveAvgPool2d(1)]
        return nn.Sequential(nn.Sequential(*feats),
                             nn.Sequential(nn.Conv2d(1280, 1000, 1, bias=False), nn.Flatten()))

    def vgg11_bn():
        feats, cin = [], 3
        for n, c in zip([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]):
            for _ in range(n):
                feats += conv_bn(cin, c, 3, 1, 1, bias=True)
                cin = c
            feats.append(nn.MaxPool2d(2, 2))
        feats += [nn.Flatten(), nn.Linear(512 * 49, 4096), nn.ReLU(), nn.Dropout(0.5),
                  nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(0.5)]
        return nn.Sequential(nn.Sequential(*feats), nn.Linear(4096, 1000))

    def dcgan_g(ngf=64):
        layers, cin = [], 100
        for i, mult in enumerate((8, 4, 2, 1)):
            layers += [nn.ConvTranspose2d(cin, ngf * mult, 4, 1 if i == 0 else 2,
                                          0 if i == 0 else 1, bias=False),
                       nn.BatchNorm2d(ngf * mult), nn.ReLU()]
            cin = ngf * mult
        layers += [nn.ConvTranspose2d(cin, 3, 4, 2, 1, bias=False), nn.Tanh()]
        return nn.Sequential(*layers)

    def bert():
        return nn.Sequential(*[nn.TransformerEncoderLayer(
            bm.WIDTH, bm.HEADS, bm.FFN, dropout=0.0, activation="gelu", batch_first=True)
            for _ in range(bm.LAYERS)])

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(bm.VOCAB, bm.HIDDEN)
            self.lstm = nn.LSTM(bm.HIDDEN, bm.HIDDEN, 2)
            self.decoder = nn.Linear(bm.HIDDEN, bm.VOCAB)

        def forward(self, x):
            return self.decoder(self.lstm(self.embed(x))[0])

    ce, mse = nn.CrossEntropyLoss(), nn.MSELoss()

    def lm_loss(out, label):
        return ce(out.reshape(-1, bm.VOCAB), label.reshape(-1))

    return {"resnet18_v1": (lambda: resnet(Basic, [2, 2, 2, 2], [64, 64, 128, 256, 512]), ce),
            "resnet50_v1": (lambda: resnet(Bottleneck, [3, 4, 6, 3],
                                           [64, 256, 512, 1024, 2048]), ce),
            "mobilenet0.25": (lambda: mobilenet(0.25), ce),
            "mobilenetv2_1.0": (mobilenet_v2, ce), "vgg11_bn": (vgg11_bn, ce),
            "dcgan_g": (dcgan_g, mse), "bert_base": (bert, mse), "lstm_lm": (LM, lm_loss)}


class TorchWorker:
    """Runs the same networks written with torch.nn on PyTorch."""

    def __init__(self):
        import torch
        torch.set_num_threads(1)
        self.torch = torch
        self.models = _torch_models()
        self.fn = None

    def hello(self, msg):
        return {"version": self.torch.__version__}

    def setup(self, msg):
        torch = self.torch
        self.fn = None
        torch.manual_seed(0)
        z = np.load(msg["data"])
        specs, _ = bm.input_specs(msg["model"], msg["batch"])
        make, loss = self.models[msg["model"]]
        net = make()
        state = [(k, v) for k, v in net.state_dict().items()
                 if not k.endswith("num_batches_tracked")]
        arrays = _params(z)
        if len(state) != len(arrays):
            raise ValueError(f"{msg['model']}: {len(state)} PyTorch tensors, "
                             f"{len(arrays)} given")
        with torch.no_grad():
            for (k, v), a in zip(state, arrays):
                if tuple(v.shape) != a.shape:
                    raise ValueError(f"{k}: shape {tuple(v.shape)}, given {a.shape}")
                v.copy_(torch.from_numpy(np.ascontiguousarray(a)))
        _, (_, classes) = bm.input_specs(msg["model"], msg["batch"])
        xs = [torch.from_numpy(a.astype(np.int64) if kind == "tokens" else a)
              for a, (_, kind) in zip(_inputs(z, len(specs)), specs)]
        lab = z["label"]
        label = torch.from_numpy(lab.astype(np.int64) if classes else lab)
        self.net, self.xs = net, xs
        if msg["mode"] == "infer":
            net.eval()

            def fn():
                with torch.no_grad():
                    net(*xs)
        else:
            net.train()
            opt = torch.optim.SGD(net.parameters(), lr=1e-3, momentum=0.9)

            def fn():
                opt.zero_grad(set_to_none=True)
                loss(net(*xs), label).backward()
                opt.step()
        self.fn = fn
        return {}

    def output(self, msg):
        self.net.eval()
        with self.torch.no_grad():
            np.save(msg["path"], self.net(*self.xs).numpy())
        return {}

    round = MXNetWorker.round


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else ""
    workers = {"mxnet": MXNetWorker, "torch": TorchWorker}
    if which not in workers:
        sys.exit(f"models_worker.py: expected 'mxnet' or 'torch', got {which!r}")
    sys.exit(serve(workers[which], ("hello", "setup", "output", "round"), which))
