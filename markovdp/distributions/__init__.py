"""Probability laws: what mechanisms output and what ``mu >> K`` yields (THEORY: Notation)."""

from .atomic import Categorical, Empirical, PointMass
from .base import Distribution
from .continuous import Laplace, Normal

__all__ = ["Categorical", "Distribution", "Empirical", "Laplace", "Normal", "PointMass"]
