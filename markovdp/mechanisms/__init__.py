"""Mechanisms and their post-processing ``M >> K``."""

from .additive import GaussianMechanism, LaplaceMechanism
from .base import AllPairs, Declared, IndexPairs, L1Ball, L2Ball, Mechanism, Neighbourhood, PostProcessed
from .declared import DeclaredDP
from .finite import FiniteMechanism, MatrixMechanism, RandomizedResponse

__all__ = [
    "AllPairs", "Declared", "DeclaredDP", "FiniteMechanism", "GaussianMechanism", "IndexPairs", "L1Ball",
    "L2Ball", "LaplaceMechanism", "MatrixMechanism", "Mechanism", "Neighbourhood", "PostProcessed",
    "RandomizedResponse",
]
