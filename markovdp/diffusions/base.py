"""Markov semigroups (P_t)_{t >= 0} and their time slices P_t as Markov operators (DESIGN §4, BBGG-S)."""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import check_choice, check_points, check_positive, check_range, fail
from ..operators.base import MERGES, MarkovOperator, check_inputs
from ..operators.identity import Identity
from ..pairs import PUSHES, PairSet, push_pairs
from ..spaces import IncompatibleSpaces, RealSpace, Space, require_compatible

if TYPE_CHECKING:
    from ..distributions import Distribution


def check_time(name: str, t: ArrayLike) -> float:
    """A time t >= 0 (finite scalar)."""
    arr = check_range(name, t, low=0.0, allowed=">= 0 and finite")
    if arr.ndim != 0:
        raise fail(name, "a scalar time >= 0", t, TypeError)
    return float(arr)


def check_space_points(name: str, x: ArrayLike, space: Space) -> NDArray[Any]:
    """Inputs of a semigroup on `space` (`check_inputs`); points of the wrong R^k are `IncompatibleSpaces`."""
    if isinstance(space, RealSpace):
        if _plain_points(x, space.d):
            return x  # a float64 array of the right shape, all finite: used as it is (no copy)
        try:
            shape = np.shape(x)
        except ValueError:  # ragged input: `check_inputs` names it
            shape = ()
        if len(shape) >= (1 if space.d > 1 else 2) and shape[-1] != space.d:
            raise IncompatibleSpaces(f"`{name}` has points of R^{shape[-1]}, but the semigroup acts on R^{space.d}.")
        return check_points(name, x, space.d)
    return check_inputs(space, x)


def _plain_points(x: Any, d: int) -> bool:
    """Whether x is already a finite float64 array of shape (n,) (d = 1) or (n, d): two reductions, no copy."""
    if type(x) is not np.ndarray or x.dtype != np.float64 or x.ndim == 0 or x.size == 0:
        return False
    if x.shape != ((x.shape[0],) if d == 1 else (x.shape[0], d)):
        return False
    return math.isfinite(float(x.min())) and math.isfinite(float(x.max()))  # NaN and ±inf reach min or max


#: The hooks of the numerical BBGG-T6 route, declared on `Semigroup` (the first three are needed).
T6_HOOKS = ("log_density", "carre_du_champ", "sensitivity_pairs", "log_ratio_gradient", "log_density_domain")


def _missing_hook(semigroup: Any, hook: str) -> str:
    return (f"{type(semigroup).__name__} does not implement the optional semigroup method `{hook}` "
            f"(a hook of the numerical BBGG-T6 route; see `Semigroup.{hook}`).")


