"""Run the MXNet cells of *Dive into Deep Learning* (d2l-en, tag v1.0.3) section by section,
under real MXNet 1.9.1 and under gluonlite, and compare what each section computes.

Not part of the default suite: it needs the d2l-en git history (``fetch github:d2l-ai/d2l-en``),
a venv with MXNet 1.9.1 + d2l 1.0.3 and one with gluonlite's ``mxnet`` companion + d2l 1.0.3.

usage:
  python compat/d2l_chapters.py extract --git GITDIR [--ref v1.0.3] --work DIR [CHAPTER ...]
  python compat/d2l_chapters.py run --work DIR --tag mx --python /work/venvs/ident-dsmx/bin/python
  PYTHONPATH=$PWD python compat/d2l_chapters.py run --work DIR --tag gl \\
      --python /work/venvs/ident-gl/bin/python
  python compat/d2l_chapters.py compare --work DIR [--markdown FILE]

``extract`` writes one JSON file of cells per section (``DIR/cells/<chapter>__<section>.json``),
a readable script beside it (``.py``), the synthetic data files and the book's images.
``run`` executes each section in a fresh interpreter of the given python (``--only`` filters by
substring, ``--timeout`` caps a section) and writes ``DIR/<tag>/<section>.json``: status, the
first error line, the values the section computed and the CPU time of its cells. ``compare``
prints the table, with each section's CPU-time ratio.

What a section computes: the value of each cell's last expression (as a notebook shows it),
every point sent to d2l's ``ProgressBoard``/``Animator`` (the training curves) and the arrays
given to ``d2l.plot``/``show_images``/``show_heatmaps``. ``d2l.Timer`` runs on a fake clock
(1 ms per interval); cells that read the real clock are left out of the comparison.

The prelude (``_prelude`` below, run before a section's first cell) makes the two runs
comparable and fast:
- datasets come from small synthetic files of the real formats (Time Machine text, the
  English-French pairs, the airfoil table, the Kaggle house CSVs, banana-detection images and
  labels) or synthetic Fashion-MNIST arrays; ``d2l.download``/``download_extract``/``extract``
  return the local copies;
- epochs are capped (``D2L_MAX_EPOCHS``, default 1): every literal given to ``max_epochs`` or
  ``num_epochs`` (assigned, passed or a default) is rewritten to ``_d2l_cap(n)``; batch sizes
  of Fashion-MNIST are capped (``D2L_BATCH_CAP``), its size set by ``D2L_N_TRAIN``, and the
  Time Machine split is shortened;
- every random draw of ``np.random`` (mx.np), ``nd.random`` and the Uniform/Normal/Xavier
  initializers comes from one ``numpy.random.RandomState(0)``, so both libraries start from the
  same parameters (dropout masks and other in-operator randomness still differ);
- ``nn.Dropout`` layers and the dropout between RNN layers drop nothing (their masks come
  from each library's own generator; ``D2L_DROPOUT=keep`` leaves them);
- with ``D2L_RANDOM=native`` neither of the last two: both sides draw MXNet's own random
  numbers after ``mx.random.seed(0)`` (gluonlite reproduces them), dropout at its rate;
- plots are drawn on matplotlib's Agg backend and nothing is displayed.
"""
import argparse
import ast
import json
import os
import re
import struct
import subprocess
import sys
import time
import zlib

DEFAULT_CHAPTERS = [
    "chapter_preliminaries",
    "chapter_linear-regression",
    "chapter_linear-classification",
    "chapter_multilayer-perceptrons",
    "chapter_builders-guide",
    "chapter_convolutional-neural-networks",
    "chapter_convolutional-modern",
    "chapter_recurrent-neural-networks",
    "chapter_recurrent-modern",
    "chapter_attention-mechanisms-and-transformers",
    "chapter_optimization",
    "chapter_computer-vision/bounding-box",
    "chapter_computer-vision/anchor",
    "chapter_computer-vision/multiscale-object-detection",
    "chapter_computer-vision/object-detection-dataset",
    "chapter_computer-vision/ssd",
]

# Smaller data where a chapter's networks are large (224x224 inputs through AlexNet, VGG, ...):
# one small batch is enough to compare a training step.
CHAPTER_ENV = {
    "chapter_convolutional-modern": {"D2L_N_TRAIN": "32", "D2L_BATCH_CAP": "16"},
}

_FENCE = re.compile(r"^```\{\.python \.input[^}]*\}\s*$")
_TAB = re.compile(r"^\s*(?:%%tab|#@tab)\s+(.*)$")


# ------------------------------------------------------------------------------ extraction
def mxnet_cells(markdown):
    """The MXNet code cells of one d2l Markdown section, in order.

    Args:
        markdown: the section's text.

    Returns:
        A list of cell sources with the tab marker and IPython magics removed. A cell belongs
        to MXNet when its first line is ``%%tab``/``#@tab`` naming ``mxnet`` or ``all``;
        unmarked cells belong to the book's default tab (PyTorch) and are left out, and so
        is every cell of a section whose ``tab.interact_select`` does not name ``mxnet``.
    """
    cells, cur, inside = [], None, False
    for line in markdown.splitlines():
        if not inside and _FENCE.match(line):
            inside, cur = True, []
        elif inside and line.strip() == "```":
            inside = False
            cells.append(cur)
        elif inside:
            cur.append(line)
    sel = re.search(r"tab\.interact_select\(\[([^\]]*)\]", markdown)
    if sel and "mxnet" not in sel.group(1):
        return []   # the section has no MXNet edition (e.g. the vision transformer)
    out = []
    for cell in cells:
        if not cell:
            continue
        m = _TAB.match(cell[0])
        if not m:
            continue
        tabs = {t.strip() for t in m.group(1).split(",")}
        if not tabs & {"mxnet", "all"}:
            continue
        body = [ln for ln in cell[1:]
                if not ln.lstrip().startswith(("%", "!")) and "tab.interact_select" not in ln]
        src = "\n".join(body).strip("\n")
        if src.strip():
            out.append(src)
    return out


