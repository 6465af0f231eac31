"""Mechanisms and their post-processing ``M >> K``."""

from .additive import GaussianMechanism, LaplaceMechanism
from .base import AllPairs, Declared, IndexPairs, L1Ball, L2Ball, Mechanism, Neighbourhood, PostProcessed
from .canonical import BlackBoxPairs, CanonicalPairs, worst_case_mechanism
from .declared import DeclaredDP
from .finite import FiniteMechanism, MatrixMechanism, RandomizedResponse
from .losses import GradientLoss, LogisticLoss, Loss, QuadraticLoss
from .sgd import DifferingRecord, NoisyProjSGD, SGDDifferingAt, exact_sgd_outputs

__all__ = [
    "AllPairs", "BlackBoxPairs", "CanonicalPairs", "Declared", "DeclaredDP", "DifferingRecord", "FiniteMechanism",
    "GaussianMechanism", "GradientLoss", "IndexPairs", "L1Ball", "L2Ball", "LaplaceMechanism", "LogisticLoss",
    "Loss", "MatrixMechanism", "Mechanism", "Neighbourhood", "NoisyProjSGD", "PostProcessed", "QuadraticLoss",
    "RandomizedResponse", "SGDDifferingAt", "exact_sgd_outputs", "worst_case_mechanism"
]
