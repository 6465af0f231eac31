"""Probability laws: what mechanisms output and what ``mu >> K`` yields (THEORY: Notation)."""

from .atomic import Categorical, Empirical, PointMass
from .base import Distribution
from .continuous import Laplace, Normal
from .multivariate_normal import MultivariateNormal, as_multivariate_normal

__all__ = ["Categorical", "Distribution", "Empirical", "Laplace", "MultivariateNormal", "Normal", "PointMass",
           "as_multivariate_normal"]
