"""`mxnet`, provided by gluonlite (this is not Apache MXNet).

Every name and submodule is gluonlite's: ``mxnet.gluon is gluonlite.gluon``; ``__version__`` is
the MXNet API version gluonlite implements ("1.9.1"). See gluonlite.mxnet_alias and
docs/guide/mxnet-import.md of the gluonlite repository.
"""
from gluonlite.mxnet_alias import provide as _provide

_provide(globals())
del _provide