class Semigroup(abc.ABC):
    """A Markov semigroup (P_t)_{t >= 0} on `space`: P_t P_s = P_{t+s}, P_0 = Id (THEORY: BBGG-S).

    The law every subclass must satisfy (checked by tests/test_semigroup_contracts.py):
    ``P.at(t) >> P.at(s) == P.at(t + s)`` (exactly: the merge rule on `TimeSlice` returns ``P.at(t + s)``; in law
    for samplers), and ``P.at(0)`` is the identity (`Identity(space)`).

    A subclass implements `space` and `sample_at` (one draw of P_t(x_i, ·) per input point). Where P_t is a
    closed-form operator it returns it from `kernel_at` (then pushes of laws, densities and dominating pairs are
    exact). `invariant` (BBGG-A(1)) and `intrinsic_sensitivity` (a closed-form Λ(t)) are optional, and so are
    the hooks of the numerical BBGG-T6 route (`T6_HOOKS`): `log_density`, `carre_du_champ`, `sensitivity_pairs`
    (needed), `log_ratio_gradient` and `log_density_domain` (used when given). Each default raises
    NotImplementedError naming the hook; `provides(hook)` says whether a class implements one. Concrete
    semigroups are frozen dataclasses, so equal parameters give equal semigroups (the merge rule compares them).
    """

    @property
    @abc.abstractmethod
    def space(self) -> Space:
        """The state space X on which every P_t acts."""

    @abc.abstractmethod
    def sample_at(self, t: float, x: NDArray[Any], rng: np.random.Generator) -> NDArray[Any]:
        """One draw y_i ~ P_t(x_i, ·) for each input point, at a time t > 0.

        `x` has already been checked against `space` (shape (n,) for d = 1, (n, d) otherwise, or one point) and
        may be the caller's array: it must not be modified. `rng` is a numpy Generator. The output is a new array
        of the shape of `x`.
        """

    def kernel_at(self, t: float) -> MarkovOperator | None:
        """P_t (t > 0) as a closed-form operator (e.g. an `AffineGaussianKernel`), or None when there is none."""
        return None

    def at(self, t: float) -> MarkovOperator:
        """P_t as a Markov operator: `Identity(space)` at t = 0, otherwise `TimeSlice(self, t)`. t >= 0."""
        t = check_time("t", t)
        return Identity(self.space) if t == 0.0 else TimeSlice(self, t)

    def log_density(self, t: float, x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
        """log p_t(x, y) w.r.t. the base measure of `space` (Lebesgue on R^d), t > 0."""
        kernel = self.kernel_at(check_positive("t", t))
        if kernel is None:
            raise NotImplementedError(f"{type(self).__name__} has no closed-form transition density.")
        return kernel.log_density(x, y)

    def invariant(self) -> Distribution | None:
        """The invariant measure mu (mu P_t = mu for all t, BBGG-A(1))."""
        raise NotImplementedError(f"{type(self).__name__} does not state an invariant measure.")

    def carre_du_champ(self, f: Any, g: Any = None) -> Any:
        """BBGG-T6 hook: Gamma(f, g) = ½ (L(fg) − f Lg − g Lf) of the generator L, as a callable y ↦ Gamma(f, g)(y)
        (g = None: Gamma(f, f)); for a diffusion with diffusion matrix a, Gamma(f, g) = ½ ∇fᵀ a ∇g."""
        raise NotImplementedError(_missing_hook(self, "carre_du_champ"))

    def sensitivity_pairs(self, sensitivity: float) -> list[tuple[NDArray[np.float64], NDArray[np.float64]]]:
        """BBGG-T6 hook: the pairs (x, x') of query values whose largest ∫ kappa is the sup over the L2 ball of
        radius `sensitivity`."""
        raise NotImplementedError(_missing_hook(self, "sensitivity_pairs"))

    def log_ratio_gradient(self, t: float, x: ArrayLike, x_prime: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
        """BBGG-T6 hook (optional): the analytic ∇_y log p_t(x, y)/p_t(x', y) at points y of shape (n, d); without
        it the route takes central differences of `log_density`."""
        raise NotImplementedError(_missing_hook(self, "log_ratio_gradient"))

    def log_density_domain(self) -> tuple[Any, Any]:
        """BBGG-T6 hook (optional): (lower, upper) bounds (scalars or vectors) of the y where `log_density` is
        defined; the route's box over y is clipped to it. Without it, y ranges over all of R^d."""
        raise NotImplementedError(_missing_hook(self, "log_density_domain"))

    @classmethod
    def provides(cls, hook: str) -> bool:
        """Whether this class implements the optional method `hook` (one of `T6_HOOKS`, or `invariant`,
        `intrinsic_sensitivity`): it overrides the default that raises. `log_density` is also provided by a
        closed-form `kernel_at`."""
        check_choice("hook", hook, (*T6_HOOKS, "invariant", "intrinsic_sensitivity"))
        overridden = getattr(cls, hook) is not getattr(Semigroup, hook)
        if hook == "log_density":
            return overridden or cls.kernel_at is not Semigroup.kernel_at
        return overridden

    def intrinsic_sensitivity(self, sensitivity: float, t: float) -> float:
        """Λ(t) of BBGG-T6 for an L2 sensitivity: the Rényi divergence of order alpha is alpha Λ(t)."""
        raise NotImplementedError(f"{type(self).__name__} has no closed-form intrinsic sensitivity.")


@dataclass(frozen=True)
class TimeSlice(MarkovOperator):
    """P_t of a semigroup at a time t > 0, as a Markov operator on the semigroup's space (BBGG-S).

    ``P.at(t) >> P.at(s)`` merges to ``P.at(t + s)`` (a rule in `MERGES`). Samples with `Semigroup.sample_at`;
    pushes laws and dominating pairs through `Semigroup.kernel_at` where P_t has a closed form.
    """

    semigroup: Semigroup
    t: float

    def __post_init__(self) -> None:
        if not isinstance(self.semigroup, Semigroup):
            raise fail("semigroup", "a Semigroup", type(self.semigroup).__name__, TypeError)
        # t = 0 is `Identity(space)`, returned by `Semigroup.at(0)`; a slice itself is at a positive time
        object.__setattr__(self, "t", check_positive("t", self.t))

    @property
    def domain(self) -> Space:
        return self.semigroup.space

    @property
    def codomain(self) -> Space:
        return self.semigroup.space

    @property
    def kernel(self) -> MarkovOperator | None:
        """The closed-form operator equal to P_t, or None."""
        return self.semigroup.kernel_at(self.t)

    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[Any]:
        points = check_space_points("x", x, self.semigroup.space)
        return self.semigroup.sample_at(self.t, points, as_generator(rng))

    def log_density(self, x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
        return self.semigroup.log_density(self.t, x, y)

    def push(self, mu: Distribution) -> Distribution:
        require_compatible(mu.space, self.domain, "mu >> K")
        kernel = self.kernel
        return super().push(mu) if kernel is None else kernel.push(mu)

    def __repr__(self) -> str:
        return f"{self.semigroup!r}.at({self.t!r})"


@MERGES.register((TimeSlice, TimeSlice))
def _merge_slices(left: TimeSlice, right: TimeSlice) -> MarkovOperator | None:
    """P_t then P_s of one semigroup is P_{t+s} (BBGG-S); slices of different semigroups do not merge."""
    if left.semigroup != right.semigroup:
        return None
    return left.semigroup.at(left.t + right.t)


@PUSHES.register((TimeSlice, PairSet))
def _push_slice(kernel: TimeSlice, pairs: PairSet) -> PairSet:
    """Through the closed form of P_t, by its own push rules; without one, NotImplementedError naming the class."""
    closed = kernel.kernel
    if closed is None:
        raise NotImplementedError(
            f"{type(kernel.semigroup).__name__}.at(t) has no closed form, so it is not known to keep the dominating "
            f"pairs of the mechanism ({type(pairs).__name__}) exact.")
    return push_pairs(closed, pairs)


__all__ = ["T6_HOOKS", "Semigroup", "TimeSlice"]
