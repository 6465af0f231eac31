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
from .estimate_density_ratio import WeightedEstimate, estimate_hockey_stick_importance, estimate_renyi_density_ratio
from .estimate_events import estimate_hockey_stick_event, estimate_renyi_histogram
from .exact import (
    hockey_stick,
    kl,
    laplace_sum_hockey_stick,
    laplace_sum_kl,
    laplace_sum_renyi,
    mahalanobis,
    mvn_kl,
    mvn_renyi,
    renyi,
    tv,
)

__all__ = [
    "Estimate", "WeightedEstimate", "estimate_hockey_stick", "estimate_hockey_stick_event",
    "estimate_hockey_stick_from_counts", "estimate_hockey_stick_importance", "estimate_renyi",
    "estimate_renyi_density_ratio", "estimate_renyi_from_counts", "estimate_renyi_histogram", "hockey_stick", "kl",
    "laplace_sum_hockey_stick", "laplace_sum_kl", "laplace_sum_renyi", "mahalanobis", "mvn_kl", "mvn_renyi",
    "renyi", "tv"
]
