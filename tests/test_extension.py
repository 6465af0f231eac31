"""Extending markovdp from outside the package: a new mechanism class and a new kernel class get exact
privacy profiles, Rényi profiles and certificates by declaring dominating pairs and registering one push
rule — no edit of `markovdp/` (DESIGN §4: a class plus a registration).

The exact values are checked against independent computations: mpmath quadrature for the Laplace pair
(tests/oracles.py) and brute-force event enumeration for the finite channel.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from oracles import hockey_stick_bruteforce, mp_hockey_stick_1d, mp_laplace_logpdf, mp_renyi_1d, scale_points

import markovdp as md
from markovdp.pairs import PUSHES
from markovdp.spaces import FiniteSpace, RealSpace


@dataclass(frozen=True)
class ShiftedLaplaceMechanism(md.Mechanism):
    """M(D) = Lap(f(D) + shift, scale): a Laplace mechanism followed by a fixed shift (L1 sensitivity 1)."""

    scale: float
    shift: float

    @property
    def neighbours(self):
        return md.mechanisms.L1Ball(1.0)

    @property
    def output_space(self):
        return RealSpace(1)

    def output(self, value):
        return md.Laplace(float(value) + self.shift, self.scale)

    def sample(self, value, *, rng=None):
        noise = md.as_generator(rng).laplace(0, self.scale, np.shape(value))
        return np.asarray(value, dtype=float) + self.shift + noise

    def dominating_pairs(self):
        # a shift is a bijection: the Laplace mechanism's pair, moved by `shift`, is still dominating
        return md.Pairs(((md.Laplace(self.shift, self.scale), md.Laplace(self.shift + 1.0, self.scale)),))


@dataclass(frozen=True)
class Scaling(md.MarkovOperator):
    """y = c x on R, c != 0: deterministic and injective, so every divergence is unchanged (STD-DPI both ways)."""

    c: float

    @property
    def domain(self):
        return RealSpace(1)

    @property
    def codomain(self):
        return RealSpace(1)

    def sample(self, x, *, rng=None):
        return self.c * np.asarray(x, dtype=float)

    def push(self, mu):
        if isinstance(mu, md.Laplace):
            return md.Laplace(self.c * mu.loc, abs(self.c) * mu.scale)
        return super().push(mu)


@PUSHES.register((Scaling, md.Pairs))
def _push_scaling(kernel: Scaling, pairs: md.Pairs) -> md.Pairs:
    """An injective map keeps any dominating pairs exact: push each law."""
    return md.Pairs(tuple((kernel.push(mu), kernel.push(nu)) for mu, nu in pairs))


@dataclass(frozen=True)
class BinaryFlip(md.MarkovOperator):
    """Flip a bit with probability `p`: a finite channel written as its own class (not a FiniteKernel)."""

    p: float

    @property
    def domain(self):
        return FiniteSpace(2)

    @property
    def codomain(self):
        return FiniteSpace(2)

    @property
    def matrix(self):
        return np.array([[1 - self.p, self.p], [self.p, 1 - self.p]])

    def sample(self, x, *, rng=None):
        x = np.asarray(x)
        return np.where(md.as_generator(rng).random(x.shape) < self.p, 1 - x, x)

    def push(self, mu):
        if isinstance(mu, md.Categorical):
            return md.Categorical(mu.probs @ self.matrix)
        return super().push(mu)


def test_new_mechanism_and_new_kernel_get_exact_profiles_against_mpmath():
    mech = ShiftedLaplaceMechanism(scale=0.8, shift=3.0)
    pipeline = mech >> Scaling(-2.0)
    # Independent: mpmath quadrature of Lap(0, 1.6) vs Lap(-2, 1.6), the pipeline's output laws at f = 0, 1.
    p, q = mp_laplace_logpdf(-6.0, 1.6), mp_laplace_logpdf(-8.0, 1.6)
    points = scale_points([-6.0, -8.0], 1.6)
    for eps in (0.0, 0.4, 1.0):
        expected = mp_hockey_stick_1d(p, q, eps, points)
        assert md.privacy_profile(pipeline, eps) == pytest.approx(expected, rel=1e-9, abs=1e-15)
        assert md.privacy_profile(mech, eps) == pytest.approx(expected, rel=1e-9, abs=1e-15)
    assert md.renyi_profile(pipeline, 3.0) == pytest.approx(mp_renyi_1d(p, q, 3.0, points), rel=1e-9)
    # pure DP at sensitivity / scale = 1.25 (the Laplace loss is bounded by it), conservatively rounded
    eps0 = md.privacy_epsilon(pipeline, 0.0)
    assert eps0 == pytest.approx(1.25, rel=1e-12) and md.privacy_profile(pipeline, eps0) == 0.0


def test_new_kernel_on_a_finite_mechanism_is_exact_and_certified():
    mech = md.RandomizedResponse(2, 1.5)
    pipeline = mech >> BinaryFlip(0.2)
    rows = mech.matrix @ BinaryFlip(0.2).matrix
    for eps in (0.0, 0.3, 1.0):
        expected = max(hockey_stick_bruteforce(rows[i], rows[j], eps) for i, j in ((0, 1), (1, 0)))
        assert md.privacy_profile(pipeline, eps) == pytest.approx(expected, abs=1e-15)
    cert = md.certify(pipeline)
    assert cert.candidates["POST"].delta(0.3) >= md.privacy_profile(pipeline, 0.3)
    # BBGG-T1 needs the exact coefficient of a FiniteKernel: honestly not applicable to a foreign class
    assert isinstance(cert.candidates["BBGG-T1.1"], md.NotApplicable)


def test_a_kernel_without_a_push_rule_is_not_silently_exact():
    @dataclass(frozen=True)
    class Clip(md.MarkovOperator):
        @property
        def domain(self):
            return RealSpace(1)

        @property
        def codomain(self):
            return RealSpace(1)

        def sample(self, x, *, rng=None):
            return np.clip(x, -1, 1)

    with pytest.raises(NotImplementedError, match="Clip"):
        md.privacy_profile(md.LaplaceMechanism(1.0) >> Clip(), 0.5)
    # certify still answers, with the post-processing bound of the mechanism
    assert md.certify(md.LaplaceMechanism(1.0) >> Clip()).best(eps=0.5).theorem == "POST"
