"""`mx.contrib.amp` loads (so that scripts importing it run) and every entry point refuses
with NotImplementedError naming AMP."""
import pytest

import gluonlite as mx
from gluonlite.contrib.amp import amp


def test_import_forms_load():
    assert mx.contrib.amp.amp is amp
    assert mx.contrib.amp.init is amp.init
    assert set(amp.__all__) >= {"init", "init_trainer", "scale_loss", "unscale",
                                "convert_model", "convert_hybrid_block", "convert_symbol"}


@pytest.mark.parametrize("name", amp.__all__)
def test_every_function_refuses_naming_amp(name):
    fn = getattr(amp, name)
    nargs = fn.__code__.co_argcount - len(fn.__defaults__ or ())
    with pytest.raises(NotImplementedError, match=rf"contrib\.amp\.{name}: .*\(AMP\) is not"):
        fn(*[None] * nargs)
