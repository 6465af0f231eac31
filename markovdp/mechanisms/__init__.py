"""Mechanisms and their post-processing ``M >> K``."""

from .additive import GaussianMechanism, LaplaceMechanism
from .base import AllPairs, Declared, IndexPairs, L1Ball, L2Ball, Mechanism, Neighbourhood, PostProcessed
from .canonical import BlackBoxPairs, CanonicalPairs, worst_case_mechanism
from .declared import DeclaredDP
from .finite import FiniteMechanism, MatrixMechanism, RandomizedResponse

__all__ = [
    "AllPairs", "BlackBoxPairs", "CanonicalPairs", "Declared", "DeclaredDP", "FiniteMechanism", "GaussianMechanism",
    "IndexPairs", "L1Ball", "L2Ball", "LaplaceMechanism", "MatrixMechanism", "Mechanism", "Neighbourhood",
    "PostProcessed", "RandomizedResponse", "worst_case_mechanism",
]
