"""Mechanisms and their post-processing ``M >> K``."""

from .._moved import moved_names
from .additive import GaussianMechanism, LaplaceMechanism
from .base import AllPairs, Declared, IndexPairs, L1Ball, L2Ball, Mechanism, Neighbourhood, PostProcessed
from .canonical import BlackBoxPairs, CanonicalPairs
from .declared import DeclaredDP
from .diffusion import DiffusionMechanism
from .finite import FiniteMechanism, MatrixMechanism, RandomizedResponse
from .local import (
    BinaryHadamard,
    HadamardResponse,
    KeyedMechanism,
    MultiLevelMechanism,
    RecoverableMechanism,
    SubsetChannel,
    SubsetSelection,
    UnaryChannel,
    UnaryEncoding,
    added_key_law,
    binary_entropy,
    circulant,
    draw_keys,
    empirical_frequencies,
    entropy_bits,
    l1_error,
    l2_squared_error,
    linf_error,
    min_recoverable_randomness,
    min_recoverable_s,
    output_entropy_bits,
    per_sample_epsilon,
    project_simplex,
    q_min,
    randomness_bits,
    rr_key_law,
    sequence_channel,
)
from .losses import GradientLoss, LogisticLoss, Loss, QuadraticLoss
from .sgd import DifferingRecord, NoisyProjSGD, SGDDifferingAt, exact_sgd_outputs

__all__ = [
    "AllPairs", "BinaryHadamard", "BlackBoxPairs", "CanonicalPairs", "Declared", "DeclaredDP", "DifferingRecord",
    "DiffusionMechanism", "FiniteMechanism", "GaussianMechanism", "GradientLoss", "HadamardResponse", "IndexPairs",
    "KeyedMechanism", "L1Ball", "L2Ball", "LaplaceMechanism", "LogisticLoss", "Loss", "MatrixMechanism",
    "Mechanism", "MultiLevelMechanism", "Neighbourhood", "NoisyProjSGD", "PostProcessed", "QuadraticLoss",
    "RandomizedResponse", "RecoverableMechanism", "SGDDifferingAt", "SubsetChannel", "SubsetSelection",
    "UnaryChannel", "UnaryEncoding", "added_key_law", "binary_entropy", "circulant", "draw_keys",
    "empirical_frequencies", "entropy_bits", "exact_sgd_outputs", "l1_error", "l2_squared_error", "linf_error",
    "min_recoverable_randomness", "min_recoverable_s", "output_entropy_bits", "per_sample_epsilon", "project_simplex",
    "q_min", "randomness_bits", "rr_key_law", "sequence_channel",
]

__getattr__ = moved_names(__name__, {name: f"markovdp.guarantees.{name}" for name in (
    "worst_case_mechanism", "compare_key_reuse", "KeyReuse")})
