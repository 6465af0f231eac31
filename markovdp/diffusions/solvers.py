"""Fixed-step solvers of Itô SDEs as frozen values with their convergence orders (STD-EulerMaruyama, STD-Milstein).

A solver says *how* one step is taken; `markovdp.diffusions.simulate` runs it over an ensemble of paths. Orders
are those of Kloeden–Platen (1992) under smooth coefficients of linear growth: strong order p means
E|X_T − X̂_T| = O(dt^p), weak order q means |E φ(X_T) − E φ(X̂_T)| = O(dt^q) for smooth φ of polynomial growth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


class Solver:
    """A fixed-step scheme: its name in the compiled kernels, orders, and the noise types it supports."""

    scheme: ClassVar[str]
    strong_order: ClassVar[float]
    weak_order: ClassVar[float]
    noises: ClassVar[tuple[str, ...]]
    sdeint_name: ClassVar[str]

    def check_noise(self, noise: str) -> None:
        """NotImplementedError naming the solver when it does not support this noise type."""
        if noise not in self.noises:
            raise NotImplementedError(
                f"{type(self).__name__} supports noise {' or '.join(map(repr, self.noises))} only; got {noise!r} "
                "(use EulerMaruyama() for general noise).")


@dataclass(frozen=True)
class EulerMaruyama(Solver):
    """X_{n+1} = X_n + u(X_n) h + v(X_n) ΔW_n, ΔW_n ~ N(0, h I): strong order 0.5, weak order 1.0.

    THEORY: STD-EulerMaruyama. Diagonal and general noise. (For additive noise, v constant, it coincides with
    Milstein and its strong order is 1.0.) Cross-checked against ``sdeint.itoEuler`` on the same increments.
    """

    scheme: ClassVar[str] = "euler_maruyama"
    strong_order: ClassVar[float] = 0.5
    weak_order: ClassVar[float] = 1.0
    noises: ClassVar[tuple[str, ...]] = ("diagonal", "general")
    sdeint_name: ClassVar[str] = "itoEuler"


@dataclass(frozen=True)
class Milstein(Solver):
    """Derivative-free Milstein for diagonal noise: strong order 1.0, weak order 1.0 (THEORY: STD-Milstein).

    Per coordinate, with the support value Υ = X_n + u h + v √h (Kloeden–Platen §11.1, a Runge–Kutta form):
    X_{n+1,k} = X_{n,k} + u_k h + v_k ΔW_k + (v_k(Υ) − v_k(X_n)) (ΔW_k² − h) / (2 √h). It replaces the derivative
    in Milstein's term ½ v_k ∂_k v_k (ΔW_k² − h) by a difference, so the user supplies v alone (one more
    evaluation of v per step). Order 1.0 needs v_k to depend on x_k only (diagonal noise in the strict sense,
    which makes the noise commutative: no Lévy areas); otherwise it is only as good as Euler–Maruyama.
    The sdeint cross-check uses ``sdeint.itoSRI2`` (Rößler's order-1.0 scheme): agreement in law, not path by path.
    """

    scheme: ClassVar[str] = "milstein"
    strong_order: ClassVar[float] = 1.0
    weak_order: ClassVar[float] = 1.0
    noises: ClassVar[tuple[str, ...]] = ("diagonal",)
    sdeint_name: ClassVar[str] = "itoSRI2"


__all__ = ["EulerMaruyama", "Milstein", "Solver"]