def _git(gitdir, *args):
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], check=True,
                          capture_output=True).stdout


def section_files(gitdir, ref, chapters):
    """The Markdown files of the chapters (a folder, or folder/section without .md)."""
    names = _git(gitdir, "ls-tree", "-r", "--name-only", ref).decode().splitlines()
    files = []
    for ch in chapters:
        if ch.endswith(".md"):
            ch = ch[:-3]
        exact = [n for n in names if n == ch + ".md"]
        if exact:
            files += exact
            continue
        files += sorted(n for n in names if n.startswith(ch + "/") and n.endswith(".md")
                        and not n.endswith("/index.md") and n.count("/") == 1)
    if not files:
        raise SystemExit(f"no section found for chapters {chapters} at {ref}")
    return files


def extract(gitdir, ref, chapters, work):
    """Write each section's MXNet cells, the synthetic data and the book's images under work."""
    os.makedirs(os.path.join(work, "cells"), exist_ok=True)
    order = []
    for path in section_files(gitdir, ref, chapters):
        text = _git(gitdir, "show", f"{ref}:{path}").decode("utf-8")
        cells = mxnet_cells(text)
        key = path[:-3].replace("/", "__")
        order.append(key)
        with open(os.path.join(work, "cells", key + ".json"), "w") as f:
            json.dump({"section": path, "cells": cells}, f, indent=1)
        with open(os.path.join(work, "cells", key + ".py"), "w") as f:
            for i, c in enumerate(cells):
                f.write(f"# ---- cell {i}\n{c}\n\n")
    with open(os.path.join(work, "cells", "ORDER"), "w") as f:
        f.write("\n".join(order) + "\n")
    img = os.path.join(work, "img")
    os.makedirs(img, exist_ok=True)
    for name in ("catdog.jpg", "cat1.jpg", "banana.jpg"):
        try:
            blob = _git(gitdir, "show", f"{ref}:img/{name}")
        except subprocess.CalledProcessError:
            continue
        with open(os.path.join(img, name), "wb") as f:
            f.write(blob)
    make_data(os.path.join(work, "data"))
    print(f"{len(order)} sections from {len(chapters)} chapters -> {work}/cells")


