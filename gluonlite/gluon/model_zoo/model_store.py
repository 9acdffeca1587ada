"""Where pretrained parameters are looked for: a local folder, never the network."""
import glob
import os

from ..utils import check_sha1

__all__ = ["get_model_file", "default_root", "purge", "short_hash"]

# Model name -> SHA-1 of its parameter file, as MXNet's model store keys it. gluonlite ships no
# pretrained files, so it starts empty; libraries register theirs (GluonNLP calls
# `_model_sha1.update`), and `get_model_file` then looks for MXNet's download name
# `<name>-<first 8 hex digits>.params` and checks the digest.
_model_sha1 = {}


def short_hash(name):
    """The first 8 hex digits of the SHA-1 registered for model `name` in `_model_sha1`.

    Raises:
        ValueError: no SHA-1 is registered for `name`.

    Example::

        from gluonlite.gluon.model_zoo import model_store
        model_store._model_sha1['mymodel'] = 'a9993e364706816aba3e25717850c26c9cd0d89d'
        model_store.short_hash('mymodel')   # a9993e36
        del model_store._model_sha1['mymodel']
    """
    if name not in _model_sha1:
        raise ValueError(f"model_store: no SHA-1 registered for model {name!r} (in "
                         "model_store._model_sha1)")
    return _model_sha1[name][:8]


def default_root():
    """``$MXNET_HOME/models`` when MXNET_HOME is set, else ``~/.mxnet/models`` (MXNet's place).

    Example::

        from gluonlite.gluon.model_zoo import model_store
        model_store.default_root()   # ~/.mxnet/models when MXNET_HOME is not set
    """
    home = os.environ.get("MXNET_HOME", os.path.join("~", ".mxnet"))
    return os.path.join(home, "models")


def get_model_file(name, root=None):
    """The path of the pretrained parameters of model `name` under `root`.

    Looks for MXNet's download name ``<root>/<name>-<hash>.params`` when a SHA-1 is
    registered for `name` in `_model_sha1` (and checks it), then ``<root>/<name>.params``,
    then any ``<root>/<name>-*.params``. gluonlite never downloads.

    Args:
        name: the model's name ('resnet18_v1').
        root: the folder (default `default_root()`).

    Returns:
        The file's path.

    Raises:
        FileNotFoundError: no such file; the message names the file and where to put it.
        ValueError: the hashed file's SHA-1 differs from the registered one.

    Example::

        import os
        from gluonlite.gluon.model_zoo import model_store
        os.makedirs('models', exist_ok=True)
        net = nn.Dense(2, in_units=3); net.initialize()
        net.save_parameters('models/tiny.params')
        model_store.get_model_file('tiny', root='models')   # models/tiny.params
    """
    root = os.path.expanduser(root if root is not None else default_root())
    if name in _model_sha1:
        hashed = os.path.join(root, f"{name}-{short_hash(name)}.params")
        if os.path.isfile(hashed):
            if not check_sha1(hashed, _model_sha1[name]):
                raise ValueError(f"model_zoo: {hashed} does not match the SHA-1 "
                                 f"{_model_sha1[name]} registered for {name!r}; replace it")
            return hashed
    path = os.path.join(root, name + ".params")
    if os.path.isfile(path):
        return path
    found = sorted(glob.glob(os.path.join(glob.escape(root), glob.escape(name) + "-*.params")))
    if found:
        return found[0]
    raise FileNotFoundError(
        f"model_zoo: pretrained parameters for {name!r} not found: put the file at {path} "
        "(gluonlite does not download; MXNet's '<name>-<hash>.params' files work too)")


def purge(root=None):
    """Delete every ``.params`` file in the model folder `root` (default `default_root()`).

    Example::

        import os
        from gluonlite.gluon.model_zoo import model_store
        os.makedirs('models', exist_ok=True)
        open('models/old.params', 'wb').close()
        model_store.purge('models')
        os.listdir('models')   # []
    """
    root = os.path.expanduser(root if root is not None else default_root())
    for fname in os.listdir(root):
        if fname.endswith(".params"):
            os.remove(os.path.join(root, fname))
