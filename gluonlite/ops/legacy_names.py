"""MXNet's older spellings of the arithmetic operators, one table: MXNet 1.9.1 still registers
them (``_Power``, ``_PlusScalar``...), and graphs saved by older versions name them. Each is
the operator it stands for (the comparison rows of `compare` carry theirs themselves)."""
from .registry import alias

# operator: its older spellings
_LEGACY = {
    "elemwise_sub": ("_Minus",), "elemwise_mul": ("_Mul",), "elemwise_div": ("_Div",),
    "_mod": ("_Mod",), "_power": ("_Power",), "_maximum": ("_Maximum",),
    "_minimum": ("_Minimum",), "_hypot": ("_Hypot",),
    "_plus_scalar": ("_PlusScalar",), "_minus_scalar": ("_MinusScalar",),
    "_rminus_scalar": ("_RMinusScalar",), "_mul_scalar": ("_MulScalar",),
    "_div_scalar": ("_DivScalar",), "_rdiv_scalar": ("_RDivScalar",),
    "_mod_scalar": ("_ModScalar",), "_rmod_scalar": ("_RModScalar",),
    "_power_scalar": ("_PowerScalar",), "_rpower_scalar": ("_RPowerScalar",),
    "_maximum_scalar": ("_MaximumScalar",), "_minimum_scalar": ("_MinimumScalar",),
    "_hypot_scalar": ("_HypotScalar",),
}

for _name, _old in _LEGACY.items():
    alias(_name, *_old)
