"""Where pretrained parameters are looked for: a local folder, never the network."""
import glob
import os

__all__ = ["get_model_file", "default_root"]


def default_root():
    """``$MXNET_HOME/models`` when MXNET_HOME is set, else ``~/.mxnet/models`` (MXNet's place)."""
    home = os.environ.get("MXNET_HOME", os.path.join("~", ".mxnet"))
    return os.path.join(home, "models")


def get_model_file(name, root=None):
    """The path of the pretrained parameters of model `name` under `root`.

    Looks for ``<root>/<name>.params``, then for MXNet's download name
    ``<root>/<name>-<hash>.params``. gluonlite never downloads.

    Args:
        name: the model's name ('resnet18_v1').
        root: the folder (default `default_root()`).

    Returns:
        The file's path.

    Raises:
        FileNotFoundError: no such file; the message names the file and where to put it.

    Example: ``get_model_file('resnet18_v1', root='/data/models')``.
    """
    root = os.path.expanduser(root if root is not None else default_root())
    path = os.path.join(root, name + ".params")
    if os.path.isfile(path):
        return path
    found = sorted(glob.glob(os.path.join(glob.escape(root), glob.escape(name) + "-*.params")))
    if found:
        return found[0]
    raise FileNotFoundError(
        f"model_zoo: pretrained parameters for {name!r} not found: put the file at {path} "
        "(gluonlite does not download; MXNet's '<name>-<hash>.params' files work too)")