# ------------------------------------------------------------------------- synthetic data
def _png(path, rgb):
    """A lossless RGB PNG (so every decoder reads the same pixels)."""
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[i].tobytes() for i in range(h))

    def chunk(tag, data):
        c = struct.pack(">I", len(data)) + tag + data
        return c + struct.pack(">I", zlib.crc32(tag + data) & 0xffffffff)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def make_data(folder):
    """Synthetic stand-ins, in the real files' formats, for the datasets the chapters read."""
    import numpy as np
    rs = np.random.RandomState(0)
    os.makedirs(folder, exist_ok=True)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["the", "time", "traveller", "and", "of", "a", "i", "to", "in", "was", "that", "it",
             "had", "my", "me", "as", "at", "for", "with", "but", "machine", "is", "this", "you"]
    words += ["".join(rs.choice(list(letters), rs.randint(2, 9))) for _ in range(400)]
    p = 1.0 / (np.arange(len(words)) + 2.0)
    p /= p.sum()
    seq = rs.choice(len(words), 6000, p=p)
    lines, line = [], []
    for i, k in enumerate(seq):
        line.append(words[k])
        if len(line) > 10 or rs.rand() < 0.08:
            lines.append(" ".join(line).capitalize() + rs.choice([".", ",", ";", "!"]))
            line = []
    with open(os.path.join(folder, "timemachine.txt"), "w") as f:
        f.write("The Time Machine, by H. G. Wells [1898]\n\n" + "\n".join(lines) + "\n")
    # English-French pairs: a small grammar so that tokens repeat (min_freq=2 keeps them).
    en_w = ["go", "run", "i", "we", "you", "he", "she", "am", "are", "is", "lost", "home",
            "fine", "here", "now", "cold", "wait", "hi", "stop", "help"]
    fr_w = ["va", "cours", "je", "nous", "tu", "il", "elle", "suis", "êtes", "est", "perdu",
            "maison", "bien", "ici", "maintenant", "froid", "attends", "salut", "arrête", "aide"]
    pairs = []
    for _ in range(1200):
        n = rs.randint(1, 6)
        idx = rs.randint(0, len(en_w), n)
        punct = rs.choice([".", "!", "?"])
        en = " ".join(en_w[i] for i in idx).capitalize() + punct
        fr = " ".join(fr_w[i] for i in idx).capitalize() + "\u202f" + punct
        pairs.append(f"{en}\t{fr}")
    os.makedirs(os.path.join(folder, "fra-eng"), exist_ok=True)
    with open(os.path.join(folder, "fra-eng", "fra.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(pairs) + "\n")
    # Airfoil self-noise: 5 features and a target, tab-separated.
    x = rs.rand(600, 5)
    y = x @ np.array([0.5, -1.0, 2.0, 0.3, -0.7]) + 0.1 * rs.randn(600)
    with open(os.path.join(folder, "airfoil_self_noise.dat"), "w") as f:
        for row, t in zip(x, y):
            f.write("\t".join(f"{v:.6f}" for v in row) + f"\t{t:.6f}\n")
    # Kaggle house prices: numeric columns (some missing), text columns, the price.
    zones, streets = ["RL", "RM", "FV", "RH"], ["Pave", "Grvl"]
    for name, n, price in (("kaggle_house_pred_train.csv", 200, True),
                           ("kaggle_house_pred_test.csv", 100, False)):
        rows = ["Id,MSSubClass,MSZoning,LotFrontage,LotArea,Street,OverallQual,YrSold"
                + (",SalePrice" if price else "")]
        for i in range(n):
            area = rs.randint(2000, 20000)
            front = "NA" if rs.rand() < 0.1 else str(rs.randint(30, 120))
            zone = "NA" if rs.rand() < 0.05 else zones[rs.randint(4)]
            qual = rs.randint(1, 11)
            row = (f"{i + 1 + (0 if price else 1000)},{rs.choice([20, 60, 120])},{zone},{front},"
                   f"{area},{streets[rs.randint(2)]},{qual},{rs.randint(2006, 2011)}")
            if price:
                row += f",{int(30000 + 8 * area + 15000 * qual + rs.randint(0, 20000))}"
            rows.append(row)
        with open(os.path.join(folder, name), "w") as f:
            f.write("\n".join(rows) + "\n")
    # Banana detection: 256x256 RGB images, one box each, label.csv as the real one.
    root = os.path.join(folder, "banana-detection")
    for split, n in (("bananas_train", 32), ("bananas_val", 16)):
        os.makedirs(os.path.join(root, split, "images"), exist_ok=True)
        rows = ["img_name,label,xmin,ymin,xmax,ymax"]
        for i in range(n):
            im = (rs.rand(256, 256, 3) * 255).astype(np.uint8)
            x0, y0 = rs.randint(0, 180, 2)
            x1, y1 = x0 + rs.randint(20, 70), y0 + rs.randint(20, 70)
            im[y0:y1, x0:x1] = [230, 200, 40]
            _png(os.path.join(root, split, "images", f"{i}.png"), im)
            rows.append(f"{i}.png,0,{x0},{y0},{x1},{y1}")
        with open(os.path.join(root, split, "label.csv"), "w") as f:
            f.write("\n".join(rows) + "\n")


# ------------------------------------------------------------------------------ the prelude
def _prelude(record):
    """Patch d2l and the framework in this interpreter; see the module docstring."""
    import random

    import matplotlib
    matplotlib.use("Agg")
    import numpy as onp
    import mxnet as mx
    from mxnet import np as mnp
    from d2l import mxnet as d2l
    import IPython.display as ipd

    ipd.display = lambda *a, **k: None
    ipd.clear_output = lambda *a, **k: None
    d2l.use_svg_display = lambda: None
    max_epochs = int(os.environ.get("D2L_MAX_EPOCHS", "1"))
    batch_cap = int(os.environ.get("D2L_BATCH_CAP", "64"))
    n_train = int(os.environ.get("D2L_N_TRAIN", "128"))
    random.seed(0)
    onp.random.seed(0)
    mx.random.seed(0)
    rs = onp.random.RandomState(0)

    # ---- one random stream for both libraries (D2L_RANDOM=native leaves MXNet's own:
    # gluonlite draws MXNet's numbers, so both sides sample the same from the seeds above)
    native = os.environ.get("D2L_RANDOM") == "native"
    if not native:
        def _dt(dtype):
            return "float32" if dtype is None else dtype

        def _out(val, dtype, out, ctx):
            if out is not None:
                out[:] = val
                return out
            return mnp.array(val, dtype=_dt(dtype), ctx=ctx)

        def _size(size):
            return () if size is None else size

        def _two_parameter(draw, a, b, size, dtype, ctx, out):
            a = a.asnumpy() if hasattr(a, "asnumpy") else a
            b = b.asnumpy() if hasattr(b, "asnumpy") else b
            if size is None and out is not None:
                size = out.shape
            return _out(draw(a, b, _size(size)), dtype, out, ctx)

        def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, out=None, **kw):
            return _two_parameter(rs.normal, loc, scale, size, dtype, ctx, out)

        def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, out=None, **kw):
            return _two_parameter(rs.uniform, low, high, size, dtype, ctx, out)

        def randint(low, high=None, size=None, dtype=None, ctx=None, out=None, **kw):
            return _out(rs.randint(low, high, _size(size)), dtype or "int32", out, ctx)

        def randn(*size, **kw):
            return normal(size=size, **kw)

        def rand(*size, **kw):
            return uniform(size=size, **kw)

        def choice(a, size=None, replace=True, p=None, ctx=None, out=None):
            a = a.asnumpy() if hasattr(a, "asnumpy") else a
            p = p.asnumpy() if hasattr(p, "asnumpy") else p
            v = rs.choice(a, size, replace, p)
            return _out(v, "int64" if onp.asarray(v).dtype.kind == "i" else None, out, ctx)

        def shuffle(x):
            perm = rs.permutation(x.shape[0])
            x[:] = x.asnumpy()[perm]

        def multinomial(n, pvals, size=None, **kw):
            pvals = pvals.asnumpy() if hasattr(pvals, "asnumpy") else pvals
            return mnp.array(rs.multinomial(n, pvals, size), dtype="int64")

        for name, fn in dict(normal=normal, uniform=uniform, randint=randint, randn=randn,
                             rand=rand, choice=choice, shuffle=shuffle,
                             multinomial=multinomial).items():
            setattr(mnp.random, name, fn)
        d2l.normal, d2l.randn, d2l.rand = normal, randn, rand   # d2l's own aliases

        def nd_draw(draw, a, b, shape, dtype, ctx, out):
            # `draw(a, b, size)` from the shared stream, into `out` or a new NDArray
            v = draw(a, b, shape if out is None else out.shape)
            if out is not None:
                out[:] = v
                return out
            return mx.nd.array(v, dtype=_dt(dtype), ctx=ctx)

        def nd_normal(loc=0, scale=1, shape=(), dtype=None, ctx=None, out=None, **kw):
            return nd_draw(rs.normal, loc, scale, shape, dtype, ctx, out)

        def nd_uniform(low=0, high=1, shape=(), dtype=None, ctx=None, out=None, **kw):
            return nd_draw(rs.uniform, low, high, shape, dtype, ctx, out)

        mx.nd.random.normal = mx.random.normal = nd_normal
        mx.nd.random.uniform = mx.random.uniform = nd_uniform

        def _uniform_init(self, _, arr):
            arr[:] = rs.uniform(-self.scale, self.scale, arr.shape)

        def _normal_init(self, _, arr):
            arr[:] = rs.normal(0, self.sigma, arr.shape)

        def _xavier_init(self, name, arr):
            shape = arr.shape
            hw = float(onp.prod(shape[2:])) if len(shape) > 2 else 1.0
            fan_in, fan_out = shape[1] * hw if len(shape) > 1 else shape[0], shape[0] * hw
            factor = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in,
                      "out": fan_out}[self.factor_type]
            scale = onp.sqrt(self.magnitude / factor)
            if self.rnd_type == "uniform":
                arr[:] = rs.uniform(-scale, scale, shape)
            else:
                arr[:] = rs.normal(0, scale, shape)

        mx.init.Uniform._init_weight = _uniform_init
        mx.init.Normal._init_weight = _normal_init
        mx.init.Xavier._init_weight = _xavier_init

    # ---- dropout: its masks come from each library's own generator, so layers drop nothing
    # here (D2L_DROPOUT=keep leaves them alone); the from-scratch dropout draws through the
    # patched np.random.uniform and keeps its rate
    if os.environ.get("D2L_DROPOUT", "keep" if native else "") != "keep":
        orig_do = mx.gluon.nn.Dropout.__init__

        def dropout_init(self, rate, *a, **k):
            orig_do(self, 0.0, *a, **k)
        mx.gluon.nn.Dropout.__init__ = dropout_init
        for cls, pos in ((mx.gluon.rnn.RNN, 4), (mx.gluon.rnn.LSTM, 3), (mx.gluon.rnn.GRU, 3)):
            def rnn_init(self, *a, _orig=cls.__init__, _pos=pos, **k):
                if len(a) > _pos:   # dropout given by position
                    a = a[:_pos] + (0,) + a[_pos + 1:]
                else:
                    k["dropout"] = 0
                _orig(self, *a, **k)
            cls.__init__ = rnn_init

    # ---- data: synthetic Fashion-MNIST, local files for everything downloaded
    def _fashion_get_data(self):
        r = onp.random.RandomState(1 if self._train else 2)
        n = n_train if self._train else max(n_train // 2, 1)
        label = r.randint(0, 10, n).astype("int32")
        proto = onp.random.RandomState(3).rand(10, 28, 28) * 200
        data = onp.clip(proto[label] + r.rand(n, 28, 28) * 55, 0, 255).astype("uint8")
        data = data.reshape(n, 28, 28, 1)
        if mx.util.is_np_array():
            label = mnp.array(label, dtype=label.dtype)
            self._data = mnp.array(data, dtype=data.dtype)
        else:
            self._data = mx.nd.array(data, dtype=data.dtype)
        self._label = label

    mx.gluon.data.vision.FashionMNIST._get_data = _fashion_get_data
    mx.gluon.data.vision.MNIST._get_data = _fashion_get_data

    data_dir = os.path.join("..", "data")

    def download(url, folder="../data", sha1_hash=None):
        if not url.startswith("http"):
            url = d2l.DATA_HUB[url][0]
        path = os.path.join(data_dir, url.split("/")[-1])
        stem = re.sub(r"\.(zip|tar|tar\.gz)$", "", path)
        if not os.path.exists(path) and not os.path.exists(stem):
            raise FileNotFoundError(f"no synthetic stand-in for {url}")
        return path

    def download_extract(name, folder=None):
        url = d2l.DATA_HUB[name][0]
        base = os.path.join(data_dir, re.sub(r"\.(zip|tar|tar\.gz)$", "", url.split("/")[-1]))
        path = os.path.join(data_dir, folder) if folder else base
        if not os.path.exists(path):
            raise FileNotFoundError(f"no synthetic stand-in for {name}")
        return path

    d2l.download = download
    d2l.download_extract = download_extract
    d2l.extract = lambda filename, folder=None: None

    # ---- sizes and epochs; loaders read in-process (worker processes only cost time here)
    orig_dm = d2l.DataModule.__init__

    def dm_init(self, root="../data", num_workers=4):
        orig_dm(self, root, 0)
    d2l.DataModule.__init__ = dm_init
    d2l.get_dataloader_workers = lambda: 0
    orig_fm = d2l.FashionMNIST.__init__

    def fm_init(self, batch_size=64, resize=(28, 28)):
        orig_fm(self, min(batch_size, batch_cap), resize)
    fm_init.__wrapped__ = orig_fm
    d2l.FashionMNIST.__init__ = fm_init
    orig_lfm = d2l.load_data_fashion_mnist
    d2l.load_data_fashion_mnist = lambda batch_size, resize=None: orig_lfm(
        min(batch_size, batch_cap), resize)
    orig_tm = d2l.TimeMachine.__init__

    def tm_init(self, batch_size, num_steps, num_train=10000, num_val=5000):
        orig_tm(self, batch_size, num_steps, min(num_train, 2 * batch_size, 1024),
                min(num_val, batch_size, 512))
    d2l.TimeMachine.__init__ = tm_init

    # ---- d2l.Timer on a fake clock: each interval lasts 1 ms, so printed and returned times
    # are the same in both runs
    d2l.Timer.start = lambda self: None

    def timer_stop(self):
        self.times.append(1e-3)
        return self.times[-1]
    d2l.Timer.stop = timer_stop

    # ---- what a section computes
    orig_draw = d2l.ProgressBoard.draw

    def draw(self, x, y, label, every_n=1):
        record("board", (label, x, y))
        self.display = False   # keeps board.data, draws nothing
        orig_draw(self, x, y, label, every_n)
    d2l.ProgressBoard.draw = draw
    orig_add = d2l.Animator.add

    def add(self, x, y):
        record("animator", (x, y))
        orig_add(self, x, y)
    d2l.Animator.add = add
    for fname, keep in (("plot", lambda a, k: (a[1] if len(a) > 1 else k.get("Y"), a[0])),
                        ("show_images", lambda a, k: a[0]),
                        ("show_heatmaps", lambda a, k: a[0])):
        orig = getattr(d2l, fname)

        def wrapped(*a, _orig=orig, _keep=keep, _name=fname, **k):
            record(_name, _keep(a, k))
            return _orig(*a, **k)
        setattr(d2l, fname, wrapped)
    builtins = __import__("builtins")
    builtins._d2l_cap = lambda n: min(n, max_epochs)
    return d2l


def _plain(v, depth=0):
    """A JSON-able form of a value: arrays as (dtype, shape, data), others by repr."""
    import numpy as onp
    if hasattr(v, "asnumpy") and callable(v.asnumpy):
        try:
            v = v.asnumpy()
        except Exception as e:  # noqa: BLE001  (the value itself is the failure to record)
            return {"s": f"<asnumpy failed: {e}>"}
    if isinstance(v, (bool, int, float, onp.generic)) or isinstance(v, onp.ndarray):
        a = onp.asarray(v)
        if a.dtype.kind in "biuf" and a.size <= 200000:
            return {"a": a.astype("float64").ravel().tolist(), "shape": list(a.shape),
                    "dtype": str(a.dtype)}
        return {"s": repr(v)[:2000]}
    if isinstance(v, (list, tuple)) and v and all(_scalar(x) for x in v):
        return _plain(onp.array([float(x.asnumpy() if hasattr(x, "asnumpy") else x)
                                 for x in v]), depth)
    if isinstance(v, (list, tuple)) and depth < 4 and len(v) <= 2000:
        return {"l": [_plain(x, depth + 1) for x in v]}
    if isinstance(v, str):
        return {"s": v[:2000]}
    if v is None:
        return {"s": "None"}
    # an object's address differs from run to run
    return {"s": re.sub(r" at 0x[0-9a-f]+", "", repr(v))[:2000], "type": type(v).__name__}


def _scalar(x):
    """A number, or an array of one element."""
    if isinstance(x, (bool, type)) or x is None:
        return False
    if isinstance(x, (int, float)):
        return True
    shape = getattr(x, "shape", None)
    return isinstance(shape, tuple) and all(d == 1 for d in shape) and hasattr(x, "dtype") and \
        getattr(x.dtype, "kind", "f") in "biuf"


_EPOCHS = {"num_epochs", "max_epochs"}


def _capped(value):
    if isinstance(value, ast.Constant) and type(value.value) is int:
        return ast.copy_location(ast.Call(func=ast.Name("_d2l_cap", ast.Load()), args=[value],
                                          keywords=[]), value)
    return value


class _LastExpr(ast.NodeTransformer):
    """Keeps the value of a cell's last expression, and routes every literal epoch count
    (``num_epochs = 10``, ``lr, num_epochs = 0.3, 30``, ``Trainer(max_epochs=10)``,
    ``def train(..., num_epochs=10)``) through the prelude's cap."""

    def __init__(self, cell):
        self.cell = cell

    def visit_Assign(self, node):
        self.generic_visit(node)
        for t in node.targets:
            if isinstance(t, ast.Name) and t.id in _EPOCHS:
                node.value = _capped(node.value)
            elif (isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple)
                  and len(t.elts) == len(node.value.elts)):
                node.value.elts = [_capped(v) if isinstance(n, ast.Name) and n.id in _EPOCHS
                                   else v for n, v in zip(t.elts, node.value.elts)]
        return node

    def visit_keyword(self, node):
        self.generic_visit(node)
        if node.arg in _EPOCHS:
            node.value = _capped(node.value)
        return node

    def visit_arguments(self, node):
        self.generic_visit(node)
        pos = node.posonlyargs + node.args
        first = len(pos) - len(node.defaults)
        node.defaults = [_capped(d) if pos[first + i].arg in _EPOCHS else d
                         for i, d in enumerate(node.defaults)]
        node.kw_defaults = [_capped(d) if d is not None and a.arg in _EPOCHS else d
                            for a, d in zip(node.kwonlyargs, node.kw_defaults)]
        return node

    def visit_Module(self, node):
        self.generic_visit(node)
        if node.body and isinstance(node.body[-1], ast.Expr):
            last = node.body[-1]
            call = ast.Call(func=ast.Name("_d2l_keep", ast.Load()),
                            args=[ast.Constant(self.cell), last.value], keywords=[])
            node.body[-1] = ast.copy_location(ast.Expr(call), last)
        ast.fix_missing_locations(node)
        return node


