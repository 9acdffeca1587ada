"""`mx.contrib.amp.amp`: MXNet's automatic mixed precision entry points, each refusing with
NotImplementedError (gluonlite leaves AMP out: see api_exclusions.txt).

Example::

    from gluonlite.contrib.amp import amp     # loads
    try:
        amp.init()
    except NotImplementedError as err:
        print(err)   # contrib.amp.init: automatic mixed precision (AMP) is not supported ...
"""
__all__ = ["init", "init_trainer", "scale_loss", "unscale", "convert_model",
           "convert_hybrid_block", "list_lp16_ops", "list_fp32_ops", "list_lp16_fp32_ops",
           "list_conditional_fp32_ops", "list_widest_type_cast", "list_loss_output_functions",
           "list_lp16_use_fp32_params", "convert_symbol", "convert_bucketing_module"]

#: Whether `init` turned AMP on; always False here (GluonNLP reads it to pick float32 paths).
_amp_initialized = False


def _refuse(name):
    raise NotImplementedError(
        f"contrib.amp.{name}: automatic mixed precision (AMP) is not supported by gluonlite "
        "(it runs float32 numpy kernels, with no float16/bfloat16 operator lists to cast "
        "between); train in float32, or cast a block with block.cast('float16')")


def init(target_dtype="float16", target_precision_ops=None, conditional_fp32_ops=None,
         fp32_ops=None):
    """Turn on AMP for every later operator call. Not supported.

    Args:
        target_dtype (str): the low precision, ``'float16'`` or ``'bfloat16'`` in MXNet.
            Unused: the call raises.
        target_precision_ops (list of str): operators to run in `target_dtype`, replacing
            MXNet's list. Unused: the call raises.
        conditional_fp32_ops (list of tuple): ``(op, attribute, values)`` triples kept in
            float32 when the attribute takes one of the values. Unused: the call raises.
        fp32_ops (list of str): operators kept in float32. Unused: the call raises.

    Raises:
        NotImplementedError: always (AMP is not supported).

    Example::

        from gluonlite.contrib.amp import amp
        try:
            amp.init()
        except NotImplementedError:
            print('AMP is not supported')
    """
    _refuse("init")


def init_trainer(optimizer_or_trainer):
    """Give a Trainer AMP's dynamic loss scaling. Not supported.

    Args:
        optimizer_or_trainer (Optimizer or gluon.Trainer): what AMP's loss scaling would
            be attached to. Unused: the call raises.

    Raises:
        NotImplementedError: always (AMP is not supported).

    Example::

        from gluonlite.contrib.amp import amp
        try:
            amp.init_trainer(None)
        except NotImplementedError:
            print('AMP is not supported')
    """
    _refuse("init_trainer")


def scale_loss(loss, optimizer_or_trainer):
    """A scope that scales the loss for AMP's loss scaling. Not supported.

    Args:
        loss (NDArray or list of NDArray): the loss(es) to scale. Unused: the call raises.
        optimizer_or_trainer (Optimizer or gluon.Trainer): what AMP's loss scaling would
            be attached to. Unused: the call raises.

    Raises:
        NotImplementedError: always (AMP is not supported).

    Example::

        from gluonlite.contrib.amp import amp
        try:
            amp.scale_loss(None, None)
        except NotImplementedError:
            print('AMP is not supported')
    """
    _refuse("scale_loss")


def unscale(optimizer_or_trainer):
    """Undo AMP's loss scaling of the gradients. Not supported.

    Args:
        optimizer_or_trainer (Optimizer or gluon.Trainer): what AMP's loss scaling would
            be attached to. Unused: the call raises.

    Raises:
        NotImplementedError: always (AMP is not supported).

    Example::

        from gluonlite.contrib.amp import amp
        try:
            amp.unscale(None)
        except NotImplementedError:
            print('AMP is not supported')
    """
    _refuse("unscale")


