"""Per-record losses ℓ(x; z) for `NoisyProjSGD` (BBGG-A1) with the constants BBGG-T5 reads.

Each loss declares `lipschitz` (C: ||∇ℓ(x; z)|| <= C), `smoothness` (β: ∇²ℓ <= β I) and `strong_convexity`
(ρ: ∇²ℓ >= ρ I; 0 when not strongly convex) on its `domain` W, and gives its gradient to the compiled simulator:
the built-in losses by a numba code (`code`, `parameters()`), a user loss by its own numba function.

BBGG-T5 uses C only through the sensitivity of one step, sup_x ||∇ℓ(x; z) − ∇ℓ(x; z')|| <= 2C for records z, z'
of the loss's record domain; for both built-in losses that difference does not depend on x at all, so the bound
stays valid even when the iterates leave W (e.g. the unprojected quadratic of `exact_sgd_outputs`).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_int, check_positive, check_range, check_real, check_size, check_vector, fail
from ..operators.projections import Ball, Box, Projection

#: numba codes of the built-in losses (`markovdp.mechanisms._sgd_kernels.gradient`); 0: a user loss.
USER, QUADRATIC, LOGISTIC = 0, 1, 2


class Loss(abc.ABC):
    """ℓ(x; z) for x ∈ R^`dim` and a record z ∈ R^`record_dim`, with declared constants (BBGG-T5):
    `lipschitz` C (||∇ℓ(x; z)||_2 <= C), `smoothness` β (∇²ℓ <= β I), `strong_convexity` ρ (∇²ℓ >= ρ I, 0.0 when
    only convex)."""

    code: ClassVar[int] = USER
    dim: int
    record_dim: int
    lipschitz: float
    smoothness: float
    strong_convexity: float

    def parameters(self) -> NDArray[np.float64]:
        """The loss as a float64 vector for the numba gradient (see `code`)."""
        return np.zeros(0)

    def check_records(self, dataset: ArrayLike, name: str = "dataset") -> NDArray[np.float64]:
        """`dataset` as a C-contiguous float64 (n, p) array of finite records (ValueError naming `name`)."""
        data = np.ascontiguousarray(check_real(name, dataset), dtype=np.float64)
        if data.ndim != 2 or data.shape[1] != self.record_dim or data.shape[0] == 0:
            raise fail(name, f"an (n, {self.record_dim}) array of records, n >= 1", f"shape {data.shape}")
        return data

    def gradient_at(self, x: ArrayLike, z: ArrayLike) -> NDArray[np.float64]:
        """∇_x ℓ(x; z) at one point x (shape (d,)) for one record z (shape (p,)), by the compiled gradient."""
        from ._sgd_kernels import gradient

        point = check_vector("x", x, self.dim)
        record = check_vector("z", z, self.record_dim)
        out = np.empty(self.dim)
        gradient(self.code, self.parameters(), point, record, out)
        return out


def largest_norm(domain: Projection) -> float:
    """sup_{x ∈ W} ||x||_2: the radius of a `Ball`, the norm of the farthest corner of a `Box`."""
    if isinstance(domain, Ball):
        return domain.radius
    if isinstance(domain, Box):
        return float(np.linalg.norm(np.maximum(np.abs(domain.low), np.abs(domain.high))))
    raise fail("domain", "a Ball or a Box", repr(domain), TypeError)


def _check_domain(domain: Any) -> Projection:
    if not isinstance(domain, Projection):
        raise fail("domain", "the set W as a Projection, e.g. Ball(d, radius) or Box(low, high)", repr(domain),
                   TypeError)
    return domain


@dataclass(frozen=True)
class QuadraticLoss(Loss):
    """ℓ(x; z) = ||x − z||² / 2 with records z ∈ W = `domain`; ∇ℓ = x − z, ∇²ℓ = I.

    Constants on W: C = diam W (||x − z|| <= diam W for x, z ∈ W), β = ρ = 1 (BBGG-T5).
    """

    domain: Projection
    code: ClassVar[int] = QUADRATIC

    def __post_init__(self) -> None:
        _check_domain(self.domain)

    @property
    def dim(self) -> int:
        return self.domain.dim

    @property
    def record_dim(self) -> int:
        return self.domain.dim

    @property
    def lipschitz(self) -> float:
        return self.domain.diameter

    @property
    def smoothness(self) -> float:
        return 1.0

    @property
    def strong_convexity(self) -> float:
        return 1.0

    def check_records(self, dataset: ArrayLike, name: str = "dataset") -> NDArray[np.float64]:
        """Records must lie in W (the constants assume it)."""
        data = super().check_records(dataset, name)
        gap = np.abs(self.domain.project(data if self.dim > 1 else data[:, 0]).reshape(data.shape) - data)
        if gap.max() > 1e-12 * max(1.0, float(np.abs(data).max())):
            row = int(np.argmax(gap.max(axis=1)))
            raise fail(name, f"records in the loss's domain {self.domain!r}", f"record {row} = {data[row]}")
        return data


@dataclass(frozen=True)
class LogisticLoss(Loss):
    """L2-regularised logistic regression, ℓ(x; (a, y)) = log(1 + exp(−y aᵀx)) + (λ/2)||x||², λ = `regularization`.

    A record is the row (a_1, …, a_d, y) with ||a||_2 <= R = `data_bound` and y ∈ {−1, +1}. With
    s(t) = 1/(1 + e^(−t)): ∇ℓ = −y s(−y aᵀx) a + λ x and ∇²ℓ = s(1 − s) a aᵀ + λ I, s(1 − s) ∈ (0, 1/4]. On W
    (`domain`) with D = sup_{x ∈ W} ||x|| (a ball's radius): C = R + λ D, β = R²/4 + λ, ρ = λ (BBGG-T5).
    """

    domain: Projection
    regularization: float
    data_bound: float
    code: ClassVar[int] = LOGISTIC

    def __post_init__(self) -> None:
        _check_domain(self.domain)
        largest_norm(self.domain)
        lam = check_range("regularization", self.regularization, low=0.0, allowed=">= 0 and finite")
        if lam.ndim != 0:
            raise fail("regularization", "a scalar", self.regularization, TypeError)
        object.__setattr__(self, "regularization", float(lam))
        object.__setattr__(self, "data_bound", check_positive("data_bound", self.data_bound))

    @property
    def dim(self) -> int:
        return self.domain.dim

    @property
    def record_dim(self) -> int:
        return self.domain.dim + 1

    @property
    def lipschitz(self) -> float:
        return self.data_bound + self.regularization * largest_norm(self.domain)

    @property
    def smoothness(self) -> float:
        return self.data_bound**2 / 4.0 + self.regularization

    @property
    def strong_convexity(self) -> float:
        return self.regularization

    def parameters(self) -> NDArray[np.float64]:
        return np.array([self.regularization])

    def check_records(self, dataset: ArrayLike, name: str = "dataset") -> NDArray[np.float64]:
        """Features with ||a|| <= data_bound and labels y ∈ {−1, +1} (the constants assume both)."""
        data = super().check_records(dataset, name)
        labels = data[:, -1]
        if not np.all(np.abs(labels) == 1.0):
            row = int(np.argmax(np.abs(labels) != 1.0))
            raise fail(name, "labels (last column) in {-1, +1}", f"record {row} label {labels[row]!r}")
        norms = np.linalg.norm(data[:, :-1], axis=1)
        if norms.max() > self.data_bound * (1.0 + 1e-12):
            row = int(np.argmax(norms))
            raise fail(name, f"features with ||a||_2 <= data_bound = {self.data_bound!r}",
                       f"record {row} with ||a|| = {float(norms[row])!r}")
        return data


@dataclass(frozen=True)
class GradientLoss(Loss):
    """A user loss given by its numba gradient ``gradient(x, z, out)`` (writes ∇_x ℓ(x; z) into out, shape (d,))
    and its declared constants C = `lipschitz`, β = `smoothness`, ρ = `strong_convexity` (BBGG-T5).

    The constants are the user's claim, to hold wherever the iterates go: markovdp checks only that they are
    consistent (0 <= ρ <= β) and that the gradient runs with the right shapes. The simulator is compiled once
    per gradient and process (not cached on disk, unlike the built-in losses').
    """

    gradient: Any
    dim: int
    record_dim: int
    lipschitz: float
    smoothness: float
    strong_convexity: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "dim", check_int("dim", self.dim, minimum=1))
        object.__setattr__(self, "record_dim", check_int("record_dim", self.record_dim, minimum=1))
        check_size("dim", self.dim, 2 * self.dim, what="the test point and gradient")
        check_size("record_dim", self.record_dim, self.record_dim, what="the test record")
        object.__setattr__(self, "lipschitz", check_positive("lipschitz", self.lipschitz))
        object.__setattr__(self, "smoothness", check_positive("smoothness", self.smoothness))
        rho = check_range("strong_convexity", self.strong_convexity, low=0.0, high=self.smoothness,
                          allowed=f"in [0, smoothness = {self.smoothness!r}]")
        if rho.ndim != 0:
            raise fail("strong_convexity", "a scalar", self.strong_convexity, TypeError)
        object.__setattr__(self, "strong_convexity", float(rho))
        self._check_gradient()

    def _check_gradient(self) -> None:
        from numba.core.registry import CPUDispatcher

        if not isinstance(self.gradient, CPUDispatcher):
            raise fail("gradient", "a numba-compiled function gradient(x, z, out) (decorate it with @numba.njit)",
                       repr(self.gradient), TypeError)
        out = np.full(self.dim, np.nan)
        try:
            self.gradient(np.zeros(self.dim), np.zeros(self.record_dim), out)
        except Exception as exc:  # numba typing errors, index errors, ...
            raise fail("gradient", f"callable as gradient(x, z, out) with x, out of shape ({self.dim},) and z of "
                       f"shape ({self.record_dim},)", f"{type(exc).__name__}: {exc}", TypeError) from exc
        if not np.all(np.isfinite(out)):
            raise fail("gradient", "a function that writes a finite value into every entry of `out`",
                       f"out = {out.tolist()} at x = 0, z = 0")

    def gradient_at(self, x: ArrayLike, z: ArrayLike) -> NDArray[np.float64]:
        out = np.empty(self.dim)
        self.gradient(check_vector("x", x, self.dim), check_vector("z", z, self.record_dim), out)
        return out

    def __repr__(self) -> str:
        name = getattr(self.gradient, "__name__", repr(self.gradient))
        return (f"GradientLoss({name}, dim={self.dim}, record_dim={self.record_dim}, lipschitz={self.lipschitz!r}, "
                f"smoothness={self.smoothness!r}, strong_convexity={self.strong_convexity!r})")


__all__ = ["GradientLoss", "LogisticLoss", "Loss", "QuadraticLoss"]
