"""Probability laws: what mechanisms output and what ``mu >> K`` yields (THEORY: Notation)."""

from .atomic import Categorical, Empirical, PointMass
from .base import Distribution
from .continuous import Laplace, Normal
from .laplace_sum import LaplaceSum
from .multivariate_normal import MultivariateNormal, as_multivariate_normal

__all__ = [
    "Categorical", "Distribution", "Empirical", "Laplace", "LaplaceSum", "MultivariateNormal", "Normal",
    "PointMass", "as_multivariate_normal"
]