def convert_symbol(sym, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                   conditional_fp32_ops=None, excluded_sym_names=None, data_names=None,
                   cast_optional_params=False):
    """Insert AMP casts into a symbol. Not supported.

    Args:
        sym (Symbol): the network to convert. Unused: the call raises.
        target_dtype (str): the low precision, ``'float16'`` or ``'bfloat16'`` in MXNet.
            Unused: the call raises.
        target_dtype_ops (list of str): operators to run in `target_dtype`, replacing
            MXNet's list. Unused: the call raises.
        fp32_ops (list of str): operators kept in float32. Unused: the call raises.
        conditional_fp32_ops (list of tuple): ``(op, attribute, values)`` triples kept in
            float32 when the attribute takes one of the values. Unused: the call raises.
        excluded_sym_names (list of str): nodes left in float32. Unused: the call raises.
        data_names (list of str): the network's data inputs. Unused: the call raises.
        cast_optional_params (bool): also cast the parameters that may stay float32 in
            MXNet. Unused: the call raises.

    Raises:
        NotImplementedError: always (AMP is not supported).

    Example::

        from gluonlite.contrib.amp import amp
        try:
            amp.convert_symbol(sym.var('x'))
        except NotImplementedError:
            print('AMP is not supported')
    """
    _refuse("convert_symbol")


def convert_model(sym, arg_params, aux_params, target_dtype="float16", target_dtype_ops=None,
                  fp32_ops=None, conditional_fp32_ops=None, excluded_sym_names=None,
                  cast_optional_params=False):
    """Convert a symbol and its parameters to mixed precision. Not supported.

    Args:
        sym (Symbol): the network to convert. Unused: the call raises.
        arg_params (dict of str to NDArray): its parameters. Unused: the call raises.
        aux_params (dict of str to NDArray): its auxiliary states. Unused: the call raises.
        target_dtype (str): the low precision, ``'float16'`` or ``'bfloat16'`` in MXNet.
            Unused: the call raises.
        target_dtype_ops (list of str): operators to run in `target_dtype`, replacing
            MXNet's list. Unused: the call raises.
        fp32_ops (list of str): operators kept in float32. Unused: the call raises.
        conditional_fp32_ops (list of tuple): ``(op, attribute, values)`` triples kept in
            float32 when the attribute takes one of the values. Unused: the call raises.
        excluded_sym_names (list of str): nodes left in float32. Unused: the call raises.
        cast_optional_params (bool): also cast the parameters that may stay float32 in
            MXNet. Unused: the call raises.

    Raises:
        NotImplementedError: always (AMP is not supported).

    Example::

        from gluonlite.contrib.amp import amp
        try:
            amp.convert_model(sym.var('x'), {}, {})
        except NotImplementedError:
            print('AMP is not supported')
    """
    _refuse("convert_model")


def convert_hybrid_block(block, target_dtype="float16", target_dtype_ops=None,
                         fp32_ops=None, conditional_fp32_ops=None, excluded_sym_names=None,
                         ctx=None, cast_optional_params=False):
    """Convert a HybridBlock to mixed precision. Not supported.

    Args:
        block (gluon.HybridBlock): the block to convert. Unused: the call raises.
        target_dtype (str): the low precision, ``'float16'`` or ``'bfloat16'`` in MXNet.
            Unused: the call raises.
        target_dtype_ops (list of str): operators to run in `target_dtype`, replacing
            MXNet's list. Unused: the call raises.
        fp32_ops (list of str): operators kept in float32. Unused: the call raises.
        conditional_fp32_ops (list of tuple): ``(op, attribute, values)`` triples kept in
            float32 when the attribute takes one of the values. Unused: the call raises.
        excluded_sym_names (list of str): nodes left in float32. Unused: the call raises.
        ctx (Context): where the converted block's parameters would live. Unused: the call raises.
        cast_optional_params (bool): also cast the parameters that may stay float32 in
            MXNet. Unused: the call raises.

    Raises:
        NotImplementedError: always (AMP is not supported).

    Example::

        from gluonlite.contrib.amp import amp
        try:
            amp.convert_hybrid_block(nn.Dense(2))
        except NotImplementedError:
            print('AMP is not supported')
    """
    _refuse("convert_hybrid_block")


def convert_bucketing_module(bucketing_mod, target_dtype="float16", target_dtype_ops=None,
                             fp32_ops=None, conditional_fp32_ops=None,
                             excluded_sym_names=None, cast_optional_params=False):
    """Convert a BucketingModule to mixed precision. Not supported.

    Args:
        bucketing_mod (BucketingModule): the module to convert. Unused: the call raises.
        target_dtype (str): the low precision, ``'float16'`` or ``'bfloat16'`` in MXNet.
            Unused: the call raises.
        target_dtype_ops (list of str): operators to run in `target_dtype`, replacing
            MXNet's list. Unused: the call raises.
        fp32_ops (list of str): operators kept in float32. Unused: the call raises.
        conditional_fp32_ops (list of tuple): ``(op, attribute, values)`` triples kept in
            float32 when the attribute takes one of the values. Unused: the call raises.
        excluded_sym_names (list of str): nodes left in float32. Unused: the call raises.
        cast_optional_params (bool): also cast the parameters that may stay float32 in
            MXNet. Unused: the call raises.

    Raises:
        NotImplementedError: always (AMP is not supported).

    Example::

        from gluonlite.contrib.amp import amp
        try:
            amp.convert_bucketing_module(None)
        except NotImplementedError:
            print('AMP is not supported')
    """
    _refuse("convert_bucketing_module")


