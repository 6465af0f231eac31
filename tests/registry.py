"""Every operator and mechanism case the contract tests run over (DESIGN §9).

Each case builds a fresh object and says how to draw valid inputs for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import markovdp as md
from markovdp.operators import Chain, Mixture, Power, Tensor


def random_stochastic(k: int, m: int, seed: int, zeros: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    raw = rng.random((k, m))
    if zeros:
        raw[rng.random((k, m)) < 0.4] = 0.0
        raw[np.arange(k), rng.integers(0, m, size=k)] += 0.5
    return raw / raw.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[], Any]
    inputs: Callable[[int, np.random.Generator], np.ndarray]

    def __repr__(self) -> str:
        return self.name


def finite_inputs(k: int):
    return lambda n, rng: rng.integers(0, k, size=n)


def real_inputs(d: int):
    return lambda n, rng: rng.normal(size=n) if d == 1 else rng.normal(size=(n, d))


OPERATORS = [
    Case("FiniteKernel", lambda: md.FiniteKernel(random_stochastic(3, 4, 1)), finite_inputs(3)),
    Case("FiniteKernel-sparse", lambda: md.FiniteKernel(random_stochastic(5, 5, 2, zeros=True)), finite_inputs(5)),
    Case("GaussianKernel", lambda: md.GaussianKernel(0.7), real_inputs(1)),
    Case("GaussianKernel-2d", lambda: md.GaussianKernel(0.5, dim=2), real_inputs(2)),
    Case("AffineGaussianKernel", lambda: md.AffineGaussianKernel([[1.0, 0.5], [0.0, 2.0], [1.0, -1.0]],
                                                                 [0.1, 0.0, -0.2], 0.7), real_inputs(2)),
    Case("LipschitzGaussianKernel", lambda: md.LipschitzGaussianKernel(*md.tanh_map(0.9), 0.5,
                                                                       projection=md.Ball(2, 1.0)), real_inputs(2)),
    Case("AffineGaussianKernel-1d", lambda: md.AffineGaussianKernel(2.0, 1.0, 0.5), real_inputs(1)),
    Case("LaplaceKernel", lambda: md.LaplaceKernel(1.3), real_inputs(1)),
    Case("Identity-finite", lambda: md.Identity(md.FiniteSpace(3)), finite_inputs(3)),
    Case("Identity-real", lambda: md.Identity(md.RealSpace(1)), real_inputs(1)),
    Case("Chain", lambda: Chain((md.GaussianKernel(0.5), md.LaplaceKernel(1.0))), real_inputs(1)),
    Case("Power", lambda: Power(md.LaplaceKernel(0.5), 3), real_inputs(1)),
    Case("Mixture", lambda: Mixture((md.GaussianKernel(0.5), md.LaplaceKernel(1.0)), np.array([0.3, 0.7])),
         real_inputs(1)),
    Case("Tensor", lambda: Tensor((md.GaussianKernel(0.5), md.LaplaceKernel(1.0))), real_inputs(2)),
]

MECHANISMS = [
    Case("RandomizedResponse", lambda: md.RandomizedResponse(3, 1.0), finite_inputs(3)),
    Case("FiniteMechanism", lambda: md.FiniteMechanism(random_stochastic(3, 4, 3), neighbours=[(0, 1), (1, 2)]),
         finite_inputs(3)),
    Case("GaussianMechanism", lambda: md.GaussianMechanism(1.0, sensitivity=2.0), real_inputs(1)),
    Case("LaplaceMechanism", lambda: md.LaplaceMechanism(0.8), real_inputs(1)),
    Case("PostProcessed-finite", lambda: md.RandomizedResponse(3, 1.0) >> md.FiniteKernel(random_stochastic(3, 2, 4)),
         finite_inputs(3)),
    Case("PostProcessed-gaussian", lambda: md.GaussianMechanism(1.0) >> md.GaussianKernel(0.5), real_inputs(1)),
    Case("PostProcessed-affine", lambda: md.GaussianMechanism(1.0) >> md.AffineGaussianKernel(2.0, 0.3, 0.5),
         real_inputs(1)),
    Case("PostProcessed-laplace", lambda: md.LaplaceMechanism(1.0) >> md.LaplaceKernel(0.5), real_inputs(1)),
]

#: Mechanisms whose output law is closed-form (and whose privacy profile is exact).
EXACT_MECHANISMS = MECHANISMS
