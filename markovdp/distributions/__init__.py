"""Probability laws: what mechanisms output and what ``mu >> K`` yields (THEORY: Notation)."""

from .atomic import Categorical, Empirical, PointMass
from .base import Distribution
from .continuous import Laplace, Normal
from .laplace_sum import LaplaceSum
from .laplace_sum_n import LaplaceSumN
from .multivariate_normal import MultivariateNormal, as_multivariate_normal
from .normal_laplace import NormalLaplace

__all__ = [
    "Categorical", "Distribution", "Empirical", "Laplace", "LaplaceSum", "LaplaceSumN", "MultivariateNormal", "Normal",
    "NormalLaplace", "PointMass", "as_multivariate_normal"
]