def timed_cells(cells):
    """The cells whose values read the real clock (left out of the comparison): those calling
    time.time/perf_counter or d2l's Benchmark, and where a section defines its own Timer (not
    d2l's, which the prelude puts on a fake clock), those using a ``timer``."""
    own_timer = any(re.search(r"^class Timer\b", c, re.M) for c in cells)
    pat = r"\btime\.time\(|perf_counter|Benchmark" + (r"|\btimer\." if own_timer else "")
    return [i for i, c in enumerate(cells) if re.search(pat, c)]


class _Tab:
    """d2lbook's ``tab`` object as the MXNet tab sees it."""

    def selected(self, *names):
        return "mxnet" in names or "all" in names

    def interact_select(self, *a, **k):
        return None


def run_section(cells_file, out_file):
    """Child process: run one section's cells in order, stop at the first failure."""
    with open(cells_file) as f:
        sec = json.load(f)
    result = {"section": sec["section"], "status": "ok", "error": None, "cell": None,
              "values": [], "timed_cells": []}
    cur = {"cell": -1}

    def record(kind, v):
        try:
            plain = _plain(v)
        except Exception as e:  # noqa: BLE001  (the tool's failure is not the section's)
            plain = {"s": f"<not recorded: {type(e).__name__}: {e}>"}
        result["values"].append({"cell": cur["cell"], "kind": kind, "v": plain})

    t0 = time.time()
    import io
    import contextlib
    stdout = io.StringIO()
    try:
        with contextlib.redirect_stdout(stdout):
            _prelude(record)
    except Exception as e:  # noqa: BLE001  (reported as the section's outcome)
        result.update(status="fail", error=f"prelude: {type(e).__name__}: {e}", cell=-1)
        cells = []
    else:
        cells = sec["cells"]
    g = {"__name__": "__main__"}

    def keep(cell, v):
        record("out", v)
        return v
    g["_d2l_keep"] = keep
    g["tab"] = _Tab()
    result["timed_cells"] = timed_cells(cells)
    # the cells' own CPU time (no interpreter start, no imports of the prelude): comparable
    # across two runs made side by side, where wall times are not
    c0 = time.process_time()
    for i, src in enumerate(cells):
        cur["cell"] = i
        try:
            tree = _LastExpr(i).visit(ast.parse(src))
            code = compile(tree, f"<{sec['section']} cell {i}>", "exec")
            with contextlib.redirect_stdout(stdout):
                exec(code, g)
        except BaseException as e:  # noqa: BLE001  (SystemExit from a cell is a failure too)
            import traceback
            tb = traceback.extract_tb(e.__traceback__)
            where = next((f"{fr.filename}:{fr.lineno}" for fr in reversed(tb)
                          if "d2l_chapters" not in fr.filename), "")
            msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
            result.update(status="fail", cell=i, error=f"{type(e).__name__}: {msg}"[:400],
                          where=where)
            break
        finally:
            try:
                import matplotlib.pyplot as plt
                plt.close("all")
            except Exception:  # noqa: BLE001
                pass
    result["ncells"] = len(sec["cells"])
    result["seconds"] = round(time.time() - t0, 2)
    result["cpu_seconds"] = round(time.process_time() - c0, 3)
    result["stdout"] = stdout.getvalue()[-4000:]
    try:
        import mxnet
        result["mxnet_file"] = mxnet.__file__
    except Exception:  # noqa: BLE001
        pass
    tmp = out_file + ".tmp"
    with open(tmp, "w") as f:
        json.dump(result, f)
    os.replace(tmp, out_file)


