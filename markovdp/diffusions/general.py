"""The semigroup of a general time-homogeneous Itô SDE, sampled by integration (BBGG-S, STD-EulerMaruyama)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation import check_positive, fail
from ..spaces import RealSpace
from .base import Semigroup
from .sde import SDE
from .simulate import simulate
from .solvers import EulerMaruyama, Solver


@dataclass(frozen=True)
class DiffusionSemigroup(Semigroup):
    """(P_t) of dX = u(X) dt + v(X) dW: ``at(t).sample(x)`` integrates from each x to time t (THEORY: BBGG-S).

    No closed form: P_t is approximated by `solver` with steps of at most `dt` (t/ceil(t/dt) each; one step of t
    when t < dt), so ``at(t)`` samples the law of the scheme, within O(dt^weak_order) of P_t in law
    (STD-EulerMaruyama, STD-Milstein). ``P.at(t) >> P.at(s)`` merges to ``P.at(t + s)`` exactly as a value
    (the `TimeSlice` rule); in law the two agree up to that discretisation error. No density, invariant law or
    intrinsic sensitivity is known in general (NotImplementedError); for dim = 1, `certify` computes BBGG-T6 from
    the SDE's coefficients (BBGG-T6-1D, `markovdp.diffusions.spectral_1d`).
    """

    sde: SDE
    solver: Solver = EulerMaruyama()
    dt: float = 1e-3

    def __post_init__(self) -> None:
        if not isinstance(self.sde, SDE):
            raise fail("sde", "an SDE", f"{self.sde!r} of type {type(self.sde).__name__}", TypeError)
        if not isinstance(self.solver, Solver):
            raise fail("solver", "a solver such as EulerMaruyama() or Milstein()",
                       f"{self.solver!r} of type {type(self.solver).__name__}", TypeError)
        self.solver.check_noise(self.sde.noise)
        object.__setattr__(self, "dt", check_positive("dt", self.dt))

    @property
    def space(self) -> RealSpace:
        return RealSpace(self.sde.dim)

    def sample_at(self, t: float, x: NDArray[Any], rng: np.random.Generator) -> NDArray[np.float64]:
        """One integrated path from each point to time t; the output has the shape of x."""
        d = self.sde.dim
        x = np.asarray(x, dtype=np.float64)
        out = simulate(self.sde, self.solver, x.reshape(-1, d), t1=t, dt=min(self.dt, t), rng=rng)
        return np.asarray(out).reshape(x.shape)


__all__ = ["DiffusionSemigroup"]
