"""The models of benchmarks/models.py, written once in MXNet 1.x Gluon and built with either
framework: ``build(mx, name, batch)`` takes the module (``gluonlite`` or ``mxnet``), so the
gluonlite row and MXNet 1.9.1's row run the same code on the same weights.

Standard library only besides the framework (MXNet's interpreter imports it too).

- ``resnet18_v1``, ``resnet50_v1``, ``mobilenet0.25``, ``mobilenetv2_1.0``, ``vgg11_bn``:
  the Gluon model zoo's networks, 1000 classes, 224 x 224 images;
- ``dcgan_g``: the generator of MXNet's DCGAN example (nz 100, ngf 64, 64 x 64 images);
- ``bert_base``: BERT-base's encoder (12 post-norm layers, 768 wide, 12 heads, GELU feed
  forward of 3072), sequence 128, on embeddings given as input;
- ``lstm_lm``: a 2-layer LSTM language model, 650 wide, vocabulary 10000, 35 steps.

Example:
    >>> import gluonlite as mx                                   # doctest: +SKIP
    >>> net, inputs, label, loss = build(mx, "resnet18_v1", 1)   # doctest: +SKIP
"""

MODELS = ("resnet18_v1", "resnet50_v1", "mobilenet0.25", "mobilenetv2_1.0", "vgg11_bn",
          "dcgan_g", "bert_base", "lstm_lm")
ZOO = ("resnet18_v1", "resnet50_v1", "mobilenet0.25", "mobilenetv2_1.0", "vgg11_bn")
SEQ, WIDTH, HEADS, FFN, LAYERS = 128, 768, 12, 3072, 12
VOCAB, HIDDEN, STEPS = 10000, 650, 35


def input_specs(name, batch):
    """[(shape, kind)] of the model's inputs (kind 'normal' or 'tokens'), and the label's
    (shape, classes) (classes None: a regression target of that shape)."""
    if name in ZOO:
        return [((batch, 3, 224, 224), "normal")], ((batch,), 1000)
    if name == "dcgan_g":
        return [((batch, 100, 1, 1), "normal")], ((batch, 3, 64, 64), None)
    if name == "bert_base":
        return [((batch, SEQ, WIDTH), "normal")], ((batch, SEQ, WIDTH), None)
    if name == "lstm_lm":
        return [((STEPS, batch), "tokens")], ((STEPS, batch), VOCAB)
    raise ValueError(f"unknown model {name!r}; known: {', '.join(MODELS)}")


def _dcgan_g(mx, ngf=64):
    nn = mx.gluon.nn
    net = nn.HybridSequential(prefix="gen_")
    with net.name_scope():
        net.add(nn.Conv2DTranspose(ngf * 8, 4, 1, 0, use_bias=False), nn.BatchNorm(),
                nn.Activation("relu"))
        for mult in (4, 2, 1):
            net.add(nn.Conv2DTranspose(ngf * mult, 4, 2, 1, use_bias=False), nn.BatchNorm(),
                    nn.Activation("relu"))
        net.add(nn.Conv2DTranspose(3, 4, 2, 1, use_bias=False), nn.Activation("tanh"))
    return net


def encoder(mx, layers=LAYERS, width=WIDTH, heads=HEADS, ffn=FFN, prefix="bert_"):
    """A stack of `layers` post-norm transformer encoder layers (BERT's: self-attention through
    batch_dot and softmax, LayerNorm, a GELU feed-forward of `ffn`), `width` wide with
    `heads` heads, as a HybridSequential with `prefix`; BERT-base's by default."""
    nn = mx.gluon.nn

    class Layer(mx.gluon.HybridBlock):
        """One post-norm transformer encoder layer (BERT's), parameters in PyTorch's
        nn.TransformerEncoderLayer order: qkv, out projection, ffn in, ffn out, two norms."""

        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.qkv = nn.Dense(3 * width, flatten=False, in_units=width)
                self.proj = nn.Dense(width, flatten=False, in_units=width)
                self.ffn1 = nn.Dense(ffn, flatten=False, in_units=width)
                self.ffn2 = nn.Dense(width, flatten=False, in_units=ffn)
                self.ln1 = nn.LayerNorm(in_channels=width)
                self.ln2 = nn.LayerNorm(in_channels=width)

        def hybrid_forward(self, F, x):
            qkv = self.qkv(x).reshape((0, 0, 3, heads, -1)).transpose((2, 0, 3, 1, 4))
            q, k, v = F.split(qkv, num_outputs=3, axis=0, squeeze_axis=True)
            q = q.reshape((-3, 0, 0)) * (1.0 / (width // heads) ** 0.5)
            att = F.softmax(F.batch_dot(q, k.reshape((-3, 0, 0)), transpose_b=True), axis=-1)
            ctx = F.batch_dot(att, v.reshape((-3, 0, 0)))
            ctx = ctx.reshape((-4, -1, heads, 0, 0)).transpose((0, 2, 1, 3)).reshape((0, 0, -3))
            x = self.ln1(x + self.proj(ctx))
            h = self.ffn2(F.LeakyReLU(self.ffn1(x), act_type="gelu"))
            return self.ln2(x + h)

    net = nn.HybridSequential(prefix=prefix)
    with net.name_scope():
        for _ in range(layers):
            net.add(Layer())
    return net


def _lstm_lm(mx):
    nn, rnn = mx.gluon.nn, mx.gluon.rnn

    class LM(mx.gluon.HybridBlock):
        """Embedding, a 2-layer LSTM (TNC) and a Dense decoder over the vocabulary."""

        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.embed = nn.Embedding(VOCAB, HIDDEN)
                self.lstm = rnn.LSTM(HIDDEN, num_layers=2, input_size=HIDDEN)
                self.decoder = nn.Dense(VOCAB, flatten=False, in_units=HIDDEN)

        def hybrid_forward(self, F, x):
            return self.decoder(self.lstm(self.embed(x)))

    return LM(prefix="lm_")


def build(mx, name, batch):
    """(net, loss block) for model `name`: initialized (Xavier, seeded by the caller), not yet
    hybridized.

    Raises:
        ValueError: an unknown model name.
    """
    input_specs(name, batch)  # checks the name
    if name in ZOO:
        net = mx.gluon.model_zoo.vision.get_model(name, classes=1000)
    elif name == "dcgan_g":
        net = _dcgan_g(mx)
    elif name == "bert_base":
        net = encoder(mx)
    else:
        net = _lstm_lm(mx)
    net.initialize(mx.init.Xavier(magnitude=2.0))
    if name == "lstm_lm":
        loss = mx.gluon.loss.SoftmaxCrossEntropyLoss(axis=-1)
    elif name in ZOO:
        loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    else:
        loss = mx.gluon.loss.L2Loss()
    return net, loss
