"""`contrib.quantization.quantize_net` on MXNet 1.9.1 and on gluonlite, side by side: the same
model-zoo network with the same parameters, calibrated on the same batches, run on the same
input; prints how far each int8 model is from the float32 one and from the other, and the
time of one quantized forward.

Run it twice, MXNet first (it writes the parameters and inputs gluonlite then reads):

    OPENBLAS_CORETYPE=SkylakeX /work/venvs/compat/mx/bin/python compat/quantize_net_compare.py \\
        --work /tmp/qnet
    OPENBLAS_CORETYPE=SkylakeX /work/venvs/compat/gl/bin/python compat/quantize_net_compare.py \\
        --work /tmp/qnet

MXNet's CPU build folds each Convolution, BatchNorm and ReLU into one oneDNN node before it
quantizes (its MKLDNN_QUANTIZE backend); gluonlite quantizes the operators one by one, so the
two int8 models round at different places and agree only to about their quantization error.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np


def _rel(a, b):
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", required=True, help="folder shared by the two runs")
    ap.add_argument("--model", default="resnet18_v1")
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--modes", default="naive,entropy")
    args = ap.parse_args()
    import mxnet as mx
    from mxnet.contrib.quantization import quantize_net
    side = "gluonlite" if "gluonlite" in sys.modules else "mxnet"
    os.makedirs(args.work, exist_ok=True)
    net = mx.gluon.model_zoo.vision.get_model(args.model, pretrained=False)
    shape = (args.batch, 3, 224, 224)
    params = os.path.join(args.work, f"{args.model}.params")
    inputs = os.path.join(args.work, "inputs.npz")
    if side == "mxnet":
        mx.random.seed(0)
        net.initialize(mx.init.Xavier())
        net(mx.nd.zeros(shape))
        # BatchNorm statistics away from 0 and 1, as a trained network's are
        for name, p in net.collect_params().items():
            if name.endswith("running_mean"):
                p.set_data(mx.nd.random.uniform(-0.2, 0.2, p.shape))
            elif name.endswith("running_var"):
                p.set_data(mx.nd.random.uniform(0.5, 2.0, p.shape))
        net.save_parameters(params)
        rng = np.random.RandomState(0)
        np.savez(inputs, x=rng.uniform(-1, 1, shape).astype("float32"),
                 calib=rng.uniform(-1, 1, (4,) + shape[1:]).astype("float32"))
    else:
        net.load_parameters(params)
    data = np.load(inputs)
    x = mx.nd.array(data["x"])
    ref = net(x).asnumpy()
    out = {"side": side, "float32": ref.tolist()}
    for mode in args.modes.split(","):
        # (data, label) pairs, as MXNet's own test gives them (its wrapper of a loader of
        # bare arrays fails)
        calib = mx.gluon.data.DataLoader(
            mx.gluon.data.ArrayDataset(mx.nd.array(data["calib"]),
                                       mx.nd.zeros(len(data["calib"]))),
            batch_size=args.batch)
        qnet = quantize_net(net, quantized_dtype="auto", calib_mode=mode, calib_data=calib,
                            num_calib_examples=4, ctx=mx.cpu())
        q = qnet(x).asnumpy()
        times = []
        for _ in range(3):
            t = time.process_time()
            qnet(x).wait_to_read()
            times.append(time.process_time() - t)
        t_float = []
        for _ in range(3):
            t = time.process_time()
            net(x).wait_to_read()
            t_float.append(time.process_time() - t)
        out[mode] = {"out": q.tolist(), "rel_to_float32": _rel(q, ref),
                     "int8_ms": 1e3 * statistics.median(times),
                     "float32_ms": 1e3 * statistics.median(t_float),
                     "top1_agrees": float((q.argmax(1) == ref.argmax(1)).mean())}
    with open(os.path.join(args.work, f"{side}.json"), "w") as f:
        json.dump(out, f)
    print(f"{side} {args.model} batch {args.batch}")
    for mode in args.modes.split(","):
        r = out[mode]
        line = (f"  {mode:8s} int8 vs its float32: rel L2 {r['rel_to_float32']:.4f}, top-1 "
                f"agrees {r['top1_agrees']:.2f}; int8 {r['int8_ms']:.0f} ms, float32 "
                f"{r['float32_ms']:.0f} ms")
        other = os.path.join(args.work, "mxnet.json")
        if side == "gluonlite" and os.path.exists(other):
            with open(other) as f:
                m = json.load(f)
            mq = np.array(m[mode]["out"])
            line += (f"; vs MXNet's int8: rel L2 {_rel(np.array(r['out']), mq):.4f} (MXNet's "
                     f"int8 vs float32 {m[mode]['rel_to_float32']:.4f}, {m[mode]['int8_ms']:.0f}"
                     f" ms)")
        print(line)


if __name__ == "__main__":
    main()
