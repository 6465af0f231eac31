"""Divergences between laws: exact values (`exact`) and Monte Carlo estimates (`estimate`).

THEORY: Notation (E_gamma, TV, KL, R_alpha); STD-GaussHS, STD-GaussRenyi, STD-LapHS, STD-LapRenyi.
"""

from .estimate import (
    Estimate,
    estimate_hockey_stick,
    estimate_hockey_stick_from_counts,
    estimate_renyi,
    estimate_renyi_from_counts,
)
from .exact import hockey_stick, kl, renyi, tv

__all__ = [
    "Estimate",
    "estimate_hockey_stick",
    "estimate_hockey_stick_from_counts",
    "estimate_renyi",
    "estimate_renyi_from_counts",
    "hockey_stick",
    "kl",
    "renyi",
    "tv",
]