def list_lp16_ops(target_dtype):
    """The operators AMP runs in float16/bfloat16. Not supported.

    Args:
        target_dtype (str): the low precision, ``'float16'`` or ``'bfloat16'`` in MXNet.
            Unused: the call raises.

    Raises:
        NotImplementedError: always (AMP is not supported).

    Example::

        from gluonlite.contrib.amp import amp
        try:
            amp.list_lp16_ops('float16')
        except NotImplementedError:
            print('AMP is not supported')
    """
    _refuse("list_lp16_ops")


def list_fp32_ops(target_dtype):
    """The operators AMP keeps in float32. Not supported.

    Args:
        target_dtype (str): the low precision, ``'float16'`` or ``'bfloat16'`` in MXNet.
            Unused: the call raises.

    Raises:
        NotImplementedError: always (AMP is not supported).

    Example::

        from gluonlite.contrib.amp import amp
        try:
            amp.list_fp32_ops('float16')
        except NotImplementedError:
            print('AMP is not supported')
    """
    _refuse("list_fp32_ops")


def list_lp16_fp32_ops(target_dtype):
    """The operators AMP runs in either precision. Not supported.

    Args:
        target_dtype (str): the low precision, ``'float16'`` or ``'bfloat16'`` in MXNet.
            Unused: the call raises.

    Raises:
        NotImplementedError: always (AMP is not supported).

    Example::

        from gluonlite.contrib.amp import amp
        try:
            amp.list_lp16_fp32_ops('float16')
        except NotImplementedError:
            print('AMP is not supported')
    """
    _refuse("list_lp16_fp32_ops")


def list_conditional_fp32_ops(target_dtype):
    """The operators AMP keeps in float32 for some attribute values. Not supported.

    Args:
        target_dtype (str): the low precision, ``'float16'`` or ``'bfloat16'`` in MXNet.
            Unused: the call raises.

    Raises:
        NotImplementedError: always (AMP is not supported).

    Example::

        from gluonlite.contrib.amp import amp
        try:
            amp.list_conditional_fp32_ops('float16')
        except NotImplementedError:
            print('AMP is not supported')
    """
    _refuse("list_conditional_fp32_ops")


def list_widest_type_cast(target_dtype):
    """The operators whose inputs AMP casts to the widest type. Not supported.

    Args:
        target_dtype (str): the low precision, ``'float16'`` or ``'bfloat16'`` in MXNet.
            Unused: the call raises.

    Raises:
        NotImplementedError: always (AMP is not supported).

    Example::

        from gluonlite.contrib.amp import amp
        try:
            amp.list_widest_type_cast('float16')
        except NotImplementedError:
            print('AMP is not supported')
    """
    _refuse("list_widest_type_cast")


def list_loss_output_functions(target_dtype):
    """The loss output operators AMP scales. Not supported.

    Args:
        target_dtype (str): the low precision, ``'float16'`` or ``'bfloat16'`` in MXNet.
            Unused: the call raises.

    Raises:
        NotImplementedError: always (AMP is not supported).

    Example::

        from gluonlite.contrib.amp import amp
        try:
            amp.list_loss_output_functions('float16')
        except NotImplementedError:
            print('AMP is not supported')
    """
    _refuse("list_loss_output_functions")


def list_lp16_use_fp32_params(target_dtype):
    """The low-precision operators with float32 parameters. Not supported.

    Args:
        target_dtype (str): the low precision, ``'float16'`` or ``'bfloat16'`` in MXNet.
            Unused: the call raises.

    Raises:
        NotImplementedError: always (AMP is not supported).

    Example::

        from gluonlite.contrib.amp import amp
        try:
            amp.list_lp16_use_fp32_params('float16')
        except NotImplementedError:
            print('AMP is not supported')
    """
    _refuse("list_lp16_use_fp32_params")
