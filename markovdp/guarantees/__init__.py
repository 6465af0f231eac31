"""Guarantees: coefficients, exact privacy, certified bounds and the theorem registry."""

# The built-in rules, in their documented order (registry.py): MECH, POST, then BBGG-T1.1 … T1.4.
from . import (
    bbgg,  # noqa: E402, F401
    mechanism_rules,  # noqa: E402, F401, I001
)
from .aac import ldp_contraction_bound
from .coefficients import dobrushin, doeblin, ldp_epsilon, ultra_mixing
from .conversions import rdp_to_dp
from .exact import privacy_epsilon, privacy_profile, renyi_profile, worst_pair
from .registry import certify, describe, registered_theorems, theorem, theorems, unregister
from .types import Bound, Certificate, NoApplicableTheorem, NotApplicable

__all__ = [
    "Bound", "Certificate", "NoApplicableTheorem", "NotApplicable", "certify", "dobrushin", "doeblin",
    "ldp_contraction_bound", "ldp_epsilon", "privacy_epsilon", "privacy_profile", "rdp_to_dp",
    "describe", "registered_theorems", "renyi_profile", "theorem", "theorems", "ultra_mixing", "unregister",
    "worst_pair",
]