# ------------------------------------------------------------------------------- the driver
def _sections(work, only):
    with open(os.path.join(work, "cells", "ORDER")) as f:
        keys = [k for k in f.read().split() if k]
    if only:
        keys = [k for k in keys if any(o in k for o in only)]
    return keys


def run(work, tag, python, only, timeout, jobs=1):
    """Run every section under `python`, one fresh interpreter each, results in work/tag."""
    outdir = os.path.join(work, tag)
    os.makedirs(outdir, exist_ok=True)
    env = dict(os.environ, MPLBACKEND="Agg", MXNET_HOME=os.path.join(work, "mxnet_home"))
    pending = list(_sections(work, only))
    procs = []

    def start(key):
        chapter = key.split("__")[0]
        cwd = os.path.join(work, "run", tag, chapter)
        os.makedirs(cwd, exist_ok=True)
        for shared in ("data", "img"):  # the book's relative paths: ../data, ../img
            link = os.path.join(work, "run", tag, shared)
            if not os.path.lexists(link):
                os.symlink(os.path.abspath(os.path.join(work, shared)), link)
        out = os.path.join(outdir, key + ".json")
        if os.path.exists(out):
            os.remove(out)
        p = subprocess.Popen([python, os.path.abspath(__file__), "_child",
                              os.path.abspath(os.path.join(work, "cells", key + ".json")),
                              os.path.abspath(out)], cwd=cwd,
                             env=dict(CHAPTER_ENV.get(chapter, {}), **env),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        return p, key, out, time.time()

    while pending or procs:
        while pending and len(procs) < jobs:
            procs.append(start(pending.pop(0)))
        time.sleep(0.2)
        for item in list(procs):
            p, key, out, t0 = item
            if p.poll() is None and time.time() - t0 < timeout:
                continue
            if p.poll() is None:
                p.kill()
                p.wait()
                res = {"status": "timeout", "error": f"over {timeout} s"}
            elif not os.path.exists(out):
                err = p.stderr.read().decode(errors="replace").strip().splitlines()
                res = {"status": "crash", "error": (err[-1] if err else f"exit {p.returncode}")}
            else:
                res = None
            if res is not None:
                with open(out, "w") as f:
                    json.dump(dict(res, section=key, values=[], timed_cells=[]), f)
            else:
                with open(out) as f:
                    res = json.load(f)
            p.stderr.close()
            procs.remove(item)
            line = f"{tag} {key:70s} {res['status']:7s} {res.get('seconds', '')}"
            if res.get("error"):
                line += f"  cell {res.get('cell')}: {res['error'][:150]}"
            print(line, flush=True)


def _compare_values(a, b, rtol, atol):
    """(max relative difference, number of text mismatches, structure ok) of two values."""
    import numpy as onp
    if "a" in a and "a" in b:
        if a["shape"] != b["shape"]:
            return float("inf"), 0, False
        x, y = onp.asarray(a["a"]), onp.asarray(b["a"])
        if x.size == 0:
            return 0.0, 0, True
        nan = onp.isnan(x) & onp.isnan(y)
        same = (x == y) | nan
        d = onp.where(same, 0.0, onp.abs(x - y) / (atol + rtol * onp.abs(y)))
        d = onp.nan_to_num(d, nan=onp.inf)
        return float(d.max()), 0, True
    if "l" in a and "l" in b:
        if len(a["l"]) != len(b["l"]):
            return float("inf"), 0, False
        worst, texts, ok = 0.0, 0, True
        for u, v in zip(a["l"], b["l"]):
            d, t, o = _compare_values(u, v, rtol, atol)
            worst, texts, ok = max(worst, d), texts + t, ok and o
        return worst, texts, ok
    if "s" in a and "s" in b:
        def bare(t):
            return re.sub(r" at 0x[0-9a-f]+", "", t)
        return 0.0, int(bare(a["s"]) != bare(b["s"])), True
    return float("inf"), 0, False


def compare(work, only, rtol=1e-3, atol=1e-4, ref="mx", here="gl"):
    """One row per section: runs on MXNet, runs here, largest relative difference, reason."""
    rows = []
    for key in _sections(work, only):
        res = []
        for tag in (ref, here):
            path = os.path.join(work, tag, key + ".json")
            if os.path.exists(path):
                with open(path) as f:
                    res.append(json.load(f))
            else:
                res.append({"status": "not run", "values": [], "timed_cells": []})
        r, h = res
        with open(os.path.join(work, "cells", key + ".json")) as f:
            timed = set(timed_cells(json.load(f)["cells"]))
        rv = [v for v in r["values"] if v["cell"] not in timed]
        hv = [v for v in h["values"] if v["cell"] not in timed]
        n = min(len(rv), len(hv))
        worst, texts, where = 0.0, 0, None
        for u, v in zip(rv[:n], hv[:n]):
            d, t, ok = _compare_values(v["v"], u["v"], rtol, atol)
            if (d > 1.0 or not ok) and where is None:
                where = u["cell"]
            worst, texts = max(worst, d if ok else float("inf")), texts + t
        match = ("-" if not n else
                 "yes" if worst <= 1.0 and len(rv) == len(hv) else "no")
        reason = ""
        code = bool(r.get("ncells", 1) or h.get("ncells", 1))
        if not code:
            match, reason = "-", "no MXNet code in this section"
        elif "not run" in (r["status"], h["status"]):
            reason = "not run on " + ("MXNet" if r["status"] == "not run" else "gluonlite")
        elif r["status"] != "ok":
            reason = f"MXNet fails too: cell {r.get('cell')}: {r.get('error')}"
        elif h["status"] != "ok":
            reason = f"cell {h.get('cell')}: {h.get('error')}"
        elif match == "no":
            reason = (f"values differ from cell {where}" if where is not None
                      else f"{len(rv)} values on MXNet, {len(hv)} here")
        if texts and not reason:
            reason = f"{texts} printed value(s) differ in text"
        rows.append({"section": key, "code": code, "mx": r["status"], "here": h["status"],
                     "values": n,
                     "max_rel_diff": worst, "match": match, "reason": reason,
                     "mx_s": r.get("seconds"), "here_s": h.get("seconds"),
                     "mx_cpu": r.get("cpu_seconds"), "here_cpu": h.get("cpu_seconds")})
    return rows


def table(rows, rtol, atol):
    lines = [f"Values compare within rtol={rtol}, atol={atol}: `max diff` is the largest "
             "|here - mx| / (atol + rtol * |mx|) over the section's values (<= 1 matches).", "",
             "`cells CPU s` is the CPU time of the section's cells alone (no interpreter start "
             "or prelude), and its ratio here / MXNet.", "",
             "| section | MXNet | here | values | max diff | match | s (mx / here) | "
             "cells CPU s (mx / here) | ratio | reason |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        d = "-" if not r["values"] else f"{r['max_rel_diff']:.2g}"
        cpu, ratio = _cpu_cells(r)
        lines.append(f"| {r['section'].replace('chapter_', '')} | {r['mx']} | {r['here']} | "
                     f"{r['values']} | {d} | {r['match']} | {r['mx_s']} / {r['here_s']} | "
                     f"{cpu} | {ratio} | {r['reason'].replace('|', '/')} |")
    return "\n".join(lines)


def _cpu_cells(row):
    """The `cells CPU s` cell and the ratio cell of a row ('-' where a side has no time:
    a run made before the tool recorded it, or a section that did not finish)."""
    mx_cpu, here_cpu = row.get("mx_cpu"), row.get("here_cpu")
    if mx_cpu is None or here_cpu is None:
        return "-", "-"
    ratio = f"{here_cpu / mx_cpu:.2f}" if mx_cpu > 0 else "-"
    return f"{mx_cpu:.2f} / {here_cpu:.2f}", ratio


def summary(rows):
    """Counts per chapter: sections with MXNet code, run on MXNet, run here, matching."""
    chapters = {}
    for r in rows:
        c = chapters.setdefault(r["section"].split("__")[0].replace("chapter_", ""),
                                [0, 0, 0, 0, 0])
        c[0] += 1
        if r["code"]:
            c[1] += 1
            c[2] += r["mx"] == "ok"
            c[3] += r["here"] == "ok"
            c[4] += r["match"] == "yes" or (r["match"] == "-" and r["mx"] == r["here"] == "ok")
    lines = ["| chapter | sections | with MXNet code | run on MXNet | run here | numbers match |",
             "|---|---|---|---|---|---|"]
    tot = [0] * 5
    for name, c in chapters.items():
        lines.append(f"| {name} | " + " | ".join(map(str, c)) + " |")
        tot = [a + b for a, b in zip(tot, c)]
    lines.append("| **all** | " + " | ".join(f"**{t}**" for t in tot) + " |")
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "_child":
        run_section(argv[1], argv[2])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract", help="write each section's MXNet cells and the synthetic data")
    e.add_argument("--git", required=True, help="the d2l-en git directory")
    e.add_argument("--ref", default="v1.0.3")
    e.add_argument("--work", required=True)
    e.add_argument("chapters", nargs="*", default=DEFAULT_CHAPTERS)
    r = sub.add_parser("run", help="run the sections under one python")
    r.add_argument("--work", required=True)
    r.add_argument("--tag", required=True, help="a name for this run's results (mx, gl)")
    r.add_argument("--python", default=sys.executable)
    r.add_argument("--only", nargs="*", default=[])
    r.add_argument("--timeout", type=float, default=300)
    r.add_argument("--jobs", type=int, default=1)
    c = sub.add_parser("compare", help="print the table of MXNet's results against here")
    c.add_argument("--work", required=True)
    c.add_argument("--only", nargs="*", default=[])
    c.add_argument("--rtol", type=float, default=1e-3)
    c.add_argument("--atol", type=float, default=1e-4)
    c.add_argument("--markdown", help="also write the table to this file")
    a = ap.parse_args(argv)
    if a.cmd == "extract":
        if not os.path.isdir(a.git):
            print(f"error: --git {a.git!r} is not a directory", file=sys.stderr)
            return 2
        extract(a.git, a.ref, a.chapters, a.work)
    elif a.cmd == "run":
        if not os.path.isdir(os.path.join(a.work, "cells")):
            print(f"error: {a.work}/cells missing: run extract first", file=sys.stderr)
            return 2
        run(a.work, a.tag, a.python, a.only, a.timeout, a.jobs)
    else:
        rows = compare(a.work, a.only, a.rtol, a.atol)
        text = summary(rows) + "\n\n" + table(rows, a.rtol, a.atol)
        print(text)
        if a.markdown:
            tmp = a.markdown + ".tmp"
            with open(tmp, "w") as f:
                f.write(text + "\n")
            os.replace(tmp, a.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
