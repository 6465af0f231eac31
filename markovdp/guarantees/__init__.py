"""Guarantees: coefficients, exact privacy, certified bounds and the theorem registry."""

from .aac import ldp_contraction_bound
from .coefficients import dobrushin, doeblin, ldp_epsilon, ultra_mixing
from .conversions import rdp_to_dp
from .exact import privacy_epsilon, privacy_profile, renyi_profile, worst_pair
from .registry import certify, registered_theorems, theorem
from .types import Bound, Certificate, NoApplicableTheorem, NotApplicable

__all__ = [
    "Bound", "Certificate", "NoApplicableTheorem", "NotApplicable", "certify", "dobrushin", "doeblin",
    "ldp_contraction_bound", "ldp_epsilon", "privacy_epsilon", "privacy_profile", "rdp_to_dp",
    "registered_theorems", "renyi_profile", "theorem", "ultra_mixing", "worst_pair",
]
